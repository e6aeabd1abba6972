"""Noisy-OR gate classifier (de Campos et al., sec. 3): golden weights, brute-force
inference oracle, slow-loop oracle for eqs. 15/17, adapters and bad input."""
from __future__ import annotations

import itertools
from fractions import Fraction as Fr

import numpy as np
import pytest
import scipy.sparse as sp

from hbnlab.models.multinomial_nb import class_term_counts
from hbnlab.models.or_gate import LOG_FLOOR, NoisyORBinaryClassifier, NoisyORClassifier, noisy_or_weights

# The three-document corpus of the golden tests: 3 terms, 2 classes (single-label).
X3 = np.array([[2, 1, 0],
               [1, 0, 1],
               [0, 1, 2]])
Y3 = np.array([[1, 0], [0, 1], [0, 1]], dtype=bool)
# Statistics by hand: N_.k = (3, 2, 3), N = 8.
#   class 0 (doc 0):     N_0k = (2, 1, 0), N_0. = 3, Pa(C_0) = {t0, t1}, nt_0 = 2
#   class 1 (docs 1, 2): N_1k = (1, 1, 3), N_1. = 5, Pa(C_1) = {t0, t1, t2}, nt_1 = 3
# Eq. 15 factor r_ih = (N_i. - N_ih) N / ((N - N_.h) N_i.):
#   r_00 = 1*8/(5*3) = 8/15      r_01 = 2*8/(6*3) = 8/9
#   r_10 = 4*8/(5*5) = 32/25     r_11 = 4*8/(6*5) = 16/15     r_12 = 2*8/(5*5) = 16/25
GOLDEN = {
    # eq. 11: N_ik / N_.k on arcs
    "eq11": [[Fr(2, 3), Fr(1, 2), 0], [Fr(1, 3), Fr(1, 2), Fr(3, 3)]],
    # eq. 12: (N_ik + 1) / (N_.k + 2) on arcs (no arc C_0 <- t2: weight 0)
    "eq12": [[Fr(3, 5), Fr(2, 4), 0], [Fr(2, 5), Fr(2, 4), Fr(4, 5)]],
    # eq. 15: N_ik/N_.k * prod_{h in Pa, h != k} r_ih
    #   w_00 = 2/3 * 8/9 = 16/27          w_01 = 1/2 * 8/15 = 4/15
    #   w_10 = 1/3 * 16/15 * 16/25 = 256/1125
    #   w_11 = 1/2 * 32/25 * 16/25 = 256/625
    #   w_12 = 3/3 * 32/25 * 16/15 = 512/375 > 1: clipped to 1
    "eq15": [[Fr(16, 27), Fr(4, 15), 0], [Fr(256, 1125), Fr(256, 625), Fr(1)]],
    # eq. 17: eq. 15 / nt_i (before clipping): 512/375 / 3 = 512/1125 < 1
    "eq17": [[Fr(8, 27), Fr(2, 15), 0], [Fr(256, 3375), Fr(256, 1875), Fr(512, 1125)]],
}


@pytest.mark.parametrize("method", ["eq11", "eq12", "eq15", "eq17"])
def test_weights_hand_computed_three_documents(method):
    model = NoisyORClassifier(weights=method).fit(X3, Y3)
    expected = np.array([[float(v) for v in row] for row in GOLDEN[method]])
    np.testing.assert_allclose(model.weights_, expected, rtol=1e-12, atol=0)
    assert model.n_parents_.tolist() == [2, 3]


def _weights_slow(X, Y, method):
    """Double loop over classes, terms and the other parents: de Campos eqs. 11, 12, 15, 17."""
    X = np.asarray(X, dtype=float)
    n_c, m = Y.shape[1], X.shape[1]
    Nk = X.sum(axis=0)
    N = X.sum()
    W = np.zeros((n_c, m))
    for i in range(n_c):
        Nik = X[Y[:, i]].sum(axis=0)
        Ni = Nik.sum()
        pa = [k for k in range(m) if Nik[k] > 0]
        for k in pa:
            if method == "eq11":
                w = Nik[k] / Nk[k]
            elif method == "eq12":
                w = (Nik[k] + 1) / (Nk[k] + 2)
            else:
                w = Nik[k] / Nk[k]
                for h in pa:
                    if h != k:
                        w *= (Ni - Nik[h]) * N / ((N - Nk[h]) * Ni)
                if method == "eq17":
                    w /= len(pa)
            W[i, k] = min(w, 1.0)
    return W


@pytest.mark.parametrize("method", ["eq11", "eq12", "eq15", "eq17"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weights_match_double_loop_oracle(method, seed):
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.4, size=(40, 25)) * (rng.random((40, 25)) < 0.6)
    Y = rng.random((40, 4)) < 0.35
    Y[0] = True  # every class has a positive document; labels overlap (multi-label)
    fast = NoisyORClassifier(weights=method).fit(X, Y).weights_
    np.testing.assert_allclose(fast, _weights_slow(X, Y, method), rtol=1e-10, atol=1e-300)


@pytest.mark.parametrize("method, expected", [("eq15", 3 / 4), ("eq17", 3 / 4)])
def test_single_parent_class_has_empty_product(method, expected):
    # Class 0's documents contain only t0, so r_00 = (N_0. - N_00) N / ... = 0: log r = -inf.
    # It is the own factor, excluded from the product over h != k, which is empty:
    # w = N_00 / N_.0 = 3/4 (and nt_0 = 1 for eq. 17).  "sum of logs minus own" must not give nan.
    X = np.array([[3, 0], [1, 2], [0, 1]])
    Y = np.array([[1], [0], [0]], dtype=bool)
    W = NoisyORClassifier(weights=method).fit(X, Y).weights_
    np.testing.assert_allclose(W, [[expected, 0.0]])


def _posterior_enumeration(w, n, leak=0.0):
    """p(c | d) by summing over every on/off pattern of the (replicated) causes of an OR gate.

    Each occurrence of a present parent is an independent cause that is 'on' with probability
    w; the effect is true iff some cause (or the leak) is on.
    """
    causes = [wk for wk, nk in zip(w, n) for _ in range(int(nk))] + ([leak] if leak > 0 else [])
    total = 0.0
    for pattern in itertools.product([0, 1], repeat=len(causes)):
        p = 1.0
        for on, wk in zip(pattern, causes):
            p *= wk if on else 1.0 - wk
        if any(pattern):
            total += p
    return total


@pytest.mark.parametrize("counts", [False, True])
@pytest.mark.parametrize("leak", [0.0, 0.15])
def test_posterior_equals_brute_force_enumeration(counts, leak):
    rng = np.random.default_rng(7)
    X = rng.integers(0, 3, size=(30, 6)) * (rng.random((30, 6)) < 0.5)
    Y = np.zeros((30, 2), dtype=bool)
    Y[:15, 0] = True
    Y[10:, 1] = True
    model = NoisyORClassifier(weights="eq12", counts=counts, leak=leak).fit(X, Y)
    Xt = np.array([[1, 0, 2, 0, 1, 0], [0, 0, 0, 0, 0, 0], [2, 1, 0, 1, 0, 1], [0, 0, 0, 1, 0, 0]])
    P = model.predict_proba(Xt)
    for j, row in enumerate(Xt):
        n = row if counts else (row > 0).astype(int)  # eq. 10 replicates T_k n_jk times; eq. 9 once
        for i in range(2):
            assert P[j, i] == pytest.approx(_posterior_enumeration(model.weights_[i], n, leak), abs=1e-13)


def test_eq7_gate_is_the_paper_product_form():
    # p(c | pa) = 1 - prod over the instantiated parents of (1 - w)   (de Campos eq. 7)
    w = np.array([0.3, 0.5, 0.9])
    for pa in itertools.product([0, 1], repeat=3):
        assert 1 - np.prod([(1 - wk) if on else 1.0 for wk, on in zip(w, pa)]) == pytest.approx(
            _posterior_enumeration(w, pa))


def test_decision_is_log_odds_and_finite():
    model = NoisyORClassifier(weights="eq11").fit(X3, Y3)
    Xt = np.array([[0, 0, 1], [1, 0, 0], [0, 0, 0], [5, 5, 5]])
    D = model.decision_function(Xt)
    P = model.predict_proba(Xt)
    assert np.all(np.isfinite(D))
    # t2 has eq. 11 weight 1 for class 1: certain, a large finite score
    assert D[0, 1] >= -LOG_FLOOR - 1e-9
    # no parent of class 0 in document 0 -> posterior 0 and the floor
    assert P[0, 0] == 0.0 and D[0, 0] == pytest.approx(LOG_FLOOR)
    inner = (P > 1e-12) & (P < 1 - 1e-12)
    np.testing.assert_allclose(D[inner], np.log(P[inner]) - np.log1p(-P[inner]), rtol=1e-10)
    np.testing.assert_allclose(model.predict_log_proba(Xt)[inner], np.log(P[inner]), rtol=1e-10)


def test_log_odds_keep_resolution_where_posterior_rounds_to_one():
    X = np.array([[1, 0], [0, 1], [1, 1]])
    Y = np.array([[1], [0], [1]], dtype=bool)
    model = NoisyORClassifier(weights="eq12").fit(X, Y)
    Xt = np.array([[60, 0], [80, 0]])
    assert np.all(model.predict_proba(Xt) == 1.0)  # saturated in floating point
    d = model.decision_function(Xt)[:, 0]
    assert d[1] > d[0]  # still ranked: more occurrences, more evidence (eq. 10)


def test_counts_vs_binary_evidence():
    model_c = NoisyORClassifier(weights="eq12", counts=True).fit(X3, Y3)
    model_b = NoisyORClassifier(weights="eq12", counts=False).fit(X3, Y3)
    np.testing.assert_array_equal(model_c.weights_, model_b.weights_)
    x = np.array([[2, 0, 0]])
    w = model_c.weights_[0, 0]
    assert model_c.predict_proba(x)[0, 0] == pytest.approx(1 - (1 - w) ** 2)  # eq. 10
    assert model_b.predict_proba(x)[0, 0] == pytest.approx(w)  # eq. 9


def test_multilabel_uses_occurrence_totals():
    # t0 occurs once, in a document of both classes: p(c_i | t0) = 1 for both (N_.k = 1, not 2)
    X = np.array([[1, 0], [0, 1]])
    Y = np.array([[1, 1], [0, 0]], dtype=bool)
    W = NoisyORClassifier(weights="eq11").fit(X, Y).weights_
    np.testing.assert_allclose(W[:, 0], [1.0, 1.0])


def test_binary_adapter_equals_multilabel_column():
    rng = np.random.default_rng(3)
    X = sp.csr_matrix(rng.poisson(0.5, size=(50, 30)))
    Y = rng.random((50, 3)) < 0.3
    Y[:3] = True
    Xt = sp.csr_matrix(rng.poisson(0.5, size=(20, 30)))
    for method in ("eq12", "eq17"):
        multi = NoisyORClassifier(weights=method).fit(X, Y)
        for i in range(3):
            b = NoisyORBinaryClassifier(weights=method).fit(X, Y[:, i].astype(int))
            np.testing.assert_allclose(b.decision_function(Xt), multi.decision_function(Xt)[:, i], rtol=1e-12)
            np.testing.assert_allclose(b.predict_proba(Xt)[:, 1], multi.predict_proba(Xt)[:, i],
                                       rtol=1e-9, atol=1e-300)


def test_term_contributions_add_up():
    model = NoisyORClassifier(weights="eq17", leak=0.05).fit(X3, Y3)
    Xt = np.array([[1, 2, 0], [0, 1, 3]])
    for i in range(2):
        C = model.term_contributions(Xt, i)
        assert sp.issparse(C) and C.min() >= 0
        np.testing.assert_allclose(-np.log(0.95) + np.asarray(C.sum(axis=1)).ravel(),
                                   -model.log_prob_negative(Xt)[:, i], rtol=1e-12)


def test_dense_equals_sparse_and_row_permutation():
    rng = np.random.default_rng(11)
    X = rng.poisson(0.6, size=(40, 20))
    Y = rng.random((40, 3)) < 0.4
    Y[0] = True
    a = NoisyORClassifier(weights="eq17").fit(X, Y)
    b = NoisyORClassifier(weights="eq17").fit(sp.csr_matrix(X), Y)
    perm = rng.permutation(40)
    c = NoisyORClassifier(weights="eq17").fit(X[perm], Y[perm])
    np.testing.assert_array_equal(a.weights_, b.weights_)
    np.testing.assert_allclose(a.weights_, c.weights_, rtol=1e-12)
    np.testing.assert_allclose(a.decision_function(X), c.decision_function(sp.csr_matrix(X)), rtol=1e-12)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"weights": "eq13"}, "weights must be one of"),
    ({"leak": 1.0}, "leak must be a number in [0, 1)"),
    ({"leak": -0.1}, "leak must be a number in [0, 1)"),
])
def test_bad_hyper_parameters_are_named(kwargs, fragment):
    with pytest.raises(ValueError) as e:
        NoisyORClassifier(**kwargs).fit(X3, Y3)
    assert fragment in str(e.value)


@pytest.mark.parametrize("X, Y, fragment", [
    (X3, Y3[:, 0], "Y must be a 2-D label matrix"),
    (X3, Y3[:2], "X has 3 rows but Y has 2"),
    (X3, np.array([[1, 0], [0, 0], [0, 0]]), "column(s) [1] have no positive"),
    (X3, np.array([[2, 0], [0, 1], [0, 1]]), "0/1 or bool labels"),
    (-X3, Y3, "non-negative term counts, got -2 at row 0, column 0"),
    (np.array([[np.nan, 1, 0], [1, 0, 1], [0, 1, 2]]), Y3, "NaN or infinite"),
    (np.zeros((3, 0)), Y3, "0 feature columns"),
])
def test_bad_input_battery(X, Y, fragment):
    with pytest.raises(ValueError) as e:
        NoisyORClassifier().fit(X, Y)
    assert fragment in str(e.value)


def test_predict_before_fit_and_wrong_width():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        NoisyORClassifier().decision_function(X3)
    model = NoisyORClassifier().fit(X3, Y3)
    with pytest.raises(ValueError, match="X has 2 columns but NoisyORClassifier was fitted with 3"):
        model.decision_function(np.ones((1, 2)))


def test_noisy_or_weights_function_rejects_unknown_method():
    with pytest.raises(ValueError, match="got 'ml'"):
        noisy_or_weights(*class_term_counts(sp.csr_matrix(X3.astype(float)), Y3), method="ml")
