"""Effectiveness measures for ranking text classifiers.

Definitions (precision and recall as in Sebastiani 2002, thesis sec. 1.3):
``precision = TP / (TP + FP)``, ``recall = TP / (TP + FN)``.

Ranking measures take scores, not decisions.  Sorting by decreasing score, documents with equal
scores form one *block*: a threshold can only cut between blocks, never inside one (a classifier
cannot separate documents it scores the same).  Every ranking measure here is one sort plus
cumulative sums; the tests keep loop versions as oracles.

* :func:`breakeven_point` -- precision/recall breakeven of one class (thesis sec. 1.3,
  Chakrabarti sec. 5.3.2);
* :func:`micro_breakeven` / :func:`macro_breakeven` -- over several classes (thesis sec. 4.2);
* :func:`eleven_point_average_precision` -- per-document category ranking (de Campos sec. 4);
* :func:`f1_at_k` -- F1 when every document gets its top-k categories (de Campos sec. 4);
* :func:`pr_curve`, :func:`confusion_matrix_binary`, :func:`precision_recall_f1_at_threshold`,
  :func:`breakeven_table`.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp

from hbnlab._validation import check_y01

AVERAGES = ("micro", "macro", None)


# --------------------------------------------------------------------------- validation
def _check_scores_vector(s, n: int, name: str = "scores") -> np.ndarray:
    s = np.asarray(s, dtype=np.float64)
    if s.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector, got shape {s.shape}")
    if s.shape[0] != n:
        raise ValueError(f"y_true has {n} entries but {name} has {s.shape[0]}")
    if not np.all(np.isfinite(s)):
        i = int(np.flatnonzero(~np.isfinite(s))[0])
        raise ValueError(f"{name} must be finite, got {s[i]} at position {i}")
    return s


def check_score_matrices(Y, S) -> tuple[np.ndarray, np.ndarray]:
    Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y)
    S = np.asarray(S.toarray() if sp.issparse(S) else S, dtype=np.float64)
    if Y.ndim == 1:
        Y = Y.reshape(-1, 1)
    if S.ndim == 1:
        S = S.reshape(-1, 1)
    if Y.ndim != 2 or S.ndim != 2:
        raise ValueError(f"Y and S must be matrices (n_documents, n_categories), got shapes {Y.shape}, {S.shape}")
    if Y.shape != S.shape:
        raise ValueError(f"Y has shape {Y.shape} but S has shape {S.shape}")
    values = np.unique(Y)
    if not set(values.tolist()) <= {0, 1}:
        raise ValueError(f"Y must hold binary labels 0/1, got values {values[:5].tolist()}")
    if not np.all(np.isfinite(S)):
        i, j = np.argwhere(~np.isfinite(S))[0]
        raise ValueError(f"S must be finite, got {S[i, j]} at document {i}, category {j}")
    return Y.astype(bool), S


# --------------------------------------------------------------------------- ranking kernel
def _ranked_cuts(y: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cut points of a ranking, in decreasing score order: ``k`` (number of documents above the
    cut) and ``tp`` (positives among them) after each block of equal scores, and the block's
    score."""
    order = np.argsort(-s, kind="stable")
    s_sorted = s[order]
    tp = np.cumsum(y[order], dtype=np.int64)
    ends = np.flatnonzero(np.r_[s_sorted[1:] != s_sorted[:-1], True])  # last index of each block
    return ends + 1, tp[ends], s_sorted[ends]


def breakeven_point(y_true, scores) -> float:
    """Precision/recall breakeven of one class: the value at which precision equals recall.

    Definition.  Sort the documents by decreasing score; documents with equal scores form one
    block and cuts fall only between blocks.  At a cut with ``k`` documents above it, ``TP_k`` of
    them positive and ``n_pos`` positives in all, ``P_k = TP_k / k`` and ``R_k = TP_k / n_pos``.
    Since ``P_k - R_k = TP_k (1/k - 1/n_pos)``, precision equals recall (with ``TP_k > 0``)
    exactly at ``k = n_pos``, and ``P - R`` changes sign from positive to negative between the
    last cut with ``k < n_pos`` and the first with ``k > n_pos``.

    * If a cut falls at ``k = n_pos`` the breakeven is ``P = R = TP_{n_pos} / n_pos`` -- the
      R-precision; with no tied scores this is always the case.
    * Otherwise ``n_pos`` falls inside a block spanning cuts ``k_a < n_pos < k_b`` (``k_a = 0,
      TP = 0`` before the first block).  We interpolate linearly between the two cuts: the count
      of true positives (so recall) grows linearly in ``k`` from ``TP_a`` to ``TP_b`` across the
      block, and precision ``TP(k) / k`` meets recall ``TP(k) / n_pos`` at ``k = n_pos``::

          BEP = (TP_a + (n_pos - k_a) (TP_b - TP_a) / (k_b - k_a)) / n_pos

      This is also the expected R-precision when the tied block is put in random order, so a
      classifier that scores everything the same gets ``n_pos / n``, the class's base rate.

    (Interpolating instead along the straight segment between the points ``(R_a, P_a)`` and
    ``(R_b, P_b)`` of the precision-recall plot would give about 1/2 for constant scores and 0
    whenever ``TP_a = 0``; we do not use it.)

    Parameters
    ----------
    y_true : array-like of shape (n_documents,)
        0/1 (or bool) membership in the class.
    scores : array-like of shape (n_documents,)
        Finite scores, higher = more likely in the class.

    Returns
    -------
    float
        In [0, 1]; NaN when ``y_true`` has no positive (recall undefined).

    Examples
    --------
    >>> breakeven_point([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1])  # R-precision at k = 2
    0.5
    >>> breakeven_point([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1])  # block {2, 3}: (1 + 0.5) / 2
    0.75
    >>> breakeven_point([1, 0, 0, 0], [1, 1, 1, 1])  # constant scores: the base rate
    0.25
    """
    y = check_y01(y_true, name="y_true").astype(bool)
    s = _check_scores_vector(scores, y.size)
    n_pos = int(y.sum())
    if n_pos == 0:
        return float("nan")
    k, tp, _ = _ranked_cuts(y, s)
    # piecewise-linear TP(k) through the cuts, starting at (0, 0)
    tp_at = np.interp(n_pos, np.r_[0, k], np.r_[0, tp])
    return float(tp_at / n_pos)


MICRO_METHODS = ("thresholds", "pooled", "ranks", "documents")
MACRO_METHODS = ("thresholds", "ranks", "documents")
INTERPOLATIONS = ("linear", "nearest")


def _check_interpolation(interpolation: str) -> None:
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"interpolation must be one of {INTERPOLATIONS}, got {interpolation!r}")


def breakeven_columns(Y, S, *, interpolation: str = "linear") -> np.ndarray:
    """:func:`breakeven_point` of every column of ``Y`` ranked by the same column of ``S``.

    One sort of all columns plus cumulative sums.  ``interpolation`` says what to report when no
    cut between tie blocks falls exactly at ``k = n_pos``:

    * ``"linear"`` (default): ``TP`` linear in ``k`` across the block that holds ``n_pos``, read
      at ``k = n_pos`` (:func:`breakeven_point`);
    * ``"nearest"``: the cut where ``|P - R|`` is smallest (the first such), reporting
      ``(P + R) / 2`` there -- the other reading of "the point where precision equals recall"
      when no cut reaches it.

    Both agree wherever a cut falls at ``n_pos`` (always, without ties).  NaN for a column without
    a positive.

    Examples
    --------
    >>> Y = [[1, 1], [0, 0], [1, 0], [0, 0]]
    >>> S = [[0.9, 1], [0.5, 1], [0.5, 1], [0.1, 1]]
    >>> breakeven_columns(Y, S).round(4).tolist()  # (1 + 0.5) / 2; constant scores: the base rate
    [0.75, 0.25]
    >>> breakeven_columns(Y, S, interpolation="nearest").round(4).tolist()  # (2/3 + 1) / 2; (1/4 + 1) / 2
    [0.8333, 0.625]
    """
    _check_interpolation(interpolation)
    Y, S = check_score_matrices(Y, S)
    n, m = Y.shape
    out = np.full(m, np.nan)
    if n == 0 or m == 0:
        return out
    order = np.argsort(-S, axis=0, kind="stable")
    s_sorted = np.take_along_axis(S, order, axis=0)
    tp = np.cumsum(np.take_along_axis(Y, order, axis=0), axis=0, dtype=np.int64)
    is_end = np.ones((n, m), dtype=bool)
    is_end[:-1] = s_sorted[1:] != s_sorted[:-1]  # last position of each tie block
    k = np.arange(1, n + 1, dtype=np.float64)[:, None]
    n_pos = Y.sum(axis=0).astype(np.float64)
    has = n_pos > 0
    if interpolation == "linear":
        # cuts bracketing n_pos: the last end with k <= n_pos (or k = 0) and the first with k >= n_pos
        below = is_end & (k <= n_pos[None, :])
        above = is_end & (k >= n_pos[None, :])
        ia = np.where(below.any(axis=0), n - 1 - np.argmax(below[::-1], axis=0), -1)
        ib = np.argmax(above, axis=0)  # exists: the last position is an end and k = n >= n_pos
        cols = np.arange(m)
        ka = np.where(ia >= 0, ia + 1, 0).astype(np.float64)
        ta = np.where(ia >= 0, tp[np.maximum(ia, 0), cols], 0).astype(np.float64)
        kb = (ib + 1).astype(np.float64)
        tb = tp[ib, cols].astype(np.float64)
        step = np.where(kb > ka, (tb - ta) / np.where(kb > ka, kb - ka, 1.0), 0.0)
        tp_at = ta + (n_pos - ka) * step
        out[has] = tp_at[has] / n_pos[has]
        return out
    with np.errstate(divide="ignore", invalid="ignore"):
        P = tp / k
        R = tp / n_pos[None, :]
    gap = np.where(is_end, np.abs(P - R), np.inf)
    best = np.argmin(gap, axis=0)
    cols = np.arange(m)
    mid = (P[best, cols] + R[best, cols]) / 2.0
    out[has] = mid[has]
    return out


def category_ranks(S) -> np.ndarray:
    """Minus the position (1 = first) of every category in its document's ranking by ``S``.

    Ties within a document are broken by column index, as in :func:`top_k_assignment`, so
    thresholding these scores at ``-k`` assigns every document its top ``k`` categories: a
    threshold "moved" along the category rankings of a category-ranking classifier.
    """
    S = np.asarray(S, dtype=np.float64)
    order = np.argsort(-S, axis=1, kind="stable")
    pos = np.empty(S.shape, dtype=np.float64)
    np.put_along_axis(pos, order, np.arange(1, S.shape[1] + 1, dtype=np.float64)[None, :], axis=1)
    return -pos


def micro_breakeven(Y, S, method: str = "thresholds", *, interpolation: str = "linear") -> float:
    """Micro-averaged breakeven over categories.

    ``Y`` and ``S`` are (n_documents, n_categories).  The definitions in use differ in what the
    threshold moves along and in the order of pooling and breakeven:

    ``method="thresholds"`` (default; the thesis's Table 4.10 values follow it)
        Each category gets its own threshold, at its breakeven point; the per-category
        contingency tables at those thresholds are summed and micro precision and recall are
        taken from the totals.  At a category's breakeven cut TP + FP = TP + FN = n_pos, so
        micro P = micro R = sum_c BEP_c * n_c / sum_c n_c: the per-category breakevens weighted by
        their numbers of positives.  (Evidence: the thesis's micro row equals this weighted mean of
        its own per-class row to 0.05 points for six of its seven classifiers.)
    ``method="pooled"``
        All ``n_documents * n_categories`` (document, category) pairs are ranked together by
        score and :func:`breakeven_point` is taken on that single ranking; scores must then be
        comparable across categories (probabilities).
    ``method="ranks"``
        One threshold ``k`` on every document's category ranking (each document assigned its top
        ``k`` categories, :func:`category_ranks`), the tables pooled over categories: the
        breakeven of a category-ranking classifier.  Assignments grow in steps of
        ``n_documents``; ``TP`` is interpolated between them.
    ``method="documents"``
        Each document its own threshold on its category ranking, at its breakeven; the
        per-document breakevens weighted by the document's number of categories.

    NaN if ``Y`` has no positive.
    """
    Y, S = check_score_matrices(Y, S)
    if method not in MICRO_METHODS:
        raise ValueError(f"method must be one of {MICRO_METHODS}, got {method!r}")
    if method == "pooled":
        return float(breakeven_columns(Y.reshape(-1, 1), S.reshape(-1, 1), interpolation=interpolation)[0])
    if method == "ranks":
        return float(breakeven_columns(Y.reshape(-1, 1), category_ranks(S).reshape(-1, 1),
                                       interpolation=interpolation)[0])
    axis = 0 if method == "thresholds" else 1
    n_pos = Y.sum(axis=axis).astype(np.float64)
    if n_pos.sum() == 0:
        return float("nan")
    b = breakeven_columns(Y, S, interpolation=interpolation) if axis == 0 \
        else breakeven_columns(Y.T, S.T, interpolation=interpolation)
    return float(np.sum(np.nan_to_num(b) * n_pos) / n_pos.sum())


def per_class_breakeven(Y, S, *, interpolation: str = "linear") -> np.ndarray:
    """:func:`breakeven_point` of every column (NaN for a column without positives)."""
    return breakeven_columns(Y, S, interpolation=interpolation)


def macro_breakeven(Y, S, method: str = "thresholds", *, interpolation: str = "linear") -> float:
    """Macro-averaged breakeven: a mean of breakevens, NaN if ``Y`` has no positive.

    ``method="thresholds"`` (default)
        The mean of the per-category breakevens (each category's documents ranked by its
        score), over the categories with at least one positive in ``Y``.
    ``method="ranks"``
        The same mean with every category's documents ranked by the category's position in their
        category rankings (:func:`category_ranks`): the threshold is a rank ``k``.
    ``method="documents"``
        The mean over the documents with at least one category of each document's breakeven on
        its own category ranking (document-pivoted averaging).
    """
    Y, S = check_score_matrices(Y, S)
    if method not in MACRO_METHODS:
        raise ValueError(f"method must be one of {MACRO_METHODS}, got {method!r}")
    if method == "documents":
        b = breakeven_columns(Y.T, S.T, interpolation=interpolation)
    elif method == "ranks":
        b = breakeven_columns(Y, category_ranks(S), interpolation=interpolation)
    else:
        b = breakeven_columns(Y, S, interpolation=interpolation)
    return float(np.mean(b[~np.isnan(b)])) if np.any(~np.isnan(b)) else float("nan")


# --------------------------------------------------------------------------- per document
def _row_cuts(Y: np.ndarray, S: np.ndarray):
    """Row-wise ranking of categories: for each row, the categories by decreasing score (ties by
    column index), cumulative TP and a mask of the positions that end a tie block."""
    order = np.argsort(-S, axis=1, kind="stable")
    s_sorted = np.take_along_axis(S, order, axis=1)
    y_sorted = np.take_along_axis(Y, order, axis=1)
    tp = np.cumsum(y_sorted, axis=1, dtype=np.int64)
    is_end = np.ones(S.shape, dtype=bool)
    is_end[:, :-1] = s_sorted[:, 1:] != s_sorted[:, :-1]
    return order, tp, is_end


def eleven_point_average_precision(Y, S, *, per_document: bool = False):
    """Average 11-point interpolated precision of per-document category rankings.

    This is the category-ranking view of de Campos et al. (sec. 4 and footnote 5): for
    each document the categories are ranked by decreasing score; precision ``P_k`` and recall
    ``R_k`` of the top ``k`` categories (positives = the document's true categories) are taken at
    every cut between tie blocks (equal scores are never split); the interpolated precision at
    recall level ``r`` is ``max{P_k : R_k >= r}``; it is averaged over the 11 levels
    ``r = 0.0, 0.1, ..., 1.0`` and then over the documents.  Documents without any true category
    have no recall and are left out.

    Parameters
    ----------
    Y : array-like of bool, shape (n_documents, n_categories)
    S : array-like of float, shape (n_documents, n_categories)
    per_document : bool, default False
        Return the vector of per-document values (NaN for documents without categories).

    Returns
    -------
    float (or ndarray if ``per_document``)

    Examples
    --------
    >>> # ranks 1 and 3 relevant: precision 1 up to recall 0.5 (6 levels), then 2/3 (5 levels)
    >>> round(eleven_point_average_precision([[1, 0, 1, 0]], [[0.9, 0.8, 0.7, 0.6]]), 6)
    0.848485
    """
    Y, S = check_score_matrices(Y, S)
    _, tp, is_end = _row_cuts(Y, S)
    n_pos = Y.sum(axis=1).astype(np.int64)[:, None]
    k = np.arange(1, Y.shape[1] + 1)[None, :]
    prec = np.where(is_end, tp / k, -np.inf)  # only cuts between blocks count
    # suffix maximum: best precision at this cut or any later one (later = higher recall)
    suffix_max = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]
    levels = np.arange(11)  # recall r = level / 10, compared in integers: 10 TP >= level n_pos
    # first position whose TP reaches the level; TP is non-decreasing, so the qualifying cuts
    # are a suffix (a non-end position is followed by its block's end, which has TP at least as
    # large), and the suffix maximum there is the interpolated precision
    reached = (10 * tp)[:, :, None] >= (levels[None, None, :] * n_pos[:, :, None])
    first = np.argmax(reached, axis=1)  # (n_docs, 11); every level is reached at the last cut
    interp = np.take_along_axis(suffix_max, first, axis=1)
    per_doc = interp.mean(axis=1)
    per_doc[n_pos[:, 0] == 0] = np.nan
    if per_document:
        return per_doc
    valid = ~np.isnan(per_doc)
    return float(per_doc[valid].mean()) if valid.any() else float("nan")


def top_k_assignment(S, k: int) -> np.ndarray:
    """Bool matrix assigning each row its ``k`` highest-scoring columns (ties by column index)."""
    S = np.asarray(S, dtype=np.float64)
    if S.ndim != 2:
        raise ValueError(f"S must be a matrix (n_documents, n_categories), got shape {S.shape}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= S.shape[1]:
        raise ValueError(f"k must be an integer in [1, n_categories={S.shape[1]}], got {k!r}")
    order = np.argsort(-S, axis=1, kind="stable")[:, :k]
    pred = np.zeros(S.shape, dtype=bool)
    np.put_along_axis(pred, order, True, axis=1)
    return pred


def f1_at_k(Y, S, k: int, average: str | None = "micro"):
    """F1 when each document is assigned its ``k`` most probable categories (de Campos sec. 4).

    Ties in a document's scores are broken by column index.  Per category ``c``:
    ``F1_c = 2 TP_c / (2 TP_c + FP_c + FN_c)``.

    Parameters
    ----------
    Y, S : array-like of shape (n_documents, n_categories)
    k : int
        1 <= k <= n_categories (de Campos report k = 1, 3, 5).
    average : {"micro", "macro", None}
        * ``"micro"`` -- TP, FP, FN summed over all categories, then F1;
        * ``"macro"`` -- mean of ``F1_c`` over the categories where it is defined
          (``2 TP_c + FP_c + FN_c > 0``: the category is true for or assigned to some document);
        * ``None`` -- the vector of ``F1_c`` (NaN where undefined).

    Examples
    --------
    >>> Y = [[1, 0, 0], [0, 1, 1]]
    >>> S = [[0.9, 0.5, 0.1], [0.2, 0.7, 0.1]]
    >>> f1_at_k(Y, S, 1)  # TP = 2, FP = 0, FN = 1
    0.8
    """
    if average not in AVERAGES:
        raise ValueError(f"average must be one of {AVERAGES}, got {average!r}")
    Y, S = check_score_matrices(Y, S)
    pred = top_k_assignment(S, k)
    tp = (pred & Y).sum(axis=0).astype(np.float64)
    fp = (pred & ~Y).sum(axis=0).astype(np.float64)
    fn = (~pred & Y).sum(axis=0).astype(np.float64)
    if average == "micro":
        den = 2 * tp.sum() + fp.sum() + fn.sum()
        return float(2 * tp.sum() / den) if den > 0 else float("nan")
    den = 2 * tp + fp + fn
    f1 = np.full(tp.shape, np.nan)
    np.divide(2 * tp, den, out=f1, where=den > 0)
    if average is None:
        return f1
    defined = den > 0
    return float(f1[defined].mean()) if defined.any() else float("nan")


# --------------------------------------------------------------------------- binary decisions
def pr_curve(y_true, scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision-recall curve in scikit-learn's layout.

    ``thresholds`` are the distinct scores in increasing order; ``precision[i]`` and
    ``recall[i]`` are those of assigning every document with ``score >= thresholds[i]`` to the
    class; a final point ``precision = 1, recall = 0`` is appended (so both have one more
    entry than ``thresholds``).  Equals ``sklearn.metrics.precision_recall_curve(y_true,
    scores, drop_intermediate=False)``.

    Raises
    ------
    ValueError
        If ``y_true`` has no positive (recall undefined).
    """
    y = check_y01(y_true, name="y_true").astype(bool)
    s = _check_scores_vector(scores, y.size)
    if not y.any():
        raise ValueError("y_true has no positive example; recall is undefined")
    k, tp, thr = _ranked_cuts(y, s)  # decreasing thresholds
    precision = tp / k
    recall = tp / tp[-1]
    return np.r_[precision[::-1], 1.0], np.r_[recall[::-1], 0.0], thr[::-1]


def confusion_matrix_binary(y_true, y_pred) -> np.ndarray:
    """2x2 counts ``[[TN, FP], [FN, TP]]`` (rows = truth 0/1, columns = decision 0/1; the layout
    of ``sklearn.metrics.confusion_matrix``)."""
    y = check_y01(y_true, name="y_true").astype(bool)
    p = check_y01(y_pred, name="y_pred").astype(bool)
    if p.size != y.size:
        raise ValueError(f"y_true has {y.size} entries but y_pred has {p.size}")
    idx = 2 * y.astype(np.int64) + p.astype(np.int64)
    return np.bincount(idx, minlength=4).reshape(2, 2)


def precision_recall_f1_at_threshold(y_true, scores, threshold: float) -> tuple[float, float, float]:
    """Precision, recall and F1 of assigning the class where ``score >= threshold``.

    A ratio whose denominator is 0 (no document assigned, no positive, or both precision and
    recall 0) is reported as 0.0.
    """
    y = check_y01(y_true, name="y_true").astype(bool)
    s = _check_scores_vector(scores, y.size)
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be finite, got {threshold}")
    (tn, fp), (fn, tp) = confusion_matrix_binary(y, s >= threshold)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return float(p), float(r), float(f1)


# --------------------------------------------------------------------------- tables
def breakeven_table(Y, S, categories: Sequence[str]) -> pd.DataFrame:
    """Per-category breakevens plus ``micro`` and ``macro`` rows, in percent (thesis Table 4.10).

    Returns
    -------
    pandas.DataFrame
        Index ``category`` (the category names, then ``"micro"`` and ``"macro"``), columns
        ``breakeven`` (percent, NaN for a category without positives) and ``n_positive`` (number
        of positive documents; the total for micro and macro).
    """
    Y, S = check_score_matrices(Y, S)
    categories = [str(c) for c in categories]
    if len(categories) != Y.shape[1]:
        raise ValueError(f"{len(categories)} category names for {Y.shape[1]} columns")
    per = per_class_breakeven(Y, S)
    n_pos = Y.sum(axis=0).astype(np.int64)
    values = np.r_[per, micro_breakeven(Y, S), macro_breakeven(Y, S)] * 100.0
    idx = pd.Index(categories + ["micro", "macro"], name="category")
    return pd.DataFrame({"breakeven": values, "n_positive": np.r_[n_pos, n_pos.sum(), n_pos.sum()]}, index=idx)
