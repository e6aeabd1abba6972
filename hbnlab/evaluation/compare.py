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

__all__ = ["paired_bootstrap", "mcnemar", "bootstrap_micro", "resampled_breakevens"]


def _summaries(Y: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Per-class breakeven, then micro (weighted by positives) and macro; NaN where undefined."""
    return _summarise(per_class_breakeven(Y, S), Y.sum(axis=0).astype(np.float64))


def _summarise(b: np.ndarray, n_pos: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(b)
    micro = float(np.sum(b[ok] * n_pos[ok]) / n_pos[ok].sum()) if ok.any() else np.nan
    macro = float(np.mean(b[ok])) if ok.any() else np.nan
    return np.concatenate([b, [micro, macro]])


#: Resamples whose multiplicities are held in memory at once (rows of an n_documents-wide matrix).
RESAMPLE_CHUNK = 64


def _resample_counts(rng, n: int, n_boot: int):
    """Chunks of multiplicities (rows: resamples, columns: documents) of ``n_boot`` draws of ``n``
    documents with replacement, drawn exactly as ``rng.integers(0, n, size=n)`` one resample after
    the other."""
    for start in range(0, n_boot, RESAMPLE_CHUNK):
        rows = min(RESAMPLE_CHUNK, n_boot - start)
        W = np.empty((rows, n), dtype=np.int64)
        for r in range(rows):
            W[r] = np.bincount(rng.integers(0, n, size=n), minlength=n)
        yield W


def resampled_breakevens(Y, S, W) -> tuple[np.ndarray, np.ndarray]:
    """Per-class breakeven of every resample at once: ``(B, n_pos)``, both (n_resamples, n_categories).

    ``W`` (n_resamples, n_documents) holds how often each document is drawn.  A resample repeats
    document i W[r, i] times; copies share its score, so the tie blocks of a resample are those of
    the full set (a block drawn 0 times adds no cut), and the breakeven of
    :func:`hbnlab.evaluation.measures.breakeven_point` (TP linear in k across the block holding
    k = n_pos) follows from the weighted counts at the blocks' ends: one sort per class for every
    resample, instead of one per class and resample.  The arithmetic is that of
    :func:`~hbnlab.evaluation.measures.breakeven_columns`, so the values are the same to the bit.
    """
    return _resampled(_rankings(Y, S), W)


def _rankings(Y, S) -> list:
    """Per class: the documents by decreasing score (stable), their labels in that order and the
    last position of each tie block -- what :func:`_resampled` needs of ``S``, whatever the resample."""
    Y, S = check_score_matrices(Y, S)
    out = []
    for j in range(Y.shape[1] if Y.shape[0] else 0):
        order = np.argsort(-S[:, j], kind="stable")
        s_sorted = S[order, j]
        ends = np.flatnonzero(np.r_[s_sorted[1:] != s_sorted[:-1], True])
        out.append((order, Y[order, j], ends, Y[:, j]))
    return out


def _resampled(rankings: list, W) -> tuple[np.ndarray, np.ndarray]:
    """:func:`resampled_breakevens` from the classes' :func:`_rankings`."""
    W = np.asarray(W, dtype=np.int64)
    n = W.shape[1]
    R, m = W.shape[0], len(rankings)
    B = np.full((R, m), np.nan)
    n_pos = np.zeros((R, m))
    rows = np.arange(R)
    for j, (order, y_sorted, ends, y) in enumerate(rankings):
        pos_i = W @ y
        # the cut at n_pos lies near the top when positives are few: cumulate a prefix of the ranking
        # (ending at a block's end) that every resample's count reaches, doubling it until it does
        L = n
        if pos_i.size:
            L = min(n, 2 * int(pos_i.max()) + 64)
        while True:
            L = int(ends[np.searchsorted(ends, L - 1)]) + 1
            Wj = W[:, order[:L]]
            K = np.cumsum(Wj, axis=1)
            if L == n or bool(np.all(K[:, -1] >= pos_i)):
                break
            L = min(n, 2 * L)
        e = ends[ends < L]
        K = K[:, e]
        TP = np.cumsum(Wj * y_sorted[:L], axis=1)[:, e]
        pos = pos_i.astype(np.float64)
        n_pos[:, j] = pos
        has = pos > 0
        ib = np.argmax(K >= pos_i[:, None], axis=1)  # the first cut at or past n_pos
        kb, tb = K[rows, ib].astype(np.float64), TP[rows, ib].astype(np.float64)
        prev = np.maximum(ib - 1, 0)
        ka = np.where(ib > 0, K[rows, prev], 0).astype(np.float64)
        ta = np.where(ib > 0, TP[rows, prev], 0).astype(np.float64)
        exact = kb == pos  # a cut at n_pos: breakeven_columns reads TP there (its step is 0)
        ka, ta = np.where(exact, kb, ka), np.where(exact, tb, ta)
        step = np.where(kb > ka, (tb - ta) / np.where(kb > ka, kb - ka, 1.0), 0.0)
        tp_at = ta + (pos - ka) * step
        B[has, j] = tp_at[has] / pos[has]
    return B, n_pos


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
    r = 0
    rank_a, rank_b = _rankings(Y, S_a), _rankings(Y, S_b)
    for W in _resample_counts(rng, n, n_boot):
        Ba, pos = _resampled(rank_a, W)
        Bb, _ = _resampled(rank_b, W)
        for i in range(W.shape[0]):
            diffs[r] = _summarise(Bb[i], pos[i]) - _summarise(Ba[i], pos[i])
            r += 1
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
    n, m = Y.shape
    out = np.empty((int(n_boot), len(mats)))
    r = 0
    ranks = [_rankings(Y, S) for S in mats]
    for W in _resample_counts(rng, n, int(n_boot)):
        per = [_resampled(rk, W) for rk in ranks]
        for i in range(W.shape[0]):
            out[r] = [100 * _summarise(B[i], pos[i])[m] for B, pos in per]
            r += 1
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
