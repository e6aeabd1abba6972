"""The noisy-OR gate Bayesian network classifier of de Campos et al. (sec. 3).

One two-layer network for all categories: a binary node ``T_k`` per term, a binary node ``C_i``
per category, and an arc ``T_k -> C_i`` whenever term ``t_k`` occurs in a training document of
class ``c_i``.  Each class node's conditional table is a noisy OR gate (eq. 7):

    p(c_i | pa(C_i)) = 1 - prod_{T_k present} (1 - w(T_k, C_i)),

so a document's posterior is (eq. 9, binary evidence)

    p(c_i | d_j) = 1 - prod_{T_k in Pa(C_i) and d_j} (1 - w(T_k, C_i)),

or, with node ``T_k`` replicated ``n_jk`` times (eq. 10, counts),

    p(c_i | d_j) = 1 - prod_{T_k in Pa(C_i) and d_j} (1 - w(T_k, C_i)) ** n_jk.

Both are one sparse-dense product in log space: ``log p(not c_i | d) = X @ log(1 - W).T``.
The weights need only the multinomial-NB statistics ``N_ik`` (:func:`class_term_counts`).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from hbnlab.bounds import BOOLEAN, Bound, Choice
from hbnlab.models.base import BinaryTextClassifier, NonNegativeInputMixin
from hbnlab.models.multinomial_nb import (
    TERM_TOTALS,
    MultiLabelTextClassifier,
    as_count_matrix,
    class_term_counts,
    presence_pattern,
)

__all__ = ["NoisyORClassifier", "NoisyORBinaryClassifier", "noisy_or_weights", "WEIGHT_METHODS"]

WEIGHT_METHODS = ("eq11", "eq12", "eq15", "eq17")

#: log of the smallest positive normal double: the floor for log(1 - w) and log p, so that a
#: weight of exactly 1 (eq. 11 for a term seen only in class i) or a posterior of exactly 0
#: (no parent term in the document) gives a large finite score instead of +-inf.
LOG_FLOOR = float(np.log(np.finfo(np.float64).tiny))


def _log_ratio_absent(N_ik, N_k, N_i, N):
    """log [p(c_i | not t_h) / p(c_i)] for every class i and term h (de Campos eq. 15 factor).

    Maximum likelihood over word occurrences (sec. 3.2): p(c_i) = N_i. / N and
    p(c_i | not t_h) = (N_i. - N_ih) / (N - N_.h), so the factor is
    (N_i. - N_ih) N / ((N - N_.h) N_i.).  A zero numerator (class i consists of term h only)
    gives -inf; a zero denominator (h is the only word of the corpus, so it is the only parent
    and never enters a product) gives 0.
    """
    num = N_i[:, None] - N_ik
    den = np.broadcast_to((N - N_k)[None, :], N_ik.shape)
    scale = np.broadcast_to((np.log(N) - np.log(np.maximum(N_i, 1e-300)))[:, None], N_ik.shape)
    out = np.zeros_like(N_ik)
    ok = (num > 0) & (den > 0)
    out[ok] = np.log(num[ok]) - np.log(den[ok]) + scale[ok]
    out[(num <= 0) & (den > 0)] = -np.inf
    return out


def noisy_or_weights(N_ik, N_k, N_i, N, method: str = "eq12") -> np.ndarray:
    """OR-gate weights w(T_k, C_i), shape (n_classes, n_terms); 0 where there is no arc.

    Parameters
    ----------
    N_ik, N_k, N_i, N :
        The sufficient statistics of :func:`hbnlab.models.multinomial_nb.class_term_counts`.
    method : {"eq11", "eq12", "eq15", "eq17"}
        * ``eq11``: maximum likelihood p(c_i | t_k) = N_ik / N_.k;
        * ``eq12``: Laplace (N_ik + 1) / (N_.k + 2);
        * ``eq15``: p(c_i | t_k) prod_{h != k} p(c_i | not t_h) / p(c_i) (naive-Bayes-like
          independence, eqs. 13-14);
        * ``eq17``: eq. 15 divided by nt_i, the number of parents of C_i (eq. 16).

    Notes
    -----
    An arc T_k -> C_i exists iff N_ik > 0 (sec. 3); weights are defined on arcs only, so eq. 12
    does not give a positive weight to a term never seen in class i.  In eqs. 15 and 17 the
    product runs over the other *parents* of C_i (``T_h in Pa(C_i), T_h != T_k``, the
    definition of the weight above eq. 13); it is evaluated in log space in
    O(n_classes x n_terms) as ``sum over all parents - own term``.  Eq. 13 is an approximation
    whose value can exceed 1; such weights are clipped to 1 (they are probabilities).
    """
    if method not in WEIGHT_METHODS:
        raise ValueError(f"weights must be one of {WEIGHT_METHODS}, got {method!r}")
    N_ik = np.asarray(N_ik, dtype=np.float64)
    N_k = np.asarray(N_k, dtype=np.float64)
    N_i = np.asarray(N_i, dtype=np.float64)
    arcs = N_ik > 0
    W = np.zeros_like(N_ik)
    Nk = np.broadcast_to(N_k[None, :], N_ik.shape)
    if method == "eq11":
        W[arcs] = N_ik[arcs] / Nk[arcs]  # de Campos eq. 11
        return W
    if method == "eq12":
        W[arcs] = (N_ik[arcs] + 1.0) / (Nk[arcs] + 2.0)  # de Campos eq. 12
        return W
    # de Campos eqs. 15 / 17 in log space:
    #   log w_ik = log(N_ik / N_.k) + sum_{h in Pa(C_i)} log r_ih - log r_ik  [- log nt_i]
    # with r_ih = (N_i. - N_ih) N / ((N - N_.h) N_i.).  -inf factors (r_ih = 0) are counted
    # separately so that "all minus own" stays exact when the own factor is the zero one.
    log_r = np.where(arcs, _log_ratio_absent(N_ik, N_k, N_i, float(N)), 0.0)
    zero = np.isneginf(log_r)
    finite = np.where(zero, 0.0, log_r)
    total = finite.sum(axis=1, keepdims=True)
    n_zero = zero.sum(axis=1, keepdims=True)
    others_zero = (n_zero - zero) > 0  # some other parent h has r_ih = 0: the product is 0
    log_w = np.full_like(N_ik, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):  # off the arcs: log 0 - log 0
        base = np.log(N_ik) - np.log(Nk)
    ok = arcs & ~others_zero
    log_w[ok] = (base + total - finite)[ok]
    if method == "eq17":
        nt = arcs.sum(axis=1, keepdims=True).astype(np.float64)  # nt_i = |Pa(C_i)|
        log_w = log_w - np.log(np.maximum(nt, 1.0))
    W[arcs] = np.exp(np.minimum(log_w[arcs], 0.0))  # clip to 1: see Notes
    return W


def _log_odds_from_log_not(L):
    """log p - log(1 - p) for p = 1 - exp(L), L = log(1 - p) <= 0, floored at LOG_FLOOR."""
    with np.errstate(divide="ignore"):
        log_p = np.log(-np.expm1(L))
    return np.maximum(log_p, LOG_FLOOR) - L


class NoisyORClassifier(MultiLabelTextClassifier):
    """Noisy-OR gate Bayesian network classifier for all classes at once (de Campos sec. 3).

    Parameters
    ----------
    weights : {"eq12", "eq11", "eq15", "eq17"}, default="eq12"
        Weight estimator, see :func:`noisy_or_weights`.
    counts : bool, default=True
        True: each term node is replicated n_jk times (eq. 10); False: binary evidence (eq. 9).
    leak : float in [0, 1), default=0.0
        Probability that C_i is true with no active cause (a leaky noisy OR; 0 is the paper's
        model): p(c_i | d) = 1 - (1 - leak) prod (1 - w)^{n_jk}.
    totals : {"documents", "classes"}, default="documents"
        ``N_{.k}`` and ``N`` from all training documents or as ``sum_i N_ik``
        (:func:`hbnlab.models.multinomial_nb.class_term_counts`).

    Attributes
    ----------
    weights_ : ndarray (n_classes, n_terms)
        w(T_k, C_i), 0 where there is no arc.
    log1m_weights_ : ndarray (n_classes, n_terms)
        log(1 - w), floored at ``LOG_FLOOR`` (a weight of 1 makes the class certain).
    n_parents_ : ndarray (n_classes,)
        nt_i, the number of parents of each class node.

    Notes
    -----
    ``decision_function`` returns the log-odds log p(c_i | d) - log p(not c_i | d), which is
    monotone in the posterior of eqs. 9/10 and keeps its resolution where the posterior itself
    rounds to 1.0 in floating point.  A posterior of exactly 0 (leak 0 and no parent term in
    the document) is reported as ``LOG_FLOOR`` (about -708); ``predict_proba`` is the posterior.

    References
    ----------
    de Campos, Fernández-Luna, Huete, Romero, "OR gate Bayesian networks for text
    classification: a discriminative alternative approach to multinomial naive Bayes".

    Examples
    --------
    Three documents, two classes.  Term 0 occurs 3 times, twice in class 0 documents:

    >>> import numpy as np
    >>> X = np.array([[2, 1, 0], [1, 0, 1], [0, 0, 2]])
    >>> Y = np.array([[1, 0], [0, 1], [0, 1]], dtype=bool)
    >>> orc = NoisyORClassifier(weights="eq11").fit(X, Y)
    >>> orc.weights_[0].tolist()
    [0.6666666666666666, 1.0, 0.0]
    >>> p = orc.predict_proba(np.array([[1, 0, 0]]))
    >>> bool(np.isclose(p[0, 0], 2 / 3))
    True
    """

    _probabilistic = True
    _needs_negatives = False

    _parameter_constraints = {"weights": [Choice(WEIGHT_METHODS)], "counts": [BOOLEAN],
                              "leak": [Bound("leak", 0, 1, integer=False, hi_open=True)],
                              "totals": [Choice(TERM_TOTALS)]}

    def __init__(self, *, weights="eq12", counts=True, leak=0.0, totals="documents"):
        self.weights = weights
        self.counts = counts
        self.leak = leak
        self.totals = totals

    def _fit_multilabel(self, X, Y):
        N_ik, N_k, N_i, N = class_term_counts(X, Y, self.totals)
        self.weights_ = noisy_or_weights(N_ik, N_k, N_i, N, self.weights)
        with np.errstate(divide="ignore"):
            self.log1m_weights_ = np.maximum(np.log1p(-self.weights_), LOG_FLOOR)
        self.n_parents_ = (N_ik > 0).sum(axis=1)
        self.log1m_leak_ = float(np.log1p(-float(self.leak)))

    def _evidence(self, X):
        return X if self.counts else presence_pattern(X)

    def log_prob_negative(self, X) -> np.ndarray:
        """log p(not c_i | d) per document and class (eqs. 9/10 in log space)."""
        return self._log_not(self._check_X(X))

    def _log_not(self, X):
        return np.asarray(self._evidence(X) @ self.log1m_weights_.T) + self.log1m_leak_

    def _decision(self, X):
        return _log_odds_from_log_not(self._log_not(X))

    def predict_proba(self, X) -> np.ndarray:
        """The posterior p(c_i | d) of eq. 9 (``counts=False``) or eq. 10, shape (n_docs, n_classes)."""
        return -np.expm1(self.log_prob_negative(X))

    def term_contributions(self, X, class_index: int = 0) -> sp.csr_matrix:
        """Evidence of each term for class i: ``-n_jk log(1 - w_ik)`` (>= 0), sparse (n_docs, n_terms).

        These add up exactly: ``-log p(not c_i | d) = -log(1 - leak) + row sum``.
        """
        X = self._evidence(self._check_X(X))
        i = int(class_index)
        if not 0 <= i < self.n_classes_:
            raise ValueError(f"class_index must be in [0, {self.n_classes_}), got {class_index}")
        return sp.csr_matrix(X.multiply(-self.log1m_weights_[i][None, :]))


class NoisyORBinaryClassifier(NonNegativeInputMixin, BinaryTextClassifier):
    """The class node of one category of :class:`NoisyORClassifier` as a binary estimator.

    The weights of class i depend only on class i's counts and the corpus totals, so this
    equals column i of the multi-label model fitted on the same columns.

    Parameters
    ----------
    weights : {"eq12", "eq11", "eq15", "eq17"}, default="eq12"
    counts : bool, default=True
    leak : float in [0, 1), default=0.0
    n_features : int or None, default=None
        Number of locally selected terms (None: all columns).
    selection : str, default="ig"
        Scoring method for local selection (:func:`hbnlab.features.score_terms`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2, 1, 0], [1, 0, 1], [0, 0, 2]])
    >>> clf = NoisyORBinaryClassifier(weights="eq12").fit(X, np.array([1, 0, 0]))
    >>> clf.weights_.round(4).tolist()  # (N_ik + 1) / (N_.k + 2) on the arcs (eq. 12)
    [0.6, 0.6667, 0.0]
    >>> clf.predict_proba(X)[:, 1].round(4).tolist()  # 1 - 0.4**2 / 3, 1 - 0.4, no parent
    [0.9467, 0.6, 0.0]
    """

    _poor_score_on_generic_data = True  # presence/count model (see the base class)

    _parameter_constraints = {**BinaryTextClassifier._parameter_constraints,
                              **{k: v for k, v in NoisyORClassifier._parameter_constraints.items() if k != "totals"}}

    def __init__(self, *, weights="eq12", counts=True, leak=0.0, n_features=None, selection="ig"):
        self.weights = weights
        self.counts = counts
        self.leak = leak
        self.n_features = n_features
        self.selection = selection

    def _fit_selected(self, X, y):
        self.model_ = NoisyORClassifier(weights=self.weights, counts=self.counts, leak=self.leak)
        self.model_.fit(as_count_matrix(X), y.reshape(-1, 1) > 0)
        self.weights_ = self.model_.weights_[0]
        return self

    def _log_odds(self, X):
        return self.model_.decision_function(X)[:, 0]

    def term_contributions(self, X) -> sp.csr_matrix:
        """``-n_jk log(1 - w_k)`` per selected term, sparse (n_documents, n_selected)."""
        return self.model_.term_contributions(self._check_X(X), 0)
