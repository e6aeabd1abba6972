"""Linear SVM baseline with sigmoid-calibrated scores (the thesis's SVM, WEKA SMO with a
logistic output transform, sec. 4.1.3), built on scikit-learn's ``LinearSVC``."""
from __future__ import annotations

import math

import numpy as np
from sklearn.svm import LinearSVC

from hbnlab._validation import as_binary
from hbnlab.bounds import BOOLEAN, Bound
from hbnlab.models.base import RANDOM_STATE_ALLOWED, BinaryTextClassifier


class LinearSVMClassifier(BinaryTextClassifier):
    """Linear SVM on (locally selected) binary term features, Platt-scaled.

    The SVM margin f(x) = w.x + b is mapped to a probability by a sigmoid
    P(c=1 | x) = 1 / (1 + exp(A f(x) + B)) fitted on the training margins (Platt 1999, the
    "standard sigmoid" of WEKA's SMO).  The decision function returned is the log-odds of that
    sigmoid, -(A f + B), so probabilities are comparable across classes (micro-averaging pools
    them) while the ranking within a class is the SVM's.

    Parameters
    ----------
    C : float, default=1.0
        Complexity constant; tune it on the validation split (:func:`hbnlab.experiments.thesis.tune_on_validation`).
    n_features, selection : see :class:`~hbnlab.models.base.BinaryTextClassifier`.
    binary : bool, default=True
        Use presence/absence features (the thesis's indexing); ``X`` must then be non-negative
        (a term is present where its entry is positive).
    random_state : int or None
    """

    _parameter_constraints = {**BinaryTextClassifier._parameter_constraints,
                              "C": [Bound("C", 0, math.inf, integer=False, lo_open=True)], "binary": [BOOLEAN],
                              "random_state": RANDOM_STATE_ALLOWED}

    def __init__(self, *, C=1.0, n_features=None, selection="ig", binary=True, random_state=None):
        self.C = C
        self.n_features = n_features
        self.selection = selection
        self.binary = binary
        self.random_state = random_state

    def _prep(self, X):
        return as_binary(X) if self.binary else X.astype(np.float64)

    def _fit_selected(self, X, y):
        Xp = self._prep(X)
        self.svm_ = LinearSVC(C=self.C, dual="auto", random_state=self.random_state, max_iter=20000)
        self.svm_.fit(Xp, y)
        f = self.svm_.decision_function(Xp)
        self.sigmoid_A_, self.sigmoid_B_ = _platt(f, y)
        return self

    def _log_odds(self, X):
        f = self.svm_.decision_function(self._prep(X))
        return -(self.sigmoid_A_ * f + self.sigmoid_B_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = bool(self.binary)  # presence features: no negative entries
        tags.classifier_tags.poor_score = bool(self.binary)  # presence model (see the base class)
        return tags


def _platt(f: np.ndarray, y: np.ndarray, max_iter: int = 100) -> tuple[float, float]:
    """Platt's sigmoid fit with his regularised targets (Lin, Lin & Weng 2007 Newton method)."""
    prior1 = float(y.sum())
    prior0 = float(y.size - prior1)
    hi = (prior1 + 1.0) / (prior1 + 2.0)
    lo = 1.0 / (prior0 + 2.0)
    t = np.where(y == 1, hi, lo)
    A, B = 0.0, float(np.log((prior0 + 1.0) / (prior1 + 1.0)))
    sigma = 1e-12

    def objective(A, B):
        fApB = f * A + B
        return float(np.sum(np.where(fApB >= 0, t * fApB + np.log1p(np.exp(-fApB)),
                                     (t - 1) * fApB + np.log1p(np.exp(fApB)))))

    fval = objective(A, B)
    for _ in range(max_iter):
        fApB = f * A + B
        p = np.where(fApB >= 0, np.exp(-fApB) / (1 + np.exp(-fApB)), 1 / (1 + np.exp(fApB)))
        q = 1 - p
        d2 = p * q
        h11 = sigma + np.sum(f * f * d2)
        h22 = sigma + np.sum(d2)
        h21 = np.sum(f * d2)
        d1 = t - p
        g1 = np.sum(f * d1)
        g2 = np.sum(d1)
        if abs(g1) < 1e-5 and abs(g2) < 1e-5:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= 1e-10:
            nA, nB = A + step * dA, B + step * dB
            nf = objective(nA, nB)
            if nf < fval + 1e-4 * step * gd:
                A, B, fval = nA, nB, nf
                break
            step /= 2
        else:
            break
    return float(A), float(B)
