"""The conditional-likelihood fit of a fixed tree (hbnlab.bn.discriminative): its value and
gradient against brute-force enumeration and finite differences, its monotone climb from the EM
start, and tables that never reach 0 or 1."""
from __future__ import annotations

import numpy as np
import pytest
from bn_oracle import expected_counts, joint_with_features, sampled

from hbnlab.bn import em
from hbnlab.bn.discriminative import _Problem, fit_conditional, learned_nodes, smoothed_tables
from hbnlab.bn.structure import TreeStructure

TREE = [[0, 1], [2, [3, 4]], 5]


def _tiny(direction, states, seed=0, n=200):
    return sampled(direction, seed=seed, n=n, states=states, nested=TREE, concentration=0.5)


def _children(y, rng, m=3):
    p = np.where(np.asarray(y)[:, None] == 1, 0.6, 0.3)
    Xk = (rng.random((len(y), m)) < p).astype(int)
    p_on = np.array([[0.3, 0.4, 0.2], [0.6, 0.5, 0.4]])[:, :m]
    return Xk, p_on


def _brute_cll(params, X, y, p_on=None, Xk=None):
    """sum_d log P(c_d | f_d) by enumeration of the hidden states, the children's evidence added by
    Bayes' rule one document at a time."""
    total = 0.0
    for d, (x, c) in enumerate(zip(np.asarray(X), np.asarray(y))):
        joint = np.array([joint_with_features(params, x, k) for k in (0, 1)])
        if p_on is not None:
            for j in range(p_on.shape[1]):
                joint *= np.where(Xk[d, j] > 0, p_on[:, j], 1.0 - p_on[:, j])
        total += np.log(joint[int(c)] / joint.sum())
    return total


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
@pytest.mark.parametrize("states", [2, 3])
@pytest.mark.parametrize("with_children", [False, True])
def test_value_and_gradient_against_enumeration_and_finite_differences(direction, states, with_children):
    tree, true, X, y = _tiny(direction, states, n=60)
    rng = np.random.default_rng(1)
    Xk, p_on = _children(y, rng) if with_children else (None, None)
    prob = _Problem(true, X, y, p_on, Xk, penalty=0.7)
    w = prob.w0 + 0.4 * rng.standard_normal(prob.w0.size)
    params, kids = prob.params(w)
    value, grad = prob.value_and_grad(w)
    cll = _brute_cll(params, X, y, kids, Xk)
    assert prob.conditional_log_likelihood(w) == pytest.approx(cll, rel=1e-10, abs=1e-9)
    diff = w - prob.w0
    assert value == pytest.approx(cll - 0.35 * diff @ diff, rel=1e-10, abs=1e-9)
    eps = 1e-6
    num = np.array([(prob.value_and_grad(w + eps * e)[0] - prob.value_and_grad(w - eps * e)[0]) / (2 * eps)
                    for e in np.eye(w.size)])
    np.testing.assert_allclose(grad, num, atol=2e-6 * max(1.0, np.abs(num).max()))


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_count_difference_is_clamped_minus_free_counts_by_enumeration(direction):
    """D = sum_d (E[N | c_d, f_d] - E[N | f_d]) with signed residual weights, against the oracle's
    expected counts with the class clamped and with each class weighted by its posterior."""
    tree, true, X, y = _tiny(direction, 2, seed=3, n=40)
    prob = _Problem(true, X, y, penalty=1.0)
    cpts, _ = prob.tables(prob.w0)
    lo = prob._log_odds(cpts, None)
    p1 = 1.0 / (1.0 + np.exp(-lo))
    s = np.bincount(prob.inverse, weights=y - p1, minlength=prob.P)
    routes = [prob._count_difference(cpts, s)]                       # two E-steps, class 1 and class 0
    if direction == "hbn":                                            # one pass with the signed message
        routes.append(prob._count_difference(cpts, s, prob._tree_log_odds(cpts)))
    clamped = expected_counts(true, X, y)
    free = [np.zeros_like(t) for t in true.cpts]
    for c, weight in ((0, 1.0 - p1), (1, p1)):
        for d in range(len(y)):
            counts = expected_counts(true, X[d:d + 1], [c])
            for i in range(tree.n_nodes):
                free[i] += weight[d] * counts[i]
    for D in routes:
        for i in learned_nodes(tree):
            np.testing.assert_allclose(D[i], clamped[i] - free[i], atol=1e-9)


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fit_climbs_from_the_em_start_and_keeps_every_entry_inside_zero_one(direction, seed):
    tree, _, X, y = _tiny(direction, 2, seed=seed, n=300)
    res = em.fit_em(tree, X, y, n_restarts=4, random_state=seed)
    start = smoothed_tables(res.params, X, y)
    rng = np.random.default_rng(seed)
    Xk, p_on = _children(y, rng)
    fit = fit_conditional(start, X, y, children_p_on=p_on, X_children=Xk, penalty=0.3)
    assert fit.conditional_log_likelihood >= fit.start_conditional_log_likelihood - 1e-9
    assert np.all(np.diff(fit.objective) >= -1e-9), "the penalised objective decreased"
    for i in learned_nodes(tree):
        t = fit.params.cpt(i)
        assert t.min() > 0.0 and t.max() < 1.0, f"node {i} holds an entry of exactly 0 or 1"
    assert 0.0 < fit.children_p_on.min() and fit.children_p_on.max() < 1.0


def test_smoothed_start_has_no_zero_entry_where_em_has_one():
    """A term that only the positives carry makes the maximum-likelihood class table hold zeros;
    the start of the conditional fit does not, and the fit stays finite."""
    tree = TreeStructure.from_nested([[0, 1], 2], direction="hbn")
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    X = np.column_stack([y, rng.integers(0, 2, 200), rng.integers(0, 2, 200)])
    res = em.fit_em(tree, X, y, n_restarts=2, random_state=0)
    assert min(res.params.cpt(i).min() for i in learned_nodes(tree)) < 1e-12
    start = smoothed_tables(res.params, X, y)
    assert min(start.cpt(i).min() for i in learned_nodes(tree)) > 0.0
    fit = fit_conditional(start, X, y, penalty=1.0)
    assert np.isfinite(fit.conditional_log_likelihood)
    assert min(fit.params.cpt(i).min() for i in learned_nodes(tree)) > 0.0


def test_a_start_with_a_zero_entry_is_refused():
    tree, true, X, y = _tiny("hbn", 2)
    res = em.fit_em(tree, np.column_stack([y, y, y, y, y, y]), y, n_restarts=1, random_state=0)
    with pytest.raises(ValueError, match="0 or 1"):
        fit_conditional(res.params, X, y)


def test_larger_penalty_stays_closer_to_the_start():
    tree, _, X, y = _tiny("hbn", 2, seed=5, n=300)
    start = smoothed_tables(em.fit_em(tree, X, y, n_restarts=2, random_state=0).params, X, y)
    dist = []
    for penalty in (0.1, 10.0, 1000.0):
        fit = fit_conditional(start, X, y, penalty=penalty)
        dist.append(sum(np.abs(np.log(fit.params.cpt(i)) - np.log(start.cpt(i))).sum() for i in learned_nodes(tree)))
    assert dist[0] > dist[1] > dist[2]


def test_a_warm_start_keeps_the_prior_centre_and_climbs_from_its_own_start():
    tree, _, X, y = _tiny("hbn", 2, seed=6, n=300)
    start = smoothed_tables(em.fit_em(tree, X, y, n_restarts=2, random_state=0).params, X, y)
    strong = fit_conditional(start, X, y, penalty=10.0)
    weak_cold = fit_conditional(start, X, y, penalty=0.3)
    weak_warm = fit_conditional(start, X, y, penalty=0.3, init=strong)
    assert weak_warm.start is start                                   # the centre is the EM start still
    assert weak_warm.objective[0] > weak_cold.objective[0]            # it starts nearer the weak prior's optimum
    assert np.all(np.diff(weak_warm.objective) >= -1e-9)
    assert weak_warm.objective[-1] == pytest.approx(weak_cold.objective[-1], rel=1e-3)
    Xk, p_on = _children(y, np.random.default_rng(0))
    with pytest.raises(ValueError, match="logits"):                  # a fit of another problem
        fit_conditional(start, X, y, children_p_on=p_on, X_children=Xk, init=strong)
