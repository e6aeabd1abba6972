"""Logistic regression on the selected binary terms: the discriminative model of the same evidence
the naive-Bayes and tree learners use, built on scikit-learn's ``LogisticRegression``.

For naive Bayes the conditional-likelihood optimum over its tables is this model (Roos et al.
2005): the row ``LR`` beside ``NB`` shows how much a fit for P(c | f) gains on a corpus.
"""
from __future__ import annotations

import math

import numpy as np
from sklearn.linear_model import LogisticRegression

from hbnlab._validation import as_binary
from hbnlab.bounds import Bound
from hbnlab.models.base import RANDOM_STATE_ALLOWED, BinaryTextClassifier, NonNegativeInputMixin


class LogisticRegressionClassifier(NonNegativeInputMixin, BinaryTextClassifier):
    """L2-regularised logistic regression over presence / absence of the selected terms.

    ``decision_function`` is the model's log-odds log P(c=1 | x) - log P(c=0 | x).

    Parameters
    ----------
    C : float, default=1.0
        Inverse regularisation strength (scikit-learn's ``C``).
    n_features : int or None, default=None
        Number of locally selected terms (None: all columns).
    selection : str, default="ig"
        Scoring method for local selection (:func:`hbnlab.features.score_terms`).
    random_state : int or None
        Passed to the solver.

    Attributes
    ----------
    coef_ : ndarray (n_selected,)
        Log-odds weight of each selected term's presence.
    intercept_ : float
    n_iter_ : int

    References
    ----------
    T. Roos, H. Wettig, P. Grünwald, P. Myllymäki and H. Tirri, On discriminative Bayesian network
    classifiers and logistic regression, Machine Learning 59, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> y = rng.randint(0, 2, 200)
    >>> X = (rng.rand(200, 5) < np.where(y[:, None] == 1, 0.7, 0.2)).astype(int)
    >>> float(LogisticRegressionClassifier().fit(X, y).score(X, y)) > 0.8
    True
    """

    _poor_score_on_generic_data = True  # presence model (see the base class)
    _parameter_constraints = {**BinaryTextClassifier._parameter_constraints,
                              "C": [Bound("C", 0, math.inf, integer=False, lo_open=True)],
                              "random_state": RANDOM_STATE_ALLOWED}

    def __init__(self, *, C=1.0, n_features=None, selection="ig", random_state=None):
        self.C = C
        self.n_features = n_features
        self.selection = selection
        self.random_state = random_state

    def _fit_selected(self, X, y):
        lr = LogisticRegression(C=float(self.C), solver="liblinear", max_iter=1000, random_state=self.random_state)
        lr.fit(as_binary(X), y)
        #: the weight of each selected term's presence and the intercept of the log-odds
        self.coef_ = np.asarray(lr.coef_[0], dtype=np.float64)
        self.intercept_ = float(lr.intercept_[0])
        self.n_iter_ = int(np.max(lr.n_iter_))
        return self

    def _log_odds(self, X):
        return self.intercept_ + np.asarray(as_binary(X) @ self.coef_, dtype=np.float64).ravel()


__all__ = ["LogisticRegressionClassifier"]
