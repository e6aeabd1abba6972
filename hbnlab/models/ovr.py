"""One-vs-rest over the categories of a multi-label corpus (one binary classifier per class)."""
from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, clone


def _fit_one(estimator, X, y, selected):
    est = clone(estimator)
    if selected is None:
        est.fit(X, y)
    else:
        est.fit(X, y, selected_features=selected)
    return est


class OneVsRest(BaseEstimator):
    """Fit one clone of a binary estimator per column of a label matrix.

    Parameters
    ----------
    estimator : BinaryTextClassifier
        The binary learner (cloned per category).
    n_jobs : int, default=1
        Categories are independent; fit them in that many processes (joblib).

    Attributes
    ----------
    estimators_ : list
        One fitted estimator per category, in the column order of ``Y``.
    """

    def __init__(self, estimator, *, n_jobs=1):
        self.estimator = estimator
        self.n_jobs = n_jobs

    def fit(self, X, Y, selected_features=None):
        """``Y``: bool (n_documents, n_categories).  ``selected_features``: optional list with one
        column-index array per category (e.g. selected on the full training set)."""
        Y = np.asarray(Y).astype(bool)
        if Y.ndim != 2:
            raise ValueError(f"Y must be a 2-D label matrix (n_documents, n_categories), got shape {Y.shape}")
        empty = np.flatnonzero(Y.sum(axis=0) == 0)
        if empty.size:
            raise ValueError(f"category column(s) {empty.tolist()} have no positive training documents")
        sel = selected_features if selected_features is not None else [None] * Y.shape[1]
        self.estimators_ = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_one)(self.estimator, X, Y[:, j].astype(np.int8), sel[j]) for j in range(Y.shape[1])
        )
        return self

    def decision_function(self, X) -> np.ndarray:
        return np.column_stack([e.decision_function(X) for e in self.estimators_])

    def predict_proba(self, X) -> np.ndarray:
        """P(category = 1 | document), shape (n_documents, n_categories)."""
        return np.column_stack([e.predict_proba(X)[:, 1] for e in self.estimators_])

    def predict(self, X) -> np.ndarray:
        return self.predict_proba(X) > 0.5
