"""The estimator base class every hbnlab classifier derives from.

In the manner of ``sklearn/naive_bayes.py``: one base class writes ``fit`` (validation, local
feature selection), ``decision_function``, ``predict``, ``predict_proba`` and
``predict_log_proba`` once; each model supplies two methods:

* ``_fit_selected(X, y)`` -- learn from the binary/count matrix restricted to the selected
  feature columns (CSR, shape (n_documents, n_selected)) and a 0/1 vector ``y``;
* ``_log_odds(X)`` -- return log P(c=1 | x) - log P(c=0 | x) for every row of such a matrix
  (a float vector; for non-probabilistic models a monotone score whose logistic is the
  reported probability).

Classifiers are binary (one class against the rest, as in the thesis); multi-label corpora use
:class:`hbnlab.models.OneVsRest`.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted


class BinaryTextClassifier(ClassifierMixin, BaseEstimator):
    """Base class: binary classifiers over term matrices with optional local feature selection.

    Subclasses define their hyper-parameters in a keyword-only ``__init__`` that includes
    ``n_features`` (``None`` = use every column) and ``selection`` (a method name of
    :func:`hbnlab.features.score_terms`, default ``"ig"``: information gain, thesis sec. 4.1.2).

    Learned attributes: ``classes_`` (array([0, 1])), ``n_features_in_``,
    ``selected_features_`` (column indices into the input matrix, in decreasing score order),
    ``feature_scores_`` (their scores).
    """

    n_features = None
    selection = "ig"

    # ------------------------------------------------------------------ subclass API
    def _fit_selected(self, X, y):  # pragma: no cover - abstract
        raise NotImplementedError

    def _log_odds(self, X):  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _as_csr(X) -> sp.csr_matrix:
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        else:
            X = np.asarray(X)
            if X.ndim != 2:
                raise ValueError(f"X must be a 2-D matrix, got an array with shape {X.shape}")
            X = sp.csr_matrix(X)
        if X.shape[1] == 0:
            raise ValueError("X has 0 feature columns; at least 1 is required")
        data = X.data
        if data.size and (not np.all(np.isfinite(data)) or data.min() < 0):
            raise ValueError("X must hold non-negative finite term counts or 0/1 indicators")
        return X

    def _validate_y(self, y) -> np.ndarray:
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y must be a 1-D vector of 0/1 labels, got shape {y.shape}")
        values = np.unique(y)
        if not set(values.tolist()) <= {0, 1, False, True}:
            raise ValueError(f"y must hold binary labels 0/1, got values {values[:5].tolist()}")
        yb = y.astype(np.int8)
        if yb.min() == yb.max():
            raise ValueError(
                f"y has only one class ({int(yb[0])}); a binary classifier needs positive and negative examples"
            )
        return yb

    def fit(self, X, y, selected_features=None):
        """Fit on a term matrix ``X`` (n_documents, n_terms) and binary labels ``y``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_documents, n_terms)
        y : array-like of shape (n_documents,), values in {0, 1}
        selected_features : array-like of int, optional
            Use exactly these columns instead of selecting ``n_features`` by ``selection`` on
            ``(X, y)``.  The thesis selects on the whole training set even when fitting on the
            training-0 split (sec. 4.1.2); this argument reproduces that.
        """
        X = self._as_csr(X)
        y = self._validate_y(y)
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
        self.n_features_in_ = X.shape[1]
        self.classes_ = np.array([0, 1])
        if selected_features is not None:
            cols = np.asarray(selected_features, dtype=np.int64)
            if cols.ndim != 1 or cols.size == 0 or cols.min() < 0 or cols.max() >= X.shape[1]:
                raise ValueError("selected_features must be a non-empty list of column indices of X")
            self.feature_scores_ = np.full(cols.size, np.nan)
        elif self.n_features is None or self.n_features >= X.shape[1]:
            cols = np.arange(X.shape[1])
            self.feature_scores_ = np.full(cols.size, np.nan)
        else:
            from hbnlab.features import score_terms

            if int(self.n_features) < 1:
                raise ValueError(f"n_features must be >= 1 or None, got {self.n_features}")
            scores = score_terms(X, y.reshape(-1, 1).astype(bool), method=self.selection)[:, 0]
            # deterministic: decreasing score, ties by column index
            order = np.lexsort((np.arange(scores.size), -scores))
            cols = order[: int(self.n_features)]
            self.feature_scores_ = scores[cols]
        self.selected_features_ = cols
        self._fit_selected(X[:, cols], y)
        return self

    def _check_X(self, X) -> sp.csr_matrix:
        check_is_fitted(self, "selected_features_")
        X = self._as_csr(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} columns but {type(self).__name__} was fitted with {self.n_features_in_}"
            )
        return X[:, self.selected_features_]

    # ------------------------------------------------------------------ public API
    def decision_function(self, X) -> np.ndarray:
        """log P(c=1 | x) - log P(c=0 | x) per document (a ranking score)."""
        return np.asarray(self._log_odds(self._check_X(X)), dtype=np.float64)

    def predict_log_proba(self, X) -> np.ndarray:
        z = self.decision_function(X)
        # log sigmoid, stable for large |z|
        lp1 = -np.logaddexp(0.0, -z)
        lp0 = -np.logaddexp(0.0, z)
        return np.column_stack([lp0, lp1])

    def predict_proba(self, X) -> np.ndarray:
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        return (self.decision_function(X) > 0).astype(np.int64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        return tags
