"""The one corpus type of hbnlab: documents with id, title, text, labels, split and date.

Every reader returns a :class:`Corpus`; everything downstream (indexing, feature selection,
models, the workbench) consumes it.  A corpus is immutable once built, so it is safe to share
between pages, caches and worker processes.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from hbnlab._validation import HbnlabError

SPLITS = ("train", "test")


class CorpusError(HbnlabError, ValueError):
    """A corpus could not be read.  The message names the file and the line or field.

    An error that a reader option can fix carries the option (``parameter``, e.g.
    ``"encoding"``) and the value to try (``suggestion``, e.g. ``"auto"``).  ``str()`` gives
    the Python advice (``pass encoding='auto'``); each frontend phrases the same advice for
    its own controls with :meth:`advise` (the command line's ``--encoding``, the workbench's
    Encoding field).
    """

    def __init__(self, message: str, parameter: str | None = None, suggestion: str | None = None):
        super().__init__(message, parameter, suggestion)
        self.message = message
        self.parameter = parameter
        self.suggestion = suggestion

    def advise(self, how: str) -> str:
        """The message followed by ``how`` (formatted with ``parameter``, ``option`` -- the
        parameter as a command-line flag -- and ``suggestion``), or the bare message when the
        error carries no parameter."""
        if self.parameter is None:
            return self.message
        option = "--" + self.parameter.replace("_", "-")
        return f"{self.message}; " + how.format(parameter=self.parameter, option=option,
                                                suggestion=self.suggestion)

    def __str__(self) -> str:
        return self.advise("pass {parameter}={suggestion!r}")


class MissingColumnError(CorpusError):
    """A table has no column of the name a reader option gave: ``column`` is that name, ``role``
    the option (``"text_column"``, ``"labels_column"``, ...), which is also the error's
    ``parameter``; ``suggestion`` is the column of the file to try (a close name, or the only
    column no other option claims), else the placeholder ``"COLUMN"`` -- so the command line
    advises ``--labels-column category`` and Python ``labels_column='category'``."""

    def __init__(self, message: str, *, column: str, role: str, suggestion: str | None = None):
        super().__init__(message, role, suggestion if suggestion is not None else "COLUMN")
        self.column = column
        self.role = role

    def __reduce__(self):
        return (_missing_column_error, (self.message, self.column, self.role, self.suggestion))


def _missing_column_error(message: str, column: str, role: str, suggestion: str) -> MissingColumnError:
    return MissingColumnError(message, column=column, role=role, suggestion=suggestion)


class BinaryFileError(CorpusError):
    """A file holds binary data (an image, an archive, an executable ...), not text: ``file``
    names it, ``reason`` says what gave it away (:func:`hbnlab.corpus.encoding.binary_reason`).
    Folder readers skip such a file and list it; a table reader refuses it."""

    def __init__(self, file: str, reason: str):
        super().__init__(f"{file}: not a text file: {reason}")
        self.file = file
        self.reason = reason

    def __reduce__(self):
        return type(self), (self.file, self.reason)


@dataclass(frozen=True)
class Document:
    """One document.  ``labels`` is a frozenset (multi-label); ``split`` is 'train' or 'test'."""

    id: str
    text: str
    labels: frozenset = field(default_factory=frozenset)
    split: str = "train"
    title: str = ""
    date: datetime | None = None

    @property
    def full_text(self) -> str:
        """Title and body as one string (the thesis does not distinguish them, sec. 4.1.2)."""
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class Corpus:
    """An immutable collection of :class:`Document` objects.

    Parameters
    ----------
    name : str
        Short name shown in the UI and recorded in model files (``"reuters21578-modapte"``).
    documents : tuple of Document
        In a stable order; ids are unique.
    synthetic : bool
        True for generated corpora; the UI labels them as synthetic.
    meta : dict
        Free-form provenance (source path, generator parameters, ...); JSON-serialisable.
    """

    name: str
    documents: tuple
    synthetic: bool = False
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "documents", tuple(self.documents))
        seen = set()
        for i, d in enumerate(self.documents):
            if d.id in seen:
                raise CorpusError(f"corpus {self.name!r}: duplicate document id {d.id!r} (document {i})")
            seen.add(d.id)
            if d.split not in SPLITS:
                raise CorpusError(
                    f"corpus {self.name!r}: document {d.id!r} has split {d.split!r}, expected one of {SPLITS}"
                )

    # ------------------------------------------------------------------ views
    def __len__(self) -> int:
        return len(self.documents)

    def split(self, which: str) -> list[Document]:
        if which not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {which!r}")
        return [d for d in self.documents if d.split == which]

    @property
    def train(self) -> list[Document]:
        return self.split("train")

    @property
    def test(self) -> list[Document]:
        return self.split("test")

    def categories(self, min_train: int = 0, min_test: int = 0) -> list[str]:
        """Labels sorted by decreasing training frequency (ties by name).

        ``min_train`` / ``min_test`` keep only labels with at least that many documents in the split.
        """
        tr: dict[str, int] = {}
        te: dict[str, int] = {}
        for d in self.documents:
            target = tr if d.split == "train" else te
            for lab in d.labels:
                target[lab] = target.get(lab, 0) + 1
        labels = set(tr) | set(te)
        keep = [lab for lab in labels if tr.get(lab, 0) >= min_train and te.get(lab, 0) >= min_test]
        return sorted(keep, key=lambda lab: (-tr.get(lab, 0), lab))

    def label_matrix(self, documents: Sequence[Document], categories: Sequence[str]) -> np.ndarray:
        """Boolean matrix (n_documents, n_categories): entry [i, j] is True iff doc i has label j."""
        index = {c: j for j, c in enumerate(categories)}
        Y = np.zeros((len(documents), len(categories)), dtype=bool)
        for i, d in enumerate(documents):
            for lab in d.labels:
                j = index.get(lab)
                if j is not None:
                    Y[i, j] = True
        return Y

    def texts(self, documents: Iterable[Document] | None = None) -> list[str]:
        docs = self.documents if documents is None else documents
        return [d.full_text for d in docs]

    def fingerprint(self) -> str:
        """SHA-256 over ids, splits, labels and texts: identifies the exact data a model saw.

        A corpus whose texts had newsgroup headers, quotes or signatures removed
        (``meta["newsgroup_strip"]``, :func:`hbnlab.text.newsgroup.strip_corpus`) adds the parts
        removed, so it never shares a fingerprint with the corpus read as it is.

        Computed once per corpus object (the corpus is immutable; hashing 19,000 messages takes a
        quarter of a second and the pipeline asks several times)."""
        return self.derived("fingerprint", self._fingerprint)

    def _fingerprint(self) -> str:
        h = hashlib.sha256()
        stripped = (self.meta.get("newsgroup_strip") or {}).get("parts")
        if stripped:
            h.update(json.dumps(["newsgroup_strip", list(stripped)]).encode("utf-8") + b"\0")
        for d in self.documents:
            h.update(json.dumps([d.id, d.split, sorted(d.labels), d.title, d.text]).encode("utf-8"))
            h.update(b"\0")
        return h.hexdigest()

    def derived(self, key, compute):
        """``compute()``, a value that depends on this corpus alone, computed once per corpus
        object and ``key`` (the corpus is immutable).  Callers must not modify what it returns."""
        memo = self.__dict__.get("_derived")
        if memo is None:
            memo = {}
            object.__setattr__(self, "_derived", memo)
        if key not in memo:
            memo[key] = compute()
        return memo[key]

    # ------------------------------------------------------------------ JSON
    def to_json_bytes(self) -> bytes:
        """The corpus as UTF-8 JSON (name, synthetic, meta, one row per document); the inverse is
        :meth:`from_json_bytes`.  The form the store keeps and a child process hands back."""
        doc = {"name": self.name, "synthetic": bool(self.synthetic), "meta": self.meta,
               "documents": [[d.id, d.title, d.text, sorted(d.labels), d.split,
                              d.date.isoformat() if d.date is not None else None] for d in self.documents]}
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    @classmethod
    def from_json_bytes(cls, data: bytes) -> Corpus:
        """The corpus :meth:`to_json_bytes` wrote."""
        doc = json.loads(data)
        docs = tuple(Document(i, text, frozenset(labels), split, title, datetime.fromisoformat(date) if date else None)
                     for i, title, text, labels, split, date in doc["documents"])
        return cls(str(doc["name"]), docs, bool(doc["synthetic"]), dict(doc["meta"]))

    def json_safe(self) -> bool:
        """Whether the corpus survives the JSON round trip exactly (its meta is plain JSON)."""
        try:
            return json.loads(json.dumps(self.meta)) == self.meta
        except (TypeError, ValueError):
            return False

    @property
    def split_source(self) -> str:
        """Where the train / test split came from, in words, from ``meta['split']``: "the file's split
        column", "train/test files", "train/test folders", "seeded 75/25 split (no split in the
        source)", a named protocol ("ModApte ...") or "the generator's split"."""
        how = str(self.meta.get("split", ""))
        if how.startswith("column "):
            return "the file's split column"
        if how in ("files", "folders"):
            return f"train/test {how}"
        if how == "seeded":
            test = round(100 * float(self.meta.get("test_fraction", 0.25)))
            return f"seeded {100 - test}/{test} split (no split in the source)"
        if how == "none":
            return "none (every document is a training document)"
        if how:
            return how
        return "the generator's split" if self.synthetic else "not recorded"

    def summary(self) -> dict:
        """Counts per split and per category, as plain Python objects."""
        cats = self.categories()
        per_cat = {c: {"train": 0, "test": 0} for c in cats}
        for d in self.documents:
            for lab in d.labels:
                per_cat[lab][d.split] += 1
        return {
            "name": self.name,
            "synthetic": self.synthetic,
            "n_documents": len(self.documents),
            "n_train": sum(d.split == "train" for d in self.documents),
            "n_test": sum(d.split == "test" for d in self.documents),
            "split_source": self.split_source,
            "n_categories": len(cats),
            "per_category": per_cat,
        }

    def subset(self, documents: Iterable[Document], name: str | None = None) -> Corpus:
        return Corpus(name or self.name, tuple(documents), self.synthetic, dict(self.meta))
