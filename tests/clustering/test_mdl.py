"""MDL word groups: Stirling numbers, integer/model/label codes, incremental == from-scratch."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from hbnlab.clustering.distributional import mutual_information_bits, word_class_counts
from hbnlab.clustering.mdl import (
    RISSANEN_C0,
    clustering_code_length,
    label_code_exceptions,
    label_code_probabilistic,
    log2_stirling2,
    log2_stirling2_asymptotic,
    log2_stirling2_row,
    mdl_code_lengths,
    mdl_word_groups,
    model_code_length,
    naive_bayes_log_joint,
    pruned_histogram,
    scale_rows,
    universal_integer_code_length,
)


def _stirling_exact(n):
    """Integer recurrence S(n, k) = S(n-1, k-1) + k S(n-1, k) (Verbeek eq. 4.1)."""
    row = [1] + [0] * n
    for m in range(1, n + 1):
        new = [0] * (n + 1)
        for k in range(1, m + 1):
            new[k] = row[k - 1] + k * row[k]
        row = new
    return row


def _log2_big(x: int) -> float:
    if x < 2**1000:
        return math.log2(x)
    shift = x.bit_length() - 64
    return math.log2(x >> shift) + shift


# ------------------------------------------------------------------ Stirling numbers
def test_stirling_known_values():
    assert 2 ** log2_stirling2(10, 4) == pytest.approx(34105)
    assert 2 ** log2_stirling2(9, 3) == pytest.approx(3025)
    assert log2_stirling2(7, 1) == pytest.approx(0.0, abs=1e-12)
    assert log2_stirling2(7, 7) == pytest.approx(0.0, abs=1e-12)
    assert log2_stirling2(7, 8) == -np.inf
    assert 2 ** log2_stirling2(5, 2) == pytest.approx(2**4 - 1)  # S(n, 2) = 2^(n-1) - 1


@pytest.mark.parametrize("n", [1, 2, 3, 10, 40, 150])
def test_log_space_recurrence_matches_exact_integers(n):
    exact = _stirling_exact(n)
    row = log2_stirling2_row(n)
    assert row[0] == -np.inf
    for k in range(1, n + 1):
        assert row[k] == pytest.approx(_log2_big(exact[k]), rel=1e-11, abs=1e-9)


def test_log_space_recurrence_matches_temme_asymptotic_for_large_n():
    n = 2000
    row = log2_stirling2_row(n)
    k = np.arange(2, n)
    asym = log2_stirling2_asymptotic(n, k)
    assert np.all(np.isfinite(row[1:]))
    # Temme's relative error is about 0.06/n, i.e. ~ 0.06/(n ln 2) bits
    np.testing.assert_allclose(row[k], asym, atol=2e-3, rtol=0)
    # the numbers really are big: log2 S(2000, 1000) is in the thousands of bits
    assert row[1000] > 10_000


def test_stirling_fixed_k_asymptotic_k_pow_n_over_k_factorial():
    # S(n, k) ~ k^n / k! for fixed k, n -> inf
    n, k = 3000, 5
    approx = (n * np.log(k) - math.lgamma(k + 1)) / np.log(2)
    assert log2_stirling2_row(n)[k] == pytest.approx(approx, abs=1e-6)


# ------------------------------------------------------------------ integer code, clustering code
def test_universal_integer_code_hand_values():
    c = np.log2(RISSANEN_C0)
    assert universal_integer_code_length(1) == pytest.approx(c)
    assert universal_integer_code_length(2) == pytest.approx(c + 1)
    assert universal_integer_code_length(4) == pytest.approx(c + 2 + 1)
    assert universal_integer_code_length(16) == pytest.approx(c + 4 + 2 + 1)
    assert universal_integer_code_length(65536) == pytest.approx(c + 16 + 4 + 2 + 1)
    # Kraft: sum 2^-L*(n) <= 1
    n = np.arange(1, 200_000)
    assert np.sum(2.0 ** -universal_integer_code_length(n)) < 1.0
    with pytest.raises(ValueError, match="n >= 1"):
        universal_integer_code_length(0)


def test_clustering_code_length():
    assert clustering_code_length(10, 4) == pytest.approx(universal_integer_code_length(4) + np.log2(34105))
    assert clustering_code_length(10, 1) == pytest.approx(universal_integer_code_length(1))
    with pytest.raises(ValueError, match="n_groups must be in 1..10"):
        clustering_code_length(10, 11)


# ------------------------------------------------------------------ model code
def test_scale_rows_largest_remainder():
    out = scale_rows(np.array([[1.0, 1.0, 1.0], [3.0, 1.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 6.0]]), 25)
    assert out.tolist() == [[9, 8, 8], [19, 6, 0], [25, 0, 0], [6, 0, 19]]
    rng = np.random.default_rng(0)
    M = rng.gamma(0.5, 2.0, size=(200, 7))
    for rho in (1, 3, 25, 100):
        S = scale_rows(M, rho)
        assert np.all(S.sum(1) == rho) and S.min() >= 0
        # within one unit of the exact scaled value
        exact = rho * M / M.sum(1, keepdims=True)
        assert np.all(np.abs(S - exact) < 1.0 + 1e-9)


def test_pruned_histogram_hand_example():
    rows = np.array([[5, 0, 0], [2, 3, 0], [1, 1, 3]])
    # kept: row0 -> 5 ; row1 -> 2, 3 ; row2 -> 1, 1
    assert pruned_histogram(rows, 5).tolist() == [0, 2, 1, 1, 0, 1]


def test_model_code_length_hand_computed():
    # rows scale (rho=5) to [5,0,0], [2,3,0], [1,1,3]: pruned values 5, 2, 3, 1, 1
    counts = np.array([[10.0, 0.0, 0.0], [2.0, 3.0, 0.0], [1.0, 1.0, 3.0]])
    Ls = universal_integer_code_length
    hist = np.array([0, 2, 1, 1, 0, 1])
    bins = sum(Ls(h + 1) for h in hist)
    n = 5
    nH = -(2 * np.log2(2 / n) + 3 * np.log2(1 / n))
    assert model_code_length(counts, rho=5) == pytest.approx(bins + nH)


# ------------------------------------------------------------------ label codes
def test_label_codes_hand_computed():
    # three documents, three classes; posteriors (0.7, 0.2, 0.1), (0.25, 0.5, 0.25), (0.6, 0.3, 0.1)
    post = np.array([[0.7, 0.2, 0.1], [0.25, 0.5, 0.25], [0.6, 0.3, 0.1]])
    log_joint = np.log(post) + np.array([[-50.0], [-3.0], [-700.0]])  # unnormalised, tiny p(d)
    y = np.array([0, 1, 1])
    assert label_code_probabilistic(log_joint, y) == pytest.approx(
        -np.log2(0.7) - np.log2(0.5) - np.log2(0.3)
    )
    # one error in m = 3: L*(2) + log2 C(3, 1) + 1 * log2(2)
    expected = universal_integer_code_length(2) + np.log2(3) + 1.0
    assert label_code_exceptions(log_joint, y) == pytest.approx(expected)
    # no errors: L*(1) only
    assert label_code_exceptions(log_joint, np.array([0, 1, 0])) == pytest.approx(universal_integer_code_length(1))


def test_exceptions_code_close_to_transformed_model():
    # Verbeek sec. 4.2: L*(m e) + m H(e) + m e log(|C|-1) equals coding with the transformed model;
    # our exact log binomial differs from m H(e) by O(log m) only
    m, e, C = 1000, 70, 8
    rng = np.random.default_rng(0)
    y = rng.integers(0, C, m)
    pred = y.copy()
    wrong = rng.choice(m, e, replace=False)
    pred[wrong] = (pred[wrong] + 1) % C
    log_joint = np.full((m, C), -5.0)
    log_joint[np.arange(m), pred] = 0.0
    eps = e / m
    transformed = universal_integer_code_length(e + 1) + m * (-(1 - eps) * np.log2(1 - eps) - eps * np.log2(eps)) \
        + e * np.log2(C - 1)
    got = label_code_exceptions(log_joint, y)
    assert got < transformed
    assert transformed - got < 0.5 * np.log2(2 * np.pi * m * eps * (1 - eps)) + 1


# ------------------------------------------------------------------ the search
def _corpus(seed=0, D=400, V=60, C=4, n_groups=6):
    """Multinomial documents whose words come in planted groups with shared class profiles."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, n_groups, V)
    prof = rng.dirichlet(np.ones(C) * 0.6, size=n_groups)  # P(c | g)
    pw = rng.dirichlet(np.ones(V))
    # P(w | c) proportional to P(w) P(c | g(w))
    pwc = pw[:, None] * prof[group]
    pwc /= pwc.sum(0, keepdims=True)
    y = rng.integers(0, C, D)
    lens = rng.integers(5, 40, D)
    X = np.array([rng.multinomial(n, pwc[:, c]) for n, c in zip(lens, y)])
    return sp.csr_matrix(X), y, group


@pytest.mark.parametrize("pool_size", [None, 10])
def test_incremental_code_lengths_equal_from_scratch(pool_size):
    X, y, _ = _corpus(seed=1)
    res = mdl_word_groups(X, y, pool_size=pool_size, rho=25)
    n = res.terms.size
    assert res.n_groups.tolist() == list(range(n, 0, -1))
    for i in list(range(0, n, 7)) + [n - 3, n - 2, n - 1]:
        k = int(res.n_groups[i])
        ref = mdl_code_lengths(X, y, res.labels_at(k), rho=25)
        assert ref["n_groups"] == k
        assert res.clustering_bits[i] == pytest.approx(ref["clustering"], rel=1e-10)
        assert res.model_bits[i] == pytest.approx(ref["model"], rel=1e-10)
        assert res.label_bits_probabilistic[i] == pytest.approx(ref["labels_probabilistic"], rel=1e-8, abs=1e-6)
        assert res.label_bits_exceptions[i] == pytest.approx(ref["labels_exceptions"], rel=1e-10)
        assert res.train_errors[i] == ref["errors"]
        assert res.total_bits("exceptions")[i] == pytest.approx(ref["total_exceptions"], rel=1e-9)


def test_from_scratch_label_code_equals_naive_loop():
    X, y, _ = _corpus(seed=2, D=50, V=12, C=3, n_groups=3)
    labels = np.arange(12) % 4
    Xd = X.toarray()
    # slow oracle: NB over groups with Laplace smoothing, document by document
    G = np.stack([Xd[:, labels == g].sum(1) for g in range(4)], 1)
    n_gc = np.stack([G[y == c].sum(0) for c in range(3)], 1)
    bits = 0.0
    for d in range(50):
        lj = np.array([np.log((y == c).mean()) + sum(
            G[d, g] * np.log((n_gc[g, c] + 1) / (n_gc[:, c].sum() + 4)) for g in range(4)) for c in range(3)])
        bits += -(lj[y[d]] - np.log(np.exp(lj).sum())) / np.log(2)
    assert mdl_code_lengths(X, y, labels)["labels_probabilistic"] == pytest.approx(bits, rel=1e-10)


def test_merge_costs_are_drops_in_mutual_information_times_one():
    X, y, _ = _corpus(seed=3)
    res = mdl_word_groups(X, y, pool_size=15)
    counts = word_class_counts(X, y)[res.terms]
    for i, k in enumerate(res.n_groups):
        if i % 9 and k > 2:
            continue
        lab = res.labels_at(int(k))[res.terms]
        G = np.zeros((int(k), counts.shape[1]))
        np.add.at(G, lab, counts)
        info = mutual_information_bits(G)
        assert res.agglomeration.information_curve()[i] == pytest.approx(info, rel=1e-9, abs=1e-12)


def test_chosen_number_of_groups_minimises_total_and_labels_consistent():
    X, y, _ = _corpus(seed=4, D=800)
    for code in ("exceptions", "probabilistic"):
        res = mdl_word_groups(X, y, label_code=code)
        tot = res.total_bits(code)
        i = int(np.argmin(tot))
        assert res.chosen_n_groups == res.n_groups[i]
        assert res.label_code == code
        g = res.groups
        assert g.shape == (X.shape[1],)
        assert set(g[g >= 0].tolist()) == set(range(res.chosen_n_groups))
        assert np.array_equal(g, res.labels_at(res.chosen_n_groups))
        df = res.to_frame()
        assert len(df) == res.terms.size
        assert {"total_bits_exceptions", "total_bits_probabilistic", "information_bits"} <= set(df.columns)


def test_mdl_recovers_planted_groups_with_much_data():
    # 80 words in 4 planted groups sharing class profiles: MDL picks exactly those 4 groups
    X, y, group = _corpus(seed=5, D=3000, V=80, C=4, n_groups=4)
    for code in ("probabilistic", "exceptions"):
        res = mdl_word_groups(X, y, pool_size=10, label_code=code)
        assert res.chosen_n_groups == 4
        g = res.groups[res.terms]
        assert len(set(zip(g.tolist(), group[res.terms].tolist()))) == 4  # same partition
        assert res.total_bits(code)[0] > res.total_bits(code).min() + 100


def test_eval_accuracy_matches_refit_naive_bayes():
    X, y, _ = _corpus(seed=6, D=500)
    Xe, ye = _corpus(seed=60, D=300)[:2]
    res = mdl_word_groups(X, y, eval_set=(Xe, ye), pool_size=20)
    for i in (0, 5, 30, res.terms.size - 2, res.terms.size - 1):
        k = int(res.n_groups[i])
        lab = res.labels_at(k)
        used = np.flatnonzero(lab >= 0)
        A = sp.csr_matrix((np.ones(used.size), (used, lab[used])), shape=(X.shape[1], k))
        counts = word_class_counts(X @ A, y)
        prior = np.bincount(y) / y.size
        L = naive_bayes_log_joint(Xe @ A, counts, prior)
        assert res.eval_accuracy[i] == pytest.approx(np.mean(L.argmax(1) == ye))


def test_terms_absent_from_sample_are_not_clustered():
    X, y, _ = _corpus(seed=7, D=100)
    X = sp.hstack([X, sp.csr_matrix((100, 3))]).tocsr()
    res = mdl_word_groups(X, y)
    assert res.terms.max() < X.shape[1] - 3
    assert np.all(res.groups[-3:] == -1)


def test_row_permutation_invariance():
    X, y, _ = _corpus(seed=8, D=300)
    perm = np.random.default_rng(0).permutation(300)
    a = mdl_word_groups(X, y)
    b = mdl_word_groups(X[perm], y[perm])
    np.testing.assert_array_equal(a.agglomeration.merges, b.agglomeration.merges)
    np.testing.assert_allclose(a.total_bits_exceptions, b.total_bits_exceptions, rtol=1e-9)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 1000), st.sampled_from([1, 3, 25]))
def test_incremental_model_code_equals_scratch_random(seed, rho):
    X, y, _ = _corpus(seed=seed, D=60, V=15, C=3, n_groups=3)
    res = mdl_word_groups(X, y, rho=rho, pool_size=4)
    for i, k in enumerate(res.n_groups):
        lab = res.labels_at(int(k))[res.terms]
        counts = word_class_counts(X, y, 3)[res.terms]
        G = np.zeros((int(k), 3))
        np.add.at(G, lab, counts)
        assert res.model_bits[i] == pytest.approx(model_code_length(G, rho), rel=1e-10)


def test_bad_inputs_name_the_value():
    X, y, _ = _corpus(seed=9, D=30)
    with pytest.raises(ValueError, match="label_code must be one of .* got 'bogus'"):
        mdl_word_groups(X, y, label_code="bogus")
    with pytest.raises(ValueError, match="rho must be an integer >= 1, got 0"):
        mdl_word_groups(X, y, rho=0)
    with pytest.raises(ValueError, match="only 1 class"):
        mdl_word_groups(X, np.zeros(30, dtype=int))
    with pytest.raises(ValueError, match="X has 30 rows but y has 29 labels"):
        mdl_word_groups(X, y[:-1])
