"""Background jobs: specs, a task registry, a durable run registry, local and Dask runners.

The Streamlit workbench and the CLI submit long computations (EM training of many classifiers,
tuning grids) as jobs::

    from hbnlab.jobs import JobSpec, get_runner

    runner = get_runner("runs/")                       # or backend="dask", address=...
    job = runner.submit(JobSpec("count", {"n": 5}, group="session-1",
                                module="hbnlab.jobs.testing"))
    runner.registry.get(job).progress                  # from any process or thread
    runner.cancel(group="session-1")

* :class:`JobSpec` -- what to run (a registered task name + JSON parameters), for which group;
* :func:`register_task` / :class:`TaskContext` -- how tasks are written and what they see;
* :class:`RunRegistry` -- SQLite (WAL) store of jobs, logs, traces, results and
  content-addressed artifacts;
* :class:`LocalProcessRunner` (embedded default) and :class:`DaskRunner` (scale-out), both
  :class:`Runner`; :func:`get_runner` picks one.

Dask is imported only when a :class:`DaskRunner` is created, and the local pool's modules only
when a :class:`LocalProcessRunner` is (both are loaded on first use, by :func:`get_runner` or
by attribute access).
"""
import os

from hbnlab.jobs.registry import (
    STATES,
    TERMINAL_STATES,
    JobNotFound,
    JobRecord,
    LogEntry,
    RegistryError,
    RunRegistry,
    StaleJobError,
)
from hbnlab.jobs.runner import Runner, RunnerError
from hbnlab.jobs.spec import SPEC_VERSION, JobSpec, SpecError
from hbnlab.jobs.tasks import (
    TASKS,
    InlineTaskContext,
    JobCancelled,
    TaskContext,
    TaskError,
    TaskOutcome,
    register_task,
    run_inline,
)

__all__ = [
    "BACKENDS", "DaskRunner", "InlineTaskContext", "JobCancelled", "JobNotFound", "JobRecord",
    "JobSpec", "LocalProcessRunner", "LogEntry", "RegistryError", "RunRegistry", "Runner",
    "RunnerError", "SPEC_VERSION", "STATES", "SpecError", "StaleJobError", "TASKS", "TERMINAL_STATES",
    "TaskContext", "TaskError", "TaskOutcome", "get_runner", "register_task", "run_inline",
]


#: The runner kinds :func:`get_runner` builds.
BACKENDS = ("local", "dask")


def get_runner(registry, backend: str = "local", address: str | None = None, **kwargs) -> Runner:
    """Build a runner: ``"local"`` (process pool, the default) or ``"dask"``.

    Parameters
    ----------
    registry : RunRegistry or path
    backend : {"local", "dask"}
    address : str, optional
        Dask scheduler address (``tcp://host:8786``); default ``$HBNLAB_DASK_SCHEDULER``, else
        a :class:`distributed.LocalCluster`.  Only for ``backend="dask"``.
    **kwargs
        Passed to :class:`~hbnlab.jobs.local.LocalProcessRunner` or
        :class:`~hbnlab.jobs.dask_runner.DaskRunner`.
    """
    if backend == "local":
        if address is not None:
            raise RunnerError(f"address is only for backend='dask', got address={address!r} "
                              "with backend='local'")
        from hbnlab.jobs.local import LocalProcessRunner

        return LocalProcessRunner(registry, **kwargs)
    if backend == "dask":
        from hbnlab.jobs.dask_runner import DaskRunner

        return DaskRunner(registry, address or os.environ.get("HBNLAB_DASK_SCHEDULER") or None,
                          **kwargs)
    raise RunnerError(f"backend must be one of {BACKENDS}, got {backend!r}")


def __getattr__(name):  # lazy: keep `import hbnlab.jobs` free of multiprocessing/dask imports
    if name == "LocalProcessRunner":
        from hbnlab.jobs.local import LocalProcessRunner

        return LocalProcessRunner
    if name == "DaskRunner":
        from hbnlab.jobs.dask_runner import DaskRunner

        return DaskRunner
    raise AttributeError(f"module 'hbnlab.jobs' has no attribute {name!r}")
