"""Shared pieces of the feature clustering algorithms of thesis ch. 3 (figs 3.6-3.12).

Every clustering function has the signature ``(X, y, features, B, alpha) -> list[list[int]]``:

* ``X`` -- binary (or count: a positive entry counts as "present", a negative one is an error)
  document x feature matrix, CSR/CSC or dense, shape (n_documents, n_columns);
* ``y`` -- 0/1 class vector of length n_documents;
* ``features`` -- the column indices of ``X`` to cluster (distinct);
* ``B`` -- the maximal number of clusters (the branching factor);
* ``alpha`` -- the algorithm's penalty / importance parameter (>= 0).

It returns a partition of ``features`` into ``min(B, len(features))`` non-empty clusters, each a
sorted list of column indices, the clusters ordered by the *initial rank* of their best feature.

The initial rank (thesis fig. 3.6 step 3: "sort clusters in descending order according to
I(X_i, C)") orders the features by decreasing mutual information with the class; ties are broken
by increasing column index, so the result does not depend on the order in which ``features`` is
given (a property the tests check).

Mutual information is measured in **bits** (log base 2): the thesis describes information gain as
"the number of bits of information obtained for the prediction of class C" (sec. 1.3); we take
its alpha values (Table 4.1) to refer to bits too (the unit only rescales alpha).

Floating point ties: two costs within a relative :data:`TIE_RTOL` are equal, and so are two
mutual informations in the initial sort.  Mathematically equal values reached along different
floating point routes (a feature and its complement, an incremental update and a from-scratch
sum) then break ties the same way.
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from hbnlab._validation import as_binary, check_branching_factor, check_y01

# Two candidate costs closer than this (relative to max(1, |best|)) are a tie; ties go to the
# lowest (i, j) in the initial order.  The tolerance keeps the choice deterministic across
# mathematically equal costs computed along different floating point routes (the incremental
# kernels and the from-scratch oracles in the tests).
TIE_RTOL = 1e-10


class FeatureStats:
    """Counts of a set of binary feature columns against a binary class, shared by the
    clustering kernels (and, in :func:`hbnlab.clustering.construct_tree`, by every recursive
    clustering call of one tree: the statistics of a subset of the features are sub-arrays of
    the statistics of all of them).

    Attributes
    ----------
    Xb : scipy.sparse.csc_matrix of float64, shape (n_documents, m)
        0/1 indicators.
    y : ndarray of float64, 0/1
    columns : ndarray of int64, shape (m,)
        The column index of ``X`` each column of ``Xb`` came from (used for tie-breaking and
        for the returned clusters).
    n, n1 : int, float
        Number of documents and of positive documents.
    df, df1 : ndarray of float64, shape (m,)
        Documents containing the feature, and positive documents among them.
    info : ndarray of float64, shape (m,)
        I(F, C) in bits.
    """

    def __init__(self, Xb, y, columns):
        self.Xb = Xb
        self.y = y
        self.columns = np.asarray(columns, dtype=np.int64)
        self.n = int(Xb.shape[0])
        self.n1 = float(y.sum())
        self.df = np.asarray(Xb.sum(axis=0), dtype=np.float64).ravel()
        self.df1 = np.asarray(Xb.T @ y, dtype=np.float64).ravel()
        self.info = mutual_information_from_counts(self.df, self.df1, self.n, self.n1)
        self._cache: dict = {}

    def cached(self, key, compute):
        """Memoise a derived statistic (``compute()`` runs once per key)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    @property
    def cooccurrence(self):
        """``(G, G1)``: documents containing both features, and positive ones among them
        (dense m x m, the X^T X products)."""

        def compute():
            G = np.asarray((self.Xb.T @ self.Xb).toarray(), dtype=np.float64)
            Xy = sp.csc_matrix(self.Xb.multiply(self.y[:, None]))
            G1 = np.asarray((Xy.T @ self.Xb).toarray(), dtype=np.float64)
            return G, G1

        return self.cached("cooccurrence", compute)


def run_kernel(kernel, X, y, features, B, alpha, observer=None) -> list[list[int]]:
    """Validate the arguments, run ``kernel(stats, positions, B, alpha, observer)`` on the
    columns ``features`` and return its clusters as sorted lists of column indices.

    ``observer``, when given, is called with one dict per step of the algorithm (see
    :func:`agglomerate_info_loss`, :func:`hbnlab.clustering.dep.greedy_dep` and
    :func:`hbnlab.clustering.dep.improve_clustering`); its ``"columns"`` entry maps the slots the
    step refers to onto column indices of ``X``.
    """
    stats, B, alpha = prepare(X, y, features, B, alpha)
    clusters = kernel(stats, np.arange(stats.columns.size), B, alpha, observer)
    return [sorted(int(stats.columns[p]) for p in c) for c in clusters]


def validate_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not np.isfinite(alpha):
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    return float(alpha)


def validate_features(features, n_columns: int) -> np.ndarray:
    cols = np.asarray(list(features) if not isinstance(features, np.ndarray) else features)
    if cols.ndim != 1 or cols.size == 0:
        raise ValueError("features must be a non-empty 1-D list of column indices")
    if not np.issubdtype(cols.dtype, np.integer):
        raise ValueError(f"features must be integer column indices, got dtype {cols.dtype}")
    cols = cols.astype(np.int64)
    bad = cols[(cols < 0) | (cols >= n_columns)]
    if bad.size:
        raise ValueError(f"feature column {int(bad[0])} is out of range: X has {n_columns} columns")
    uniq, counts = np.unique(cols, return_counts=True)
    if np.any(counts > 1):
        raise ValueError(f"feature column {int(uniq[counts > 1][0])} appears more than once in features")
    return cols


def prepare(X, y, features, B, alpha) -> tuple[FeatureStats, int, float]:
    """Validate the common arguments; return the data restricted to ``features``."""
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D matrix, got shape {X.shape}")
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D matrix, got an array with shape {X.shape}")
    if X.shape[0] == 0:
        raise ValueError("X has 0 documents; the clustering statistics need at least 1")
    yv = check_y01(y, X.shape[0]).astype(np.float64)
    cols = validate_features(features, X.shape[1])
    B = check_branching_factor(B, minimum=1, name="the number of clusters B")
    alpha = validate_alpha(alpha)
    # slice first, binarize the (small) selection only
    if sp.issparse(X):
        sub = (X if X.format in ("csr", "csc") else X.tocsr())[:, cols]
    else:
        sub = X[:, cols]
    return FeatureStats(as_binary(sub, fmt="csc"), yv, cols), B, alpha


def mutual_information_from_joint(p11, p10, p01, p00) -> np.ndarray:
    """I(X, C) in bits from the joint table P(X = x, C = c) given cell by cell (``pxc``).

    The marginals are taken from the table itself, so the result is a proper mutual information
    even when the table was built from averaged conditionals (thesis fig. 3.7, see
    :func:`hbnlab.clustering.avg.merge_avg`).  Cells with probability 0 contribute 0
    (0 log 0 = 0).  Vectorized: the arguments broadcast.
    """
    p11, p10, p01, p00 = (np.asarray(a, dtype=np.float64) for a in (p11, p10, p01, p00))
    px1 = p11 + p10
    px0 = p01 + p00
    pc1 = p11 + p01
    pc0 = p10 + p00
    out = np.zeros(np.broadcast(p11, p10, p01, p00).shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        for pj, pa, pb in ((p11, px1, pc1), (p10, px1, pc0), (p01, px0, pc1), (p00, px0, pc0)):
            term = pj * np.log2(pj / (pa * pb))
            out = out + np.where(pj > 0, term, 0.0)
    # I >= 0 mathematically; clip rounding noise so merge losses are not biased by -1e-17
    return np.maximum(out, 0.0)


def mutual_information_from_conditionals(px1, q1, q0) -> np.ndarray:
    """I(X, C) in bits from P(X=1), P(C=1|X=1), P(C=1|X=0) (joint built from the three numbers)."""
    px1 = np.asarray(px1, dtype=np.float64)
    q1 = np.asarray(q1, dtype=np.float64)
    q0 = np.asarray(q0, dtype=np.float64)
    return mutual_information_from_joint(px1 * q1, px1 * (1 - q1), (1 - px1) * q0, (1 - px1) * (1 - q0))


def mutual_information_from_counts(cnt, pos, n, n1) -> np.ndarray:
    """I(X, C) in bits for binary X from counts: ``cnt`` documents with X=1, ``pos`` of them
    positive, ``n`` documents, ``n1`` positive documents."""
    cnt = np.asarray(cnt, dtype=np.float64)
    pos = np.asarray(pos, dtype=np.float64)
    if n == 0:
        return np.zeros(np.broadcast(cnt, pos).shape)
    p11 = pos / n
    p10 = (cnt - pos) / n
    p01 = (n1 - pos) / n
    p00 = (n - n1 - cnt + pos) / n
    return mutual_information_from_joint(p11, p10, p01, p00)


def initial_rank(info: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Positions of the features sorted by decreasing I(F, C), ties by increasing column
    (thesis fig. 3.6 step 3).  ``order[r]`` is the position (into ``columns``) of rank r.

    Values within :data:`TIE_RTOL` of the first value of a run are tied: mathematically equal
    informations (e.g. of a feature and its complement) differ in the last bits depending on
    the cell order of their joint tables, and must not decide the order.
    """
    info = np.asarray(info, dtype=np.float64)
    columns = np.asarray(columns)
    order = np.lexsort((columns, -info))
    vals = info[order]
    group = np.empty(order.size, dtype=np.int64)
    g, start = 0, vals[0] if vals.size else 0.0
    for r, v in enumerate(vals):  # a loop over features, not documents
        if start - v > TIE_RTOL * max(1.0, abs(start)):
            g += 1
            start = v
        group[r] = g
    return order[np.lexsort((columns[order], group))]


def first_min_pair(cost: np.ndarray) -> tuple[int, int]:
    """(i, j) of the smallest entry of ``cost`` (invalid entries are +inf); ties within
    :data:`TIE_RTOL` go to the lowest (i, j) in row-major order."""
    flat = cost.ravel()
    m = flat.min()
    if not np.isfinite(m):
        raise RuntimeError("no finite candidate cost")  # internal: callers guarantee a candidate
    tol = TIE_RTOL * max(1.0, abs(m))
    k = int(np.argmax(flat <= m + tol))
    return divmod(k, cost.shape[1])


def check_partition(clusters, features, B=None, name="clustering") -> list[list[int]]:
    """Validate that ``clusters`` is a partition of ``features`` into non-empty clusters (at most
    ``B`` of them); return it normalised (each cluster a sorted list of ints)."""
    try:
        out = [sorted(int(f) for f in c) for c in clusters]
    except TypeError:
        raise ValueError(f"{name} must return a list of lists of column indices, got {clusters!r}") from None
    feats = sorted(int(f) for f in features)
    flat = sorted(f for c in out for f in c)
    for k, c in enumerate(out):
        if not c:
            raise ValueError(f"{name} returned an empty cluster (number {k})")
    if flat != feats:
        missing = sorted(set(feats) - set(flat))
        extra = sorted(set(flat) - set(feats))
        dup = sorted({f for f in flat if flat.count(f) > 1})
        raise ValueError(
            f"{name} did not return a partition of the features: missing {missing}, "
            f"unknown {extra}, repeated {dup}"
        )
    if B is not None and len(out) > B:
        raise ValueError(f"{name} returned {len(out)} clusters, more than B = {B}")
    return out


def info_loss(dI, size_sum, N: int, n_clusters: int, alpha: float):
    """Modified information loss of thesis fig. 3.8.

    ``(I(X_i,C) + I(X_j,C) - I(Merge(X_i,X_j),C)) * k + alpha * (|X_i| + |X_j|) / k`` with the
    average cluster size ``k = N / |A|`` (``dI`` is the bracket, ``size_sum`` = |X_i| + |X_j|).
    """
    k = N / n_clusters
    return dI * k + alpha * size_sum / k


def ranked_slots(stats: FeatureStats, positions) -> np.ndarray:
    """The positions (into ``stats``) in initial rank order: slot r holds ``slots[r]``."""
    positions = np.asarray(positions, dtype=np.int64)
    return positions[initial_rank(stats.info[positions], stats.columns[positions])]


def lower_inf(N: int) -> np.ndarray:
    """N x N matrix: 0 strictly above the diagonal, +inf elsewhere (its leading m x m block
    is the same matrix for m; added to a cost matrix it leaves only pairs i < j)."""
    return np.where(np.triu(np.ones((N, N), dtype=bool), 1), 0.0, np.inf)


def remove_index(M: np.ndarray, b: int) -> np.ndarray:
    """Drop row and column ``b`` of a square matrix (or entry ``b`` of a vector) in place,
    keeping the order of the rest; returns the shrunk view of the same buffer."""
    m = M.shape[0]
    M[b:m - 1] = M[b + 1:m]
    if M.ndim == 2:
        M[:, b:m - 1] = M[:, b + 1:m]
        return M[:m - 1, :m - 1]
    return M[:m - 1]


def agglomerate_info_loss(state, B: int, alpha: float, observer=None) -> list[list[int]]:
    """The merge loop shared by ClusterFeaturesAvg and ClusterFeaturesOr (thesis fig. 3.6 step 4).

    ``state`` holds one slot per initial cluster, slots in initial rank order, and provides
    ``N``, ``size`` (float array per slot), ``pair_dI_all()`` (N x N matrix of
    I(X_i,C) + I(X_j,C) - I(Merge(X_i,X_j),C)), ``merge(i, j)`` (slot j merged into slot i) and
    ``pair_dI(i, idx)`` (the bracket between slot i and the slots ``idx``).

    The pair matrix is computed once; after a merge only the row/column of the merged cluster
    is recomputed, and the merged-away cluster's row/column is deleted (the matrix stays
    compact, in slot order).  The merged cluster keeps the lower slot, which is the rank of its
    best feature, so "lowest (i, j) in the initial order" is the tie rule throughout.  Returns
    the clusters as lists of slots, in slot order.

    ``observer``, when given, is called before every merge with a dict: ``step="merge"``,
    ``clusters`` (the active clusters as lists of slots, in slot order), ``loss`` (the
    InfoLoss matrix of fig. 3.8 between them, +inf on and below the diagonal), ``info_loss``
    (the bracket I(X_i,C) + I(X_j,C) - I(Merge(X_i,X_j),C)), ``info`` (I(X_i, C) per active
    cluster), ``k`` (the average cluster size) and ``pair`` (the chosen (a, b), positions into
    ``clusters``).
    """
    N = state.N
    members = [[r] for r in range(N)]
    if N <= B:
        return members
    dI = state.pair_dI_all()
    mask = lower_inf(N)
    ids = np.arange(N)  # active slots, ascending
    while ids.size > B:
        m = ids.size
        s = state.size[ids]
        cost = info_loss(dI, s[:, None] + s[None, :], N, m, alpha) + mask[:m, :m]
        a, b = first_min_pair(cost)
        if observer is not None:
            observer({"step": "merge", "clusters": [list(members[i]) for i in ids], "loss": cost.copy(),
                      "info_loss": dI.copy(), "info": state.info[ids].copy(), "k": N / m, "pair": (a, b)})
        i, j = int(ids[a]), int(ids[b])
        state.merge(i, j)
        members[i].extend(members[j])
        members[j] = []
        ids = remove_index(ids, b)
        dI = remove_index(dI, b)
        row = state.pair_dI(i, ids)
        row[a] = 0.0  # the diagonal is masked; keep it finite (inf + NaN would be NaN)
        dI[a, :] = row
        dI[:, a] = row
    return [members[i] for i in ids]


__all__ = [
    "agglomerate_info_loss",
    "info_loss",
    "FeatureStats",
    "lower_inf",
    "ranked_slots",
    "remove_index",
    "run_kernel",
    "TIE_RTOL",
    "check_partition",
    "first_min_pair",
    "initial_rank",
    "mutual_information_from_conditionals",
    "mutual_information_from_counts",
    "mutual_information_from_joint",
    "prepare",
]
