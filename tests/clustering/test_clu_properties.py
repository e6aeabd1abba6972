"""Structural invariants and metamorphic properties of every clustering on random data."""
import numpy as np
import pytest
import scipy.sparse as sp
from clu_oracles import ranks
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from hbnlab.clustering import cluster_features_avg, cluster_features_dep, cluster_features_or

CLUSTERINGS = {"avg": cluster_features_avg, "or": cluster_features_or, "dep": cluster_features_dep}


@st.composite
def datasets(draw):
    n = draw(st.integers(4, 40))
    n_cols = draw(st.integers(1, 14))
    X = draw(arrays(np.int8, (n, n_cols), elements=st.integers(0, 1)))
    y = draw(arrays(np.int8, (n,), elements=st.integers(0, 1)))
    k = draw(st.integers(1, n_cols))
    features = draw(st.permutations(range(n_cols)))[:k]
    alpha = draw(st.sampled_from([0.0, 0.05, 0.09, 1.0, 170.0]))
    perm = draw(st.permutations(range(n)))
    return X, y, list(features), alpha, np.array(perm)


@pytest.mark.parametrize("name", sorted(CLUSTERINGS))
@pytest.mark.parametrize("B", [2, 3, 5, 7, 9])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets())
def test_partition_invariants(name, B, data):
    X, y, features, alpha, perm = data
    fn = CLUSTERINGS[name]
    out = fn(X, y, features, B, alpha)
    # a partition of `features` into min(B, N) non-empty sorted clusters
    assert len(out) == min(B, len(features))
    assert all(c and c == sorted(c) for c in out)
    assert sorted(f for c in out for f in c) == sorted(features)
    assert all(isinstance(f, int) for c in out for f in c)
    # clusters ordered by the initial rank (decreasing I(F, C), ties by column) of their best feature
    rank, _ = ranks((X != 0).astype(np.int64), y.astype(np.int64), features)
    best = [min(rank[f] for f in c) for c in out]
    assert best == sorted(best)
    # metamorphic: order of `features`, sparse input, document order do not matter
    assert fn(X, y, sorted(features), B, alpha) == out
    assert fn(sp.csr_matrix(X), y, features, B, alpha) == out
    assert fn(X[perm], y[perm], features, B, alpha) == out


@pytest.mark.parametrize("name", sorted(CLUSTERINGS))
def test_no_merging_when_at_most_B_features(name):
    rng = np.random.default_rng(0)
    X = (rng.random((30, 6)) < 0.4).astype(int)
    y = (rng.random(30) < 0.5).astype(int)
    out = CLUSTERINGS[name](X, y, [4, 1, 3], 3, 0.1)
    assert sorted(out) == [[1], [3], [4]]
    out = CLUSTERINGS[name](X, y, [4, 1, 3], 1, 0.1)
    assert out == [[1, 3, 4]]


@pytest.mark.parametrize("name", sorted(CLUSTERINGS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(), B=st.sampled_from([2, 3, 5]))
def test_kernels_match_slow_oracles_on_tie_heavy_data(name, B, data):
    """Tiny 0/1 data has many exactly tied costs (identical columns, equal counts): the
    pair-cost-matrix kernels and the recompute-everything loops must agree on every tie."""
    from clu_oracles import slow_avg, slow_dep, slow_or

    X, y, features, alpha, _ = data
    slow = {"avg": slow_avg, "or": slow_or, "dep": slow_dep}[name]
    features = features[:9]
    assert CLUSTERINGS[name](X, y, features, B, alpha) == slow(X, y, features, B, alpha)


@pytest.mark.parametrize("name", sorted(CLUSTERINGS))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(), B=st.sampled_from([2, 3, 5, 7, 9]))
def test_construct_tree_on_random_data(name, B, data):
    """Any data, any B: a valid tree (TreeStructure checks its invariants), every feature on
    one leaf, HNB the same tree with reversed arcs, document order irrelevant."""
    from hbnlab.clustering import construct_tree

    X, y, _, alpha, perm = data
    tree = construct_tree(X, y, B=B, clustering=name, alpha=alpha)
    assert tree.n_features == X.shape[1]
    assert all(2 <= len(tree.children(h)) <= B for h in tree.hidden_nodes())
    if X.shape[1] <= B:
        assert tree.hidden_nodes() == []
    assert construct_tree(X, y, B=B, clustering=name, alpha=alpha, direction="hnb") == tree.with_direction("hnb")
    assert construct_tree(X[perm], y[perm], B=B, clustering=name, alpha=alpha) == tree
