"""One owner per job group: an advisory lock file under the run registry.

Two processes that run the same sweep id at once would each see a cell missing and submit it
(check-then-submit is not one transaction), and both would write the same output folder.
:func:`group_lock` makes one of them the owner::

    <registry>/group-locks/<group>.lock     fcntl.flock(LOCK_EX), held while the owner runs

The kernel releases a ``flock`` when its process exits, however it exits, so a crashed owner
never leaves a stale lock behind; the file itself stays and only records the last owner (pid,
host, start time) for the message of a refused process.  The lock is re-entrant within one
thread (the CLI holds it around a sweep and its output; :func:`run_sweep` takes it again);
another thread or process is refused with :class:`GroupLockedError` at once, never kept waiting.

``flock`` is per host: processes on two machines that share the registry over NFS are not
serialised by it (the registry's SQLite database has the same limit).
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import re
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from hbnlab.jobs.processes import HOSTNAME
from hbnlab.jobs.records import RegistryError

__all__ = ["LOCK_DIR", "GroupLockedError", "group_lock", "group_lock_path"]

LOCK_DIR = "group-locks"

_HELD: dict[str, tuple[int, int]] = {}  # lock path -> (owning thread id, depth)
_HELD_LOCK = threading.Lock()


class GroupLockedError(RegistryError):
    """Another process (or thread) owns the job group."""


def group_lock_path(registry_path, group: str) -> Path:
    """``<registry>/group-locks/<group>.lock``; characters outside ``[A-Za-z0-9._-]`` become ``_``
    and a short hash of the group keeps two such names apart."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", group)[:100]
    if safe != group:
        safe += "-" + hashlib.sha256(group.encode()).hexdigest()[:8]
    return Path(registry_path) / LOCK_DIR / f"{safe}.lock"


def _owner(fd: int) -> str:
    try:
        return os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "owner unknown"
    except OSError:
        return "owner unknown"


@contextmanager
def group_lock(registry_path, group: str, *, what: str = "job group", hint: str = ""):
    """Hold the lock of ``group`` for the ``with`` block.

    Raises
    ------
    GroupLockedError
        Another process or thread holds it; the message names the owner and ``hint``.
    RegistryError
        The lock file cannot be created (the message names it).
    """
    path = group_lock_path(registry_path, group)
    key = str(path)
    me = threading.get_ident()
    with _HELD_LOCK:
        owner = _HELD.get(key)
        if owner is not None and owner[0] == me:
            _HELD[key] = (me, owner[1] + 1)
            reentered = True
        else:
            reentered = False
    if reentered:
        try:
            yield path
        finally:
            with _HELD_LOCK:
                _HELD[key] = (me, _HELD[key][1] - 1)
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise RegistryError(f"cannot create the lock file {path} of {what} {group!r}: "
                            f"{exc.strerror or exc}") from None
    try:
        with _HELD_LOCK:
            busy = "another thread of this process" if key in _HELD else None
            if busy is None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    busy = _owner(fd)
                else:
                    _HELD[key] = (me, 1)
        if busy is not None:
            raise GroupLockedError(f"{what} {group!r} is already running ({busy}; lock {path}); "
                                   f"one process owns it at a time{'; ' + hint if hint else ''}")
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} on {HOSTNAME} since "
                          f"{time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode(), 0)
        except OSError:
            pass  # the owner's description is informative only
        try:
            yield path
        finally:
            with _HELD_LOCK:
                _HELD.pop(key, None)
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
