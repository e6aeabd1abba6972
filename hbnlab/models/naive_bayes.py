"""Bernoulli naive Bayes with the thesis's N0 smoothing (Karčiauskas 2002, sec. 1.1.3, NB of ch. 4)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hbnlab._validation import as_binary
from hbnlab.bounds import Bound
from hbnlab.models.base import BinaryTextClassifier, NonNegativeInputMixin

#: Pseudo-count per state of the class's naive-Bayes children (that of
#: :class:`BernoulliNBClassifier`, the thesis's N0).
CLASS_CHILDREN_N0 = 0.1


@dataclass(frozen=True, eq=False)
class ClassChildren:
    """The selected terms outside the tree: children of the class with P(F | C), as in naive Bayes.

    One home for the Bernoulli naive-Bayes tables: :class:`BernoulliNBClassifier` fits its tables
    with :meth:`fit`.  The network is then the tree (arcs toward the class for an HBN, away from it for an HNB) plus an
    arc C -> F for each of these terms.  With the class observed in training their tables do not
    depend on the tree's (the log-likelihood splits into the tree's part and theirs), so they are
    fitted in closed form; in inference each term adds ``log P(f | C=1) / P(f | C=0)`` of its
    observed state to the class log-odds.

    Attributes
    ----------
    p_on : ndarray (2, n_children)
        P(F = 1 | C = c), rows c = 0, 1.
    """

    p_on: np.ndarray

    @classmethod
    def fit(cls, Xb, y, N0: float = CLASS_CHILDREN_N0) -> ClassChildren:
        """N0-smoothed frequencies (thesis sec. 1.1.3) of binary ``Xb`` (n, m) given labels ``y``."""
        y = np.asarray(y)
        n_pos = float(y.sum())
        n_neg = float(y.size - n_pos)
        on_pos = np.asarray(Xb[y == 1].sum(axis=0), dtype=float).ravel()
        on_neg = np.asarray(Xb[y == 0].sum(axis=0), dtype=float).ravel()
        return cls(np.vstack([(on_neg + N0) / (n_neg + 2 * N0), (on_pos + N0) / (n_pos + 2 * N0)]))

    @property
    def n_children(self) -> int:
        return int(self.p_on.shape[1])

    def _ratios(self):
        on = np.log(self.p_on[1]) - np.log(self.p_on[0])
        off = np.log1p(-self.p_on[1]) - np.log1p(-self.p_on[0])
        return on, off

    def log_odds(self, Xb) -> np.ndarray:
        """Sum over the children of ``log P(f | C=1) / P(f | C=0)``, shape (n_documents,)."""
        on, off = self._ratios()
        return off.sum() + np.asarray(Xb @ (on - off)).ravel()

    def contributions(self, Xb) -> np.ndarray:
        """Each child's term of the class log-odds, shape (n_documents, n_children)."""
        on, off = self._ratios()
        dense = Xb.toarray() if hasattr(Xb, "toarray") else np.asarray(Xb)
        return np.where(dense > 0, on, off)


class BernoulliNBClassifier(NonNegativeInputMixin, BinaryTextClassifier):
    """Naive Bayes over binary features with N0 smoothing.

    P(F_i = f | C = c) = (n + N0) / (N + m N0)  (thesis sec. 1.1.3), where n counts the training
    documents of class c with F_i = f, N the documents of class c and m = 2 the number of states.
    The class prior is the training frequency P(C = c) = N_c / N (no smoothing needed: ``fit``
    requires both classes).  Both presence and absence of a term are evidence.

    Parameters
    ----------
    N0 : float, default=0.1
        Pseudo-count per state (the thesis's value).
    n_features : int or None, default=None
        Number of locally selected terms (None: all columns).
    selection : str, default="ig"
        Scoring method for local selection (see :func:`hbnlab.features.score_terms`).

    Examples
    --------
    A hand-checkable case: term 0 occurs in both positive documents and one of two negatives.

    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [1, 0], [0, 1]])
    >>> y = np.array([1, 1, 0, 0])
    >>> nb = BernoulliNBClassifier(N0=0.1).fit(X, y)
    >>> round(float(nb.feature_log_prob_[1, 0]), 6) == round(float(np.log((2 + .1) / (2 + .2))), 6)
    True
    """

    _poor_score_on_generic_data = True  # presence/count model (see the base class)
    _parameter_constraints = {**BinaryTextClassifier._parameter_constraints,
                              "N0": [Bound("N0", 0, math.inf, integer=False, lo_open=True)]}

    def __init__(self, *, N0=0.1, n_features=None, selection="ig"):
        self.N0 = N0
        self.n_features = n_features
        self.selection = selection

    def _fit_selected(self, X, y):
        Xb = as_binary(X)
        n_pos = float(y.sum())
        n_neg = float(y.size - n_pos)
        p_on = ClassChildren.fit(Xb, y, float(self.N0)).p_on
        #: log P(F=1 | C=c), shape (2, n_selected), rows c = 0, 1
        self.feature_log_prob_ = np.log(p_on)
        self.feature_log_prob_off_ = np.log1p(-p_on)
        self.class_log_prior_ = np.log(np.array([n_neg, n_pos]) / y.size)
        return self

    def term_contributions(self, X):
        """Per-document, per-term contribution to the class log-odds, shape (n, n_selected).

        log-odds = prior log-odds + sum of these; a term contributes log P(f|1)/P(f|0) for its
        observed state f (present or absent).
        """
        Xs = self._check_X(X)
        Xb = as_binary(Xs).toarray().astype(bool)
        on = self.feature_log_prob_[1] - self.feature_log_prob_[0]
        off = self.feature_log_prob_off_[1] - self.feature_log_prob_off_[0]
        return np.where(Xb, on, off)

    def _log_odds(self, X):
        Xb = as_binary(X)
        on = self.feature_log_prob_[1] - self.feature_log_prob_[0]
        off = self.feature_log_prob_off_[1] - self.feature_log_prob_off_[0]
        prior = self.class_log_prior_[1] - self.class_log_prior_[0]
        # sum_i [x_i * on_i + (1 - x_i) * off_i] = off.sum() + X @ (on - off)
        return prior + off.sum() + np.asarray(Xb @ (on - off)).ravel()


__all__ = ["BernoulliNBClassifier", "ClassChildren", "CLASS_CHILDREN_N0"]
