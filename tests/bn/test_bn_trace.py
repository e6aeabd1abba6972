"""EM and inference traces agree with the library's fit and exact inference."""
import numpy as np
import pytest

from hbnlab.bn import class_posterior, fit_em, node_marginals
from hbnlab.bn.trace import trace_em, trace_inference
from hbnlab.clustering import construct_tree
from hbnlab.pipeline.teaching import teaching_example

OPTIONS = dict(n_restarts=5, random_state=0)


@pytest.fixture(scope="module")
def ex():
    return teaching_example()


def tree_of(ex, direction, clustering="avg", alpha=0.1):
    return construct_tree(ex.X, ex.y, B=3, clustering=clustering, alpha=alpha, feature_names=ex.terms,
                          class_name=ex.class_name, direction=direction)


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_em_trace_is_the_fit(ex, direction):
    tree = tree_of(ex, direction)
    tr = trace_em(tree, ex.X, ex.y, **OPTIONS)
    plain = fit_em(tree, ex.X, ex.y, **OPTIONS)
    assert tr.result.best_restart == plain.best_restart
    for a, b in zip(tr.result.params.cpts, plain.params.cpts):
        np.testing.assert_array_equal(a, b)
    best = tr.result.best_restart
    final = tr.params(best, tr.n_iterations + 5)
    for a, b in zip(final.cpts, plain.params.cpts):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-15)
    assert len(tr.tables) == sum(len(t) for t in tr.result.traces)


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_em_log_likelihood_never_decreases(ex, direction):
    tr = trace_em(tree_of(ex, direction), ex.X, ex.y, criterion="full", **OPTIONS)
    for r in range(tr.n_restarts):
        ll = tr.log_likelihoods(r)
        assert np.all(np.diff(ll) >= -1e-9 * np.abs(ll[:-1])), r


def test_restarts_reach_different_optima(ex):
    tr = trace_em(tree_of(ex, "hbn"), ex.X, ex.y, **OPTIONS)
    finals = [tr.log_likelihoods(r)[-1] for r in range(tr.n_restarts)]
    assert max(finals) - min(finals) > 1e-3


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
@pytest.mark.parametrize("clustering, alpha", [("avg", 0.1), ("dep", 1.0), ("or", 0.0)])
def test_inference_trace_equals_exact_inference(ex, direction, clustering, alpha):
    params = fit_em(tree_of(ex, direction, clustering, alpha), ex.X, ex.y, **OPTIONS).params
    X = ex.X.toarray()
    lib = class_posterior(params, X)
    marg = node_marginals(params, X)
    for d in range(X.shape[0]):
        tr = trace_inference(params, X[d])
        assert abs(tr.posterior[1] - lib[d, 1]) <= 1e-12
        assert all(s.cites.startswith("thesis") for s in tr.steps)
        for node, p in tr.node_posteriors.items():
            assert abs(p - marg[d, node]) <= 1e-12 or node == 0


def test_inference_trace_by_hand_on_a_naive_tree():
    # HBN with two features under the class: P(C=1 | f) is the table row of the observed pair
    from hbnlab.bn import TreeParameters, TreeStructure

    tree = TreeStructure.from_nested([0, 1], feature_names=["a", "b"])
    table = np.array([[0.9, 0.1], [0.6, 0.4], [0.3, 0.7], [0.2, 0.8]])
    params = TreeParameters(tree, [table, np.array([0.5, 0.5]), np.array([0.5, 0.5])])
    tr = trace_inference(params, [1, 0])  # a = 1 (bit 0), b = 0: row 1
    assert tr.posterior[1] == pytest.approx(0.4, abs=1e-15)
    assert tr.steps[0].rows.shape == (4, 5)


def test_inference_trace_rejects_a_wrong_length(ex):
    params = fit_em(tree_of(ex, "hbn"), ex.X, ex.y, n_restarts=1, random_state=0).params
    with pytest.raises(ValueError, match="x has 3 entries but the tree has 8 features"):
        trace_inference(params, [1, 0, 1])


def test_trace_inference_refuses_k_state_trees_by_name():
    from hbnlab.bn.params import TreeParameters
    from hbnlab.bn.structure import TreeStructure
    from hbnlab.bn.trace import trace_inference

    tree = TreeStructure.from_nested([[0, 1], 2]).with_states(3)
    with pytest.raises(ValueError, match=r"hidden nodes with \[3\] states"):
        trace_inference(TreeParameters.uniform(tree), [1, 0, 1])
