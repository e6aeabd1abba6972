"""Which EM restart :func:`hbnlab.bn.em.fit_em` keeps: the one with the highest final value of the
stopping criterion, the first of equal ones, with that restart's own tables.

The restarts are started from chosen tables (``init``): the planted parameters (a high likelihood)
and the all-uniform tables, a symmetric point EM cannot leave (a low one).  The kept tables are
checked against the same restart run alone."""
import bn_oracle as O
import numpy as np
import pytest

from hbnlab.bn import em
from hbnlab.bn.params import TreeParameters
from hbnlab.bn.structure import FEATURE


def _problem(direction):
    tree, true, X, y = O.sampled(direction, seed=1, n=800)
    return tree, true, TreeParameters.uniform(tree), X, y


def _learned(params):
    """The tables EM learns (an HBN's feature marginals are fixed at the frequencies)."""
    tree = params.tree
    return [params.cpt(i) for i in range(tree.n_nodes) if not (tree.direction == "hbn" and tree.kind[i] == FEATURE)]


def _assert_same_tables(a, b, rtol=1e-9):
    for ta, tb in zip(a.cpts, b.cpts):
        np.testing.assert_allclose(ta, tb, rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("acceleration", [None, "squarem"])
@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_a_later_restart_with_a_higher_likelihood_is_kept_with_its_own_tables(direction, acceleration):
    tree, true, uniform, X, y = _problem(direction)
    res = em.fit_em(tree, X, y, n_restarts=3, init=[uniform, true, uniform], acceleration=acceleration)
    final = [t[-1] for t in res.traces]
    assert final[1] > max(final[0], final[2])              # the premise: the middle restart is the best
    assert res.best_restart == 1 and res.log_likelihood == final[1]
    alone = em.fit_em(tree, X, y, n_restarts=1, init=true, acceleration=acceleration)
    np.testing.assert_allclose(res.traces[1], alone.traces[0], rtol=1e-12)
    _assert_same_tables(res.params, alone.params)
    # and the kept tables are the ones the final likelihood was computed with
    stats = em.e_step(em.EMData.from_documents(tree, X, y), [np.asarray(t)[None] for t in res.params.cpts])
    assert stats.log_likelihood[0] == pytest.approx(res.log_likelihood, rel=1e-12)


@pytest.mark.parametrize("acceleration", [None, "squarem"])
@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_equal_final_likelihoods_keep_the_first_of_the_restarts(direction, acceleration):
    tree, true, uniform, X, y = _problem(direction)
    res = em.fit_em(tree, X, y, n_restarts=4, init=[uniform, true, true, uniform], acceleration=acceleration)
    np.testing.assert_array_equal(res.traces[1], res.traces[2])    # the premise: an exact tie
    assert res.traces[1][-1] > max(res.traces[0][-1], res.traces[3][-1])
    assert res.best_restart == 1
    _assert_same_tables(res.params, em.fit_em(tree, X, y, n_restarts=1, init=true, acceleration=acceleration).params)


def test_the_stopping_criterion_decides_not_the_other_likelihood():
    # two random HNB starts, no M-step (max_iter = 0): the kept tables are a start itself.  The full
    # log-likelihood prefers the second, the conditional one the first.
    tree, _, _, X, y = _problem("hnb")
    rng = np.random.default_rng(0)
    starts = [O.random_params(tree, rng), O.random_params(tree, rng)]
    for criterion, kept in (("full", 1), ("conditional", 0)):
        res = em.fit_em(tree, X, y, n_restarts=2, init=starts, max_iter=0, criterion=criterion)
        assert res.full_log_likelihood[1] > res.full_log_likelihood[0]
        assert res.conditional_log_likelihood[0] > res.conditional_log_likelihood[1]
        assert res.best_restart == kept
        _assert_same_tables(res.params, starts[kept], rtol=1e-12)


def test_with_a_pseudo_count_the_log_posterior_decides_not_the_likelihood():
    # the planted HBN tables (Dirichlet(0.4) rows, some near 0) against the same tables shrunk
    # toward uniform: the likelihood prefers the planted ones, the log posterior of pseudo-count 1
    # (log L + sum log theta over the learned tables) the shrunk ones
    tree, true, _, X, y = _problem("hbn")
    shrunk = TreeParameters(tree, [0.7 * np.asarray(t) + 0.3 / t.shape[-1] for t in true.cpts])
    starts = [true, shrunk]
    for a, kept in ((0.0, 0), (1.0, 1)):
        res = em.fit_em(tree, X, y, n_restarts=2, init=starts, max_iter=0, pseudo_count=a)
        assert res.full_log_likelihood[0] > res.full_log_likelihood[1]
        prior = [sum(np.log(t).sum() for t in _learned(p)) for p in starts]
        posterior = res.full_log_likelihood + a * np.array(prior)
        np.testing.assert_allclose([t[-1] for t in res.traces], posterior, rtol=1e-12)
        assert res.best_restart == kept
        for ta, tb in zip(_learned(res.params), _learned(starts[kept])):
            np.testing.assert_allclose(ta, tb, rtol=1e-12)
