"""k nearest neighbours on TF-IDF vectors with cosine similarity (Chakrabarti 2003, sec. 5.4).

Every training document is kept as a vector scaled to unit length; a query document's similarity
s(d_q, d) to training document d is the cosine, a dot product of unit vectors.  Chakrabarti's
eq. 5.2 scores class c by

    score(c, d_q) = b_c + sum_{d in kNN(d_q), c in labels(d)} s(d_q, d),

the similarities of those of the k most similar training documents that belong to c.  This binary
estimator (one class against the rest, as every learner of the thesis) returns that score with
b_c = 0 as its ``decision_function``: an offset constant over documents changes neither a class's
ranking nor its breakeven point.  The score lies in [0, k]; ``predict`` (score > 0) therefore says
"some positive document is among the k nearest", and ``predict_proba`` is the logistic of the
score, a monotone transform and not a calibrated probability.

Term weights (``weighting``, Chakrabarti 2003, sec. 5.4.2 "Is TFIDF appropriate?"):

* ``"tf"``: the raw term frequency (on the thesis's binary indexing: presence), no IDF;
* ``"tfidf"``: tf * log(N / df(t)), the IDF of the training documents (Joachims 1997, as
  :mod:`hbnlab.models.rocchio`);
* ``"logtfidf"``: (1 + log tf) * log(N / df(t)) -- equal to ``"tfidf"`` on binary features.

Chakrabarti tunes k on held-out documents and warns that IDF, computed without the labels, can
down-weight discriminative terms; :data:`hbnlab.models.catalog.LEARNERS` therefore lists a
validation grid over both k and the weighting (used by
:func:`hbnlab.experiments.thesis.tune_on_validation`).

The k nearest neighbours of a block of query rows come from one sparse product and a partial sort
(``numpy.partition``); among training documents with the same similarity the lower row index is
nearer, so the neighbour set (and the score) never depends on the sort's internals.

The neighbour lists depend on neither k nor the class: only on the unit query rows and the unit
training rows (on every term, the same for every class of a split; on locally selected terms, the
same for every k and every run of one class).  Validation tuning scores 8 values of k x 2
weightings x every class, so :func:`nearest_neighbours` keeps the :data:`NEIGHBOURS_KEPT` (or k,
if more) nearest training documents of each query, sorted nearest first, in a bounded cache keyed
by the two matrices' content (:class:`NeighbourCache`); any k up to the kept width is then a
prefix of those lists.  A k above :data:`MAX_LISTED_K` (``k=10**6``, say: every training document) is
summed block by block from the mask of :func:`nearest_neighbour_mask` instead, without lists; both
routes select the same neighbours and differ only in the order the similarities are added (a few
units in the last place: 2e-14 on scores up to 45, ``benchmarks/bench_knn_reuse.py``).
"""
from __future__ import annotations

import itertools
import math
import threading
import zlib
from collections import OrderedDict
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from hbnlab.bounds import Bound, Choice
from hbnlab.models.base import BinaryTextClassifier, NonNegativeInputMixin
from hbnlab.models.multinomial_nb import as_count_matrix
from hbnlab.models.rocchio import tfidf_unit_rows

__all__ = ["KNNBinaryClassifier", "WEIGHTINGS", "knn_weight_rows", "nearest_neighbour_mask", "nearest_neighbours",
           "distinct_rows",
           "NeighbourCache", "NEIGHBOUR_CACHE", "NEIGHBOURS_KEPT", "MAX_LISTED_K"]

#: Term weightings of :class:`KNNBinaryClassifier`.
WEIGHTINGS = ("tf", "tfidf", "logtfidf")

#: Query rows scored per sparse product, at most: bounds the dense (rows x training documents) block.
_BLOCK_ROWS = 512
#: Bytes of one dense block of similarities, at most: with many training documents a block has fewer
#: rows, so the memory of a search stays flat as the corpus grows.
_BLOCK_BYTES = 64 * 2**20


def _block_rows(n_train: int) -> int:
    """Query rows per block: :data:`_BLOCK_ROWS`, fewer when a block would pass :data:`_BLOCK_BYTES`."""
    return max(1, min(_BLOCK_ROWS, _BLOCK_BYTES // (8 * max(1, int(n_train)))))
#: Neighbours kept per query in the cache when k is smaller: the catalogue's k grid tops at 60.
NEIGHBOURS_KEPT = 64
#: Above this k, the scores are summed from the neighbour mask block by block (no lists, no cache).
MAX_LISTED_K = 256


def _idf(X: sp.csr_matrix, weighting: str) -> np.ndarray:
    """log(N / df) per column (0 for columns absent from ``X``), or ones for ``"tf"``."""
    if weighting == "tf":
        return np.ones(X.shape[1])
    df = np.bincount(X.indices[X.data > 0], minlength=X.shape[1]).astype(np.float64)
    with np.errstate(divide="ignore"):
        return np.where(df > 0, np.log(X.shape[0] / np.maximum(df, 1.0)), 0.0)


def knn_weight_rows(X: sp.csr_matrix, idf: np.ndarray, weighting: str) -> sp.csr_matrix:
    """Rows of ``X`` weighted by ``weighting`` and scaled to unit length (all-zero rows stay zero)."""
    X = sp.csr_matrix(X, dtype=np.float64)
    X.eliminate_zeros()
    return tfidf_unit_rows(X, idf, sublinear_tf=weighting == "logtfidf")


def nearest_neighbour_mask(S: np.ndarray, k: int) -> np.ndarray:
    """Boolean mask of each row's k largest entries of ``S`` (n_queries, n_train).

    Ties at the k-th value go to the lower column index, so the mask is a function of ``S`` alone.

    Examples
    --------
    >>> nearest_neighbour_mask(np.array([[0.5, 0.9, 0.5, 0.1]]), 2).astype(int).tolist()
    [[1, 1, 0, 0]]
    """
    n = S.shape[1]
    k = min(int(k), n)
    # the k-th largest value of each row; partitioning -S at k - 1 is the fast direction on rows
    # that are mostly zeros (NumPy's introselect is slow selecting near the top of many ties)
    kth = -np.partition(-S, k - 1, axis=1)[:, k - 1][:, None]
    above = S > kth
    tied = S == kth
    need = k - above.sum(axis=1)
    mask = above | tied
    # rows with more ties at the k-th value than places left keep their first ``need`` tied columns
    over = np.flatnonzero(tied.sum(axis=1) > need)
    if over.size:
        t = tied[over]
        mask[over] = above[over] | (t & (np.cumsum(t, axis=1) <= need[over, None]))
    return mask


def distinct_rows(M: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)``: the first row of each distinct stored row of ``M`` (its column indices
    and values as stored, in order) and, per row, the position of its row in ``first``; so
    ``M[first][inverse]`` equals ``M`` entry for entry, in storage order too.

    Examples
    --------
    >>> first, inverse = distinct_rows(sp.csr_matrix(np.array([[0, 1.0], [1.0, 0], [0, 1.0], [0, 0]])))
    >>> first.tolist(), inverse.tolist()
    ([0, 1, 3], [0, 1, 0, 2])
    """
    seen: dict = {}
    first: list = []
    inverse = np.empty(M.shape[0], dtype=np.intp)
    ptr, ind, val = M.indptr, M.indices, M.data
    for r in range(M.shape[0]):
        a, b = ptr[r], ptr[r + 1]
        j = seen.setdefault(ind[a:b].tobytes() + b"|" + val[a:b].tobytes(), len(first))
        if j == len(first):
            first.append(r)
        inverse[r] = j
    return np.asarray(first, dtype=np.intp), inverse


def _block_neighbours(Q: sp.csr_matrix, T: sp.csc_matrix, m: int):
    """Per block of query rows: (row slice, indices (rows, m) of the m nearest training rows,
    nearest first, ties to the lower index; their similarities).  ``T`` is the transposed unit
    training rows."""
    n = T.shape[1]
    step = _block_rows(n)
    for start in range(0, Q.shape[0], step):
        rows = slice(start, start + step)
        S = (Q[rows] @ T).toarray()
        # the same mask as the streamed route: exactly m columns per row, in column order
        cols = np.nonzero(nearest_neighbour_mask(S, m))[1].reshape(S.shape[0], min(m, n))
        sims = np.take_along_axis(S, cols, axis=1)
        order = np.argsort(-sims, axis=1, kind="stable")  # equal similarities keep the lower index first
        yield rows, np.take_along_axis(cols, order, axis=1).astype(np.int32), np.take_along_axis(sims, order, axis=1)


def _nbytes(*arrays) -> int:
    return sum(a.nbytes for a in arrays)


def _csr_bytes(M) -> int:
    return _nbytes(M.data, M.indices, M.indptr)


def _same_csr(A, B) -> bool:
    return (A.shape == B.shape and A.nnz == B.nnz and np.array_equal(A.indptr, B.indptr)
            and np.array_equal(A.indices, B.indices) and np.array_equal(A.data, B.data))


class _Entry(NamedTuple):
    key: tuple
    Q: sp.csr_matrix
    train: sp.csr_matrix
    idx: np.ndarray
    sims: np.ndarray
    size: int


class NeighbourCache:
    """The nearest training rows of query rows, kept across estimators and calls.

    An entry is keyed by a cheap summary of the unit query rows ``Q`` and the unit training rows
    (shapes, non-zeros, a CRC of the row pointers) and confirmed by comparing the matrices' arrays
    exactly, so a hit never depends on a hash being collision-free.  The arrays, not only the
    values: the order of a row's stored entries sets the order of the sparse product's additions,
    hence the last bit of a similarity and possibly a neighbour at a near-tie.  Entries are
    dropped least recently used first once their bytes (the lists plus the two matrices they
    hold) exceed ``max_bytes``; an entry larger than half of it is computed and not kept.

    Parameters
    ----------
    max_bytes : int, default 256 MB
    """

    def __init__(self, max_bytes: int = 256 * 2**20):
        self.max_bytes = int(max_bytes)
        self._entries: OrderedDict = OrderedDict()  # serial -> _Entry, least recently used first
        self._serial = itertools.count()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _key(Q, train) -> tuple:
        # the row pointers as int64: equal matrices with int32 and int64 indices share a key
        return (Q.shape, Q.nnz, zlib.crc32(Q.indptr.astype(np.int64)), train.shape, train.nnz,
                zlib.crc32(train.indptr.astype(np.int64)))

    def _find(self, key, Q, train):
        for serial, e in self._entries.items():
            if e.key == key and _same_csr(e.Q, Q) and _same_csr(e.train, train):
                return serial, e
        return None, None

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def neighbours(self, Q: sp.csr_matrix, train: sp.csr_matrix, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(indices, similarities)`` (n_queries, >= min(k, n_train)) of each query's nearest
        training rows, nearest first (see :func:`nearest_neighbours`)."""
        k = min(int(k), train.shape[0])
        key = self._key(Q, train)
        with self._lock:
            serial, e = self._find(key, Q, train)
            if e is not None and e.idx.shape[1] >= k:
                self._entries.move_to_end(serial)
                self.hits += 1
                return e.idx, e.sims
            self.misses += 1
        idx, sims = nearest_neighbours(Q, train, k)
        size = _nbytes(idx, sims) + _csr_bytes(Q) + _csr_bytes(train)
        if size <= self.max_bytes // 2:
            with self._lock:
                serial, old = self._find(key, Q, train)  # a narrower list of the same matrices is replaced
                if old is not None:
                    del self._entries[serial]
                    self._bytes -= old.size
                self._entries[next(self._serial)] = _Entry(key, Q, train, idx, sims, size)
                self._bytes += size
                while self._bytes > self.max_bytes:
                    self._bytes -= self._entries.popitem(last=False)[1].size
        return idx, sims


#: The cache :class:`KNNBinaryClassifier` uses (one per process).
NEIGHBOUR_CACHE = NeighbourCache()


def nearest_neighbours(Q: sp.csr_matrix, train: sp.csr_matrix, k: int,
                       cache: NeighbourCache | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The nearest training rows of each unit query row by cosine (a dot product of unit rows).

    Returns ``(indices, similarities)``, each (n_queries, m) with m >= min(k, n_train), sorted
    nearest first; among equal similarities the lower training index is nearer, so the first k
    columns are exactly :func:`nearest_neighbour_mask` of the similarity matrix.  The lists come
    from ``cache`` (``None``: computed, not kept; :class:`KNNBinaryClassifier` passes
    :data:`NEIGHBOUR_CACHE`).

    Examples
    --------
    >>> T = sp.csr_matrix(np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]]))
    >>> idx, sims = nearest_neighbours(sp.csr_matrix(np.array([[0.0, 1.0]])), T, 2)
    >>> idx.tolist(), sims.round(2).tolist()
    ([[2, 1, 0]], [[1.0, 0.8, 0.0]])
    """
    if cache is not None:
        return cache.neighbours(Q, train, k)
    m = min(max(int(k), NEIGHBOURS_KEPT), train.shape[0])
    # a row's neighbours are a function of its stored entries: each distinct row is searched once
    first, inverse = distinct_rows(Q)
    parts = list(_block_neighbours(Q[first], train.T.tocsc(), m))
    if not parts:
        return np.zeros((0, m), dtype=np.int32), np.zeros((0, m))
    return np.vstack([p[1] for p in parts])[inverse], np.vstack([p[2] for p in parts])[inverse]


class KNNBinaryClassifier(NonNegativeInputMixin, BinaryTextClassifier):
    """k-NN with cosine similarity on TF-IDF vectors, one class against the rest (Chakrabarti 2003,
    sec. 5.4, eq. 5.2 with b_c = 0).

    Parameters
    ----------
    k : int, default=10
        Number of nearest training documents (more than the training set: all of them).
    weighting : {"tf", "tfidf", "logtfidf"}, default="tfidf"
        Term weights before the cosine (see the module docstring).
    n_features : int or None, default=None
        Locally selected terms (``None``: every column).
    selection : str, default="ig"

    Attributes
    ----------
    idf_ : ndarray (n_selected,)
        The IDF of the training documents (ones for ``"tf"``).
    train_counts_ : csr_matrix (n_train, n_selected)
        The training documents' term counts on the selected columns (the lazy learner's memory).
    train_labels_ : ndarray of int8 (n_train,)
        1 for the positive training documents.
    train_vectors_ : csr_matrix (n_train, n_selected)
        ``train_counts_`` weighted and scaled to unit length.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]])
    >>> knn = KNNBinaryClassifier(k=2, weighting="tf").fit(X, np.array([1, 1, 0, 0]))
    >>> knn.decision_function(np.array([[1, 0, 0]])).round(4).tolist()  # neighbours: docs 1 and 0
    [1.7071]
    """

    _poor_score_on_generic_data = True  # presence/count model (see the base class)
    #: ``k`` has no upper end: more than the training documents means all of them
    _parameter_constraints = {**BinaryTextClassifier._parameter_constraints,
                              "k": [Bound("k", 1, math.inf)], "weighting": [Choice(WEIGHTINGS)]}

    def __init__(self, *, k=10, weighting="tfidf", n_features=None, selection="ig"):
        self.k = k
        self.weighting = weighting
        self.n_features = n_features
        self.selection = selection

    def _fit_selected(self, X, y):
        self.train_counts_ = as_count_matrix(X)
        self.train_labels_ = np.asarray(y, dtype=np.int8)
        self.build_index()
        return self

    def build_index(self) -> None:
        """IDF and unit training vectors from ``train_counts_`` (also rebuilt by the model loader)."""
        self.idf_ = _idf(self.train_counts_, self.weighting)
        self.train_vectors_ = knn_weight_rows(self.train_counts_, self.idf_, self.weighting)

    def _blocks(self, X):
        """Per block of query rows: (row slice, unit query rows, k-nearest mask over the training
        documents, similarities); ``X`` holds the selected columns."""
        Q = knn_weight_rows(as_count_matrix(X), self.idf_, self.weighting)
        T = self.train_vectors_.T.tocsc()
        step = _block_rows(T.shape[1])
        for start in range(0, Q.shape[0], step):
            rows = slice(start, start + step)
            S = (Q[rows] @ T).toarray()
            yield rows, Q[rows], nearest_neighbour_mask(S, self.k), S

    def _similarity_sums(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Summed similarity of the positive and of the negative documents among each row's k
        nearest training documents, ``(s_pos, s_neg)``; ``X`` holds the selected columns."""
        if self.k > MAX_LISTED_K:
            return self._similarity_sums_streamed(X)
        Q = knn_weight_rows(as_count_matrix(X), self.idf_, self.weighting)
        k = min(int(self.k), self.train_vectors_.shape[0])
        idx, sims = nearest_neighbours(Q, self.train_vectors_, k, cache=NEIGHBOUR_CACHE)
        idx, sims = idx[:, :k], sims[:, :k]
        pos = self.train_labels_.astype(bool)[idx]
        return np.where(pos, sims, 0.0).sum(axis=1), np.where(pos, 0.0, sims).sum(axis=1)

    def _similarity_sums_streamed(self, X) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_similarity_sums` from the neighbour mask of each block, for a k too large to list."""
        pos = self.train_labels_.astype(bool)
        s_pos = np.empty(X.shape[0])
        s_neg = np.empty(X.shape[0])
        for rows, _, near, S in self._blocks(X):
            S_near = np.where(near, S, 0.0)
            s_pos[rows] = S_near[:, pos].sum(axis=1)
            s_neg[rows] = S_near[:, ~pos].sum(axis=1)
        return s_pos, s_neg

    def term_contributions(self, X) -> sp.csr_matrix:
        """Each selected term's share of the decision function, sparse (n_documents, n_selected).

        With the neighbour set fixed, s_pos = sum over the positive neighbours d of q . d, so term
        t contributes q_t * sum_d d_t; the row sums are the decision values.
        """
        pos = self.train_labels_.astype(bool)
        parts = []
        for _, Q, near, _ in self._blocks(self._check_X(X)):
            centroid = sp.csr_matrix(near & pos[None, :], dtype=np.float64) @ self.train_vectors_
            parts.append(sp.csr_matrix(Q.multiply(centroid)))
        return sp.vstack(parts, format="csr") if parts else sp.csr_matrix((0, self.selected_features_.size))

    def neighbour_similarity(self, X) -> tuple[np.ndarray, np.ndarray]:
        """``(s_pos, s_neg)``: per document, the summed cosine of the positive and of the negative
        training documents among its k nearest (``s_pos`` is the decision function)."""
        return self._similarity_sums(self._check_X(X))

    def _log_odds(self, X):
        # Chakrabarti 2003, eq. 5.2 with b_c = 0
        return self._similarity_sums(X)[0]
