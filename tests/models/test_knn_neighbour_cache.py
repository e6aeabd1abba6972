"""KNN's neighbour lists, computed once per pair of matrices and shared by every k, weighting and
class (issue 29): the listed route against the streamed mask route (the former implementation,
kept for k above ``MAX_LISTED_K``) as the oracle, and the cache's reuse and bounds."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from hbnlab.corpus import make_synthetic_corpus
from hbnlab.experiments import thesis
from hbnlab.models import knn as knn_module
from hbnlab.models.knn import KNNBinaryClassifier, NeighbourCache, nearest_neighbour_mask, nearest_neighbours
from hbnlab.pipeline.data import prepare


@pytest.fixture
def cache(monkeypatch):
    fresh = NeighbourCache()
    monkeypatch.setattr(knn_module, "NEIGHBOUR_CACHE", fresh)
    return fresh


def _binary_data(seed, n=300, m=40, q=120):
    """Binary rows over few terms: many equal similarities, so ties at the k-th place are common."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < 0.08).astype(float)
    Q = (rng.random((q, m)) < 0.08).astype(float)
    Y = (rng.random((n, 3)) < [0.2, 0.4, 0.1]).astype(int)
    Y[:2] = [[0, 0, 0], [1, 1, 1]]
    return sp.csr_matrix(X), Y, sp.csr_matrix(Q)


def _streamed(X, y, Q, k, weighting):
    """The former implementation: the k-nearest mask of every block, summed over the labels."""
    est = KNNBinaryClassifier(k=k, weighting=weighting).fit(X, y)
    return est._similarity_sums_streamed(est._check_X(Q))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("weighting", ["tf", "tfidf", "logtfidf"])
def test_listed_scores_equal_the_streamed_ones_for_every_k_and_class(cache, seed, weighting, monkeypatch):
    monkeypatch.setattr(knn_module, "_BLOCK_ROWS", 50)
    X, Y, Q = _binary_data(seed)
    for j in range(Y.shape[1]):
        for k in (1, 3, 10, 30, 60, 64, 65, 200):
            est = KNNBinaryClassifier(k=k, weighting=weighting).fit(X, Y[:, j])
            s_pos, s_neg = est.neighbour_similarity(Q)
            o_pos, o_neg = _streamed(X, Y[:, j], Q, k, weighting)
            np.testing.assert_allclose(s_pos, o_pos, rtol=0, atol=1e-12)
            np.testing.assert_allclose(s_neg, o_neg, rtol=0, atol=1e-12)
    assert cache.misses == 3 and cache.hits == 3 * 8 - 3  # 64 kept, widened to 65, then to 200


def test_lists_are_the_mask_in_nearest_first_order():
    X, _, Q = _binary_data(3)
    T = knn_module.knn_weight_rows(X, np.ones(X.shape[1]), "tf")
    Qw = knn_module.knn_weight_rows(Q, np.ones(X.shape[1]), "tf")
    S = (Qw @ T.T).toarray()
    idx, sims = nearest_neighbours(Qw, T, 20)
    assert idx.shape[1] == knn_module.NEIGHBOURS_KEPT
    for k in (1, 7, 20, 64):
        mask = np.zeros_like(S, dtype=bool)
        np.put_along_axis(mask, idx[:, :k].astype(np.int64), True, axis=1)
        np.testing.assert_array_equal(mask, nearest_neighbour_mask(S, k))
    np.testing.assert_array_equal(sims, np.take_along_axis(S, idx.astype(np.int64), axis=1))
    # nearest first; equal similarities keep the lower training index first
    assert (np.diff(sims, axis=1) <= 0).all()
    assert (np.diff(idx, axis=1)[np.diff(sims, axis=1) == 0] > 0).all()


def test_the_cache_is_keyed_by_content_and_bounded():
    X, Y, Q = _binary_data(4)
    T = knn_module.knn_weight_rows(X, np.ones(X.shape[1]), "tf")
    Qw = knn_module.knn_weight_rows(Q, np.ones(X.shape[1]), "tf")
    c = NeighbourCache()
    first = c.neighbours(Qw, T, 5)
    again = c.neighbours(Qw.copy(), T.copy(), 30)  # equal arrays, other objects: a hit
    assert (c.hits, c.misses) == (1, 1) and again[0] is first[0]
    other = Qw.copy()
    other.data[0] *= 0.5  # same shape, non-zeros and row pointers: the exact comparison tells them apart
    c.neighbours(other, T, 5)
    assert c.misses == 2
    one = first[0].nbytes + first[1].nbytes + sum(a.nbytes for M in (Qw, T) for a in (M.data, M.indices, M.indptr))
    small = NeighbourCache(max_bytes=int(2.5 * one))
    for scale in (1.0, 0.5, 0.25, 0.125):
        small.neighbours(Qw * scale, T, 5)
        assert small._bytes <= small.max_bytes
    assert len(small._entries) == 2
    tiny = NeighbourCache(max_bytes=one)  # an entry over half the budget is computed, not kept
    np.testing.assert_array_equal(tiny.neighbours(Qw, T, 5)[0], first[0])
    assert not tiny._entries


@pytest.mark.parametrize("terms", [None, 15])
def test_tuning_curve_and_table_row_unchanged(cache, monkeypatch, terms):
    data = prepare(make_synthetic_corpus(n_documents=500, n_classes=3, random_state=1), n_categories=3)
    grid = {"k": (1, 5, 30, 60), "weighting": ("tf", "tfidf")}
    best, curve = thesis.tune_on_validation(data, "KNN", terms, grid=grid)
    row = thesis.run_row(data, "KNN", terms, params=best, keep_models=True)
    if terms is None:  # every term: one list per weighting for the validation split, one for the test split
        assert cache.misses == 3
    monkeypatch.setattr(knn_module, "MAX_LISTED_K", 0)  # every k through the streamed route
    best_old, curve_old = thesis.tune_on_validation(data, "KNN", terms, grid=grid)
    row_old = thesis.run_row(data, "KNN", terms, params=best, keep_models=True)
    assert (best, curve) == (best_old, curve_old)
    np.testing.assert_allclose(row["_scores"], row_old["_scores"], rtol=0, atol=1e-12)
    assert row["per_class"] == row_old["per_class"]
