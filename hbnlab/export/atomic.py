"""Atomic file writes: write to a temporary file in the same directory, fsync, then rename.

A reader never sees a half-written file; a crash leaves either the old file or the new one, and
a failed write (a full disk, a quota, a read-only mount) leaves no temporary file and raises
:class:`WriteError` naming the file.  :func:`atomic_directory` does the same for a folder of files (a sweep's output);
the temporary folders a killed write leaves beside it are removed by the next write of that folder.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hbnlab._validation import HbnlabError


class WriteError(HbnlabError, OSError):
    """A file could not be written; ``errno`` is the OS's, the message names the file."""


def _umask() -> int:
    """The process umask, read without changing it (os.umask would race with other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def write_bytes_atomic(path: Path | str, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; an OS error is a :class:`WriteError` naming ``path``."""
    path = Path(path)
    try:
        return _write_bytes_atomic(path, data)
    except WriteError:
        raise
    except OSError as exc:
        raise WriteError(exc.errno, f"cannot write {path}: {exc.strerror or exc}") from exc


def _write_bytes_atomic(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates the file 0600; give the result the mode a plain open() would
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def write_text_atomic(path: Path | str, text: str) -> Path:
    return write_bytes_atomic(path, text.encode("utf-8"))


#: Marks the sibling folders :func:`atomic_directory` makes (``.<name>.hbnlab-<random>.tmp`` / ``.old``).
_SIBLING_MARK = "hbnlab-"


def _sibling_pattern(name: str) -> re.Pattern:
    """The names of the temporary siblings of folder ``name``: :data:`_SIBLING_MARK` plus
    :func:`tempfile.mkdtemp`'s 8 random characters, and the same without the mark (the names of
    earlier hbnlab versions)."""
    return re.compile(rf"\.{re.escape(name)}\.(?:{_SIBLING_MARK})?[a-z0-9_]{{8}}\.(?:tmp|old)")


def remove_stale_siblings(path: Path | str, before: float) -> list[Path]:
    """Delete the temporary siblings of folder ``path`` (:func:`atomic_directory`'s names; real
    folders, not links) last modified before ``before`` (a :func:`time.time` value): what a
    write killed between its start and its last rename left behind.  Returns them."""
    path = Path(path)
    pattern = _sibling_pattern(path.name)
    removed = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    for entry in entries:
        if not pattern.fullmatch(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_mtime < before:
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
    return removed


@contextmanager
def atomic_directory(path: Path | str) -> Iterator[Path]:
    """Build a folder in a temporary sibling and put it in place of ``path`` when the block ends.

    A reader of ``path`` sees the old folder or the complete new one, never a mix: the old one
    is renamed aside, the new one renamed in, then the old one deleted (between the two renames,
    a few microseconds, ``path`` is absent).  If the block raises, the temporary folder is
    deleted and ``path`` is untouched.  Siblings that an earlier write of ``path`` left when it
    was killed (older than this call) are deleted first (:func:`remove_stale_siblings`); one
    writer per folder at a time is assumed (a sweep's output is written under its sweep lock).
    """
    path = Path(path)
    started = time.time()
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_siblings(path, started)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.{_SIBLING_MARK}", suffix=".tmp", dir=path.parent))
    try:
        os.chmod(tmp, 0o777 & ~_umask())
        yield tmp
        old = None
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.{_SIBLING_MARK}", suffix=".old", dir=path.parent))
            os.replace(path, old / path.name)
        os.replace(tmp, path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
