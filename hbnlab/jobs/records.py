"""What the run registry stores about a job: its states, records and errors.

Job life cycle::

    queued --claim--> running --finish--> done | failed | cancelled
      |                  |--(owner process gone / heartbeat stale)--> interrupted
      +--cancel--> cancelled
    failed | cancelled | interrupted --retry--> queued     interrupted --resume--> queued
"""
from __future__ import annotations

import errno
import os
import time
from dataclasses import dataclass, field

from hbnlab._validation import HbnlabError
from hbnlab.jobs.spec import JobSpec

__all__ = [
    "STATES", "ACTIVE_STATES", "TERMINAL_STATES", "FINISH_STATES", "RegistryError", "JobNotFound",
    "JobRecord", "LogEntry", "Claim", "Beat", "SYSTEM_ERRNOS", "system_failure",
]

STATES = ("queued", "running", "done", "failed", "cancelled", "interrupted")
ACTIVE_STATES = ("queued", "running")
TERMINAL_STATES = ("done", "failed", "cancelled", "interrupted")
#: The states a worker may record as the outcome of an attempt.
FINISH_STATES = ("done", "failed", "cancelled")


class RegistryError(HbnlabError, RuntimeError):
    """The run registry cannot be read or written (path, permissions, full disk, bad state)."""


#: OS errors that no retry fixes until someone acts on the machine: a full disk, an exhausted
#: quota, a read-only mount.
SYSTEM_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS)
_SYSTEM_PHRASES = tuple(os.strerror(e) for e in SYSTEM_ERRNOS) + (
    "database or disk is full",      # SQLite's SQLITE_FULL
    "attempt to write a readonly database",
)


def system_failure(error) -> str | None:
    """The system reason (``"No space left on device"`` ...) an exception or a recorded job error
    names, or None.  Job errors are stored as text, so the test is on the message; an
    ``OSError`` is also recognised by its errno."""
    if isinstance(error, OSError) and error.errno in SYSTEM_ERRNOS:
        return os.strerror(error.errno)
    text = str(error or "")
    return next((p for p in _SYSTEM_PHRASES if p.lower() in text.lower()), None)


class JobNotFound(RegistryError):
    """No job with this id."""


class StaleJobError(RegistryError):
    """A destructive action (delete, cancel) pressed against a job's state that has changed since:
    another tab or process retried, resumed or finished it.  Nothing was done; the message names the
    state shown and the state now."""


@dataclass(frozen=True)
class JobRecord:
    """A snapshot of one job's row.  Times are Unix seconds (``time.time()``)."""

    id: int
    spec: JobSpec
    state: str
    backend: str
    attempt: int
    created: float
    started: float | None
    finished: float | None
    heartbeat: float | None
    worker_pid: int | None
    worker_host: str | None
    worker: str | None
    cancel_requested: float | None
    progress: dict | None
    progress_time: float | None
    result: dict | None
    error: str | None
    artifacts: dict = field(default_factory=dict)

    @property
    def group(self) -> str:
        return self.spec.group

    @property
    def kind(self) -> str:
        return self.spec.kind

    @property
    def label(self) -> str:
        return self.spec.label

    def elapsed(self, now: float | None = None) -> float | None:
        """Seconds since the current attempt started (until it finished)."""
        if self.started is None:
            return None
        end = self.finished if self.finished is not None else (time.time() if now is None else now)
        return max(0.0, end - self.started)

    def eta(self, now: float | None = None) -> float | None:
        """Estimated seconds remaining from ``progress['fraction']`` (linear), or None."""
        if self.state != "running" or not self.progress:
            return None
        frac = self.progress.get("fraction")
        elapsed = self.elapsed(now)
        if not isinstance(frac, (int, float)) or not 0 < frac <= 1 or elapsed is None:
            return None
        return elapsed * (1 - frac) / frac

    def to_dict(self) -> dict:
        """JSON data for tables and reports."""
        return {
            "id": self.id, "group": self.group, "kind": self.kind, "label": self.label,
            "state": self.state, "backend": self.backend, "attempt": self.attempt,
            "created": self.created, "started": self.started, "finished": self.finished,
            "heartbeat": self.heartbeat, "worker": self.worker, "worker_pid": self.worker_pid,
            "cancel_requested": self.cancel_requested, "progress": self.progress,
            "result": self.result, "error": self.error, "artifacts": dict(self.artifacts),
            "spec": self.spec.to_dict(),
        }


@dataclass(frozen=True)
class LogEntry:
    time: float
    attempt: int
    message: str


@dataclass(frozen=True)
class Claim:
    """A job handed to a worker: run ``spec`` as attempt ``attempt`` of job ``job_id``."""

    job_id: int
    attempt: int
    spec: JobSpec


@dataclass(frozen=True)
class Beat:
    """Answer to a heartbeat: is the job still this attempt's, and was a cancel requested."""

    alive: bool
    cancel: bool
