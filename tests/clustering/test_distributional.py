"""Distributional clustering: merge cost = drop in I(C; W), agreement with brute-force oracles."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from hbnlab.clustering.distributional import (
    agglomerate_words,
    distributional_word_clusters,
    labels_from_merges,
    merge_cost_matrix,
    merge_costs,
    mutual_information_bits,
    word_class_counts,
    word_information,
)


def _mi_oracle(counts):
    """I(C; W) straight from the definition sum p(w,c) log2 p(w,c)/(p(w)p(c))."""
    P = counts / counts.sum()
    pw = P.sum(1, keepdims=True)
    pc = P.sum(0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(P > 0, P * np.log2(P / (pw * pc)), 0.0)
    return t.sum()


def _js_cost_oracle(nt, ns, N):
    """(P(w_t) + P(w_s)) JS_pi[P(C|w_t), P(C|w_s)] with pi ~ P(w) (Verbeek app. A, thesis eq. 1.3)."""
    pt, ps = nt.sum() / N, ns.sum() / N
    qt, qs = nt / nt.sum(), ns / ns.sum()
    pit, pis = pt / (pt + ps), ps / (pt + ps)
    m = pit * qt + pis * qs

    def H(p):
        p = p[p > 0]
        return -(p * np.log2(p)).sum()

    js = H(m) - pit * H(qt) - pis * H(qs)
    return (pt + ps) * js


def _greedy_oracle(counts, pool_size=None):
    """Slow, obviously correct agglomeration: recompute every pairwise cost at every step."""
    n = counts.shape[0]
    info = word_information(counts)
    order = list(np.lexsort((np.arange(n), -info)))
    M = n if pool_size is None else min(pool_size, n)
    pool = [(int(w), counts[w].copy()) for w in order[:M]]  # (cluster id, row)
    queue = [int(w) for w in order[M:]]
    N = counts.sum()
    out = []
    for step in range(n - 1):
        best = None
        for i in range(len(pool)):
            for j in range(i + 1, len(pool)):
                c = _js_cost_oracle(pool[i][1], pool[j][1], N)
                if best is None or c < best[0] - 1e-15:
                    best = (c, i, j)
        c, i, j = best
        a, b = pool[i], pool[j]
        out.append((min(a[0], b[0]), max(a[0], b[0]), c))
        pool[i] = (n + step, a[1] + b[1])
        if queue:
            w = queue.pop(0)
            pool[j] = (w, counts[w].copy())
        else:
            pool.pop(j)
    return out


def _random_counts(rng, n=12, C=4):
    return rng.gamma(0.7, 3.0, size=(n, C)) * (rng.random((n, C)) < 0.8) + 1e-3


def test_merge_cost_hand_computed():
    # two words, two classes: w1 = (2, 0), w2 = (0, 2); merging loses all of I(C; W) = 1 bit
    counts = np.array([[2.0, 0.0], [0.0, 2.0]])
    assert mutual_information_bits(counts) == pytest.approx(1.0)
    assert merge_costs(counts[0], counts[1:], 4.0)[0] == pytest.approx(1.0)
    # identical class distributions cost nothing
    assert merge_costs(np.array([1.0, 3.0]), np.array([[2.0, 6.0]]), 12.0)[0] == pytest.approx(0.0, abs=1e-12)
    # w1 = (3, 1), w2 = (1, 1), N = 6: cost by hand from eq. 4.3
    a, b, N = np.array([3.0, 1.0]), np.array([1.0, 1.0]), 6.0
    m = (a + b) / (a + b).sum()  # p(c | w) of the merged group = (4/6, 2/6)
    hand = (3 / N) * np.log2((3 / 4) / m[0]) + (1 / N) * np.log2((1 / 4) / m[1]) \
        + (1 / N) * np.log2((1 / 2) / m[0]) + (1 / N) * np.log2((1 / 2) / m[1])
    assert merge_costs(a, b[None], N)[0] == pytest.approx(hand, rel=1e-12)
    assert hand == pytest.approx(0.0436, abs=1e-3)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_merge_cost_is_weighted_js_and_mi_drop(seed):
    rng = np.random.default_rng(seed)
    counts = _random_counts(rng, n=6, C=3)
    N = counts.sum()
    D = merge_cost_matrix(counts)
    I0 = _mi_oracle(counts)
    assert mutual_information_bits(counts) == pytest.approx(I0, rel=1e-9, abs=1e-12)
    for i in range(6):
        for j in range(i + 1, 6):
            assert D[i, j] == pytest.approx(_js_cost_oracle(counts[i], counts[j], N), rel=1e-9, abs=1e-12)
            merged = np.delete(counts, j, axis=0)
            merged[i] = counts[i] + counts[j]
            assert D[i, j] == pytest.approx(I0 - _mi_oracle(merged), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("pool_size", [None, 3, 5])
def test_every_merge_cost_equals_drop_in_mutual_information(pool_size):
    rng = np.random.default_rng(1)
    counts = _random_counts(rng, n=15, C=5)
    agg = agglomerate_words(counts, pool_size=pool_size)
    n = counts.shape[0]
    info = []
    for k in range(n, 0, -1):
        lab = agg.labels(k)
        G = np.zeros((k, counts.shape[1]))
        np.add.at(G, lab, counts)
        info.append(_mi_oracle(G))
    info = np.array(info)
    np.testing.assert_allclose(info[:-1] - info[1:], agg.costs, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(agg.information_curve(), info, rtol=1e-9, atol=1e-12)
    assert info[-1] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("pool_size", [None, 2, 4, 7])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agglomeration_matches_brute_force_oracle(seed, pool_size):
    rng = np.random.default_rng(seed)
    counts = _random_counts(rng, n=11, C=3)
    agg = agglomerate_words(counts, pool_size=pool_size)
    ref = _greedy_oracle(counts, pool_size)
    assert agg.merges.tolist() == [[a, b] for a, b, _ in ref]
    np.testing.assert_allclose(agg.costs, [c for _, _, c in ref], rtol=1e-9, atol=1e-13)
    assert agg.sizes[-1] == 11


def test_pool_order_is_by_word_information():
    counts = np.array([[5.0, 0.0], [1.0, 1.0], [0.0, 9.0], [2.0, 1.0]])
    info = word_information(counts)
    expected = sorted(range(4), key=lambda w: (-info[w], w))
    assert agglomerate_words(counts, pool_size=2).order.tolist() == expected
    assert info.sum() == pytest.approx(mutual_information_bits(counts))


def test_full_pool_equals_pool_size_at_least_n():
    rng = np.random.default_rng(4)
    counts = _random_counts(rng, n=20, C=4)
    a = agglomerate_words(counts)
    b = agglomerate_words(counts, pool_size=50)
    np.testing.assert_array_equal(a.merges, b.merges)


def test_labels_from_merges_partition_properties():
    rng = np.random.default_rng(5)
    counts = _random_counts(rng, n=9, C=3)
    agg = agglomerate_words(counts)
    for k in range(1, 10):
        lab = agg.labels(k)
        assert sorted(set(lab.tolist())) == list(range(k))
        # numbered by smallest word
        firsts = [int(np.flatnonzero(lab == g)[0]) for g in range(k)]
        assert firsts == sorted(firsts)
    # coarser partitions are unions of finer ones (hierarchy)
    for k in range(2, 10):
        fine, coarse = agg.labels(k), agg.labels(k - 1)
        for g in range(k):
            assert len(set(coarse[fine == g].tolist())) == 1
    assert np.array_equal(agg.labels(9), np.arange(9))
    with pytest.raises(ValueError, match="n_clusters must be in 1..9, got 0"):
        labels_from_merges(agg.merges, 9, 0)


def test_word_class_counts_dense_equals_sparse_and_loop():
    rng = np.random.default_rng(6)
    X = rng.poisson(0.7, size=(30, 8))
    y = rng.integers(0, 3, 30)
    ref = np.zeros((8, 3))
    for d in range(30):
        ref[:, y[d]] += X[d]
    np.testing.assert_array_equal(word_class_counts(X, y), ref)
    np.testing.assert_array_equal(word_class_counts(sp.csr_matrix(X), y, 3), ref)


def test_distributional_word_clusters_recovers_planted_groups():
    # 3 planted groups of 4 words; words in a group share one class distribution
    rng = np.random.default_rng(7)
    dists = np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]])
    truth = np.repeat(np.arange(3), 4)
    y = rng.integers(0, 3, 3000)
    # each document draws 30 words: the word's group from P(g | c) ~ dists[:, c], uniform in group
    pg = dists[:, y].T
    pg /= pg.sum(1, keepdims=True)
    X = np.zeros((3000, 12))
    for g in range(3):
        n_g = rng.binomial(30, pg[:, g])
        X[:, 4 * g: 4 * g + 4] = rng.multinomial(n_g, [0.25] * 4)
    lab = distributional_word_clusters(X, y, 3)
    # same partition as the truth (up to renaming)
    assert len({(a, b) for a, b in zip(lab, truth)}) == 3


def test_bad_inputs_name_the_value():
    with pytest.raises(ValueError, match="pool_size must be >= 2 or None, got 1"):
        agglomerate_words(np.ones((3, 2)), pool_size=1)
    with pytest.raises(ValueError, match="non-negative"):
        agglomerate_words(np.array([[1.0, -1.0], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="total count 0"):
        agglomerate_words(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="X has 2 rows but y has 3 labels"):
        distributional_word_clusters(np.ones((2, 3)), [0, 1, 1], 2)
