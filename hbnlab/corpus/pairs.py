"""A corpus published as two tables, ``train.csv`` and ``test.csv``: one corpus whose split comes
from the file names.

:func:`split_of_name` says which split a file or folder name stands for (``train``,
``training``, ``test``, ``testing``, or ending in ``-train`` / ``_test`` ...: ``intent_train.csv``,
``20news-bydate-test``); :func:`pair_roles` picks the train and the test file of two names,
:func:`pair_folder_files` those of a folder holding exactly them;
:func:`merge_train_test` joins the two tables, read each as a whole, into one corpus;
:func:`row_split` reads a row's split cell and, in a file of a pair, refuses a row whose cell
names the other split (``test`` inside ``train.csv``), naming the file, line and column.  The
readers (:func:`hbnlab.corpus.readers.read_table_pair`, a folder or a ZIP holding exactly the
two tables) read the files and call these.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path, PurePosixPath

from ._common import check_labels_trained, check_unique_ids
from .base import Corpus, CorpusError, Document

__all__ = ["split_of_name", "row_split", "pair_roles", "pair_folder_files", "merge_train_test"]

_SPLIT_VALUES = {"train": "train", "test": "test"}


def split_of_name(name: str) -> str | None:
    """'train' / 'test' for split names: ``train``, ``training``, ``test``, ``testing`` and names
    ending in ``-train`` / ``_train`` / ``-test`` / ``_test`` (``20news-bydate-train``).

    >>> [split_of_name(n) for n in ("train", "Intent_Test", "20news-bydate-train", "valid")]
    ['train', 'test', 'train', None]
    """
    low = name.lower()
    for split, words in (("train", ("train", "training")), ("test", ("test", "testing"))):
        if low in words or any(low.endswith(sep + w) for w in words for sep in "-_"):
            return split
    return None


def row_split(raw: str, column: str, loc: str, source: str, pair_split: str | None = None) -> str:
    """The split a row's split cell ``raw`` names: ``'train'`` or ``'test'`` (case and surrounding
    blanks aside); a :class:`CorpusError` naming the line ``loc``, the file ``source`` and the
    column for any other value.  In a file of a train/test pair (``pair_split``: the split its
    name gives it) the cell must name that split: a row marked ``test`` in ``train.csv`` is an
    error, never silently moved.

    >>> row_split(" Test ", "split", "line 2", "t.csv")
    'test'
    >>> row_split("test", "split", "line 3", "train.csv", "train")
    Traceback (most recent call last):
    ...
    hbnlab.corpus.base.CorpusError: line 3 of train.csv: column 'split' is 'test', but the file is the train \
file of a train/test pair, whose split comes from the file names; remove the column or make it say 'train'
    """
    split = _SPLIT_VALUES.get(raw.strip().lower())
    if split is None:
        raise CorpusError(f"{loc} of {source}: column {column!r} is {raw!r}, expected 'train' or 'test'")
    if pair_split is not None and split != pair_split:
        raise CorpusError(f"{loc} of {source}: column {column!r} is {raw!r}, but the file is the {pair_split} "
                          f"file of a train/test pair, whose split comes from the file names; remove the "
                          f"column or make it say {pair_split!r}")
    return split


def pair_roles(names: Sequence[str], source: str) -> dict[str, str]:
    """``{"train": name, "test": name}`` of two file names whose stems say train and test (in either
    order); otherwise a :class:`CorpusError` naming ``source`` and the names."""
    roles = {split_of_name(PurePosixPath(n).stem): n for n in names}
    if len(names) != 2 or set(roles) != {"train", "test"}:
        raise CorpusError(f"{source}: a train/test pair needs two table files named train.* and test.*, "
                          f"got {sorted(PurePosixPath(n).name for n in names)}")
    return roles


def pair_folder_files(root: Path, suffixes: Collection[str], hidden: Callable[[str], bool]) -> list[str] | None:
    """The names of the two files of folder ``root`` when it holds exactly a train/test pair of
    tables (file name suffixes in ``suffixes``; names for which ``hidden`` is true aside), else
    ``None``.  A link is not a file of the pair."""
    try:
        entries = [e for e in root.iterdir() if not hidden(e.name)]
    except OSError:
        return None
    names = [e.name for e in entries if e.is_file() and not e.is_symlink()
             and PurePosixPath(e.name).suffix.lower() in suffixes]
    if len(entries) != 2 or len(names) != 2:
        return None
    return sorted(names) if {split_of_name(PurePosixPath(n).stem) for n in names} == {"train", "test"} else None


def merge_train_test(parts: Mapping[str, Corpus], source: str, name: str) -> Corpus:
    """One corpus from ``{"train": corpus, "test": corpus}``, each read from one file with its row
    ids or its id column (``meta['ids']``): every document gets its file's split; ids that are row
    numbers become ``train/1``, ``test/1``; ids must be unique across both files and every label
    needs a training document.  ``meta['split']`` is ``"files"`` (``Corpus.split_source``: "train/test
    files").  A split column the files have was checked against their names as they were read
    (:func:`row_split`)."""
    docs: list[Document] = []
    where: list[str] = []
    for split in ("train", "test"):
        part = parts[split]
        numbered = part.meta.get("ids") == "row numbers"
        for k, d in enumerate(part.documents, 1):
            docs.append(Document(f"{split}/{d.id}" if numbered else d.id, d.text, d.labels, split, d.title, d.date))
            where.append(f"row {k} of {part.meta.get('source', split)}")
    check_unique_ids([d.id for d in docs], where, source)
    check_labels_trained(docs, where, source)
    metas = {s: parts[s].meta for s in ("train", "test")}
    meta = {"source": source, "format": metas["train"].get("format"), "split": "files",
            "split_files": {s: m.get("source") for s, m in metas.items()}, "ids": metas["train"].get("ids"),
            "label_sep": {s: m.get("label_sep") for s, m in metas.items()}}
    encodings: dict[str, int] = {}
    for m in metas.values():
        for codec, n in (m.get("encodings") or {}).items():
            encodings[codec] = encodings.get(codec, 0) + n
    if encodings:
        meta["encodings"] = encodings
    replaced = [f for m in metas.values() for f in m.get("replaced_files", ())]
    if replaced:
        meta["replaced_files"] = replaced
    return Corpus(name, tuple(docs), synthetic=False, meta=meta)
