"""Shared pieces of the feature clustering algorithms of thesis ch. 3 (figs 3.6-3.12).

Every clustering function has the signature ``(X, y, features, B, alpha) -> list[list[int]]``:

* ``X`` -- binary (or count: any non-zero entry counts as "present") document x feature
  matrix, CSR/CSC or dense, shape (n_documents, n_columns);
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
"the number of bits of information obtained for the prediction of class C" (sec. 1.3), and its
alpha values (Table 4.1) are calibrated against it.
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

# Two candidate costs closer than this (relative to max(1, |best|)) are a tie; ties go to the
# lowest (i, j) in the initial order.  The tolerance keeps the choice deterministic across
# mathematically equal costs computed along different floating point routes (the incremental
# kernels and the from-scratch oracles in the tests).
TIE_RTOL = 1e-10


class BinaryData:
    """The binarized columns of ``X`` selected by ``features`` together with ``y``.

    Attributes
    ----------
    Xb : scipy.sparse.csc_matrix of float64, shape (n_documents, n_features)
        0/1 indicators, columns in the order of ``columns``.
    y : ndarray of float64, 0/1
    columns : ndarray of int64
        The original column indices (``features``).
    n, n1 : int
        Number of documents and of positive documents.
    df, df1 : ndarray of float64
        Per column: documents containing the feature, and positive ones among them.
    """

    __slots__ = ("Xb", "y", "columns", "n", "n1", "df", "df1")

    def __init__(self, Xb, y, columns):
        self.Xb = Xb
        self.y = y
        self.columns = columns
        self.n = int(Xb.shape[0])
        self.n1 = float(y.sum())
        self.df = np.asarray(Xb.sum(axis=0), dtype=np.float64).ravel()
        self.df1 = np.asarray(Xb.T @ y, dtype=np.float64).ravel()


def as_binary_csc(X) -> sp.csc_matrix:
    """Validate ``X`` (non-negative, finite, 2-D) and return its 0/1 indicator matrix as CSC."""
    if sp.issparse(X):
        Xc = sp.csc_matrix(X)
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(f"X must be a 2-D matrix, got an array with shape {arr.shape}")
        Xc = sp.csc_matrix(arr)
    data = Xc.data
    if data.size:
        if data.dtype == bool:
            data = data.astype(np.float64)
        if not np.all(np.isfinite(data)) or data.min() < 0:
            raise ValueError("X must hold non-negative finite term counts or 0/1 indicators")
    Xc = Xc.astype(np.float64, copy=True)
    Xc.eliminate_zeros()
    Xc.data[:] = 1.0
    Xc.sort_indices()
    return Xc


def validate_y(y, n_documents: int) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D vector of 0/1 labels, got shape {y.shape}")
    if y.shape[0] != n_documents:
        raise ValueError(f"X has {n_documents} rows but y has {y.shape[0]} labels")
    values = np.unique(y)
    if not set(values.tolist()) <= {0, 1, False, True}:
        raise ValueError(f"y must hold binary labels 0/1, got values {values[:5].tolist()}")
    return y.astype(np.float64)


def validate_B(B) -> int:
    if isinstance(B, bool) or not isinstance(B, numbers.Integral):
        raise ValueError(f"the number of clusters B must be an integer >= 1, got {B!r}")
    if B < 1:
        raise ValueError(f"the number of clusters B must be >= 1, got {B}")
    return int(B)


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


def prepare(X, y, features, B, alpha) -> tuple[BinaryData, int, float]:
    """Validate the common arguments; return the data restricted to ``features``."""
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D matrix, got shape {X.shape}")
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D matrix, got an array with shape {X.shape}")
    yv = validate_y(y, X.shape[0])
    cols = validate_features(features, X.shape[1])
    B = validate_B(B)
    alpha = validate_alpha(alpha)
    # slice first, binarize the (small) selection only
    if sp.issparse(X):
        sub = (X if X.format in ("csr", "csc") else X.tocsr())[:, cols]
    else:
        sub = X[:, cols]
    return BinaryData(as_binary_csc(sub), yv, cols), B, alpha


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
    (thesis fig. 3.6 step 3).  ``order[r]`` is the position (into ``columns``) of rank r."""
    return np.lexsort((columns, -np.asarray(info)))


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


def finalize(clusters_by_rank: list[list[int]], columns: np.ndarray, rank_of_pos: np.ndarray) -> list[list[int]]:
    """Turn clusters of *positions* (into ``columns``) into sorted lists of column indices,
    ordered by the initial rank of their best member."""
    keyed = []
    for members in clusters_by_rank:
        members = list(members)
        best = min(int(rank_of_pos[p]) for p in members)
        keyed.append((best, sorted(int(columns[p]) for p in members)))
    keyed.sort(key=lambda t: t[0])
    return [c for _, c in keyed]


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


__all__ = [
    "BinaryData",
    "TIE_RTOL",
    "as_binary_csc",
    "check_partition",
    "first_min_pair",
    "initial_rank",
    "mutual_information_from_conditionals",
    "mutual_information_from_counts",
    "mutual_information_from_joint",
    "prepare",
]
