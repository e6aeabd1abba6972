"""Content-addressed artifact files of a run registry: ``<store>/artifacts/<sha256>``.

A task's artifacts (models, scores, reports) are files named by the SHA-256 of their bytes, so
identical artifacts of many jobs are stored once, and a file is written atomically (temporary
file, fsync, rename): a killed writer never leaves a partial artifact under a final name.
Which artifacts a job produced is recorded by :class:`hbnlab.jobs.registry.RunRegistry`, which
also decides when unreferenced files may be deleted.
"""
from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Container
from pathlib import Path

from hbnlab.jobs.records import RegistryError
from hbnlab.jobs.tasks import sha256_hex

__all__ = ["ArtifactStore", "is_sha256_hex"]

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def is_sha256_hex(digest) -> bool:
    """True if ``digest`` is a SHA-256 hex digest (64 lowercase hex digits)."""
    return isinstance(digest, str) and bool(_HEX64.match(digest))


class ArtifactStore:
    """The artifact files in one directory (which must exist).

    Errors are :class:`~hbnlab.jobs.records.RegistryError` naming the directory or the file.
    """

    def __init__(self, directory):
        self.directory = Path(directory)

    def __repr__(self):
        return f"ArtifactStore({str(self.directory)!r})"

    def put(self, data: bytes) -> str:
        """Write ``data`` to ``<directory>/<sha256>`` atomically (temp file, fsync, rename).

        Returns the sha256 hex digest.  An existing file with that name already holds the
        same bytes and is kept.  On an OS error (full disk, read-only) nothing is left behind
        and :class:`RegistryError` names the directory.
        """
        data = bytes(data)
        digest = sha256_hex(data)
        final = self.directory / digest
        try:
            if final.is_file() and final.stat().st_size == len(data):
                return digest
        except OSError:
            pass
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.directory)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, final)
            tmp = None
            try:
                dfd = os.open(self.directory, os.O_RDONLY)
                try:
                    os.fsync(dfd)
                finally:
                    os.close(dfd)
            except OSError:
                pass  # directory fsync is best effort (not supported everywhere)
        except OSError as exc:
            raise RegistryError(
                f"cannot write artifact {digest} ({len(data)} bytes) to {self.directory}: "
                f"{exc.strerror or exc}"
            ) from exc
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        return digest

    def path(self, digest: str) -> Path:
        """Path of the artifact file with this sha256 digest; :class:`RegistryError` if absent."""
        if not is_sha256_hex(digest):
            raise RegistryError(f"artifact hash must be 64 lowercase hex digits, got {digest!r}")
        path = self.directory / digest
        if not path.is_file():
            raise RegistryError(f"artifact {digest} not found in {self.directory}")
        return path

    def read(self, digest: str, *, verify: bool = True) -> bytes:
        """The bytes of an artifact, checked against its hash."""
        data = self.path(digest).read_bytes()
        if verify and sha256_hex(data) != digest:
            raise RegistryError(f"artifact {self.directory / digest} is corrupt (hash mismatch)")
        return data

    def remove_except(self, keep: Container[str]) -> list[str]:
        """Delete every file of the directory whose name is not in ``keep`` (unreferenced
        artifacts and stray temporary files); returns the names removed, in directory order."""
        removed = []
        for entry in os.scandir(self.directory):
            if entry.name not in keep:
                try:
                    os.unlink(entry.path)
                    removed.append(entry.name)
                except OSError as exc:
                    raise RegistryError(f"cannot remove {entry.path}: {exc.strerror}") from exc
        return removed
