"""Where data lives and how a corpus is named, for every frontend.

* :func:`data_home` -- the one directory of jobs, uploads and caches: ``$HBNLAB_DATA_HOME``, else
  ``~/.cache/hbnlab``.
* :func:`resolve_reuters_dir` -- the Reuters-21578 directory: the given one,
  ``$HBNLAB_REUTERS_DIR``, else the verified download cache (downloading only when asked).
* :func:`load_named_corpus` -- the command line's ``--corpus synthetic|reuters|PATH``.
* :func:`corpus_from_spec` -- the workbench's corpus spec (``ExperimentConfig.corpus_spec()``):
  a JSON-able dict that background jobs carry to their worker processes.
"""
from __future__ import annotations

import os
from pathlib import Path

from hbnlab.corpus import (
    REUTERS_NAME,
    CorpusError,
    default_data_home,
    fetch_reuters21578,
    load_corpus,
    load_reuters21578,
    make_synthetic_corpus,
)

__all__ = ["data_home", "resolve_reuters_dir", "load_named_corpus", "corpus_from_spec", "is_reuters_modapte",
           "REUTERS_NAME"]

def data_home() -> Path:
    """:func:`hbnlab.corpus.default_data_home` (``$HBNLAB_DATA_HOME``, else ``~/.cache/hbnlab``),
    created on demand, as an absolute path."""
    p = default_data_home()
    p.mkdir(parents=True, exist_ok=True)
    return p.resolve()


def resolve_reuters_dir(path: str | os.PathLike | None = None, *, download: bool = False, progress=None) -> Path:
    """The Reuters-21578 directory: ``path``, else ``$HBNLAB_REUTERS_DIR``, else the cache of
    :func:`hbnlab.corpus.fetch_reuters21578` (verified by SHA-256; downloaded into it only when
    ``download`` is true, otherwise a missing cache raises :class:`~hbnlab.corpus.CorpusError`)."""
    value = path or os.environ.get("HBNLAB_REUTERS_DIR", "")
    if value:
        return Path(value)
    return Path(fetch_reuters21578(download_if_missing=download, progress=progress))


def load_named_corpus(name: str, *, reuters_dir: str | None = None, seed: int = 0, size: int = 3000,
                      download: bool = True, encoding: str = "auto"):
    """``"synthetic"`` (seeded, ``size`` documents), ``"reuters"`` (ModApte) or a path read by
    :func:`hbnlab.corpus.load_corpus` (a folder per class, a table or a ZIP) with ``encoding``
    (``"auto"``: detected file by file, or a codec name)."""
    if name == "synthetic":
        return make_synthetic_corpus(n_documents=size, random_state=seed)
    if name == "reuters":
        return load_reuters21578(resolve_reuters_dir(reuters_dir, download=download))
    if not Path(name).exists():
        raise CorpusError(f"{name}: no such file or directory (a corpus is synthetic, reuters or a path)")
    return load_corpus(name, encoding=encoding)


def corpus_from_spec(spec: dict, *, progress=None):
    """Load the corpus a workbench spec names.

    ``{"corpus": "synthetic", "seed": s, "size": n}`` -> :func:`hbnlab.corpus.make_synthetic_corpus`;
    ``{"corpus": "reuters", "reuters_dir": d}`` -> :func:`hbnlab.corpus.load_reuters21578` (never
    downloads: the Corpus page does that with a progress bar);
    ``{"corpus": "upload", "upload_path": p, "options": {...}}`` -> :func:`hbnlab.corpus.load_corpus`
    on the stored upload.  Reader errors are :class:`hbnlab.corpus.CorpusError` naming the file and line.
    """
    kind = spec.get("corpus")
    if kind == "synthetic":
        return make_synthetic_corpus(n_documents=int(spec.get("size", 3000)), random_state=int(spec.get("seed", 0)))
    if kind == "reuters":
        return load_reuters21578(resolve_reuters_dir(spec.get("reuters_dir", "")), progress=progress)
    if kind == "upload":
        path = Path(spec.get("upload_path", ""))
        if not path.is_file():
            raise CorpusError(f"{path}: the stored upload is missing; upload the file again")
        return load_corpus(str(path), **dict(spec.get("options") or {}))
    raise ValueError(f"corpus spec: 'corpus' must be 'synthetic', 'reuters' or 'upload', got {kind!r}")


def is_reuters_modapte(name: str) -> bool:
    """Whether a ``Corpus.name`` is Reuters-21578 ModApte (the thesis's values apply)."""
    return name == REUTERS_NAME
