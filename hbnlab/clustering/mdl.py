"""MDL word groups: Verbeek's two-part code length along the information-loss agglomeration.

J. Verbeek, *An information theoretic approach to finding word groups for text classification*
(2000).  Words are merged greedily by the merge cost of eq. 4.3 (the drop in I(C; W), see
:mod:`hbnlab.clustering.distributional`) inside a pool of ``pool_size`` candidates (sec. 5.2).
After every merge the two-part code length (eq. 2.2) L(H) + L(D | H) of the current model is
recorded, and the number of groups with the shortest total is chosen (fig. 5.1):

* clustering index (sec. 4.1): ``L*(k) + log2 S(n, k)`` with S the Stirling numbers of the
  second kind (eq. 4.1), computed in log space for thousands of words;
* class distributions (sec. 4.1, "scaling / pruning / histogram / simple encoding"): rows of the
  group-class table scaled to integers summing to ``rho``; the entries a decoder can derive are
  pruned; the histogram of the remaining values over {0..rho} is sent with ``L*`` per bin, the
  values with ``n H(p)`` bits;
* class labels given the texts (sec. 4.2), by either scheme: ``"probabilistic"`` (sum of
  -log2 p(c | d) under the multinomial naive Bayes over groups, sec. 3.2) or ``"exceptions"``
  (``L*(#errors) + log2 binom(m, #errors) + #errors log2(|C| - 1)``).

The marginal P(C) is the same for every model and is left out (sec. 4.1).  All lengths in bits.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, lambertw, logsumexp

from hbnlab._validation import as_count_matrix
from hbnlab.clustering.distributional import (
    Agglomeration,
    agglomerate_words,
    check_class_vector,
    labels_from_merges,
    word_class_counts,
)

_LN2 = np.log(2.0)
LABEL_CODES = ("probabilistic", "exceptions")
# Rissanen's normalising constant of the universal prior for integers, sum_n 2^-log*(n)
RISSANEN_C0 = 2.865064

__all__ = [
    "universal_integer_code_length",
    "log2_stirling2_row",
    "log2_stirling2",
    "log2_stirling2_asymptotic",
    "clustering_code_length",
    "scale_rows",
    "pruned_histogram",
    "model_code_length",
    "naive_bayes_log_joint",
    "label_code_probabilistic",
    "label_code_exceptions",
    "mdl_code_lengths",
    "MDLResult",
    "mdl_word_groups",
]


# ---------------------------------------------------------------------------------- integer codes
def universal_integer_code_length(n) -> np.ndarray:
    """Rissanen's L*(n) = log2 c0 + log2 n + log2 log2 n + ... (positive terms), n >= 1.

    Verbeek sec. 2.2.2 ("Encoding integers") uses a self-delimiting integer code with
    L*(n) <= log n + 2 log log n; Rissanen's universal code is the standard one of that family.
    """
    n = np.asarray(n, dtype=np.float64)
    if np.any(n < 1) or not np.all(np.isfinite(n)):
        raise ValueError(f"L*(n) is defined for integers n >= 1, got min {n.min() if n.size else n}")
    out = np.full(n.shape, np.log2(RISSANEN_C0))
    term = np.log2(n)
    while True:
        pos = term > 0
        if not np.any(pos):
            break
        out = out + np.where(pos, term, 0.0)
        term = np.where(pos, np.log2(np.where(pos, term, 1.0)), 0.0)
    return out if out.ndim else float(out)


# ---------------------------------------------------------------------------------- Stirling numbers
def log2_stirling2_row(n: int) -> np.ndarray:
    """``log2 S(n, k)`` for k = 0..n (Stirling numbers of the second kind; ``-inf`` where S = 0).

    Runs the recurrence S(n, k) = S(n-1, k-1) + k S(n-1, k) (Verbeek eq. 4.1) in log space, one
    vectorized row per n: O(n^2) work, exact to rounding for thousands of words.
    """
    n = int(n)
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    row = np.full(n + 1, -np.inf)
    row[0] = 0.0  # S(0, 0) = 1, natural log
    logk = np.log(np.maximum(np.arange(n + 1, dtype=np.float64), 1.0))  # log k, k >= 1 used
    for m in range(1, n + 1):  # loop over rows of the recurrence
        new = np.full(n + 1, -np.inf)
        # S(m, k) for k = 1..m
        prev_km1 = row[0:m]
        prev_k = row[1 : m + 1]
        new[1 : m + 1] = np.logaddexp(prev_km1, logk[1 : m + 1] + prev_k)
        row = new
    return row / _LN2


def log2_stirling2(n: int, k: int) -> float:
    """``log2 S(n, k)`` for one pair (via :func:`log2_stirling2_row`)."""
    if not 0 <= k <= n:
        return -np.inf
    return float(log2_stirling2_row(n)[k])


def log2_stirling2_asymptotic(n, k) -> np.ndarray:
    """Temme's (1993) uniform asymptotic estimate of ``log2 S(n, k)`` for 1 < k < n.

    S(n, k) ~ sqrt((n-k) / (n (1-G))) ((n-k)/e)^(n-k) binom(n, k) / (G^k (v-G)^(n-k)),
    v = n/k, G = -W0(-v e^-v); relative error about 0.06/n (N. M. Temme, Stud. Appl. Math.
    89:233-243).  ``k == 1`` and ``k == n`` return the exact value 0; evaluated in log space.
    """
    n = np.asarray(n, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    n, k = np.broadcast_arrays(n, k)
    out = np.zeros(n.shape)
    mid = (k > 1) & (k < n)
    if np.any(mid):
        nn, kk = n[mid], k[mid]
        v = nn / kk
        G = -np.real(lambertw(-v * np.exp(-v), 0))
        # for large v, v e^-v underflows: W0(x) = x + O(x^2), so log G = log v - v + O(G)
        logG = np.where(v > 30.0, np.log(v) - v, np.log(np.where(v > 30.0, 1.0, G)))
        lbinom = gammaln(nn + 1) - gammaln(kk + 1) - gammaln(nn - kk + 1)
        val = (
            0.5 * (np.log(nn - kk) - np.log(nn) - np.log1p(-G))
            + (nn - kk) * (np.log(nn - kk) - 1.0)
            + lbinom
            - kk * logG
            - (nn - kk) * np.log(v - G)
        )
        out[mid] = val / _LN2
    bad = (k < 1) | (k > n)
    out[bad] = -np.inf
    return out if out.ndim else float(out)


def clustering_code_length(n_words: int, n_groups) -> np.ndarray:
    """Bits to send which of the S(n, k) clusterings is used: L*(k) + log2 S(n, k) (Verbeek sec. 4.1)."""
    k = np.asarray(n_groups, dtype=np.int64)
    if np.any(k < 1) or np.any(k > n_words):
        raise ValueError(f"n_groups must be in 1..{n_words}, got {k.min()}..{k.max()}")
    row = log2_stirling2_row(int(n_words))
    return universal_integer_code_length(k) + row[k]


# ---------------------------------------------------------------------------------- model code
def scale_rows(counts, rho: int) -> np.ndarray:
    """Scale every row to non-negative integers summing to ``rho`` (Verbeek sec. 4.1, "Scaling").

    The thesis does not say how rows are rounded; we use largest remainders (floor of
    rho * p(c|w), the missing units to the largest fractional parts, ties to the lower class
    index), which keeps each row sum exactly rho.  An all-zero row becomes rho in class 0.
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    rho = int(rho)
    if rho < 1:
        raise ValueError(f"rho must be an integer >= 1, got {rho}")
    tot = counts.sum(axis=1, keepdims=True)
    p = np.divide(counts, tot, out=np.zeros_like(counts), where=tot > 0)
    p[tot[:, 0] <= 0, 0] = 1.0
    x = rho * p
    fl = np.floor(x + 1e-9)  # guard against 0.999999 from rounding
    rem = x - fl
    deficit = (rho - fl.sum(axis=1)).astype(np.int64)
    order = np.argsort(-rem, axis=1, kind="stable")
    rank = np.empty_like(order)
    rows = np.arange(counts.shape[0])[:, None]
    rank[rows, order] = np.arange(counts.shape[1])[None, :]
    out = fl + (rank < deficit[:, None])
    return out.astype(np.int64)


def pruned_histogram(scaled, rho: int) -> np.ndarray:
    """Histogram over {0..rho} of the entries left after pruning (Verbeek sec. 4.1, "Pruning").

    Entries are read left to right; an entry is derivable (and pruned) when the entries before
    it already sum to rho (it must be 0) or when it is the last one of its row (rho minus the
    rest).  Returns the counts per value, length rho + 1.
    """
    scaled = np.atleast_2d(np.asarray(scaled, dtype=np.int64))
    rho = int(rho)
    C = scaled.shape[1]
    before = np.cumsum(scaled, axis=1) - scaled
    keep = before < rho
    keep[:, C - 1] = False
    return np.bincount(scaled[keep], minlength=rho + 1)[: rho + 1]


def _histogram_bits(hist) -> float:
    """L* of every histogram bin (count + 1, bins may be empty) plus n H(p) of the values."""
    hist = np.asarray(hist, dtype=np.float64)
    n = hist.sum()
    bins = float(np.sum(universal_integer_code_length(hist + 1.0)))
    if n <= 0:
        return bins
    nz = hist[hist > 0]
    # n H(p) = n log2 n - sum_v h_v log2 h_v  (Verbeek sec. 4.1, "Simple encoding")
    return bins + float(n * np.log2(n) - np.sum(nz * np.log2(nz)))


def model_code_length(counts, rho: int = 25) -> float:
    """Bits for the group-class distributions: scale to rho, prune, histogram, n H(p) (sec. 4.1).

    The histogram's bins are sent with ``L*(h_v + 1)`` each (the thesis says "the L* encoding
    for the values in the histogram"; L* needs integers >= 1 and a bin may be empty, so the
    count is shifted by one).  rho and the number of classes are agreed beforehand.
    """
    return _histogram_bits(pruned_histogram(scale_rows(counts, rho), rho))


# ---------------------------------------------------------------------------------- label codes
def naive_bayes_log_joint(X, counts, prior, alpha: float = 1.0) -> np.ndarray:
    """log p(c) + sum_g x_dg log p(g | c) (natural log), multinomial NB over groups (sec. 3.2).

    ``p(g | c) = (n_gc + alpha) / (n_c + alpha K)`` (Laplace smoothing for alpha = 1).
    """
    counts = np.asarray(counts, dtype=np.float64)
    K = counts.shape[0]
    logp = np.log(counts + alpha) - np.log(counts.sum(axis=0) + alpha * K)[None, :]
    with np.errstate(divide="ignore"):
        logprior = np.log(np.asarray(prior, dtype=np.float64))
    return np.asarray(X @ logp) + logprior[None, :]


def label_code_probabilistic(log_joint, y) -> float:
    """sum_d -log2 p(c_d | d), computed stably from log p(c) p(d | c) (Verbeek sec. 4.2 steps 1-4)."""
    log_joint = np.asarray(log_joint, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    lse = logsumexp(log_joint, axis=1)
    return float(np.sum(lse - log_joint[np.arange(y.size), y]) / _LN2)


def _exceptions_bits(n_errors, m: int, n_classes: int) -> np.ndarray:
    e = np.asarray(n_errors, dtype=np.float64)
    lbinom = (gammaln(m + 1.0) - gammaln(e + 1.0) - gammaln(m - e + 1.0)) / _LN2
    extra = e * np.log2(n_classes - 1) if n_classes > 1 else 0.0 * e
    # L*(e + 1): the count of exceptions may be 0 and L* needs n >= 1
    return universal_integer_code_length(e + 1.0) + lbinom + extra


def label_code_exceptions(log_joint, y) -> float:
    """L*(m eps) + log2 binom(m, m eps) + m eps log2(|C| - 1) bits (Verbeek sec. 4.2).

    The thesis approximates log2 binom(m, m eps) by m H(eps); we use the exact enumerative code
    length (the approximation is what the "transformed model" variant of the same section
    gives).  The number of exceptions is sent as ``L*(m eps + 1)`` so that zero errors is
    codable.  Predictions are the arg max (ties to the lower class index).
    """
    log_joint = np.asarray(log_joint, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    errors = int(np.sum(np.argmax(log_joint, axis=1) != y))
    return float(_exceptions_bits(errors, y.size, log_joint.shape[1]))


def mdl_code_lengths(X, y, labels, *, rho: int = 25, alpha: float = 1.0, n_classes: int | None = None) -> dict:
    """Every part of the two-part code length of one word grouping, computed from scratch.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_documents, n_terms)
        Term counts of the training documents.
    y : array-like of int, class indices 0..n_classes-1
    labels : array-like of shape (n_terms,), int
        Group of every term (0..K-1); ``-1`` excludes a term.  Every group must be non-empty.

    Returns
    -------
    dict with ``n_groups``, ``clustering``, ``model``, ``labels_probabilistic``,
    ``labels_exceptions``, ``total_probabilistic``, ``total_exceptions`` (bits) and ``errors``.
    """
    X = as_count_matrix(X)
    y = np.asarray(y, dtype=np.int64)
    labels = np.asarray(labels, dtype=np.int64)
    if labels.shape != (X.shape[1],):
        raise ValueError(f"labels must have one entry per term ({X.shape[1]}), got shape {labels.shape}")
    C = int(y.max()) + 1 if n_classes is None else int(n_classes)
    used = np.flatnonzero(labels >= 0)
    K = int(labels[used].max()) + 1
    if np.unique(labels[used]).size != K:
        raise ValueError("group labels must be 0..K-1 with no empty group")
    A = sp.csr_matrix((np.ones(used.size), (used, labels[used])), shape=(X.shape[1], K))
    G = X @ A  # document-group counts
    counts = word_class_counts(G, y, C)
    prior = np.bincount(y, minlength=C) / y.size
    L = naive_bayes_log_joint(G, counts, prior, alpha)
    cl = float(clustering_code_length(used.size, K))
    mo = model_code_length(counts, rho)
    lp = label_code_probabilistic(L, y)
    le = label_code_exceptions(L, y)
    return {
        "n_groups": K,
        "clustering": cl,
        "model": mo,
        "labels_probabilistic": lp,
        "labels_exceptions": le,
        "total_probabilistic": cl + mo + lp,
        "total_exceptions": cl + mo + le,
        "errors": int(np.sum(np.argmax(L, axis=1) != y)),
    }


# ---------------------------------------------------------------------------------- the search
@dataclass(frozen=True)
class MDLResult:
    """Outcome of :func:`mdl_word_groups`.

    Curves are indexed by position ``i`` with ``n_groups[i] = n_words - i`` groups, i.e. before
    merge ``i`` (position 0: every word alone; last: one group).

    Attributes
    ----------
    terms : ndarray of int
        Columns of the input matrix that were clustered (the ones occurring in the sample).
    agglomeration : Agglomeration
        Merge sequence (ids into ``terms``), merge costs (bits of I(C; W)), pool order.
    n_groups : ndarray of int
    clustering_bits, model_bits, label_bits_probabilistic, label_bits_exceptions : ndarray
    train_errors : ndarray of int
        Training documents misclassified by the naive Bayes over the groups.
    eval_accuracy : ndarray or None
        Accuracy on ``eval_set`` along the same sequence (figure 6.1), if one was given.
    label_code : str
        The scheme that chose ``chosen_n_groups``.
    chosen_n_groups : int
    groups : ndarray of shape (n_input_terms,), int
        Group of every input column for the chosen model (``-1`` for unused columns).
    """

    terms: np.ndarray
    agglomeration: Agglomeration
    n_groups: np.ndarray
    clustering_bits: np.ndarray
    model_bits: np.ndarray
    label_bits_probabilistic: np.ndarray
    label_bits_exceptions: np.ndarray
    train_errors: np.ndarray
    label_code: str
    chosen_n_groups: int
    groups: np.ndarray
    n_input_terms: int
    rho: int
    eval_accuracy: np.ndarray | None = None
    classes: np.ndarray = field(default_factory=lambda: np.array([]))

    @property
    def total_bits_probabilistic(self) -> np.ndarray:
        return self.clustering_bits + self.model_bits + self.label_bits_probabilistic

    @property
    def total_bits_exceptions(self) -> np.ndarray:
        return self.clustering_bits + self.model_bits + self.label_bits_exceptions

    def total_bits(self, label_code: str | None = None) -> np.ndarray:
        code = self.label_code if label_code is None else label_code
        if code not in LABEL_CODES:
            raise ValueError(f"label_code must be one of {LABEL_CODES}, got {code!r}")
        return self.total_bits_probabilistic if code == "probabilistic" else self.total_bits_exceptions

    def best_n_groups(self, label_code: str | None = None) -> int:
        """Number of groups with the shortest total code (ties: fewer groups)."""
        tot = self.total_bits(label_code)
        m = tot.min()
        return int(self.n_groups[np.flatnonzero(tot <= m + 1e-9)].min())

    def labels_at(self, n_groups: int) -> np.ndarray:
        """Group of every input column with ``n_groups`` groups (``-1`` for unused columns)."""
        out = np.full(self.n_input_terms, -1, dtype=np.int64)
        out[self.terms] = labels_from_merges(self.agglomeration.merges, self.terms.size, n_groups)
        return out

    def to_frame(self):
        """The curves as a pandas DataFrame, one row per number of groups."""
        import pandas as pd

        df = pd.DataFrame(
            {
                "n_groups": self.n_groups,
                "clustering_bits": self.clustering_bits,
                "model_bits": self.model_bits,
                "label_bits_probabilistic": self.label_bits_probabilistic,
                "label_bits_exceptions": self.label_bits_exceptions,
                "total_bits_probabilistic": self.total_bits_probabilistic,
                "total_bits_exceptions": self.total_bits_exceptions,
                "train_errors": self.train_errors,
                "information_bits": self.agglomeration.information_curve(),
            }
        )
        if self.eval_accuracy is not None:
            df["eval_accuracy"] = self.eval_accuracy
        return df


class _GroupDocs:
    """Document columns of groups, stored sparse by cluster id: (doc indices, counts)."""

    def __init__(self, X: sp.csc_matrix):
        self.cols: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for w in range(X.shape[1]):  # loop over words once, to split CSC storage
            s, e = X.indptr[w], X.indptr[w + 1]
            self.cols[w] = (X.indices[s:e], X.data[s:e])

    def pop_merge(self, a: int, b: int, new: int):
        ia, va = self.cols.pop(a)
        ib, vb = self.cols.pop(b)
        idx = np.concatenate([ia, ib])
        val = np.concatenate([va, vb])
        u, inv = np.unique(idx, return_inverse=True)
        self.cols[new] = (u, np.bincount(inv, weights=val, minlength=u.size))
        return (ia, va), (ib, vb)


def _code_length_curves(Xtr, ytr, C, agg: Agglomeration, rho, alpha, eval_set=None):
    """Incremental code lengths along a merge sequence (every quantity updated per merge)."""
    n = agg.n_words
    counts0 = word_class_counts(Xtr, ytr, C)
    m = ytr.size
    prior = np.bincount(ytr, minlength=C) / m
    logprior = np.log(np.where(prior > 0, prior, 1e-300))
    class_tot = counts0.sum(axis=0)
    doc_len = np.asarray(Xtr.sum(axis=1)).ravel()

    # cluster state by id
    rows: dict[int, np.ndarray] = {w: counts0[w] for w in range(n)}
    logrow0 = np.log(counts0 + alpha)
    logrows: dict[int, np.ndarray] = {w: logrow0[w] for w in range(n)}
    scaled0 = scale_rows(counts0, rho)
    hists0 = _row_histograms(scaled0, rho)
    hists: dict[int, np.ndarray] = {w: hists0[w] for w in range(n)}
    hist = hists0.sum(axis=0)

    A = np.asarray(Xtr @ logrow0)  # sum_g x_dg log(n_gc + alpha)
    tr_docs = _GroupDocs(sp.csc_matrix(Xtr))
    if eval_set is not None:
        Xev, yev = eval_set
        Aev = np.asarray(Xev @ logrow0)
        ev_len = np.asarray(Xev.sum(axis=1)).ravel()
        ev_docs = _GroupDocs(sp.csc_matrix(Xev))
        acc = np.empty(n)

    stir = log2_stirling2_row(n)
    ks = np.arange(n, 0, -1)
    clustering = universal_integer_code_length(ks) + stir[ks]
    model = np.empty(n)
    lab_p = np.empty(n)
    errs = np.empty(n, dtype=np.int64)
    idx_y = np.arange(m)

    for i in range(n):  # loop over merge steps (n_groups = n - i)
        K = n - i
        denom = np.log(class_tot + alpha * K)
        L = A - doc_len[:, None] * denom[None, :] + logprior[None, :]
        arg = np.argmax(L, axis=1)
        mx = L[idx_y, arg]
        lse = mx + np.log(np.exp(L - mx[:, None]).sum(axis=1))
        lab_p[i] = np.sum(lse - L[idx_y, ytr]) / _LN2
        errs[i] = np.count_nonzero(arg != ytr)
        model[i] = _histogram_bits(hist)
        if eval_set is not None:
            Lev = Aev - ev_len[:, None] * denom[None, :] + logprior[None, :]
            acc[i] = np.mean(np.argmax(Lev, axis=1) == yev)
        if i == n - 1:
            break
        a, b = (int(v) for v in agg.merges[i])
        new = n + i
        ra, rb = rows.pop(a), rows.pop(b)
        r = ra + rb
        rows[new] = r
        la, lb = logrows.pop(a), logrows.pop(b)
        lr = np.log(r + alpha)
        logrows[new] = lr
        h = _row_histograms(scale_rows(r[None, :], rho), rho)[0]
        hist = hist - hists.pop(a) - hists.pop(b) + h
        hists[new] = h
        (ia, va), (ib, vb) = tr_docs.pop_merge(a, b, new)
        A[ia] += va[:, None] * (lr - la)[None, :]
        A[ib] += vb[:, None] * (lr - lb)[None, :]
        if eval_set is not None:
            (ia, va), (ib, vb) = ev_docs.pop_merge(a, b, new)
            Aev[ia] += va[:, None] * (lr - la)[None, :]
            Aev[ib] += vb[:, None] * (lr - lb)[None, :]
    lab_e = _exceptions_bits(errs, m, C)
    return ks, clustering, model, lab_p, lab_e, errs, (acc if eval_set is not None else None)


def _row_histograms(scaled, rho):
    """Per-row histogram (n_rows, rho+1) of the pruned entries (see :func:`pruned_histogram`)."""
    scaled = np.atleast_2d(scaled)
    nrow, C = scaled.shape
    before = np.cumsum(scaled, axis=1) - scaled
    keep = before < rho
    keep[:, C - 1] = False
    r_idx = np.broadcast_to(np.arange(nrow)[:, None], scaled.shape)
    out = np.zeros((nrow, rho + 1), dtype=np.int64)
    np.add.at(out, (r_idx[keep], scaled[keep]), 1)
    return out


def mdl_word_groups(
    X,
    y,
    *,
    pool_size: int | None = 100,
    label_code: str = "exceptions",
    rho: int = 25,
    alpha: float = 1.0,
    eval_set=None,
) -> MDLResult:
    """Agglomerate words by the eq. 4.3 merge cost and choose the number of groups by two-part MDL.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_documents, n_terms)
        Term counts of the training documents (Verbeek uses the 1000 terms with the highest
        mutual information with the labels).  Terms absent from ``X`` are not clustered.
    y : array-like of shape (n_documents,)
        Class labels (single-label, any hashable values; mapped to ``0..|C|-1`` by sorting).
    pool_size : int or None, default 100
        Candidate pool of Verbeek sec. 5.2; ``None`` considers all pairs.
    label_code : {"exceptions", "probabilistic"}, default "exceptions"
        Which label code chooses the number of groups (the thesis finds "exceptions" better,
        sec. 6.3); both curves are always returned.
    rho : int, default 25
        Precision of the scaled rows (Verbeek sec. 4.1 finds 25 close to optimal).
    alpha : float, default 1.0
        Laplace smoothing of the naive Bayes over groups (sec. 3.2).
    eval_set : (X_eval, y_eval), optional
        Held-out documents; their accuracy is tracked along the merge sequence (fig. 6.1).

    Returns
    -------
    MDLResult

    References
    ----------
    J. Verbeek, An information theoretic approach to finding word groups for text
    classification, MSc thesis, University of Amsterdam, 2000 (ch. 4-5).
    """
    if label_code not in LABEL_CODES:
        raise ValueError(f"label_code must be one of {LABEL_CODES}, got {label_code!r}")
    if int(rho) < 1:
        raise ValueError(f"rho must be an integer >= 1, got {rho}")
    if not alpha > 0:
        raise ValueError(f"alpha must be > 0, got {alpha}")
    X = as_count_matrix(X)
    classes, codes = check_class_vector(y, X.shape[0])
    C = classes.size
    if C < 2:
        raise ValueError(f"y has only {C} class; at least 2 are needed")
    counts = word_class_counts(X, codes, C)
    terms = np.flatnonzero(counts.sum(axis=1) > 0)
    if terms.size == 0:
        raise ValueError("X has no term occurrences")
    Xtr = X[:, terms]
    agg = agglomerate_words(counts[terms], pool_size=pool_size)
    ev = None
    if eval_set is not None:
        Xe, ye = eval_set
        Xe = as_count_matrix(Xe)
        if Xe.shape[1] != X.shape[1]:
            raise ValueError(f"eval_set X has {Xe.shape[1]} columns, expected {X.shape[1]}")
        ye = np.asarray(ye)
        pos = np.searchsorted(classes, ye)
        pos = np.clip(pos, 0, C - 1)
        ye_codes = np.where(classes[pos] == ye, pos, -1)  # unseen classes are always errors
        ev = (Xe[:, terms], ye_codes)
    ks, cl, mo, lp, le, errs, acc = _code_length_curves(Xtr, codes, C, agg, int(rho), float(alpha), ev)
    res = MDLResult(
        terms=terms,
        agglomeration=agg,
        n_groups=ks,
        clustering_bits=cl,
        model_bits=mo,
        label_bits_probabilistic=lp,
        label_bits_exceptions=le,
        train_errors=errs,
        label_code=label_code,
        chosen_n_groups=0,
        groups=np.empty(0, dtype=np.int64),
        n_input_terms=X.shape[1],
        rho=int(rho),
        eval_accuracy=acc,
        classes=classes,
    )
    k = res.best_n_groups()
    object.__setattr__(res, "chosen_n_groups", k)
    object.__setattr__(res, "groups", res.labels_at(k))
    return res
