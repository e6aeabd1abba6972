"""Scale-out runner on Dask distributed (standard ``dask scheduler`` / ``dask worker`` processes).

Design: only the runner's process touches the run registry.  Workers may sit on other machines
without the registry's disk (SQLite's WAL mode needs a local filesystem), so a task on a Dask
worker reports through Dask itself:

* progress, log lines and trace points -> ``Worker.log_event`` on a topic the runner's client
  subscribes to; the runner's thread writes them to the registry (throttled on the worker to
  one message per ``0.2`` s);
* cancellation -> a named :class:`distributed.Event` the runner sets; ``ctx.should_stop()``
  checks it at most every ``0.2`` s;
* artifacts -> returned as bytes with the result; the runner writes each one atomically
  (temporary file, fsync, rename), so a killed worker never leaves a partial artifact;
* the result -> the future's value, recorded with the registry's attempt guard, so it is
  recorded exactly once even when Dask re-runs the task after losing a worker.

A worker that dies mid-task is handled by the scheduler: the task is rescheduled on another
worker (up to ``distributed.scheduler.allowed-failures`` times, then ``KilledWorker`` fails the
job); ``retries`` additionally re-runs tasks that raise outside the job's own code.  Data that
many jobs read (a corpus matrix) is scattered once with ``broadcast=True`` by :meth:`share`
and handed to tasks by key.

The runner's process owns the jobs it dispatched (``worker_pid`` in the registry is its pid,
refreshed by heartbeats): if it dies, they become ``interrupted`` on the next registry open.
"""
from __future__ import annotations

import atexit
import logging
import os
import queue
import sys
import threading
import time
import uuid
import weakref
from dataclasses import dataclass
from typing import Any

from hbnlab.jobs.malloc import unset_dask_malloc_trim
from hbnlab.jobs.registry import RegistryError
from hbnlab.jobs.runner import PollingRunner, RunnerError, interrupt_all
from hbnlab.jobs.spec import JobSpec
from hbnlab.jobs.tasks import TaskContext, run_task, sha256_hex

__all__ = ["DaskRunner", "DaskTaskContext", "run_on_dask_worker"]

#: The interface a LocalCluster started by :class:`DaskRunner` listens on (scheduler, workers, dashboard).
LOCAL_HOST = "127.0.0.1"


class DaskTaskContext(TaskContext):
    """Task context on a Dask worker: reports through worker events, artifacts in memory."""

    flush_interval = 0.2
    cancel_check_interval = 0.2

    def __init__(self, payload: dict, shared: dict, worker):
        super().__init__(job_id=payload["job_id"], attempt=payload["attempt"],
                         spec=JobSpec.from_dict(payload["spec"]), shared=shared)
        self._topic = payload["topic"]
        self._event_name = payload["cancel_event"]
        self._worker = worker
        self.blobs: dict[str, bytes] = {}
        self._buf_lock = threading.Lock()
        self._buf_progress = None
        self._buf_logs: list = []
        self._buf_traces: list = []
        self._last_flush = 0.0
        self._last_check = 0.0
        self._stopped = False
        self._event = None

    def send(self, **message) -> None:
        self._worker.log_event(self._topic, {"job": self.job_id, "attempt": self.attempt, **message})

    def take_buffers(self):
        with self._buf_lock:
            out = (self._buf_progress, self._buf_logs, self._buf_traces)
            self._buf_progress, self._buf_logs, self._buf_traces = None, [], []
        return out

    def _maybe_flush(self) -> None:
        now = time.monotonic()
        if now - self._last_flush < self.flush_interval:
            return
        self._last_flush = now
        progress, logs, traces = self.take_buffers()
        if progress is not None or logs or traces:
            self.send(kind="update", progress=progress, logs=logs, traces=traces)

    def _emit_progress(self, fields):
        with self._buf_lock:
            self._buf_progress = fields
        self._maybe_flush()

    def _emit_log(self, message):
        with self._buf_lock:
            self._buf_logs.append([time.time(), message])
        self._maybe_flush()

    def _emit_trace(self, series, step, value):
        with self._buf_lock:
            self._buf_traces.append([series, step, value])
        self._maybe_flush()

    def _cancel_requested(self):
        if self._stopped:
            return True
        now = time.monotonic()
        if now - self._last_check >= self.cancel_check_interval:
            self._last_check = now
            try:
                if self._event is None:
                    from distributed import Event

                    self._event = Event(self._event_name)
                self._stopped = bool(self._event.is_set())
            except Exception:  # scheduler unreachable: keep computing, check again later
                pass
        return self._stopped

    def _store_artifact(self, name, data):
        digest = sha256_hex(data)
        self.blobs[digest] = data
        return digest


def run_on_dask_worker(payload: dict, *values) -> dict:
    """The function Dask runs for one job: ``values`` are the shared inputs, in the order of
    ``payload["inputs"]``.  Returns the outcome, artifacts' bytes and unsent output."""
    from distributed import get_worker

    worker = get_worker()
    ctx = DaskTaskContext(payload, dict(zip(payload["inputs"], values)), worker)
    ctx.send(kind="start", worker=worker.address, pid=os.getpid(), time=time.time())
    outcome = run_task(ctx.spec, ctx)
    ctx.flush()
    _, logs, traces = ctx.take_buffers()
    if outcome.traceback:
        logs.append([time.time(), outcome.traceback.rstrip()])
    return {
        "state": outcome.state, "result": outcome.result, "error": outcome.error,
        "artifacts": dict(ctx.artifacts), "blobs": ctx.blobs, "progress": ctx.latest_progress,
        "logs": logs, "traces": traces, "worker": worker.address, "pid": os.getpid(),
    }


@dataclass
class _DaskJob:
    attempt: int
    future: Any
    event_name: str
    tries: int = 0
    cancel_sent: float | None = None


_RUNNERS: weakref.WeakSet[DaskRunner] = weakref.WeakSet()


def _shutdown_all():  # pragma: no cover - runs at interpreter exit
    interrupt_all(_RUNNERS)


class DaskRunner(PollingRunner):
    """Run jobs on a Dask distributed cluster.

    Parameters
    ----------
    registry : RunRegistry or path
    address : str, optional
        Scheduler address, e.g. ``tcp://host:8786``; default ``$HBNLAB_DASK_SCHEDULER``; when
        neither is set a :class:`distributed.LocalCluster` of ``n_workers`` processes with
        ``threads_per_worker`` threads is started (and closed by :meth:`shutdown`), listening on
        the loopback interface only (:data:`LOCAL_HOST`), its dashboard included.
    client : distributed.Client, optional
        Use an existing client instead (not closed by :meth:`shutdown`).
    n_workers, threads_per_worker : int, default 2 and 1
        Size of the LocalCluster.
    retries : int, default 2
        Dask ``retries`` of each task (re-runs on errors raised outside the job's own code;
        worker deaths are rescheduled by the scheduler).
    poll_interval : float, default 0.1
        Seconds between passes of the runner's thread.
    heartbeat_interval : float, default 1.0
    cancel_grace : float, default 5.0
        Seconds a started task may ignore a cancel before the job is recorded ``cancelled``
        and the task's eventual result is discarded.
    """

    backend = "dask"
    thread_label = "dask runner"
    final_step = True
    #: seconds :meth:`shutdown` gives the runner thread to stop even when the jobs used up its timeout
    thread_join_min = 5.0
    #: seconds the runner thread waits for a finished task's value to arrive from its worker
    result_timeout = 120.0

    def __init__(self, registry, address: str | None = None, *, client=None, n_workers: int = 2,
                 threads_per_worker: int = 1, retries: int = 2, poll_interval: float = 0.1,
                 heartbeat_interval: float = 1.0, cancel_grace: float = 5.0):
        super().__init__(registry, poll_interval=poll_interval)
        import distributed

        self._distributed = distributed
        self._cluster = None
        if client is not None:
            if address is not None:
                raise RunnerError(f"pass either client or address, not both (address={address!r})")
            self.client, self._own_client = client, False
        else:
            address = address or os.environ.get("HBNLAB_DASK_SCHEDULER") or None
            try:
                if address:
                    self.client = distributed.Client(address, set_as_default=False)
                else:
                    # Dask's nannies start workers with MALLOC_TRIM_THRESHOLD_=65536, which turns
                    # off glibc's dynamic mmap threshold and doubles the CPU time of the EM kernels
                    # (measured: 6.2 s vs 2.9 s for one HBN-AVG fit); keep it out of our workers.
                    unset_dask_malloc_trim()
                    # Loopback only: the scheduler, the workers and the dashboard (a free port;
                    # None would still try :8787 and warn when another cluster holds it).  A bare
                    # ":0" would bind the dashboard to every interface.
                    self._cluster = distributed.LocalCluster(
                        n_workers=n_workers, threads_per_worker=threads_per_worker, processes=True,
                        host=LOCAL_HOST, dashboard_address=f"{LOCAL_HOST}:0", silence_logs=logging.ERROR)
                    self.client = distributed.Client(self._cluster, set_as_default=False)
            except OSError as exc:
                raise RunnerError(f"cannot connect to the Dask scheduler {address!r}: {exc}") from exc
            self._own_client = True
        self.address = self.client.scheduler.address
        self.retries = int(retries)
        self.heartbeat_interval = float(heartbeat_interval)
        self.cancel_grace = float(cancel_grace)
        self.token = uuid.uuid4().hex[:12]
        self.topic = f"hbnlab-jobs-{self.token}"
        self._jobs: dict[int, _DaskJob] = {}  # self._shared: name -> scattered future
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._dispatching = True
        self.client.subscribe_topic(self.topic, self._on_event)
        self._thread = threading.Thread(target=self._run_thread, name="hbnlab-dask-runner", daemon=True)
        self._thread.start()
        _RUNNERS.add(self)
        atexit.unregister(_shutdown_all)  # (re-)register after distributed's own exit hooks,
        atexit.register(_shutdown_all)    # so it runs before they close the client

    # ------------------------------------------------------------------ Runner API
    def share(self, name: str, value: Any) -> None:
        if not isinstance(name, str) or not name:
            raise RunnerError(f"shared input name must be a non-empty str, got {name!r}")
        [future] = self.client.scatter([value], broadcast=True, hash=False)
        with self._lock:
            self._shared[name] = future

    def worker_pids(self) -> dict[str, int]:
        """``{worker address: pid}`` of the cluster's worker processes."""
        return self.client.run(os.getpid)

    def shutdown(self, wait: bool = True, *, interrupt: bool = False, timeout: float = 30.0) -> None:
        """Stop.  ``wait`` (and not ``interrupt``): first let dispatched jobs finish, for at most
        ``timeout`` seconds.  Dispatched jobs still out after that, or at once with ``interrupt``
        or without ``wait``, are cancelled on the cluster and marked ``interrupted``.  Queued jobs
        stay queued.  Closes the client and LocalCluster this runner created (each close is
        given ``timeout`` seconds too)."""
        if self._closed:
            return
        self._closed = True
        self._dispatching = False
        timeout = max(float(timeout), 0.0)
        deadline = time.monotonic() + timeout
        if wait and not interrupt:
            while self._thread.is_alive() and time.monotonic() < deadline:
                with self._lock:
                    if not self._jobs:
                        break
                time.sleep(min(self.poll_interval, max(deadline - time.monotonic(), 0.0)))
        # the thread's last step records results that arrived meanwhile; a step stuck in the
        # registry or the client is left behind (a daemon thread) after its own deadline
        self._stop_thread(max(deadline - time.monotonic(), min(timeout, self.thread_join_min)),
                          "the Dask runner's thread")
        with self._lock:
            jobs, self._jobs = dict(self._jobs), {}
        for jid, job in jobs.items():
            try:
                job.future.cancel()
            except Exception:
                pass
            try:
                self.registry.mark_interrupted(jid, job.attempt,
                                               f"the Dask runner in process {os.getpid()} shut down")
            except RegistryError as exc:
                print(f"hbnlab.jobs: {exc}", file=sys.stderr)
        try:
            self.client.unsubscribe_topic(self.topic)
        except Exception:
            pass
        if self._own_client:
            close_timeout = max(timeout, 1.0)
            try:
                self.client.close(timeout=close_timeout)
            except Exception as exc:  # a scheduler that does not answer in time
                print(f"hbnlab.jobs: closing the Dask client: {type(exc).__name__}: {exc}", file=sys.stderr)
            finally:
                if self._cluster is not None:
                    try:
                        self._cluster.close(timeout=close_timeout)
                    except Exception as exc:
                        print(f"hbnlab.jobs: closing the LocalCluster: {type(exc).__name__}: {exc}",
                              file=sys.stderr)
        _RUNNERS.discard(self)

    # ------------------------------------------------------------------ event plumbing
    def _on_event(self, event) -> None:  # runs in the client's event-loop thread
        _, message = event
        self._inbox.put(("event", message))
        self._wake_event.set()

    def _on_done(self, job_id: int, attempt: int, future) -> None:  # event-loop thread
        self._inbox.put(("done", job_id, attempt, future))
        self._wake_event.set()

    @property
    def periodic_interval(self) -> float:
        return self.heartbeat_interval

    def _periodic(self) -> None:
        """Heartbeat every dispatched job; drop those interrupted or deleted meanwhile."""
        with self._lock:
            attempts = {jid: j.attempt for jid, j in self._jobs.items()}
        for jid, beat in self.registry.heartbeat_many(attempts).items():
            if not beat.alive:
                with self._lock:
                    job = self._jobs.pop(jid, None)
                if job is not None:
                    job.future.cancel()

    def _collect(self) -> None:
        """The workers' events (start, progress, logs, traces) as one registry write per job, then
        the finished futures."""
        updates: dict[tuple[int, int], dict] = {}
        done = []
        while True:
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                break
            if item[0] == "done":
                done.append(item[1:])
                continue
            message = item[1]
            key = (message["job"], message["attempt"])
            entry = updates.setdefault(key, {"progress": None, "logs": [], "traces": [],
                                             "worker": None, "started": None})
            if message.get("kind") == "start":
                with self._lock:
                    job = self._jobs.get(key[0])
                    if job is not None and job.attempt == key[1]:
                        job.tries += 1
                        tries = job.tries
                    else:
                        tries = 1
                where = f"dask worker {message['worker']} (pid {message['pid']})"
                entry["worker"] = where
                note = f"running on {where}"
                if tries == 1:
                    entry["started"] = time.time()  # this host's clock, like every registry time
                else:
                    note += f" (try {tries}: the previous worker was lost)"
                entry["logs"].append((message["time"], note))
            else:
                if message.get("progress") is not None:
                    entry["progress"] = message["progress"]
                entry["logs"].extend((t, m) for t, m in message.get("logs") or [])
                entry["traces"].extend((s, k, v) for s, k, v in message.get("traces") or [])
        for (jid, attempt), entry in updates.items():
            self.registry.heartbeat(jid, attempt, progress=entry["progress"], logs=entry["logs"],
                                    traces=entry["traces"], worker=entry["worker"],
                                    started=entry["started"])
        for jid, attempt, future in done:
            self._complete(jid, attempt, future)

    def _forget(self, jid: int, attempt: int, future=None) -> _DaskJob | None:
        with self._lock:
            job = self._jobs.get(jid)
            if job is None or job.attempt != attempt or (future is not None and job.future is not future):
                return None
            del self._jobs[jid]
        if job.cancel_sent is not None:
            try:
                self._distributed.Event(job.event_name, client=self.client).clear()
            except Exception:
                pass
        return job

    def _complete(self, jid: int, attempt: int, future) -> None:
        if self._forget(jid, attempt, future) is None:
            return  # cancelled or dropped by us already
        if future.status == "cancelled":  # not by us: the cluster restarted or forgot it
            self.registry.mark_interrupted(jid, attempt, "the Dask cluster dropped the task "
                                           "(scheduler or cluster restart)")
            return
        try:
            out = future.result(timeout=self.result_timeout)
        except TimeoutError:
            self.registry.mark_interrupted(jid, attempt, f"the task's result did not arrive from the Dask "
                                           f"cluster within {self.result_timeout:g} s")
            return
        except Exception as exc:  # KilledWorker, errors outside the task body
            if type(exc).__name__ == "CancelledError":
                self.registry.mark_interrupted(jid, attempt, f"the Dask cluster dropped the task "
                                               f"({type(exc).__name__}: {exc})")
            else:
                self.registry.finish(jid, attempt, "failed", error=f"{type(exc).__name__}: {exc}")
            return
        try:
            for digest, blob in out["blobs"].items():
                if sha256_hex(blob) != digest:
                    raise RegistryError(f"artifact {digest} arrived corrupted from {out['worker']}")
                self.registry.put_artifact(blob)
        except RegistryError as exc:
            self.registry.finish(jid, attempt, "failed", error=str(exc))
            return
        self.registry.finish(
            jid, attempt, out["state"], result=out["result"], error=out["error"],
            artifacts=out["artifacts"], progress=out["progress"],
            logs=[(t, m) for t, m in out["logs"]], traces=[(s, k, v) for s, k, v in out["traces"]])

    def _enforce_cancels(self) -> None:
        with self._lock:
            ids = list(self._jobs)
        if not ids:
            return
        now = time.monotonic()
        for jid in self.registry.cancel_requests(ids):
            with self._lock:
                job = self._jobs.get(jid)
            if job is None:
                continue
            if job.tries == 0 and job.future.status == "pending":
                job.future.cancel()
                if self._forget(jid, job.attempt) is not None:
                    self.registry.finish(jid, job.attempt, "cancelled",
                                         error="cancelled before it started")
            elif job.cancel_sent is None:
                self._distributed.Event(job.event_name, client=self.client).set()
                job.cancel_sent = now
            elif now - job.cancel_sent > self.cancel_grace:
                job.future.cancel()
                if self._forget(jid, job.attempt) is not None:
                    self.registry.finish(
                        jid, job.attempt, "cancelled",
                        error=f"the task did not stop within {self.cancel_grace:g} s of the "
                              "cancel request; its result will be ignored")

    def _dispatch(self) -> None:
        if not self._dispatching or not self.registry.queued_count(self.backend):
            return
        with self._lock:
            shared = dict(self._shared)
        claims = self.registry.claim(
            self.backend, worker_pid=os.getpid(), worker=f"dask scheduler {self.address}",
            limit=500, accept=lambda spec: all(n in shared for n in spec.inputs))
        for claim in claims:
            event_name = f"hbnlab-cancel-{self.token}-{claim.job_id}-{claim.attempt}"
            payload = {"job_id": claim.job_id, "attempt": claim.attempt,
                       "spec": claim.spec.to_dict(), "topic": self.topic,
                       "cancel_event": event_name, "inputs": list(claim.spec.inputs)}
            future = self.client.submit(
                run_on_dask_worker, payload, *[shared[n] for n in claim.spec.inputs],
                key=f"hbnlab-job-{self.token}-{claim.job_id}-{claim.attempt}", pure=False,
                retries=self.retries)
            with self._lock:
                self._jobs[claim.job_id] = _DaskJob(claim.attempt, future, event_name)
            future.add_done_callback(
                lambda fut, jid=claim.job_id, attempt=claim.attempt: self._on_done(jid, attempt, fut))
