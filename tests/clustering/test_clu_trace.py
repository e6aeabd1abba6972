"""The structure trace is the algorithm's own account: its last tree is construct_nested's, its
matrices hold the values the clustering compared, and it cites the thesis's figures."""
import numpy as np
import pytest

from hbnlab.clustering import construct_nested, expression_3_1
from hbnlab.clustering.common import info_loss
from hbnlab.clustering.trace import trace_construction
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
