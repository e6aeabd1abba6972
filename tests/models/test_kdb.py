"""k-dependence Bayesian network (Chakrabarti, *Mining the Web*, ch. 5, fig. 5.8): structure
invariants and oracle, golden CPTs, k = 0 equals Bernoulli naive Bayes, exact per-term
decomposition."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from hbnlab.models.kdb import KDependenceBNClassifier, class_mutual_information, conditional_mutual_information


def _random(seed, n=80, m=12, p=0.3):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < p).astype(int)
    y = (rng.random(n) < 0.4).astype(int)
    y[:2] = [0, 1]
    return X, y


# ----------------------------------------------------------------------------- slow oracles
def _mi_loop(x, y):
    n = len(y)
    joint = Counter(zip(x, y))
    px, py = Counter(x), Counter(y)
    # canonical summation order, so that equal count tables give bit-equal values (ties)
    return sum(c / n * math.log(c * n / (px[a] * py[b])) for (a, b), c in sorted(joint.items()))


def _cmi_loop(xi, xj, y):
    n = len(y)
    out = 0.0
    for c in sorted(set(y)):
        idx = [t for t in range(n) if y[t] == c]
        nc = len(idx)
        joint = Counter((xi[t], xj[t]) for t in idx)
        pi, pj = Counter(xi[t] for t in idx), Counter(xj[t] for t in idx)
        out += sum(v / n * math.log(v * nc / (pi[a] * pj[b])) for (a, b), v in sorted(joint.items()))
    return out


def _structure_loop(X, y, k, min_cmi=0.0):
    """Fig. 5.8 with one term at a time: add terms by decreasing I(X;C); give each the k terms
    already in the network with the highest I(X_i; X_j | C) (> min_cmi)."""
    X = np.asarray(X)
    m = X.shape[1]
    cols = [list(X[:, j]) for j in range(m)]
    yl = list(y)
    mi = [_mi_loop(cols[j], yl) for j in range(m)]
    order = sorted(range(m), key=lambda j: (-mi[j], j))
    parents = {}
    added = []
    for j in order:
        cand = sorted(added, key=lambda i: (-_cmi_loop(cols[i], cols[j], yl), order.index(i)))
        parents[j] = [i for i in cand if _cmi_loop(cols[i], cols[j], yl) > min_cmi][:k]
        added.append(j)
    return order, parents


# ----------------------------------------------------------------------------- tests
def test_information_measures_match_loops():
    X, y = _random(0)
    mi = class_mutual_information(sp.csr_matrix(X.astype(float)), y)
    cmi = conditional_mutual_information(sp.csr_matrix(X.astype(float)), y)
    for j in range(X.shape[1]):
        assert mi[j] == pytest.approx(_mi_loop(list(X[:, j]), list(y)), abs=1e-13)
        for i in range(X.shape[1]):
            assert cmi[j, i] == pytest.approx(_cmi_loop(list(X[:, j]), list(X[:, i]), list(y)), abs=1e-13)
    np.testing.assert_allclose(cmi, cmi.T, atol=1e-14)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_structure_equals_loop_oracle(seed, k):
    X, y = _random(seed)
    kdb = KDependenceBNClassifier(k=k, block_size=5).fit(X, y)  # small blocks: exercise blocking
    order, parents = _structure_loop(X, y, k)
    assert kdb.order_.tolist() == order
    for j in range(X.shape[1]):
        assert [p for p in kdb.parents_[j] if p >= 0] == parents[j]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(0, 4), m=st.integers(1, 15))
def test_structural_invariants(seed, k, m):
    X, y = _random(seed, n=40, m=m, p=0.25)
    kdb = KDependenceBNClassifier(k=k).fit(X, y)
    pos = np.empty(m, dtype=int)
    pos[kdb.order_] = np.arange(m)
    assert kdb.parents_.shape == (m, k)
    # I(X;C) order is decreasing
    assert np.all(np.diff(kdb.class_mi_[kdb.order_]) <= 1e-15)
    for j in range(m):
        ps = [p for p in kdb.parents_[j] if p >= 0]
        assert len(ps) <= k and len(set(ps)) == len(ps) and j not in ps
        # slots fill from the front, chosen parents come earlier in the order: acyclic
        assert all(p >= 0 for p in kdb.parents_[j][: len(ps)])
        assert all(pos[p] < pos[j] for p in ps)
        # best parent first
        cm = kdb.parent_cmi_[j][: len(ps)]
        assert np.all(np.diff(cm) <= 1e-15) and np.all(cm > 0)


def test_golden_cpts_docstring_example():
    X = np.array([[1, 1], [1, 1], [0, 0], [1, 0], [0, 1], [0, 0]])
    y = np.array([1, 1, 1, 0, 0, 0])
    kdb = KDependenceBNClassifier(k=1).fit(X, y)
    assert kdb.parents_.ravel().tolist() == [-1, 0]
    # term 0, no parent: P(x0=1 | c=1) = (2+1)/(3+2), P(x0=1 | c=0) = (1+1)/(3+2)
    np.testing.assert_allclose(kdb.theta_[0, 0], [2 / 5, 3 / 5])
    # term 1 given term 0 (config bit 0 = x0):
    #   c=1: x0=0 (doc 2, x1=0) -> 1/3;  x0=1 (docs 0, 1, x1=1) -> 3/4
    #   c=0: x0=0 (docs 4, 5, x1=1,0) -> 2/4;  x0=1 (doc 3, x1=0) -> 1/3
    np.testing.assert_allclose(kdb.theta_[1], [[2 / 4, 1 / 3], [1 / 3, 3 / 4]])
    # document (1, 1): log 1 + log((3/5)/(2/5)) + log((3/4)/(1/3))
    assert kdb.decision_function(np.array([[1, 1]]))[0] == pytest.approx(np.log(1.5) + np.log(9 / 4))
    assert kdb.edges() == [(0, 1)]


def test_k0_equals_bernoulli_naive_bayes():
    X, y = _random(4, n=60, m=10)
    Xt, _ = _random(5, n=20, m=10)
    kdb = KDependenceBNClassifier(k=0, alpha=1.0).fit(X, y)
    # Bernoulli naive Bayes with Laplace smoothing, written out here
    y = y.astype(bool)
    p1 = (X[y].sum(axis=0) + 1) / (y.sum() + 2)
    p0 = (X[~y].sum(axis=0) + 1) / ((~y).sum() + 2)
    expected = np.log(y.mean() / (1 - y.mean())) + (
        Xt * np.log(p1 / p0) + (1 - Xt) * np.log((1 - p1) / (1 - p0))).sum(axis=1)
    np.testing.assert_allclose(kdb.decision_function(Xt), expected, rtol=1e-12)


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_contributions_sum_to_log_odds(k):
    X, y = _random(6, n=70, m=14)
    Xt, _ = _random(7, n=25, m=14)
    kdb = KDependenceBNClassifier(k=k, alpha=0.5).fit(X, y)
    C = kdb.term_contributions(Xt)
    assert C.shape == (25, 14)
    # two routes: table look-up per term vs the multilinear sparse kernel
    np.testing.assert_allclose(kdb.intercept_ + C.sum(axis=1), kdb.decision_function(Xt), rtol=1e-10, atol=1e-10)


def test_planted_dependency_is_recovered():
    rng = np.random.default_rng(0)
    n = 400
    y = (rng.random(n) < 0.5).astype(int)
    a = (rng.random(n) < np.where(y == 1, 0.7, 0.2)).astype(int)
    b = np.where(rng.random(n) < 0.95, a, 1 - a)  # b copies a (inside each class too)
    noise = (rng.random((n, 5)) < 0.3).astype(int)
    X = np.column_stack([a, noise[:, :2], b, noise[:, 2:]])
    kdb = KDependenceBNClassifier(k=1).fit(X, y)
    assert kdb.parents_[3, 0] == 0 or kdb.parents_[0, 0] == 3


def test_selected_features_and_fewer_columns_than_k():
    X, y = _random(8, n=50, m=3)
    kdb = KDependenceBNClassifier(k=5).fit(X, y)
    assert (kdb.parents_ >= 0).sum(axis=1).max() <= 2
    kdb2 = KDependenceBNClassifier(k=1).fit(np.column_stack([X, X]), y, selected_features=[0, 2])
    assert kdb2.parents_.shape == (2, 1)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"k": -1}, "k must be an integer in 0..10, got -1"),
    ({"k": 1.5}, "k must be an integer in 0..10, got 1.5"),
    ({"alpha": 0.0}, "alpha must be a finite number > 0, got 0.0"),
])
def test_bad_parameters(kwargs, fragment):
    X, y = _random(9)
    with pytest.raises(ValueError) as e:
        KDependenceBNClassifier(**kwargs).fit(X, y)
    assert fragment in str(e.value)
