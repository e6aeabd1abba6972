"""ConstructHBNClassifier / ConstructSubtree (thesis figs 3.3-3.4) and the HNB variant (sec. 3.3)."""
import numpy as np
import pytest
import scipy.sparse as sp

from hbnlab.bn.structure import FEATURE, HIDDEN, TreeStructure, features_under
from hbnlab.clustering import (
    CLUSTERINGS,
    cluster_features_avg,
    cluster_features_dep,
    cluster_features_or,
    construct_nested,
    construct_tree,
    register_clustering,
)

BUILTIN = {"avg": cluster_features_avg, "or": cluster_features_or, "dep": cluster_features_dep}
ALPHA = {"avg": 0.05, "or": 0.09, "dep": 170.0}


def _data(seed, n=200, N=30):
    rng = np.random.default_rng(seed)
    src = rng.random((n, 5)) < 0.35
    cols = [src[:, f % 5] ^ (rng.random(n) < 0.05 + 0.01 * f) for f in range(N)]
    X = sp.csr_matrix(np.column_stack(cols).astype(np.int64))
    y = (src[:, 0] ^ (rng.random(n) < 0.15)).astype(int)
    return X, y


def construct_strict_less(X, y, B, fn, alpha):
    """Figs 3.3-3.4 read literally: |F| <= B at the class, |F| < B at a hidden node."""

    def subtree(F):
        if len(F) == 1:
            return F[0]
        if len(F) < B:
            return list(F)
        return [subtree(c) for c in fn(X, y, F, B, alpha)]

    feats = list(range(X.shape[1]))
    if len(feats) <= B:
        return feats
    return [subtree(c) for c in fn(X, y, feats, B, alpha)]


@pytest.mark.parametrize("name", sorted(BUILTIN))
@pytest.mark.parametrize("B", [2, 3, 5, 7, 9])
def test_tree_invariants_and_recursive_clustering(name, B):
    X, y = _data(B)
    tree = construct_tree(X, y, B=B, clustering=name, alpha=ALPHA[name])
    assert isinstance(tree, TreeStructure) and tree.B == B and tree.direction == "hbn"
    assert tree.n_features == 30
    assert sorted(tree.feature[i] for i in tree.feature_nodes()) == list(range(30))
    # every node with more than B features below it was split by the clustering function itself
    fn = BUILTIN[name]
    for i in [0] + tree.hidden_nodes():
        below = features_under(tree, i)
        kids = tree.children(i)
        assert 1 <= len(kids) <= B
        if len(below) > B:
            parts = sorted(features_under(tree, c) for c in kids)
            assert parts == sorted(fn(X, y, below, B, ALPHA[name]))
        else:  # a hidden node over at most B features has them as direct parents
            assert all(tree.kind[c] == FEATURE for c in kids)
    # hidden nodes are named breadth-first
    hidden = tree.hidden_nodes()
    by_bfs = sorted(hidden, key=lambda i: (tree.depth(i), i))
    assert [tree.names[i] for i in by_bfs] == [f"hidden{k + 1}" for k in range(len(hidden))]


@pytest.mark.parametrize("name", sorted(BUILTIN))
@pytest.mark.parametrize("B", [2, 3, 4, 5, 7])
@pytest.mark.parametrize("seed", [0, 1])
def test_leq_and_strict_less_give_the_same_tree(name, B, seed):
    """With |F| < B in fig. 3.4, a cluster of exactly B features is clustered into B singletons,
    i.e. the same hidden node over the same features as with |F| <= B."""
    X, y = _data(seed, N=23)
    nested = construct_nested(X, y, B=B, clustering=name, alpha=ALPHA[name])
    strict = construct_strict_less(X, y, B, BUILTIN[name], ALPHA[name])
    # the same tree up to the order of siblings (a clustering lists singletons by rank, the
    # direct route by column)
    assert canonical(nested) == canonical(strict)


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_strict_less_route_meets_clusters_of_exactly_B(name):
    """The comparison above is not vacuous: clusters of exactly B features do occur."""
    X, y = _data(0, N=23)
    calls = []

    def spy(X, y, F, B, alpha):
        calls.append(len(F) == B)
        return BUILTIN[name](X, y, F, B, alpha)

    for B in (2, 3, 4):
        construct_strict_less(X, y, B, spy, ALPHA[name])
    assert any(calls)


def canonical(node):
    if isinstance(node, list):
        return tuple(sorted((canonical(c) for c in node), key=repr))
    return node


def test_few_features_are_parents_of_the_class():
    X, y = _data(0, N=4)
    tree = construct_tree(X, y, B=4, clustering="dep", alpha=1.0, feature_names=list("abcd"), class_name="tTOPIC")
    assert tree.hidden_nodes() == []
    assert [tree.names[c] for c in tree.children(0)] == list("abcd")
    assert tree.names[0] == "tTOPIC"
    one = construct_tree(X[:, :1], y, B=2, alpha=0.0)
    assert one.to_nested() == [0]


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_hnb_is_the_same_tree_with_reversed_arcs(name):
    X, y = _data(3, N=25)
    hbn = construct_tree(X, y, B=3, clustering=name, alpha=ALPHA[name])
    hnb = construct_tree(X, y, B=3, clustering=name, alpha=ALPHA[name], direction="hnb")
    assert hnb.direction == "hnb"
    assert (hbn.up, hbn.kind, hbn.feature, hbn.names) == (hnb.up, hnb.kind, hnb.feature, hnb.names)
    assert hnb == hbn.with_direction("hnb")
    h = hbn.hidden_nodes()[0]
    assert hbn.bn_parents(h) == hbn.children(h)
    assert hnb.bn_parents(h) == (hnb.up[h],)


def test_deep_tree_with_many_features():
    X, y = _data(5, N=80)
    tree = construct_tree(X, y, B=3, clustering="or", alpha=0.09)
    assert max(tree.depth(i) for i in tree.feature_nodes()) >= 4  # 80 features, B = 3: >= log3(80)
    assert all(2 <= len(tree.children(h)) <= 3 for h in tree.hidden_nodes())


def test_names_and_text_rendering():
    X, y = _data(6, N=9)
    names = [f"w{k}" for k in range(9)]
    tree = construct_tree(X, y, B=3, clustering="avg", alpha=0.05, feature_names=names, class_name="tradeTOPIC")
    text = tree.to_text()
    assert text.splitlines()[0] == "tradeTOPIC"
    assert all(n in text for n in names)
    assert tree.names[tree.feature_nodes()[0]] == names[tree.feature[tree.feature_nodes()[0]]]


# ---------------------------------------------------------------- registry and callables
def test_registry_and_callables():
    assert set(BUILTIN) <= set(CLUSTERINGS)
    calls = []

    def halves(X, y, features, B, alpha):
        calls.append(len(features))
        f = sorted(features)
        return [f[: len(f) // 2], f[len(f) // 2 :]]

    X, y = _data(1, N=10)
    tree = construct_tree(X, y, B=3, clustering=halves, alpha=0.0)
    assert tree.to_nested() == [[[0, 1], [2, 3, 4]], [[5, 6], [7, 8, 9]]]
    assert calls == [10, 5, 5]
    try:
        register_clustering("test-halves", halves)
        assert CLUSTERINGS["test-halves"] is halves
        register_clustering("test-halves", halves)  # re-registering the same function is fine
        with pytest.raises(ValueError, match="already registered"):
            register_clustering("test-halves", cluster_features_avg)
        tree2 = construct_tree(X, y, B=3, clustering="test-halves", alpha=0.0, direction="hnb")
        assert tree2 == tree.with_direction("hnb")
    finally:
        CLUSTERINGS.pop("test-halves", None)
    with pytest.raises(ValueError, match="must be callable"):
        register_clustering("x", 3)
    with pytest.raises(ValueError, match="non-empty string"):
        register_clustering("", halves)


@pytest.mark.parametrize(
    "bad, message",
    [
        (lambda X, y, F, B, a: [list(F)], "returned 1 cluster for 10 features"),
        (lambda X, y, F, B, a: [list(F)[:-1], []], "empty cluster"),
        (lambda X, y, F, B, a: [list(F)[:3], list(F)[4:]], "missing \\[3\\]"),
        (lambda X, y, F, B, a: [[f] for f in F], "10 clusters, more than B = 3"),
    ],
)
def test_bad_callable_results_are_rejected(bad, message):
    X, y = _data(1, N=10)
    with pytest.raises(ValueError, match=message):
        construct_tree(X, y, B=3, clustering=bad, alpha=0.0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"B": 1}, "branching factor B must be an integer >= 2, got 1"),
        ({"B": "7"}, "branching factor B must be an integer >= 2, got '7'"),
        ({"clustering": "nope"}, "clustering must be one of"),
        ({"direction": "up"}, "direction must be one of"),
        ({"alpha": -0.5}, "alpha must be >= 0, got -0.5"),
        ({"feature_names": ["a", "b"]}, "feature_names has 2 names but X has 6 columns"),
    ],
)
def test_construct_bad_arguments(kwargs, message):
    X, y = _data(2, N=6)
    args = {"B": 3, "clustering": "avg", "alpha": 0.1}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        construct_tree(X, y, **args)


def test_construct_accepts_dense_lists():
    X = [[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]]
    tree = construct_tree(X, [1, 0, 1, 0], B=2, alpha=0.0, feature_names=["a", "b", "c"])
    assert tree.n_features == 3 and len(tree.children(0)) == 2
    assert {tree.kind[i] for i in range(tree.n_nodes)} == {"class", FEATURE, HIDDEN}


@pytest.mark.parametrize("name", sorted(BUILTIN))
@pytest.mark.parametrize("B", [2, 3, 7])
def test_shared_statistics_route_equals_calling_the_public_function(name, B):
    """construct_tree computes counts, co-occurrences and p-values once per tree for the
    built-in clusterings; wrapping the public function in a plain callable (recomputing them
    for every subset) must build the identical tree."""
    X, y = _data(10 + B, N=40)
    fn = BUILTIN[name]

    def plain(X, y, F, B, alpha):
        return fn(X, y, F, B, alpha)

    fast = construct_tree(X, y, B=B, clustering=name, alpha=ALPHA[name])
    slow = construct_tree(X, y, B=B, clustering=plain, alpha=ALPHA[name])
    assert fast == slow


# ----------------------------------------------------------------------------- n_direct
@pytest.mark.parametrize("name", sorted(BUILTIN))
@pytest.mark.parametrize("n_direct", [1, 3, 5, 6])
def test_n_direct_keeps_the_most_informative_features_at_the_class(name, n_direct):
    from hbnlab.clustering.common import mutual_information_from_counts

    X, y = _data(3, N=30)
    B = 7
    tree = construct_tree(X, y, B=B, clustering=name, alpha=ALPHA[name], n_direct=n_direct)
    Xd = X.toarray()
    info = mutual_information_from_counts(Xd.sum(0).astype(float), (Xd * y[:, None]).sum(0).astype(float),
                                          len(y), float(y.sum()))
    top = sorted(np.lexsort((np.arange(info.size), -info))[:n_direct].tolist())
    at_class = sorted(tree.feature[c] for c in tree.children(0) if tree.kind[c] == FEATURE)
    assert set(top) <= set(at_class)  # a cluster of one feature sits at the class too
    assert len(tree.children(0)) <= B
    assert sorted(features_under(tree, 0)) == list(range(30))
    # the rest is the clustering's tree of the other features with B - n_direct top clusters
    hidden_at_class = [c for c in tree.children(0) if tree.kind[c] == HIDDEN]
    assert 1 <= len(hidden_at_class) <= B - n_direct


def test_n_direct_zero_is_the_thesis_tree_and_bad_values_are_named():
    X, y = _data(4)
    assert construct_nested(X, y, B=5, clustering="or", alpha=0.09, n_direct=0) == construct_nested(
        X, y, B=5, clustering="or", alpha=0.09)
    for bad in (-1, 5, 2.5, True):
        with pytest.raises(ValueError, match=r"n_direct must be an integer in 0\.\.B-1 = 0\.\.4"):
            construct_nested(X, y, B=5, clustering="or", alpha=0.09, n_direct=bad)


def test_n_direct_with_one_slot_left_puts_the_rest_under_one_hidden_node():
    X, y = _data(5, N=12)
    nested = construct_nested(X, y, B=4, clustering="avg", alpha=0.05, n_direct=3)
    assert [isinstance(item, list) for item in nested] == [False, False, False, True]
    few = construct_nested(X[:, :5], y, B=4, clustering="avg", alpha=0.05, n_direct=3)
    assert len(few) == 4 and isinstance(few[3], list) and len(few[3]) == 2
