"""ClusterFeaturesAvg: agglomerative feature clustering by size-weighted probability averages
(thesis sec. 3.5, figs 3.6-3.8)."""
from __future__ import annotations

import numpy as np

from hbnlab.clustering.common import (
    agglomerate_info_loss,
    mutual_information_from_conditionals,
    ranked_slots,
    run_kernel,
)


def merge_avg(s_i, px_i, q1_i, q0_i, s_j, px_j, q1_j, q0_j):
    """Statistics of Merge(X_i, X_j) for ClusterFeaturesAvg (thesis fig. 3.7).

    Every statistic of the merged cluster is the size-weighted average of the two clusters'::

        P(X'=1)       = (s_i P(X_i=1)       + s_j P(X_j=1))       / (s_i + s_j)
        P(C=1 | X'=1) = (s_i P(C=1|X_i=1)   + s_j P(C=1|X_j=1))   / (s_i + s_j)
        P(C=1 | X'=0) = (s_i P(C=1|X_i=0)   + s_j P(C=1|X_j=0))   / (s_i + s_j)
        |X'|          = s_i + s_j

    (the class is binary, so P(C=0 | .) = 1 - P(C=1 | .) is averaged implicitly).  Vectorized:
    the arguments broadcast.

    Returns
    -------
    size, px1, q1, q0 : ndarrays
        ``q1 = P(C=1 | X'=1)``, ``q0 = P(C=1 | X'=0)``.

    Examples
    --------
    >>> merge_avg(1, 0.25, 0.5, 0.125, 3, 0.75, 1.0, 0.375)
    (4, 0.625, 0.875, 0.3125)
    """
    s = s_i + s_j
    px = (s_i * px_i + s_j * px_j) / s
    q1 = (s_i * q1_i + s_j * q1_j) / s
    q0 = (s_i * q0_i + s_j * q0_j) / s
    return s, px, q1, q0


def singleton_statistics(df, df1, n, n1):
    """P(F=1), P(C=1 | F=1), P(C=1 | F=0) from counts (thesis fig. 3.6 step 2).

    A conditional on an event that never occurs in the data (a feature in no document, or in
    every document) is 0/0; it is set to the class prior P(C=1) = n1/n, i.e. the feature carries
    no information in that state (the mutual information is unaffected: the state has
    probability 0 in the singleton's own joint table).
    """
    df = np.asarray(df, dtype=np.float64)
    df1 = np.asarray(df1, dtype=np.float64)
    prior = n1 / n
    with np.errstate(divide="ignore", invalid="ignore"):
        px = df / n
        q1 = np.where(df > 0, df1 / df, prior)
        q0 = np.where(n - df > 0, (n1 - df1) / (n - df), prior)
    return px, q1, q0


class _AvgState:
    """Per-slot statistics for the merge loop (slots in initial rank order)."""

    def __init__(self, px, q1, q0):
        self.N = px.size
        self.size = np.ones(self.N)
        self.px = px.copy()
        self.q1 = q1.copy()
        self.q0 = q0.copy()
        self.info = mutual_information_from_conditionals(px, q1, q0)

    def _merged_info(self, i, idx):
        _, px, q1, q0 = merge_avg(
            self.size[i], self.px[i], self.q1[i], self.q0[i],
            self.size[idx], self.px[idx], self.q1[idx], self.q0[idx],
        )
        return mutual_information_from_conditionals(px, q1, q0)

    def pair_dI_all(self):
        s, info = self.size, self.info
        _, px, q1, q0 = merge_avg(
            s[:, None], self.px[:, None], self.q1[:, None], self.q0[:, None],
            s[None, :], self.px[None, :], self.q1[None, :], self.q0[None, :],
        )
        return info[:, None] + info[None, :] - mutual_information_from_conditionals(px, q1, q0)

    def pair_dI(self, i, idx):
        return self.info[i] + self.info[idx] - self._merged_info(i, idx)

    def merge(self, i, j):
        s, px, q1, q0 = merge_avg(
            self.size[i], self.px[i], self.q1[i], self.q0[i],
            self.size[j], self.px[j], self.q1[j], self.q0[j],
        )
        self.size[i], self.px[i], self.q1[i], self.q0[i] = s, px, q1, q0
        # I(Merge, C) from the joint P(X', C) built from the three averaged numbers; its
        # implied P(C) may differ from the data's P(C) (an average of products is not the
        # product of averages) -- the joint is used as given, see mutual_information_from_joint
        self.info[i] = mutual_information_from_conditionals(px, q1, q0)


def cluster_features_avg(X, y, features, B, alpha, *, observer=None) -> list[list[int]]:
    """Partition ``features`` into at most ``B`` clusters with ClusterFeaturesAvg (thesis fig. 3.6).

    Starts from singleton clusters sorted by decreasing I(F, C) (ties: increasing column index)
    and repeatedly merges the pair of clusters with the smallest modified information loss
    (fig. 3.8)::

        InfoLoss(X_i, X_j) = (I(X_i,C) + I(X_j,C) - I(Merge(X_i,X_j),C)) * k + alpha (|X_i| + |X_j|) / k,
        k = N / |A|,

    where Merge averages P(X=1), P(C|X=1), P(C|X=0) weighted by cluster size (fig. 3.7,
    :func:`merge_avg`) and I(Merge, C) is computed from the joint table those three numbers
    define.  Ties (within a relative 1e-10) go to the lowest pair (i, j) in the initial order.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_documents, n_columns)
        Binary (a positive entry = present; negative entries raise) document x feature matrix.
    y : array-like of shape (n_documents,)
        0/1 class labels.
    features : sequence of int
        Distinct column indices of ``X`` to cluster.
    B : int
        Maximal number of clusters (>= 1).
    alpha : float
        Cluster size penalty (>= 0); Table 4.1 of the thesis uses 0.05 with B = 7.
    observer : callable, optional
        Called with one dict per step: ``step="start"`` (the features in initial rank order as
        ``columns`` with their ``info``), then ``step="merge"`` before every merge (see
        :func:`hbnlab.clustering.common.agglomerate_info_loss`); used by
        :mod:`hbnlab.clustering.trace`.

    Returns
    -------
    list of list of int
        ``min(B, len(features))`` non-empty clusters, each a sorted list of column indices,
        ordered by the initial rank of their best feature.

    References
    ----------
    G. Karčiauskas, *Text Categorization Using Hierarchical Bayesian Network Classifiers*,
    MSc thesis, Aalborg University, 2002, sec. 3.5.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 0]])
    >>> y = np.array([1, 1, 0, 0])
    >>> cluster_features_avg(X, y, [0, 1, 2, 3], B=2, alpha=0.0)
    [[0, 1], [2, 3]]
    """
    return run_kernel(_avg_kernel, X, y, features, B, alpha, observer)


def _avg_kernel(stats, positions, B, alpha, observer=None):
    """ClusterFeaturesAvg on the columns ``positions`` of ``stats``; clusters of positions in
    the initial rank order of their best feature."""
    slots = ranked_slots(stats, positions)
    px, q1, q0 = singleton_statistics(stats.df[slots], stats.df1[slots], stats.n, stats.n1)
    if observer is not None:
        observer({"step": "start", "columns": stats.columns[slots].copy(), "info": stats.info[slots].copy()})
    clusters = agglomerate_info_loss(_AvgState(px, q1, q0), B, alpha, observer)
    return [[int(slots[r]) for r in c] for c in clusters]


cluster_features_avg._kernel = _avg_kernel


__all__ = ["cluster_features_avg", "merge_avg", "singleton_statistics"]
