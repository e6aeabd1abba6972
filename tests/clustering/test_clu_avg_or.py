"""ClusterFeaturesAvg and ClusterFeaturesOr (thesis figs 3.6-3.10): Merge formulas by hand,
the pair-cost-matrix kernels against slow loop versions."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from clu_oracles import mi_from_column, mi_from_conditionals, slow_avg, slow_or

from hbnlab.clustering import cluster_features_avg, cluster_features_or, merge_avg, or_cluster_statistics
from hbnlab.clustering.avg import singleton_statistics


# ---------------------------------------------------------------- AVG: Merge (fig. 3.7)
def test_merge_avg_golden_values():
    # s_i = 2, s_j = 1: weights 2/3 and 1/3
    s, px, q1, q0 = merge_avg(2, 0.3, 0.6, 0.1, 1, 0.9, 0.0, 0.4)
    assert s == 3
    assert px == pytest.approx((2 * 0.3 + 0.9) / 3)  # 0.5
    assert q1 == pytest.approx((2 * 0.6 + 0.0) / 3)  # 0.4
    assert q0 == pytest.approx((2 * 0.1 + 0.4) / 3)  # 0.2


def test_merge_avg_is_associative_with_size_weights():
    # merging {a} with {b}, then with {c} == the plain average of the three singletons
    a, b, c = (1, 0.2, 0.7, 0.1), (1, 0.5, 0.3, 0.2), (1, 0.8, 0.9, 0.6)
    ab = merge_avg(*a, *b)
    abc = merge_avg(*ab, *c)
    assert abc[0] == 3
    for k in (1, 2, 3):
        assert abc[k] == pytest.approx((a[k] + b[k] + c[k]) / 3)


def test_singleton_statistics_and_zero_count_convention():
    # n = 4, n1 = 2; feature in docs {pos, neg}; a feature in no document; one in all documents
    px, q1, q0 = singleton_statistics([2, 0, 4], [1, 0, 2], 4, 2)
    assert px.tolist() == [0.5, 0.0, 1.0]
    assert q1.tolist() == [0.5, 0.5, 0.5]  # 0/0 for the never-present feature -> P(C=1) = .5
    assert q0.tolist() == [0.5, 0.5, 0.5]  # 0/0 for the always-present feature -> P(C=1)


def test_avg_first_merge_by_hand():
    """4 documents, 3 features, B = 2, alpha = 0: one merge; its losses computed by hand."""
    X = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]])
    y = np.array([1, 1, 0, 0])
    # singletons: F0 = C (1 bit); F1 independent of C (0 bits); F2 = not C (1 bit)
    stats = {0: (0.5, 1.0, 0.0), 1: (0.5, 0.5, 0.5), 2: (0.5, 0.0, 1.0)}
    info = {f: mi_from_conditionals(*stats[f]) for f in stats}
    assert info[0] == pytest.approx(1.0) and info[2] == pytest.approx(1.0) and info[1] == pytest.approx(0.0)

    def loss(i, j, k=1.0):
        _, px, q1, q0 = merge_avg(1, *stats[i], 1, *stats[j])
        return (info[i] + info[j] - mi_from_conditionals(px, q1, q0)) * k

    # Merge(F0, F2) averages P(C|X=1) to .5: all information lost (2 bits)
    assert loss(0, 2) == pytest.approx(2.0)
    # Merge(F0, F1): P(X=1)=.5, P(C=1|X=1)=.75, P(C=1|X=0)=.25 -> I = 1 - H(.25)
    h = -(0.25 * math.log2(0.25) + 0.75 * math.log2(0.75))
    assert loss(0, 1) == pytest.approx(1 - (1 - h))
    assert loss(1, 2) == pytest.approx(loss(0, 1))
    # tie between {F0,F1} and {F1,F2}: initial order is F0, F2 (1 bit, by column), F1 (0 bits);
    # the lowest pair in that order is (F0, F1)
    assert cluster_features_avg(X, y, [0, 1, 2], 2, 0.0) == [[0, 1], [2]]


def test_avg_size_penalty_changes_the_choice():
    """The alpha (|X_i| + |X_j|) / k term of fig. 3.8 steers merges away from large clusters."""
    rng = np.random.default_rng(3)
    X = (rng.random((300, 8)) < 0.3).astype(int)
    y = (rng.random(300) < 0.4).astype(int)
    # a huge penalty always merges the two smallest clusters: 8 singletons -> four pairs -> 2+2
    sizes = sorted(len(c) for c in cluster_features_avg(X, y, range(8), 3, 10.0))
    assert sizes == [2, 2, 4]
    # without the penalty the information loss alone decides (cheapest: merging the two
    # least informative features), and sizes come out uneven on this data
    sizes0 = sorted(len(c) for c in cluster_features_avg(X, y, range(8), 3, 0.0))
    assert sizes0 != sizes


# ---------------------------------------------------------------- OR: Merge (fig. 3.10)
def test_or_cluster_statistics_by_hand():
    X = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]])
    y = np.array([1, 1, 0, 0, 1])
    # OR of F0, F1 = docs {0, 1, 2}: 2 positives; absent in docs {3, 4}: 1 positive
    px, q1, q0 = or_cluster_statistics(X, y, [0, 1])
    assert (px, q1, q0) == (pytest.approx(3 / 5), pytest.approx(2 / 3), pytest.approx(1 / 2))
    px, q1, q0 = or_cluster_statistics(X, y, [0, 1, 2])
    assert (px, q1, q0) == (pytest.approx(4 / 5), pytest.approx(2 / 4), pytest.approx(1.0))


def test_or_inclusion_exclusion_matches_explicit_or_columns():
    """The kernel's |A u B| = |A| + |B| - |A n B| route agrees with OR-ing the columns."""
    from hbnlab.clustering.common import FeatureStats, mutual_information_from_counts
    from hbnlab.clustering.orclust import _OrState

    rng = np.random.default_rng(7)
    A = (rng.random((60, 6)) < 0.3).astype(np.float64)
    y = (rng.random(60) < 0.5).astype(np.float64)
    st = _OrState(FeatureStats(sp.csc_matrix(A), y, np.arange(6)), np.arange(6))
    dI = st.pair_dI_all()
    for i in range(6):
        for j in range(6):
            if i != j:
                iu = mi_from_column(np.maximum(A[:, i], A[:, j]), y)
                assert dI[i, j] == pytest.approx(st.info[i] + st.info[j] - iu, abs=1e-12)
    # after a merge, the merged slot's row uses the OR of three columns
    st.merge(1, 4)
    assert st.cnt[1] == np.maximum(A[:, 1], A[:, 4]).sum()
    row = st.pair_dI(1, np.array([0, 2, 3, 5]))
    for r, j in zip(row, [0, 2, 3, 5]):
        iu = mi_from_column(np.maximum.reduce([A[:, 1], A[:, 4], A[:, j]]), y)
        assert r == pytest.approx(st.info[1] + st.info[j] - iu, abs=1e-12)
    assert st.info[1] == pytest.approx(
        mutual_information_from_counts(st.cnt[1], st.pos[1], 60, float(y.sum()))
    )


def test_or_prefers_merging_substitutes():
    """Two synonyms (never together, same class) merge under OR, not under AVG's averaging."""
    rng = np.random.default_rng(11)
    n = 400
    y = (rng.random(n) < 0.5).astype(int)
    syn = rng.random(n) < 0.5
    X = np.column_stack(
        [
            y & syn,  # synonym 1 of the class
            y & ~syn,  # synonym 2: together with 1 it is exactly the class
            rng.random(n) < 0.3,
            rng.random(n) < 0.3,
        ]
    ).astype(int)
    out = cluster_features_or(X, y, range(4), 3, 0.0)
    assert [0, 1] in out


# ---------------------------------------------------------------- kernels against oracles
def _random_data(seed, n, N, density=0.3):
    rng = np.random.default_rng(seed)
    base = rng.random((n, 3)) < 0.4
    cols = []
    for f in range(N):
        src = base[:, f % 3]
        noise = rng.random(n) < (0.1 + 0.3 * (f % 2))
        cols.append(np.where(rng.random(n) < density, src ^ noise, rng.random(n) < 0.15))
    X = np.column_stack(cols).astype(int)
    y = (base[:, 0] ^ (rng.random(n) < 0.2)).astype(int)
    return X, y


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("B", [2, 3, 5])
@pytest.mark.parametrize("alpha", [0.0, 0.05, 0.5])
def test_avg_kernel_matches_slow_loop(seed, B, alpha):
    X, y = _random_data(seed, 80, 11)
    assert cluster_features_avg(sp.csr_matrix(X), y, range(11), B, alpha) == slow_avg(X, y, range(11), B, alpha)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("B", [2, 3, 5])
@pytest.mark.parametrize("alpha", [0.0, 0.09, 0.5])
def test_or_kernel_matches_slow_loop(seed, B, alpha):
    X, y = _random_data(100 + seed, 80, 11)
    assert cluster_features_or(sp.csr_matrix(X), y, range(11), B, alpha) == slow_or(X, y, range(11), B, alpha)


def test_kernels_on_a_subset_of_columns_match_oracles():
    X, y = _random_data(42, 70, 14)
    feats = [13, 2, 7, 5, 11, 0, 9, 3]
    assert cluster_features_avg(X, y, feats, 3, 0.05) == slow_avg(X, y, feats, 3, 0.05)
    assert cluster_features_or(X, y, feats, 3, 0.09) == slow_or(X, y, feats, 3, 0.09)
