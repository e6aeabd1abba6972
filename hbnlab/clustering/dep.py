"""ClusterFeaturesDep: feature clustering by conditional independence tests, with
ImproveClustering (thesis sec. 3.7, figs 3.11-3.12).

Notation (thesis sec. 3.7): p_ij = P(F_i indep F_j | C) estimated by a chi-square test; A is
the current set of clusters; Expression 3.1 of a partition A' is

    E(A') = S / D - alpha / |A'| * Pen,
    S   = sum_{X_k in A'} sum_{{F_i,F_j} subset X_k} p_ij        (within-cluster distances)
    D   = sum_{X_k in A'} C(|X_k|, 2)                             (within-cluster pairs)
    Pen = sum_{i=1..N} I(F_i, C) / |X_{k_i}| = sum_k Isum_k / |X_k|,

with Isum_k the sum of I(F_i, C) over the features of X_k (I in bits, like everywhere in
:mod:`hbnlab.clustering`).

**The first term of an all-singleton partition** is 0/0.  We define it as 0 (no within-cluster
pair, no distance).  The choice cannot change any clustering: every candidate A' of the greedy
loop (fig. 3.11 step 3) contains the merged pair, so D >= 1 for every compared value; the
all-singleton value is only the E_1 handed to ImproveClustering when N <= B, where no feature
can move (only features of clusters with > 1 feature move), and a move never creates D = 0
(D' = D - (|X_l| - 1) + |X_m| >= 1).

**Incremental greedy** (fig. 3.11 step 3).  Merging X_a and X_b changes only the terms of X_a
and X_b, so with running totals S, D, Pen, |A| and the matrix P_ab of inter-cluster distance sums
(sum_{F_i in X_a, F_j in X_b} p_ij) every candidate costs O(1)::

    S'   = S + P_ab
    D'   = D + |X_a| |X_b|                    (C(a+b, 2) = C(a, 2) + C(b, 2) + a b)
    Pen' = Pen - Isum_a/|X_a| - Isum_b/|X_b| + (Isum_a + Isum_b)/(|X_a| + |X_b|)
    E    = S'/D' - alpha/(|A| - 1) * Pen'

The kernel keeps the matrices P_ab, |X_a||X_b| and Pen' - Pen over the active clusters; after
a merge only row/column a of each changes (P_a. += P_b.) and row/column b is dropped, so a step
costs one vectorized pass over the |A|^2 / 2 candidate pairs.

**ImproveClustering** (fig. 3.12).  The PDF's denominator of E_2m reads
"sum_{A \\ {X_l,X_m}} C(|X_k|,2) + C(|X_k|,2) + C(|X_l|-1,2) + C(|X_m|+1,2)": the second
C(|X_k|, 2) is an extraction artefact (X_k is not bound outside the sum).  The intended
denominator is the within-cluster pair count after the move::

    sum_{X_k in A \\ {X_l, X_m}} C(|X_k|, 2) + C(|X_l| - 1, 2) + C(|X_m| + 1, 2)
      = D - (|X_l| - 1) + |X_m|.

The numerator S - d_il + d_im needs d_il to exclude p_ii (F_i is not paired with itself), so the
matrix p has a zero diagonal.  The penalty after the move (the number of clusters is unchanged,
X_l keeps >= 1 feature) is

    Pen - Isum_l/|X_l| - Isum_m/|X_m| + (Isum_l - I_i)/(|X_l| - 1) + (Isum_m + I_i)/(|X_m| + 1).

A move is made when gain* = E_1 - E_2m exceeds a relative 1e-10 (the thesis: > 0), so rounding
noise never moves a feature back and forth.  A test checks that E_2m, computed incrementally,
equals Expression 3.1 recomputed from scratch after every move -- the thesis suspected a bug in
its own ImproveClustering ("strange gain* values"); the stray denominator term taken literally,
or a d_il that includes p_ii, would give such values.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import chi2

from hbnlab.clustering.common import (
    TIE_RTOL,
    first_min_pair,
    lower_inf,
    prepare,
    ranked_slots,
    remove_index,
    run_kernel,
)


def independence_pvalues(X, y, features) -> np.ndarray:
    """p_ij = P(F_i indep F_j | C): chi-square test of conditional independence (thesis sec. 3.7).

    With x_abc the number of documents where F_i = a, F_j = b, C = c::

        E(x_abc) = x_{a+c} x_{+bc} / x_{++c},   X^2 = sum_{a,b,c} (x_abc - E(x_abc))^2 / E(x_abc),

    and p_ij = chi2.sf(X^2, df) with the thesis's df = (|F_i| - 1)(|F_j| - 1)|C| = 2 (binary
    features, binary class).  Cells with E(x_abc) = 0 contribute 0: E = 0 means a margin
    x_{a+c} or x_{+bc} is 0, and then x_abc = 0 too (0/0; a stratum where a feature is constant
    carries no evidence of dependence).  The degrees of freedom stay 2 as the thesis states,
    even when strata degenerate.  All pairs at once from the per-class co-occurrence matrices.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_documents, n_columns)
    y : array-like of shape (n_documents,), 0/1
    features : sequence of int
        Distinct column indices.

    Returns
    -------
    ndarray of shape (len(features), len(features))
        Symmetric; ``p[i, j]`` for features ``features[i]`` and ``features[j]``.  The diagonal is
        0 (a feature is never tested against itself; with 0 there the row sums over a cluster are
        the d_ik of fig. 3.12).
    """
    stats, _, _ = prepare(X, y, features, 1, 0.0)
    return pvalues_of(stats)


def pvalues_of(stats) -> np.ndarray:
    """The p-value matrix of all columns of a :class:`~hbnlab.clustering.common.FeatureStats`
    (computed once per stats object)."""
    return stats.cached("dep_pvalues", lambda: _pvalues_from_counts(stats))


def _pvalues_from_counts(stats) -> np.ndarray:
    """All pairs at once from the per-class co-occurrence counts (sec. 3.7)."""
    G, G1 = stats.cooccurrence
    strata = (
        (G1, stats.df1, stats.n1),  # C = 1: x_11c, x_{1+c} per feature, x_{++c}
        (G - G1, stats.df - stats.df1, stats.n - stats.n1),  # C = 0
    )
    X2 = np.zeros(G.shape)
    for x11, a, n_c in strata:
        if n_c == 0:
            continue
        ai, aj = a[:, None], a[None, :]
        observed = (x11, ai - x11, aj - x11, n_c - ai - aj + x11)  # x_11c, x_10c, x_01c, x_00c
        expected = (ai * aj / n_c, ai * (n_c - aj) / n_c, (n_c - ai) * aj / n_c, (n_c - ai) * (n_c - aj) / n_c)
        with np.errstate(divide="ignore", invalid="ignore"):
            for x, e in zip(observed, expected):
                X2 += np.where(e > 0, (x - e) ** 2 / e, 0.0)
    p = chi2.sf(X2, 2)  # thesis sec. 3.7: (|F_i|-1)(|F_j|-1)|C| = 2 degrees of freedom
    p = np.triu(p, 1)
    return p + p.T


def expression_3_1(p, info, clusters, alpha) -> float:
    """Expression 3.1 of the thesis for a partition, computed from scratch.

    Parameters
    ----------
    p : ndarray (N, N)
        Pairwise p-values (only off-diagonal entries are used).
    info : ndarray (N,)
        I(F_i, C) per feature.
    clusters : list of list of int
        A partition of ``range(N)`` (positions into ``p`` / ``info``).
    alpha : float

    Returns
    -------
    float
        ``S/D - alpha/|A'| * Pen`` (first term 0 when no cluster has two features; see the
        module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0, .2, .4], [.2, 0, .6], [.4, .6, 0]])
    >>> round(expression_3_1(p, np.array([.3, .1, .2]), [[0, 1], [2]], alpha=2.0), 12)
    -0.2
    """
    p = np.asarray(p, dtype=np.float64)
    info = np.asarray(info, dtype=np.float64)
    S = D = pen = 0.0
    for c in clusters:
        c = np.asarray(c, dtype=np.int64)
        s = c.size
        block = p[np.ix_(c, c)]
        S += float(np.triu(block, 1).sum())
        D += s * (s - 1) / 2
        pen += float(info[c].sum()) / s
    first = S / D if D > 0 else 0.0
    return first - alpha / len(clusters) * pen


def greedy_dep(p, info, B, alpha, observer=None):
    """Step 3 of ClusterFeaturesDep (fig. 3.11): greedy merging minimizing Expression 3.1.

    ``p`` and ``info`` are indexed by position; positions are the tie-break order (lowest
    (a, b) wins, within a relative 1e-10).  The merged cluster keeps the lower position as its
    slot.  Returns ``(clusters, E)``: clusters as lists of positions in slot order, and the value
    of Expression 3.1 for them.

    ``observer``, when given, is called before every merge with a dict: ``step="merge"``,
    ``clusters`` (active clusters as lists of positions), ``expression`` (Expression 3.1 after
    merging each pair (a, b), +inf on and below the diagonal), ``inter`` (the distance sums P_ab
    between the clusters) and ``pair`` (the chosen (a, b)).
    """
    p = np.asarray(p, dtype=np.float64).copy()
    np.fill_diagonal(p, 0.0)
    info = np.asarray(info, dtype=np.float64)
    N = info.size
    members = [[r] for r in range(N)]
    size = np.ones(N)
    isum = info.copy()
    S, D, pen = 0.0, 0.0, float(info.sum())
    E = 0.0 - alpha / N * pen  # all singletons: first term defined as 0 (module docstring)
    if N <= B:
        return members, E
    # compact matrices over the active clusters (in slot order); only row/column a changes
    # after merging b into a, and b's row/column is deleted
    P = p  # inter-cluster distance sums P_ab
    SS = np.outer(size, size)  # |X_a| |X_b|
    t = isum / size
    DP = (isum[:, None] + isum[None, :]) / (size[:, None] + size[None, :]) - t[:, None] - t[None, :]  # Pen' - Pen
    mask = lower_inf(N)
    ids = np.arange(N)
    while ids.size > B:
        m = ids.size
        c = alpha / (m - 1)
        cost = (S + P) / (D + SS) - c * DP + mask[:m, :m] - c * pen
        a, b = first_min_pair(cost)
        if observer is not None:
            observer({"step": "merge", "clusters": [list(members[i]) for i in ids], "expression": cost.copy(),
                      "inter": P.copy(), "pair": (a, b)})
        E = float(cost[a, b])
        S, D, pen = S + float(P[a, b]), D + float(SS[a, b]), pen + float(DP[a, b])
        i, j = int(ids[a]), int(ids[b])
        members[i].extend(members[j])
        members[j] = []
        P[a, :] += P[b, :]
        P[:, a] += P[:, b]
        size[a] += size[b]
        isum[a] += isum[b]
        ids, size, isum = remove_index(ids, b), remove_index(size, b), remove_index(isum, b)
        P, SS, DP = remove_index(P, b), remove_index(SS, b), remove_index(DP, b)
        t = isum / size
        SS[a, :] = size[a] * size
        SS[:, a] = SS[a, :]
        DP[a, :] = (isum[a] + isum) / (size[a] + size) - t[a] - t
        DP[:, a] = DP[a, :]
        P[a, a] = 0.0
    return [members[i] for i in ids], E


class _ImproveState:
    """Running totals for ImproveClustering (fig. 3.12) over K fixed clusters."""

    def __init__(self, p, info, clusters, alpha):
        self.p = np.asarray(p, dtype=np.float64).copy()
        np.fill_diagonal(self.p, 0.0)
        self.info = np.asarray(info, dtype=np.float64)
        N = self.info.size
        self.K = len(clusters)
        self.alpha = float(alpha)
        self.labels = np.empty(N, dtype=np.int64)
        for k, c in enumerate(clusters):
            self.labels[np.asarray(c, dtype=np.int64)] = k
        M = np.zeros((N, self.K))
        M[np.arange(N), self.labels] = 1.0
        self.size = M.sum(axis=0)
        self.isum = self.info @ M
        self.d = self.p @ M  # step 1: d_ik = sum_{F_j in X_k} p_ij (p_ii = 0)
        self.S = float((self.d[np.arange(N), self.labels]).sum()) / 2.0
        self.D = float((self.size * (self.size - 1) / 2).sum())
        self.pen = float((self.isum / self.size).sum())

    def value(self) -> float:
        first = self.S / self.D if self.D > 0 else 0.0
        return first - self.alpha / self.K * self.pen

    def move_values(self):
        """E_2m for every feature i (rows) and target cluster m (columns); +inf where the move
        is not allowed (m = l, or |X_l| = 1).  Also returns the numerator, denominator and
        penalty matrices for the update."""
        N = self.info.size
        rows = np.arange(N)
        lab = self.labels  # the cluster X_l of every feature
        s_l = self.size[lab][:, None]
        s_m = self.size[None, :]
        num = self.S - self.d[rows, lab][:, None] + self.d  # S - d_il + d_im
        den = self.D - (s_l - 1) + s_m  # C(|X_l|-1, 2) + C(|X_m|+1, 2) replace the old terms
        t = self.isum / self.size
        with np.errstate(divide="ignore", invalid="ignore"):
            pen = (
                self.pen
                - t[lab][:, None]
                - t[None, :]
                + (self.isum[lab] - self.info)[:, None] / (s_l - 1)  # new penalty of X_l
                + (self.isum[None, :] + self.info[:, None]) / (s_m + 1)  # new penalty of X_m
            )
            E2 = num / den - self.alpha / self.K * pen
        allowed = (s_l > 1) & (lab[:, None] != np.arange(self.K)[None, :])
        return np.where(allowed, E2, np.inf), num, den, pen

    def move(self, i, m, num, den, pen):
        src = self.labels[i]  # X_l, the cluster the feature leaves
        col = self.p[:, i]
        self.d[:, src] -= col  # fig. 3.12 step 2.b.ii
        self.d[:, m] += col
        self.size[src] -= 1
        self.size[m] += 1
        self.isum[src] -= self.info[i]
        self.isum[m] += self.info[i]
        self.labels[i] = m
        self.S, self.D, self.pen = num, den, pen

    def clusters(self):
        return [np.flatnonzero(self.labels == k).tolist() for k in range(self.K)]


def improve_clustering(p, info, clusters, alpha, *, E1=None, max_iter=None, observer=None):
    """ImproveClustering (thesis fig. 3.12): move single features between clusters while
    Expression 3.1 decreases.

    Each iteration evaluates, for every feature F_i of a cluster X_l with |X_l| > 1 and every
    other cluster X_m, the value E_2m of Expression 3.1 after the move, from the precomputed
    d_ik sums and the running totals (see the module docstring for the derived denominator);
    the move with the largest gain E_1 - E_2m is made if the gain is positive (larger than a
    relative 1e-10, so that rounding noise never triggers a move).  Ties go to the lowest
    (position i, cluster m).  At most ``max_iter`` (default N) moves.

    Parameters
    ----------
    p : ndarray (N, N)
        Pairwise p-values (diagonal ignored).
    info : ndarray (N,)
        I(F_i, C).
    clusters : list of list of int
        Starting partition of ``range(N)``; the number of clusters is kept.
    alpha : float
    E1 : float, optional
        Current value of Expression 3.1 (the thesis passes the greedy loop's last value);
        computed when omitted.
    max_iter : int, optional
    observer : callable, optional
        Called once per iteration with a dict: ``step="improve"``, ``clusters`` (the partition
        before the iteration), ``E1`` (its Expression 3.1), ``E2`` (the matrix E_2m, features x
        clusters, +inf where a move is not allowed), ``move`` (the best (i, m)) and ``moved``
        (whether its gain was positive and the feature moved).

    Returns
    -------
    clusters : list of list of int
        In the order of the input clusters, each sorted.
    trace : list of tuple
        One ``(i, l, m, E)`` per move: feature position, from cluster, to cluster (indices into
        the cluster list) and the incrementally computed Expression 3.1 after the move.
    """
    state = _ImproveState(p, info, clusters, alpha)
    N = state.info.size
    if max_iter is None:
        max_iter = N
    E = state.value() if E1 is None else float(E1)
    trace = []
    for _ in range(int(max_iter)):
        E2, num, den, pen = state.move_values()
        if not np.isfinite(E2).any():
            break
        i, m = first_min_pair(E2)  # min E_2m == max gain_im, ties by lowest (i, m)
        gain = E - E2[i, m]
        moved = bool(gain > TIE_RTOL * max(1.0, abs(E)))
        if observer is not None:
            observer({"step": "improve", "clusters": state.clusters(), "E1": E, "E2": E2.copy(),
                      "move": (int(i), int(m)), "moved": moved})
        if not moved:
            break
        src = int(state.labels[i])
        state.move(i, m, float(num[i, m]), float(den[i, m]), float(pen[i, m]))
        E = float(E2[i, m])
        trace.append((int(i), src, int(m), E))
    return state.clusters(), trace


def cluster_features_dep(X, y, features, B, alpha, *, observer=None) -> list[list[int]]:
    """Partition ``features`` into at most ``B`` clusters with ClusterFeaturesDep (thesis fig. 3.11).

    1. p_ij = P(F_i indep F_j | C) by the chi-square test (:func:`independence_pvalues`);
    2. singleton clusters in the initial rank order (decreasing I(F, C), ties by column; the
       order only breaks ties);
    3. greedy merging of the pair minimizing Expression 3.1 (:func:`greedy_dep`) until B clusters
       remain;
    4. :func:`improve_clustering` (fig. 3.12).

    Parameters ``X``, ``y``, ``features``, ``B`` and the returned clusters are those of
    :func:`hbnlab.clustering.avg.cluster_features_avg`.  ``alpha`` is the mutual information's
    importance (>= 0; Table 4.1 of the thesis uses 170 with B = 7).  ``observer`` is called with
    one dict per step: ``step="start"`` (``columns`` in initial rank order, their ``info`` and the
    p-value matrix ``p``), ``step="merge"`` (:func:`greedy_dep`) and ``step="improve"``
    (:func:`improve_clustering`); :mod:`hbnlab.clustering.trace` records them.

    References
    ----------
    G. Karčiauskas, MSc thesis, Aalborg University, 2002, sec. 3.7.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.random(200) < 0.5, rng.random(200) < 0.5
    >>> X = np.column_stack([a, a ^ (rng.random(200) < 0.05), b, b ^ (rng.random(200) < 0.05)])
    >>> y = (rng.random(200) < 0.5).astype(int)
    >>> sorted(cluster_features_dep(X, y, [0, 1, 2, 3], B=2, alpha=0.0))
    [[0, 1], [2, 3]]
    """
    return run_kernel(_dep_kernel, X, y, features, B, alpha, observer)


def _dep_kernel(stats, positions, B, alpha, observer=None):
    """ClusterFeaturesDep on the columns ``positions`` of ``stats``; clusters of positions in
    the initial rank order of their best feature."""
    slots = ranked_slots(stats, positions)
    p = pvalues_of(stats)[np.ix_(slots, slots)]
    info = stats.info[slots]
    if observer is not None:
        observer({"step": "start", "columns": stats.columns[slots].copy(), "info": info.copy(), "p": p.copy()})
    clusters, E1 = greedy_dep(p, info, B, alpha, observer)
    clusters, _ = improve_clustering(p, info, clusters, alpha, E1=E1, observer=observer)
    clusters.sort(key=min)  # a move can change a cluster's best feature
    return [[int(slots[r]) for r in c] for c in clusters]


cluster_features_dep._kernel = _dep_kernel


__all__ = [
    "cluster_features_dep",
    "expression_3_1",
    "greedy_dep",
    "improve_clustering",
    "independence_pvalues",
    "pvalues_of",
]
