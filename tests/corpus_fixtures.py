"""Generated folder-per-class corpora in several text encodings, on disk or as ZIP bytes.

The layout is 20 Newsgroups' ``bydate`` one: ``train/<class>/<id>`` and ``test/<class>/<id>``,
file names are numbers unique over the corpus, no dates.  Every document holds non-ASCII
characters, so every file's encoding matters:

* every text has accented letters of latin-1 (``café``, ``Müller``, ...);
* a ``cp1252`` file also has cp1252's own characters (``€``, curly quotes), which latin-1 lacks;
* a ``utf-8`` or ``utf-16`` file also has characters outside any 8-bit code page (``Ω``, ``ĉ``).

The ``i``-th document of a class is written in ``encodings[i % len(encodings)]``, so each
encoding occurs in every class.  ``multi_label=True`` also writes every third training and test
document, byte for byte, into the next class's folder: one document with two labels.
"""
from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_SYLLABLES = ("ka", "lo", "mi", "nu", "pe", "ro", "sa", "ti", "vo", "ze", "bri", "dal", "fen", "gor", "hul")
_COMMON = ("the", "report", "said", "market", "people", "today", "new", "would", "after", "world")
_LATIN1 = ("café", "Müller", "naïve", "señor", "façade", "crème", "smörgåsbord", "über")
_CP1252_ONLY = ("€", "“quoted”", "‘single’", "—", "…")
_BEYOND_8BIT = ("Ωmega", "ĉapelo", "Łódź", "ŝipo")
_ENCODABLE_EXTRAS = {"utf-8": _BEYOND_8BIT, "utf-16": _BEYOND_8BIT, "cp1252": _CP1252_ONLY, "latin-1": ()}


@dataclass(frozen=True)
class GeneratedCorpus:
    """What a generator wrote: ``files`` ``{relative path: bytes}`` and ``documents``
    ``{document id: {"text", "labels", "split", "encoding"}}`` as the folder reader should read
    them (a multi-label document's id is its first path in sorted order)."""

    root: Path | None
    files: dict
    documents: dict

    def encoding_counts(self) -> dict:
        """``{encoding written: number of files}``."""
        out: dict = {}
        for d in self.documents.values():
            out[d["encoding"]] = out.get(d["encoding"], 0) + len(d["paths"])
        return out


def _class_words(rng, n_classes: int) -> list[list[str]]:
    out, seen = [], set()
    for _ in range(n_classes):
        words = []
        while len(words) < 6:
            w = "".join(rng.choice(_SYLLABLES, size=3))
            if w not in seen:
                seen.add(w)
                words.append(w)
        out.append(words)
    return out


def corpus_files(n_classes: int = 20, docs_per_class: int = 4, multi_label: bool = False,
                 encodings=("utf-8", "latin-1", "cp1252", "utf-16"), random_state: int = 0) -> GeneratedCorpus:
    """The files of a generated corpus in memory (see the module docstring)."""
    for enc in encodings:
        if enc not in _ENCODABLE_EXTRAS:
            raise ValueError(f"encodings: {enc!r} is not one of {sorted(_ENCODABLE_EXTRAS)}")
    if docs_per_class < 2:
        raise ValueError(f"docs_per_class must be >= 2 (a training and a test document), got {docs_per_class}")
    rng = np.random.RandomState(random_state)
    names = [f"class{k:02d}" for k in range(n_classes)]
    vocab = _class_words(rng, n_classes)
    files: dict[str, bytes] = {}
    documents: dict[str, dict] = {}
    number = 10000
    for k, cls in enumerate(names):
        n_test = max(1, docs_per_class // 4)
        for i in range(docs_per_class):
            number += 1
            split = "test" if i >= docs_per_class - n_test else "train"
            enc = encodings[i % len(encodings)]
            words = list(rng.choice(vocab[k], size=12)) + list(rng.choice(_COMMON, size=10))
            words += list(rng.choice(_LATIN1, size=2))
            extras = _ENCODABLE_EXTRAS[enc]
            if extras:
                words += list(rng.choice(extras, size=2))
            rng.shuffle(words)
            text = " ".join(words) + ".\n"
            data = text.encode(enc)
            labels = {cls}
            paths = [f"{split}/{cls}/{number}"]
            if multi_label and i % 3 == 0 and n_classes > 1:
                other = names[(k + 1) % n_classes]
                labels.add(other)
                paths.append(f"{split}/{other}/{number}")
            for rel in paths:
                files[rel] = data
            doc_id = min(paths)
            documents[doc_id] = {"text": text, "labels": frozenset(labels), "split": split, "encoding": enc,
                                 "paths": sorted(paths)}
    return GeneratedCorpus(None, files, documents)


def make_folder_corpus(root, n_classes: int = 20, docs_per_class: int = 4, multi_label: bool = False,
                       encodings=("utf-8", "latin-1", "cp1252", "utf-16"), random_state: int = 0) -> GeneratedCorpus:
    """Write a generated folder-per-class corpus under ``root`` (created); returns what was written."""
    gen = corpus_files(n_classes, docs_per_class, multi_label, encodings, random_state)
    root = Path(root)
    for rel, data in gen.files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return GeneratedCorpus(root, gen.files, gen.documents)


def zip_bytes(files: dict, prefix: str = "") -> bytes:
    """A ZIP archive (in memory) of ``{relative path: bytes}``, each under ``prefix``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, data in sorted(files.items()):
            zf.writestr(prefix + rel, data)
    return buf.getvalue()


def make_zip_corpus(path, **kw) -> GeneratedCorpus:
    """Write a generated corpus as a ZIP file at ``path`` (its content wrapped in one folder
    named after the file, as archiving a folder does); ``kw`` as :func:`corpus_files`."""
    gen = corpus_files(**kw)
    path = Path(path)
    path.write_bytes(zip_bytes(gen.files, prefix=path.stem + "/"))
    return GeneratedCorpus(path, gen.files, gen.documents)


def write_corpus_folders(corpus, root) -> Path:
    """Write a single-label :class:`hbnlab.corpus.Corpus` as ``root/<split>/<class>/<number>``
    (UTF-8), e.g. the dotted classes of :func:`hbnlab.corpus.make_hierarchical_corpus`."""
    root = Path(root)
    for i, doc in enumerate(corpus.documents):
        (label,) = doc.labels
        path = root / doc.split / label / str(10000 + i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(doc.text, encoding="utf-8")
    return root
