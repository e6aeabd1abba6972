"""Executing a claimed job in a worker process that writes to the run registry itself.

:func:`execute_job` runs one job: a background thread writes heartbeats, buffered progress,
log lines and trace points to the registry (at most every ``poll_interval`` seconds) and reads
the cancel flag, so ``ctx.should_stop()`` is a cheap in-memory check that turns true within a
second of a cancel request.  The outcome is recorded with the attempt guard of
:meth:`RunRegistry.finish`.

The module is also the entry point of the local pool's processes
(``python -m hbnlab.jobs.worker --registry PATH --child-fd N``, running
:func:`worker_process` on a socket inherited from the runner) and of a standalone daemon that
serves a registry's queue of ``local`` jobs::

    python -m hbnlab.jobs.worker --registry PATH [--workers 2]

SIGTERM or SIGINT stops the daemon; jobs it was running become ``interrupted`` (resumable).
"""
from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any

from hbnlab.jobs.registry import Claim, RegistryError, RunRegistry
from hbnlab.jobs.tasks import TaskContext, TaskOutcome, run_task

__all__ = ["RegistryTaskContext", "execute_job", "main", "worker_process"]


def _warn(message: str) -> None:
    print(f"hbnlab.jobs worker {os.getpid()}: {message}", file=sys.stderr, flush=True)


class RegistryTaskContext(TaskContext):
    """Task context of a local worker: buffers output, a thread writes it to the registry."""

    def __init__(self, registry: RunRegistry, claim: Claim, shared: Mapping[str, Any] | None = None,
                 *, poll_interval: float = 0.2, heartbeat_interval: float = 1.0):
        super().__init__(job_id=claim.job_id, attempt=claim.attempt, spec=claim.spec, shared=shared)
        self.registry = registry
        self.poll_interval = poll_interval
        self.heartbeat_interval = heartbeat_interval
        self._buf_lock = threading.Lock()
        self._buf_progress: dict | None = None
        self._buf_logs: list[tuple[float, str]] = []
        self._buf_traces: list[tuple[str, int, float]] = []
        self._stop_requested = threading.Event()
        self.lost = False  # the registry no longer lists this attempt as running
        self._done = threading.Event()
        self._last_beat = time.monotonic()
        self._last_warning = ""
        self._thread = threading.Thread(target=self._loop, name=f"hbnlab-job-{claim.job_id}",
                                        daemon=True)

    # hooks -------------------------------------------------------------------------
    def _emit_progress(self, fields):
        with self._buf_lock:
            self._buf_progress = fields

    def _emit_log(self, message):
        with self._buf_lock:
            self._buf_logs.append((time.time(), message))

    def _emit_trace(self, series, step, value):
        with self._buf_lock:
            self._buf_traces.append((series, step, value))

    def _cancel_requested(self):
        return self._stop_requested.is_set()

    def _store_artifact(self, name, data):
        return self.registry.put_artifact(data)

    # background thread ------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """End the background thread; one stuck in a registry call is left behind (a daemon)
        after ``timeout`` seconds, the outcome is still recorded by the caller."""
        self._done.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            _warn(f"job {self.job_id}: the reporting thread did not stop within {timeout:g} s")

    def take_buffers(self):
        with self._buf_lock:
            out = (self._buf_progress, self._buf_logs, self._buf_traces)
            self._buf_progress, self._buf_logs, self._buf_traces = None, [], []
        return out

    def _restore(self, progress, logs, traces):
        with self._buf_lock:
            if self._buf_progress is None:
                self._buf_progress = progress
            self._buf_logs[:0] = logs
            self._buf_traces[:0] = traces

    def _tick(self) -> None:
        progress, logs, traces = self.take_buffers()
        now = time.monotonic()
        try:
            if progress is not None or logs or traces or now - self._last_beat >= self.heartbeat_interval:
                beat = self.registry.heartbeat(self.job_id, self.attempt, progress=progress,
                                               logs=logs, traces=traces)
                self._last_beat = now
            else:
                beat = self.registry.poll(self.job_id, self.attempt)
        except RegistryError as exc:
            self._restore(progress, logs, traces)
            if str(exc) != self._last_warning:
                self._last_warning = str(exc)
                _warn(f"job {self.job_id}: {exc} (will retry)")
            return
        if beat.cancel:
            self._stop_requested.set()
        if not beat.alive:
            self.lost = True

    def _loop(self) -> None:
        while not self._done.wait(self.poll_interval):
            self._tick()


def execute_job(registry: RunRegistry, claim: Claim, shared: Mapping[str, Any] | None = None,
                *, poll_interval: float = 0.2) -> TaskOutcome:
    """Run a claimed job in this process and record its outcome in ``registry``.

    Returns the :class:`~hbnlab.jobs.tasks.TaskOutcome`; whether it was recorded depends on
    the attempt guard (a job interrupted and resumed elsewhere meanwhile is not overwritten).
    """
    ctx = RegistryTaskContext(registry, claim, shared, poll_interval=poll_interval)
    ctx.start()
    try:
        outcome = run_task(claim.spec, ctx)
    finally:
        ctx.stop()
    ctx.flush()
    progress, logs, traces = ctx.take_buffers()
    if outcome.traceback:
        logs = logs + [(time.time(), outcome.traceback.rstrip())]
    for delay in (0.0, 0.5, 1.0, 2.0):
        time.sleep(delay)
        try:
            registry.finish(claim.job_id, claim.attempt, outcome.state, result=outcome.result,
                            error=outcome.error, artifacts=ctx.artifacts,
                            progress=ctx.latest_progress, logs=logs, traces=traces)
            break
        except RegistryError as exc:
            _warn(f"job {claim.job_id}: cannot record the result: {exc}")
    return outcome


def worker_process(conn, registry: RunRegistry, poll_interval: float = 0.2) -> None:
    """Loop of a local pool process: receive ``("share", name, pickled)`` and
    ``("run", claim)`` messages, run jobs, answer ``("done", job_id)``; exit on ``None`` or
    when the parent goes away (the current job is finished first)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the parent, which decides
    shared: dict[str, Any] = {}
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            break
        if message is None:
            break
        op = message[0]
        if op == "share":
            _, name, payload = message
            shared[name] = pickle.loads(payload)
        elif op == "run":
            claim: Claim = message[1]
            missing = [n for n in claim.spec.inputs if n not in shared]
            if missing:
                registry.finish(claim.job_id, claim.attempt, "failed",
                                error=f"shared input(s) {missing} were not sent to this worker")
            else:
                execute_job(registry, claim, {n: shared[n] for n in claim.spec.inputs},
                            poll_interval=poll_interval)
            try:
                conn.send(("done", claim.job_id))
            except (BrokenPipeError, OSError):
                break
    registry.close()


def main(argv=None) -> int:
    """``python -m hbnlab.jobs.worker --registry PATH [--workers N]``: serve the local queue."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m hbnlab.jobs.worker",
                                     description="Run queued hbnlab jobs of a run registry.")
    parser.add_argument("--registry", required=True, help="run registry directory")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--child-fd", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_fd is not None:  # one process of a LocalProcessRunner's pool
        from multiprocessing.connection import Connection

        worker_process(Connection(args.child_fd), RunRegistry(args.registry, recover=False))
        return 0
    if args.workers < 1:
        parser.error(f"--workers must be >= 1, got {args.workers}")
    from hbnlab.jobs.local import LocalProcessRunner

    try:
        runner = LocalProcessRunner(args.registry, max_workers=args.workers)
    except RegistryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print(f"hbnlab worker daemon {os.getpid()}: serving {runner.registry.path} with "
          f"{args.workers} process(es)", flush=True)
    while not stop.wait(0.5):
        pass
    runner.shutdown(wait=True, interrupt=True)
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised through a subprocess in tests
    raise SystemExit(main())
