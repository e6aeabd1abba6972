"""One learner on one category: select the terms, fit, score the evaluation split.

:func:`fit_unit` is the single routine behind the command line's tables, the workbench's training
and tuning jobs, experiment manifests and the cells of a sweep.  It reports EM progress through ``progress(info)`` and
stops cooperatively when ``should_stop()`` turns true (raising :class:`hbnlab._validation.Cancelled`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from hbnlab._validation import Cancelled
from hbnlab.models.catalog import learner, make_classifier
from hbnlab.pipeline.data import ProtocolData

__all__ = ["FitResult", "fit_unit", "name_nodes", "em_traces", "SCORE_KINDS"]

#: ``"proba"``: P(class | document); ``"log_odds"``: the posterior log-odds, which ranks like the
#: posterior but never rounds to 1.0 (ties appear once |log-odds| > ~37).
SCORE_KINDS = ("proba", "log_odds")
_CALLBACKS = ("progress", "should_stop")


@dataclass
class FitResult:
    """A fitted estimator with its selected columns and terms, the evaluation scores with the
    evaluation labels of the category, and timing (``seconds``: the fits only, summed over the
    folds).  ``estimator`` is the first fold's model, ``estimators`` every fold's."""

    estimator: object
    columns: np.ndarray | None
    terms: list
    scores: np.ndarray
    y_eval: np.ndarray
    seconds: float
    stats: dict = field(default_factory=dict)
    estimators: list = field(default_factory=list)

    @property
    def info(self) -> dict:
        """``seconds``, ``terms`` and, for EM learners, ``n_iter``, ``converged``, ``loglik``."""
        return {"seconds": round(self.seconds, 4), "terms": list(self.terms), **self.stats}


def name_nodes(est, feature_names=None, class_name=None):
    """Give a learner that draws a network (``feature_names`` / ``class_name`` parameters) the
    names of its selected terms and of its class node; other learners are left as they are."""
    supported = est.get_params()
    extra = {}
    if feature_names is not None and "feature_names" in supported:
        extra["feature_names"] = list(feature_names)
    if class_name is not None and "class_name" in supported:
        extra["class_name"] = class_name
    if extra:
        est.set_params(**extra)
    return est


def em_traces(est) -> list[list[float]]:
    """Log-likelihood trace per EM restart (empty for models without EM)."""
    res = getattr(est, "em_result_", None)
    if res is None:
        return []
    traces = getattr(res, "traces", None) or []
    return [[float(v) for v in np.asarray(t, dtype=float).ravel()] for t in traces]


def _em_stats(est) -> dict:
    out = {}
    for attr, key, conv in (("n_iter_", "n_iter", int), ("converged_", "converged", bool),
                            ("lower_bound_", "loglik", float)):
        v = getattr(est, attr, None)
        if v is not None:
            try:
                out[key] = conv(np.asarray(v).ravel()[0]) if np.ndim(v) else conv(v)
            except (TypeError, ValueError, IndexError):
                pass
    return out


def fit_unit(data: ProtocolData, label: str, name: str, *, n_features: int | None = 30, params: dict | None = None,
             stage: str = "test", scope: str = "local", random_state: int = 0, score: str = "proba",
             progress=None, should_stop=None, class_name: str | None = None) -> FitResult:
    """Fit learner ``name`` for category ``label`` and score the evaluation split.

    Parameters
    ----------
    data : ProtocolData
    label : str
        The positive category.
    name : str
        A learner of :mod:`hbnlab.models.catalog` (``"HBN-OR"``, ``"NB"``, ...).
    n_features : int or None, default 30
        Selected terms (``None`` or 0: every term).
    params : dict, optional
        Hyper-parameters on top of the catalogue's defaults.
    stage : {"test", "validation"}
        With K validation folds (cross-validation) the learner is fitted K times, ``scores`` and
        ``y_eval`` pool the folds in :meth:`ProtocolData.eval_rows` order and ``estimator`` is the
        first fold's model.
    scope : {"local", "global"}
    random_state : int
    score : {"proba", "log_odds"}
        What ``FitResult.scores`` holds (see :data:`SCORE_KINDS`).
    progress, should_stop : callables, optional
        EM callbacks of the tree learners (ignored by learners without EM).
    class_name : str, optional
        The class node's name in a drawn network; default ``f"{label}TOPIC"``.

    Raises
    ------
    ValueError
        When the fitting split has no positive (or no negative) document of ``label``.
    hbnlab._validation.Cancelled
        When ``should_stop()`` turned true during the fit.
    """
    if score not in SCORE_KINDS:
        raise ValueError(f"score must be one of {SCORE_KINDS}, got {score!r}")
    j = data.category_index(label)
    row = learner(name)
    if row.needs_topics:
        # Chakrabarti 2003, sec. 5.7.1: the learner selects terms per node of the taxonomy itself
        if scope != "local":
            raise ValueError(f"{row.name} selects terms per node of the taxonomy; scope={scope!r} does not apply")
        data.fit_topics(stage, 0 if stage == "validation" else None)  # no hierarchy: the error names the fix
        cols = None
    else:
        cols = data.selected_columns(label, n_features, scope) if n_features else None
    terms = [data.vocabulary[c] for c in cols] if cols is not None else []
    hyper = dict(params or {})
    accepted = row.param_names
    for key, fn in zip(_CALLBACKS, (progress, should_stop)):
        if fn is not None and key in accepted:
            hyper[key] = fn
    n_sel = len(cols) if cols is not None else n_features
    n_splits = data.n_splits(stage)
    gap = data.unlearnable(label, stage)
    if gap is not None:
        raise ValueError(f"class {label!r} has {gap[1]} positive documents in the {gap[0]} split; it cannot be learnt")
    fitted, pooled, y_pooled, seconds = [], [], [], 0.0
    for fold in range(n_splits):
        split = data.split(stage, fold if stage == "validation" else None)
        y = split.Y_fit[:, j].astype(np.int8)
        est = name_nodes(make_classifier(name, n_sel, hyper, random_state), terms or None,
                         f"{label}TOPIC" if class_name is None else class_name)
        context = {"topics": data.fit_topics(stage, fold if stage == "validation" else None),
                   "target": label} if row.needs_topics else {}
        t0 = time.perf_counter()
        try:
            est.fit(split.X_fit, y, selected_features=cols, **context)
        except Exception:
            if should_stop is not None and should_stop():
                raise Cancelled(f"{name} for {label!r} cancelled") from None
            raise
        seconds += time.perf_counter() - t0
        if should_stop is not None and should_stop():
            raise Cancelled(f"{name} for {label!r} cancelled")
        detach = {k: None for k in _CALLBACKS if k in hyper}
        if detach:
            est.set_params(**detach)
        X_eval = split.X_eval
        pooled.append(est.predict_proba(X_eval)[:, 1] if score == "proba" else est.decision_function(X_eval))
        y_pooled.append(split.Y_eval[:, j])
        fitted.append(est)
    first = fitted[0]
    stats = _em_stats(first)
    if n_splits > 1:
        stats["cv_folds"] = n_splits
    if row.needs_topics:
        cols = np.asarray(first.selected_features_, dtype=np.int64)
        terms = [data.vocabulary[c] for c in cols]
    return FitResult(first, cols, terms, np.concatenate(pooled), np.concatenate(y_pooled), seconds, stats, fitted)
