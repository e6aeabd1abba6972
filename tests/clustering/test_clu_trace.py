"""The structure trace is the algorithm's own account: its last tree is construct_nested's, its
matrices hold the values the clustering compared, and it cites the thesis's figures."""
import numpy as np
import pytest

from hbnlab.clustering import construct_nested, expression_3_1
from hbnlab.clustering.common import info_loss
from hbnlab.clustering.trace import trace_construction
from hbnlab.models.hbn import TABLE_4_1
from hbnlab.pipeline.teaching import teaching_example


@pytest.fixture(scope="module")
def ex():
    return teaching_example()


@pytest.mark.parametrize("clustering, alpha", [("avg", 0.0), ("avg", 0.1), ("or", 0.1), ("dep", 0.0), ("dep", 1.0)])
@pytest.mark.parametrize("B", [2, 3])
def test_the_trace_ends_with_the_library_tree(ex, clustering, alpha, B):
    steps = trace_construction(ex.X, ex.y, B=B, clustering=clustering, alpha=alpha, feature_names=ex.terms)
    assert steps[-1].kind == "done"
    assert steps[-1].nested == construct_nested(ex.X, ex.y, B=B, clustering=clustering, alpha=alpha)
    for s in steps:
        assert s.cites.startswith("thesis ")
        if s.chosen is not None:
            r, c = s.chosen
            assert np.isfinite(s.matrix[r, c])


def test_the_chosen_merge_is_the_smallest_cost(ex):
    steps = trace_construction(ex.X, ex.y, B=3, clustering="avg", alpha=0.1, feature_names=ex.terms)
    merges = [s for s in steps if s.kind == "merge"]
    assert merges
    for s in merges:
        assert np.nanmin(s.matrix) == pytest.approx(s.matrix[s.chosen])
        assert "fig. 3.8" in s.cites


def test_avg_first_merge_matches_fig_3_8_by_hand():
    # features 0 and 1 are copies, each a perfect predictor (1 bit); their average is the same
    # variable (1 bit), so the bracket of fig. 3.8 is 1 + 1 - 1 = 1 bit; k = N/|A| = 3/3 = 1 and
    # the loss is 1 * 1 + 0.5 * (1 + 1) / 1 = 2, less than either pair with feature 2
    X = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]])
    y = np.array([1, 1, 0, 0])
    steps = trace_construction(X, y, B=2, clustering="avg", alpha=0.5)
    first = next(s for s in steps if s.kind == "merge")
    assert first.values["k"] == 1.0
    assert first.values["loss"] == pytest.approx(2.0) == info_loss(1.0, 2, 3, 3, 0.5)
    assert first.title == "Merge F0 and F1"


def test_dep_steps_show_expression_3_1_and_improve_clustering(ex):
    steps = trace_construction(ex.X, ex.y, B=3, clustering="dep", alpha=1.0, feature_names=ex.terms)
    improve = [s for s in steps if s.kind == "improve"]
    assert any(s.values["moved"] for s in improve), "the teaching example shows a move of fig. 3.12"
    assert not improve[-1].values["moved"]
    # the value after a move is Expression 3.1 of the partition it produced, from scratch
    call = steps[0]
    p = np.nan_to_num(call.matrix)
    cols = [ex.terms.index(r) for r in call.row_labels]
    info = trace_info(ex, cols)
    moved = next(s for s in improve if s.values["moved"])
    top = [c if isinstance(c, list) else [c] for c in moved.nested]
    pos = {f: k for k, f in enumerate(cols)}
    clusters = [[pos[f] for f in c] for c in top]
    i, m = moved.chosen
    assert moved.matrix[i, m] == pytest.approx(expression_3_1(p, info, clusters, 1.0), abs=1e-12)


def trace_info(ex, cols):
    from hbnlab.clustering.common import prepare

    stats, _, _ = prepare(ex.X, ex.y, cols, 1, 0.0)
    return stats.info


def test_few_features_need_no_clustering():
    X = np.eye(3)
    steps = trace_construction(X, [1, 0, 1], B=3, clustering="or", alpha=0.0)
    assert [s.kind for s in steps] == ["subtree", "done"]
    assert steps[-1].nested == [0, 1, 2]


def test_bad_arguments_are_named(ex):
    with pytest.raises(ValueError, match="clustering must be one of"):
        trace_construction(ex.X, ex.y, B=3, clustering="mdl", alpha=0.0)
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        trace_construction(ex.X, ex.y, B=3, alpha=0.0, feature_names=["a", "b"])


def _synthetic(seed, n=80, N=14):
    rng = np.random.default_rng(seed)
    src = rng.random((n, 4)) < 0.35
    X = np.column_stack([src[:, f % 4] ^ (rng.random(n) < 0.05 + 0.01 * f) for f in range(N)]).astype(np.int64)
    y = (src[:, 0] ^ (rng.random(n) < 0.15)).astype(int)
    return X, y


def _leaves(node):
    return [node] if isinstance(node, int) else [f for child in node for f in _leaves(child)]


def _at(nested, path):
    for k in path:
        nested = nested[k]
    return nested


def _node_over(nested, features):
    """The list node of ``nested`` whose leaves are exactly ``features``."""
    if sorted(_leaves(nested)) == sorted(features):
        return nested
    for child in nested:
        if isinstance(child, list) and (found := _node_over(child, features)) is not None:
            return found
    return None


@pytest.mark.parametrize("clustering", ["avg", "or", "dep"])
@pytest.mark.parametrize("B", [2, 3, 5])
@pytest.mark.parametrize("default_alpha", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_trace_is_construct_trees_own_account(clustering, B, default_alpha, seed):
    """The trace's tree is construct_tree's, and every step is consistent with it: each
    ClusterFeatures call is on the features of one node of the final tree, and the clusters a
    "subtree" step turns into nodes partition the features of that node."""
    from hbnlab.bn.structure import TreeStructure
    from hbnlab.clustering import construct_tree

    X, y = _synthetic(seed)
    alpha = TABLE_4_1[clustering][1] if default_alpha else 0.0
    steps = trace_construction(X, y, B=B, clustering=clustering, alpha=alpha)
    final = steps[-1].nested
    assert steps[-1].kind == "done"
    assert TreeStructure.from_nested(final, B=B) == construct_tree(X, y, B=B, clustering=clustering, alpha=alpha)
    assert [s for s in steps if s.kind == "subtree"][-1].nested == final
    calls = 0
    for s in steps[:-1]:
        assert sorted(_leaves(s.nested)) == list(range(X.shape[1]))  # the tree as it stands holds every feature once
        node = _node_over(final, s.scope)
        assert node is not None, f"{s.title}: its features are no node of the final tree"
        if s.kind == "call":
            calls += 1
            assert s.scope == s.focus and len(s.scope) > B
        if s.kind == "subtree":
            children = _node_over(s.nested, s.scope)
            assert 2 <= len(children) <= B
            assert sorted(f for c in children for f in _leaves(c)) == sorted(s.scope)
            assert [sorted(_leaves(c)) for c in children] == [sorted(_leaves(c)) for c in node]
    assert calls == sum(1 for s in steps if s.kind == "subtree")


@pytest.mark.parametrize("clustering", ["avg", "or", "dep"])
@pytest.mark.parametrize("n_direct", [0, 1, 2])
def test_construct_nested_reports_every_step_at_its_node(clustering, n_direct):
    X, y = _synthetic(3, N=11)
    events = []
    nested = construct_nested(X, y, B=3, clustering=clustering, alpha=0.0, n_direct=n_direct, recorder=events.append)
    assert nested == construct_nested(X, y, B=3, clustering=clustering, alpha=0.0, n_direct=n_direct)
    assert [e["step"] for e in events].count("direct") == (1 if n_direct else 0)
    clusters = [e for e in events if e["step"] == "clusters"]
    assert clusters and [e["step"] for e in events].count("start") == len(clusters)
    for e in events:
        if e["step"] == "direct":
            assert nested[:len(e["direct"])] == e["direct"]
            continue
        F = e["features"]
        if e["step"] == "start":
            assert sorted(int(c) for c in e["columns"]) == sorted(F)
        if e["step"] == "clusters":
            parts = e["clusters"]
            assert sorted(f for c in parts for f in c) == sorted(F)
            assert e["kinds"] == ["feature" if len(c) == 1 else "hidden" if len(c) <= 3 else "split" for c in parts]
            node = nested if not e["path"] else _at(nested, e["path"])
            assert [sorted(_leaves(c)) for c in node[e["offset"]:]] == parts
        if e["path"]:
            assert sorted(_leaves(_at(nested, e["path"]))) == sorted(F)
