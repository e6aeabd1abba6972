"""The workbench's pipeline and the background tasks it submits ("train", "tune").

Everything here is plain Python on plain data (no Streamlit): the workbench's services call the
pipeline functions in the script process (cached), and worker processes run the tasks with the
same functions, so a model trained in the background sees exactly the data the pages show.

The experiment settings travel as the JSON dict of :class:`hbnlab.app.config.ExperimentConfig`
(``config.to_dict()``): the core cannot import the app package (imports flow pages -> app ->
core), so this module reads the dict's fields directly.

Pipeline (thesis ch. 4 protocol, applied to any corpus):

1. :func:`corpus_from_spec` -- the synthetic generator, Reuters-21578 ModApte or a stored upload;
2. :func:`prepare_experiment` -- index the training documents (:func:`hbnlab.text.index_corpus`),
   score every term for every category on the *whole* training set (thesis sec. 4.1.2, last
   sentence: the validation experiments use the same selection), and the training-0 /
   validation split by time (:func:`hbnlab.corpus.train0_validation_split`);
3. :func:`selected_columns` -- the ``n_features`` best terms of a category (local) or of all
   categories (global);
4. :func:`fit_unit` -- one binary classifier for one category
   (:func:`hbnlab.experiments.thesis.make_classifier`), with EM progress and cancellation.

Tasks (registered with :func:`hbnlab.jobs.register_task`):

* ``"train"`` -- categories x classifiers on the training set (or training-0), scored on the
  test set (or validation); stores each model, the score matrix and the EM traces as
  artifacts; resumable: finished units are checkpointed and skipped when the job is resumed.
* ``"tune"`` -- a B x alpha (x n_features) grid for one HBN/HNB learner on the training-0 /
  validation split; each cell's validation micro and macro breakeven.

Model files are hbnlab model files (:mod:`hbnlab.export.model_io`: JSON + plain arrays, never
pickle), written and read only through :func:`_store_model` / :func:`_load_model`.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hbnlab.jobs.tasks import register_task

HBN_ROWS = ("HBN-AVG", "HBN-OR", "HBN-DEP", "HNB-AVG", "HNB-OR", "HNB-DEP")
#: EM iterations assumed when the callback does not say ``max_iter`` (progress fraction only).
_EXPECTED_EM_ITERATIONS = 100


class CancelledByUser(Exception):
    """Raised inside :func:`fit_unit` when the job's ``should_stop`` fired."""


# --------------------------------------------------------------------------- data home
def data_home() -> Path:
    """``$HBNLAB_DATA_HOME`` or ``./.hbnlab`` (created on demand)."""
    p = Path(os.environ.get("HBNLAB_DATA_HOME") or ".hbnlab").expanduser()
    p.mkdir(parents=True, exist_ok=True)
    return p.resolve()


# --------------------------------------------------------------------------- corpus
def resolve_reuters_dir(reuters_dir: str = "") -> Path:
    """The Reuters directory of a corpus spec: the given one, ``$HBNLAB_REUTERS_DIR`` or the
    verified download cache (never downloads: the Corpus page does that with a progress bar)."""
    from hbnlab.corpus import CorpusError

    value = reuters_dir or os.environ.get("HBNLAB_REUTERS_DIR", "")
    if value:
        return Path(value)
    try:
        from hbnlab.corpus import fetch_reuters21578
    except ImportError:  # pragma: no cover - the corpus package is always there in releases
        raise CorpusError("no Reuters directory given and $HBNLAB_REUTERS_DIR is not set") from None
    return Path(fetch_reuters21578(download_if_missing=False))


def corpus_from_spec(spec: dict, *, progress=None):
    """Load the corpus a config's ``corpus_spec()`` names.

    ``{"corpus": "synthetic", "seed": s, "size": n}`` -> :func:`hbnlab.corpus.make_synthetic_corpus`;
    ``{"corpus": "reuters", "reuters_dir": d}`` -> :func:`hbnlab.corpus.load_reuters21578`;
    ``{"corpus": "upload", "upload_path": p}`` -> :func:`hbnlab.corpus.load_corpus` on the stored upload.
    Reader errors are :class:`hbnlab.corpus.CorpusError` naming the file and line.
    """
    kind = spec.get("corpus")
    if kind == "synthetic":
        from hbnlab.corpus import make_synthetic_corpus

        return make_synthetic_corpus(n_documents=int(spec.get("size", 3000)), random_state=int(spec.get("seed", 0)))
    if kind == "reuters":
        from hbnlab.corpus import load_reuters21578

        return load_reuters21578(resolve_reuters_dir(spec.get("reuters_dir", "")), progress=progress)
    if kind == "upload":
        from hbnlab.corpus import CorpusError, load_corpus

        path = Path(spec.get("upload_path", ""))
        if not path.is_file():
            raise CorpusError(f"{path}: the stored upload is missing; upload the file again")
        return load_corpus(str(path), **dict(spec.get("options") or {}))
    raise ValueError(f"corpus spec: 'corpus' must be 'synthetic', 'reuters' or 'upload', got {kind!r}")


def corpus_spec_of(config: dict) -> dict:
    """The corpus part of an experiment config dict (mirrors ``ExperimentConfig.corpus_spec``)."""
    kind = config.get("corpus", "synthetic")
    if kind == "synthetic":
        return {"corpus": kind, "seed": int(config.get("synthetic_seed", 0)),
                "size": int(config.get("synthetic_size", 3000))}
    if kind == "reuters":
        return {"corpus": kind, "reuters_dir": config.get("reuters_dir", "")}
    opts = {}
    if config.get("upload_text_column", "text") != "text":
        opts["text_column"] = config["upload_text_column"]
    if config.get("upload_labels_column", "labels") != "labels":
        opts["labels_column"] = config["upload_labels_column"]
    for key in ("split", "id", "title"):
        if config.get(f"upload_{key}_column"):
            opts[f"{key}_column"] = config[f"upload_{key}_column"]
    return {"corpus": kind, "upload_path": config.get("upload_path", ""), "options": opts}


def indexing_of(config: dict):
    """The :class:`hbnlab.text.IndexingConfig` of an experiment config dict."""
    from hbnlab.text import IndexingConfig

    stem = config.get("stemming", "none")
    return IndexingConfig(stopwords=config.get("stopwords", "thesis"),
                          stemming=None if stem in (None, "none") else stem,
                          min_df=int(config.get("min_df", 2)))


def resolve_categories(corpus, config: dict) -> list[str]:
    """The categories an experiment works on: the configured ones (each must have training and
    test documents) or the ``n_categories`` most frequent (thesis: the 10 most frequent)."""
    from hbnlab.corpus import CorpusError

    usable = corpus.categories(min_train=1, min_test=1)
    wanted = list(config.get("categories") or [])
    if not wanted:
        if not usable:
            raise CorpusError(f"corpus {corpus.name!r}: no category has both training and test documents")
        return usable[: int(config.get("n_categories", 10))]
    missing = [c for c in wanted if c not in usable]
    if missing:
        raise CorpusError(
            f"corpus {corpus.name!r}: categor{'y' if len(missing) == 1 else 'ies'} {missing} "
            f"ha{'s' if len(missing) == 1 else 've'} no training or no test documents; usable: {usable[:20]}"
        )
    return wanted


# --------------------------------------------------------------------------- indexed data
@dataclass
class ExperimentData:
    """An indexed corpus with per-category term scores and the training-0 mask.

    ``scores[t, j]`` is the selection score (``config['selection']``) of term ``t`` for
    category ``j`` on the whole training set; ``train0[i]`` says whether training row ``i`` is in
    training-0 (the rest is the validation split).
    """

    indexed: object  # hbnlab.text.IndexedCorpus
    scores: np.ndarray
    train0: np.ndarray
    selection: str
    corpus_name: str
    synthetic: bool
    fingerprint: str
    info: dict = field(default_factory=dict)

    @property
    def categories(self) -> list[str]:
        return list(self.indexed.categories)

    @property
    def vocabulary(self) -> tuple:
        return self.indexed.vocabulary

    def category_index(self, label: str) -> int:
        try:
            return self.categories.index(label)
        except ValueError:
            raise ValueError(f"class {label!r} is not one of the experiment's categories {self.categories}") from None

    def split(self, stage: str):
        """``(X_fit, Y_fit, X_eval, Y_eval, eval_docs)`` for ``"test"`` (training set -> test set)
        or ``"validation"`` (training-0 -> validation), thesis sec. 4.1.1."""
        ic = self.indexed
        if stage == "test":
            return ic.X_train, ic.Y_train, ic.X_test, ic.Y_test, list(ic.test_docs)
        if stage == "validation":
            m = self.train0
            docs = [d for d, keep in zip(ic.train_docs, ~m) if keep]
            return ic.X_train[m], ic.Y_train[m], ic.X_train[~m], ic.Y_train[~m], docs
        raise ValueError(f"stage must be 'test' or 'validation', got {stage!r}")


def prepare_experiment(config: dict, *, corpus=None, progress=None) -> ExperimentData:
    """Index the corpus of ``config`` and score its terms (see the module docstring)."""
    from hbnlab.corpus import train0_validation_split
    from hbnlab.features import score_terms
    from hbnlab.text import index_corpus

    if corpus is None:
        corpus = corpus_from_spec(corpus_spec_of(config))
    categories = resolve_categories(corpus, config)
    if progress:
        progress(0.2, "indexing")
    ic = index_corpus(corpus, indexing_of(config), categories=categories)
    if ic.X_train.shape[1] == 0:
        from hbnlab.corpus import CorpusError

        raise CorpusError(f"corpus {corpus.name!r}: no term passes the indexing (min_df={config.get('min_df', 2)})")
    if progress:
        progress(0.6, "scoring terms")
    selection = config.get("selection", "ig")
    scores = np.asarray(score_terms(ic.X_train, ic.Y_train, method=selection), dtype=np.float64)
    train0_docs, _ = train0_validation_split(corpus)
    ids0 = {d.id for d in train0_docs}
    train0 = np.fromiter((d.id in ids0 for d in ic.train_docs), dtype=bool, count=len(ic.train_docs))
    info = {"n_train": len(ic.train_docs), "n_test": len(ic.test_docs), "n_terms": ic.n_terms,
            "n_train0": int(train0.sum()), "n_validation": int((~train0).sum())}
    if progress:
        progress(1.0, "ready")
    return ExperimentData(ic, scores, train0, selection, corpus.name, bool(corpus.synthetic),
                          corpus.fingerprint(), info)


def selected_columns(data: ExperimentData, label: str, n_features: int, scope: str = "local") -> np.ndarray:
    """Column indices of the selected terms for ``label``, best first (ties by column index).

    ``scope="local"``: the ``n_features`` best terms for this category (thesis sec. 4.1.2);
    ``"global"``: one set for all categories (:func:`hbnlab.features.select_global`, max).
    """
    n = int(n_features)
    if scope == "global":
        from hbnlab.features import select_global

        return np.asarray(select_global(data.scores, n, aggregate="max"), dtype=np.int64)
    if scope != "local":
        raise ValueError(f"scope must be 'local' or 'global', got {scope!r}")
    s = data.scores[:, data.category_index(label)]
    return np.lexsort((np.arange(s.size), -s))[:n].astype(np.int64)


def is_reuters_modapte(name: str) -> bool:
    return name == "reuters21578-modapte"


# --------------------------------------------------------------------------- structure only
def build_structure(data: ExperimentData, label: str, algorithm: str, B: int, alpha: float,
                    n_features: int, scope: str = "local"):
    """The HBN/HNB tree of one class -- structure only, no EM (thesis figs 3.3-3.4).

    Returns the :class:`~hbnlab.bn.structure.TreeStructure` with term names on the leaves and
    ``"<label>TOPIC"`` at the root (the thesis's naming, figs 4.1-4.4).
    """
    from hbnlab.clustering import construct_tree

    name = algorithm.upper()
    if name not in HBN_ROWS:
        raise ValueError(f"algorithm must be one of {HBN_ROWS}, got {algorithm!r}")
    direction, clustering = name.split("-")[0].lower(), name.split("-")[1].lower()
    cols = selected_columns(data, label, n_features, scope)
    j = data.category_index(label)
    X = data.indexed.X_train[:, cols]
    y = data.indexed.Y_train[:, j].astype(np.int8)
    return construct_tree(X, y, B=int(B), clustering=clustering, alpha=float(alpha), direction=direction,
                          feature_names=[data.vocabulary[c] for c in cols], class_name=f"{label}TOPIC")


# --------------------------------------------------------------------------- model files (seam)
def _store_model(estimator, metadata: dict, *, indexing=None, vocabulary=None) -> bytes:
    """Serialise a fitted estimator with its metadata: an hbnlab model file
    (:func:`hbnlab.export.model_to_bytes`: a ZIP of JSON + plain arrays, never pickle), holding the
    indexing settings and the vocabulary so the file classifies raw text on its own.

    This and :func:`_load_model` are the only places the workbench reads or writes model files.
    """
    from hbnlab.export.model_io import model_to_bytes

    corpus = {k: metadata[k] for k in ("corpus", "fingerprint", "synthetic") if k in metadata}
    if "corpus" in corpus:
        corpus["name"] = corpus.pop("corpus")
    return model_to_bytes(estimator, indexing=indexing, vocabulary=vocabulary, corpus=corpus or None,
                          label=metadata.get("class"), provenance=metadata)


def _load_model(data: bytes):
    """Inverse of :func:`_store_model`: ``(estimator, metadata)``.  Safe on untrusted bytes
    (:func:`hbnlab.export.load_model` checks sizes, schema, arrays and tables)."""
    from hbnlab.export.model_io import load_model as _read

    loaded = _read(bytes(data), name="workbench model")
    return loaded.estimator, dict(loaded.provenance or {})


def store_model(estimator, metadata: dict, *, indexing=None, vocabulary=None) -> bytes:
    """Model-file bytes of a fitted estimator (see :func:`_store_model`)."""
    return _store_model(estimator, metadata, indexing=indexing, vocabulary=vocabulary)


def load_model(data: bytes):
    """``(estimator, metadata)`` of model-file bytes (see :func:`_load_model`)."""
    return _load_model(data)


# --------------------------------------------------------------------------- fitting one unit
def make_estimator(name: str, config: dict, *, n_features: int, feature_names=None, class_name="class",
                   progress=None, should_stop=None):
    """A fresh binary estimator for a learner row name with the config's settings."""
    from hbnlab.experiments.thesis import make_classifier, name_nodes

    key = name.upper()
    params: dict = {}
    if key in HBN_ROWS:
        c = key.split("-")[1].lower()
        params = {"B": int(config.get(f"B_{c}", 7)), "alpha": float(config.get(f"alpha_{c}", 0.05)),
                  "n_restarts": int(config.get("n_restarts", 64))}
        if progress is not None:
            params["progress"] = progress
        if should_stop is not None:
            params["should_stop"] = should_stop
    est = make_classifier(key, int(n_features), params, int(config.get("random_state", 0)))
    return name_nodes(est, feature_names, class_name)


def _detach_callbacks(est) -> None:
    """Drop the worker's callbacks from an estimator before it is stored or shipped."""
    names = est.get_params()
    detach = {k: None for k in ("progress", "should_stop") if k in names}
    if detach:
        est.set_params(**detach)


def fit_unit(data: ExperimentData, label: str, name: str, config: dict, *, stage: str = "test",
             progress=None, should_stop=None):
    """Fit one classifier for one category and score the evaluation split.

    Returns ``(estimator, eval_scores, info)`` where ``eval_scores`` are P(label | document) for
    the evaluation documents and ``info`` holds ``seconds``, EM iterations / convergence /
    log-likelihood where the model has them, and the selected terms.
    Raises :class:`CancelledByUser` when ``should_stop()`` turned true during the fit.
    """
    from hbnlab.evaluation import breakeven_point

    j = data.category_index(label)
    n_features = int(config.get("n_features", 30))
    cols = selected_columns(data, label, n_features, config.get("scope", "local"))
    X_fit, Y_fit, X_eval, Y_eval, _ = data.split(stage)
    y = Y_fit[:, j].astype(np.int8)
    if y.min() == y.max():
        raise ValueError(f"class {label!r} has {'no' if y.max() == 0 else 'only'} positive documents in the "
                         f"{'training' if stage == 'test' else 'training-0'} split; it cannot be learnt")
    names = [data.vocabulary[c] for c in cols]
    est = make_estimator(name, config, n_features=len(cols), feature_names=names, class_name=f"{label}TOPIC",
                         progress=progress, should_stop=should_stop)
    t0 = time.perf_counter()
    try:
        est.fit(X_fit, y, selected_features=cols)
    except Exception:
        # the EM loop raises (hbnlab.bn.em.EMCancelled) when should_stop() fired
        if should_stop is not None and should_stop():
            raise CancelledByUser(f"{name} for {label!r} cancelled") from None
        raise
    seconds = time.perf_counter() - t0
    if should_stop is not None and should_stop():
        raise CancelledByUser(f"{name} for {label!r} cancelled")
    _detach_callbacks(est)
    scores = est.predict_proba(X_eval)[:, 1]
    info = {"seconds": round(seconds, 4), "terms": names,
            "breakeven": float(breakeven_point(Y_eval[:, j], scores))}
    for attr, key, conv in (("n_iter_", "n_iter", int), ("converged_", "converged", bool),
                            ("lower_bound_", "loglik", float)):
        v = getattr(est, attr, None)
        if v is not None:
            try:
                info[key] = conv(np.asarray(v).ravel()[0]) if np.ndim(v) else conv(v)
            except (TypeError, ValueError, IndexError):
                pass
    return est, scores, info


def em_traces(est) -> list[list[float]]:
    """Log-likelihood trace per EM restart (empty for models without EM)."""
    res = getattr(est, "em_result_", None)
    if res is None:
        return []
    traces = getattr(res, "traces", None) or []
    return [[float(v) for v in np.asarray(t, dtype=float).ravel()] for t in traces]


# --------------------------------------------------------------------------- artifacts
def scores_to_bytes(S: np.ndarray, doc_ids, columns: list[str]) -> bytes:
    buf = io.BytesIO()
    np.savez_compressed(buf, scores=np.asarray(S, dtype=np.float64), doc_ids=np.asarray(list(doc_ids), dtype=str),
                        columns=np.asarray(columns, dtype=str))
    return buf.getvalue()


def scores_from_bytes(data: bytes) -> tuple[np.ndarray, list[str], list[str]]:
    """``(S, doc_ids, columns)`` of :func:`scores_to_bytes` (no pickle)."""
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return z["scores"], [str(x) for x in z["doc_ids"]], [str(x) for x in z["columns"]]


def unit_key(label: str, name: str) -> str:
    return f"{label}|{name}"


class _Checkpoint:
    """Finished units of a train job, on disk, so a resumed job skips them.

    One directory per job (``params['checkpoint_dir']``); each unit is written atomically as a
    JSON record plus its model and score bytes.  Deleted when the job completes.
    """

    def __init__(self, path: str | None):
        self.path = Path(path) if path else None
        if self.path is not None:
            self.path.mkdir(parents=True, exist_ok=True)

    def _stem(self, key: str) -> str:
        import hashlib

        return hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]

    def load(self, key: str):
        if self.path is None:
            return None
        stem = self._stem(key)
        try:
            rec = json.loads((self.path / f"{stem}.json").read_text("utf-8"))
            model = (self.path / f"{stem}.model").read_bytes()
            scores = np.frombuffer((self.path / f"{stem}.scores").read_bytes(), dtype=np.float64)
            traces = json.loads((self.path / f"{stem}.traces").read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if rec.get("key") != key:
            return None
        return rec, model, scores, traces

    def save(self, key: str, rec: dict, model: bytes, scores: np.ndarray, traces) -> None:
        if self.path is None:
            return
        from hbnlab.export.atomic import write_bytes_atomic, write_text_atomic

        stem = self._stem(key)
        write_bytes_atomic(self.path / f"{stem}.model", model)
        write_bytes_atomic(self.path / f"{stem}.scores", np.asarray(scores, dtype=np.float64).tobytes())
        write_text_atomic(self.path / f"{stem}.traces", json.dumps(traces))
        write_text_atomic(self.path / f"{stem}.json", json.dumps({**rec, "key": key}))  # last: marks complete

    def clear(self) -> None:
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)


# --------------------------------------------------------------------------- tasks
def _check_params(params: dict, required: tuple) -> None:
    missing = [k for k in required if k not in params]
    if missing:
        raise ValueError(f"task parameters: missing {missing}; got keys {sorted(params)}")


class _Progress:
    """Turns EM callbacks into the job's progress fields: unit i of n, restart, iteration,
    log-likelihood, overall fraction, elapsed and estimated remaining seconds."""

    def __init__(self, ctx, n_units: int):
        self.ctx, self.n = ctx, max(1, n_units)
        self.t0 = time.monotonic()
        self.done = 0
        self.unit: dict = {}

    def start_unit(self, i: int, label: str, name: str, done: int) -> None:
        self.done = done
        self.unit = {"unit": i + 1, "units": self.n, "class": label, "classifier": name}
        self.emit(0.0, message=f"{name} for {label}")

    def emit(self, within: float, **extra) -> None:
        if within >= 1.0:  # the end of the job
            fraction = 1.0
        else:
            fraction = min(0.999, (self.done + min(max(within, 0.0), 0.99)) / self.n)
        elapsed = time.monotonic() - self.t0
        remaining = elapsed / fraction * (1 - fraction) if fraction > 0.02 else None
        fields = {**self.unit, **extra, "fraction": round(fraction, 4), "elapsed": round(elapsed, 1)}
        if remaining is not None:
            fields["remaining"] = round(remaining, 1)
        self.ctx.progress(**fields)

    def em_callback(self, info) -> None:
        """The estimator's ``progress(info)`` (:func:`hbnlab.bn.em.fit_em`: all restarts run as one
        batch, so it reports the iteration, how many restarts are still running / converged and
        the best log-likelihood so far)."""
        info = dict(info or {})
        extra = {}
        for src, dst, conv in (("iteration", "iteration", int), ("max_iter", "max_iter", int),
                               ("n_restarts", "restarts", int), ("n_running", "running", int),
                               ("n_converged", "converged", int), ("best_log_likelihood", "loglik", float)):
            v = info.get(src)
            if v is None or isinstance(v, (list, tuple, dict)):
                continue
            try:
                v = conv(v)
            except (TypeError, ValueError):
                continue
            if conv is float and not np.isfinite(v):
                continue
            extra[dst] = v
        it = extra.get("iteration", 0)
        if "loglik" in extra and self.unit:
            # live trace of the batch's best log-likelihood (the Training page plots it while running)
            cell = f"|cell{self.unit['cell']}" if "cell" in self.unit else ""
            self.ctx.trace(f"{self.unit.get('class')}|{self.unit.get('classifier')}{cell}", it, extra["loglik"])
        by_iter = it / max(extra.get("max_iter", _EXPECTED_EM_ITERATIONS), 1)
        by_restarts = extra.get("converged", 0) / max(extra.get("restarts", 1), 1)
        self.emit(min(0.95, max(by_iter, by_restarts)), **extra)


@register_task("train")
def train_task(params: dict, ctx) -> dict:
    """Train ``classifiers`` x ``classes`` and score the evaluation split.

    Parameters (``params``)
    -----------------------
    config : dict
        ``ExperimentConfig.to_dict()``.
    classes : list of str
        Categories to train (default: the config's categories).
    classifiers : list of str
        Learner rows (default: the config's classifiers).
    stage : {"test", "validation"}, default "test"
        Fit on the training set and score the test set, or training-0 -> validation.
    checkpoint_dir : str, optional
        Where finished units are kept so that a resumed job skips them.

    Returns
    -------
    dict
        ``units``: one record per (class, classifier) with the model artifact hash, the EM
        trace artifact hash, breakeven, seconds, EM iterations; ``scores``: the hash of the
        score matrix artifact (columns ``"class|classifier"``, rows the evaluation documents);
        ``classes``, ``classifiers``, ``stage``, corpus name / fingerprint / synthetic flag.
    """
    _check_params(params, ("config",))
    config = dict(params["config"])
    stage = params.get("stage", "test")
    ctx.progress(message="loading corpus", fraction=0.0)
    data = prepare_experiment(config)
    classes = list(params.get("classes") or data.categories)
    for c in classes:
        data.category_index(c)
    classifiers = [c.upper() for c in (params.get("classifiers") or config.get("classifiers") or ["NB"])]
    units = [(c, n) for c in classes for n in classifiers]
    _, _, _, _, eval_docs = data.split(stage)
    ckpt = _Checkpoint(params.get("checkpoint_dir"))
    prog = _Progress(ctx, len(units))
    records, columns = [], []
    S = np.zeros((len(eval_docs), len(units)))
    resumed = 0
    for i, (label, name) in enumerate(units):
        ctx.check_stop()
        key = unit_key(label, name)
        prog.start_unit(i, label, name, done=i)
        saved = ckpt.load(key)
        if saved is not None and len(saved[2]) == len(eval_docs):
            rec, model_bytes, scores, traces = saved
            resumed += 1
            ctx.log(f"{name} for {label}: reused from the interrupted attempt")
        else:
            try:
                est, scores, info = fit_unit(data, label, name, config, stage=stage,
                                             progress=prog.em_callback, should_stop=ctx.should_stop)
            except CancelledByUser:
                ctx.check_stop()
                raise
            traces = em_traces(est)
            meta = {"class": label, "classifier": name, "config": config, "stage": stage,
                    "corpus": data.corpus_name, "fingerprint": data.fingerprint, "synthetic": data.synthetic,
                    "categories": data.categories, "n_features_in": int(est.n_features_in_)}
            model_bytes = _store_model(est, meta, indexing=data.indexed.config, vocabulary=data.vocabulary)
            rec = {"class": label, "classifier": name, **info}
            ckpt.save(key, rec, model_bytes, scores, traces)
            extra = f", {info['n_iter']} EM iterations" if "n_iter" in info else ""
            ctx.log(f"{name} for {label}: breakeven {100 * info['breakeven']:.1f}% in {info['seconds']:.2f}s{extra}")
        rec = dict(rec)
        rec.pop("key", None)
        rec["model"] = ctx.save_artifact(f"model:{key}", model_bytes)
        rec["traces"] = ctx.save_artifact(f"traces:{key}", json.dumps(traces).encode("utf-8"))
        rec["column"] = i
        records.append(rec)
        columns.append(key)
        S[:, i] = scores
        prog.done = i + 1
    ctx.check_stop()
    scores_hash = ctx.save_artifact("scores", scores_to_bytes(S, [d.id for d in eval_docs], columns))
    prog.emit(1.0, message="done")
    ckpt.clear()
    return {"units": records, "scores": scores_hash, "classes": classes, "classifiers": classifiers,
            "stage": stage, "corpus": data.corpus_name, "fingerprint": data.fingerprint,
            "synthetic": data.synthetic, "categories": data.categories, "resumed_units": resumed,
            "config": config}


@register_task("tune")
def tune_task(params: dict, ctx) -> dict:
    """Validation breakeven over a B x alpha (x n_features) grid for one HBN/HNB learner.

    Every cell fits the learner for each class on training-0 (terms selected on the whole
    training set, thesis sec. 4.1.2) and measures breakeven on the validation split; a cell's
    score is the micro-averaged breakeven over the classes (thesis sec. 4.2.1 tunes by it).

    Parameters (``params``): ``config``, ``classifier`` (an HBN/HNB row), ``B_values``,
    ``alpha_values``, optional ``n_features_values`` (default: the config's), ``classes``.

    Returns ``{"cells": [{"B", "alpha", "n_features", "micro", "macro", "per_class"}], "best": cell, ...}``
    (breakevens in percent).
    """
    from hbnlab.evaluation import macro_breakeven, micro_breakeven

    _check_params(params, ("config", "classifier", "B_values", "alpha_values"))
    config = dict(params["config"])
    name = str(params["classifier"]).upper()
    if name not in HBN_ROWS:
        raise ValueError(f"tune: classifier must be one of {HBN_ROWS}, got {name!r}")
    clustering = name.split("-")[1].lower()
    Bs = [int(b) for b in params["B_values"]]
    alphas = [float(a) for a in params["alpha_values"]]
    nfs = [int(n) for n in (params.get("n_features_values") or [config.get("n_features", 30)])]
    if not Bs or not alphas or not nfs:
        raise ValueError(f"tune: empty grid (B_values={Bs}, alpha_values={alphas}, n_features_values={nfs})")
    ctx.progress(message="loading corpus", fraction=0.0)
    data = prepare_experiment(config)
    classes = list(params.get("classes") or data.categories)
    _, _, _, Y_val, _ = data.split("validation")
    js = [data.category_index(c) for c in classes]
    grid = [(nf, B, a) for nf in nfs for B in Bs for a in alphas]
    prog = _Progress(ctx, len(grid) * len(classes))
    cells = []
    for g, (nf, B, a) in enumerate(grid):
        cell_cfg = {**config, f"B_{clustering}": B, f"alpha_{clustering}": a, "n_features": nf}
        S = np.zeros((Y_val.shape[0], len(classes)))
        for k, label in enumerate(classes):
            ctx.check_stop()
            u = g * len(classes) + k
            prog.start_unit(u, label, name, done=u)
            prog.unit.update(B=B, alpha=a, n_features=nf, cell=g + 1, cells=len(grid))
            try:
                _, S[:, k], _ = fit_unit(data, label, name, cell_cfg, stage="validation",
                                         progress=prog.em_callback, should_stop=ctx.should_stop)
            except CancelledByUser:
                ctx.check_stop()
                raise
        Y = Y_val[:, js]
        per_class = {c: round(100 * _breakeven(Y[:, k], S[:, k]), 2) for k, c in enumerate(classes)}
        cell = {"B": B, "alpha": a, "n_features": nf, "micro": round(100 * micro_breakeven(Y, S), 2),
                "macro": round(100 * macro_breakeven(Y, S), 2), "per_class": per_class}
        cells.append(cell)
        ctx.log(f"{name} B={B} alpha={a:g} features={nf}: validation micro {cell['micro']:.2f}")
    best = max(cells, key=lambda c: (c["micro"], -c["B"], -c["alpha"]))
    prog.emit(1.0, message="done")
    return {"cells": cells, "best": best, "classifier": name, "classes": classes, "config": config,
            "corpus": data.corpus_name, "synthetic": data.synthetic}


def _breakeven(y, s) -> float:
    from hbnlab.evaluation import breakeven_point

    return float(breakeven_point(y, s))


__all__ = ["ExperimentData", "prepare_experiment", "corpus_from_spec", "corpus_spec_of", "indexing_of",
           "resolve_categories", "selected_columns", "build_structure", "make_estimator", "fit_unit",
           "em_traces", "store_model", "load_model", "scores_to_bytes", "scores_from_bytes", "train_task",
           "tune_task", "data_home", "resolve_reuters_dir", "is_reuters_modapte", "unit_key", "CancelledByUser"]
