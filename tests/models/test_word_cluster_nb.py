"""WordClusterNB: naive Bayes over distributional clusters."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.naive_bayes import MultinomialNB
from sklearn.utils.estimator_checks import check_estimator

from hbnlab.models.word_cluster_nb import WordClusterNB


def _data(seed=0, D=300, V=40, C=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, D)
    pwc = rng.dirichlet(np.ones(V) * 0.5, size=C)
    X = np.array([rng.multinomial(rng.integers(5, 30), pwc[c]) for c in y])
    return X, y


def test_all_words_as_clusters_equals_sklearn_multinomial_nb():
    X, y = _data()
    X = X[:, X.sum(0) > 0]
    ours = WordClusterNB(n_clusters=X.shape[1]).fit(X, y)
    ref = MultinomialNB(alpha=1.0).fit(X, y)
    Xt, _ = _data(seed=1)
    Xt = Xt[:, : X.shape[1]]
    np.testing.assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Xt))


def test_clusters_equal_multinomial_nb_on_summed_columns():
    X, y = _data(seed=2)
    clf = WordClusterNB(n_clusters=5).fit(X, y)
    used = clf.clusters_ >= 0
    G = np.stack([X[:, clf.clusters_ == g].sum(1) for g in range(5)], 1)
    ref = MultinomialNB(alpha=1.0).fit(G, y)
    np.testing.assert_allclose(clf.predict_proba(X), ref.predict_proba(G), rtol=1e-9)
    assert clf.n_clusters_ == 5 and set(clf.clusters_[used]) == set(range(5))
    np.testing.assert_allclose(clf.cluster_counts(X).toarray(), G)


def test_one_cluster_predicts_prior_class_and_labels_are_returned():
    X, y = _data(seed=3)
    labels = np.array(["a", "b", "c"])[y]
    clf = WordClusterNB(n_clusters=1).fit(X, labels)
    prior = np.bincount(y) / y.size
    np.testing.assert_allclose(clf.predict_proba(X), np.tile(prior, (X.shape[0], 1)), rtol=1e-9)
    assert set(clf.predict(X)) <= {"a", "b", "c"}


def test_dense_equals_sparse_and_contributions_sum_to_scores():
    X, y = _data(seed=4)
    a = WordClusterNB(n_clusters=7, pool_size=10).fit(X, y)
    b = WordClusterNB(n_clusters=7, pool_size=10).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(a.clusters_, b.clusters_)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(sp.csr_matrix(X)))
    jll = a._joint_log_likelihood(X)
    centred = jll - jll.mean(1, keepdims=True)
    lp = a.class_log_prior_ - a.class_log_prior_.mean()
    for c in range(3):
        contrib = a.term_contributions(X, c)
        np.testing.assert_allclose(np.asarray(contrib.sum(1)).ravel() + lp[c], centred[:, c], rtol=1e-9, atol=1e-9)


def test_planted_word_groups_recovered_and_accuracy_kept():
    # 60 words in 3 planted groups with shared class profiles: with 400 documents the clusters are
    # the planted groups, and 3 cluster features classify as well as the 60 words (BM98's finding)
    rng = np.random.default_rng(5)
    V, C = 60, 3
    group = np.repeat(np.arange(3), 20)
    prof = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
    pwc = prof[group] / prof[group].sum(0, keepdims=True)

    def draw(D):
        y = rng.integers(0, C, D)
        return np.array([rng.multinomial(6, pwc[:, c]) for c in y]), y

    Xtr, ytr = draw(400)
    Xte, yte = draw(3000)
    clf = WordClusterNB(n_clusters=3).fit(Xtr, ytr)
    assert len(set(zip(clf.clusters_.tolist(), group.tolist()))) == 3
    acc_words = (WordClusterNB(n_clusters=V).fit(Xtr, ytr).predict(Xte) == yte).mean()
    acc_groups = (clf.predict(Xte) == yte).mean()
    assert acc_groups >= acc_words - 0.005


def test_bad_inputs_name_the_value():
    X, y = _data(seed=6, D=20)
    with pytest.raises(ValueError, match="n_clusters must be an integer >= 1, got 0"):
        WordClusterNB(n_clusters=0).fit(X, y)
    with pytest.raises(ValueError, match="alpha must be a finite number > 0, got -1"):
        WordClusterNB(alpha=-1).fit(X, y)
    with pytest.raises(ValueError, match="only one class"):
        WordClusterNB().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="Negative values in data passed to WordClusterNB"):
        WordClusterNB().fit(-X, y)
    clf = WordClusterNB(n_clusters=3).fit(X, y)
    with pytest.raises(ValueError, match=f"X has 3 features, but WordClusterNB is expecting {X.shape[1]} features"):
        clf.predict(X[:, :3])
    with pytest.raises(ValueError, match="class_index must be in 0..2, got 5"):
        clf.term_contributions(X, 5)


def test_sklearn_estimator_checks():
    # the consistency check draws Gaussian blobs with negative "counts" regardless of the
    # positive_only tag; term counts must be >= 0 (MultinomialNB has no decision_function)
    check_estimator(
        WordClusterNB(n_clusters=50),
        expected_failed_checks={"check_decision_proba_consistency": "negative values in test X"},
    )


def test_word_group_classifier_is_the_two_class_model_over_the_selected_terms():
    """The binary learner of the catalogue: its log-odds are WordClusterNB's on the selected
    columns, and its term contributions add up (with the prior log-odds) to them."""
    import scipy.sparse as sp

    from hbnlab.models.catalog import make_classifier
    from hbnlab.models.word_cluster_nb import WordClusterNB

    rng = np.random.default_rng(0)
    y = rng.random(200) < 0.3
    X = sp.csr_matrix(rng.poisson(0.3 + 1.5 * np.outer(y, rng.random(40) < 0.3), size=(200, 40)).astype(float))
    est = make_classifier("WORD-GROUPS", 20, {"n_clusters": 5}).fit(X, y.astype(int))
    cols = est.selected_features_
    ref = WordClusterNB(5).fit(X[:, cols], y.astype(int))
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X[:, cols]))
    prior = ref.class_log_prior_[1] - ref.class_log_prior_[0]
    np.testing.assert_allclose(np.asarray(est.term_contributions(X).sum(axis=1)).ravel() + prior,
                               est.decision_function(X))
