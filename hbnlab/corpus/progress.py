"""How far a corpus read has come, told to whoever listens.

The readers call :func:`tick` in their loops over a corpus (ZIP members inflated, files decoded,
rows turned into documents).  Nobody listens by default, and a tick then costs one
context-variable lookup.  :func:`reporting` installs a listener for the reads of its block, in
this thread or task only: :func:`hbnlab.corpus.isolated.check_upload` relays the ticks of its
child process to its ``progress`` callback, which the workbench draws as a progress bar.

>>> seen = []
>>> with reporting(lambda stage, done, total: seen.append((stage, done, total))):
...     for k in range(1, 601):
...         tick("decoding files", k, 600)
>>> seen
[('decoding files', 1, 600), ('decoding files', 256, 600), ('decoding files', 512, 600), ('decoding files', 600, 600)]
>>> tick("decoding files", 1, 1)  # nobody listens: nothing happens
"""
from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["EVERY", "as_fractions", "reporting", "tick"]

#: A listener hears the first tick, every EVERY-th and the last of a stage.
EVERY = 256

_LISTENER: contextvars.ContextVar = contextvars.ContextVar("hbnlab_corpus_read_listener", default=None)


def tick(stage: str, done: int, total: int) -> None:
    """``done`` of ``total`` units of ``stage`` are read (told to the listener, if any)."""
    listener = _LISTENER.get()
    if listener is not None and (done == 1 or done == total or done % EVERY == 0):
        listener(stage, int(done), int(total))


@contextmanager
def reporting(listener: Callable[[str, int, int], None]) -> Iterator[None]:
    """Send the ticks of the reads inside the block to ``listener(stage, done, total)``."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def as_fractions(progress: Callable[[float, str], None], prefix: str = "") -> Callable[[str, int, int], None]:
    """A listener that tells ``progress(fraction, message)`` (the workbench's progress bars) each tick.

    >>> as_fractions(lambda f, m: print(f, m), "news.zip: ")("decoding files", 4096, 16384)
    0.25 news.zip: decoding files, 4,096 of 16,384
    """
    def listener(stage: str, done: int, total: int) -> None:
        progress(done / max(1, total), f"{prefix}{stage}, {done:,} of {total:,}")

    return listener
