"""Task registry and the context a running task sees.

A task is a function ``fn(params: dict, ctx: TaskContext) -> dict`` registered by name::

    from hbnlab.jobs import register_task

    @register_task("train_hbn")
    def train_hbn(params, ctx):
        for restart in range(params["restarts"]):
            if ctx.should_stop():
                break
            ctx.progress(restart=restart + 1, of=params["restarts"])
        return {"breakeven": 0.9}

Worker processes find the function by importing ``spec.module`` and looking ``spec.kind`` up
in :data:`TASKS`, so any module can add tasks.

:class:`TaskContext` is the task's only window on the outside: progress (throttled),
cancellation, logs, traces and content-addressed artifacts.  Each backend (registry-writing
local worker, Dask worker, in-process) supplies the plumbing behind the same methods.
"""
from __future__ import annotations

import hashlib
import importlib
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hbnlab._validation import Cancelled, HbnlabError
from hbnlab.jobs.spec import JobSpec, check_json

__all__ = [
    "TASKS",
    "JobCancelled",
    "TaskContext",
    "TaskError",
    "TaskInfo",
    "TaskOutcome",
    "register_task",
    "run_inline",
    "run_task",
    "resolve_spec",
    "resolve_task",
]


class TaskError(HbnlabError, LookupError):
    """A task cannot be found or imported; the message names the kind and module."""


class JobCancelled(Cancelled):
    """Raise from a task to stop because ``ctx.should_stop()`` said so (state: cancelled).

    A :class:`hbnlab._validation.Cancelled`: :func:`run_task` records any ``Cancelled`` that
    ends a task (this one, or one raised by EM or a fit deeper down) as ``cancelled``.
    """


@dataclass(frozen=True)
class TaskInfo:
    name: str
    fn: Callable[[dict, TaskContext], dict]
    module: str


#: name -> TaskInfo, filled by :func:`register_task` as modules are imported.
TASKS: dict[str, TaskInfo] = {}
_TASKS_LOCK = threading.Lock()


def register_task(name: str):
    """Decorator: register ``fn(params, ctx) -> dict`` under ``name``.

    Registering the same name again from the same module and qualified name (a module reload)
    replaces the entry; a different function under a taken name raises :class:`TaskError`.
    """
    if not isinstance(name, str) or not name.strip():
        raise TaskError(f"task name must be a non-empty str, got {name!r}")

    def decorate(fn):
        if not callable(fn):
            raise TaskError(f"register_task({name!r}) needs a function, got {fn!r}")
        info = TaskInfo(name, fn, fn.__module__)
        with _TASKS_LOCK:
            old = TASKS.get(name)
            if old is not None and (old.module, old.fn.__qualname__) != (info.module, fn.__qualname__):
                raise TaskError(
                    f"task name {name!r} is already registered by {old.module}.{old.fn.__qualname__}; "
                    f"cannot register {info.module}.{fn.__qualname__} under the same name"
                )
            TASKS[name] = info
        return fn

    return decorate


def resolve_task(kind: str, module: str | None) -> TaskInfo:
    """Import ``module`` (if given) and return the task registered as ``kind``."""
    if module is not None:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise TaskError(f"cannot import task module {module!r} for task {kind!r}: {exc}") from exc
    info = TASKS.get(kind)
    if info is None:
        where = f"module {module!r}" if module else "the modules imported so far"
        known = ", ".join(sorted(TASKS)) or "none"
        raise TaskError(f"unknown task kind {kind!r}: {where} registers no such task (known: {known})")
    return info


def resolve_spec(spec: JobSpec) -> JobSpec:
    """Check that ``spec.kind`` can be found by a worker; fill in ``spec.module``.

    Tasks registered in ``__main__`` are refused: a worker process cannot import the
    submitting script.
    """
    import dataclasses

    info = resolve_task(spec.kind, spec.module)
    module = spec.module or info.module
    if module == "__main__":
        raise TaskError(
            f"task {spec.kind!r} is registered in __main__, which worker processes cannot import; "
            "move it into an importable module and pass module='package.module'"
        )
    if module != spec.module:
        spec = dataclasses.replace(spec, module=module)
    return spec


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class TaskContext:
    """What a running task sees: progress, cancellation, logs, traces, artifacts, shared data.

    Backends subclass it and implement the ``_emit_*`` / ``_store_artifact`` /
    ``_cancel_requested`` hooks; tasks only call the public methods.

    Attributes
    ----------
    job_id : int
    attempt : int
        1 for the first run, incremented by each retry or resume.
    spec : JobSpec
    random_state : int or None
        ``spec.random_state``.
    shared : Mapping[str, Any]
        The shared inputs named in ``spec.inputs``.
    artifacts : dict[str, str]
        name -> sha256 of the artifacts saved so far.
    """

    #: minimum seconds between two progress emissions (at most ~5 writes per second)
    progress_interval = 0.2

    def __init__(self, *, job_id: int, attempt: int, spec: JobSpec,
                 shared: Mapping[str, Any] | None = None):
        self.job_id = job_id
        self.attempt = attempt
        self.spec = spec
        self.random_state = spec.random_state
        self.shared: Mapping[str, Any] = dict(shared or {})
        self.artifacts: dict[str, str] = {}
        self._lock = threading.Lock()
        self._last_progress_emit = 0.0
        self._pending_progress: dict | None = None
        self.latest_progress: dict | None = None

    # ------------------------------------------------------------------ task API
    def progress(self, **fields) -> None:
        """Report progress: free-form JSON fields, e.g. ``restart=2, of=64, iteration=7,
        loglik=-1234.5, fraction=0.03, message="EM"``.  Each call replaces the previous
        fields.  Emissions are throttled to one per ``progress_interval`` seconds; the latest
        value is always delivered by the end of the job.
        """
        fields = check_json(fields, "progress fields")
        now = time.monotonic()
        with self._lock:
            self.latest_progress = fields
            if now - self._last_progress_emit >= self.progress_interval:
                self._last_progress_emit = now
                self._pending_progress = None
                emit = True
            else:
                self._pending_progress = fields
                emit = False
        if emit:
            self._emit_progress(fields)

    def should_stop(self) -> bool:
        """True once a cancel was requested (or the job was taken from this worker).  Cheap:
        call it between EM iterations; it takes effect within a second of the request."""
        return self._cancel_requested()

    def check_stop(self) -> None:
        """Raise :class:`JobCancelled` if :meth:`should_stop`."""
        if self.should_stop():
            raise JobCancelled(f"job {self.job_id} was cancelled")

    def log(self, message: str) -> None:
        """Append a line to the job's log."""
        self._emit_log(str(message))

    def trace(self, series: str, step: int, value: float) -> None:
        """Append a point to a named series (e.g. the log-likelihood of restart 3 per
        iteration) for plotting."""
        self._emit_trace(str(series), int(step), float(value))

    def save_artifact(self, name: str, data: bytes) -> str:
        """Store ``data`` as a content-addressed file and return its sha256 (hex).

        The file appears atomically (temporary file, fsync, rename); the job's record maps
        ``name`` to the hash once the job finishes.
        """
        if not isinstance(name, str) or not name:
            raise ValueError(f"artifact name must be a non-empty str, got {name!r}")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"artifact {name!r} data must be bytes, got {type(data).__name__}")
        data = bytes(data)
        digest = self._store_artifact(name, data)
        self.artifacts[name] = digest
        return digest

    # ------------------------------------------------------------------ backend hooks
    def flush(self) -> None:
        """Deliver a throttled, not yet emitted progress value."""
        with self._lock:
            pending, self._pending_progress = self._pending_progress, None
        if pending is not None:
            self._emit_progress(pending)

    def _emit_progress(self, fields: dict) -> None:  # pragma: no cover - overridden
        pass

    def _emit_log(self, message: str) -> None:  # pragma: no cover - overridden
        pass

    def _emit_trace(self, series: str, step: int, value: float) -> None:  # pragma: no cover
        pass

    def _cancel_requested(self) -> bool:  # pragma: no cover - overridden
        return False

    def _store_artifact(self, name: str, data: bytes) -> str:  # pragma: no cover - overridden
        return sha256_hex(data)


class InlineTaskContext(TaskContext):
    """A context that keeps everything in memory: run a task in this process (debugging,
    unit tests of tasks).  ``stop`` is a :class:`threading.Event` that requests cancellation."""

    def __init__(self, spec: JobSpec, shared: Mapping[str, Any] | None = None, *, job_id: int = 0):
        super().__init__(job_id=job_id, attempt=1, spec=spec, shared=shared)
        self.stop = threading.Event()
        self.progress_history: list[dict] = []
        self.messages: list[str] = []
        self.traces: dict[str, list[tuple[int, float]]] = {}
        self.blobs: dict[str, bytes] = {}

    def _emit_progress(self, fields):
        self.progress_history.append(fields)

    def _emit_log(self, message):
        self.messages.append(message)

    def _emit_trace(self, series, step, value):
        self.traces.setdefault(series, []).append((step, value))

    def _cancel_requested(self):
        return self.stop.is_set()

    def _store_artifact(self, name, data):
        digest = sha256_hex(data)
        self.blobs[digest] = data
        return digest


@dataclass(frozen=True)
class TaskOutcome:
    """How a task ended: ``state`` is done, failed or cancelled."""

    state: str
    result: dict | None
    error: str | None
    traceback: str | None = None


def run_task(spec: JobSpec, ctx: TaskContext) -> TaskOutcome:
    """Look the task up, run it with ``ctx`` and classify the ending.

    * normal return -> ``done`` (``cancelled`` if a stop was requested meanwhile: the task
      returned early on request; its partial result is kept);
    * :class:`JobCancelled` or any other :class:`hbnlab._validation.Cancelled` -> ``cancelled``;
    * any other exception -> ``failed`` with ``"Type: message"`` and the traceback;
    * a result that is not a JSON-able dict -> ``failed``, naming the task.
    """
    try:
        info = resolve_task(spec.kind, spec.module)
        out = info.fn(dict(spec.params), ctx)
        if out is None:
            out = {}
        if not isinstance(out, Mapping):
            raise TypeError(f"task {spec.kind!r} must return a dict, got {type(out).__name__}")
        result = check_json(dict(out), f"result of task {spec.kind!r}")
    except Cancelled as exc:
        return TaskOutcome("cancelled", None, str(exc) or "cancelled on request")
    except Exception as exc:
        return TaskOutcome("failed", None, f"{type(exc).__name__}: {exc}", traceback.format_exc())
    if ctx.should_stop():
        return TaskOutcome("cancelled", result, "cancelled on request (the task stopped early)")
    return TaskOutcome("done", result, None)


def run_inline(spec: JobSpec, shared: Mapping[str, Any] | None = None) -> tuple[TaskOutcome, InlineTaskContext]:
    """Run ``spec`` in the calling thread and return ``(outcome, ctx)``.

    For tests and debugging only; runners always execute jobs in other processes.
    """
    ctx = InlineTaskContext(spec, shared)
    outcome = run_task(spec, ctx)
    ctx.flush()
    return outcome, ctx
