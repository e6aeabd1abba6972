"""Exact inference (hbnlab.bn.inference) against hand-computed values and brute-force enumeration
of the joint distribution on random small trees (hypothesis), both arc directions."""
import bn_oracle as O
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hbnlab.bn import inference as I
from hbnlab.bn.params import TreeParameters
from hbnlab.bn.structure import TreeStructure

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def problems(draw, direction=None):
    """(params, X, y): a random tree of <= 12 variables, random tables, random documents."""
    nested = O.nested_from_draw(draw, st)
    direction = direction or draw(st.sampled_from(["hbn", "hnb"]))
    tree = TreeStructure.from_nested(nested, direction=direction)
    seed = draw(st.integers(0, 2**31 - 1))
    conc = draw(st.sampled_from([0.2, 1.0, 5.0]))
    rng = np.random.default_rng(seed)
    params = O.random_params(tree, rng, conc)
    n = draw(st.integers(1, 25))
    X = rng.integers(0, 2, (n, tree.n_features))
    y = rng.integers(0, 2, n)
    return params, X, y


# ----------------------------------------------------------------------------- golden values
def _golden_hbn():
    # class <- {hidden1 <- {F0, F1}, F2}; the class's rows are indexed by H1 + 2 * F2,
    # hidden1's by F0 + 2 * F1
    tree = TreeStructure.from_nested([[0, 1], 2])
    h1, f2 = tree.children(0)
    f0, f1 = tree.children(h1)
    cpts = [None] * tree.n_nodes
    cpts[0] = [[0.9, 0.1], [0.4, 0.6], [0.7, 0.3], [0.2, 0.8]]
    cpts[h1] = [[0.8, 0.2], [0.3, 0.7], [0.5, 0.5], [0.1, 0.9]]
    cpts[f0], cpts[f1], cpts[f2] = [0.6, 0.4], [0.5, 0.5], [0.7, 0.3]
    return TreeParameters(tree, cpts)


def test_hbn_golden_values():
    p = _golden_hbn()
    X = np.array([[1, 0, 1], [0, 0, 0]])
    # doc 1: q_H = P(H=1 | F0=1, F1=0) = 0.7; P(C=1) = 0.3 * 0.3 + 0.7 * 0.8 = 0.65
    # doc 2: q_H = 0.2; P(C=1) = 0.8 * 0.1 + 0.2 * 0.6 = 0.20
    np.testing.assert_allclose(I.class_posterior(p, X)[:, 1], [0.65, 0.20], rtol=1e-12)
    np.testing.assert_allclose(I.class_log_odds(p, X), np.log([0.65 / 0.35, 0.2 / 0.8]), rtol=1e-12)
    m = I.node_marginals(p, X)
    h1 = p.tree.children(0)[0]
    np.testing.assert_allclose(m[:, h1], [0.7, 0.2])
    np.testing.assert_allclose(m[:, 0], [0.65, 0.20])


def _golden_hnb():
    tree = TreeStructure.from_nested([[0, 1], 2], direction="hnb")
    h1, f2 = tree.children(0)
    f0, f1 = tree.children(h1)
    cpts = [None] * tree.n_nodes
    cpts[0] = [0.7, 0.3]
    cpts[h1] = [[0.8, 0.2], [0.1, 0.9]]     # P(H | C)
    cpts[f0] = [[0.9, 0.1], [0.4, 0.6]]     # P(F0 | H)
    cpts[f1] = [[0.5, 0.5], [0.5, 0.5]]
    cpts[f2] = [[0.8, 0.2], [0.3, 0.7]]     # P(F2 | C)
    return TreeParameters(tree, cpts)


def test_hnb_golden_values_and_additive_contributions():
    p = _golden_hnb()
    x = np.array([[1, 0, 1]])
    # lambda_H = (0.1 * 0.5, 0.6 * 0.5) = (0.05, 0.3); message to C: (0.10, 0.275)
    # joint: C=0: 0.7 * 0.10 * 0.2 = 0.014; C=1: 0.3 * 0.275 * 0.7 = 0.05775
    np.testing.assert_allclose(I.class_log_odds(p, x), [np.log(0.05775 / 0.014)], rtol=1e-12)
    c, nodes = I.subtree_contributions(p, x)
    assert nodes == list(p.tree.children(0))
    np.testing.assert_allclose(c[0], [np.log(0.275 / 0.10), np.log(0.7 / 0.2)], rtol=1e-12)
    np.testing.assert_allclose(np.log(0.3 / 0.7) + c.sum(1), I.class_log_odds(p, x))
    # log-likelihood: log P(c=1, x) = log 0.05775
    assert I.log_likelihood(p, x, [1]) == pytest.approx(np.log(0.05775))
    assert I.log_likelihood(p, x, [1], conditional=True) == pytest.approx(np.log(0.05775 / 0.07175))


# ----------------------------------------------------------------------------- brute force
@SETTINGS
@given(problems())
def test_class_posterior_equals_enumeration(prob):
    params, X, _ = prob
    expect = np.array([O.class_posterior(params, x) for x in X])
    np.testing.assert_allclose(I.class_posterior(params, X), expect, atol=1e-10)


@SETTINGS
@given(problems())
def test_node_marginals_equal_enumeration(prob):
    params, X, y = prob
    expect = np.array([O.node_posteriors(params, x) for x in X])
    np.testing.assert_allclose(I.node_marginals(params, X), expect, atol=1e-10)
    expect_y = np.array([O.node_posteriors(params, x, c) for x, c in zip(X, y)])
    np.testing.assert_allclose(I.node_marginals(params, X, y), expect_y, atol=1e-10)


@SETTINGS
@given(problems())
def test_log_likelihood_and_priors_equal_enumeration(prob):
    params, X, y = prob
    assert I.log_likelihood(params, X, y) == pytest.approx(O.log_likelihood(params, X, y), abs=1e-9)
    assert I.log_likelihood(params, X, y, conditional=True) == pytest.approx(
        O.log_likelihood(params, X, y, conditional=True), abs=1e-9)
    per_doc = I.log_likelihood(params, X, y, per_document=True)
    assert per_doc.shape == (len(y),) and per_doc.sum() == pytest.approx(I.log_likelihood(params, X, y))
    np.testing.assert_allclose(I.prior_marginals(params), O.prior_marginals(params), atol=1e-12)


@SETTINGS
@given(problems())
def test_subtree_contributions_equal_enumeration(prob):
    from hbnlab.bn.structure import features_under

    params, X, _ = prob
    tree = params.tree
    nodes = list(range(1, tree.n_nodes))
    contrib, got_nodes = I.subtree_contributions(params, X, nodes)
    assert got_nodes == nodes
    full = I.class_log_odds(params, X)
    for col, j in enumerate(nodes):
        cols = features_under(tree, j)
        for d, x in enumerate(X):
            post = O.class_posterior_partial(params, x, cols)
            expect = full[d] - (np.log(post[1]) - np.log(post[0]))
            assert contrib[d, col] == pytest.approx(expect, abs=1e-8)
    if tree.direction == "hnb":
        c, _ = I.subtree_contributions(params, X)
        # the prior log-odds from the class's table: 1 - P(C=1) underflows when P(C=0) < 1e-16
        root = params.cpts[0]
        np.testing.assert_allclose(np.log(root[1]) - np.log(root[0]) + c.sum(1), full, atol=1e-9)


# ----------------------------------------------------------------------------- metamorphic
@SETTINGS
@given(problems(), st.randoms(use_true_random=False))
def test_dense_sparse_counts_and_row_order_agree(prob, rnd):
    params, X, _ = prob
    lo = I.class_log_odds(params, X)
    np.testing.assert_array_equal(I.class_log_odds(params, sp.csr_matrix(X)), lo)
    # counts instead of 0/1 and boolean input are the same documents
    np.testing.assert_array_equal(I.class_log_odds(params, X * 3), lo)
    np.testing.assert_array_equal(I.class_log_odds(params, X.astype(bool)), lo)
    perm = list(range(len(X)))
    rnd.shuffle(perm)
    np.testing.assert_array_equal(I.class_log_odds(params, X[perm]), lo[perm])
    np.testing.assert_array_equal(I.node_marginals(params, X[perm]), I.node_marginals(params, X)[perm])


def test_hnb_many_features_does_not_underflow_and_equals_naive_bayes():
    # all 600 features directly under the class: the HNB is a Bernoulli naive Bayes, whose
    # log-odds is a sum of 600 log-ratios; the product of 600 likelihoods underflows in linear space
    rng = np.random.default_rng(3)
    n = 600
    tree = TreeStructure.from_nested(list(range(n)), direction="hnb")
    p1 = rng.uniform(0.001, 0.05, size=(n, 2))
    cpts = [np.array([0.6, 0.4])] + [np.array([[1 - a, a], [1 - b, b]]) for a, b in p1]
    params = TreeParameters(tree, cpts)
    X = rng.integers(0, 2, (5, n))
    expect = np.log(0.4 / 0.6) + np.where(
        X == 1, np.log(p1[:, 1] / p1[:, 0]), np.log((1 - p1[:, 1]) / (1 - p1[:, 0]))).sum(1)
    np.testing.assert_allclose(I.class_log_odds(params, X), expect, rtol=1e-10)
    assert np.all(np.isfinite(I.log_likelihood(params, X, [0, 1, 0, 1, 1], per_document=True)))


def test_zero_probabilities_give_infinite_log_odds_not_nan():
    # HBN: the class table says C=1 is impossible when F0 = 0
    tree = TreeStructure.from_nested([0])
    params = TreeParameters(tree, [[[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5]])
    lo = I.class_log_odds(params, np.array([[0], [1]]))
    assert lo[0] == -np.inf and lo[1] == np.inf
    np.testing.assert_array_equal(I.class_posterior(params, np.array([[0], [1]])), [[1, 0], [0, 1]])
    # HNB with an exact-zero feature table: finite, the other class wins
    tree = TreeStructure.from_nested([0, 1], direction="hnb")
    params = TreeParameters(tree, [[0.5, 0.5], [[1.0, 0.0], [0.5, 0.5]], [[0.5, 0.5], [0.5, 0.5]]])
    lo = I.class_log_odds(params, np.array([[1, 0]]))
    assert not np.isnan(lo).any() and lo[0] > 600


def test_bad_inputs_are_named():
    p = _golden_hbn()
    with pytest.raises(ValueError, match="X has 2 columns, expected 3"):
        I.class_log_odds(p, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="2-D term matrix"):
        I.class_log_odds(p, np.zeros(3))
    with pytest.raises(TypeError, match="TreeParameters"):
        I.class_log_odds({"cpts": []}, np.zeros((1, 3)))
    with pytest.raises(ValueError, match="node 0 is not a non-root node"):
        I.subtree_contributions(p, np.zeros((1, 3)), nodes=[0])


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
@pytest.mark.parametrize("n_direct", [1, 2])
def test_n_direct_trees_class_posterior_and_em_counts_equal_enumeration(direction, n_direct):
    # features at the class beside hidden nodes that have hidden nodes below them
    from hbnlab.bn import em
    from hbnlab.clustering import construct_tree

    rng = np.random.default_rng(n_direct)
    y = rng.integers(0, 2, 300)
    X = (rng.random((300, 8)) < np.where(y[:, None] == 1, np.linspace(0.8, 0.3, 8), 0.25)).astype(int)
    tree = construct_tree(X, y, B=3, clustering="or", alpha=0.0, n_direct=n_direct, direction=direction)
    assert sum(tree.kind[c] == "feature" for c in tree.children(0)) >= n_direct
    assert max(tree.depth(i) for i in tree.feature_nodes()) >= 3
    params = O.random_params(tree, rng)
    lo = I.class_log_odds(params, X[:20])
    for x, v in zip(X[:20], lo):
        p0, p1 = O.class_posterior(params, x)
        assert v == pytest.approx(np.log(p1) - np.log(p0), rel=1e-9, abs=1e-9)
    data = em.EMData.from_documents(tree, X[:40], y[:40])
    cpts = [np.asarray(params.cpt(i))[None] for i in range(tree.n_nodes)]
    stats = em.e_step(data, cpts)
    oracle = O.expected_counts(params, X[:40], y[:40])
    for i, N in stats.counts.items():
        assert np.allclose(N[0], oracle[i], rtol=1e-9, atol=1e-9)
    assert stats.log_likelihood[0] == pytest.approx(O.log_likelihood(params, X[:40], y[:40]), rel=1e-9)
