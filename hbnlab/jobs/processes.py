"""Which process owns a running job: liveness and start time of a process on this host.

A running job records the pid, host and start time of the process that keeps it alive; the run
registry marks the job ``interrupted`` once that process is gone (:meth:`RunRegistry.recover`).
Start times (Linux ``/proc``) tell a reused pid apart from the process that claimed the job.
"""
from __future__ import annotations

import os
import socket

__all__ = ["HOSTNAME", "pid_alive", "process_start_ticks"]

#: This machine's name, as recorded with the jobs its processes claim.
HOSTNAME = socket.gethostname()


def _proc_stat(pid: int) -> list[bytes] | None:
    """Fields of ``/proc/<pid>/stat`` after the command name (field 3 onwards), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        return stat[stat.rindex(b")") + 2:].split()
    except (OSError, ValueError):
        return None


def pid_alive(pid: int) -> bool:
    """True if a process with this pid exists on this host and is not a zombie."""
    if pid is None or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _proc_stat(pid)
    return fields is None or fields[0] not in (b"Z", b"X")


def process_start_ticks(pid: int | None) -> int | None:
    """Start time of a process in clock ticks since boot (``/proc/<pid>/stat`` field 22), or
    None where /proc is unavailable.  With the pid it identifies a process across pid reuse."""
    if pid is None or pid <= 0:
        return None
    fields = _proc_stat(pid)
    try:
        return int(fields[19]) if fields else None  # field 22; the list starts at field 3
    except (IndexError, ValueError):
        return None
