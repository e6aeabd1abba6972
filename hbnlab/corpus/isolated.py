"""Check an upload in a child process with a memory limit and a deadline.

The readers bound what they read (``max_bytes`` on files, ZIP members and a Parquet table's
decoded content), but some costs are out of their reach -- a Parquet page header declaring
2 GiB, a codec's own buffers, the Python objects of millions of short rows.  A server that
parses an upload in its own process shares its fate with every open browser tab; so
:func:`check_upload` parses it in a fresh interpreter (``python -m hbnlab.corpus.isolated``:
it never re-imports the server's ``__main__``), whose address space is capped with
``RLIMIT_AS`` at what it uses once started plus ``memory_bytes``, and which is killed after
``timeout`` seconds.  The reader's :class:`~hbnlab.corpus.base.CorpusError` comes back as it
was raised; a child that runs out of memory, crashes or overruns becomes a ``CorpusError``
naming the file and the limit.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import PurePosixPath

from .base import CorpusError

__all__ = ["MEMORY_BYTES", "TIMEOUT_SECONDS", "check_upload"]

#: Address space the child may take beyond what it holds once its imports are done: room for a
#: 200 MB table (the default ``max_bytes``) as text, rows and documents.
MEMORY_BYTES = 3 * 2**30
#: Seconds the child may parse before it is killed.
TIMEOUT_SECONDS = 300.0


def _display(filename: str) -> str:
    return PurePosixPath(str(filename).replace("\\", "/")).name or "upload"


def check_upload(data: bytes, filename: str, options: dict | None = None, *,
                 memory_bytes: int = MEMORY_BYTES, timeout: float = TIMEOUT_SECONDS) -> int:
    """Parse an upload with :func:`~hbnlab.corpus.readers.load_upload` in a child process.

    Parameters
    ----------
    data, filename, options
        As for ``load_upload(data, filename, **options)``.
    memory_bytes : int
        Address space the child may add to what it holds after its imports.
    timeout : float
        Seconds before the child is killed.

    Returns
    -------
    int
        The number of documents the upload holds.

    Raises
    ------
    CorpusError
        The reader's own error, or one naming the file when the child ran out of memory, died
        or overran ``timeout``.
    """
    name = _display(filename)
    payload = pickle.dumps((bytes(data), filename, dict(options or {}), int(memory_bytes)),
                           protocol=pickle.HIGHEST_PROTOCOL)
    try:
        done = subprocess.run([sys.executable, "-m", "hbnlab.corpus.isolated"], input=payload,
                              capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CorpusError(f"{name}: reading it took more than {timeout:g} s; refused") from None
    if done.returncode != 0 or not done.stdout:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise CorpusError(f"{name}: the reader's process ended without an answer (exit code {done.returncode}: "
                          f"{tail[0]}); within a limit of {memory_bytes / 2**30:.1f} GiB of memory the file "
                          f"could not be read")
    status, value, message = pickle.loads(done.stdout)
    if status == "ok":
        return value
    try:
        error = pickle.loads(value)
    except Exception:  # an error class that does not survive pickling: its message does
        error = CorpusError(message)
    raise error


def _limit_address_space(extra: int) -> None:
    import resource

    with open("/proc/self/statm") as fh:
        used = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    limit = used + extra
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _main() -> None:
    from .readers import load_upload

    data, filename, options, memory_bytes = pickle.loads(sys.stdin.buffer.read())
    if sys.platform.startswith("linux"):
        _limit_address_space(memory_bytes)
    try:
        answer = ("ok", len(load_upload(data, filename, **options)), "")
    except MemoryError:
        error = CorpusError(f"{_display(filename)}: ran out of memory (a limit of {memory_bytes / 2**30:.1f} GiB) "
                            f"reading it")
        answer = ("error", pickle.dumps(error), str(error))
    except (TypeError, ValueError) as exc:  # CorpusError, or a bad option as load_upload raises it
        try:
            answer = ("error", pickle.dumps(exc), str(exc))
        except Exception:
            answer = ("error", b"", str(exc))
    sys.stdout.buffer.write(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    _main()
