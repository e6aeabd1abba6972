"""The tree learners with ``objective="conditional"``: the tables refitted for log P(c | f) from
the EM's solution (hbnlab.bn.discriminative) inside the estimators."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.special import log_expit

from hbnlab.bn import inference as inf
from hbnlab.models.hbn import (
    CLL_PENALTIES,
    LOG_ODDS_CAP,
    ClassChildren,
    HierarchicalBNClassifier,
    HierarchicalNBClassifier,
)


def _data(seed=0, n=300, m=40):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 2, n)
    p = np.where(y[:, None] == 1, 0.30, 0.12) * (1 + np.arange(m) % 3)[None, :] / 2
    X = (rng.rand(n, m) < p).astype(int)
    X[:, 0] = y * (rng.rand(n) < 0.5)          # a term only positives carry: EM's tables reach 0 / 1
    return X, y


def _model_cll(clf, X, y):
    lo = clf.decision_function(X)
    return float(np.sum(log_expit(np.where(y > 0, lo, -lo))))


@pytest.mark.parametrize("cls", [HierarchicalBNClassifier, HierarchicalNBClassifier])
def test_conditional_fit_raises_the_training_conditional_likelihood_above_its_start(cls):
    X, y = _data()
    clf = cls(clustering="or", n_features=36, tree_terms=20, objective="conditional", cll_penalty=1.0, n_restarts=4,
              random_state=0).fit(X, y)
    fit = clf.conditional_fit_
    assert fit.conditional_log_likelihood >= fit.start_conditional_log_likelihood
    # the whole model's training CLL, tree and children, is the fit's
    assert _model_cll(clf, X, y) == pytest.approx(fit.conditional_log_likelihood, rel=1e-9)
    # the start is the EM's tables after one step with a prior, and the children's N0 frequencies
    T = clf.tree_.n_features
    Xs = X[:, clf.selected_features_]
    start_lo = inf.class_log_odds(fit.start, Xs[:, :T])
    if clf.class_children_ is not None:
        kids = ClassChildren.fit(Xs[:, T:], y, clf.children_N0)
        start_lo = start_lo + kids.log_odds(Xs[:, T:])
    assert float(np.sum(log_expit(np.where(y > 0, start_lo, -start_lo)))) == pytest.approx(
        fit.start_conditional_log_likelihood, rel=1e-9)


@pytest.mark.parametrize("clustering", ["avg", "or", "dep"])
def test_no_certain_probabilities_where_the_em_fit_has_them(clustering):
    X, y = _data(seed=1)
    rng = np.random.RandomState(5)
    Xt = (rng.rand(300, X.shape[1]) < 0.2).astype(int)
    Xt[:150, 0] = 1
    em = HierarchicalBNClassifier(clustering=clustering, n_features=30, objective="joint", n_restarts=4,
                                  random_state=0).fit(X, y)
    cl = HierarchicalBNClassifier(clustering=clustering, n_features=30, objective="conditional", cll_penalty=1.0,
                                  n_restarts=4, random_state=0).fit(X, y)
    assert np.any(np.abs(em.decision_function(Xt)) >= LOG_ODDS_CAP), "the EM fit should hold a certain document"
    lo = cl.decision_function(Xt)
    assert np.all(np.isfinite(lo)) and np.abs(lo).max() < 36.0
    P = cl.predict_proba(Xt)
    assert P.min() > 0.0 and P.max() < 1.0
    for i in range(cl.tree_.n_nodes):
        if cl.tree_.kind[i] != "feature":
            assert 0.0 < cl.params_.cpt(i).min() and cl.params_.cpt(i).max() < 1.0


def test_joint_objective_is_the_em_fit():
    X, y = _data(seed=2)
    a = HierarchicalBNClassifier(clustering="avg", n_features=30, objective="joint", n_restarts=4,
                                 random_state=3).fit(X, y)
    assert a.conditional_fit_ is None and a.cll_penalty_ is None and a.params_ is a.generative_params_


def test_penalty_by_inner_cross_validation_is_recorded_and_deterministic():
    X, y = _data(seed=3)
    kw = dict(clustering="or", n_features=36, tree_terms=20, objective="conditional", cll_penalty="cv", n_restarts=4)
    a = HierarchicalBNClassifier(random_state=4, **kw).fit(X, y)
    b = HierarchicalBNClassifier(random_state=4, **kw).fit(X, y)
    assert a.cll_cv_["penalty"] == list(CLL_PENALTIES)
    assert len(a.cll_cv_["held_out_cll"]) == len(CLL_PENALTIES)
    best = CLL_PENALTIES[int(np.argmax(a.cll_cv_["held_out_cll"]))]
    assert a.cll_penalty_ == best
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_inner_fits_never_see_their_held_out_documents(monkeypatch):
    """Every inner conditional fit is fitted on its fold's training rows only and scored on the
    others: a spy records the rows (by a marker column that numbers the documents) each fit gets."""
    import hbnlab.models.conditional as conditional_module

    X, y = _data(seed=4)
    n = y.size
    seen = []
    real = conditional_module.fit_conditional

    def spy(start, Xt, yt, **kw):
        seen.append(np.asarray(yt).size)
        return real(start, Xt, yt, **kw)

    monkeypatch.setattr(conditional_module, "fit_conditional", spy)
    clf = HierarchicalBNClassifier(clustering="or", n_features=36, tree_terms=20, objective="conditional",
                                   cll_penalty="cv", n_restarts=4, random_state=0).fit(X, y)
    inner = seen[:-1]
    assert len(inner) == 3 * len(CLL_PENALTIES)
    fold_sizes = inner[::len(CLL_PENALTIES)]                 # the grid's fits of one fold share its rows
    assert all(inner[k] == fold_sizes[k // len(CLL_PENALTIES)] for k in range(len(inner)))
    assert all(size < n for size in fold_sizes)
    assert sum(n - size for size in fold_sizes) == n          # the held-out parts cover every document once
    assert seen[-1] == n                                      # the final fit: every training document
    assert all(np.isfinite(clf.cll_cv_["held_out_cll"]))


@pytest.mark.parametrize("bad", [0.0, -1.0, "auto", np.inf])
def test_cll_penalty_is_bounded(bad):
    X, y = _data()
    with pytest.raises(ValueError, match="cll_penalty"):
        HierarchicalBNClassifier(objective="conditional", cll_penalty=bad).fit(X, y)


def test_objective_is_a_choice():
    X, y = _data()
    with pytest.raises(ValueError, match="objective"):
        HierarchicalBNClassifier(objective="discriminative").fit(X, y)
