"""The embedded default runner: a small pool of worker processes on this machine.

A supervisor thread in the owning process (the Streamlit app, the CLI) claims queued ``local``
jobs from the registry and hands each to an idle worker process (a fresh interpreter, talking
over a socket pair); the worker runs the task and writes progress, heartbeats and the result
to the registry itself.  Nothing runs
in the caller's thread, and because every state lives in the registry, a browser reload or a
second tab sees the same jobs.

Faults:

* a cancel is seen by the task within a second; a task that ignores it for ``cancel_grace``
  seconds has its worker process killed and is recorded ``cancelled``;
* a worker process that dies mid-job (segfault, OOM kill) fails the job with the exit code, or
  requeues it up to ``retries`` times;
* if the owning process exits normally, running jobs are stopped and marked ``interrupted``;
  if it is killed, its workers finish their current job, record it and exit; jobs whose
  worker is gone are marked ``interrupted`` when a registry is next opened; queued jobs wait
  for the next runner.
"""
from __future__ import annotations

import atexit
import os
import pickle
import socket
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from hbnlab.jobs.registry import Claim, RegistryError
from hbnlab.jobs.runner import PollingRunner, RunnerError, interrupt_all

__all__ = ["LocalProcessRunner"]

_RUNNERS: weakref.WeakSet[LocalProcessRunner] = weakref.WeakSet()


@atexit.register
def _shutdown_all():  # pragma: no cover - runs at interpreter exit
    interrupt_all(_RUNNERS)


@dataclass
class _Worker:
    process: subprocess.Popen
    conn: Connection
    claim: Claim | None = None
    sent: dict = field(default_factory=dict)  # shared input name -> version sent
    cancel_seen: float | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self, grace: float = 0.0, reap_timeout: float = 10.0) -> None:
        """SIGTERM, then SIGKILL after ``grace`` seconds; wait up to ``reap_timeout`` seconds for
        the process to go (a process stuck in the kernel is left to the next reap)."""
        if grace > 0:
            self.process.terminate()
            try:
                self.process.wait(grace)
                return
            except subprocess.TimeoutExpired:
                pass
        self.process.kill()
        try:
            self.process.wait(reap_timeout)
        except subprocess.TimeoutExpired:
            print(f"hbnlab.jobs: worker process {self.pid} did not exit within {reap_timeout:g} s "
                  "of SIGKILL", file=sys.stderr, flush=True)


def _child_env() -> dict:
    """Environment of a worker: the parent's, with the parent's import path, so task modules
    importable here are importable there (as multiprocessing's spawn does)."""
    env = dict(os.environ)
    paths = [p if p else os.getcwd() for p in sys.path]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


class LocalProcessRunner(PollingRunner):
    """Run jobs in up to ``max_workers`` spawned processes on this machine.

    Parameters
    ----------
    registry : RunRegistry or path
    max_workers : int, default 2
        Worker processes, started on demand and reused for later jobs.
    poll_interval : float, default 0.1
        Seconds between supervisor passes (dispatch latency).
    cancel_grace : float, default 5.0
        Seconds a running task may ignore a cancel request before its process is killed.
    retries : int, default 0
        Times a job is requeued when its worker process dies under it.
    start : bool, default True
        Start the supervisor thread.  ``False`` gives a submit-only client, e.g. for a
        ``python -m hbnlab.jobs.worker`` daemon that serves the same registry.

    Examples
    --------
    >>> import tempfile
    >>> from hbnlab.jobs import JobSpec, LocalProcessRunner
    >>> with LocalProcessRunner(tempfile.mkdtemp(), max_workers=1) as runner:  # doctest: +SKIP
    ...     job = runner.submit(JobSpec("count", {"n": 3}, module="hbnlab.jobs.testing"))
    ...     runner.wait([job])[0].result["total"]
    3
    """

    backend = "local"
    thread_label = "supervisor"

    def __init__(self, registry, max_workers: int = 2, *, poll_interval: float = 0.1,
                 cancel_grace: float = 5.0, retries: int = 0, start: bool = True,
                 recover_interval: float = 5.0):
        if not isinstance(max_workers, int) or max_workers < 1:
            raise RunnerError(f"max_workers must be an int >= 1, got {max_workers!r}")
        if retries < 0:
            raise RunnerError(f"retries must be >= 0, got {retries!r}")
        super().__init__(registry, poll_interval=poll_interval)
        self.max_workers = max_workers
        self.cancel_grace = float(cancel_grace)
        self.retries = int(retries)
        self.recover_interval = float(recover_interval)
        self._version = 0  # self._shared: name -> (version, pickled value)
        self._workers: list[_Worker] = []
        self._deaths: dict[int, int] = {}
        self.transfers = 0  #: shared-input payloads sent to worker processes so far
        self._thread = threading.Thread(target=self._run_thread, name="hbnlab-jobs-supervisor",
                                        daemon=True)
        _RUNNERS.add(self)
        if start:
            self._thread.start()

    # ------------------------------------------------------------------ Runner API
    def share(self, name: str, value: Any) -> None:
        if not isinstance(name, str) or not name:
            raise RunnerError(f"shared input name must be a non-empty str, got {name!r}")
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            self._version += 1
            self._shared[name] = (self._version, payload)

    @property
    def worker_pids(self) -> list[int]:
        """Pids of the live worker processes."""
        with self._lock:
            return [w.pid for w in self._workers if w.alive()]

    def shutdown(self, wait: bool = True, *, interrupt: bool = False, timeout: float = 30.0) -> None:
        """Stop.  ``wait`` (and not ``interrupt``): worker processes finish their current job and
        exit, for at most ``timeout`` seconds; a process still running a job after that, or at
        once with ``interrupt``, is stopped (SIGTERM, SIGKILL) and its job marked ``interrupted``.
        Queued jobs stay queued."""
        if self._closed:
            return
        self._closed = True
        timeout = max(float(timeout), 0.0)
        deadline = time.monotonic() + timeout
        self._stop_thread(max(timeout, 1.0), "the supervisor thread")
        with self._lock:
            workers, self._workers = self._workers, []
        for w in workers:
            if interrupt and w.claim is not None and w.alive():
                self._interrupt(w, grace=min(5.0, max(deadline - time.monotonic(), 0.1)))
            else:
                try:
                    w.conn.send(None)
                except (BrokenPipeError, OSError):
                    pass
        if wait:
            for w in workers:
                try:
                    w.process.wait(max(deadline - time.monotonic(), 0.0))
                except subprocess.TimeoutExpired:
                    if w.claim is not None:
                        self._interrupt(w, grace=1.0, why=f" after a {timeout:g} s wait")
                    else:
                        w.kill(grace=1.0)
        for w in workers:
            w.conn.close()
        _RUNNERS.discard(self)

    def _interrupt(self, w: _Worker, grace: float, why: str = "") -> None:
        """Stop the process of ``w`` and mark its job ``interrupted`` (resumable)."""
        w.kill(grace=grace)
        try:
            self.registry.mark_interrupted(w.claim.job_id, w.claim.attempt,
                                           f"the runner in process {os.getpid()} shut down{why}")
        except RegistryError as exc:
            print(f"hbnlab.jobs: {exc}", file=sys.stderr)

    # ------------------------------------------------------------------ supervisor
    @property
    def periodic_interval(self) -> float:
        return self.recover_interval

    def _periodic(self) -> None:
        self.registry.recover()  # jobs whose worker process is gone, of any runner

    def _collect(self) -> None:
        """Take the workers' "done" messages; a worker process that died with a job requeues or
        fails it."""
        for w in list(self._workers):
            try:
                while w.conn.poll():
                    message = w.conn.recv()
                    if message and message[0] == "done":
                        w.claim, w.cancel_seen = None, None
            except (EOFError, OSError):
                pass
            if w.alive():
                continue
            with self._lock:
                self._workers.remove(w)
            w.conn.close()
            if w.claim is None:
                continue
            claim, code = w.claim, w.process.returncode
            deaths = self._deaths[claim.job_id] = self._deaths.get(claim.job_id, 0) + 1
            reason = f"worker process {w.pid} died (exit code {code}) while running the job"
            if deaths <= self.retries:
                self.registry.requeue(claim.job_id, claim.attempt, reason)
            else:
                self.registry.finish(claim.job_id, claim.attempt, "failed", error=reason)

    def _enforce_cancels(self) -> None:
        busy = [w for w in self._workers if w.claim is not None]
        if not busy:
            return
        cancelled = self.registry.cancel_requests(w.claim.job_id for w in busy)
        now = time.monotonic()
        for w in busy:
            if w.claim.job_id not in cancelled:
                continue
            if w.cancel_seen is None:
                w.cancel_seen = now
            elif now - w.cancel_seen > self.cancel_grace:
                claim = w.claim
                w.kill()
                with self._lock:
                    self._workers.remove(w)
                w.conn.close()
                self.registry.finish(
                    claim.job_id, claim.attempt, "cancelled",
                    error=f"the task did not stop within {self.cancel_grace:g} s of the cancel "
                          f"request; worker process {w.pid} was killed")

    def _start_worker(self) -> _Worker:
        # A fresh interpreter running `python -m hbnlab.jobs.worker --child-fd N`, talking over
        # a socket pair: like multiprocessing's spawn, but it never re-imports the parent's
        # __main__ (a Streamlit script, stdin, a notebook).
        parent_sock, child_sock = socket.socketpair()
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "hbnlab.jobs.worker", "--registry", str(self.registry.path),
                 "--child-fd", str(child_sock.fileno())],
                pass_fds=(child_sock.fileno(),), env=_child_env(), stdin=subprocess.DEVNULL,
                close_fds=True)
        except OSError as exc:
            parent_sock.close()
            raise RunnerError(f"cannot start a worker process ({sys.executable}): {exc}") from exc
        finally:
            child_sock.close()
        w = _Worker(process, Connection(parent_sock.detach()))
        with self._lock:
            self._workers.append(w)
        return w

    def _dispatch(self) -> None:
        if self._closed or not self.registry.queued_count(self.backend):
            return
        with self._lock:
            shared = dict(self._shared)
        while not self._stop_event.is_set():
            idle = [w for w in self._workers if w.claim is None and w.alive()]
            if not idle:
                if len(self._workers) >= self.max_workers:
                    return
                idle = [self._start_worker()]
            w = idle[0]
            claims = self.registry.claim(
                self.backend, worker_pid=w.pid, worker=f"local worker {w.pid}", limit=1,
                accept=lambda spec: all(n in shared for n in spec.inputs))
            if not claims:
                return
            claim = claims[0]
            try:
                for name in claim.spec.inputs:
                    version, payload = shared[name]
                    if w.sent.get(name) != version:
                        w.conn.send(("share", name, payload))
                        w.sent[name] = version
                        self.transfers += 1
                w.conn.send(("run", claim))
                w.claim = claim
            except (BrokenPipeError, OSError) as exc:
                w.kill()  # unusable; reaped on the next pass
                self.registry.requeue(claim.job_id, claim.attempt,
                                      f"worker process {w.pid} was gone before the job started ({exc})")
                return
