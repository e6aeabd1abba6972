"""The runner interface shared by the local process pool and the Dask executor.

A runner puts jobs into a :class:`~hbnlab.jobs.registry.RunRegistry` and executes the queued
jobs of its backend somewhere else (worker processes, Dask workers); all state lives in the
registry, so any process or thread can watch the jobs (``runner.registry.list(group=...)``).
Runners are thread-safe: one per app process (Streamlit ``st.cache_resource``) serves every
session.  :func:`hbnlab.jobs.get_runner` builds one by backend name.
"""
from __future__ import annotations

import abc
import math
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from hbnlab._validation import HbnlabError
from hbnlab.jobs.records import system_failure
from hbnlab.jobs.registry import ACTIVE_STATES, JobRecord, RegistryError, RunRegistry
from hbnlab.jobs.spec import JobSpec
from hbnlab.jobs.tasks import resolve_spec

__all__ = ["PollingRunner", "Runner", "RunnerError", "SystemFailureError", "as_registry", "interrupt_all"]


class RunnerError(HbnlabError, RuntimeError):
    """A runner cannot accept a job (unknown shared input, closed runner, bad argument)."""


class SystemFailureError(RunnerError):
    """Jobs cannot go on for a system reason (a full disk, a quota, a read-only mount)."""


def as_registry(registry) -> RunRegistry:
    """``registry`` itself if it is a :class:`RunRegistry`, else the registry stored at that path."""
    return registry if isinstance(registry, RunRegistry) else RunRegistry(registry)


def interrupt_all(runners) -> None:
    """Shut every runner of ``runners`` down at once, marking their running jobs ``interrupted``
    (resumable): the backends' exit hooks.  Errors are ignored, the process is ending."""
    for runner in list(runners):
        try:
            runner.shutdown(wait=False, interrupt=True)
        except Exception:
            pass


class Runner(abc.ABC):
    """Submit, cancel and wait for background jobs.

    The base class owns the state of the runner thread's loop (:meth:`_step_loop`): the wake-up
    and stop events, ``poll_interval``, the lock and the shared inputs (``_shared``: name ->
    whatever the backend ships).  Subclasses set ``backend`` and implement :meth:`share`,
    :meth:`shutdown` and ``_step`` (one pass of the runner thread).

    Parameters
    ----------
    registry : RunRegistry or path
    poll_interval : float, default 0.1
        Seconds between two passes of the runner thread when nothing wakes it.
    """

    backend: str = ""

    def __init__(self, registry, *, poll_interval: float = 0.1):
        self.registry = as_registry(registry)
        self.poll_interval = float(poll_interval)
        self._closed = False
        self._lock = threading.RLock()
        self._shared: dict[str, Any] = {}
        self._wake_event = threading.Event()
        self._stop_event = threading.Event()
        #: the registry error of the runner thread's last step when it is a system failure (a full
        #: disk ...): dispatching cannot go on, so :meth:`wait` raises instead of waiting forever
        self.system_error: str | None = None

    # ------------------------------------------------------------------ submit
    def submit(self, spec: JobSpec) -> int:
        """Queue ``spec`` for this runner's workers; return the job id."""
        return self.submit_many([spec])[0]

    def submit_many(self, specs: Iterable[JobSpec]) -> list[int]:
        """Queue several jobs in one registry transaction; return their ids in order.

        Each spec's task must be importable by workers (``spec.module``, filled in from the
        task registry when None) and its ``inputs`` must have been :meth:`share`-d.
        """
        if self._closed:
            raise RunnerError(f"{type(self).__name__} is shut down; create a new runner")
        specs = [resolve_spec(s) if isinstance(s, JobSpec) else s for s in specs]
        for spec in specs:
            if not isinstance(spec, JobSpec):
                raise TypeError(f"submit needs JobSpec objects, got {type(spec).__name__}")
            missing = [n for n in spec.inputs if not self._has_input(n)]
            if missing:
                raise RunnerError(
                    f"job {spec.kind!r} ({spec.label or 'no label'}) needs shared input(s) "
                    f"{missing}; call runner.share(name, value) first"
                )
        ids = self.registry.submit_many(specs, backend=self.backend)
        self._wake()
        return ids

    @abc.abstractmethod
    def share(self, name: str, value: Any) -> None:
        """Make ``value`` available to jobs that list ``name`` in ``spec.inputs``; it is
        shipped to each worker once (replacing a previous value of that name)."""

    # ------------------------------------------------------------------ control
    def cancel(self, job_id: int | None = None, *, group: str | None = None,
               expect: tuple[str, int] | None = None) -> list[int]:
        """Cancel one job or every queued/running job of a group; returns the ids affected.
        Running tasks see ``ctx.should_stop()`` within a second.  ``expect``: the ``(state,
        attempt)`` the cancel was pressed against (:meth:`RunRegistry.request_cancel`)."""
        ids = self.registry.request_cancel(job_id, group=group, expect=expect)
        self._wake()
        return ids

    def retry(self, job_id: int) -> int:
        """Run a failed, cancelled or interrupted job again on this runner (same id, next
        attempt)."""
        self.registry.retry(job_id, backend=self.backend)
        self._wake()
        return job_id

    def resume(self, job_id: int | None = None, *, group: str | None = None) -> list[int]:
        """Run interrupted jobs again on this runner (one, a group's, or all)."""
        ids = self.registry.resume(job_id, group=group, backend=self.backend)
        self._wake()
        return ids

    def wait(self, job_ids: Sequence[int] | None = None, *, group: str | None = None,
             timeout: float | None = None, poll: float = 0.1,
             callback: Callable[[dict[str, int]], None] | None = None) -> list[JobRecord]:
        """Block until the jobs (or all of a group's jobs) are finished; return their records.

        ``callback(counts)`` gets the number of jobs per state after every poll (e.g. for a
        terminal progress bar).  Polls are cheap counts; the records are read once at the end.

        Raises
        ------
        TimeoutError
            Naming the jobs still active after ``timeout`` seconds.
        SystemFailureError
            The runner thread cannot write the registry for a system reason (a full disk, a
            read-only mount): no job would start again, so waiting stops.
        """
        if job_ids is None and group is None:
            raise RunnerError("wait needs job_ids or a group")
        if job_ids is not None:
            job_ids = [int(i) for i in job_ids]
            found = self.registry.counts(group, ids=job_ids)
            if sum(found.values()) != len(set(job_ids)):
                known = {r.id for r in self.registry.list(group=group, ids=job_ids)}
                raise RegistryError(f"jobs {[i for i in job_ids if i not in known]} are not in "
                                    f"{self.registry.db_path}" + (f" (group {group!r})" if group else ""))
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            counts = self.registry.counts(group, ids=job_ids)
            if callback is not None:
                callback(counts)
            if not any(counts[s] for s in ACTIVE_STATES):
                return self.registry.list(group=group, ids=job_ids)
            if self.system_error is not None:
                raise SystemFailureError(f"the runner cannot dispatch jobs: {self.system_error}")
            if deadline is not None and time.monotonic() > deadline:
                active = [r.id for r in self.registry.list(group=group, ids=job_ids,
                                                            states=ACTIVE_STATES)]
                raise TimeoutError(f"jobs {active} still active after {timeout:g} s")
            time.sleep(poll)

    @abc.abstractmethod
    def shutdown(self, wait: bool = True, *, interrupt: bool = False, timeout: float = 30.0) -> None:
        """Stop dispatching.  ``wait``: let running jobs finish first, for at most ``timeout``
        seconds; ``interrupt`` (or the timeout passing): stop them and mark them ``interrupted``
        (resumable).  Queued jobs stay queued."""

    def _wake(self) -> None:
        """Wake the runner thread now (new jobs, a cancel) rather than after ``poll_interval``."""
        self._wake_event.set()

    def _has_input(self, name: str) -> bool:
        with self._lock:
            return name in self._shared

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown(wait=True)

    @abc.abstractmethod
    def _step(self) -> None:
        """One pass of the runner thread: record what finished, enforce cancels, dispatch."""

    def _step_loop(self, label: str, *, final_step: bool) -> None:
        """The runner thread's loop: ``self._step()`` after every wake-up or ``poll_interval``.
        Registry errors (a locked or full registry) are reported once and retried; any other
        error is a bug, reported, and never kills the thread.  ``final_step``: take one more step
        after the stop request (to record results that arrived meanwhile)."""
        last_error = ""
        while not self._stop_event.is_set():
            self._wake_event.wait(self.poll_interval)
            self._wake_event.clear()
            if self._stop_event.is_set() and not final_step:
                break
            try:
                self._step()
                last_error = ""
                self.system_error = None
            except RegistryError as exc:
                self.system_error = str(exc) if system_failure(exc) else None
                if str(exc) != last_error:
                    last_error = str(exc)
                    print(f"hbnlab.jobs {label}: {exc}", file=sys.stderr, flush=True)
                self._stop_event.wait(1.0)
            except Exception as exc:  # pragma: no cover - a bug; keep the thread alive
                print(f"hbnlab.jobs {label}: unexpected {type(exc).__name__}: {exc}",
                      file=sys.stderr, flush=True)
                self._stop_event.wait(1.0)


class PollingRunner(Runner):
    """A runner whose thread makes the same pass for every backend (:meth:`_step`): record what
    finished (:meth:`_collect`), enforce cancel requests (:meth:`_enforce_cancels`), every
    :attr:`periodic_interval` seconds the backend's chore (:meth:`_periodic`: the local pool
    recovers jobs whose worker is gone, the Dask runner heartbeats its jobs), then hand queued jobs
    out (:meth:`_dispatch`).  The backends give these four pieces, :meth:`share`, :meth:`shutdown`
    and the thread (``self._thread``, a daemon thread running :meth:`_run_thread`);
    :meth:`_stop_thread` ends it for :meth:`shutdown`."""

    #: the thread's name in its error lines (:meth:`_step_loop`)
    thread_label: str = ""
    #: take one more step after the stop request (to record results that arrived meanwhile)
    final_step: bool = False

    def __init__(self, registry, *, poll_interval: float = 0.1):
        super().__init__(registry, poll_interval=poll_interval)
        self._last_periodic = -math.inf  # the first pass does the chore

    def _run_thread(self) -> None:
        """The target of ``self._thread``."""
        self._step_loop(self.thread_label, final_step=self.final_step)

    @property
    @abc.abstractmethod
    def periodic_interval(self) -> float:
        """Seconds between two runs of :meth:`_periodic`."""

    def _step(self) -> None:
        self._collect()
        self._enforce_cancels()
        now = time.monotonic()
        if now - self._last_periodic >= self.periodic_interval:
            self._last_periodic = now
            self._periodic()
        self._dispatch()

    @abc.abstractmethod
    def _collect(self) -> None:
        """Record what the workers finished or what happened to them."""

    @abc.abstractmethod
    def _enforce_cancels(self) -> None:
        """Stop the running jobs whose cancel was requested."""

    @abc.abstractmethod
    def _periodic(self) -> None:
        """The backend's chore every :attr:`periodic_interval` seconds."""

    @abc.abstractmethod
    def _dispatch(self) -> None:
        """Hand queued jobs of this backend to idle workers."""

    def _stop_thread(self, join_seconds: float, what: str) -> None:
        """Ask the runner thread to stop and wait for it at most ``join_seconds`` (not from the
        thread itself); a thread still running then is left behind (a daemon), said on stderr."""
        self._stop_event.set()
        self._wake_event.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(join_seconds)
            if self._thread.is_alive():
                print(f"hbnlab.jobs: {what} did not stop within {join_seconds:g} s; closing without it",
                      file=sys.stderr, flush=True)
