"""Distributional word clustering by the information-loss (weighted Jensen-Shannon) merge cost.

Baker & McCallum (1998) and Slonim & Tishby (2000) cluster words whose class distributions
P(C | w) are alike (Karčiauskas 2002, sec. 1.2).  Two clusters w_t, w_s are replaced by
w_t v w_s with

    P(C | w_t v w_s) = P(w_t)/(P(w_t)+P(w_s)) P(C|w_t) + P(w_s)/(P(w_t)+P(w_s)) P(C|w_s)   # thesis eq. 1.2

and the pair that is merged is the one with the smallest

    cost(w_t, w_s) = (P(w_t) + P(w_s)) * JS_pi(P(C|w_t), P(C|w_s)),   pi ~ (P(w_t), P(w_s))
                   = P(w_t) KL(P(C|w_t) || P(C|w_t v w_s)) + P(w_s) KL(P(C|w_s) || ...)   # thesis eq. 1.3
                   = I(w_t, C) + I(w_s, C) - I(w_t v w_s, C)                               # thesis eq. 1.4

which is also Verbeek's merge cost (Verbeek 2000, eq. 4.3): the drop in the mutual information
I(C; W) between the class and the word (group) of a random word occurrence.  Everything here is
measured in bits.

With ``n`` counts ``n_wc`` (word w in class c), ``N = sum n_wc`` and ``f(x) = x log2 x`` the cost
has the closed form used by the kernels below (derived from eq. 1.4 by writing
I(C; W) = (1/N) [sum_wc f(n_wc) - sum_w f(n_w) - sum_c f(n_c) + f(N)]):

    cost(a, b) = (F(a) + F(b) - F(a + b)) / N,        F(r) = sum_c f(r_c) - f(sum_c r_c)

so the cost of a pair only depends on the two rows: merging two other clusters leaves it
unchanged (Verbeek sec. 4.3), and after a merge only the merged row is recomputed.

The agglomeration keeps a *pool* of at most ``pool_size`` clusters (Baker & McCallum's trick,
Verbeek sec. 5.2): words enter the pool in decreasing order of their own contribution to
I(C; W); each merge frees one slot, which the next word fills.  ``pool_size=None`` puts every
word in the pool (exact greedy agglomeration over all pairs).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import xlogy

from hbnlab._validation import as_count_matrix

_LN2 = np.log(2.0)

__all__ = [
    "word_class_counts",
    "mutual_information_bits",
    "word_information",
    "merge_costs",
    "merge_cost_matrix",
    "Agglomeration",
    "agglomerate_words",
    "labels_from_merges",
    "distributional_word_clusters",
]


# ---------------------------------------------------------------------------------- statistics
def check_class_vector(y, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Map arbitrary labels to 0..n_classes-1; returns (classes, codes)."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D vector of class labels, got shape {y.shape}")
    if y.shape[0] != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {y.shape[0]} labels")
    classes, codes = np.unique(y, return_inverse=True)
    return classes, codes.astype(np.int64)


def word_class_counts(X, y, n_classes: int | None = None) -> np.ndarray:
    """Word-class frequency table (Verbeek fig. 3.1): ``N[w, c]`` = occurrences of term w in class c.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_documents, n_terms)
        Term counts (or 0/1 indicators: then the table counts documents).
    y : array-like of shape (n_documents,)
        Class indices in ``0..n_classes-1``.
    n_classes : int, optional
        Number of columns; default ``y.max() + 1``.

    Returns
    -------
    ndarray of shape (n_terms, n_classes), float64
    """
    X = as_count_matrix(X)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be a vector of {X.shape[0]} class indices, got shape {y.shape}")
    if y.size and (y.min() < 0 or not np.issubdtype(y.dtype, np.integer)):
        raise ValueError("y must hold non-negative integer class indices")
    k = int(y.max()) + 1 if n_classes is None else int(n_classes)
    onehot = sp.csr_matrix((np.ones(y.size), (np.arange(y.size), y)), shape=(y.size, k))
    return np.asarray((X.T @ onehot).todense(), dtype=np.float64)


def _F(rows: np.ndarray) -> np.ndarray:
    """F(r) = sum_c r_c log2 r_c - (sum_c r_c) log2 (sum_c r_c), row-wise (0 log 0 = 0)."""
    rows = np.asarray(rows, dtype=np.float64)
    tot = rows.sum(axis=-1)
    return (xlogy(rows, rows).sum(axis=-1) - xlogy(tot, tot)) / _LN2


def mutual_information_bits(counts) -> float:
    """I(C; W) in bits of the joint distribution ``counts / counts.sum()`` (Verbeek app. A).

    ``counts`` is a (n_words_or_groups, n_classes) table; rows are values of W, columns of C.
    """
    counts = np.asarray(counts, dtype=np.float64)
    N = counts.sum()
    if N <= 0:
        return 0.0
    col = counts.sum(axis=0)
    # I = (1/N)[sum_wc f(n_wc) - sum_w f(n_w) - sum_c f(n_c) + f(N)]
    val = _F(counts).sum() - (xlogy(col, col).sum() - xlogy(N, N)) / _LN2
    return float(max(val / N, 0.0))


def word_information(counts) -> np.ndarray:
    """Each word's own term of I(C; W): P(w) KL(P(C|w) || P(C)) in bits (the pool order)."""
    counts = np.asarray(counts, dtype=np.float64)
    N = counts.sum()
    if N <= 0:
        return np.zeros(counts.shape[0])
    col = counts.sum(axis=0)
    row = counts.sum(axis=1)
    # sum_c n_wc log(n_wc N / (n_w n_c)) / N = [F(row_w) - sum_c n_wc log n_c + n_w log N] / N
    logc = np.log2(np.where(col > 0, col, 1.0))
    val = _F(counts) - counts @ logc + row * np.log2(N)
    return np.maximum(val / N, 0.0)


def merge_costs(a, B, total: float) -> np.ndarray:
    """Information-loss merge cost of row ``a`` against each row of ``B`` (bits).

    cost(a, b) = (P(a) + P(b)) JS_pi[P(C|a), P(C|b)] = I(C; W) before - after merging a and b
    (thesis eqs. 1.3-1.4, Verbeek eq. 4.3), with probabilities ``counts / total``.
    """
    a = np.asarray(a, dtype=np.float64)
    B = np.atleast_2d(np.asarray(B, dtype=np.float64))
    cost = (_F(a) + _F(B) - _F(B + a[None, :])) / float(total)
    return np.maximum(cost, 0.0)


def merge_cost_matrix(counts) -> np.ndarray:
    """All pairwise merge costs of a (small) word-class table; ``inf`` on the diagonal."""
    counts = np.asarray(counts, dtype=np.float64)
    N = counts.sum()
    if N <= 0:
        raise ValueError("the word-class table is empty (total count 0)")
    n = counts.shape[0]
    Fr = _F(counts)
    Fs = _F(counts[:, None, :] + counts[None, :, :])
    D = np.maximum((Fr[:, None] + Fr[None, :] - Fs) / N, 0.0)
    D[np.arange(n), np.arange(n)] = np.inf
    return D


# ---------------------------------------------------------------------------------- agglomeration
@dataclass(frozen=True)
class Agglomeration:
    """A merge sequence over ``n_words`` items, in the convention of ``scipy.cluster.hierarchy``.

    Attributes
    ----------
    merges : ndarray of shape (n_words - 1, 2), int
        Row ``k`` merges clusters ``merges[k, 0] < merges[k, 1]``; ids ``0..n_words-1`` are the
        words, id ``n_words + k`` is the cluster made by merge ``k``.
    costs : ndarray of shape (n_words - 1,)
        Merge cost in bits (drop in I(C; W)) of each merge.
    sizes : ndarray of shape (n_words - 1,), int
        Number of words in the cluster made by each merge.
    order : ndarray of shape (n_words,), int
        The order in which words entered the pool.
    information : float
        I(C; W) in bits with every word on its own.
    """

    merges: np.ndarray
    costs: np.ndarray
    sizes: np.ndarray
    order: np.ndarray
    information: float

    @property
    def n_words(self) -> int:
        return int(self.merges.shape[0] + 1)

    def labels(self, n_clusters: int) -> np.ndarray:
        """Cluster index (0..n_clusters-1, numbered by smallest word) of every word."""
        return labels_from_merges(self.merges, self.n_words, n_clusters)

    def linkage(self) -> np.ndarray:
        """A scipy-style linkage matrix ``[a, b, cost, size]`` (costs need not be monotone)."""
        return np.column_stack([self.merges.astype(np.float64), self.costs, self.sizes.astype(np.float64)])

    def information_curve(self) -> np.ndarray:
        """I(C; W) in bits with ``k`` clusters, for k = n_words, n_words-1, ..., 1."""
        return self.information - np.concatenate([[0.0], np.cumsum(self.costs)])


def labels_from_merges(merges, n_words: int, n_clusters: int) -> np.ndarray:
    """Replay the first ``n_words - n_clusters`` merges; return labels numbered by smallest word."""
    n_words = int(n_words)
    n_clusters = int(n_clusters)
    if not 1 <= n_clusters <= n_words:
        raise ValueError(f"n_clusters must be in 1..{n_words}, got {n_clusters}")
    merges = np.asarray(merges, dtype=np.int64)
    parent = np.arange(2 * n_words - 1)
    for k in range(n_words - n_clusters):  # loop over merge steps
        a, b = merges[k]
        parent[a] = n_words + k
        parent[b] = n_words + k
    # resolve roots for the words: iterate pointer jumping (vectorized, log depth)
    root = parent.copy()
    while True:
        nxt = root[root]
        if np.array_equal(nxt, root):
            break
        root = nxt
    r = root[:n_words]
    _, first = np.unique(r, return_index=True)
    # number clusters by their smallest word
    order = np.argsort(first, kind="stable")
    uniq = np.unique(r)[order]
    remap = np.empty(2 * n_words - 1, dtype=np.int64)
    remap[uniq] = np.arange(uniq.size)
    return remap[r]


def agglomerate_words(counts, *, pool_size: int | None = None) -> Agglomeration:
    """Greedy agglomerative clustering of the rows of a word-class table down to one cluster.

    Each step merges the pair in the pool with the smallest information-loss cost (thesis
    eq. 1.4, Verbeek eq. 4.3); the merged cluster's row of the cost matrix is the only one
    recomputed (Verbeek sec. 4.3), and per-row minima are cached so a step costs O(pool) work
    plus the rows whose nearest neighbour was one of the two merged clusters.

    Parameters
    ----------
    counts : array-like of shape (n_words, n_classes)
        Non-negative word-class frequencies (:func:`word_class_counts`).
    pool_size : int or None
        Keep at most this many clusters as merge candidates (Verbeek sec. 5.2, Baker &
        McCallum); words enter in decreasing order of :func:`word_information`.  ``None``
        considers all pairs.

    Returns
    -------
    Agglomeration
    """
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2:
        raise ValueError(f"counts must be a (n_words, n_classes) table, got shape {counts.shape}")
    if counts.size and (not np.all(np.isfinite(counts)) or counts.min() < 0):
        raise ValueError("counts must be non-negative and finite")
    n = counts.shape[0]
    if n < 1:
        raise ValueError("counts has 0 rows; at least 1 word is required")
    total = counts.sum()
    if total <= 0:
        raise ValueError("the word-class table is empty (total count 0)")
    if pool_size is None:
        M = n
    else:
        if int(pool_size) < 2:
            raise ValueError(f"pool_size must be >= 2 or None, got {pool_size}")
        M = min(int(pool_size), n)

    info = word_information(counts)
    order = np.lexsort((np.arange(n), -info))  # decreasing promise, ties by index
    info_total = mutual_information_bits(counts)

    merges = np.empty((max(n - 1, 0), 2), dtype=np.int64)
    costs = np.empty(max(n - 1, 0))
    sizes = np.empty(max(n - 1, 0), dtype=np.int64)
    if n == 1:
        return Agglomeration(merges, costs, sizes, order, info_total)

    # pool state: slot -> cluster row, F value, cluster id, size
    S = counts[order[:M]].copy()
    Fs = _F(S)
    ids = order[:M].astype(np.int64).copy()
    size = np.ones(M, dtype=np.int64)
    active = np.ones(M, dtype=bool)
    next_word = M

    D = np.maximum((Fs[:, None] + Fs[None, :] - _F(S[:, None, :] + S[None, :, :])) / total, 0.0)
    D[np.arange(M), np.arange(M)] = np.inf
    rowarg = np.argmin(D, axis=1)
    rowmin = D[np.arange(M), rowarg]

    def _row(i: int) -> np.ndarray:
        r = np.full(M, np.inf)
        act = np.flatnonzero(active)
        act = act[act != i]
        if act.size:
            r[act] = np.maximum((Fs[i] + Fs[act] - _F(S[act] + S[i][None, :])) / total, 0.0)
        return r

    for step in range(n - 1):  # loop over merge steps
        i = int(np.argmin(rowmin))
        j = int(rowarg[i])
        a, b = (i, j) if i < j else (j, i)
        ca, cb = ids[a], ids[b]
        merges[step] = (min(ca, cb), max(ca, cb))
        costs[step] = D[a, b]
        sizes[step] = size[a] + size[b]
        # slot a takes the merged cluster
        S[a] += S[b]
        Fs[a] = _F(S[a])
        ids[a] = n + step
        size[a] = sizes[step]
        # slot b takes the next word, or closes
        if next_word < n:
            w = order[next_word]
            next_word += 1
            S[b] = counts[w]
            Fs[b] = _F(S[b])
            ids[b] = w
            size[b] = 1
        else:
            active[b] = False
            S[b] = 0.0
            Fs[b] = 0.0
        if step == n - 2:
            break
        ra = _row(a)
        D[a, :] = ra
        D[:, a] = ra
        rb = _row(b) if active[b] else np.full(M, np.inf)
        D[b, :] = rb
        D[:, b] = rb
        # refresh cached row minima
        stale = (rowarg == a) | (rowarg == b)
        stale[a] = stale[b] = True
        stale &= active
        idx = np.flatnonzero(stale)
        if idx.size:
            sub = D[idx]
            rowarg[idx] = np.argmin(sub, axis=1)
            rowmin[idx] = sub[np.arange(idx.size), rowarg[idx]]
        for col, r in ((a, ra), (b, rb)):
            better = r < rowmin
            better[~active] = False
            rowmin[better] = r[better]
            rowarg[better] = col
        rowmin[~active] = np.inf
    return Agglomeration(merges, costs, sizes, order, info_total)


def distributional_word_clusters(X, y, n_clusters: int, *, pool_size: int | None = None) -> np.ndarray:
    """Cluster the columns of a term matrix into ``n_clusters`` word groups (Baker & McCallum).

    Terms that never occur in ``X`` get label ``-1`` (they carry no class information).

    Returns
    -------
    labels : ndarray of shape (n_terms,), int
    """
    X = as_count_matrix(X)
    _, codes = check_class_vector(y, X.shape[0])
    counts = word_class_counts(X, codes)
    present = np.flatnonzero(counts.sum(axis=1) > 0)
    if present.size == 0:
        raise ValueError("X has no term occurrences")
    if not 1 <= int(n_clusters):
        raise ValueError(f"n_clusters must be >= 1, got {n_clusters}")
    k = min(int(n_clusters), present.size)
    agg = agglomerate_words(counts[present], pool_size=pool_size)
    labels = np.full(X.shape[1], -1, dtype=np.int64)
    labels[present] = agg.labels(k)
    return labels
