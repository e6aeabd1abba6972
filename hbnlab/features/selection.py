"""Choose terms from a score matrix: locally (a set per category, as in the thesis sec. 1.3 and
4.1.2) or globally (one set for all categories, Yang and Pedersen 1997)."""
from __future__ import annotations

import numpy as np

AGGREGATES = ("max", "sum", "weighted")


def _check_scores(scores) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim == 1:
        s = s.reshape(-1, 1)
    if s.ndim != 2:
        raise ValueError(f"scores must be a matrix (n_terms, n_categories), got shape {s.shape}")
    if np.isnan(s).any():
        i, j = np.argwhere(np.isnan(s))[0]
        raise ValueError(f"scores must not contain NaN, found one at term {i}, category {j}")
    return s


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    return int(k)


def select_local(scores, k: int) -> list[np.ndarray]:
    """Top-``k`` terms of every category.

    Parameters
    ----------
    scores : array-like of shape (n_terms, n_categories)
        From :func:`hbnlab.features.score_terms` (a vector is one category).
    k : int
        Terms per category; all terms if ``k >= n_terms``.

    Returns
    -------
    list of ndarray of int64
        Entry ``j`` holds the column indices for category ``j`` by decreasing score; equal
        scores are ordered by increasing index.

    Examples
    --------
    >>> select_local([[0.1, 3.0], [0.5, 3.0], [0.5, 1.0]], 2)
    [array([1, 2]), array([0, 1])]
    """
    s = _check_scores(scores)
    k = _check_k(k)
    # stable sort of -s: decreasing score, ties by increasing index, for all columns at once
    order = np.argsort(-s, axis=0, kind="stable")[:k]
    return [order[:, j].astype(np.int64) for j in range(s.shape[1])]


def aggregate_scores(scores, aggregate: str = "max", weights=None) -> np.ndarray:
    """One score per term from a per-category score matrix (Yang & Pedersen 1997).

    * ``"max"`` -- ``max_j s(t, c_j)``;
    * ``"sum"`` -- ``sum_j s(t, c_j)``;
    * ``"weighted"`` -- ``sum_j w_j s(t, c_j)`` with ``weights`` ``w_j``, usually the category
      priors ``P(c_j)`` (Yang & Pedersen's average).  Categories with weight 0 are left out (so a
      ``-inf`` MI score there does not turn into NaN).
    """
    s = _check_scores(scores)
    if aggregate == "max":
        return s.max(axis=1)
    if aggregate == "sum":
        with np.errstate(invalid="ignore"):  # +inf + -inf -> NaN, reported by select_global
            return s.sum(axis=1)
    if aggregate == "weighted":
        if weights is None:
            raise ValueError("aggregate='weighted' needs weights (e.g. the category priors P(c_j))")
        w = np.asarray(weights, dtype=np.float64).ravel()
        if w.size != s.shape[1]:
            raise ValueError(f"weights has {w.size} entries but scores has {s.shape[1]} categories")
        if not np.all(np.isfinite(w)) or (w < 0).any():
            raise ValueError(f"weights must be finite and >= 0, got {w[~np.isfinite(w) | (w < 0)][:3].tolist()}")
        used = w > 0
        return s[:, used] @ w[used] if used.any() else np.zeros(s.shape[0])
    raise ValueError(f"aggregate must be one of {AGGREGATES}, got {aggregate!r}")


def select_global(scores, k: int, aggregate: str = "max", weights=None) -> np.ndarray:
    """Top-``k`` terms by an aggregate of their per-category scores (one set for all categories).

    Parameters
    ----------
    scores : array-like of shape (n_terms, n_categories)
    k : int
    aggregate : {"max", "sum", "weighted"}
        See :func:`aggregate_scores`.
    weights : array-like of shape (n_categories,), optional
        Required for ``"weighted"``.

    Returns
    -------
    ndarray of int64
        Column indices by decreasing aggregate score, ties by increasing index.
    """
    k = _check_k(k)
    a = aggregate_scores(scores, aggregate, weights)
    if np.isnan(a).any():
        raise ValueError("aggregated scores contain NaN (+inf and -inf scores were summed)")
    return np.argsort(-a, kind="stable")[:k].astype(np.int64)
