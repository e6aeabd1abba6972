"""11-point average precision, F1@k, PR curves, confusion matrices and thresholded precision/recall:
hand-computed values, loop oracles, scikit-learn oracles, metamorphic properties, bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix, f1_score, precision_recall_curve, precision_score, recall_score

from hbnlab.evaluation import (
    confusion_matrix_binary,
    eleven_point_average_precision,
    f1_at_k,
    pr_curve,
    precision_recall_f1_at_threshold,
    top_k_assignment,
)


# --------------------------------------------------------------------------- oracles
def loop_eleven_point(Y, S) -> float:
    values = []
    for y, s in zip(np.asarray(Y, bool), np.asarray(S, float)):
        n_pos = y.sum()
        if n_pos == 0:
            continue
        ranked = sorted(range(len(y)), key=lambda j: (-s[j], j))
        points = []  # (recall, precision) after each block of equal scores
        tp = 0
        for pos, j in enumerate(ranked):
            tp += y[j]
            if pos == len(ranked) - 1 or s[ranked[pos + 1]] != s[j]:
                points.append((tp / n_pos, tp / (pos + 1)))
        interp = []
        for level in range(11):
            r = level / 10
            interp.append(max(p for rec, p in points if rec >= r - 1e-12))
        values.append(sum(interp) / 11)
    return sum(values) / len(values) if values else math.nan


def loop_f1_at_k(Y, S, k, average):
    Y = np.asarray(Y, bool)
    S = np.asarray(S, float)
    n, m = Y.shape
    pred = np.zeros((n, m), bool)
    for i in range(n):
        for j in sorted(range(m), key=lambda j: (-S[i, j], j))[:k]:
            pred[i, j] = True
    if average == "micro":
        return f1_score(Y.ravel(), pred.ravel(), zero_division=np.nan)
    f1s = []
    for j in range(m):
        tp = np.sum(pred[:, j] & Y[:, j]); fp = np.sum(pred[:, j] & ~Y[:, j]); fn = np.sum(~pred[:, j] & Y[:, j])  # noqa
        if 2 * tp + fp + fn:
            f1s.append(2 * tp / (2 * tp + fp + fn))
    return np.mean(f1s) if f1s else math.nan


matrices = st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(0, 10**6)).map(
    lambda t: (np.random.default_rng(t[2]).random((t[0], t[1])) < 0.4,
               np.random.default_rng(t[2] + 1).integers(0, 4, size=(t[0], t[1])) / 3.0))


# --------------------------------------------------------------------------- 11-point
def test_eleven_point_golden():
    # ranks 1 and 3 relevant of 4: P = 1 for r <= 0.5 (6 levels), 2/3 for r >= 0.6 (5 levels)
    assert eleven_point_average_precision([[1, 0, 1, 0]], [[0.9, 0.8, 0.7, 0.6]]) == pytest.approx(
        (6 * 1 + 5 * 2 / 3) / 11)
    # perfect rankings give 1; a document with no category is skipped
    Y = [[1, 0, 0], [0, 1, 1], [0, 0, 0]]
    S = [[0.9, 0.1, 0.0], [0.1, 0.5, 0.6], [0.3, 0.2, 0.1]]
    assert eleven_point_average_precision(Y, S) == 1.0
    per = eleven_point_average_precision(Y, S, per_document=True)
    assert per[:2].tolist() == [1.0, 1.0] and math.isnan(per[2])
    # only relevant category ranked last of 4: P = 1/4 at every level
    assert eleven_point_average_precision([[0, 0, 0, 1]], [[4, 3, 2, 1]]) == 0.25
    # all scores tied: the only cut is k = 4 -> precision = 2/4 at every level
    assert eleven_point_average_precision([[1, 0, 1, 0]], [[0.5] * 4]) == 0.5
    assert math.isnan(eleven_point_average_precision([[0, 0]], [[0.1, 0.2]]))


@settings(max_examples=150, deadline=None)
@given(matrices)
def test_eleven_point_matches_loop_oracle(YS):
    Y, S = YS
    ours, ref = eleven_point_average_precision(Y, S), loop_eleven_point(Y, S)
    if math.isnan(ref):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(ref, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(matrices, st.integers(0, 10**6))
def test_eleven_point_metamorphic(YS, seed):
    Y, S = YS
    assume(Y.any())
    base = eleven_point_average_precision(Y, S)
    rng = np.random.default_rng(seed)
    rows, cols = rng.permutation(Y.shape[0]), rng.permutation(Y.shape[1])
    assert eleven_point_average_precision(Y[rows][:, cols], S[rows][:, cols]) == pytest.approx(base, abs=1e-12)
    assert eleven_point_average_precision(Y, np.exp(3 * S) - 5) == pytest.approx(base, abs=1e-12)
    # a per-row monotone transform changes no document's ranking
    shift = rng.normal(size=(Y.shape[0], 1))
    assert eleven_point_average_precision(Y, 2 * S + shift) == pytest.approx(base, abs=1e-12)


# --------------------------------------------------------------------------- F1@k
def test_f1_at_k_golden():
    Y = np.array([[1, 0, 0], [0, 1, 1]])
    S = np.array([[0.9, 0.5, 0.1], [0.2, 0.7, 0.1]])
    # k = 1: doc0 -> {0} TP, doc1 -> {1} TP, FN = (1, 2): TP 2, FP 0, FN 1 -> 4 / 5
    assert f1_at_k(Y, S, 1) == pytest.approx(0.8)
    # per category: c0 1, c1 1, c2 0 (FN only) -> macro 2/3
    np.testing.assert_allclose(f1_at_k(Y, S, 1, average=None), [1.0, 1.0, 0.0])
    assert f1_at_k(Y, S, 1, "macro") == pytest.approx(2 / 3)
    # k = 3 assigns everything: TP 3, FP 3, FN 0 -> 6 / 9
    assert f1_at_k(Y, S, 3) == pytest.approx(6 / 9)
    # ties broken by column index
    np.testing.assert_array_equal(top_k_assignment([[0.5, 0.5, 0.5]], 2), [[True, True, False]])
    # a category neither true nor assigned anywhere is undefined and left out of the macro mean
    Y2 = np.array([[1, 0], [1, 0]])
    S2 = np.array([[0.9, 0.1], [0.8, 0.2]])
    f = f1_at_k(Y2, S2, 1, average=None)
    assert f[0] == 1.0 and math.isnan(f[1])
    assert f1_at_k(Y2, S2, 1, "macro") == 1.0


@settings(max_examples=150, deadline=None)
@given(matrices, st.integers(1, 6), st.sampled_from(["micro", "macro"]))
def test_f1_at_k_matches_loop_oracle(YS, k, average):
    Y, S = YS
    assume(k <= Y.shape[1])
    ours, ref = f1_at_k(Y, S, k, average), loop_f1_at_k(Y, S, k, average)
    if math.isnan(ref):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(ref, abs=1e-12)


# --------------------------------------------------------------------------- binary decisions
@settings(max_examples=150, deadline=None)
@given(st.integers(1, 20).flatmap(
    lambda n: st.tuples(st.lists(st.booleans(), min_size=n, max_size=n),
                        st.lists(st.integers(0, 5), min_size=n, max_size=n))))
def test_pr_curve_matches_sklearn(ys):
    y, s = ys
    assume(any(y))
    s = np.array(s, float) / 5
    p, r, t = pr_curve(y, s)
    sp_, sr, st_ = precision_recall_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(p, sp_)
    np.testing.assert_allclose(r, sr)
    np.testing.assert_allclose(t, st_)
    # each point is precision/recall at that threshold
    for i, thr in enumerate(t):
        pi, ri, _ = precision_recall_f1_at_threshold(y, s, thr)
        assert (pi, ri) == pytest.approx((p[i], r[i]))


def test_pr_curve_golden():
    p, r, t = pr_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    np.testing.assert_allclose(p, [0.5, 2 / 3, 0.5, 1.0, 1.0])
    np.testing.assert_allclose(r, [1.0, 1.0, 0.5, 0.5, 0.0])
    np.testing.assert_allclose(t, [0.1, 0.35, 0.4, 0.8])


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 20).flatmap(
    lambda n: st.tuples(st.lists(st.booleans(), min_size=n, max_size=n),
                        st.lists(st.integers(0, 5), min_size=n, max_size=n))), st.integers(0, 6))
def test_thresholded_measures_match_sklearn(ys, thr):
    y, s = ys
    y, s = np.array(y), np.array(s, float)
    pred = s >= thr
    np.testing.assert_array_equal(confusion_matrix_binary(y, pred), confusion_matrix(y, pred, labels=[0, 1]))
    p, r, f = precision_recall_f1_at_threshold(y, s, thr)
    assert p == pytest.approx(precision_score(y, pred, zero_division=0))
    assert r == pytest.approx(recall_score(y, pred, zero_division=0))
    assert f == pytest.approx(f1_score(y, pred, zero_division=0))


def test_thresholded_golden():
    y = [1, 1, 0, 0, 1]
    s = [0.9, 0.4, 0.6, 0.2, 0.5]
    np.testing.assert_array_equal(confusion_matrix_binary(y, np.array(s) >= 0.5), [[1, 1], [1, 2]])
    p, r, f = precision_recall_f1_at_threshold(y, s, 0.5)  # assigned {0.9, 0.6, 0.5}: TP 2, FP 1, FN 1
    assert (p, r, f) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    assert precision_recall_f1_at_threshold(y, s, 0.95) == (0.0, 0.0, 0.0)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call, message", [
    (lambda: eleven_point_average_precision([[1, 0]], [[0.1]]), "Y has shape \\(1, 2\\) but S has shape \\(1, 1\\)"),
    (lambda: f1_at_k([[1, 0]], [[0.1, 0.2]], 3), "k must be an integer in \\[1, n_categories=2\\], got 3"),
    (lambda: f1_at_k([[1, 0]], [[0.1, 0.2]], 1, average="weighted"), "average must be one of"),
    (lambda: pr_curve([0, 0], [0.1, 0.2]), "no positive example"),
    (lambda: confusion_matrix_binary([0, 1], [1]), "y_true has 2 entries but y_pred has 1"),
    (lambda: confusion_matrix_binary([0, 1], [0, 3]), "y_pred must hold binary labels"),
    (lambda: precision_recall_f1_at_threshold([0, 1], [0.1, 0.2], np.nan), "threshold must be finite"),
])
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --------------------------------------------------------------------------- thesis-sized input
def test_reuters_sized_input():
    """The measures on the ModApte test set's size (3019 documents x 90 categories).  Speed is
    measured by ``benchmarks/bench_features.py``, not here."""
    from hbnlab.evaluation import breakeven_table, macro_breakeven, micro_breakeven

    rng = np.random.default_rng(0)
    Y = rng.random((3019, 90)) < 0.015
    S = rng.random((3019, 90))
    for value in (micro_breakeven(Y, S), macro_breakeven(Y, S), eleven_point_average_precision(Y, S),
                  f1_at_k(Y, S, 5, "macro")):
        assert 0.0 <= value <= 1.0
    assert breakeven_table(Y, S, [str(j) for j in range(90)]).shape == (92, 2)
