"""Markov-blanket truncation: Koller and Sahami's backward feature elimination (Chakrabarti,
*Mining the Web*, ch. 5, sec. 5.5.2).

Start from every term and repeatedly drop the term that is best "covered" by a small set of
other terms (Chakrabarti fig. 5.6):

1. for every remaining term X, take as candidate Markov blanket M the ``n_blanket`` remaining
   terms most strongly correlated with X;
2. score how much X adds to M about the class,

       delta(X | M) = sum_{x_M, x} P(M = x_M, X = x) KL( P(C | M = x_M, X = x) || P(C | M = x_M) );

3. eliminate the term with the smallest delta (the best surviving blanket) and repeat until
   ``k`` terms are left.

Line 6 of fig. 5.6 prints the KL argument as a fraction "P(C | X_M, X) / P(C | X_M)"; the
intended expression (Koller and Sahami 1996, eq. 3) is the KL divergence *between* the two
conditional distributions, which is what is computed.  "Most strongly correlated" is the absolute
Pearson correlation of the binary indicators (the chapter allows chi-square- or MI-like tests;
Koller and Sahami use correlation).  Probabilities are maximum-likelihood estimates from the
training counts; terms are binary (present iff the entry is > 0; negative entries raise).

Cost: one dense n_terms x n_terms correlation matrix (so apply it after a cheap filter to a few
thousand terms, as Koller and Sahami did), and after each elimination only the terms whose
blanket contained the eliminated one are re-scored.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from hbnlab._validation import as_binary

__all__ = ["markov_blanket_select", "binary_correlation", "blanket_delta"]

#: delta values this close to the minimum count as ties (broken by the lower column index)
TIE_TOL = 1e-12


def binary_correlation(Xb: sp.csr_matrix) -> np.ndarray:
    """Pearson correlation between the binary columns of ``Xb``, (n_terms, n_terms).

    ``(n n11 - a b) / sqrt(a (n - a) b (n - b))`` with a, b the column counts and n11 the
    co-occurrence count; 0 where a column is constant.
    """
    n = float(Xb.shape[0])
    a = np.asarray(Xb.sum(axis=0), dtype=np.float64).ravel()
    n11 = np.asarray((Xb.T @ Xb).toarray(), dtype=np.float64)
    num = n * n11 - a[:, None] * a[None, :]
    var = a * (n - a)
    den = np.sqrt(var[:, None] * var[None, :])
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def blanket_delta(Xd: np.ndarray, classes: np.ndarray, n_classes: int, features: np.ndarray,
                  blankets: np.ndarray) -> np.ndarray:
    """delta(X | M) of Koller and Sahami for a batch of features (Chakrabarti fig. 5.6 line 6).

    Parameters
    ----------
    Xd : ndarray of bool/int, (n_documents, n_terms + 1)
        Binary indicators; the last column is all zeros (an empty blanket slot points there).
    classes : ndarray of int, (n_documents,)
        Class index of every document, in [0, n_classes).
    features : ndarray of int, (b,)
    blankets : ndarray of int, (b, n_blanket)

    Returns
    -------
    ndarray (b,)
        (1/n) sum_{m,x,c} N(m,x,c) log[N(m,x,c) N(m) / (N(m,x) N(m,c))].
    """
    n = Xd.shape[0]
    b = features.size
    nb = blankets.shape[1]
    n_cfg = 1 << (nb + 1)
    code = Xd[:, features].astype(np.int64)  # bit 0: the feature itself
    for s in range(nb):
        code += Xd[:, blankets[:, s]].astype(np.int64) << (s + 1)
    idx = (np.arange(b)[None, :] * n_cfg + code) * n_classes + classes[:, None]
    N = np.bincount(idx.ravel(), minlength=b * n_cfg * n_classes).reshape(b, n_cfg // 2, 2, n_classes)
    N = N.astype(np.float64)  # [feature, blanket config m, x, c]
    N_mx = N.sum(axis=3, keepdims=True)
    N_mc = N.sum(axis=2, keepdims=True)
    N_m = N_mc.sum(axis=3, keepdims=True)
    pos = N > 0
    ratio = np.ones_like(N)
    full = np.broadcast_to(N_m, N.shape) * 1.0
    ratio[pos] = (N[pos] * full[pos]) / (np.broadcast_to(N_mx, N.shape)[pos] * np.broadcast_to(N_mc, N.shape)[pos])
    terms = np.where(pos, N * np.log(ratio), 0.0)
    return terms.reshape(b, -1).sum(axis=1) / n


def _top_alive(corr_rows: np.ndarray, n_blanket: int, zero_col: int) -> np.ndarray:
    """The n_blanket columns with the highest value per row (ties: lowest index); -inf = none."""
    work = corr_rows.copy()
    r = np.arange(work.shape[0])
    out = np.full((work.shape[0], n_blanket), zero_col, dtype=np.int64)
    for s in range(n_blanket):
        best = np.argmax(work, axis=1)
        ok = np.isfinite(work[r, best])
        out[ok, s] = best[ok]
        work[r, best] = -np.inf
    return out


def markov_blanket_select(X, y, k: int, n_blanket: int = 2, *, block_size: int = 256,
                          return_order: bool = False):
    """Keep ``k`` terms by Koller-Sahami Markov-blanket elimination (Chakrabarti fig. 5.6).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_documents, n_terms)
        Term counts or indicators (a term is present iff its entry is > 0; negative or
        non-finite entries raise ``ValueError``).
    y : array-like of shape (n_documents,)
        Class labels (any discrete values; binary for one category against the rest).
    k : int
        Number of terms to keep, 1 <= k <= n_terms.
    n_blanket : int, default=2
        Size of each candidate Markov blanket (Koller and Sahami's K).
    block_size : int, default=256
        Features scored per vectorized batch in the first pass (memory n_documents x block_size).
    return_order : bool, default=False
        Also return the eliminated columns in elimination order.

    Returns
    -------
    selected : ndarray of int
        The ``k`` kept column indices, increasing.
    eliminated : ndarray of int
        Only with ``return_order``: the other columns, first eliminated first.

    References
    ----------
    D. Koller and M. Sahami, "Toward optimal feature selection", ICML 1996; S. Chakrabarti,
    *Mining the Web*, ch. 5, sec. 5.5.2.

    Examples
    --------
    Column 1 duplicates column 0, so each is a perfect blanket of the other (delta = 0) and the
    lower-indexed copy goes first; the survivors carry different information:

    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1], [0, 0, 0], [1, 1, 0], [0, 0, 1]])
    >>> y = [1, 0, 0, 0, 1, 1]
    >>> markov_blanket_select(X, y, k=2, n_blanket=1).tolist()
    [1, 2]
    """
    Xb = as_binary(X)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != Xb.shape[0]:
        raise ValueError(f"y must be a 1-D label vector with {Xb.shape[0]} entries, got shape {y.shape}")
    m = Xb.shape[1]
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= m:
        raise ValueError(f"k must be an integer in [1, {m}] (the number of terms to keep), got {k!r}")
    if isinstance(n_blanket, bool) or not isinstance(n_blanket, (int, np.integer)) or n_blanket < 1:
        raise ValueError(f"n_blanket must be an integer >= 1, got {n_blanket!r}")
    _, classes = np.unique(y, return_inverse=True)
    n_classes = int(classes.max()) + 1
    corr = np.abs(binary_correlation(Xb))
    np.fill_diagonal(corr, -np.inf)
    Xd = np.zeros((Xb.shape[0], m + 1), dtype=np.int8)  # last column: the empty slot
    Xd[:, :m] = Xb.toarray()
    blankets = np.empty((m, n_blanket), dtype=np.int64)
    delta = np.empty(m)
    for start in range(0, m, max(1, int(block_size))):
        f = np.arange(start, min(m, start + block_size))
        blankets[f] = _top_alive(corr[f], n_blanket, m)
        delta[f] = blanket_delta(Xd, classes, n_classes, f, blankets[f])
    alive = np.ones(m, dtype=bool)
    eliminated = []
    while alive.sum() > k:  # one elimination per step
        d = np.where(alive, delta, np.inf)
        low = d.min()
        r = int(np.flatnonzero(d <= low + TIE_TOL * (1.0 + abs(low)))[0])
        alive[r] = False
        eliminated.append(r)
        corr[:, r] = -np.inf
        hit = np.flatnonzero(alive & (blankets == r).any(axis=1))
        if hit.size:
            blankets[hit] = _top_alive(corr[hit], n_blanket, m)
            delta[hit] = blanket_delta(Xd, classes, n_classes, hit, blankets[hit])
    selected = np.flatnonzero(alive)
    if return_order:
        return selected, np.asarray(eliminated, dtype=np.int64)
    return selected
