"""k nearest neighbours (Chakrabarti 2003, sec. 5.4): a hand-computed case, a loop oracle, and
scikit-learn's NearestNeighbors with the cosine metric as a second route to the neighbours."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from hbnlab.models.knn import KNNBinaryClassifier, nearest_neighbour_mask


def _data(seed, n=40, m=25, q=15):
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.6, size=(n, m)) * (rng.random((n, m)) < 0.6)
    X[:, 0] += 1  # no all-zero training document: every cosine is defined
    y = (rng.random(n) < 0.35).astype(int)
    y[:2] = [0, 1]
    Q = rng.poisson(0.6, size=(q, m)) * (rng.random((q, m)) < 0.6)
    Q[:, 1] += 1
    return X, y, Q


def _loop_oracle(X, y, Q, k, weighting):
    """Slow and obvious: weights, cosines and a full stable sort per query document."""
    X = np.asarray(X, dtype=float)
    Q = np.asarray(Q, dtype=float)
    n = X.shape[0]
    df = (X > 0).sum(axis=0)
    idf = np.ones(X.shape[1]) if weighting == "tf" else np.array(
        [np.log(n / d) if d > 0 else 0.0 for d in df])

    def vec(row):
        tf = np.where(row > 0, 1.0 + np.log(np.where(row > 0, row, 1.0)), 0.0) if weighting == "logtfidf" else row
        v = tf * idf
        norm = np.sqrt(v @ v)
        return v / norm if norm > 0 else v

    T = np.array([vec(r) for r in X])
    out = []
    for row in Q:
        s = T @ vec(row)
        order = sorted(range(n), key=lambda i: (-s[i], i))[:k]
        out.append(sum(s[i] for i in order if y[i] == 1))
    return np.array(out)


def test_hand_computed_case():
    # four documents over the terms (a, b, c); documents 0 and 1 are positive
    X = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]])
    y = np.array([1, 1, 0, 0])
    # df = (2, 2, 2), N = 4: idf = log 2 for every term, so "tfidf" cosines equal "tf" cosines.
    # Query (1, 1, 1): cosines 2/sqrt(6), 1/sqrt(3), 2/sqrt(6), 1/sqrt(3) with documents 0..3.
    q = np.array([[1, 1, 1]])
    for weighting in ("tf", "tfidf"):
        knn = KNNBinaryClassifier(k=2, weighting=weighting).fit(X, y)
        # k = 2: documents 0 and 2 (2/sqrt(6) each); only document 0 is positive
        assert knn.decision_function(q)[0] == pytest.approx(2 / np.sqrt(6))
        s_pos, s_neg = knn.neighbour_similarity(q)
        assert s_neg[0] == pytest.approx(2 / np.sqrt(6))
    # k = 3: the tie at 1/sqrt(3) between documents 1 and 3 goes to the lower index, document 1
    knn = KNNBinaryClassifier(k=3, weighting="tf").fit(X, y)
    assert knn.decision_function(q)[0] == pytest.approx(2 / np.sqrt(6) + 1 / np.sqrt(3))
    # a query sharing no term with any training document scores 0 and is predicted negative
    knn = KNNBinaryClassifier(k=2).fit(X[:, :2], y)
    assert knn.decision_function(np.array([[0, 0]]))[0] == 0.0
    assert knn.predict(np.array([[0, 0]]))[0] == 0


def test_tfidf_differs_from_tf_where_idf_does():
    # term a is in every document (idf 0): with tfidf only term b counts
    X = np.array([[1, 1], [1, 0], [1, 0]])
    y = np.array([1, 0, 0])
    q = np.array([[1, 1]])
    assert KNNBinaryClassifier(k=1, weighting="tfidf").fit(X, y).decision_function(q)[0] == pytest.approx(1.0)
    assert KNNBinaryClassifier(k=1, weighting="tf").fit(X, y).decision_function(q)[0] == pytest.approx(1.0)
    # k = 2, tf: document 0 (cosine 1) and document 1 (1/sqrt 2, lower index than 2)
    s_pos, s_neg = KNNBinaryClassifier(k=2, weighting="tf").fit(X, y).neighbour_similarity(q)
    assert (s_pos[0], s_neg[0]) == pytest.approx((1.0, 1 / np.sqrt(2)))
    # tfidf: documents 1 and 2 have the zero vector (only term a, idf 0): cosine 0
    s_pos, s_neg = KNNBinaryClassifier(k=2, weighting="tfidf").fit(X, y).neighbour_similarity(q)
    assert (s_pos[0], s_neg[0]) == pytest.approx((1.0, 0.0))


@pytest.mark.parametrize("weighting", ["tf", "tfidf", "logtfidf"])
@pytest.mark.parametrize("k", [1, 4, 40, 100])
def test_matches_the_loop_oracle(weighting, k):
    X, y, Q = _data(3)
    knn = KNNBinaryClassifier(k=k, weighting=weighting).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(knn.decision_function(Q), _loop_oracle(X, y, Q, k, weighting), atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_neighbours_agree_with_sklearn_cosine(seed):
    X, y, Q = _data(seed)
    k = 5
    knn = KNNBinaryClassifier(k=k, weighting="tf").fit(X, y)
    nn = NearestNeighbors(n_neighbors=k + 1, metric="cosine", algorithm="brute").fit(X.astype(float))
    dist, idx = nn.kneighbors(Q.astype(float))
    # sklearn breaks a tie at the k-th place its own way: compare the queries without one
    clear = dist[:, k] - dist[:, k - 1] > 1e-9
    assert clear.sum() >= 10
    dist, idx = dist[:, :k], idx[:, :k]
    expected = np.array([sum(1.0 - d for d, i in zip(dr, ir) if y[i] == 1) for dr, ir in zip(dist, idx)])
    np.testing.assert_allclose(knn.decision_function(Q)[clear], expected[clear], atol=1e-10)
    s_pos, s_neg = knn.neighbour_similarity(Q)
    np.testing.assert_allclose(s_pos + s_neg, (1.0 - dist).sum(axis=1), atol=1e-10)  # ties or not


def test_term_contributions_sum_to_the_decision_function(monkeypatch):
    X, y, Q = _data(6, n=50, q=20)
    monkeypatch.setattr("hbnlab.models.knn._BLOCK_ROWS", 7)
    knn = KNNBinaryClassifier(k=5, n_features=12).fit(X, y)
    tc = knn.term_contributions(Q)
    assert sp.issparse(tc) and tc.shape == (Q.shape[0], 12)
    np.testing.assert_allclose(np.asarray(tc.sum(axis=1)).ravel(), knn.decision_function(Q), atol=1e-12)


def test_dense_sparse_and_blocks_agree(monkeypatch):
    X, y, Q = _data(4, n=60, q=40)
    want = KNNBinaryClassifier(k=7).fit(X, y).decision_function(Q)
    monkeypatch.setattr("hbnlab.models.knn._BLOCK_ROWS", 3)
    got = KNNBinaryClassifier(k=7).fit(sp.csr_matrix(X), y).decision_function(sp.csr_matrix(Q))
    np.testing.assert_array_equal(got, want)


def test_breakeven_invariant_to_training_row_order():
    X, y, Q = _data(5)
    perm = np.random.default_rng(0).permutation(X.shape[0])
    a = KNNBinaryClassifier(k=6).fit(X, y).decision_function(Q)
    b = KNNBinaryClassifier(k=6).fit(X[perm], y[perm]).decision_function(Q)
    # the neighbour sets may differ only by equally similar documents of the other label at the k-th
    # place; with Poisson counts over 25 terms such ties are absent in this draw
    np.testing.assert_allclose(a, b, atol=1e-12)


def test_nearest_neighbour_mask_ties_go_to_the_lower_index():
    S = np.array([[0.2, 0.2, 0.2, 0.9], [0.0, 0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(nearest_neighbour_mask(S, 2), [[1, 0, 0, 1], [1, 1, 0, 0]])
    assert nearest_neighbour_mask(S, 10).all()


@pytest.mark.parametrize("bad, match", [({"k": 0}, "k must be an integer >= 1"),
                                        ({"k": 2.5}, "k must be an integer"),
                                        ({"k": True}, "k must be an integer"),
                                        ({"weighting": "bm25"}, "weighting must be one of")])
def test_bad_parameters_are_named(bad, match):
    X, y, _ = _data(0)
    with pytest.raises(ValueError, match=match):
        KNNBinaryClassifier(**bad).fit(X, y)


def test_negative_counts_are_refused():
    X, y, _ = _data(0)
    X = X.astype(float)
    X[0, 0] = -1
    with pytest.raises(ValueError, match="Negative values"):
        KNNBinaryClassifier().fit(X, y)


def test_blocks_are_sized_by_bytes_and_give_the_same_scores(monkeypatch):
    """A dense block of similarities holds at most _BLOCK_BYTES (fewer query rows when there are many
    training documents), and the scores do not depend on the block size."""
    from hbnlab.models import knn as K

    assert K._block_rows(1000) == K._BLOCK_ROWS
    assert K._block_rows(300_000) * 8 * 300_000 <= K._BLOCK_BYTES < (K._block_rows(300_000) + 1) * 8 * 300_000
    X, y, Q = _data(4, n=60, q=40)
    want = KNNBinaryClassifier(k=7).fit(X, y).decision_function(Q)
    monkeypatch.setattr(K, "_BLOCK_BYTES", 8 * 60 * 2)   # two query rows per block
    assert K._block_rows(60) == 2
    np.testing.assert_array_equal(KNNBinaryClassifier(k=7).fit(X, y).decision_function(Q), want)


def test_neighbour_mask_keeps_the_first_tied_columns():
    """Against the definition written out: the k largest per row, ties at the k-th value to the
    lower column index (many ties: values on a coarse grid, most of them 0)."""
    from hbnlab.models.knn import nearest_neighbour_mask

    rng = np.random.RandomState(0)
    S = np.round(rng.rand(40, 300), 1) * (rng.rand(40, 300) < 0.3)
    for k in (1, 5, 60, 300):
        want = np.zeros(S.shape, dtype=bool)
        for r, row in enumerate(S):
            order = sorted(range(S.shape[1]), key=lambda c: (-row[c], c))
            want[r, order[:k]] = True
        np.testing.assert_array_equal(nearest_neighbour_mask(S, k), want)


def test_distinct_rows_rebuild_the_matrix_in_storage_order():
    from hbnlab.models.knn import distinct_rows

    rng = np.random.RandomState(1)
    M = sp.csr_matrix((rng.rand(60, 6) < 0.2) * rng.randint(1, 3, size=(60, 6)).astype(float))
    first, inverse = distinct_rows(M)
    assert len(first) < 60  # two-valued entries on six columns: duplicates (and all-zero rows) drawn
    R = M[first][inverse]
    for A in (R, M):
        A.has_sorted_indices = False
    np.testing.assert_array_equal(R.indptr, M.indptr)
    np.testing.assert_array_equal(R.indices, M.indices)
    np.testing.assert_array_equal(R.data, M.data)
    assert sorted(set(inverse.tolist())) == list(range(len(first)))
    assert all(inverse[f] == j for j, f in enumerate(first))  # each distinct row's first occurrence
    e_first, e_inverse = distinct_rows(sp.csr_matrix((0, 4)))
    assert e_first.size == 0 and e_inverse.size == 0


def test_repeated_query_rows_get_the_neighbours_of_a_row_searched_alone():
    """Few terms give many equal query rows (the thesis's binary indexing on 30 terms): each is
    searched once; every row's list must equal that of the row searched on its own."""
    from hbnlab.models.knn import nearest_neighbours

    rng = np.random.RandomState(2)
    T = sp.csr_matrix((rng.rand(80, 5) < 0.4).astype(float))
    T = sp.csr_matrix(T.multiply(1.0 / np.sqrt(np.maximum(T.sum(axis=1), 1))))
    Q = sp.csr_matrix((rng.rand(50, 5) < 0.4).astype(float))
    Q = sp.csr_matrix(Q.multiply(1.0 / np.sqrt(np.maximum(Q.sum(axis=1), 1))))
    idx, sims = nearest_neighbours(Q, T, 7)
    for r in range(Q.shape[0]):
        i1, s1 = nearest_neighbours(Q[r], T, 7)
        np.testing.assert_array_equal(idx[r], i1[0])
        np.testing.assert_array_equal(sims[r], s1[0])
        row = (T @ Q[r].T).toarray().ravel()
        order = sorted(range(T.shape[0]), key=lambda c: (-row[c], c))[:7]
        assert idx[r, :7].tolist() == order
