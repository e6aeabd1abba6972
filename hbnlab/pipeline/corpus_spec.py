"""Where data lives and how a corpus is named, for every frontend.

* :func:`data_home` -- the one directory of jobs, uploads and caches: ``$HBNLAB_DATA_HOME``, else
  ``~/.cache/hbnlab``.
* :func:`resolve_reuters_dir` -- the Reuters-21578 directory: the given one,
  ``$HBNLAB_REUTERS_DIR``, else the verified download cache (downloading only when asked).
* :func:`load_named_corpus` -- the command line's ``--corpus synthetic|reuters|PATH``.
* :func:`corpus_from_spec` -- the workbench's corpus spec (``ExperimentConfig.corpus_spec()``):
  a JSON-able dict that background jobs carry to their worker processes.
* :func:`source_files` -- the files a corpus spec reads (their contents key the stored corpus).
* :func:`confine_corpus_path` -- the one check of a path that arrives from a URL, a form or a job
  spec: it must lie, symlinks resolved, in a directory the workbench may read
  (:func:`allowed_corpus_dirs`).

A workbench spec comes from the browser (the URL mirrors the config), so it is untrusted:
:func:`corpus_from_spec` confines its paths and refuses column names the stored upload lacks,
naming the parameter and never quoting the file.  The command line (:func:`load_named_corpus`)
reads any path its user gives.

Both loaders keep the parsed corpus in the data home (:func:`hbnlab.pipeline.store.cached_corpus`,
keyed by the source files' contents and the reader options); ``$HBNLAB_NO_CACHE=1`` turns that off.
Both take ``strip``, the newsgroup parts (headers, quotes, signature) to remove from the texts of
a read corpus (:func:`hbnlab.text.newsgroup.strip_corpus`, after the store: the parsed corpus is
kept once for both); a generated corpus refuses it.
"""
from __future__ import annotations

import os
from contextlib import nullcontext
from pathlib import Path

from hbnlab.corpus import (
    REUTERS_NAME,
    Corpus,
    CorpusError,
    MissingColumnError,
    default_data_home,
    fetch_reuters21578,
    load_corpus,
    load_reuters21578,
    load_upload,
    make_hierarchical_corpus,
    make_synthetic_corpus,
)
from hbnlab.corpus.progress import as_fractions, reporting
from hbnlab.corpus.reuters import REUTERS_FILES
from hbnlab.pipeline.store import cached_corpus
from hbnlab.text.newsgroup import newsgroup_parts, strip_corpus

__all__ = ["data_home", "resolve_reuters_dir", "load_named_corpus", "corpus_paths", "corpus_from_spec",
           "is_reuters_modapte", "keep_upload",
           "REUTERS_NAME", "SYNTHETIC_HIERARCHY", "confine_corpus_path", "source_files", "allowed_corpus_dirs",
           "CorpusPathError",
           "ALLOWED_DIRS_ENV"]

#: Environment variable: more directories (separated by ``os.pathsep``) the workbench may read
#: uploads and Reuters-21578 from, besides the data home.
ALLOWED_DIRS_ENV = "HBNLAB_ALLOWED_DIRS"


#: The command line's name of the synthetic corpus with a topic taxonomy.
SYNTHETIC_HIERARCHY = "synthetic-hierarchy"


class CorpusPathError(CorpusError):
    """A path from a URL, a form or a job spec lies outside the directories the workbench may read."""


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


def allowed_corpus_dirs(kind: str) -> list[Path]:
    """The directories (resolved) a workbench spec may read a corpus of ``kind`` from.

    ``"upload"``: ``<data home>/uploads`` (where :func:`hbnlab.app.corpus_data.store_upload` keeps
    uploads); ``"reuters"``: the data home (its download cache included) and
    ``$HBNLAB_REUTERS_DIR``; both: every directory of ``$HBNLAB_ALLOWED_DIRS``.
    """
    if kind not in ("upload", "reuters"):
        raise ValueError(f"kind must be 'upload' or 'reuters', got {kind!r}")
    home = data_home()
    roots = [home / "uploads"] if kind == "upload" else [home]
    if kind == "reuters" and os.environ.get("HBNLAB_REUTERS_DIR", "").strip():
        roots.append(Path(os.environ["HBNLAB_REUTERS_DIR"].strip()))
    roots += [Path(p.strip()) for p in os.environ.get(ALLOWED_DIRS_ENV, "").split(os.pathsep) if p.strip()]
    return [r.expanduser().resolve() for r in roots]


def confine_corpus_path(value, *, parameter: str, kind: str) -> Path:
    """``value`` resolved (symbolic links followed), if it lies in :func:`allowed_corpus_dirs` of
    ``kind``; otherwise :class:`CorpusPathError` naming ``parameter`` (the path is the caller's
    own input; nothing of the file is read).

    Examples
    --------
    >>> confine_corpus_path("/etc/passwd", parameter="upload_path", kind="upload")
    Traceback (most recent call last):
    ...
    hbnlab.pipeline.corpus_spec.CorpusPathError: upload_path='/etc/passwd' is outside the directories ...
    """
    text = str(value).strip()
    if not text or "\x00" in text:
        raise CorpusPathError(f"{parameter}={text!r} is not a path")
    path = Path(text).expanduser()
    if not path.is_absolute():
        raise CorpusPathError(f"{parameter}={text!r} is not an absolute path")
    resolved = path.resolve()
    roots = allowed_corpus_dirs(kind)
    if not any(resolved == root or resolved.is_relative_to(root) for root in roots):
        where = ("the data home's uploads folder" if kind == "upload"
                 else "the data home or $HBNLAB_REUTERS_DIR")
        raise CorpusPathError(f"{parameter}={text!r} is outside the directories the workbench may read ({where} "
                              f"or ${ALLOWED_DIRS_ENV}); refused")
    return resolved


def _reuters_files(root: Path) -> list[Path]:
    return [root / n for n in REUTERS_FILES if (root / n).is_file()]


def _files_under(path: Path) -> list[Path]:
    """``path`` itself, or every regular file below the folder ``path`` (links to folders not
    followed, as the readers walk it)."""
    if not path.is_dir():
        return [path] if path.is_file() else []
    return [Path(d) / f for d, _, names in os.walk(path) for f in names if (Path(d) / f).is_file()]


def source_files(spec: dict) -> list[Path]:
    """The files the corpus of a workbench spec is read from (none for a generated corpus)."""
    kind = spec.get("corpus")
    if kind == "reuters":
        return _reuters_files(resolve_reuters_dir(spec.get("reuters_dir") or None))
    if kind == "upload" and str(spec.get("upload_path") or "").strip():
        return _files_under(Path(spec["upload_path"]))
    return []


def _reuters(root: Path, *, progress=None, log=None) -> Corpus:
    root = Path(root)
    verify = os.environ.get("HBNLAB_ALLOW_MODIFIED_REUTERS", "") != "1"
    return cached_corpus({"reader": "reuters", "path": str(root.resolve()), "verify": verify},
                         _reuters_files(root), lambda: load_reuters21578(root, progress=progress), root=root,
                         progress=progress, log=log)


def _synthetic(size: int, seed: int, log=None, model: str = "groups") -> Corpus:
    """A generated corpus (``model``: ``"groups"`` -> :func:`make_synthetic_corpus`, ``"hierarchy"``
    -> :func:`make_hierarchical_corpus`), kept in the store."""
    make = make_hierarchical_corpus if model == "hierarchy" else make_synthetic_corpus
    what = {"reader": "synthetic", "size": int(size), "seed": int(seed)}
    if model != "groups":  # the groups corpus keeps the key it had before there were two models
        what["model"] = model
    return cached_corpus(what, [], lambda: make(n_documents=int(size), random_state=int(seed)), log=log)


def corpus_paths(name: str) -> list[Path]:
    """The path(s) a ``--corpus`` value names: one path, or ``"TRAIN,TEST"`` -- two table files
    (``train.csv,test.csv``) read as one corpus whose split comes from the file names.  A path
    that does not exist is a :class:`~hbnlab.corpus.CorpusError`."""
    text = str(name)
    parts = [Path(text)] if Path(text).exists() or "," not in text else [Path(t.strip()) for t in text.split(",")]
    for p in parts:
        if not p.exists():
            raise CorpusError(f"{p}: no such file or directory (a corpus is synthetic, {SYNTHETIC_HIERARCHY}, "
                              f"reuters, a path, or two table files TRAIN,TEST)")
    if len(parts) > 2:
        raise CorpusError(f"{text}: {len(parts)} paths; expected one, or two table files TRAIN,TEST")
    return parts


def _stripped(corpus: Corpus, strip, name: str) -> Corpus:
    """``corpus`` with the newsgroup parts ``strip`` removed from its texts (none: ``corpus``)."""
    try:
        parts = newsgroup_parts(strip)
    except ValueError as e:
        raise CorpusError(f"strip: {e}") from None
    if parts and corpus.synthetic:
        raise CorpusError(f"{name}: newsgroup stripping applies to read texts, not to a generated corpus")
    return strip_corpus(corpus, parts)


def load_named_corpus(name: str, *, reuters_dir: str | None = None, seed: int = 0, size: int = 3000,
                      download: bool = True, encoding: str = "auto", table: dict | None = None, strip=None,
                      log=None):
    """``"synthetic"`` (seeded, ``size`` documents), ``"synthetic-hierarchy"`` (the same, categories
    in a topic taxonomy), ``"reuters"`` (ModApte) or a path read by
    :func:`hbnlab.corpus.load_corpus` (a folder per class, a table, a ZIP, or ``"TRAIN,TEST"``:
    two table files, :func:`corpus_paths`) with ``encoding`` (``"auto"``: detected file by file,
    or a codec name) and ``table``, the table reader's column options (``text_column``,
    ``labels_column``, ``id_column``, ``split_column``, ``title_column``, ``label_sep``; a table's
    ``split`` and ``id`` columns are read when present).  ``strip``: newsgroup parts to remove
    from the texts (:func:`hbnlab.text.newsgroup.newsgroup_parts`: names or ``"all"``; default
    none).  Kept in the store (:mod:`hbnlab.pipeline.store`); ``log`` receives its messages."""
    table = {k: v for k, v in (table or {}).items() if v is not None}
    if name in ("synthetic", SYNTHETIC_HIERARCHY, "reuters") and table:
        raise CorpusError(f"{name}: the table options {sorted(table)} apply to a table corpus, not to {name}")
    if name in ("synthetic", SYNTHETIC_HIERARCHY) and newsgroup_parts(strip):
        raise CorpusError(f"{name}: newsgroup stripping applies to read texts, not to a generated corpus")
    if name == "synthetic":
        return _synthetic(size, seed, log)
    if name == SYNTHETIC_HIERARCHY:
        return _synthetic(size, seed, log, model="hierarchy")
    if name == "reuters":
        return _stripped(_reuters(resolve_reuters_dir(reuters_dir, download=download), log=log), strip, name)
    paths = corpus_paths(name)
    what = {"reader": "path", "path": ",".join(str(p.resolve()) for p in paths), "encoding": encoding}
    if table:
        what["table"] = table
    target = [str(p) for p in paths] if len(paths) == 2 else str(paths[0])
    files = [f for p in paths for f in _files_under(p)]
    root = paths[0] if len(paths) == 1 and paths[0].is_dir() else None
    corpus = cached_corpus(what, files, lambda: load_corpus(target, encoding=encoding, **table), root=root, log=log)
    return _stripped(corpus, strip, name)


def corpus_from_spec(spec: dict, *, progress=None, log=None):
    """Load the corpus a workbench spec names.

    ``{"corpus": "synthetic", "seed": s, "size": n}`` -> :func:`hbnlab.corpus.make_synthetic_corpus`
    (with ``"model": "hierarchy"``: :func:`hbnlab.corpus.make_hierarchical_corpus`);
    ``{"corpus": "reuters", "reuters_dir": d}`` -> :func:`hbnlab.corpus.load_reuters21578` (never
    downloads: the Corpus page does that with a progress bar);
    ``{"corpus": "upload", "upload_path": p, "options": {...}}`` -> :func:`hbnlab.corpus.load_upload`
    of the stored upload's bytes and name (what the workbench's isolated check parsed: see
    :func:`keep_upload`).  Any spec but a synthetic one may add ``"strip": [parts]``, the newsgroup
    parts removed from the texts (:func:`hbnlab.text.newsgroup.strip_corpus`).  Reader errors are
    :class:`hbnlab.corpus.CorpusError` naming the file and line.

    ``reuters_dir`` and ``upload_path`` go through :func:`confine_corpus_path`; a column option
    the upload lacks is refused naming its parameter (``upload_text_column``, ...), without the
    columns the file has.  The parsed corpus is kept in the store (:mod:`hbnlab.pipeline.store`);
    ``log`` receives its messages.
    """
    kind = spec.get("corpus")
    strip = spec.get("strip")
    if kind == "synthetic" and strip:
        raise ValueError("corpus spec: 'strip' applies to read texts, not to a synthetic corpus")
    if kind == "synthetic":
        model = spec.get("model", "groups")
        if model not in ("groups", "hierarchy"):
            raise ValueError(f"corpus spec: 'model' must be 'groups' or 'hierarchy', got {model!r}")
        return _synthetic(spec.get("size", 3000), spec.get("seed", 0), log, model=model)
    if kind == "reuters":
        given = str(spec.get("reuters_dir", "") or "")
        where = confine_corpus_path(given, parameter="reuters_dir", kind="reuters") if given.strip() else None
        return _stripped(_reuters(resolve_reuters_dir(where), progress=progress, log=log), strip, kind)
    if kind == "upload":
        path = confine_corpus_path(spec.get("upload_path", ""), parameter="upload_path", kind="upload")
        if not path.is_file():
            raise CorpusError(f"{path}: the stored upload is missing; upload the file again")
        options = dict(spec.get("options") or {})

        def read():
            try:
                with nullcontext() if progress is None else reporting(as_fractions(progress, f"Reading {path.name}: ")):
                    return load_upload(path.read_bytes(), path.name, **options)
            except MissingColumnError as exc:
                raise CorpusError(f"upload_{exc.role}={exc.column!r}: the stored upload has no such column") from None

        corpus = cached_corpus(_upload_reader(path, options), [path], read, log=log)
        return _stripped(corpus, strip, path.name)
    raise ValueError(f"corpus spec: 'corpus' must be 'synthetic', 'reuters' or 'upload', got {kind!r}")


def _upload_reader(path: Path, options: dict) -> dict:
    return {"reader": "upload", "path": str(path), "options": dict(options)}


def keep_upload(path: Path, options: dict | None, corpus: Corpus, *, log=None) -> None:
    """Keep ``corpus``, parsed elsewhere from the bytes of the stored upload ``path`` as
    ``load_upload(bytes, path.name, **options)`` (an isolated check,
    :func:`hbnlab.corpus.isolated.parse_upload`), in the store as the upload spec's corpus: the
    next :func:`corpus_from_spec` of the upload reads it instead of parsing the file again."""
    cached_corpus(_upload_reader(Path(path), dict(options or {})), [Path(path)], lambda: corpus, log=log)


def is_reuters_modapte(name: str) -> bool:
    """Whether a ``Corpus.name`` is Reuters-21578 ModApte (the thesis's values apply)."""
    return name == REUTERS_NAME
