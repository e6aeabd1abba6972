"""The corpus and the indexed experiment the pages show, cached: the loaders (with the first parse's
progress), an upload's check and store, the Corpus page's overview and search, and what the Features
and Structure pages compute from the indexed data.

Caching (Streamlit's guidance: ``st.cache_data`` for data, ``st.cache_resource`` for shared
objects): the corpus and the indexed experiment data are immutable once built (a frozen
:class:`~hbnlab.corpus.Corpus`; :class:`~hbnlab.pipeline.data.ProtocolData` is never mutated by the
app) and large: on Reuters, ``st.cache_data``'s pickle round trip costs ~0.35 s (corpus) + ~0.6 s
(index) on *every* rerun, which would break the Structure page's "well under a second" redraw.  They
are therefore shared with ``st.cache_resource`` (read-only objects are thread-safe); everything
derived from them (term tables, trees) is small and goes through ``st.cache_data``.  Behind both, the
store in the data home (:mod:`hbnlab.pipeline.store`) keeps the parsed corpus and the indexed data for
every process, so an app restart or a worker reads them instead of parsing again.

Nothing here runs EM: training and tuning are background jobs (:mod:`hbnlab.app.job_client`).
"""
from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

import pandas as pd
import streamlit as st

from hbnlab.app import views
from hbnlab.app.uploads import safe_file_name
from hbnlab.pipeline import corpus_spec as CS
from hbnlab.pipeline import tasks as T
from hbnlab.pipeline.config import ExperimentConfig

UPLOAD_TYPES = ("csv", "tsv", "tab", "jsonl", "ndjson", "parquet", "pq", "zip")


# --------------------------------------------------------------------------- data home
def data_home() -> Path:
    """``$HBNLAB_DATA_HOME``, else ``~/.cache/hbnlab``."""
    return CS.data_home()


# --------------------------------------------------------------------------- corpus
_PRIMED: dict = {}
_SEEN: set = set()
_PRIME_LOCK = threading.Lock()


@st.cache_resource(show_spinner=False, max_entries=6)
def _corpus(spec_json: str):
    primed = _PRIMED.pop(spec_json, None)
    return primed if primed is not None else CS.corpus_from_spec(json.loads(spec_json))


def load_corpus(cfg: ExperimentConfig, progress=None):
    """The config's corpus (cached and shared; see the module docstring).  Raises CorpusError.

    ``progress(fraction, message)`` is called while a corpus is parsed for the first time in
    this process (cached functions cannot drive a progress bar created outside them, so the
    first load runs here and is handed to the cache).
    """
    spec_json = json.dumps(cfg.corpus_spec(), sort_keys=True)
    if progress is not None and spec_json not in _SEEN:
        with _PRIME_LOCK:
            if spec_json not in _SEEN and spec_json not in _PRIMED:
                _PRIMED[spec_json] = CS.corpus_from_spec(cfg.corpus_spec(), progress=progress)
    corpus = _corpus(spec_json)
    _SEEN.add(spec_json)
    return corpus


def fetch_reuters(progress) -> Path:
    """Download (or find) Reuters-21578 in the cache; verified by SHA-256."""
    from hbnlab.corpus import fetch_reuters21578

    return Path(fetch_reuters21578(progress=progress))


def store_upload(data: bytes, filename: str, options: dict | None = None, progress=None) -> Path:
    """Check an upload with the safe readers, then keep it under the data home.

    The file is parsed first (:func:`hbnlab.corpus.load_upload`, which never half-loads, with
    the reader ``options`` of the config's upload columns), so a bad file raises its CorpusError
    and nothing is stored.  The parse runs in a child process with a memory limit and a deadline
    (:func:`hbnlab.corpus.isolated.parse_upload`): a file that blows up takes down that child, not
    the server and every open tab.  The corpus the child hands back goes into the store as the
    stored upload's (:func:`hbnlab.pipeline.corpus_spec.keep_upload`): the upload is parsed once.
    Returns the stored path (the worker reads it from there).
    ``progress(fraction, message)`` hears how far the child's parse has come.
    """
    from hbnlab.corpus.isolated import parse_upload
    from hbnlab.corpus.progress import as_fractions
    from hbnlab.export.atomic import write_bytes_atomic

    safe = safe_file_name(filename, "upload")
    digest = hashlib.sha256(data).hexdigest()[:16]
    path = data_home() / "uploads" / digest / safe
    checked = (str(path), json.dumps(options or {}, sort_keys=True))
    if checked not in _CHECKED_UPLOADS or not path.is_file():
        # parsed under the stored name, as the spec's reader parses the stored file (one parse)
        corpus = parse_upload(data, safe, options,
                              progress=None if progress is None else as_fractions(progress, f"Checking {safe}: "))
        if not path.is_file():
            write_bytes_atomic(path, data)
        CS.keep_upload(path, options, corpus)
        _CHECKED_UPLOADS.add(checked)
    return path


_CHECKED_UPLOADS: set = set()


@st.cache_data(show_spinner=False, max_entries=8)
def corpus_overview(spec_json: str) -> dict:
    return views.corpus_overview(_corpus(spec_json))


def overview(cfg: ExperimentConfig) -> dict:
    """Counts, class table, labels per document and lengths of the config's corpus."""
    return corpus_overview(json.dumps(cfg.corpus_spec(), sort_keys=True))


def search_documents(cfg: ExperimentConfig, query: str = "", split: str = "all", limit: int = 200) -> pd.DataFrame:
    return _search(json.dumps(cfg.corpus_spec(), sort_keys=True), query, split, limit)


@st.cache_data(show_spinner=False, max_entries=32)
def _search(spec_json: str, query: str, split: str, limit: int) -> pd.DataFrame:
    return views.search_documents(_corpus(spec_json), query, split=split, limit=limit)


@st.cache_resource(show_spinner=False, max_entries=6)
def _doc_index(spec_json: str) -> dict:
    return {d.id: k for k, d in enumerate(_corpus(spec_json).documents)}


def document(cfg: ExperimentConfig, doc_id: str):
    """The document with this id (KeyError naming it otherwise)."""
    spec_json = json.dumps(cfg.corpus_spec(), sort_keys=True)
    corpus = load_corpus(cfg)
    k = _doc_index(spec_json).get(doc_id)
    if k is None:
        raise KeyError(f"document id {doc_id!r} is not in corpus {corpus.name!r}")
    return corpus.documents[k]


# --------------------------------------------------------------------------- experiment data
#: The config fields that decide the indexed data (the cache key of :func:`experiment`).
_DATA_FIELDS = ("corpus", "synthetic_seed", "synthetic_size", "synthetic_model", "reuters_dir", "upload_path",
                "upload_text_column",
                "upload_labels_column", "upload_split_column", "upload_id_column", "upload_title_column",
                "upload_encoding", "upload_newsgroup_strip",
                "stopwords", "stemming", "min_df", "selection", "categories", "n_categories", "validation", "cv",
                "random_state")


def _experiment_key(cfg: ExperimentConfig) -> str:
    return json.dumps({k: v for k, v in cfg.to_dict().items() if k in _DATA_FIELDS}, sort_keys=True)


@st.cache_resource(show_spinner=False, max_entries=4)
def _experiment(key: str):
    cfg = ExperimentConfig.from_dict(json.loads(key))
    return T.prepare_experiment(cfg, corpus=_corpus(json.dumps(cfg.corpus_spec(), sort_keys=True)))


def experiment(cfg: ExperimentConfig):
    """Indexed corpus + term scores for the config (cached and shared)."""
    return _experiment(_experiment_key(cfg))


def term_index(cfg: ExperimentConfig):
    """The corpus's term index with the config's indexing, whatever its classes
    (:func:`hbnlab.pipeline.store.term_index`: computed once per corpus and indexing, which
    :func:`experiment` then reuses for any choice of classes)."""
    from hbnlab.pipeline.store import term_index as index_of
    from hbnlab.text import IndexingConfig

    return index_of(load_corpus(cfg), IndexingConfig(**cfg.indexing_dict()))


@st.cache_data(show_spinner=False, max_entries=64)
def _feature_table(key: str, label: str, n_features: int, scope: str) -> pd.DataFrame:
    return views.feature_table(_experiment(key), label, n_features, scope)


def feature_score_format(scores) -> str:
    """The printf format of the Features table's score column (:func:`views.features.score_format`)."""
    return views.score_format(scores)


def feature_table(cfg: ExperimentConfig, label: str) -> pd.DataFrame:
    """The selected terms of ``label`` with their scores and document frequencies."""
    return _feature_table(_experiment_key(cfg), label, cfg.n_features, cfg.scope)


@st.cache_data(show_spinner=False, max_entries=32)
def _feature_overview(key: str, n_features: int, scope: str) -> pd.DataFrame:
    return views.selected_terms_overview(_experiment(key), n_features, scope)


def feature_overview(cfg: ExperimentConfig) -> pd.DataFrame:
    """One column per class: its selected terms, best first."""
    return _feature_overview(_experiment_key(cfg), cfg.n_features, cfg.scope)


@st.cache_data(show_spinner=False, max_entries=256)
def _structure(key: str, label: str, algorithm: str, B: int, alpha: float, n_features: int, scope: str,
               tree_terms: int, children_select: str) -> dict:
    model = T.build_structure(_experiment(key), label, algorithm, B, alpha, n_features, scope, tree_terms,
                              children_select)
    tree = model.tree
    return {"dot": views.model_dot(tree, model.children, model.children_rule), "text": tree.to_text(),
            "tree": tree.to_dict(), "summary": views.model_summary(tree, model.children, model.children_rule)}


def structure(cfg: ExperimentConfig, label: str, algorithm: str | None = None) -> dict:
    """The network (structure only, no EM) a tree learner fits for ``label`` with the config's
    algorithm, B, alpha, terms in the tree and naive-Bayes children rule: ``{"dot", "text", "tree",
    "summary"}`` (:func:`hbnlab.pipeline.tasks.build_structure`)."""
    algorithm = algorithm or cfg.algorithm
    B, alpha = cfg.structure_params(algorithm)
    return _structure(_experiment_key(cfg), label, algorithm, B, alpha, cfg.n_features, cfg.scope, cfg.tree_terms,
                      cfg.children_select)


def tree_dot(dot: str, left_to_right: bool) -> str:
    """DOT source laid out left to right (legible for wide trees) or top-down."""
    return views.dot_layout(dot, "LR" if left_to_right else "TB")


# --------------------------------------------------------------------------- Reuters
def reuters_available() -> bool:
    """Whether Reuters-21578 can be read without a download ($HBNLAB_REUTERS_DIR or the cache)."""
    from hbnlab.corpus import CorpusError

    try:
        return (CS.resolve_reuters_dir(None, download=False) / "reut2-000.sgm").is_file()
    except (CorpusError, OSError):
        return False
