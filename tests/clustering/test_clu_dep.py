"""ClusterFeaturesDep and ImproveClustering (thesis sec. 3.7, figs 3.11-3.12)."""
import math
from itertools import combinations

import numpy as np
import pytest
import scipy.sparse as sp
from clu_oracles import chi2_pvalue_pair, expression_scratch, slow_dep
from scipy.stats import chi2, chi2_contingency

from hbnlab.clustering import cluster_features_dep, expression_3_1, improve_clustering, independence_pvalues
from hbnlab.clustering.dep import _ImproveState, greedy_dep


def _data(seed, n=120, N=9):
    rng = np.random.default_rng(seed)
    base = rng.random((n, 3)) < 0.45
    cols = [base[:, f % 3] ^ (rng.random(n) < 0.08 + 0.04 * f) for f in range(N)]
    X = np.column_stack(cols).astype(int)
    y = (base[:, 1] ^ (rng.random(n) < 0.25)).astype(int)
    return X, y


# ---------------------------------------------------------------- chi-square p-values
def test_pvalues_match_scipy_per_class_stratum():
    """X^2 of sec. 3.7 is the sum over the class strata of the Pearson statistics of the 2x2
    tables; scipy's chi2_contingency (no continuity correction) computes each stratum."""
    X, y = _data(0)
    p = independence_pvalues(X, y, range(X.shape[1]))
    for i, j in combinations(range(X.shape[1]), 2):
        X2 = 0.0
        for c in (0, 1):
            m = y == c
            table = np.array(
                [[np.sum((X[m, i] == a) & (X[m, j] == b)) for b in (0, 1)] for a in (0, 1)], dtype=float
            )
            X2 += chi2_contingency(table, correction=False).statistic
        assert p[i, j] == pytest.approx(chi2.sf(X2, 2), rel=1e-9, abs=1e-300)
        assert p[j, i] == p[i, j]
    assert np.all(np.diag(p) == 0)


def test_pvalue_golden_value_by_hand():
    """One stratum perfectly dependent, the other constant in F_j (E = 0 cells contribute 0)."""
    # class 1: F_i = F_j over 4 documents (2 and 2); class 0: F_j always 0
    Fi = np.array([1, 1, 0, 0, 1, 0, 1, 0])
    Fj = np.array([1, 1, 0, 0, 0, 0, 0, 0])
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    # class 1 table [[2, 0], [0, 2]], all E = 1: X^2 = 4 * 1 = 4; class 0: the F_j = 1 cells have
    # E = 0 and x = 0 (skipped); the F_j = 0 cells have x = E: 0
    expected = math.exp(-4 / 2)  # chi2(2 df) survival function is exp(-x / 2)
    p = independence_pvalues(np.column_stack([Fi, Fj]), y, [0, 1])
    assert p[0, 1] == pytest.approx(expected)
    assert chi2_pvalue_pair(Fi, Fj, y) == pytest.approx(expected)


def test_pvalues_of_a_subset_and_sparse_input():
    X, y = _data(1)
    full = independence_pvalues(sp.csr_matrix(X), y, range(9))
    sub = independence_pvalues(X, y, [7, 2, 4])
    assert np.allclose(sub, full[np.ix_([7, 2, 4], [7, 2, 4])])


# ---------------------------------------------------------------- Expression 3.1
def test_expression_3_1_golden_value():
    p = np.array(
        [
            [0.0, 0.1, 0.5, 0.9],
            [0.1, 0.0, 0.3, 0.7],
            [0.5, 0.3, 0.0, 0.2],
            [0.9, 0.7, 0.2, 0.0],
        ]
    )
    info = np.array([0.4, 0.2, 0.3, 0.1])
    # {F0, F1, F2}, {F3}: within pairs .1 + .5 + .3 = .9 over 3 pairs; penalty
    # (.4 + .2 + .3)/3 + .1/1 = .4; alpha = 5, |A| = 2 -> .3 - 5/2 * .4 = -0.7
    assert expression_3_1(p, info, [[0, 1, 2], [3]], 5.0) == pytest.approx(-0.7)
    # all singletons: first term defined as 0 -> -alpha/4 * sum(info)
    assert expression_3_1(p, info, [[0], [1], [2], [3]], 2.0) == pytest.approx(-0.5)
    assert expression_scratch(p, info, [[0, 1, 2], [3]], 5.0) == pytest.approx(-0.7)


def test_greedy_incremental_form_equals_expression_from_scratch():
    """The O(1) candidate values of fig. 3.11 step 3 (running totals) equal Expression 3.1
    recomputed for the candidate partition, at every step."""
    rng = np.random.default_rng(5)
    N = 8
    p = rng.random((N, N))
    p = np.triu(p, 1) + np.triu(p, 1).T
    info = rng.random(N) * 0.1
    for B in range(N - 1, 0, -1):
        clusters, E = greedy_dep(p, info, B, 3.0)
        assert len(clusters) == B
        assert E == pytest.approx(expression_3_1(p, info, clusters, 3.0), rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------- ImproveClustering
def test_move_values_equal_expression_from_scratch_for_every_candidate():
    """Every E_2m of fig. 3.12 (with the derived denominator D - (|X_l| - 1) + |X_m|) equals
    Expression 3.1 of the partition after that move."""
    rng = np.random.default_rng(9)
    N = 9
    p = rng.random((N, N))
    p = np.triu(p, 1) + np.triu(p, 1).T
    info = rng.random(N) * 0.2
    clusters = [[0, 3, 4], [1], [2, 5], [6, 7, 8]]
    st = _ImproveState(p, info, clusters, 2.5)
    E2, *_ = st.move_values()
    for i in range(N):
        src = next(k for k, c in enumerate(clusters) if i in c)
        for m in range(len(clusters)):
            if m == src or len(clusters[src]) == 1:
                assert E2[i, m] == np.inf
                continue
            trial = [list(c) for c in clusters]
            trial[src].remove(i)
            trial[m].append(i)
            assert E2[i, m] == pytest.approx(expression_3_1(p, info, trial, 2.5), rel=1e-12, abs=1e-12)


def test_garbled_denominator_would_be_wrong():
    """The PDF's extra C(|X_k|, 2) term is not the pair count after a move (so it is garbled)."""
    sizes = [3, 1, 2, 3]
    src, m = 0, 2
    after = [2, 1, 3, 3]
    D_after = sum(s * (s - 1) // 2 for s in after)
    D = sum(s * (s - 1) // 2 for s in sizes)
    assert D - (sizes[src] - 1) + sizes[m] == D_after  # the derived form
    rest = sum(s * (s - 1) // 2 for k, s in enumerate(sizes) if k not in (src, m))
    assert rest + math.comb(sizes[src] - 1, 2) + math.comb(sizes[m] + 1, 2) == D_after


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("alpha", [0.0, 1.0, 20.0])
def test_improve_incremental_value_equals_scratch_after_every_move(seed, alpha):
    """The thesis suspected a bug in its ImproveClustering: here the incremental E after every
    move equals Expression 3.1 recomputed for the partition at that point."""
    rng = np.random.default_rng(seed)
    N = 12
    p = rng.random((N, N)) ** 2
    p = np.triu(p, 1) + np.triu(p, 1).T
    info = rng.random(N) * 0.05
    start = [list(range(0, 6)), list(range(6, 10)), [10], [11]]  # a deliberately poor start
    clusters, trace = improve_clustering(p, info, start, alpha)
    assert trace, "the poor starting partition should be improvable"
    assert len(trace) <= N
    current = [list(c) for c in start]
    previous = expression_3_1(p, info, current, alpha)
    for i, src, m, E in trace:
        assert i in current[src] and len(current[src]) > 1 and m != src
        current[src].remove(i)
        current[m].append(i)
        assert E == pytest.approx(expression_3_1(p, info, current, alpha), rel=1e-12, abs=1e-12)
        assert E < previous  # every move has a positive gain
        previous = E
    assert [sorted(c) for c in current] == clusters
    # it stops at a local minimum (or after N moves): no single allowed move improves
    if len(trace) < N:
        for i in range(N):
            src = next(k for k, c in enumerate(clusters) if i in c)
            if len(clusters[src]) == 1:
                continue
            for m in range(len(clusters)):
                if m != src:
                    trial = [list(c) for c in clusters]
                    trial[src].remove(i)
                    trial[m].append(i)
                    assert expression_3_1(p, info, trial, alpha) >= previous - 1e-12


def test_improve_never_empties_a_cluster_and_respects_max_iter():
    rng = np.random.default_rng(2)
    N = 10
    p = rng.random((N, N))
    p = np.triu(p, 1) + np.triu(p, 1).T
    info = np.zeros(N)
    start = [list(range(9)), [9]]
    clusters, trace = improve_clustering(p, info, start, 0.0, max_iter=2)
    assert len(trace) <= 2 and all(clusters)
    clusters, _ = improve_clustering(p, info, [[k] for k in range(N)], 0.0)
    assert clusters == [[k] for k in range(N)]  # singletons cannot move


# ---------------------------------------------------------------- the whole algorithm
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("B", [2, 3, 5])
@pytest.mark.parametrize("alpha", [0.0, 0.5, 170.0])
def test_dep_kernel_matches_slow_loop(seed, B, alpha):
    X, y = _data(10 + seed, n=90, N=10)
    assert cluster_features_dep(sp.csr_matrix(X), y, range(10), B, alpha) == slow_dep(X, y, range(10), B, alpha)


def test_dep_with_alpha_zero_groups_dependent_features():
    """With alpha = 0 only dependence matters: noisy copies of three hidden sources form three
    clusters (cf. thesis fig. 4.4, "very similar to how a human would do it")."""
    rng = np.random.default_rng(0)
    n = 500
    src = rng.random((n, 3)) < 0.4
    cols = [src[:, k] ^ (rng.random(n) < 0.05) for k in (0, 1, 2, 0, 1, 2, 0, 1, 2)]
    X = np.column_stack(cols).astype(int)
    y = (rng.random(n) < 0.3).astype(int)
    out = cluster_features_dep(X, y, range(9), 3, 0.0)
    assert sorted(out) == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]


def test_dep_large_alpha_keeps_informative_features_alone():
    """A large alpha makes the second term dominate: the most informative features stay
    singletons (thesis fig. 4.3 discussion, "informative feature variables are put as close to
    the class variable as possible")."""
    rng = np.random.default_rng(1)
    n = 600
    y = (rng.random(n) < 0.4).astype(int)
    strong = [y ^ (rng.random(n) < e) for e in (0.02, 0.05)]
    weak = [rng.random(n) < 0.3 for _ in range(7)]
    X = np.column_stack(strong + weak).astype(int)
    out = cluster_features_dep(X, y, range(9), 4, 170.0)
    assert [0] in out and [1] in out
