"""Atomic file writes: write to a temporary file in the same directory, fsync, then rename.

A reader never sees a half-written file; a crash leaves either the old file or the new one.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


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
    path = Path(path)
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
