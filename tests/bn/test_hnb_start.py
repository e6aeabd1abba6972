"""A hierarchical naive Bayes started at an HBN (hbnlab.bn.em.hnb_start_from_hbn): the HNB
family counts it reads off the HBN's E-step against a per-document brute force over the hidden
states, the M-step on them, and EM from that start (monotone, one restart, planted recovery)."""
import bn_oracle as O
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hbnlab.bn import em
from hbnlab.bn import inference as I
from hbnlab.bn.params import TreeParameters
from hbnlab.bn.structure import TreeStructure

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def hbn_problems(draw):
    nested = O.nested_from_draw(draw, st)
    tree = TreeStructure.from_nested(nested, direction="hbn")
    hidden = tree.hidden_nodes()
    if hidden and draw(st.booleans()):
        tree = tree.with_states({i: draw(st.integers(2, 3)) for i in hidden})
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    params = O.random_params(tree, rng, draw(st.sampled_from([0.3, 1.0, 4.0])))
    n = draw(st.integers(1, 30))
    return params, rng.integers(0, 2, (n, tree.n_features)), rng.integers(0, 2, n)


def _hnb_counts_brute_force(params, X, y):
    """Expected counts of every HNB family (node, parent) and of the class under the HBN's
    posterior over the hidden nodes, one document at a time."""
    tree = params.tree
    out = [np.zeros(tree.cardinality(0))] + [
        np.zeros((tree.cardinality(tree.up[i]), tree.cardinality(i))) for i in range(1, tree.n_nodes)]
    for x, c in zip(X, y):
        states = list(O._states(tree, x, {0: int(c)}))
        w = np.array([O.joint_probability(params, s) for s in states])
        for s, p in zip(states, w / w.sum()):
            out[0][s[0]] += p
            for i in range(1, tree.n_nodes):
                out[i][s[tree.up[i]], s[i]] += p
    return out


@SETTINGS
@given(hbn_problems())
def test_hnb_counts_from_an_hbn_equal_brute_force(prob):
    params, X, y = prob
    tree = params.tree
    data = em.EMData.from_documents(tree, X, y)
    stats = em.e_step(data, [t[None] for t in params.cpts])
    got = em.hnb_counts_from_hbn(tree, stats.counts)
    expect = _hnb_counts_brute_force(params, X, y)
    assert sorted(got) == list(range(tree.n_nodes))
    for i in range(tree.n_nodes):
        np.testing.assert_allclose(got[i][0], expect[i], atol=1e-9)
    # the start is the HNB's M-step on those counts: each row normalised, empty rows uniform
    start = em.hnb_start_from_hbn(params, X, y)
    assert start.tree == tree.with_direction("hnb")
    for i in range(tree.n_nodes):
        tot = expect[i].sum(axis=-1, keepdims=True)
        want = np.where(tot > 0, expect[i] / np.where(tot > 0, tot, 1), 1.0 / expect[i].shape[-1])
        np.testing.assert_allclose(start.cpt(i), want, atol=1e-9)


def test_a_hand_computed_start():
    # C <- H <- {F0, F1}; the HBN's H is F0 OR F1 exactly and C copies H, so the posterior of H is
    # certain and the HNB's tables are plain frequencies over the four documents
    tree = TreeStructure.from_nested([[0, 1]], direction="hbn")
    h = tree.children(0)[0]
    tables = [None] * tree.n_nodes
    tables[0] = np.array([[0.9, 0.1], [0.2, 0.8]])                 # P(C | H)
    tables[h] = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0]])   # H = F0 or F1
    for i in tree.feature_nodes():
        tables[i] = np.array([0.5, 0.5])
    params = TreeParameters(tree, tables)
    X = np.array([[0, 0], [1, 0], [0, 1], [1, 1]])
    y = np.array([0, 1, 1, 0])
    start = em.hnb_start_from_hbn(params, X, y)
    np.testing.assert_allclose(start.cpt(0), [0.5, 0.5])
    np.testing.assert_allclose(start.cpt(h), [[0.5, 0.5], [0.0, 1.0]])            # P(H | C)
    by_col = {tree.feature[i]: i for i in tree.feature_nodes()}
    # H = 0 only for the document without features; H = 1 for three documents, F0 in two of them
    np.testing.assert_allclose(start.cpt(by_col[0]), [[1.0, 0.0], [1 / 3, 2 / 3]])
    np.testing.assert_allclose(start.cpt(by_col[1]), [[1.0, 0.0], [1 / 3, 2 / 3]])
    with pytest.raises(ValueError, match="must belong to an HBN tree"):
        em.hnb_start_from_hbn(start, X, y)


def test_em_from_the_hbn_start_is_monotone_and_recovers_a_planted_hnb():
    tree, true, X, y = O.sampled("hnb", seed=3, n=4000)
    hbn = em.fit_em(tree.with_direction("hbn"), X, y, n_restarts=16, random_state=0)
    start = em.hnb_start_from_hbn(hbn.params, X, y)
    res = em.fit_em(tree, X, y, n_restarts=1, init=start, stopping="absolute", tol=1e-5, max_iter=500)
    trace = res.traces[0]
    assert trace[0] == pytest.approx(I.log_likelihood(start, X, y), rel=1e-12)
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[:-1]))
    ll_true = I.log_likelihood(true, X, y)
    assert res.full_log_likelihood[0] >= ll_true - 1e-3 * abs(ll_true)
    Xn, yn, _ = O.sample(true, 3000, np.random.default_rng(99))
    p_true = I.class_posterior(true, Xn)[:, 1]
    p_fit = I.class_posterior(res.params, Xn)[:, 1]
    assert np.mean((p_fit > 0.5) == (p_true > 0.5)) > 0.95


def test_the_start_works_for_hidden_nodes_with_more_states():
    tree, _, X, y = O.sampled("hnb", seed=4, n=600)
    tree = tree.with_states({i: 3 for i in tree.hidden_nodes()})
    hbn = em.fit_em(tree.with_direction("hbn"), X, y, n_restarts=4, random_state=0)
    start = em.hnb_start_from_hbn(hbn.params, X, y, pseudo_count=1.0)
    for i in range(1, tree.n_nodes):
        assert start.cpt(i).shape == (tree.cardinality(tree.up[i]), tree.cardinality(i))
    assert all(np.all(start.cpt(i) > 0) for i in range(tree.n_nodes))     # the pseudo-count is applied
