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
import threading
import time
from pathlib import PurePosixPath

from .base import Corpus, CorpusError

__all__ = ["MEMORY_BYTES", "POLL_SECONDS", "TIMEOUT_SECONDS", "check_upload", "parse_upload"]

#: Address space the child may take beyond what it holds once its imports are done: room for a
#: 200 MB table (the default ``max_bytes``) as text, rows and documents.
MEMORY_BYTES = 3 * 2**30
#: Seconds the child may parse before it is killed.
TIMEOUT_SECONDS = 300.0
#: Seconds between two looks at the child (its exit, the deadline, its latest progress).
POLL_SECONDS = 0.1
#: The start of a progress line on the child's standard error (the rest: stage, done, total).
_TICK = b"\x00hbnlab-tick\t"


def _display(filename: str) -> str:
    return PurePosixPath(str(filename).replace("\\", "/")).name or "upload"


def check_upload(data: bytes, filename: str, options: dict | None = None, *,
                 memory_bytes: int = MEMORY_BYTES, timeout: float = TIMEOUT_SECONDS, progress=None) -> int:
    """Parse an upload with :func:`~hbnlab.corpus.readers.load_upload` in a child process; the
    number of documents it holds (:func:`parse_upload` returns the corpus itself).

    Parameters
    ----------
    data, filename, options
        As for ``load_upload(data, filename, **options)``.
    memory_bytes : int
        Address space the child may add to what it holds after its imports.
    timeout : float
        Seconds before the child is killed.
    progress : callable, optional
        ``progress(stage, done, total)``, called in this thread while the child reads with the
        latest of its :func:`hbnlab.corpus.progress.tick` (``"decoding files", 4096, 18800``),
        at most every :data:`POLL_SECONDS`.

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
    return _in_child(data, filename, options, memory_bytes, timeout, progress, want_corpus=False)


def parse_upload(data: bytes, filename: str, options: dict | None = None, *,
                 memory_bytes: int = MEMORY_BYTES, timeout: float = TIMEOUT_SECONDS, progress=None) -> Corpus:
    """:func:`check_upload`, returning the parsed corpus: the child hands it back as JSON
    (:meth:`~hbnlab.corpus.base.Corpus.to_json_bytes`), so the caller keeps what was parsed
    instead of parsing the file a second time.  Same parameters and errors."""
    return Corpus.from_json_bytes(_in_child(data, filename, options, memory_bytes, timeout, progress,
                                            want_corpus=True))


def _in_child(data, filename, options, memory_bytes, timeout, progress, *, want_corpus: bool):
    name = _display(filename)
    payload = pickle.dumps((bytes(data), filename, dict(options or {}), int(memory_bytes), bool(want_corpus)),
                           protocol=pickle.HIGHEST_PROTOCOL)
    proc = subprocess.Popen([sys.executable, "-m", "hbnlab.corpus.isolated"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out: list[bytes] = []
    err: list[bytes] = []
    latest: list = [None]

    def feed():
        try:
            proc.stdin.write(payload)
            proc.stdin.close()
        except OSError:  # the child died before reading everything: its exit code tells why
            pass

    def listen():  # drains the child's stderr to its end, so the child never blocks on a full pipe
        for line in proc.stderr:
            try:  # the child's own messages, and a tick cut short by its end, are kept as its messages
                if not line.startswith(_TICK):
                    raise ValueError(line)
                stage, done, total = line[len(_TICK):].decode("utf-8", "replace").rstrip("\n").split("\t")
                latest[0] = (stage, int(done), int(total))
            except ValueError:
                err.append(line)

    threads = [threading.Thread(target=feed, daemon=True), threading.Thread(target=listen, daemon=True),
               threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    shown = None
    try:
        while True:
            try:
                proc.wait(timeout=POLL_SECONDS)
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline:
                    raise CorpusError(f"{name}: reading it took more than {timeout:g} s; refused") from None
            if progress is not None and latest[0] is not None and latest[0] != shown:
                shown = latest[0]
                progress(*shown)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        for t in threads:
            t.join(timeout=10)
        for pipe in (proc.stdout, proc.stderr):
            pipe.close()
    if progress is not None and latest[0] is not None and latest[0] != shown:
        progress(*latest[0])  # the last tick, heard after the last look
    stdout = b"".join(out)
    if proc.returncode != 0 or not stdout:
        tail = b"".join(err).decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise CorpusError(f"{name}: the reader's process ended without an answer (exit code {proc.returncode}: "
                          f"{tail[0]}); within a limit of {memory_bytes / 2**30:.1f} GiB of memory the file "
                          f"could not be read")
    status, value, message = pickle.loads(stdout)
    if status == "ok":
        return value
    try:
        error = pickle.loads(value)
    except Exception:  # an error class that does not survive pickling: its message does
        error = CorpusError(message)
    raise error


def _relay(stage: str, done: int, total: int) -> None:
    sys.stderr.buffer.write(_TICK + f"{stage}\t{done}\t{total}\n".encode())
    sys.stderr.buffer.flush()


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
    from .progress import reporting
    from .readers import load_upload

    data, filename, options, memory_bytes, want_corpus = pickle.loads(sys.stdin.buffer.read())
    if sys.platform.startswith("linux"):
        _limit_address_space(memory_bytes)
    try:
        with reporting(_relay):
            corpus = load_upload(data, filename, **options)
        del data
        answer = ("ok", corpus.to_json_bytes() if want_corpus else len(corpus), "")
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
