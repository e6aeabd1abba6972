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

Dask is imported only when a :class:`DaskRunner` is created.
"""
from hbnlab.jobs.registry import (
    STATES,
    TERMINAL_STATES,
    JobNotFound,
    JobRecord,
    LogEntry,
    RegistryError,
    RunRegistry,
)
from hbnlab.jobs.runner import BACKENDS, Runner, RunnerError, get_runner
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
    "RunnerError", "SPEC_VERSION", "STATES", "SpecError", "TASKS", "TERMINAL_STATES",
    "TaskContext", "TaskError", "TaskOutcome", "get_runner", "register_task", "run_inline",
]


def __getattr__(name):  # lazy: keep `import hbnlab.jobs` free of multiprocessing/dask imports
    if name == "LocalProcessRunner":
        from hbnlab.jobs.local import LocalProcessRunner

        return LocalProcessRunner
    if name == "DaskRunner":
        from hbnlab.jobs.dask_runner import DaskRunner

        return DaskRunner
    raise AttributeError(f"module 'hbnlab.jobs' has no attribute {name!r}")
