"""Term-goodness scores for feature selection, every term against every category at once.

All scores come from the 2x2 contingency table of a binary feature (term present in the
document) and a binary class (document in category ``c_j`` or not), in the notation of Yang and
Pedersen (1997), "A comparative study on feature selection in text categorization", ICML:

=========  ===============  ===================
           in c_j           not in c_j
=========  ===============  ===================
term       A                B
no term    C                D
=========  ===============  ===================

``N = A + B + C + D`` documents.  One sparse product ``X_bin^T Y`` gives ``A`` for all terms x
categories; document frequencies ``A + B`` and class sizes ``A + C`` give the rest.  (Chakrabarti,
*Mining the Web*, ch. 5, sec. 5.5.1, writes the same table as ``k_{lm}`` with ``l`` the class and
``m`` the indicator: ``k11 = A, k01 = B, k10 = C, k00 = D``.)

Conventions for degenerate tables are stated per method; no method ever returns NaN.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from hbnlab._validation import as_binary

SCORE_METHODS = ("ig", "chi2", "mi", "df", "fisher")


def _label_matrix(Y, n_docs: int) -> np.ndarray:
    Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y)
    if Y.ndim == 1:
        Y = Y.reshape(-1, 1)
    if Y.ndim != 2:
        raise ValueError(f"Y must be a bool vector or matrix (n_documents, n_categories), got shape {Y.shape}")
    if Y.shape[0] != n_docs:
        raise ValueError(f"X has {n_docs} rows but Y has {Y.shape[0]}")
    values = np.unique(Y)
    if not set(values.tolist()) <= {0, 1}:
        raise ValueError(f"Y must hold 0/1 (bool) labels, got values {values[:5].tolist()}")
    return Y.astype(bool)


def contingency_counts(X, Y):
    """The 2x2 tables of every term against every category.

    Parameters
    ----------
    X : {sparse matrix, array-like} of shape (n_documents, n_terms)
        Term counts or indicators; binarized (present = positive; negative entries raise).
    Y : array-like of bool, shape (n_documents, n_categories) or (n_documents,)

    Returns
    -------
    A, B, C, D : ndarray of float64, shape (n_terms, n_categories)
        A = term and class, B = term and not class, C = class without term, D = neither.
    """
    Xb = as_binary(X)
    Yb = _label_matrix(Y, Xb.shape[0])
    n = Xb.shape[0]
    A = np.asarray(Xb.T @ Yb.astype(np.float64))  # (n_terms, n_categories)
    df = np.asarray(Xb.sum(axis=0), dtype=np.float64).ravel()[:, None]
    nc = Yb.sum(axis=0, dtype=np.float64)[None, :]
    B = df - A
    C = nc - A
    D = n - A - B - C
    return A, B, C, D


def _safe_div(num, den):
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _ig_from_counts(A, B, C, D) -> np.ndarray:
    # thesis sec. 1.3: IG(F) = E(C) - E(C|F), the mutual information of the binary feature and the
    # binary class (Yang & Pedersen's IG restricted to {c_j, not c_j}); Chakrabarti eq. 5.7.
    # Sum over the four cells of (k/N) log2(k N / (row * col)), a cell with k = 0 contributes 0.
    n = A + B + C + D
    t1 = A + B  # term present
    t0 = C + D
    c1 = A + C  # in class
    c0 = B + D
    ig = np.zeros_like(A)
    for k, r, c in ((A, t1, c1), (B, t1, c0), (C, t0, c1), (D, t0, c0)):
        pos = k > 0
        ig[pos] += k[pos] * np.log2(k[pos] * n[pos] / (r[pos] * c[pos]))
    ig = _safe_div(ig, n)
    return np.maximum(ig, 0.0)  # exact value is >= 0; clip rounding noise


def _chi2_from_counts(A, B, C, D) -> np.ndarray:
    # Chakrabarti eq. 5.3 (k11 = A, k10 = C, k01 = B, k00 = D); Yang & Pedersen's chi^2(t, c):
    # N (AD - CB)^2 / ((A+C)(B+D)(A+B)(C+D)).  A zero margin (term in every or no document,
    # class empty or everything) makes the table degenerate: score 0.
    n = A + B + C + D
    num = n * (A * D - C * B) ** 2
    den = (A + C) * (B + D) * (A + B) * (C + D)
    return _safe_div(num, den)


def _mi_from_counts(A, B, C, D) -> np.ndarray:
    # Yang & Pedersen's (pointwise) mutual information I(t, c) = log P(t ^ c) / (P(t) P(c))
    # estimated as log2(A N / ((A + C)(A + B))), in bits.  Where A = 0 (term never occurs in the
    # class, including terms or classes never seen) the estimate is log 0 = -inf.
    n = A + B + C + D
    out = np.full(A.shape, -np.inf)
    pos = A > 0
    out[pos] = np.log2(A[pos] * n[pos] / ((A[pos] + C[pos]) * (A[pos] + B[pos])))
    return out


def _fisher_from_counts(A, B, C, D) -> np.ndarray:
    # Chakrabarti eq. 5.10 for two classes and binary features x_t in {0, 1}: with
    # mu1 = A / (A + C) (fraction of class documents containing t), mu0 = B / (B + D), and the
    # per-class variances (1/|X|) sum (x - mu)^2 = mu (1 - mu):
    #   FI(t) = (mu1 - mu0)^2 / (mu1 (1 - mu1) + mu0 (1 - mu0)).
    # Zero denominator: 0 if mu1 == mu0, +inf if the term separates the classes perfectly.
    # An empty class (A + C = 0 or B + D = 0) has no mean: score 0.
    n1 = A + C
    n0 = B + D
    mu1 = _safe_div(A, n1)
    mu0 = _safe_div(B, n0)
    num = (mu1 - mu0) ** 2
    den = mu1 * (1 - mu1) + mu0 * (1 - mu0)
    out = _safe_div(num, den)
    out[(den == 0) & (num > 0)] = np.inf
    out[(n1 == 0) | (n0 == 0)] = 0.0
    return out


def information_gain(X, Y) -> np.ndarray:
    """Information gain IG(F; C_j) in bits for every term x category (thesis sec. 1.3).

    ``IG = H(C) - H(C | F)`` with ``C`` the binary class ``c_j`` vs rest and ``F`` the binary
    term-presence feature; equal to their mutual information (Chakrabarti eq. 5.7).
    """
    return _ig_from_counts(*contingency_counts(X, Y))


def chi_square(X, Y) -> np.ndarray:
    """Pearson's chi-square statistic of each 2x2 term/category table, no continuity
    correction (Chakrabarti eq. 5.3).  Degenerate tables (a zero margin) score 0."""
    return _chi2_from_counts(*contingency_counts(X, Y))


def pointwise_mutual_information(X, Y) -> np.ndarray:
    """Yang and Pedersen's MI criterion ``log2 P(t, c) / (P(t) P(c))`` in bits (pointwise, not
    the expected MI; that is :func:`information_gain`).  ``-inf`` where the term never occurs in
    the category."""
    return _mi_from_counts(*contingency_counts(X, Y))


def document_frequency(X, Y) -> np.ndarray:
    """Number of documents containing each term, repeated for every category (a column per
    category so that every method has the same shape)."""
    A, B, _, _ = contingency_counts(X, Y)
    return A + B


def fisher_index(X, Y) -> np.ndarray:
    """Fisher's discrimination index of each binary term feature for category vs rest
    (Chakrabarti eq. 5.10).  ``+inf`` for a perfectly separating term."""
    return _fisher_from_counts(*contingency_counts(X, Y))


def fisher_index_multiclass(X, M) -> np.ndarray:
    """Fisher's discrimination index of each binary term feature among several classes
    (Chakrabarti eq. 5.11), e.g. the children of one node of a topic hierarchy (sec. 5.7.1).

    With ``mu[t, c]`` the fraction of the documents of class ``c`` that contain term ``t``,

        FI(t) = sum_{c1 < c2} (mu[t, c1] - mu[t, c2])^2 / sum_c mu[t, c] (1 - mu[t, c]),

    the within-class variance of a 0/1 feature being ``mu (1 - mu)``.  Eq. 5.11 sums the numerator
    over pairs of classes; we take each unordered pair once, so that two classes give exactly
    eq. 5.10 (:func:`fisher_index`).  Classes without documents are left out; a zero denominator
    gives 0 (no difference) or ``+inf`` (the term separates the classes perfectly); fewer than two
    classes give 0 for every term.

    Parameters
    ----------
    X : {sparse matrix, array-like} of shape (n_documents, n_terms)
        Counts or indicators, binarized.
    M : array-like of bool, shape (n_documents, n_classes)
        Class membership (a document may belong to several classes, as eq. 5.11's D_c allow).

    Returns
    -------
    ndarray of float64, shape (n_terms,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 0], [0, 1], [0, 0], [0, 1], [0, 1]])
    >>> M = np.eye(3, dtype=bool).repeat(2, axis=0)
    >>> fisher_index_multiclass(X, M).round(4).tolist()
    [inf, 6.0]
    """
    Xb = as_binary(X)
    Mb = _label_matrix(M, Xb.shape[0])
    n_c = Mb.sum(axis=0).astype(np.float64)
    keep = n_c > 0
    if keep.sum() < 2:
        return np.zeros(Xb.shape[1])
    mu = np.asarray(Xb.T @ Mb[:, keep].astype(np.float64)) / n_c[keep][None, :]
    k = mu.shape[1]
    num = k * (mu**2).sum(axis=1) - mu.sum(axis=1) ** 2   # sum over unordered pairs of squared gaps
    num = np.maximum(num, 0.0)                              # exact value is >= 0; clip rounding noise
    den = (mu * (1.0 - mu)).sum(axis=1)
    out = _safe_div(num, den)
    out[(den == 0) & (num > 1e-15)] = np.inf
    return out


_KERNELS = {
    "ig": _ig_from_counts,
    "chi2": _chi2_from_counts,
    "mi": _mi_from_counts,
    "df": lambda A, B, C, D: A + B,
    "fisher": _fisher_from_counts,
}


def score_terms(X, Y, method: str = "ig") -> np.ndarray:
    """Score every term for every category; higher is better.

    Parameters
    ----------
    X : {sparse matrix, array-like} of shape (n_documents, n_terms)
        Term matrix of counts or 0/1 indicators; binarized internally (a term is present where
        the entry is positive; negative or non-finite entries raise ``ValueError``).
    Y : array-like of bool, shape (n_documents, n_categories) or (n_documents,)
        Category membership; a vector is one category.
    method : {"ig", "chi2", "mi", "df", "fisher"}, default "ig"
        * ``"ig"`` -- information gain in bits, ``H(C) - H(C | F)`` (thesis sec. 1.3, Yang &
          Pedersen 1997);
        * ``"chi2"`` -- chi-square statistic of the 2x2 table (Chakrabarti eq. 5.3);
        * ``"mi"`` -- pointwise mutual information ``log2(A N / ((A + C)(A + B)))`` (Yang &
          Pedersen 1997), ``-inf`` where ``A = 0``;
        * ``"df"`` -- document frequency (the same in every column);
        * ``"fisher"`` -- Fisher's discrimination index for binary features and two classes
          (Chakrabarti eq. 5.10), ``+inf`` for perfect separation.

    Returns
    -------
    ndarray of float64, shape (n_terms, n_categories)

    References
    ----------
    Y. Yang and J. O. Pedersen, "A comparative study on feature selection in text
    categorization", ICML 1997.  S. Chakrabarti, *Mining the Web*, ch. 5, sec. 5.5.1.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    >>> y = np.array([True, True, False, False])
    >>> score_terms(X, y, "ig")[:, 0]  # term 0 determines the class: 1 bit
    array([1., 0.])
    >>> score_terms(X, y, "chi2")[:, 0]
    array([4., 0.])
    """
    kernel = _KERNELS.get(method)
    if kernel is None:
        raise ValueError(f"method must be one of {SCORE_METHODS}, got {method!r}")
    return kernel(*contingency_counts(X, Y))
