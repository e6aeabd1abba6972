"""The workbench's background tasks ("train", "tune") and the pieces the pages share with them.

Everything here is plain Python on plain data (no Streamlit): the workbench's services call these
functions in the script process (cached), and worker processes run the tasks with the same
functions, so a model trained in the background sees exactly the data the pages show.

The experiment settings travel as the JSON dict of :class:`hbnlab.pipeline.config.ExperimentConfig`
(``config.to_dict()``) and are read back with ``ExperimentConfig.from_dict``.

* :func:`prepare_experiment` -- the corpus of a config, indexed and scored
  (:func:`hbnlab.pipeline.data.prepare`);
* :func:`build_structure` -- the network an HBN/HNB learner fits for one class (its tree and the
  class's naive-Bayes children), structure only;
* :func:`hbnlab.pipeline.fit.fit_unit` -- one learner for one category, with EM progress and
  cancellation.

Tasks (registered with :func:`hbnlab.jobs.register_task`):

* ``"train"`` -- categories x classifiers on the training set (or training-0), scored on the
  test set (or validation); stores each model, the score matrix and the EM traces as
  artifacts; resumable: finished units are checkpointed and skipped when the job is resumed.
* ``"tune"`` -- a B x alpha (x n_features) grid for one HBN/HNB learner on the training-0 /
  validation split; each cell's validation micro and macro breakeven.

Model files are hbnlab model files (:mod:`hbnlab.export.model_io`: JSON + plain arrays, never
pickle), written and read only through :func:`store_model` / :func:`load_model`.
"""
from __future__ import annotations

import hashlib
import io
import json
import shutil
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hbnlab._validation import Cancelled, as_binary
from hbnlab.bn.structure import TreeStructure
from hbnlab.clustering import construct_tree
from hbnlab.evaluation import bootstrap_micro, breakeven_point, macro_breakeven, micro_breakeven
from hbnlab.export.atomic import write_bytes_atomic, write_text_atomic
from hbnlab.export.model_io import load_model as read_model_file
from hbnlab.export.model_io import model_to_bytes
from hbnlab.features import score_terms
from hbnlab.jobs.tasks import register_task
from hbnlab.models.catalog import TREE_LEARNERS, tree_parts
from hbnlab.models.hbn import CHILDREN_SELECT_DEFAULT
from hbnlab.pipeline.config import STRUCTURE_ALGORITHMS, ExperimentConfig, is_hnb
from hbnlab.pipeline.corpus_spec import corpus_from_spec, source_files
from hbnlab.pipeline.data import ProtocolData
from hbnlab.pipeline.fit import em_traces, fit_unit
from hbnlab.pipeline.store import prepare_cached
from hbnlab.text import IndexingConfig

#: EM iterations assumed when the callback does not say ``max_iter`` (progress fraction only).
_EXPECTED_EM_ITERATIONS = 100


#: Prepared experiments a process keeps (a worker process runs job after job on the same corpus).
PREPARED_CACHE_SIZE = 2
_PREPARED: OrderedDict = OrderedDict()


def _source_stamp(spec: dict) -> list:
    """Name, size and modification time of the files a corpus spec reads: a changed file changes
    the stamp, so a preparation kept in this process is never reused for it."""
    out = []
    for p in source_files(spec):
        st = p.stat()
        out.append([str(p.resolve()), st.st_size, st.st_mtime_ns])
    return out


def prepare_experiment(config: dict | ExperimentConfig, *, corpus=None, progress=None, log=None) -> ProtocolData:
    """The indexed, scored data of an experiment config (its corpus unless ``corpus`` is given).

    Two caches stand in front of parsing and indexing:

    * without ``corpus``, the result is kept in this process for the next call with the same data
      settings and unchanged source files (:data:`PREPARED_CACHE_SIZE` of them), so a worker that
      runs job after job on one corpus reads it once;
    * the store in the data home (:mod:`hbnlab.pipeline.store`) keeps the parsed corpus and the
      indexed data for every process: the app, the workers and the command line parse and index
      a corpus once between them.  ``log`` receives its messages.

    The data is shared read-only."""
    cfg = config if isinstance(config, ExperimentConfig) else ExperimentConfig.from_dict(config)
    kw = dict(categories=cfg.categories, n_categories=cfg.n_categories,
              indexing=IndexingConfig(**cfg.indexing_dict()), selection=cfg.selection, **cfg.validation_dict())
    if corpus is not None:
        return prepare_cached(corpus, **kw, progress=progress, log=log)
    spec = cfg.corpus_spec()
    try:
        stamp = _source_stamp(spec)
    except (OSError, ValueError):
        stamp = None                                # the reader reports the missing file
    key = json.dumps({"spec": spec, "stamp": stamp, "categories": list(cfg.categories),
                      "n_categories": cfg.n_categories, "indexing": cfg.indexing_dict(), "selection": cfg.selection,
                      "validation": cfg.validation_dict()}, sort_keys=True, default=str)
    if stamp is not None and key in _PREPARED:
        _PREPARED.move_to_end(key)
        return _PREPARED[key]
    data = prepare_cached(corpus_from_spec(spec, log=log), **kw, progress=progress, log=log)
    if stamp is not None:
        _PREPARED[key] = data
        while len(_PREPARED) > PREPARED_CACHE_SIZE:
            _PREPARED.popitem(last=False)
    return data


def fit_config_unit(data: ProtocolData, label: str, name: str, cfg: ExperimentConfig, *, stage: str = "test",
                    progress=None, should_stop=None):
    """:func:`~hbnlab.pipeline.fit.fit_unit` with an experiment config's settings; returns
    ``(estimator, P(label | evaluation document), info)`` with the breakeven in ``info``."""
    res = fit_unit(data, label, name, n_features=cfg.n_features, params=cfg.classifier_params(name), stage=stage,
                   scope=cfg.scope, random_state=cfg.random_state, score="proba", progress=progress,
                   should_stop=should_stop)
    info = {**res.info, "breakeven": float(breakeven_point(res.y_eval, res.scores))}
    return res.estimator, res.scores, info


# --------------------------------------------------------------------------- structure only
@dataclass(frozen=True)
class ModelStructure:
    """The network a tree learner fits for one class, structure only: the tree over its tree terms
    and the class's naive-Bayes children (the other selected terms, strongest first).

    ``children_rule``: ``"all"`` (every one is kept), ``"cv"`` / ``"cv-max"`` (the fit keeps the
    strongest k of them, k chosen by a cross-validation inside the training documents: which k is
    known only after EM, so all candidates are listed).
    """

    tree: TreeStructure
    children: tuple = ()
    children_rule: str = "all"


def tree_term_order(Xb, y, tree_terms: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Columns of the selected terms ``Xb`` (binary, best first) that a tree learner puts in its tree
    and those it makes naive-Bayes children of the class: with more than ``tree_terms`` terms, the
    ``tree_terms`` with the highest I(F; C) in the tree, the others children, both by decreasing
    I(F; C) (ties by column); else every column in the tree, in the given order.

    The estimator's own split (``HierarchicalBNClassifier`` with ``tree_select="top"``) is checked
    against this one in tests/pipeline/test_model_structure.py."""
    m = Xb.shape[1]
    if tree_terms is None or tree_terms >= m:
        return np.arange(m), np.arange(0)
    scores = score_terms(Xb, np.asarray(y).reshape(-1, 1).astype(bool), method="ig")[:, 0]
    order = np.lexsort((np.arange(m), -scores))  # I(F; C) decreasing, ties by column
    return order[:tree_terms], order[tree_terms:]


def build_structure(data: ProtocolData, label: str, algorithm: str, B: int, alpha: float,
                    n_features: int, scope: str = "local", tree_terms: int | None = None,
                    children_select: str = "auto") -> ModelStructure:
    """The network an HBN/HNB learner fits for one class -- structure only, no EM (thesis figs
    3.3-3.4): the tree over its ``tree_terms`` terms (None or 0: all of them, the thesis's model)
    and the naive-Bayes children of the class (:func:`tree_term_order`).

    The tree has term names on the leaves and ``"<label>TOPIC"`` at the root (the thesis's naming,
    figs 4.1-4.4).  ``children_select`` is the config's (``"auto"``: the clustering's rule,
    :data:`hbnlab.models.hbn.CHILDREN_SELECT_DEFAULT`).
    """
    direction, clustering = tree_parts(algorithm)
    cols = data.selected_columns(label, n_features, scope)
    j = data.category_index(label)
    Xb = as_binary(data.X_train[:, cols])
    y = data.Y_train[:, j].astype(np.int8)
    in_tree, kids = tree_term_order(Xb, y, tree_terms or None)
    names = [data.vocabulary[c] for c in cols]
    tree = construct_tree(Xb[:, in_tree], y, B=int(B), clustering=clustering, alpha=float(alpha), direction=direction,
                          feature_names=[names[c] for c in in_tree], class_name=f"{label}TOPIC")
    rule = CHILDREN_SELECT_DEFAULT.get(clustering, "all") if children_select == "auto" else children_select
    return ModelStructure(tree, tuple(names[c] for c in kids), rule)


# --------------------------------------------------------------------------- model files
def store_model(estimator, metadata: dict, *, indexing=None, vocabulary=None) -> bytes:
    """Serialise a fitted estimator with its metadata: an hbnlab model file
    (:func:`hbnlab.export.model_to_bytes`: a ZIP of JSON + plain arrays, never pickle), holding the
    indexing settings and the vocabulary so the file classifies raw text on its own.

    This and :func:`load_model` are the only places the workbench reads or writes model files.
    """
    corpus = {k: metadata[k] for k in ("corpus", "fingerprint", "synthetic") if k in metadata}
    if "corpus" in corpus:
        corpus["name"] = corpus.pop("corpus")
    return model_to_bytes(estimator, indexing=indexing, vocabulary=vocabulary, corpus=corpus or None,
                          label=metadata.get("class"), provenance=metadata)


def load_model(data: bytes):
    """Inverse of :func:`store_model`: ``(estimator, metadata)``.  Safe on untrusted bytes
    (:func:`hbnlab.export.load_model` checks sizes, schema, arrays and tables)."""
    loaded = read_model_file(bytes(data), name="workbench model")
    return loaded.estimator, dict(loaded.provenance or {})


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
    """``"class|classifier"``: the key of one trained unit (:func:`split_unit_key` reads it back)."""
    return f"{label}|{name}"


def split_unit_key(key: str) -> tuple[str, str]:
    """``(class, classifier)`` of a unit key.  A learner's name never holds ``|`` but a class name may
    (``grain|wheat``), so the key is split at its last ``|``.

    >>> split_unit_key("grain|wheat|HBN-OR")
    ('grain|wheat', 'HBN-OR')
    """
    label, sep, name = str(key).rpartition("|")
    if not sep or not name:
        raise ValueError(f"unit key {key!r}: expected 'class|classifier'")
    return label, name


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


def unit_cost(name: str, cfg: ExperimentConfig) -> float:
    """Relative expected cost of fitting one (class, learner) unit, for progress and ETA: a tree
    learner's EM grows with restarts x the tree's terms (DEP's clustering costs about as much again)
    and with the hidden nodes' states: an HBN node's table has k ** B rows, (k / 2) ** B times the
    binary tree's, a hierarchical naive Bayes node's k ** 2 (a per-node search of k costs several
    fits); the other learners are quick."""
    upper = str(name).upper()
    if upper in TREE_LEARNERS:
        dep = 2.0 if upper.endswith("-DEP") else 1.0
        k = cfg.hidden_states
        if not isinstance(k, int):
            states = 4.0
        elif upper in STRUCTURE_ALGORITHMS and not is_hnb(upper):
            states = (k / 2) ** cfg.structure_params(upper)[0]
        else:
            states = (k / 2) ** 2
        terms = max(1, cfg.n_features) if not cfg.tree_terms else max(1, min(cfg.n_features, cfg.tree_terms))
        return max(1, cfg.n_restarts) * terms / 30 * dep * states
    return 0.5


class _Progress:
    """Turns EM callbacks into the job's progress fields: unit i of n, restart, iteration,
    log-likelihood, overall fraction, elapsed and estimated remaining seconds.

    Units differ in cost (a tree learner's EM against naive Bayes), so the fraction weighs each unit
    by its expected cost (:func:`unit_cost`), and the remaining time uses the measured seconds of
    finished units of the same learner once there are some, else the cost times the measured
    seconds per unit of cost so far.  That keeps the estimate from swinging when a quick unit
    follows a slow one."""

    def __init__(self, ctx, names, costs):
        self.ctx = ctx
        self.names = list(names) or ["?"]
        self.costs = [float(c) for c in costs] or [1.0]
        self.n = len(self.names)
        self.total = sum(self.costs)
        self.t0 = time.monotonic()
        self.done = 0
        self.unit: dict = {}
        self.measured: dict = {}
        self._unit_t0 = self.t0

    def start_unit(self, i: int, label: str, name: str, done: int) -> None:
        self.done = done
        self._unit_t0 = time.monotonic()
        self.unit = {"unit": i + 1, "units": self.n, "class": label, "classifier": name}
        self.emit(0.0, message=f"{name} for {label}")

    def finish_unit(self, i: int) -> None:
        self.measured.setdefault(self.names[i], []).append((time.monotonic() - self._unit_t0, self.costs[i]))
        self.done = i + 1

    def _expected(self, j: int, rate: float | None) -> float | None:
        """Expected seconds of unit ``j``: its cost times the seconds per unit of cost measured on the
        finished units of the same learner (a grid's cells of one learner differ in cost by orders
        of magnitude), else on all finished units."""
        seen = self.measured.get(self.names[j])
        if seen:
            seconds, cost = map(sum, zip(*seen))
            return self.costs[j] * seconds / cost if cost > 0 else seconds / len(seen)
        return None if rate is None else self.costs[j] * rate

    def emit(self, within: float, **extra) -> None:
        elapsed = time.monotonic() - self.t0
        if within >= 1.0:  # the end of the job
            fraction, remaining = 1.0, 0.0
        else:
            within = min(max(within, 0.0), 0.99)
            cost_done = sum(self.costs[: self.done])
            i = min(self.done, self.n - 1)
            fraction = min(0.999, (cost_done + within * self.costs[i]) / self.total)
            spent = sum(t for v in self.measured.values() for t, _ in v)
            rate = spent / cost_done if cost_done > 0 and spent > 0 else None
            current = self._expected(i, rate)
            rest = [self._expected(j, rate) for j in range(i + 1, self.n)]
            if current is not None and all(r is not None for r in rest):
                remaining = max(current - (time.monotonic() - self._unit_t0), current * (1 - within)) + sum(rest)
            else:
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


def _unit_config(cfg: ExperimentConfig, label: str, name: str, class_settings) -> ExperimentConfig:
    """The config one (class, classifier) unit trains with: ``cfg``, or for a class listed in
    ``class_settings`` its own number of terms and, for a tree learner, its own B, alpha and
    hidden states."""
    own = (class_settings or {}).get(label)
    if not own:
        return cfg
    unknown = sorted(set(own) - {"B", "alpha", "n_features", "hidden_states"})
    if unknown:
        raise ValueError(f"class_settings[{label!r}]: unknown field(s) {unknown}; expected B, alpha, n_features, "
                         "hidden_states")
    out = cfg.replace(n_features=int(own.get("n_features", cfg.n_features)))
    if name in STRUCTURE_ALGORITHMS and ("B" in own or "alpha" in own):
        B, alpha = out.structure_params(name)
        out = out.with_structure_params(name, int(own.get("B", B)), float(own.get("alpha", alpha)))
    if name in STRUCTURE_ALGORITHMS and "hidden_states" in own:
        out = out.replace(hidden_states=own["hidden_states"])
    return out


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
    class_settings : dict, optional
        Class -> ``{"n_features", "B", "alpha"}`` for the classes that train with their own
        settings (a tuning job's best cell per class); B and alpha apply to the tree learners.

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
    cfg = ExperimentConfig.from_dict(config)
    stage = params.get("stage", "test")
    ctx.progress(message="loading corpus", fraction=0.0)
    data = prepare_experiment(cfg, log=ctx.log)
    classes = list(params.get("classes") or data.categories)
    for c in classes:
        data.category_index(c)
    classifiers = [c.upper() for c in (params.get("classifiers") or cfg.classifiers)]
    units = [(c, n) for c in classes for n in classifiers]
    unit_cfgs = {u: _unit_config(cfg, *u, params.get("class_settings")) for u in units}
    _, eval_docs = data.evaluation(stage)
    ckpt = _Checkpoint(params.get("checkpoint_dir"))
    prog = _Progress(ctx, [n for _, n in units], [unit_cost(n, unit_cfgs[c, n]) for c, n in units])
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
                est, scores, info = fit_config_unit(data, label, name, unit_cfgs[label, name], stage=stage,
                                                    progress=prog.em_callback, should_stop=ctx.should_stop)
            except Cancelled:
                ctx.check_stop()
                raise
            traces = em_traces(est)
            meta = {"class": label, "classifier": name, "config": unit_cfgs[label, name].to_dict(), "stage": stage,
                    "corpus": data.corpus_name, "fingerprint": data.fingerprint, "synthetic": data.synthetic,
                    "categories": data.categories, "n_features_in": int(est.n_features_in_)}
            model_bytes = store_model(est, meta, indexing=data.indexed.config, vocabulary=data.vocabulary)
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
        prog.finish_unit(i)
    ctx.check_stop()
    scores_hash = ctx.save_artifact("scores", scores_to_bytes(S, [d.id for d in eval_docs], columns))
    prog.emit(1.0, message="done")
    ckpt.clear()
    return {"units": records, "scores": scores_hash, "classes": classes, "classifiers": classifiers,
            "stage": stage, "corpus": data.corpus_name, "fingerprint": data.fingerprint,
            "split_source": data.info.get("split_source"),
            "synthetic": data.synthetic, "categories": data.categories, "resumed_units": resumed,
            "config": config, **({"class_settings": params["class_settings"]} if params.get("class_settings") else {})}


#: Resamples of the validation documents behind each tuning cell's interval against the best cell.
TUNE_BOOTSTRAP = 200


@register_task("tune")
def tune_task(params: dict, ctx) -> dict:
    """Validation breakeven over a B x alpha (x n_features x hidden states) grid for one HBN/HNB learner.

    Every cell fits the learner for each class on training-0 (terms selected on the whole
    training set, thesis sec. 4.1.2) and measures breakeven on the validation split; a cell's
    score is the micro-averaged breakeven over the classes (thesis sec. 4.2.1 tunes by it).

    Parameters (``params``): ``config``, ``classifier`` (an HBN/HNB row), ``B_values``,
    ``alpha_values``, optional ``n_features_values`` and ``hidden_states_values`` (default: the
    config's), ``classes``.

    Returns ``{"cells": [{"B", "alpha", "n_features", "hidden_states", "micro", "macro", "per_class",
    "vs_best_low", "vs_best_high", "tied_with_best"}], "best": cell, ...}`` (breakevens in percent).  ``vs_best_*``
    is the 95% paired-bootstrap interval of the cell's micro breakeven minus the best cell's
    (:data:`TUNE_BOOTSTRAP` resamples of the validation documents, seeded by the config's
    ``random_state``); ``tied_with_best`` when it holds 0.
    """
    _check_params(params, ("config", "classifier", "B_values", "alpha_values"))
    config = dict(params["config"])
    cfg = ExperimentConfig.from_dict(config)
    name = str(params["classifier"]).upper()
    if name not in TREE_LEARNERS:
        raise ValueError(f"tune: classifier must be one of {TREE_LEARNERS}, got {name!r}")
    clustering = tree_parts(name)[1]
    Bs = [int(b) for b in params["B_values"]]
    alphas = [float(a) for a in params["alpha_values"]]
    nfs = [int(n) for n in (params.get("n_features_values") or [cfg.n_features])]
    ks = list(params.get("hidden_states_values") or [cfg.hidden_states])
    if not Bs or not alphas or not nfs:
        raise ValueError(f"tune: empty grid (B_values={Bs}, alpha_values={alphas}, n_features_values={nfs})")
    for k in ks:  # named before the corpus is read
        cfg.replace(hidden_states=k)
    ctx.progress(message="loading corpus", fraction=0.0)
    data = prepare_experiment(cfg, log=ctx.log)
    classes = list(params.get("classes") or data.categories)
    Y_val = data.evaluation("validation")[0]
    js = [data.category_index(c) for c in classes]
    grid = [(nf, k, B, a) for nf in nfs for k in ks for B in Bs for a in alphas]
    prog = _Progress(ctx, [name] * (len(grid) * len(classes)),
                     [unit_cost(name, cfg.replace(**{f"B_{clustering}": B, "n_features": nf, "hidden_states": k}))
                      for nf, k, B, _ in grid for _ in classes])
    cells, cell_scores = [], []
    for g, (nf, hs, B, a) in enumerate(grid):
        cell_cfg = cfg.replace(**{f"B_{clustering}": B, f"alpha_{clustering}": a, "n_features": nf,
                                  "hidden_states": hs})
        S = np.zeros((Y_val.shape[0], len(classes)))
        for k, label in enumerate(classes):
            ctx.check_stop()
            u = g * len(classes) + k
            prog.start_unit(u, label, name, done=u)
            prog.unit.update(B=B, alpha=a, n_features=nf, cell=g + 1, cells=len(grid))
            try:
                _, S[:, k], _ = fit_config_unit(data, label, name, cell_cfg, stage="validation",
                                                progress=prog.em_callback, should_stop=ctx.should_stop)
            except Cancelled:
                ctx.check_stop()
                raise
            prog.finish_unit(u)
        Y = Y_val[:, js]
        per_class = {c: round(100 * float(breakeven_point(Y[:, k], S[:, k])), 2) for k, c in enumerate(classes)}
        cell = {"B": B, "alpha": a, "n_features": nf, "hidden_states": hs,
                "micro": round(100 * micro_breakeven(Y, S), 2), "macro": round(100 * macro_breakeven(Y, S), 2),
                "per_class": per_class}
        cells.append(cell)
        cell_scores.append(S)
        ctx.log(f"{name} B={B} alpha={a:g} features={nf} hidden states={hs}: validation micro "
                f"{cell['micro']:.2f}")
    best = max(cells, key=lambda c: (c["micro"], -c["B"], -c["alpha"]))
    prog.emit(0.99, message="resampling the validation documents")
    boot = bootstrap_micro(Y_val[:, js], cell_scores, n_boot=TUNE_BOOTSTRAP, random_state=cfg.random_state)
    diff = boot - boot[:, [cells.index(best)]]
    for cell, d in zip(cells, diff.T):
        low, high = np.quantile(d, [0.025, 0.975])
        cell.update(vs_best_low=round(float(low), 2), vs_best_high=round(float(high), 2),
                    tied_with_best=bool(low <= 0 <= high))
    best_per_class, per_class_micro = per_class_best(cells, cell_scores, Y_val[:, js], classes)
    prog.emit(1.0, message="done")
    return {"cells": cells, "best": best, "best_per_class": best_per_class, "per_class_micro": per_class_micro,
            "classifier": name, "classes": classes, "config": config, "corpus": data.corpus_name,
            "split_source": data.info.get("split_source"), "synthetic": data.synthetic}


def per_class_best(cells: list, cell_scores: list, Y, classes: list) -> tuple[dict, float]:
    """Each class's own best cell of a tuning grid, and the micro breakeven of that combination.

    Class ``k`` takes the cell with its highest validation breakeven (``cells[g]["per_class"]``),
    ties going to the cell listed first (the grid runs from few to many terms, small to large B
    and alpha).  The micro breakeven pools each class's scores from its own cell
    (``cell_scores[g][:, k]``); it is measured on the documents the choice was made on, so it is
    optimistic as an estimate of test performance.

    Returns ``({class: {"B", "alpha", "n_features", "hidden_states", "breakeven"}}, micro)``
    (``hidden_states`` only for cells that record it).
    """
    chosen, S = {}, np.zeros(np.shape(Y), dtype=float)
    for k, c in enumerate(classes):
        values = [cell["per_class"][c] for cell in cells]
        g = values.index(max(values))
        chosen[c] = {"B": cells[g]["B"], "alpha": cells[g]["alpha"], "n_features": cells[g]["n_features"],
                     **({"hidden_states": cells[g]["hidden_states"]} if "hidden_states" in cells[g] else {}),
                     "breakeven": values[g]}
        S[:, k] = cell_scores[g][:, k]
    return chosen, round(100 * micro_breakeven(Y, S), 2)


__all__ = ["prepare_experiment", "fit_config_unit", "build_structure", "ModelStructure", "tree_term_order",
           "store_model", "load_model",
           "scores_to_bytes", "scores_from_bytes", "unit_key", "split_unit_key", "train_task", "tune_task",
           "per_class_best"]
