"""Koller-Sahami Markov-blanket truncation (Chakrabarti, *Mining the Web*, ch. 5, sec. 5.5.2, fig. 5.6)
against a slow loop."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp

from hbnlab.features.markov_blanket import TIE_TOL, binary_correlation, markov_blanket_select


def _corr_loop(a, b):
    n = len(a)
    sa, sb = sum(a), sum(b)
    n11 = sum(1 for x, z in zip(a, b) if x and z)
    num = n * n11 - sa * sb
    va, vb = sa * (n - sa), sb * (n - sb)
    den = np.sqrt(float(va) * float(vb))  # the kernel's expression, so ties stay ties
    return float(num) / den if den > 0 else 0.0


def _delta_loop(cols, x, blanket, y):
    """sum_{m,x} P(m, x) KL(P(C | m, x) || P(C | m)) by counting tuples."""
    n = len(y)
    N = Counter()
    for t in range(n):
        m = tuple(cols[b][t] for b in blanket)
        N[(m, cols[x][t], y[t])] += 1
    Nmx, Nmc, Nm = Counter(), Counter(), Counter()
    for (m, xv, c), v in N.items():
        Nmx[(m, xv)] += v
        Nmc[(m, c)] += v
        Nm[m] += v
    return sum(v / n * math.log(v * Nm[m] / (Nmx[(m, xv)] * Nmc[(m, c)])) for (m, xv, c), v in N.items())


def _select_loop(X, y, k, n_blanket):
    """Fig. 5.6 literally: every round, every remaining feature gets its blanket (the most
    correlated remaining others, ties by column) and its delta; drop the smallest (ties by
    column, within TIE_TOL)."""
    X = (np.asarray(X) > 0).astype(int)
    m = X.shape[1]
    cols = [list(X[:, j]) for j in range(m)]
    yl = list(y)
    corr = [[abs(_corr_loop(cols[i], cols[j])) for j in range(m)] for i in range(m)]
    alive = list(range(m))
    order = []
    while len(alive) > k:
        deltas = {}
        for f in alive:
            others = sorted((g for g in alive if g != f), key=lambda g: (-corr[f][g], g))
            deltas[f] = _delta_loop(cols, f, others[:n_blanket], yl)
        low = min(deltas.values())
        r = min(f for f in alive if deltas[f] <= low + TIE_TOL * (1 + abs(low)))
        alive.remove(r)
        order.append(r)
    return alive, order


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("n_blanket", [1, 2, 3])
def test_matches_slow_loop_oracle(seed, n_blanket):
    rng = np.random.default_rng(seed)
    n, m = 60, 10
    y = rng.integers(0, 2 + seed % 2, size=n)  # binary and three-class labels
    X = (rng.random((n, m)) < 0.35).astype(int)
    X[:, 3] = X[:, 1]  # a redundant copy
    X[:, 7] = np.where(rng.random(n) < 0.9, y > 0, X[:, 7])  # a class-correlated term
    k = 3
    sel, order = markov_blanket_select(sp.csr_matrix(X), y, k, n_blanket, block_size=4, return_order=True)
    alive, order_loop = _select_loop(X, y, k, n_blanket)
    assert order.tolist() == order_loop
    assert sel.tolist() == sorted(alive)


def test_correlation_matrix_matches_pairwise():
    rng = np.random.default_rng(5)
    X = (rng.random((30, 6)) < 0.4).astype(int)
    X[:, 5] = 0  # a constant column: correlation 0
    C = binary_correlation(sp.csr_matrix(X.astype(float)))
    for i in range(6):
        for j in range(6):
            if i != j:
                assert C[i, j] == pytest.approx(_corr_loop(list(X[:, i]), list(X[:, j])), abs=1e-14)
    np.testing.assert_allclose(C[:5, :5][np.eye(5, dtype=bool)], 1.0)


def test_exact_duplicate_is_eliminated_before_informative_terms():
    rng = np.random.default_rng(1)
    n = 200
    y = rng.integers(0, 2, size=n)
    informative = np.where(rng.random(n) < 0.8, y, 1 - y)
    other = (rng.random(n) < np.where(y == 1, 0.6, 0.3)).astype(int)
    X = np.column_stack([informative, other, informative])  # column 2 duplicates column 0
    sel, order = markov_blanket_select(X, y, k=2, n_blanket=1, return_order=True)
    assert order.tolist() in ([0], [2])
    assert 1 in sel.tolist()


def test_keep_all_and_invariance_to_counts():
    rng = np.random.default_rng(2)
    X = rng.poisson(0.5, size=(40, 8))
    y = rng.integers(0, 2, size=40)
    assert markov_blanket_select(X, y, k=8).tolist() == list(range(8))
    np.testing.assert_array_equal(markov_blanket_select(X, y, k=3), markov_blanket_select((X > 0) * 1, y, k=3))


@pytest.mark.parametrize("kwargs, fragment", [
    ({"k": 0}, "k must be an integer in [1, 4]"),
    ({"k": 5}, "got 5"),
    ({"k": 2, "n_blanket": 0}, "n_blanket must be an integer >= 1, got 0"),
])
def test_bad_arguments(kwargs, fragment):
    X = np.eye(4, dtype=int)
    with pytest.raises(ValueError) as e:
        markov_blanket_select(X, [0, 1, 0, 1], **kwargs)
    assert fragment in str(e.value)


def test_bad_y_shape():
    with pytest.raises(ValueError, match="y must be a 1-D label vector with 4 entries"):
        markov_blanket_select(np.eye(4), [0, 1, 0], k=2)


def test_negative_entries_are_refused():
    with pytest.raises(ValueError, match="X holds negative values"):
        markov_blanket_select(-np.eye(4), [0, 1, 0, 1], k=2)
