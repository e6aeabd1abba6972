"""How sure is a difference between two classifiers scored on the same documents?

* :func:`paired_bootstrap` -- the breakeven of each class, the micro and the macro average for
  two score matrices, their difference, a percentile confidence interval and a two-sided p-value
  from resampling the documents with replacement (the same resample for both systems, so the
  comparison is paired; Efron & Tibshirani 1993, ch. 16; Koehn 2004 uses the same design for
  machine-translation metrics).  The p-value is the share of resampled differences at least as
  far from the observed one as the observed one is from 0 (the resampled differences shifted to
  mean 0 stand in for the null distribution).
* :func:`mcnemar` -- McNemar's exact test per class on the decisions at a threshold: of the
  documents exactly one system gets right, is either system right more often than chance
  (McNemar 1947; Dietterich 1998 recommends it for comparing two classifiers on one test set)?
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from hbnlab.evaluation.measures import check_score_matrices, per_class_breakeven

__all__ = ["paired_bootstrap", "mcnemar", "bootstrap_micro"]


def _summaries(Y: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Per-class breakeven, then micro (weighted by positives) and macro; NaN where undefined."""
    b = per_class_breakeven(Y, S)
    n_pos = Y.sum(axis=0).astype(np.float64)
    ok = ~np.isnan(b)
    micro = float(np.sum(b[ok] * n_pos[ok]) / n_pos[ok].sum()) if ok.any() else np.nan
    macro = float(np.mean(b[ok])) if ok.any() else np.nan
    return np.concatenate([b, [micro, macro]])


def paired_bootstrap(Y, S_a, S_b, *, categories=None, n_boot: int = 1000, confidence: float = 0.95,
                     random_state=0) -> pd.DataFrame:
    """Breakeven of two systems on the same documents with the paired bootstrap of their difference.

    Parameters
    ----------
    Y : array-like of shape (n_documents, n_categories)
        0/1 labels.
    S_a, S_b : array-like of shape (n_documents, n_categories)
        Scores of systems A and B, rows aligned with ``Y``.
    categories : sequence of str, optional
        Row names (default ``"0"``, ``"1"``, ...).
    n_boot : int, default 1000
        Resamples of the documents.
    confidence : float, default 0.95
        Level of the percentile interval of the difference.
    random_state : int, Generator or None
        Seeds the resampling.

    Returns
    -------
    pandas.DataFrame
        Index: the categories, then ``micro`` and ``macro``; columns ``A``, ``B``, ``B - A`` (in
        percent), ``low``, ``high`` (the interval of ``B - A``), ``p`` (two-sided) and
        ``resamples`` (how many resamples defined the row: a class with no positive in a resample
        has no breakeven there).
    """
    Y, S_a = check_score_matrices(Y, S_a)
    _, S_b = check_score_matrices(Y, S_b)
    if not (isinstance(n_boot, (int, np.integer)) and n_boot >= 1):
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    n, m = Y.shape
    names = [str(c) for c in (categories if categories is not None else range(m))]
    if len(names) != m:
        raise ValueError(f"categories: {len(names)} names for {m} columns")
    rng = np.random.default_rng(random_state)
    a0, b0 = _summaries(Y, S_a), _summaries(Y, S_b)
    diffs = np.empty((n_boot, m + 2))
    for r in range(n_boot):
        idx = rng.integers(0, n, size=n)
        Yr = Y[idx]
        diffs[r] = _summaries(Yr, S_b[idx]) - _summaries(Yr, S_a[idx])
    observed = b0 - a0
    tail = (1 - confidence) / 2
    rows = []
    for k in range(m + 2):
        d = diffs[:, k]
        d = d[~np.isnan(d)]
        if d.size == 0 or np.isnan(observed[k]):
            rows.append((np.nan, np.nan, np.nan, int(d.size)))
            continue
        low, high = np.quantile(d, [tail, 1 - tail])
        p = float(np.mean(np.abs(d - d.mean()) >= abs(observed[k]) - 1e-12))
        rows.append((low, high, p, int(d.size)))
    low, high, p, used = map(np.array, zip(*rows))
    return pd.DataFrame({"A": 100 * a0, "B": 100 * b0, "B - A": 100 * observed, "low": 100 * low,
                         "high": 100 * high, "p": p, "resamples": used.astype(int)},
                        index=pd.Index(names + ["micro", "macro"], name="class"))


def bootstrap_micro(Y, systems, *, n_boot: int = 200, random_state=0) -> np.ndarray:
    """Micro breakeven (%) of every system on the same ``n_boot`` resamples of the documents.

    ``systems`` is a list of score matrices aligned with ``Y``.  Returns an array of shape
    ``(n_boot, len(systems))``: column differences are paired bootstrap differences, e.g. of
    every cell of a tuning grid against the best cell.
    """
    Y, _ = check_score_matrices(Y, systems[0])
    mats = [check_score_matrices(Y, S)[1] for S in systems]
    rng = np.random.default_rng(random_state)
    n = Y.shape[0]
    out = np.empty((int(n_boot), len(mats)))
    m = Y.shape[1]
    for r in range(int(n_boot)):
        idx = rng.integers(0, n, size=n)
        Yr = Y[idx]
        out[r] = [100 * _summaries(Yr, S[idx])[m] for S in mats]
    return out


def mcnemar(Y, S_a, S_b, *, threshold: float = 0.5, categories=None) -> pd.DataFrame:
    """McNemar's exact test per class on the decisions ``score >= threshold``.

    Returns
    -------
    pandas.DataFrame
        Index: the categories; columns ``only A right``, ``only B right`` (documents on which the
        systems disagree) and ``p`` (two-sided exact binomial test of those counts against 1/2;
        1.0 when they never disagree).
    """
    Y, S_a = check_score_matrices(Y, S_a)
    _, S_b = check_score_matrices(Y, S_b)
    truth = Y.astype(bool)
    right_a = (S_a >= threshold) == truth
    right_b = (S_b >= threshold) == truth
    only_a = (right_a & ~right_b).sum(axis=0)
    only_b = (right_b & ~right_a).sum(axis=0)
    p = [binomtest(int(x), int(x + y), 0.5).pvalue if x + y else 1.0 for x, y in zip(only_a, only_b)]
    names = [str(c) for c in (categories if categories is not None else range(Y.shape[1]))]
    return pd.DataFrame({"only A right": only_a.astype(int), "only B right": only_b.astype(int), "p": p},
                        index=pd.Index(names, name="class"))
