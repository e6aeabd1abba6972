"""ClusterFeaturesOr: agglomerative feature clustering where a cluster is the OR of its features
(thesis sec. 3.6, figs 3.9-3.10)."""
from __future__ import annotations

import numpy as np

from hbnlab.clustering.common import (
    agglomerate_info_loss,
    mutual_information_from_counts,
    prepare,
    ranked_slots,
    run_kernel,
)


def or_cluster_statistics(X, y, cluster):
    """P(X'=1), P(C=1 | X'=1), P(C=1 | X'=0) of the OR variable of the columns ``cluster``
    (thesis fig. 3.10 step 2: X' = 1 iff F_k1 = 1 or ... or F_kl = 1), counted from the data.

    A conditional on an event with no documents is 0/0 and is returned as NaN (it does not enter
    the mutual information, whose joint cell has probability 0).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [0, 1], [0, 0], [0, 0]])
    >>> y = np.array([1, 0, 1, 0])
    >>> or_cluster_statistics(X, y, [0, 1])
    (0.5, 0.5, 0.5)
    """
    data, _, _ = prepare(X, y, cluster, 1, 0.0)
    covered = np.asarray(data.Xb.sum(axis=1)).ravel() > 0  # OR over the cluster's columns
    cnt = float(covered.sum())
    pos = float(data.y[covered].sum())
    n, n1 = data.n, data.n1
    q1 = pos / cnt if cnt > 0 else float("nan")
    q0 = (n1 - pos) / (n - cnt) if n - cnt > 0 else float("nan")
    return cnt / n, q1, q0


class _OrState:
    """Per-slot OR columns, counts and co-occurrences.

    ``G[a, b]`` = documents where the cluster variables of slots a and b are both 1, ``G1`` the
    positive ones; the OR of two clusters has |A u B| = |A| + |B| - |A n B| documents (and
    likewise among the positives), so every candidate pair's statistics come from X^T X style
    products, computed once.  After merging, the merged cluster's row is

        |(A_big u A_small) n A_c| = |A_big n A_c| + |(A_small minus A_big) n A_c|,

    the second term a column sum of the cluster indicator matrix ``Z`` over the documents the
    smaller cluster adds: the update costs (documents added) x (clusters), not the corpus size.
    """

    def __init__(self, stats, slots):
        self.N = slots.size
        self.n, self.n1 = stats.n, stats.n1
        self.ybool = stats.y > 0
        # documents x slots: the OR column of each cluster (0/1 bytes; n_documents x N bytes,
        # e.g. 1.5 MB for Reuters with 200 features)
        self.Z = stats.Xb[:, slots].toarray().astype(np.uint8)
        self.size = np.ones(self.N)
        self.cnt = stats.df[slots].copy()
        self.pos = stats.df1[slots].copy()
        G, G1 = stats.cooccurrence
        self.G = G[np.ix_(slots, slots)]
        self.G1 = G1[np.ix_(slots, slots)]
        self.info = mutual_information_from_counts(self.cnt, self.pos, self.n, self.n1)

    def _union_info(self, cnt_i, pos_i, cnt_j, pos_j, inter, inter1):
        return mutual_information_from_counts(cnt_i + cnt_j - inter, pos_i + pos_j - inter1, self.n, self.n1)

    def pair_dI_all(self):
        c, p, info = self.cnt, self.pos, self.info
        iu = self._union_info(c[:, None], p[:, None], c[None, :], p[None, :], self.G, self.G1)
        return info[:, None] + info[None, :] - iu

    def pair_dI(self, i, idx):
        return self.info[i] + self.info[idx] - self._union_info(
            self.cnt[i], self.pos[i], self.cnt[idx], self.pos[idx], self.G[i, idx], self.G1[i, idx]
        )

    def merge(self, i, j):
        zi, zj = self.Z[:, i].view(bool), self.Z[:, j].view(bool)
        big, small = (i, j) if self.cnt[i] >= self.cnt[j] else (j, i)
        zb, zs = (zi, zj) if big == i else (zj, zi)
        added = np.flatnonzero(zs & ~zb)  # documents the smaller cluster adds
        added1 = added[self.ybool[added]]
        new = self.G[big] + self.Z[added].sum(axis=0)
        new1 = self.G1[big] + self.Z[added1].sum(axis=0)
        self.cnt[i] = self.cnt[big] + added.size
        self.pos[i] = self.pos[big] + added1.size
        self.Z[:, i] |= self.Z[:, j]
        self.size[i] += self.size[j]
        new[i], new1[i] = self.cnt[i], self.pos[i]
        self.G[i, :] = new
        self.G[:, i] = new
        self.G1[i, :] = new1
        self.G1[:, i] = new1
        self.info[i] = mutual_information_from_counts(self.cnt[i], self.pos[i], self.n, self.n1)


def cluster_features_or(X, y, features, B, alpha, *, observer=None) -> list[list[int]]:
    """Partition ``features`` into at most ``B`` clusters with ClusterFeaturesOr (thesis fig. 3.9).

    The same greedy loop and modified information loss as :func:`cluster_features_avg`
    (figs 3.6, 3.8), but the cluster variable is the OR of its features (fig. 3.10): X' = 1 iff
    at least one of its features occurs in the document, and P(X'), P(C | X') are counted from
    the data.  The counts of every candidate OR come from co-occurrence matrices:
    |A u B| = |A| + |B| - |A n B| in all documents and among the positives.

    Parameters, observer events and the returned clusters are those of
    :func:`cluster_features_avg`; Table 4.1 of the thesis uses alpha = 0.09 with B = 9.

    References
    ----------
    G. Karčiauskas, MSc thesis, Aalborg University, 2002, sec. 3.6.

    Examples
    --------
    Features 0 and 1 occur in disjoint positive documents: their OR is a perfect predictor (1
    bit, more than their 0.31 bits each), so merging them has a negative information loss.

    >>> import numpy as np
    >>> X = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]])
    >>> y = np.array([1, 1, 0, 0])
    >>> cluster_features_or(X, y, [0, 1, 2], B=2, alpha=0.0)
    [[0, 1], [2]]
    """
    return run_kernel(_or_kernel, X, y, features, B, alpha, observer)


def _or_kernel(stats, positions, B, alpha, observer=None):
    """ClusterFeaturesOr on the columns ``positions`` of ``stats``; clusters of positions in
    the initial rank order of their best feature."""
    slots = ranked_slots(stats, positions)
    if observer is not None:
        observer({"step": "start", "columns": stats.columns[slots].copy(), "info": stats.info[slots].copy()})
    clusters = agglomerate_info_loss(_OrState(stats, slots), B, alpha, observer)
    return [[int(slots[r]) for r in c] for c in clusters]


cluster_features_or._kernel = _or_kernel


__all__ = ["cluster_features_or", "or_cluster_statistics"]
