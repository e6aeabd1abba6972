"""score_terms: hand-computed tables, scipy / scikit-learn oracles, a loop oracle for every
method, metamorphic properties and bad input."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2_contingency
from sklearn.metrics import mutual_info_score

from hbnlab.features import (
    SCORE_METHODS,
    chi_square,
    contingency_counts,
    document_frequency,
    fisher_index,
    information_gain,
    pointwise_mutual_information,
    score_terms,
)


def table_matrix(A, B, C, D):
    """One term, one category with the given 2x2 counts: rows of (term, class)."""
    rows = [(1, 1)] * A + [(1, 0)] * B + [(0, 1)] * C + [(0, 0)] * D
    arr = np.array(rows, dtype=int).reshape(-1, 2)
    return sp.csr_matrix(arr[:, :1]), arr[:, 1].astype(bool)


# --------------------------------------------------------------------------- golden values
def test_golden_table():
    # A = 3 (term & class), B = 1, C = 1, D = 5; N = 10
    X, y = table_matrix(3, 1, 1, 5)
    np.testing.assert_array_equal(np.hstack(contingency_counts(X, y)), [[3, 1, 1, 5]])
    # chi2 = N (AD - CB)^2 / ((A+C)(B+D)(A+B)(C+D)) = 10 * 14^2 / (4 * 6 * 4 * 6) = 1960 / 576
    assert score_terms(X, y, "chi2")[0, 0] == pytest.approx(1960 / 576)
    # IG in bits, cell by cell: sum k/N log2(k N / (row col))
    ig = (3 / 10 * math.log2(3 * 10 / (4 * 4)) + 1 / 10 * math.log2(1 * 10 / (4 * 6))
          + 1 / 10 * math.log2(1 * 10 / (6 * 4)) + 5 / 10 * math.log2(5 * 10 / (6 * 6)))
    assert score_terms(X, y, "ig")[0, 0] == pytest.approx(ig)
    # H(C) - H(C|F): H(C) = H(0.4); H(C|F) = 0.4 H(3/4) + 0.6 H(1/6)
    H = lambda p: -p * math.log2(p) - (1 - p) * math.log2(1 - p)  # noqa: E731
    assert score_terms(X, y, "ig")[0, 0] == pytest.approx(H(0.4) - 0.4 * H(0.75) - 0.6 * H(1 / 6))
    # MI (Yang & Pedersen) = log2(A N / ((A+C)(A+B))) = log2(30 / 16)
    assert score_terms(X, y, "mi")[0, 0] == pytest.approx(math.log2(30 / 16))
    assert score_terms(X, y, "df")[0, 0] == 4
    # Fisher: mu1 = 3/4, mu0 = 1/6; (mu1 - mu0)^2 / (mu1(1-mu1) + mu0(1-mu0))
    mu1, mu0 = 3 / 4, 1 / 6
    assert score_terms(X, y, "fisher")[0, 0] == pytest.approx((mu1 - mu0) ** 2 / (mu1 * (1 - mu1) + mu0 * (1 - mu0)))


def test_named_functions_equal_score_terms():
    rng = np.random.default_rng(0)
    X = sp.random(30, 12, density=0.3, random_state=1, format="csr")
    Y = rng.random((30, 4)) < 0.3
    for f, m in [(information_gain, "ig"), (chi_square, "chi2"), (pointwise_mutual_information, "mi"),
                 (document_frequency, "df"), (fisher_index, "fisher")]:
        np.testing.assert_array_equal(f(X, Y), score_terms(X, Y, m))


def test_degenerate_tables():
    # the term determines the class
    X, y = table_matrix(2, 0, 0, 3)
    assert score_terms(X, y, "ig")[0, 0] == pytest.approx(-(0.4 * math.log2(0.4) + 0.6 * math.log2(0.6)))
    assert score_terms(X, y, "chi2")[0, 0] == pytest.approx(5.0)  # = N for a perfect table
    assert score_terms(X, y, "fisher")[0, 0] == np.inf
    # term never in the class: MI is log 0
    X, y = table_matrix(0, 2, 2, 1)
    assert score_terms(X, y, "mi")[0, 0] == -np.inf
    # term in every document, term in no document, empty class, class = everything
    for counts in [(2, 3, 0, 0), (0, 0, 2, 3), (0, 2, 0, 3), (2, 0, 3, 0)]:
        X, y = table_matrix(*counts)
        for m in ("ig", "chi2", "fisher"):
            assert score_terms(X, y, m)[0, 0] == 0.0, (counts, m)
        assert not np.isnan(score_terms(X, y, "mi")).any()


def test_explicit_zeros_and_counts_are_binarized():
    X = sp.csr_matrix((np.array([3.0, 0.0, 1.0]), np.array([0, 1, 1]), np.array([0, 2, 3])), shape=(2, 2))
    y = np.array([True, False])
    A, B, C, D = contingency_counts(X, y)
    np.testing.assert_array_equal(A[:, 0], [1, 0])  # the explicit 0 at (0, 1) is absent
    np.testing.assert_array_equal(B[:, 0], [0, 1])
    dense = score_terms(X.toarray(), y, "ig")
    np.testing.assert_array_equal(score_terms(X, y, "ig"), dense)


# --------------------------------------------------------------------------- external oracles
TABLES = st.tuples(*[st.integers(0, 12)] * 4).filter(lambda t: sum(t) > 0)


@settings(max_examples=200, deadline=None)
@given(TABLES)
def test_chi2_against_scipy(t):
    X, y = table_matrix(*t)
    ours = score_terms(X, y, "chi2")[0, 0]
    A, B, C, D = t
    if min(A + B, C + D, A + C, B + D) == 0:
        assert ours == 0.0  # scipy refuses tables with a zero margin
    else:
        ref = chi2_contingency([[A, B], [C, D]], correction=False)[0]
        assert ours == pytest.approx(ref, rel=1e-9, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(TABLES)
def test_ig_against_sklearn_mutual_info(t):
    X, y = table_matrix(*t)
    ours = score_terms(X, y, "ig")[0, 0]  # bits
    ref = mutual_info_score(y, X.toarray()[:, 0]) / math.log(2)  # sklearn works in nats
    assert ours == pytest.approx(ref, rel=1e-9, abs=1e-12)


def test_sklearn_chi2_is_a_different_statistic():
    # sklearn.feature_selection.chi2 only sums the "term present" cells: documented difference
    from sklearn.feature_selection import chi2 as sk_chi2

    X, y = table_matrix(3, 1, 1, 5)
    assert sk_chi2(X, y)[0][0] != pytest.approx(score_terms(X, y, "chi2")[0, 0])


# --------------------------------------------------------------------------- loop oracle
def loop_scores(X: np.ndarray, Y: np.ndarray, method: str) -> np.ndarray:
    n, m = X.shape
    out = np.zeros((m, Y.shape[1]))
    for t in range(m):
        f = X[:, t] != 0
        for j in range(Y.shape[1]):
            c = Y[:, j].astype(bool)
            A = int(np.sum(f & c)); B = int(np.sum(f & ~c)); C = int(np.sum(~f & c)); D = int(np.sum(~f & ~c))  # noqa
            if method == "df":
                out[t, j] = A + B
            elif method == "ig":
                pc = c.mean()
                def H(p):
                    return 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)
                hc_f = sum((mask.mean() * H(c[mask].mean())) for mask in (f, ~f) if mask.any())
                out[t, j] = H(pc) - hc_f
            elif method == "chi2":
                exp = [(A + B) * (A + C) / n, (A + B) * (B + D) / n, (C + D) * (A + C) / n, (C + D) * (B + D) / n]
                out[t, j] = 0.0 if min(exp) == 0 else sum((o - e) ** 2 / e for o, e in zip((A, B, C, D), exp))
            elif method == "mi":
                out[t, j] = -math.inf if A == 0 else math.log2(A * n / ((A + C) * (A + B)))
            elif method == "fisher":
                if A + C == 0 or B + D == 0:
                    out[t, j] = 0.0
                    continue
                x1, x0 = f[c].astype(float), f[~c].astype(float)
                num = (x1.mean() - x0.mean()) ** 2
                den = x1.var() + x0.var()  # population variances, (1/|X|) sum (x - mu)^2
                out[t, j] = (math.inf if num > 0 else 0.0) if den == 0 else num / den
    return out


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 15), m=st.integers(1, 6), k=st.integers(1, 4),
       method=st.sampled_from(SCORE_METHODS))
def test_matches_loop_oracle(seed, n, m, k, method):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, m)) * (rng.random((n, m)) < 0.5)
    Y = rng.random((n, k)) < 0.4
    ours = score_terms(sp.csr_matrix(X), Y, method)
    ref = loop_scores(X, Y, method)
    assert ours.shape == (m, k)
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-12)


# --------------------------------------------------------------------------- metamorphic
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), method=st.sampled_from(SCORE_METHODS))
def test_invariances(seed, method):
    rng = np.random.default_rng(seed)
    X = (rng.random((20, 7)) < 0.3) * rng.integers(1, 4, size=(20, 7))
    Y = rng.random((20, 3)) < 0.4
    base = score_terms(sp.csr_matrix(X), Y, method)
    perm = rng.permutation(20)
    np.testing.assert_array_equal(score_terms(sp.csr_matrix(X[perm]), Y[perm], method), base)  # rows
    cols = rng.permutation(7)
    np.testing.assert_array_equal(score_terms(sp.csr_matrix(X[:, cols]), Y, method), base[cols])  # terms
    np.testing.assert_array_equal(score_terms(X, Y, method), base)  # dense == sparse
    np.testing.assert_array_equal(score_terms(sp.csr_matrix(X > 0), Y, method), base)  # counts == presence
    for j in range(3):  # a 1-D label vector is one category
        np.testing.assert_array_equal(score_terms(X, Y[:, j], method)[:, 0], base[:, j])
    if method in ("ig", "chi2", "fisher"):  # symmetric in class vs complement
        np.testing.assert_allclose(score_terms(X, ~Y, method), base, rtol=1e-12)


# --------------------------------------------------------------------------- bad input
def test_bad_input():
    X = sp.csr_matrix(np.eye(3))
    message = "method must be one of ('ig', 'chi2', 'mi', 'df', 'fisher'), got 'gini'"
    with pytest.raises(ValueError, match=re.escape(message)):
        score_terms(X, [1, 0, 1], "gini")
    with pytest.raises(ValueError, match="X has 3 rows but Y has 2"):
        score_terms(X, [1, 0])
    with pytest.raises(ValueError, match="0/1"):
        score_terms(X, [0, 1, 2])
    with pytest.raises(ValueError, match="finite"):
        score_terms(np.array([[np.nan, 1.0]]), [1])
    with pytest.raises(ValueError, match="2-D"):
        score_terms(np.zeros(3), [1, 0, 1])
    with pytest.raises(ValueError, match="X holds negative values"):  # a count cannot be negative
        score_terms(-X, [1, 0, 1])


# --------------------------------------------------------------------------- thesis-sized input
def test_reuters_sized_input():
    """Every method on a matrix the size of the thesis's problem (7769 documents, 15715 terms, 90
    categories).  Speed is measured by ``benchmarks/bench_features.py``, not here."""
    rng = np.random.default_rng(0)
    X = sp.random(7769, 15715, density=0.004, random_state=rng, format="csr")
    Y = rng.random((7769, 90)) < 0.02
    for method in SCORE_METHODS:
        s = score_terms(X, Y, method)
        assert s.shape == (15715, 90)
        assert not np.isnan(s).any(), method


# --------------------------------------------------------------------------- Reuters
@pytest.mark.slow
def test_reuters_information_gain(reuters_corpus):
    from hbnlab.features import select_local
    from hbnlab.text import TermIndexer

    train = reuters_corpus.train
    cats = reuters_corpus.categories(min_train=1, min_test=1)
    ix = TermIndexer()
    X = ix.fit_transform(reuters_corpus.texts(train))
    Y = reuters_corpus.label_matrix(train, cats)
    S = score_terms(X, Y, "ig")  # speed: benchmarks/bench_features.py
    assert S.shape == (len(ix.vocabulary_), len(cats)) and np.all(S >= 0)
    top = {c: [ix.vocabulary_[i] for i in sel] for c, sel in zip(cats, select_local(S, 8))}
    # sanity: the obviously indicative words lead the information-gain ranking
    assert {"cts", "shr", "net", "qtr"} <= set(top["earn"])
    assert {"oil", "crude"} <= set(top["crude"])
    assert {"wheat", "grain"} <= set(top["grain"])
