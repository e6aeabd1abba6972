"""Breakeven (per class, micro, macro, table): hand-computed cases, a slow loop oracle, an
expected-over-tie-orders oracle, metamorphic properties and bad input."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hbnlab.evaluation import (
    breakeven_point,
    breakeven_table,
    macro_breakeven,
    micro_breakeven,
    per_class_breakeven,
)


# --------------------------------------------------------------------------- oracles
def loop_breakeven(y, s) -> float:
    """Slow, literal version of the documented definition."""
    y = [bool(v) for v in y]
    s = [float(v) for v in s]
    n_pos = sum(y)
    if n_pos == 0:
        return math.nan
    ranked = sorted(range(len(y)), key=lambda i: -s[i])
    cuts = [(0, 0)]  # (k, TP) after each block of equal scores
    tp = 0
    for pos, i in enumerate(ranked):
        tp += y[i]
        last_of_block = pos == len(ranked) - 1 or s[ranked[pos + 1]] != s[i]
        if last_of_block:
            cuts.append((pos + 1, tp))
    for k, tp in cuts:
        if k == n_pos:  # P = R exactly here
            return tp / n_pos
    for (ka, ta), (kb, tb) in zip(cuts, cuts[1:]):
        if ka < n_pos < kb:  # P - R changes sign between these cuts
            tp_interp = ta + (n_pos - ka) * (tb - ta) / (kb - ka)
            p, r = tp_interp / n_pos, tp_interp / n_pos  # precision TP/k with k = n_pos, recall TP/n_pos
            assert p == r
            return p
    raise AssertionError("unreachable")


def expected_r_precision(y, s) -> float:
    """Mean R-precision over every order of the tied documents (brute force, tiny inputs)."""
    y = np.asarray(y, dtype=bool)
    s = np.asarray(s, dtype=float)
    n_pos = int(y.sum())
    groups = [np.flatnonzero(s == v) for v in sorted(set(s.tolist()), reverse=True)]
    total, count = 0.0, 0
    for orders in itertools.product(*[itertools.permutations(g) for g in groups]):
        ranking = np.concatenate([np.array(o, dtype=int) for o in orders])
        total += y[ranking[:n_pos]].sum() / n_pos
        count += 1
    return total / count


def precision_recall_at_cut(y, s, k):
    order = np.argsort(-np.asarray(s), kind="stable")
    tp = np.asarray(y, dtype=bool)[order[:k]].sum()
    return tp / k, tp / np.sum(y)


# --------------------------------------------------------------------------- hand-computed
def test_golden_values():
    # no ties, 2 positives: R-precision at k = 2 (one of the top two is positive)
    assert breakeven_point([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]) == 0.5
    # perfect ranking, worst ranking
    assert breakeven_point([1, 1, 0, 0], [4, 3, 2, 1]) == 1.0
    assert breakeven_point([0, 0, 1, 1], [4, 3, 2, 1]) == 0.0
    # tie block {0.5, 0.5} spans k = 1 .. 3 with TP 1 -> 2; at k = n_pos = 2: TP = 1.5
    assert breakeven_point([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1]) == 0.75
    # constant scores: the base rate
    assert breakeven_point([1, 0, 0, 0, 0], [0.3] * 5) == pytest.approx(0.2)
    # first block larger than n_pos: cut 0 (k=0, TP=0) to cut 3 (TP = 1), n_pos = 1 -> 1/3
    assert breakeven_point([0, 1, 0, 0], [0.9, 0.9, 0.9, 0.1]) == pytest.approx(1 / 3)
    # bool inputs, ints, lists
    assert breakeven_point(np.array([True, False]), np.array([2, 1])) == 1.0


def test_no_positive_is_nan():
    assert math.isnan(breakeven_point([0, 0, 0], [0.1, 0.2, 0.3]))


def test_precision_equals_recall_at_the_breakeven_cut():
    y = [1, 0, 1, 1, 0, 0, 1, 0]
    s = [0.95, 0.9, 0.85, 0.5, 0.45, 0.4, 0.3, 0.1]
    p, r = precision_recall_at_cut(y, s, 4)
    assert p == r == breakeven_point(y, s) == 0.75


# --------------------------------------------------------------------------- oracles
labels_scores = st.integers(1, 9).flatmap(
    lambda n: st.tuples(st.lists(st.booleans(), min_size=n, max_size=n),
                        st.lists(st.integers(0, 4), min_size=n, max_size=n)))


@settings(max_examples=300, deadline=None)
@given(labels_scores)
def test_matches_loop_oracle(ys):
    y, s = ys
    ours, ref = breakeven_point(y, s), loop_breakeven(y, s)
    if math.isnan(ref):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(ref, abs=1e-12)
        assert 0.0 <= ours <= 1.0


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7).flatmap(
    lambda n: st.tuples(st.lists(st.booleans(), min_size=n, max_size=n),
                        st.lists(st.integers(0, 2), min_size=n, max_size=n))))
def test_equals_expected_r_precision_over_tie_orders(ys):
    y, s = ys
    assume(any(y))
    assert breakeven_point(y, s) == pytest.approx(expected_r_precision(y, s), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 30).flatmap(
    lambda n: st.tuples(st.lists(st.booleans(), min_size=n, max_size=n),
                        st.permutations(list(range(n))))))
def test_no_ties_gives_r_precision(ys):
    """Classical result: with distinct scores P = R exactly at k = n_pos (R-precision)."""
    y, s = ys
    assume(any(y))
    n_pos = sum(y)
    p, r = precision_recall_at_cut(y, s, n_pos)
    assert p == r
    assert breakeven_point(y, s) == pytest.approx(p, abs=1e-15)


# --------------------------------------------------------------------------- metamorphic
MONOTONE = [
    lambda x: 2 * x + 1,
    lambda x: x ** 3,
    lambda x: np.exp(x / 7.0),
    lambda x: 1 / (1 + np.exp(-x)),  # logistic: log-odds -> probability
]


@settings(max_examples=200, deadline=None)
@given(labels_scores, st.sampled_from(range(len(MONOTONE))), st.integers(0, 10**6))
def test_invariant_to_monotone_transform_and_row_permutation(ys, which, seed):
    y, s = ys
    y, s = np.array(y), np.array(s, dtype=float)
    assume(y.any())
    base = breakeven_point(y, s)
    assert breakeven_point(y, MONOTONE[which](s)) == pytest.approx(base, abs=1e-12)
    perm = np.random.default_rng(seed).permutation(y.size)
    assert breakeven_point(y[perm], s[perm]) == pytest.approx(base, abs=1e-12)


# --------------------------------------------------------------------------- micro / macro
def test_micro_macro_golden():
    Y = np.array([[1, 0],
                  [0, 1],
                  [1, 0],
                  [0, 0]])
    S = np.array([[0.9, 0.1],
                  [0.8, 0.7],
                  [0.2, 0.3],
                  [0.4, 0.6]])
    # class 0: ranking 0.9(+) 0.8 0.4 0.2(+), n_pos 2 -> R-precision 1/2
    # class 1: ranking 0.7(+) 0.6 0.3 0.1, n_pos 1 -> 1
    np.testing.assert_allclose(per_class_breakeven(Y, S), [0.5, 1.0])
    assert macro_breakeven(Y, S) == 0.75
    # pooled: 0.9(+) 0.8 0.7(+) 0.6 ...; n_pos 3: top 3 holds 2 positives -> 2/3
    assert micro_breakeven(Y, S, method="pooled") == pytest.approx(2 / 3)
    # per-class thresholds: (0.5 * 2 + 1.0 * 1) / 3 positives = 2/3 (equal here by coincidence)
    assert micro_breakeven(Y, S) == pytest.approx(2 / 3)
    t = breakeven_table(Y, S, ["earn", "acq"])
    assert isinstance(t, pd.DataFrame)
    assert list(t.index) == ["earn", "acq", "micro", "macro"] and t.index.name == "category"
    np.testing.assert_allclose(t["breakeven"].to_numpy(), [50.0, 100.0, 200 / 3, 75.0])
    assert t["n_positive"].tolist() == [2, 1, 3, 3]


def test_micro_pools_and_macro_skips_empty_classes():
    rng = np.random.default_rng(3)
    Y = rng.random((40, 5)) < 0.3
    Y[:, 4] = False  # a class with no positive
    S = rng.random((40, 5))
    assert micro_breakeven(Y, S, method="pooled") == pytest.approx(loop_breakeven(Y.ravel(), S.ravel()))
    per = [loop_breakeven(Y[:, j], S[:, j]) for j in range(4)]
    n = Y.sum(axis=0)[:4]
    assert micro_breakeven(Y, S) == pytest.approx(np.dot(per, n) / n.sum())
    assert math.isnan(per_class_breakeven(Y, S)[4])
    assert macro_breakeven(Y, S) == pytest.approx(np.mean(per))
    assert math.isnan(breakeven_table(Y, S, list("abcde")).loc["e", "breakeven"])
    assert math.isnan(macro_breakeven(np.zeros((3, 2)), np.ones((3, 2))))


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_micro_macro_metamorphic(seed):
    rng = np.random.default_rng(seed)
    Y = rng.random((12, 4)) < 0.35
    S = rng.integers(0, 5, size=(12, 4)).astype(float) / 4
    assume(Y.any())
    m, M = micro_breakeven(Y, S, method="pooled"), macro_breakeven(Y, S)
    mt = micro_breakeven(Y, S)
    perm = rng.permutation(12)
    cols = rng.permutation(4)
    assert micro_breakeven(Y[perm][:, cols], S[perm][:, cols], method="pooled") == pytest.approx(m, abs=1e-12)
    assert micro_breakeven(Y[perm][:, cols], S[perm][:, cols]) == pytest.approx(mt, abs=1e-12)
    # per-class thresholds: a different monotone transform per class changes nothing
    S2 = S * np.array([1.0, 10.0, 0.01, 3.0]) + np.array([0.0, -5.0, 7.0, 1.0])
    assert micro_breakeven(Y, S2) == pytest.approx(mt, abs=1e-12)
    assert macro_breakeven(Y[perm][:, cols], S[perm][:, cols]) == pytest.approx(M, abs=1e-12, nan_ok=True)
    # a strictly monotone transform applied to all scores (e.g. log-odds -> probability)
    assert micro_breakeven(Y, 1 / (1 + np.exp(-(3 * S - 1))), method="pooled") == pytest.approx(m, abs=1e-12)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call, message", [
    (lambda: breakeven_point([1, 0], [0.5]), "y_true has 2 entries but scores has 1"),
    (lambda: breakeven_point([1, 2], [0.5, 0.1]), "binary labels 0/1, got values \\[1, 2\\]"),
    (lambda: breakeven_point([1, 0], [np.nan, 0.1]), "scores must be finite, got nan at position 0"),
    (lambda: breakeven_point([[1, 0]], [[0.5, 0.1]]), "y_true must be a 1-D vector"),
    (lambda: micro_breakeven(np.ones((2, 3)), np.ones((3, 2))), "Y has shape \\(2, 3\\) but S has shape \\(3, 2\\)"),
    (lambda: macro_breakeven([[1, 0]], [[np.inf, 0.0]]), "S must be finite, got inf at document 0, category 0"),
    (lambda: breakeven_table([[1, 0]], [[0.1, 0.2]], ["a"]), "1 category names for 2 columns"),
])
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
