"""Helpers shared by the corpus readers: size limits, seeded splits, label checks (decoding is
:mod:`hbnlab.corpus.encoding`).

Every helper raises :class:`~hbnlab.corpus.base.CorpusError` whose message names the source
(a file name, a ZIP member, an upload's name) and, where it applies, the line, row or field.
"""
from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from .base import CorpusError, Document

#: Default upper bound on the bytes a reader accepts (a file, an upload, a folder's total,
#: a ZIP's total uncompressed size).
DEFAULT_MAX_BYTES = 200_000_000

# A "token" in the thesis's indexing is a maximal run of letters (sec. 4.1.2), so a document
# without any letter has no tokens.  ``[^\W\d_]`` is "a Unicode letter".
_LETTER = re.compile(r"[^\W\d_]")


def check_random_state(random_state):
    """``None`` / int / ``RandomState`` / ``Generator`` -> an object with ``permutation``.

    The semantics of :func:`sklearn.utils.check_random_state` (an int seeds a fresh
    ``RandomState``), plus numpy ``Generator``s; kept local so importing :mod:`hbnlab.corpus`
    does not import scikit-learn (workbench start-up time).
    """
    if random_state is None or random_state is np.random:
        return np.random.mtrand._rand
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return np.random.RandomState(int(random_state))
    if isinstance(random_state, (np.random.RandomState, np.random.Generator)):
        return random_state
    raise ValueError(f"random_state must be None, an int, a numpy RandomState or Generator, got {random_state!r}")


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def text_lines(text: str):
    """The lines of ``text`` one at a time, each with its line end (``\\r\\n``, ``\\r`` or ``\\n``, the
    lines of ``io.StringIO(text, newline="")``), for ``csv.reader``: a ``StringIO`` of the text
    would hold a copy of four bytes a character.

    >>> list(text_lines('a,b\\r\\n"x\\ny",z\\rlast'))
    ['a,b\\r\\n', '"x\\n', 'y",z\\r', 'last']
    """
    return (m.group() for m in _LINE.finditer(text))


def has_letters(text: str) -> bool:
    """True iff ``text`` holds at least one letter, i.e. at least one token (thesis sec. 4.1.2)."""
    return _LETTER.search(text) is not None


def format_bytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def check_size(n_bytes: int, max_bytes: int | None, source: str, what: str = "") -> None:
    """Raise if ``n_bytes`` exceeds ``max_bytes`` (``None`` = no limit)."""
    if max_bytes is None:
        return
    if max_bytes <= 0:
        raise ValueError(f"max_bytes must be a positive number of bytes or None, got {max_bytes!r}")
    if n_bytes > max_bytes:
        label = f"{source}{what}"
        raise CorpusError(
            f"{label} is {format_bytes(n_bytes)} ({n_bytes} bytes), over the limit "
            f"max_bytes={max_bytes} ({format_bytes(max_bytes)}); pass a larger max_bytes= to accept it"
        )


#: Why a folder reader did not read an entry that is not a regular file inside the folder
#: (``meta['ignored_files']``).
LINK_OUTSIDE = "a symbolic link leading outside the folder: not followed"
LINK_TO_FOLDER = "a symbolic link to a folder: not followed"
BROKEN_LINK = "a broken symbolic link"
_NOT_REGULAR = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


def _not_regular_reason(mode: int) -> str:
    kind = next((what for test, what in _NOT_REGULAR if test(mode)), "a special file")
    return f"{kind}, not a regular file"


def walk_regular_files(root: Path, is_hidden: Callable[[str], bool]):
    """Walk the folder ``root`` without ever leaving it.

    Returns ``(files, hidden, ignored)``: ``files`` is the sorted ``[(relative posix path, real
    path)]`` of the regular files inside ``root`` (a symbolic link to a file inside the folder is
    read through its real path); ``hidden`` the relative paths of the files and folders
    (``name/``) whose name ``is_hidden``, not entered; ``ignored`` the ``{"file", "reason"}`` of
    every other entry that is not read: symbolic links leading outside the folder (to a secret
    file, to ``/proc/self/environ``), links to folders, broken links, devices, FIFOs and sockets.
    Only ``lstat`` / ``stat`` are called on them: nothing outside the folder is opened, and no
    FIFO is (opening one would wait for a writer).
    """
    real_root = Path(os.path.realpath(root))
    files, hidden, ignored = [], [], []
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath)
        entered = []
        for d in sorted(dirnames):
            rel = (base / d).relative_to(root).as_posix()
            if is_hidden(d):
                hidden.append(rel + "/")
            elif (base / d).is_symlink():
                ignored.append({"file": rel + "/", "reason": LINK_TO_FOLDER})
            else:
                entered.append(d)
        dirnames[:] = entered
        for fn in sorted(filenames):
            p = base / fn
            rel = p.relative_to(root).as_posix()
            if is_hidden(fn):
                hidden.append(rel)
                continue
            reason, real = None, p
            if p.is_symlink():
                real = Path(os.path.realpath(p))
                if not real.is_relative_to(real_root):
                    reason = LINK_OUTSIDE
                elif not real.exists():
                    reason = BROKEN_LINK
            if reason is None:
                try:
                    mode = real.stat().st_mode
                except OSError as exc:
                    raise CorpusError(f"{p}: cannot read ({exc.strerror or exc})") from None
                if stat.S_ISDIR(mode):
                    reason = LINK_TO_FOLDER
                elif not stat.S_ISREG(mode):
                    reason = _not_regular_reason(mode)
            if reason is None:
                files.append((rel, real))
            else:
                ignored.append({"file": rel, "reason": reason})
    files.sort()
    return files, sorted(hidden), ignored


_READ_CHUNK = 1 << 20


def read_regular_file(path: Path, limit: int | None, source: str | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (``None``: no limit).

    The bytes read are counted, not the size ``stat`` reports (``/proc`` files report 0), the
    file is opened without blocking and checked to be a regular file once open, and an
    ``OSError`` becomes a :class:`CorpusError` naming ``source`` (default ``path``)."""
    name = source or str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "rb") as fh:
            mode = os.fstat(fh.fileno()).st_mode
            if not stat.S_ISREG(mode):
                raise CorpusError(f"{name}: {_not_regular_reason(mode)}; only regular files are read")
            # one read of the size fstat reports (plus one byte, to see a file that grew), not of
            # ``limit + 1``, for which Python would allocate that many bytes up front; what a file
            # whose size is unknown (0 in /proc) or that grew holds beyond is read after
            size = os.fstat(fh.fileno()).st_size
            first = size + 1 if size else _READ_CHUNK
            first = first if limit is None else min(first, limit + 1)
            data = fh.read(first)
            if len(data) == first and (limit is None or len(data) <= limit):
                data += fh.read(-1 if limit is None else limit + 1 - len(data))
    except OSError as exc:
        raise CorpusError(f"{name}: cannot read ({exc.strerror or exc})") from None
    if limit is not None and len(data) > limit:
        raise CorpusError(f"{name}: more than {limit} bytes ({format_bytes(limit)}), over the limit; pass a "
                          "larger max_bytes= to accept it")
    return data


def check_random_split_args(test_fraction: float) -> None:
    if not (isinstance(test_fraction, (int, float)) and 0.0 <= float(test_fraction) < 1.0):
        raise ValueError(f"test_fraction must be a number in [0, 1), got {test_fraction!r}")


def seeded_split(label_sets: Sequence[frozenset], test_fraction: float, random_state) -> np.ndarray:
    """Assign each document to 'train' or 'test' at random, reproducibly.

    Exactly ``round(n * test_fraction)`` documents are drawn for the test set (the first ones of a
    ``random_state``-seeded permutation), then, for every label with no training document left
    (labels taken in sorted order), its first test document in permutation order is moved back
    to training -- so a seeded split never produces a label without training positives.

    Returns an array of 'train' / 'test' strings aligned with ``label_sets``.
    """
    check_random_split_args(test_fraction)
    n = len(label_sets)
    rng = check_random_state(random_state)
    order = rng.permutation(n)
    n_test = int(round(n * float(test_fraction)))
    is_test = np.zeros(n, dtype=bool)
    is_test[order[:n_test]] = True
    if n_test:
        in_train: set = set()
        for labels, t in zip(label_sets, is_test):
            if not t:
                in_train.update(labels)
        missing = sorted(set().union(*label_sets) - in_train)
        if missing:
            # rank[i] = position of document i in the permutation
            rank = np.empty(n, dtype=np.int64)
            rank[order] = np.arange(n)
            for lab in missing:
                if lab in in_train:  # already fixed by an earlier move
                    continue
                cands = [i for i in np.flatnonzero(is_test) if lab in label_sets[i]]
                i = min(cands, key=lambda k: rank[k])
                is_test[i] = False
                in_train.update(label_sets[i])
    return np.where(is_test, "test", "train")


def check_labels_trained(documents: Sequence[Document], where: Sequence[str], source: str) -> None:
    """Raise if some label occurs only in test documents; ``where[i]`` locates document i."""
    train_labels: set = set()
    for d in documents:
        if d.split == "train":
            train_labels.update(d.labels)
    for d, loc in zip(documents, where):
        bad = sorted(d.labels - train_labels)
        if bad:
            raise CorpusError(
                f"{loc} of {source}: label {bad[0]!r} has no training documents (it occurs only in "
                f"the test split); every label needs at least one training positive"
            )


def check_unique_ids(ids: Sequence[str], where: Sequence[str], source: str) -> None:
    """Raise naming both places when an id repeats."""
    first: dict[str, str] = {}
    for i, loc in zip(ids, where):
        if i in first:
            raise CorpusError(f"{source}: duplicate id {i!r} at {first[i]} and {loc}")
        first[i] = loc
