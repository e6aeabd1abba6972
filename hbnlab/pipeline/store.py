"""The parsed and indexed corpora, kept once in the data home for every process.

Parsing Reuters-21578 and indexing it the thesis's way takes about a second; the workbench's
page process, every worker process and every command-line run would otherwise each pay it.
This store keeps both results on disk, shared by all of them::

    <data home>/prepared/corpus-<key>/     a parsed corpus: entry.json + corpus.json
    <data home>/prepared/index-<key>/      a corpus's term index: entry.json + index.json + arrays.npz
    <data home>/prepared/data-<key>/       the rest of a ProtocolData: entry.json + data.json + arrays.npz

* **corpus entries** (:func:`cached_corpus`) are keyed by the *content* of the source files
  (SHA-256 of every byte, ~0.04 s for Reuters' 27 MB against ~0.5 s of parsing) plus the reader
  and its options.  Content rather than size and modification time: a file rewritten within the
  file system's timestamp granularity, or copied with its times kept (``cp -p``, ``tar x``), has
  the same stamp and other bytes, and a stale corpus must never be served.
* **index entries** (:func:`term_index`) are keyed by the corpus fingerprint and the indexing:
  the vocabulary and the term matrices, which do not depend on the categories, so a change of
  classes (or of selection, validation, seed) re-scores terms instead of tokenising again;
* **data entries** (:func:`prepare_cached`: term scores, folds, info) are keyed by the corpus fingerprint
  (:meth:`hbnlab.corpus.Corpus.fingerprint`: ids, splits, labels and texts), a digest of the
  documents' dates (the date split reads them) and every setting of
  :func:`hbnlab.pipeline.data.prepare` (categories, indexing, selection, validation, seed).
* every key also holds :data:`FORMAT_VERSION`, a digest of the source code that produces the
  data (the corpus readers, the indexing, the term scores, the splits) and the numpy / scipy
  versions, so a changed reader or tokenizer never meets an entry written by the old one.

Arrays are ``.npz`` read with ``allow_pickle=False``; everything else is JSON.  Nothing is ever
unpickled.

Writing: an entry is built in a temporary folder beside it and renamed into place, so a reader
sees a complete entry or none.  Two processes building the same entry both succeed: the first
rename wins, the second finds the folder taken and drops its copy.  A write that fails (a full
disk, a read-only data home) removes the partial folder, says so once and returns the data built
in memory: the job goes on.

Reading: ``entry.json`` lists every other file with its size and SHA-256; an entry whose files
are missing, truncated, altered, of another format or another key, or whose arrays do not fit
together, is reported once as damaged, removed and rebuilt -- never trusted.

The store keeps at most ``$HBNLAB_CACHE_MAX_MB`` megabytes (default 2048; Reuters-21578 takes
9 MB parsed and 8 MB per indexing): after a write, the least recently read or written entries are
removed until it fits.  ``$HBNLAB_NO_CACHE=1`` (the command line's ``--no-cache``) turns it off.
"""
from __future__ import annotations

import errno
import hashlib
import inspect
import io
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

import numpy as np
import scipy
import scipy.sparse as sp

from hbnlab.corpus import Corpus, default_data_home
from hbnlab.pipeline.data import ProtocolData, prepare, training_topics
from hbnlab.text import IndexedCorpus, IndexingConfig
from hbnlab.text.indexing import TermIndexer, index_corpus

__all__ = ["FORMAT_VERSION", "NO_CACHE_ENV", "MAX_MB_ENV", "max_bytes", "cache_enabled", "cache_root", "cached_corpus",
           "prepare_cached", "term_index",
           "list_entries", "clear_entries", "source_digest"]

#: Changes whenever the layout of an entry changes; part of every key.
FORMAT_VERSION = 2
#: Environment variable: ``1`` turns the store off (every process parses and indexes for itself).
NO_CACHE_ENV = "HBNLAB_NO_CACHE"
#: The store's folder inside the data home.
CACHE_DIR = "prepared"
#: Environment variable: the store's size limit in megabytes (least recently used entries go first).
MAX_MB_ENV = "HBNLAB_CACHE_MAX_MB"
DEFAULT_MAX_MB = 2048
#: Temporary folders older than this (seconds) are left over by a killed process and removed.
STALE_TMP_SECONDS = 3600

_ENTRY = "entry.json"
_LOG = logging.getLogger("hbnlab.cache")
#: The code whose output the entries hold (relative to the hbnlab package).
_CODE = ("corpus", "text", "features", "data", "pipeline/data.py", "pipeline/store.py")


class DamagedEntry(Exception):
    """An entry that cannot be trusted; the message says what is wrong."""


def cache_enabled() -> bool:
    """False when ``$HBNLAB_NO_CACHE`` is ``1`` / ``true`` / ``yes``."""
    return os.environ.get(NO_CACHE_ENV, "").strip().lower() not in ("1", "true", "yes")


def cache_root() -> Path:
    """``<data home>/prepared`` (:func:`hbnlab.corpus.default_data_home`), not created."""
    return default_data_home() / CACHE_DIR


def _say(log, level: int, message: str) -> None:
    if log is not None:
        log(message)
    else:
        _LOG.log(level, message)


# --------------------------------------------------------------------------- keys
@lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 of the source files that produce an entry's contents, with the numpy and scipy
    versions: a changed reader, tokenizer or score gives new keys."""
    pkg = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(f"numpy {np.__version__} scipy {scipy.__version__}".encode())
    for part in _CODE:
        p = pkg / part
        files = sorted(q for q in p.rglob("*") if q.is_file() and q.suffix in (".py", ".txt", ".sha256")) \
            if p.is_dir() else [p]
        for f in files:
            h.update(str(f.relative_to(pkg)).encode() + b"\0" + hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def source_digest(paths: Iterable[Path], root: Path | None = None) -> str:
    """SHA-256 over the names (relative to ``root`` when given) and contents of ``paths``."""
    h = hashlib.sha256()
    for p in sorted(Path(x) for x in paths):
        name = str(p.relative_to(root)) if root is not None else str(p)
        h.update(name.encode("utf-8", "surrogateescape") + b"\0")
        with open(p, "rb") as f:
            h.update(hashlib.file_digest(f, "sha256").digest())
    return h.hexdigest()


def _key(kind: str, what: dict) -> str:
    text = json.dumps({"format": FORMAT_VERSION, "kind": kind, "code": code_digest(), **what}, sort_keys=True,
                      default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _entry_path(kind: str, key: str) -> Path:
    return cache_root() / f"{kind}-{key[:32]}"


# --------------------------------------------------------------------------- entries on disk
def _publish(path: Path, key: str, kind: str, files: dict[str, bytes], summary: dict, log) -> bool:
    """Write ``files`` and their ``entry.json`` into a temporary folder, then rename it to
    ``path``.  False (and nothing left behind) when the write fails or another process was first."""
    root = path.parent
    tmp = None
    try:
        root.mkdir(parents=True, exist_ok=True)
        _remove_stale_tmp(root)
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=root))
        listing = {}
        for name, data in files.items():
            with open(tmp / name, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            listing[name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        entry = {"format": FORMAT_VERSION, "kind": kind, "key": key, "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
                 "files": listing, "summary": summary}
        with open(tmp / _ENTRY, "w", encoding="utf-8") as f:
            json.dump(entry, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o755)
        os.rename(tmp, path)
        tmp = None
        return True
    except (OSError, TypeError, ValueError) as exc:
        if getattr(exc, "errno", None) in (errno.ENOTEMPTY, errno.EEXIST) and (path / _ENTRY).is_file():
            return False                                        # another process published it first
        _say(log, logging.WARNING, f"cache: could not write {path} ({getattr(exc, 'strerror', None) or exc}); "
                                   "going on without it")
        return False
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _remove_stale_tmp(root: Path) -> None:
    now = time.time()
    for p in root.glob(".*.tmp"):
        try:
            if now - p.stat().st_mtime > STALE_TMP_SECONDS:
                shutil.rmtree(p, ignore_errors=True)
        except OSError:
            pass


def _read_files(path: Path, key: str, kind: str) -> tuple[dict, dict[str, bytes]]:
    """``(entry, {name: bytes})`` of a complete entry; FileNotFoundError when there is none,
    :class:`DamagedEntry` when it cannot be trusted."""
    try:
        raw = (path / _ENTRY).read_bytes()
    except FileNotFoundError:
        if path.exists():
            raise DamagedEntry(f"{_ENTRY} is missing") from None
        raise
    try:
        entry = json.loads(raw)
    except ValueError:
        raise DamagedEntry(f"{_ENTRY} is not JSON") from None
    if not isinstance(entry, dict):
        raise DamagedEntry(f"{_ENTRY} is not a JSON object")
    if entry.get("format") != FORMAT_VERSION or entry.get("kind") != kind:
        raise DamagedEntry(f"format {entry.get('format')!r} / kind {entry.get('kind')!r}, expected {FORMAT_VERSION} / "
                           f"{kind}")
    if entry.get("key") != key:
        raise DamagedEntry("it was written for another key")
    listing = entry.get("files")
    if not isinstance(listing, dict) or not listing:
        raise DamagedEntry(f"{_ENTRY} lists no files")
    out = {}
    for name, want in listing.items():
        if "/" in name or name.startswith("."):
            raise DamagedEntry(f"{_ENTRY} names the file {name!r}")
        try:
            data = (path / name).read_bytes()
        except FileNotFoundError:
            raise DamagedEntry(f"{name} is missing") from None
        if len(data) != want.get("bytes"):
            raise DamagedEntry(f"{name} has {len(data)} bytes, expected {want.get('bytes')}")
        if hashlib.sha256(data).hexdigest() != want.get("sha256"):
            raise DamagedEntry(f"{name} does not match its SHA-256")
        out[name] = data
    return entry, out


def max_bytes() -> int:
    """The store's size limit: ``$HBNLAB_CACHE_MAX_MB`` megabytes (default 2048)."""
    try:
        return int(float(os.environ.get(MAX_MB_ENV, "") or DEFAULT_MAX_MB) * 2**20)
    except ValueError:
        return DEFAULT_MAX_MB * 2**20


def _touch(path: Path) -> None:
    """Mark an entry as used now (its ``entry.json``'s modification time orders the eviction)."""
    try:
        os.utime(path / _ENTRY)
    except OSError:
        pass


def _evict(root: Path, *, keep: Path, log) -> None:
    """Remove the least recently used entries until the store fits in :func:`max_bytes`."""
    limit = max_bytes()
    rows = []
    for row in list_entries():
        p = root / row["name"]
        try:
            used = (p / _ENTRY).stat().st_mtime
        except OSError:
            used = 0.0
        rows.append((used, row["bytes"], p))
    total = sum(r[1] for r in rows)
    for _, size, p in sorted(rows, key=lambda r: r[0]):
        if total <= limit:
            break
        if p == keep or p.name.startswith("."):
            continue
        _discard(p)
        total -= size
        _say(log, logging.INFO, f"cache: removed {p.name} (least recently used; the store keeps "
                                f"{limit // 2**20} MB, ${MAX_MB_ENV})")


def _discard(path: Path) -> None:
    """Remove an entry: renamed aside first, so that no reader meets it half-deleted."""
    aside = path.parent / f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp"
    try:
        os.rename(path, aside)
    except OSError:
        return                                                  # already gone (another process)
    shutil.rmtree(aside, ignore_errors=True)


def _cached(kind: str, key: str, describe: str, read: Callable[[dict, dict], object],
            build: Callable[[], tuple[object, dict[str, bytes], dict]], log):
    """The object of entry ``kind``/``key``: read from the store, else built, stored and returned
    (``build`` returns the object, a function that gives the entry's files -- none: not storable --
    and the entry's summary)."""
    path = _entry_path(kind, key)
    t0 = time.perf_counter()
    try:
        entry, files = _read_files(path, key, kind)
        obj = read(entry, files)
    except FileNotFoundError:
        pass
    except Exception as exc:  # noqa: BLE001 - whatever an entry holds, it is rebuilt rather than trusted
        _say(log, logging.WARNING, f"cache: {describe} at {path} is damaged ({exc}); rebuilding it")
        _discard(path)
    else:
        _touch(path)
        _say(log, logging.INFO, f"cache: {describe} read from {path} in {time.perf_counter() - t0:.2f}s")
        return obj
    obj, serialise, summary = build()
    try:
        files = serialise()
    except (TypeError, ValueError) as exc:                      # not plain JSON: kept in memory only
        _say(log, logging.WARNING, f"cache: {describe} cannot be stored ({exc}); going on without it")
        files = {}
    if files and _publish(path, key, kind, files, summary, log):
        _say(log, logging.INFO, f"cache: {describe} built in {time.perf_counter() - t0:.2f}s, stored in {path}")
        _evict(path.parent, keep=path, log=log)
    return obj


# --------------------------------------------------------------------------- corpora
def cached_corpus(what: dict, sources: Iterable[Path], build: Callable[[], Corpus], *, root: Path | None = None,
                  progress=None, log=None) -> Corpus:
    """The corpus ``build()`` returns, kept in the store.

    Parameters
    ----------
    what : dict
        JSON-able description of the reader and its options (the part of the key besides the
        files' contents): e.g. ``{"reader": "reuters", "path": ..., "verify": ...}``.
    sources : iterable of Path
        Every file the reader reads; their contents are part of the key.
    build : callable
        Parses the corpus (called when the store has no valid entry, or is turned off).
    root : Path, optional
        Source names in the key are taken relative to it.
    progress : callable(fraction, message), optional
        Told ``(1.0, ...)`` when the corpus comes from the store (``build`` drives it otherwise).
    log : callable(str), optional
        Receives the store's messages (default: the ``hbnlab.cache`` logger).
    """
    if not cache_enabled():
        return build()
    key = _key("corpus", {**what, "sources": source_digest(sources, root)})

    def read(entry, files):
        corpus = Corpus.from_json_bytes(files["corpus.json"])
        if entry["summary"].get("n_documents") != len(corpus):
            raise DamagedEntry(f"{len(corpus)} documents, the entry says {entry['summary'].get('n_documents')}")
        if progress is not None:
            progress(1.0, "read from the cache")
        return corpus

    def make():
        corpus = build()
        files = (lambda: {"corpus.json": corpus.to_json_bytes()}) if corpus.json_safe() else dict
        return corpus, files, {"corpus": corpus.name, "n_documents": len(corpus), "what": what}

    return _cached("corpus", key, f"corpus {what.get('reader', '')} {what.get('path', '')}".rstrip(), read, make,
                   log)


# --------------------------------------------------------------------------- prepared data
def _date_digest(corpus: Corpus) -> str:
    h = hashlib.sha256()
    for d in corpus.documents:
        h.update((d.date.isoformat() if d.date is not None else "-").encode() + b"\0")
    return h.hexdigest()


def _csr_arrays(prefix: str, X: sp.csr_matrix) -> dict:
    X = sp.csr_matrix(X)
    return {f"{prefix}_data": X.data, f"{prefix}_indices": X.indices, f"{prefix}_indptr": X.indptr,
            f"{prefix}_shape": np.asarray(X.shape, dtype=np.int64)}


def _csr_from(z, prefix: str, shape: tuple) -> sp.csr_matrix:
    got = tuple(int(v) for v in z[f"{prefix}_shape"])
    if got != shape:
        raise DamagedEntry(f"{prefix} has shape {got}, expected {shape}")
    X = sp.csr_matrix((z[f"{prefix}_data"], z[f"{prefix}_indices"], z[f"{prefix}_indptr"]), shape=shape)
    X.check_format(full_check=True)
    return X


def _index_files(ic: IndexedCorpus) -> dict[str, bytes]:
    arrays = {**_csr_arrays("X_train", ic.X_train), **_csr_arrays("X_test", ic.X_test),
              "document_frequency": np.asarray(ic.indexer.document_frequency_)}
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    meta = {"vocabulary": list(ic.vocabulary), "train_ids": [d.id for d in ic.train_docs],
            "test_ids": [d.id for d in ic.test_docs], "indexing": ic.config.to_dict(),
            "n_documents": int(ic.indexer.n_documents_)}
    return {"index.json": json.dumps(meta, ensure_ascii=False).encode("utf-8"), "arrays.npz": buf.getvalue()}


def _index_from_files(files: dict[str, bytes], corpus: Corpus) -> IndexedCorpus:
    m = json.loads(files["index.json"])
    by_id = {d.id: d for d in corpus.documents}
    try:
        train = tuple(by_id[i] for i in m["train_ids"])
        test = tuple(by_id[i] for i in m["test_ids"])
    except KeyError as exc:
        raise DamagedEntry(f"document {exc.args[0]!r} is not in the corpus") from None
    vocab = tuple(m["vocabulary"])
    cfg = IndexingConfig.from_dict(m["indexing"])
    with np.load(io.BytesIO(files["arrays.npz"]), allow_pickle=False) as z:
        X_train = _csr_from(z, "X_train", (len(train), len(vocab)))
        X_test = _csr_from(z, "X_test", (len(test), len(vocab)))
        df = z["document_frequency"]
    if df.shape != (len(vocab),):
        raise DamagedEntry(f"document_frequency has shape {df.shape}, expected {(len(vocab),)}")
    indexer = TermIndexer.from_vocabulary(cfg, vocab)
    indexer.document_frequency_ = df
    indexer.n_documents_ = int(m["n_documents"])
    no_labels = np.zeros((0, 0), dtype=bool)
    return IndexedCorpus(cfg, indexer, vocab, (), train, test, X_train, X_test, no_labels, no_labels)


#: Term indexes this process keeps (key -> IndexedCorpus without categories), newest last.
INDEX_MEMORY_SIZE = 2
_INDEXES: OrderedDict = OrderedDict()
_INDEXES_LOCK = threading.Lock()


def term_index(corpus: Corpus, indexing: IndexingConfig | None = None, *, log=None) -> IndexedCorpus:
    """``index_corpus(corpus, indexing)`` with no categories, computed once per corpus and indexing:
    kept in this process (:data:`INDEX_MEMORY_SIZE` of them) and in the store (entries
    ``index-<key>``, keyed by the corpus fingerprint and the indexing).  Tokenising and counting
    are most of the cost of :func:`~hbnlab.pipeline.data.prepare`, and none of it depends on the
    categories: another choice of classes, or of selection or validation, reuses the index
    (:meth:`~hbnlab.text.IndexedCorpus.for_categories`)."""
    cfg = indexing or IndexingConfig()
    key = _key("index", {"fingerprint": corpus.fingerprint(), "indexing": cfg.to_dict()})
    with _INDEXES_LOCK:
        known = _INDEXES.get(key)
        if known is not None:
            _INDEXES.move_to_end(key)
    if known is not None:
        if cache_enabled():
            _touch(_entry_path("index", key))                  # in use: the last entry to evict
        return known

    def make():
        ic = index_corpus(corpus, cfg, categories=())
        return ic, lambda: _index_files(ic), {"corpus": corpus.name, "n_terms": ic.n_terms,
                                              "indexing": cfg.to_dict()}

    if cache_enabled():
        ic = _cached("index", key, f"index of {corpus.name}", lambda entry, files: _index_from_files(files, corpus),
                     make, log)
    else:
        ic = make()[0]
    with _INDEXES_LOCK:
        _INDEXES[key] = ic
        while len(_INDEXES) > INDEX_MEMORY_SIZE:
            _INDEXES.popitem(last=False)
    return ic


def _data_files(data: ProtocolData) -> dict[str, bytes]:
    buf = io.BytesIO()
    np.savez(buf, scores=np.asarray(data.scores), folds=np.asarray(data.folds))
    meta = {"categories": list(data.indexed.categories), "selection": data.selection,
            "corpus_name": data.corpus_name, "synthetic": bool(data.synthetic), "fingerprint": data.fingerprint,
            "info": data.info}
    return {"data.json": json.dumps(meta, ensure_ascii=False).encode("utf-8"), "arrays.npz": buf.getvalue()}


def _data_from_files(files: dict[str, bytes], corpus: Corpus, fingerprint: str, index: IndexedCorpus,
                     taxonomy=None) -> ProtocolData:
    m = json.loads(files["data.json"])
    if m["fingerprint"] != fingerprint:
        raise DamagedEntry("it was written for another corpus")
    ic = index.for_categories(corpus, tuple(m["categories"]))
    with np.load(io.BytesIO(files["arrays.npz"]), allow_pickle=False) as z:
        arrays = {k: z[k] for k in ("scores", "folds")}
    want = {"scores": (ic.n_terms, len(ic.categories)), "folds": (len(ic.train_docs),)}
    for k, shape in want.items():
        if arrays[k].shape != shape:
            raise DamagedEntry(f"{k} has shape {arrays[k].shape}, expected {shape}")
    # the topic membership is not stored: it follows from the documents' labels and the taxonomy
    topics = training_topics(corpus, ic.train_docs, taxonomy)[1]
    return ProtocolData(ic, arrays["scores"], arrays["folds"], m["selection"], m["corpus_name"], bool(m["synthetic"]),
                        m["fingerprint"], m["info"], topics)


_PREPARE_SIGNATURE = inspect.signature(prepare)


def prepare_cached(corpus: Corpus, *, log=None, progress=None, **prepare_kw) -> ProtocolData:
    """:func:`hbnlab.pipeline.data.prepare` of ``corpus`` with ``prepare_kw``, kept in the store
    under the corpus fingerprint and the settings (``progress`` is told ``(1.0, ...)`` on a hit).
    The term index comes from :func:`term_index`: a data entry holds what depends on the
    categories (scores, folds), its index entry the matrices."""
    index = term_index(corpus, prepare_kw.get("indexing"), log=log)
    if not cache_enabled():
        return prepare(corpus, progress=progress, index=index, **prepare_kw)
    fingerprint = corpus.fingerprint()
    bound = _PREPARE_SIGNATURE.bind(corpus, **prepare_kw)      # a default given or left out: one key
    bound.apply_defaults()
    settings = {k: v for k, v in bound.arguments.items() if k not in ("corpus", "progress", "index")}
    settings["indexing"] = (settings["indexing"] or IndexingConfig()).to_dict()
    if settings.get("categories") is not None:
        settings["categories"] = list(settings["categories"])
    if settings.get("taxonomy") is not None:
        settings["taxonomy"] = dict(sorted(settings["taxonomy"].parents.items()))
    key = _key("data", {"fingerprint": fingerprint, "dates": _date_digest(corpus), "name": corpus.name,
                        "synthetic": bool(corpus.synthetic), "settings": settings})

    def read(entry, files):
        data = _data_from_files(files, corpus, fingerprint, index, prepare_kw.get("taxonomy"))
        if progress is not None:
            progress(1.0, "read from the cache")
        return data

    def make():
        data = prepare(corpus, progress=progress, index=index, **prepare_kw)
        return data, lambda: _data_files(data), {"corpus": corpus.name, "n_terms": data.indexed.n_terms,
                                                 "categories": data.categories[:20], "settings": settings}

    return _cached("data", key, f"indexed {corpus.name}", read, make, log)


# --------------------------------------------------------------------------- list / clear
def list_entries() -> list[dict]:
    """Every entry of the store: ``{"name", "kind", "bytes", "created", "summary", "status"}``
    (status ``"ok"``, or what is wrong; an entry of another format version is ``"old format"``)."""
    root = cache_root()
    out = []
    if not root.is_dir():
        return out
    for p in sorted(root.iterdir()):
        if not p.is_dir():
            continue
        size = sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
        row = {"name": p.name, "kind": "?", "bytes": size, "created": "", "summary": {}, "status": "ok"}
        if p.name.startswith("."):
            row.update(kind="temporary", status="being written, or left by a killed process")
            out.append(row)
            continue
        try:
            entry = json.loads((p / _ENTRY).read_text("utf-8"))
            summary = entry.get("summary")
            row.update(kind=str(entry.get("kind", "?")), created=str(entry.get("created", "")),
                       summary=summary if isinstance(summary, dict) else {})
            if entry.get("format") != FORMAT_VERSION:
                row["status"] = f"old format {entry.get('format')}"
        except (OSError, ValueError, AttributeError):
            row["status"] = f"damaged ({_ENTRY} unreadable)"
        out.append(row)
    return out


def clear_entries() -> tuple[int, int]:
    """Remove every entry (and leftover temporary folder); ``(entries removed, bytes freed)``."""
    n = freed = 0
    for row in list_entries():
        _discard(cache_root() / row["name"])
        n += 1
        freed += row["bytes"]
    return n, freed
