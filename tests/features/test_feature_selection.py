"""select_local / select_global: hand cases, a sort-based oracle, and bad input."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hbnlab.features import aggregate_scores, score_terms, select_global, select_local


def test_local_golden():
    scores = np.array([[0.1, 3.0],
                       [0.5, 3.0],
                       [0.5, 1.0],
                       [0.0, 2.0]])
    out = select_local(scores, 3)
    assert [o.tolist() for o in out] == [[1, 2, 0], [0, 1, 3]]  # ties by index
    assert [o.tolist() for o in select_local(scores, 10)] == [[1, 2, 0, 3], [0, 1, 3, 2]]
    assert select_local(scores[:, 0], 1)[0].tolist() == [1]  # a vector is one category
    assert all(o.dtype == np.int64 for o in out)


def test_local_with_infinities():
    mi = np.array([[-np.inf], [0.5], [-np.inf], [np.inf]])
    assert select_local(mi, 4)[0].tolist() == [3, 1, 0, 2]


def test_global_golden():
    scores = np.array([[1.0, 0.0],
                       [0.6, 0.6],
                       [0.0, 0.9],
                       [0.9, 0.1]])
    assert select_global(scores, 2, "max").tolist() == [0, 2]
    assert select_global(scores, 2, "sum").tolist() == [1, 0]  # sums 1.0, 1.2, 0.9, 1.0
    # weighted by priors (0.9, 0.1): 0.9, 0.6, 0.09, 0.82
    assert select_global(scores, 3, "weighted", weights=[0.9, 0.1]).tolist() == [0, 3, 1]
    np.testing.assert_allclose(aggregate_scores(scores, "weighted", [0.9, 0.1]), [0.9, 0.6, 0.09, 0.82])


def test_weighted_skips_zero_weight_categories():
    mi = np.array([[1.0, -np.inf], [0.5, 2.0]])
    np.testing.assert_array_equal(aggregate_scores(mi, "weighted", [1.0, 0.0]), [1.0, 0.5])
    assert select_global(mi, 1, "weighted", weights=[1.0, 0.0]).tolist() == [0]


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(1, 12))
def test_against_sorted_oracle(seed, k):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 4, size=(9, 3)).astype(float)  # many ties
    for j, sel in enumerate(select_local(scores, k)):
        ref = sorted(range(9), key=lambda i: (-scores[i, j], i))[:k]
        assert sel.tolist() == ref
    agg = scores.max(axis=1)
    assert select_global(scores, k).tolist() == sorted(range(9), key=lambda i: (-agg[i], i))[:k]


def test_select_from_real_scores():
    X = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [0, 0, 0]])
    y = np.array([1, 1, 0, 0], dtype=bool)
    s = score_terms(X, y, "ig")
    assert select_local(s, 1)[0].tolist() == [0]  # term 0 is the class


@pytest.mark.parametrize("call, message", [
    (lambda: select_local([[1.0]], 0), "k must be an integer >= 1, got 0"),
    (lambda: select_local([[1.0]], 1.5), "k must be an integer >= 1, got 1.5"),
    (lambda: select_local([[np.nan, 1.0]], 1), "NaN, found one at term 0, category 0"),
    (lambda: select_local(np.zeros((2, 2, 2)), 1), "scores must be a matrix"),
    (lambda: select_global([[1.0]], 1, "mean"), "aggregate must be one of"),
    (lambda: select_global([[1.0, 2.0]], 1, "weighted"), "needs weights"),
    (lambda: select_global([[1.0, 2.0]], 1, "weighted", weights=[1.0]), "weights has 1 entries but scores has 2"),
    (lambda: select_global([[1.0, 2.0]], 1, "weighted", weights=[1.0, -1.0]), "weights must be finite and >= 0"),
    (lambda: select_global([[np.inf, -np.inf]], 1, "sum"), "NaN"),
])
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
