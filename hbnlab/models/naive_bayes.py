"""Bernoulli naive Bayes with the thesis's N0 smoothing (Karčiauskas 2002, sec. 1.1.3, NB of ch. 4)."""
from __future__ import annotations

import math

import numpy as np

from hbnlab._validation import as_binary
from hbnlab.bounds import Bound
from hbnlab.models.base import BinaryTextClassifier, NonNegativeInputMixin


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
        on_pos = np.asarray(Xb[y == 1].sum(axis=0)).ravel()
        on_neg = np.asarray(Xb[y == 0].sum(axis=0)).ravel()
        N0 = float(self.N0)
        p_on = np.vstack([(on_neg + N0) / (n_neg + 2 * N0), (on_pos + N0) / (n_pos + 2 * N0)])
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

