"""Multinomial naive Bayes (de Campos eqs. 2-6) against scikit-learn and hand values; TF-IDF
Rocchio against a loop oracle."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.naive_bayes import MultinomialNB

from hbnlab._validation import as_binary
from hbnlab.models.multinomial_nb import MultinomialNBBinaryClassifier, MultinomialNBClassifier, presence_pattern
from hbnlab.models.rocchio import RocchioBinaryClassifier, RocchioClassifier


def _data(seed, n=60, m=35, c=4):
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.5, size=(n, m)) * (rng.random((n, m)) < 0.5)
    Y = rng.random((n, c)) < 0.3
    Y[0] = True
    Y[-1] = False
    return X, Y


# ----------------------------------------------------------------------------- multinomial NB
def test_multinomial_hand_values():
    X = np.array([[2, 0, 1], [1, 1, 0], [0, 3, 1]])
    Y = np.array([[1], [0], [0]], dtype=bool)
    nb = MultinomialNBClassifier().fit(X, Y)
    # eq. 4: class words (2, 0, 1), N_0. = 3, M = 3  ->  (3/6, 1/6, 2/6)
    np.testing.assert_allclose(np.exp(nb.feature_log_prob_[0]), [3 / 6, 1 / 6, 2 / 6])
    # eq. 6: complement words (1, 4, 1), N - N_0. = 6  ->  (2/9, 5/9, 2/9)
    np.testing.assert_allclose(np.exp(nb.feature_log_prob_neg_[0]), [2 / 9, 5 / 9, 2 / 9])
    # eq. 5: p(c) = 1/3
    assert nb.intercept_[0] == pytest.approx(np.log(1 / 3) - np.log(2 / 3))
    # eqs. 1, 3: document (1, 0, 2): log-odds = log(1/2) + log(3/6 / 2/9) + 2 log(2/6 / 2/9)
    d = nb.decision_function(np.array([[1, 0, 2]]))[0, 0]
    assert d == pytest.approx(np.log(0.5) + np.log((3 / 6) / (2 / 9)) + 2 * np.log((2 / 6) / (2 / 9)))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_multinomial_equals_sklearn_per_class(seed, alpha):
    """Where they coincide -- one binary problem, M = number of columns -- the log-odds are
    sklearn's joint log-likelihood difference."""
    X, Y = _data(seed)
    Xt, _ = _data(seed + 100)
    ours = MultinomialNBClassifier(alpha=alpha).fit(sp.csr_matrix(X), Y)
    D = ours.decision_function(Xt)
    for i in range(Y.shape[1]):
        sk = MultinomialNB(alpha=alpha).fit(X, Y[:, i])
        jll = sk.predict_joint_log_proba(Xt)
        np.testing.assert_allclose(D[:, i], jll[:, 1] - jll[:, 0], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(ours.predict_proba(Xt)[:, i], sk.predict_proba(Xt)[:, 1], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(ours.feature_log_prob_[i], sk.feature_log_prob_[1], rtol=1e-12)
        np.testing.assert_allclose(ours.feature_log_prob_neg_[i], sk.feature_log_prob_[0], rtol=1e-12)


def test_multinomial_binary_adapter_and_contributions():
    X, Y = _data(5)
    multi = MultinomialNBClassifier().fit(X, Y)
    for i in range(Y.shape[1]):
        b = MultinomialNBBinaryClassifier().fit(X, Y[:, i].astype(int))
        np.testing.assert_allclose(b.decision_function(X), multi.decision_function(X)[:, i], rtol=1e-12)
        C = b.term_contributions(X)
        np.testing.assert_allclose(b.intercept_ + np.asarray(C.sum(axis=1)).ravel(), b.decision_function(X),
                                   rtol=1e-10, atol=1e-10)


def test_multinomial_binary_option_and_permutation():
    X, Y = _data(9)
    Xb = (X > 0).astype(int)
    a = MultinomialNBClassifier(binary=True).fit(X * 3, Y)
    b = MultinomialNBClassifier().fit(Xb, Y)
    np.testing.assert_allclose(a.decision_function(X * 2), b.decision_function(Xb), rtol=1e-12)
    perm = np.random.default_rng(0).permutation(X.shape[0])
    c = MultinomialNBClassifier().fit(X[perm], Y[perm])
    np.testing.assert_allclose(c.coef_, MultinomialNBClassifier().fit(X, Y).coef_, rtol=1e-12)


def test_presence_pattern_is_as_binary_in_storage_order():
    X = sp.csr_matrix(np.array([[2.0, 0, 1, 4], [0, 3, 0, 1]]))[:, [3, 2, 0, 1]]
    assert not X.has_sorted_indices  # a column selection, as the binary adapters make
    P = presence_pattern(X)
    np.testing.assert_array_equal(P.toarray(), as_binary(X).toarray())
    np.testing.assert_array_equal(P.indices, X.indices)


@pytest.mark.parametrize("kwargs, X, Y, fragment", [
    ({"alpha": 0}, None, None, "alpha must be a finite number > 0, got 0"),
    ({}, None, np.ones((3, 1), dtype=bool), "column(s) [0] have no negative"),
    ({}, None, np.array([[0], [0], [0]]), "column(s) [0] have no positive"),
    ({}, np.array([[1.0, -1.0, 0.0], [0, 1, 0], [1, 0, 0]]), None, "Negative values in data"),
])
def test_multinomial_bad_input(kwargs, X, Y, fragment):
    X = np.array([[2, 0, 1], [1, 1, 0], [0, 3, 1]]) if X is None else X
    Y = np.array([[1], [0], [0]]) if Y is None else Y
    with pytest.raises(ValueError) as e:
        MultinomialNBClassifier(**kwargs).fit(X, Y)
    assert fragment in str(e.value)


# ----------------------------------------------------------------------------- Rocchio
def _rocchio_loop(X, Y, Xt, beta, gamma):
    """Document-by-document TF-IDF, centroids and cosines (Joachims 1997), plain loops."""
    X = np.asarray(X, dtype=float)
    n, m = X.shape
    df = (X > 0).sum(axis=0)
    idf = np.array([np.log(n / df[t]) if df[t] > 0 else 0.0 for t in range(m)])

    def vec(row):
        v = np.array([row[t] * idf[t] for t in range(m)])
        nv = np.sqrt(sum(x * x for x in v))
        return v / nv if nv > 0 else v

    docs = [vec(r) for r in X]
    out = np.zeros((Xt.shape[0], Y.shape[1]))
    for i in range(Y.shape[1]):
        pos = [docs[j] for j in range(n) if Y[j, i]]
        neg = [docs[j] for j in range(n) if not Y[j, i]]
        proto = beta * sum(pos) / len(pos) - gamma * sum(neg) / len(neg)
        for j, row in enumerate(np.asarray(Xt, dtype=float)):
            d = vec(row)
            den = np.linalg.norm(proto) * np.linalg.norm(d)
            out[j, i] = float(d @ proto) / den if den > 0 else 0.0
    return out


@pytest.mark.parametrize("beta, gamma", [(16.0, 4.0), (1.0, 0.0), (1.0, 1.0)])
def test_rocchio_matches_loop_oracle(beta, gamma):
    X, Y = _data(2, n=30, m=15, c=3)
    Xt, _ = _data(3, n=12, m=15, c=3)
    ours = RocchioClassifier(beta=beta, gamma=gamma).fit(X, Y).decision_function(Xt)
    np.testing.assert_allclose(ours, _rocchio_loop(X, Y, Xt, beta, gamma), rtol=1e-10, atol=1e-12)


def test_rocchio_hand_example_and_scale_invariance():
    X = np.array([[1, 0], [0, 1]])
    Y = np.array([[1], [0]], dtype=bool)
    # idf = (log 2, log 2); unit rows e0, e1; prototype 16 e0 - 4 e1 -> cosines 16/sqrt(272), -4/sqrt(272)
    r = RocchioClassifier().fit(X, Y)
    np.testing.assert_allclose(r.decision_function(X)[:, 0], [16 / np.sqrt(272), -4 / np.sqrt(272)])
    # only gamma / beta matters
    a = RocchioClassifier(beta=2.0, gamma=0.5).fit(X, Y).decision_function(X)
    np.testing.assert_allclose(a, r.decision_function(X))


def test_rocchio_adapter_and_contributions():
    X, Y = _data(4)
    multi = RocchioClassifier().fit(X, Y)
    for i in range(Y.shape[1]):
        b = RocchioBinaryClassifier().fit(X, Y[:, i].astype(int))
        np.testing.assert_allclose(b.decision_function(X), multi.decision_function(X)[:, i], atol=1e-12)
        np.testing.assert_allclose(np.asarray(b.term_contributions(X).sum(axis=1)).ravel(),
                                   b.decision_function(X), atol=1e-12)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"beta": 0.0}, "beta must be a finite number > 0, got 0.0"),
    ({"gamma": -1.0}, "gamma must be a finite number >= 0, got -1.0"),
    ({"beta": float("nan")}, "beta must be a finite number > 0, got nan"),
])
def test_rocchio_bad_parameters(kwargs, fragment):
    X, Y = _data(1)
    with pytest.raises(ValueError) as e:
        RocchioClassifier(**kwargs).fit(X, Y)
    assert fragment in str(e.value)
