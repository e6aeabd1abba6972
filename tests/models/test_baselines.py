"""Bernoulli NB (N0), linear SVM (Platt), one-vs-rest: golden values and cross-checks."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.naive_bayes import BernoulliNB

from hbnlab.models.naive_bayes import BernoulliNBClassifier
from hbnlab.models.ovr import OneVsRest
from hbnlab.models.svm import LinearSVMClassifier, _platt


def _random_binary(n=200, d=15, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.where(y[:, None] == 1, rng.uniform(0.05, 0.6, d), rng.uniform(0.05, 0.6, d))
    X = (rng.random((n, d)) < p).astype(np.int8)
    return X, y


def test_nb_hand_computed_tiny_case():
    # 4 documents, 2 terms; positives: d0, d1; term0 in d0,d1,d2; term1 in d1,d3
    X = np.array([[1, 0], [1, 1], [1, 0], [0, 1]])
    y = np.array([1, 1, 0, 0])
    nb = BernoulliNBClassifier(N0=0.1).fit(X, y)
    # P(t0=1|+) = (2+.1)/(2+.2), P(t0=1|-) = (1+.1)/(2+.2); P(t1=1|+) = (1+.1)/2.2, P(t1=1|-) = 1.1/2.2
    p_pos = np.array([2.1 / 2.2, 1.1 / 2.2])
    p_neg = np.array([1.1 / 2.2, 1.1 / 2.2])
    np.testing.assert_allclose(np.exp(nb.feature_log_prob_), np.vstack([p_neg, p_pos]))
    # document [1, 0]: log-odds = log(.5/.5) + log(p_pos0/p_neg0) + log((1-p_pos1)/(1-p_neg1))
    expected = np.log(p_pos[0] / p_neg[0]) + np.log((1 - p_pos[1]) / (1 - p_neg[1]))
    assert nb.decision_function(np.array([[1, 0]]))[0] == pytest.approx(expected)
    np.testing.assert_allclose(nb.predict_proba([[1, 0]]).sum(axis=1), 1.0)


def test_nb_matches_sklearn_bernoulli_dense_and_sparse():
    X, y = _random_binary()
    ours = BernoulliNBClassifier(N0=0.1).fit(X, y)
    ref = BernoulliNB(alpha=0.1, force_alpha=True).fit(X, y)
    lp = ref.predict_log_proba(X)
    np.testing.assert_allclose(ours.decision_function(X), lp[:, 1] - lp[:, 0], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ours.decision_function(sp.csr_matrix(X)), ours.decision_function(X))
    np.testing.assert_allclose(ours.predict_proba(X), np.exp(lp), rtol=1e-9, atol=1e-12)


def test_nb_term_contributions_sum_to_log_odds():
    X, y = _random_binary(seed=3)
    nb = BernoulliNBClassifier().fit(X, y)
    prior = nb.class_log_prior_[1] - nb.class_log_prior_[0]
    np.testing.assert_allclose(prior + nb.term_contributions(X).sum(axis=1), nb.decision_function(X))


def test_platt_matches_sklearn_sigmoid_calibration():
    calib = pytest.importorskip("sklearn.calibration")
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    f = rng.normal(size=300) + 1.5 * y
    A, B = _platt(f, y)
    a_ref, b_ref = calib._sigmoid_calibration(f, y)
    assert A == pytest.approx(a_ref, rel=1e-3, abs=1e-3)
    assert B == pytest.approx(b_ref, rel=1e-3, abs=1e-3)


def test_svm_scores_rank_like_the_margin():
    X, y = _random_binary(seed=2)
    svm = LinearSVMClassifier(C=0.5, random_state=0).fit(X, y)
    margin = svm.svm_.decision_function(X.astype(float))
    z = svm.decision_function(X)
    # Platt's A is negative for a useful classifier, so log-odds increase with the margin
    assert svm.sigmoid_A_ < 0
    assert np.all(np.diff(z[np.argsort(margin)]) >= -1e-12)


@pytest.mark.parametrize("bad_y, msg", [([0, 0, 0, 0], "only one class"), ([0, 2, 1, 0], "binary"),
                                        ([[0, 1], [1, 0], [0, 1], [1, 1]], "1d array"), ([0, 2, 1, 0], "Only binary")])
def test_bad_labels_are_named(bad_y, msg):
    X = np.eye(4)
    with pytest.raises(ValueError, match=msg):
        BernoulliNBClassifier().fit(X, bad_y)


def test_bad_matrices_are_named():
    with pytest.raises(ValueError, match="NaN"):
        BernoulliNBClassifier().fit(np.array([[np.nan, 0], [1, 0]]), [0, 1])
    nb = BernoulliNBClassifier().fit(np.eye(2), [0, 1])
    with pytest.raises(ValueError, match="features"):
        nb.decision_function(np.eye(3))
    with pytest.raises(ValueError, match="N0"):
        BernoulliNBClassifier(N0=0).fit(np.eye(2), [0, 1])


def test_one_vs_rest_equals_per_class_fits():
    rng = np.random.default_rng(4)
    X = (rng.random((120, 10)) < 0.3).astype(np.int8)
    Y = rng.random((120, 3)) < 0.4
    ovr = OneVsRest(BernoulliNBClassifier()).fit(X, Y)
    P = ovr.predict_proba(X)
    for j in range(3):
        single = BernoulliNBClassifier().fit(X, Y[:, j].astype(int))
        np.testing.assert_allclose(P[:, j], single.predict_proba(X)[:, 1])
    with pytest.raises(ValueError, match="no positive"):
        OneVsRest(BernoulliNBClassifier()).fit(X, np.zeros((120, 2), bool))


def test_presence_models_refuse_negative_entries():
    X, y = _random_binary()
    for est in (BernoulliNBClassifier(), LinearSVMClassifier(random_state=0)):
        with pytest.raises(ValueError, match="Negative values in data passed to"):
            est.fit(-X, y)
        est.fit(X, y)
        with pytest.raises(ValueError, match="X must hold term counts or 0/1 indicators, got min -1"):
            est.predict(sp.csr_matrix(-X))
    # real-valued features without binarisation keep their sign
    svm = LinearSVMClassifier(binary=False, random_state=0).fit(X - 0.5, y)
    assert svm.decision_function(X - 0.5).shape == (200,)


def test_sklearn_estimator_checks_nb_and_svm():
    from sklearn.utils.estimator_checks import check_estimator

    # both declare positive_only (presence features), but the consistency check feeds raw
    # Gaussian blobs, negative entries included, to fit
    expected = {"check_decision_proba_consistency": "presence model: the check's blobs hold negative entries"}
    for est in (BernoulliNBClassifier(), LinearSVMClassifier(random_state=0)):
        check_estimator(est, expected_failed_checks=expected)
    check_estimator(LinearSVMClassifier(binary=False, random_state=0))  # real-valued features
