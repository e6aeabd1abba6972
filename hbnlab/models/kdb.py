"""k-dependence Bayesian network classifier over binary term features (Chakrabarti, *Mining the
Web*, ch. 5, fig. 5.8).

Structure (Chakrabarti, *Mining the Web*, fig. 5.8, after Sahami's KDB):

1. compute I(X_t; C) for every term;
2. compute the class-conditional mutual information I(X_i; X_j | C) between terms;
3. add the terms in decreasing I(X_t; C) order; each gets the class as a parent and up to ``k``
   term parents: those with the highest I(X_i; X_j | C) among the terms *already in the
   network*.

The printed pseudocode (lines 8-10 of fig. 5.8) reads "there is an X_i not connected to X_j"
without saying that X_i must already be in the network; choosing among earlier terms is what
keeps the graph acyclic (and is Sahami's original algorithm), so that is what is implemented.
Parents whose I(X_i; X_j | C) is not above ``min_cmi`` (default 0) are not added: an exactly
independent parent only splits the counts.

Parameters (sec. 5.6.1, eq. 5.18, Laplace's law of succession, with pseudo-count ``alpha``):

    P(X_j = 1 | pa_j, c) = (N(X_j = 1, pa_j, c) + alpha) / (N(pa_j, c) + 2 alpha),
    P(C = c) = N_c / N.

Scoring: the log-odds of a document is the prior log-odds plus, for every term j (present or
absent), log P(x_j | pa_j, C=1) - log P(x_j | pa_j, C=0) -- a sum of per-term contributions
(:meth:`KDependenceBNClassifier.term_contributions`).  The kernel writes each term's
contribution as a multilinear polynomial in its own and its parents' indicators (Moebius
inversion of the 2^(k+1) table), so the sum over all terms is 2^(k+1) sparse products, without
a dense document-by-term matrix.  The counts for the tables are obtained the same way.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from hbnlab._validation import as_binary
from hbnlab.bounds import KDB_PARENTS, Bound
from hbnlab.models.base import BinaryTextClassifier, NonNegativeInputMixin

__all__ = ["KDependenceBNClassifier", "class_mutual_information", "conditional_mutual_information"]


def _xlogx_ratio(n, n_tot, a, b):
    """(n / n_tot) * log(n * n_tot / (a * b)), 0 where n == 0 (0 log 0 = 0)."""
    n = np.asarray(n, dtype=np.float64)
    out = np.zeros(np.broadcast(n, a, b).shape)
    pos = n > 0
    nb = np.broadcast_to(n, out.shape)
    ab = np.broadcast_to(np.asarray(a, dtype=np.float64), out.shape)
    bb = np.broadcast_to(np.asarray(b, dtype=np.float64), out.shape)
    out[pos] = nb[pos] / n_tot * np.log(nb[pos] * n_tot / (ab[pos] * bb[pos]))
    return out


def class_mutual_information(Xb: sp.csr_matrix, y: np.ndarray) -> np.ndarray:
    """I(X_t; C) in nats for every binary column (Chakrabarti eq. 5.7, maximum likelihood)."""
    y = np.asarray(y).astype(bool)
    n = float(y.size)
    n1 = np.asarray(Xb[y].sum(axis=0), dtype=np.float64).ravel()  # x=1, c=1
    n0 = np.asarray(Xb[~y].sum(axis=0), dtype=np.float64).ravel()  # x=1, c=0
    nc1, nc0 = float(y.sum()), float((~y).sum())
    nx1 = n1 + n0
    nx0 = n - nx1
    # Chakrabarti eq. 5.7: sum over the four cells k_{x,c}
    return (_xlogx_ratio(n1, n, nx1, nc1) + _xlogx_ratio(n0, n, nx1, nc0)
            + _xlogx_ratio(nc1 - n1, n, nx0, nc1) + _xlogx_ratio(nc0 - n0, n, nx0, nc0))


def conditional_mutual_information(Xb: sp.csr_matrix, y: np.ndarray, rows=None) -> np.ndarray:
    """I(X_i; X_j | C) in nats between binary columns, shape (len(rows), n_columns).

    sum_c sum_{a,b} P(a, b, c) log [P(a, b | c) / (P(a | c) P(b | c))] (Chakrabarti fig. 5.8 line 2),
    maximum likelihood, from the per-class co-occurrence counts ``X_c.T @ X_c``.
    """
    y = np.asarray(y).astype(bool)
    n = float(y.size)
    rows = np.arange(Xb.shape[1]) if rows is None else np.asarray(rows)
    out = np.zeros((rows.size, Xb.shape[1]))
    for mask in (y, ~y):  # the two class values
        Xc = Xb[mask]
        nc = float(mask.sum())
        if nc == 0:
            continue
        col = np.asarray(Xc.sum(axis=0), dtype=np.float64).ravel()
        a = col[rows][:, None]
        b = col[None, :]
        n11 = np.asarray((Xc[:, rows].T @ Xc).toarray(), dtype=np.float64)
        n10, n01 = a - n11, b - n11
        n00 = nc - a - b + n11
        # P(a,b,c) log [P(a,b|c) / (P(a|c) P(b|c))] = (n_ab / n) log(n_ab nc / (n_a n_b))
        for cnt, ma, mb in ((n11, a, b), (n10, a, nc - b), (n01, nc - a, b), (n00, nc - a, nc - b)):
            t = np.zeros_like(cnt)
            pos = cnt > 0
            mab = np.broadcast_to(ma, cnt.shape)[pos] * np.broadcast_to(mb, cnt.shape)[pos]
            t[pos] = cnt[pos] / n * np.log(cnt[pos] * nc / mab)
            out += t
    return out


def moebius(table: np.ndarray) -> np.ndarray:
    """Coefficients a_S of the multilinear polynomial with values ``table[..., mask]``.

    f(z) = sum_S a_S prod_{v in S} z_v  with  a_S = sum_{T subset S} (-1)^{|S - T|} f(1_T).
    """
    a = np.array(table, dtype=np.float64, copy=True)
    n_bits = int(np.log2(a.shape[-1]))
    for bit in range(n_bits):
        step = 1 << bit
        masks = np.arange(a.shape[-1])
        hi = masks[(masks & step) != 0]
        a[..., hi] -= a[..., hi ^ step]
    return a


def _superset_inversion(counts: np.ndarray) -> np.ndarray:
    """Exact-configuration counts from "all ones on S" counts (inclusion-exclusion).

    ``counts[..., S]`` = #documents with every variable of S equal to 1; the result
    ``[..., T]`` = #documents whose variables equal 1 exactly on T.
    """
    a = np.array(counts, dtype=np.float64, copy=True)
    n_bits = int(np.log2(a.shape[-1]))
    for bit in range(n_bits):
        step = 1 << bit
        masks = np.arange(a.shape[-1])
        lo = masks[(masks & step) == 0]
        a[..., lo] -= a[..., lo | step]
    return a


class KDependenceBNClassifier(NonNegativeInputMixin, BinaryTextClassifier):
    """k-dependence Bayesian network over binary term features (Chakrabarti fig. 5.8).

    Parameters
    ----------
    k : int, default=1
        Maximum number of term parents per term (k = 0 is Bernoulli naive Bayes), at most
        ``hbnlab.bounds.KDB_PARENTS.hi`` = 10: a term's table has 2 ** (k + 1) rows per class.
    alpha : float, default=1.0
        Pseudo-count of the Laplace/Lidstone estimate of each CPT entry (Chakrabarti eq. 5.18).
    min_cmi : float, default=0.0
        A term parent is added only when I(X_i; X_j | C) > min_cmi.
    block_size : int, default=512
        Terms per block when computing I(X_i; X_j | C) (memory: block_size x n_features floats).
    n_features : int or None, default=None
        Number of locally selected terms; the structure search is quadratic in it.
    selection : str, default="ig"
        Scoring method for local selection (:func:`hbnlab.features.score_terms`).

    Attributes
    ----------
    order_ : ndarray (n_selected,)
        Columns (of the selected matrix) in decreasing I(X_t; C) order, ties by column.
    class_mi_ : ndarray (n_selected,)
        I(X_t; C) per column.
    parents_ : ndarray (n_selected, k) of int
        Term parents of each column (column indices), highest I(X_i; X_j | C) first, -1 for an
        empty slot.
    parent_cmi_ : ndarray (n_selected, k)
        I(X_i; X_j | C) of each chosen parent (nan for an empty slot).
    theta_ : ndarray (n_selected, 2 ** k, 2)
        P(X_j = 1 | parent configuration, C = c); configuration bit s is parent slot s.
    class_log_prior_ : ndarray (2,)
    intercept_ : float
        Prior log-odds; ``decision_function == intercept_ + term_contributions(X).sum(1)``.

    References
    ----------
    S. Chakrabarti, *Mining the Web*, ch. 5, sec. 5.6.2 and fig. 5.8; M. Sahami, "Learning
    limited dependence Bayesian classifiers", KDD 1996.

    Examples
    --------
    Term 1 copies term 0 inside the positive class, so it takes term 0 as its parent:

    >>> import numpy as np
    >>> X = np.array([[1, 1], [1, 1], [0, 0], [1, 0], [0, 1], [0, 0]])
    >>> y = np.array([1, 1, 1, 0, 0, 0])
    >>> kdb = KDependenceBNClassifier(k=1).fit(X, y)
    >>> kdb.parents_.ravel().tolist()
    [-1, 0]
    """

    _poor_score_on_generic_data = True  # presence model (see the base class)

    _parameter_constraints = {**BinaryTextClassifier._parameter_constraints, "k": [KDB_PARENTS],
                              "alpha": [Bound("alpha", 0, math.inf, integer=False, lo_open=True)],
                              "min_cmi": [Bound("min_cmi", -math.inf, math.inf, integer=False)],
                              "block_size": [Bound("block_size", 1, math.inf)]}

    def __init__(self, *, k=1, alpha=1.0, min_cmi=0.0, block_size=512, n_features=None, selection="ig"):
        self.k = k
        self.alpha = alpha
        self.min_cmi = min_cmi
        self.block_size = block_size
        self.n_features = n_features
        self.selection = selection

    # ------------------------------------------------------------------ structure
    def _structure(self, Xb, y):
        m = Xb.shape[1]
        k = int(self.k)
        mi = class_mutual_information(Xb, y)
        order = np.lexsort((np.arange(m), -mi))  # decreasing I(X;C), ties by column
        pos = np.empty(m, dtype=np.int64)
        pos[order] = np.arange(m)
        parents = np.full((m, k), -1, dtype=np.int64)
        parent_cmi = np.full((m, k), np.nan)
        if k == 0 or m == 1:
            return mi, order, parents, parent_cmi
        Xo = Xb[:, order]  # columns in position order: argmax ties go to the earliest position
        bs = max(1, int(self.block_size))
        for start in range(1, m, bs):  # blocks of terms (by position); position 0 has no candidates
            rows = np.arange(start, min(m, start + bs))
            cmi = conditional_mutual_information(Xo, y, rows)
            cmi[np.arange(m)[None, :] >= rows[:, None]] = -np.inf  # only earlier terms (acyclic)
            r = np.arange(rows.size)
            for s in range(k):  # the k best, one argmax at a time (first maximum = earliest)
                best = np.argmax(cmi, axis=1)
                val = cmi[r, best]
                ok = val > float(self.min_cmi)
                cols = order[rows[ok]]
                parents[cols, s] = order[best[ok]]
                parent_cmi[cols, s] = val[ok]
                cmi[r, best] = -np.inf
        return mi, order, parents, parent_cmi

    # ------------------------------------------------------------------ kernels
    def _products(self, Xb, subset_cols):
        """prod of the columns listed per term, as a sparse (n_docs, m) matrix; [] -> ones."""
        n, m = Xb.shape
        if not subset_cols:
            return None
        Xe = sp.hstack([Xb, sp.csr_matrix((n, 1))], format="csr")  # column m: the empty slot (all 0)
        P = Xe[:, subset_cols[0]]
        for cols in subset_cols[1:]:
            P = P.multiply(Xe[:, cols])
        return sp.csr_matrix(P)

    def _slot_columns(self):
        m = self.parents_.shape[0]
        slots = [np.arange(m)]  # variable 0: the term itself
        for s in range(self.parents_.shape[1]):
            col = self.parents_[:, s].copy()
            col[col < 0] = m  # the all-zero column
            slots.append(col)
        return slots

    def _fit_selected(self, X, y):
        k = self.k
        Xb = as_binary(X)
        y = np.asarray(y).astype(bool)
        self.class_mi_, self.order_, self.parents_, self.parent_cmi_ = self._structure(Xb, y)
        m = Xb.shape[1]
        slots = self._slot_columns()
        n_vars = 1 + int(k)
        # counts[c, j, S] = #documents of class c with every variable of S equal to 1
        C = sp.csr_matrix(np.column_stack([~y, y]).T.astype(np.float64))  # (2, n_docs)
        counts = np.empty((2, m, 1 << n_vars))
        for S in range(1 << n_vars):
            cols = [slots[v] for v in range(n_vars) if S >> v & 1]
            if not cols:
                counts[:, :, S] = np.array([(~y).sum(), y.sum()], dtype=np.float64)[:, None]
                continue
            P = self._products(Xb, cols)
            counts[:, :, S] = np.asarray((C @ P).toarray())
        exact = _superset_inversion(counts)  # [c, j, T]: variables equal to 1 exactly on T
        # bit 0 of T is the term itself, bits 1.. are the parent slots
        n_on = exact[:, :, 1::2]  # X_j = 1, parent configuration = T >> 1
        n_all = exact[:, :, 0::2] + n_on
        a = float(self.alpha)
        theta = (n_on + a) / (n_all + 2 * a)  # Chakrabarti eq. 5.18 (Laplace, alpha = 1)
        self.theta_ = np.transpose(theta, (1, 2, 0))  # (m, 2^k, 2)
        n1, n0 = float(y.sum()), float((~y).sum())
        self.class_log_prior_ = np.log(np.array([n0, n1]) / y.size)
        self.intercept_ = float(self.class_log_prior_[1] - self.class_log_prior_[0])
        # contribution table f_j(x_j, config) = log P(x_j | config, 1) - log P(x_j | config, 0),
        # indexed like T: bit 0 = x_j, bits 1.. = parents
        t1, t0 = self.theta_[:, :, 1], self.theta_[:, :, 0]
        table = np.empty((m, 1 << n_vars))
        table[:, 1::2] = np.log(t1) - np.log(t0)
        table[:, 0::2] = np.log1p(-t1) - np.log1p(-t0)
        self.contribution_table_ = table
        self.poly_coef_ = moebius(table)
        return self

    def _log_odds(self, X):
        Xb = as_binary(X)
        slots = self._slot_columns()
        n_vars = len(slots)
        score = np.full(X.shape[0], self.intercept_ + self.poly_coef_[:, 0].sum())
        for S in range(1, 1 << n_vars):
            cols = [slots[v] for v in range(n_vars) if S >> v & 1]
            P = self._products(Xb, cols)
            score += np.asarray(P @ self.poly_coef_[:, S]).ravel()
        return score

    def term_contributions(self, X) -> np.ndarray:
        """log P(x_j | pa_j, C=1) - log P(x_j | pa_j, C=0) per document and selected term.

        Dense (n_documents, n_selected), for the explanation view; present and absent terms
        both contribute.  ``intercept_ + row sum`` equals ``decision_function`` exactly (up to
        rounding) -- computed here by direct table look-up, by a polynomial kernel there.
        """
        Xs = self._check_X(X)
        Xd = np.asarray(as_binary(Xs).toarray(), dtype=np.int64)
        Xe = np.hstack([Xd, np.zeros((Xd.shape[0], 1), dtype=np.int64)])
        idx = Xd.copy()
        for s, col in enumerate(self._slot_columns()[1:]):
            idx += Xe[:, col] << (s + 1)
        return self.contribution_table_[np.arange(Xd.shape[1])[None, :], idx]

    def edges(self) -> list:
        """Term-to-term arcs ``(parent, child)`` as indices into the input columns."""
        sel = self.selected_features_
        out = []
        for j in range(self.parents_.shape[0]):
            for p in self.parents_[j]:
                if p >= 0:
                    out.append((int(sel[p]), int(sel[j])))
        return out
