"""The estimator base class every hbnlab classifier derives from.

In the manner of ``sklearn/naive_bayes.py``: one base class writes ``fit`` (validation, local
feature selection), ``decision_function``, ``predict``, ``predict_proba`` and
``predict_log_proba`` once; each model supplies two methods:

* ``_fit_selected(X, y)`` -- learn from the binary/count matrix restricted to the selected
  feature columns (CSR, shape (n_documents, n_selected)) and a 0/1 vector ``y``;
* ``_log_odds(X)`` -- return log P(c=1 | x) - log P(c=0 | x) for every row of such a matrix
  (a float vector; for non-probabilistic models a monotone score whose logistic is the
  reported probability).

Models of term presence or counts also derive from :class:`NonNegativeInputMixin`: ``fit`` and
``predict*`` then refuse negative entries of ``X`` (scikit-learn's ``positive_only`` tag), and
the models binarise with :func:`hbnlab._validation.as_binary`.

Every estimator declares its hyper-parameters in ``_parameter_constraints`` (name -> list of
alternatives, see :mod:`hbnlab.bounds`), and :class:`ParameterConstraintsMixin` checks them all with
:func:`hbnlab.bounds.validate_params` before every ``fit`` reads ``X`` -- scikit-learn's
``_fit_context``: every ``fit`` a subclass writes is wrapped when the class is created, so no ``fit``
calls the check by hand, and the error names the estimator and the parameter.  Checks that join
several parameters or the data stay in the estimators.

Classifiers are binary (one class against the rest, as in the thesis); multi-label corpora use
:class:`hbnlab.models.OneVsRest`.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted, validate_data

from hbnlab.bounds import N_FEATURES, SEED, Bound, Choice, Kind, validate_params
from hbnlab.features.scoring import SCORE_METHODS

#: ``n_features``: selected terms per class, or None (every column).  The estimators take any number
#: from :data:`hbnlab.bounds.N_FEATURES`'s lower end up (more than the columns: all of them); the
#: workbench's range (N_FEATURES.hi) is not imposed on scripts, sweeps and the command line.
N_FEATURES_ALLOWED = [Bound("n_features", N_FEATURES.lo, math.inf), None]
#: ``random_state``: a seed of :data:`hbnlab.bounds.SEED`, None or a numpy ``RandomState``.
RANDOM_STATE_ALLOWED = [SEED, None, Kind("a numpy RandomState", lambda v: isinstance(v, np.random.RandomState))]


class ParameterConstraintsMixin:
    """Checks the declared ``_parameter_constraints`` before every ``fit`` (scikit-learn's
    ``_fit_context``): each class that writes a ``fit`` has it wrapped when the class is created,
    so a subclass's own ``fit`` is checked too, and the :class:`~hbnlab.bounds.BoundsError` names
    the estimator and the parameter.

    >>> from hbnlab.bounds import Bound
    >>> class Toy(ParameterConstraintsMixin, BaseEstimator):
    ...     _parameter_constraints = {"tol": [Bound("tol", 0, math.inf, integer=False)]}
    ...     def __init__(self, tol=0.0):
    ...         self.tol = tol
    ...     def fit(self, X, y=None):
    ...         return self
    >>> Toy(tol=-1e-9).fit(None)
    Traceback (most recent call last):
    ...
    hbnlab.bounds.BoundsError: Toy: tol must be a finite number >= 0, got -1e-09
    """

    _parameter_constraints: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fit = cls.__dict__.get("fit")
        if fit is not None and not getattr(fit, "checks_parameter_constraints", False):
            cls.fit = _checking_parameter_constraints(fit)


def _checking_parameter_constraints(fit):
    """``fit`` preceded by the check of its estimator's ``_parameter_constraints``."""

    @functools.wraps(fit)
    def checked_fit(self, *args, **kwargs):
        validate_params(self, type(self)._parameter_constraints, owner=type(self).__name__)
        return fit(self, *args, **kwargs)

    checked_fit.checks_parameter_constraints = True
    return checked_fit


class BinaryTextClassifier(ParameterConstraintsMixin, ClassifierMixin, BaseEstimator):
    """Base class: binary classifiers over term matrices with optional local feature selection.

    Subclasses define their hyper-parameters in a keyword-only ``__init__`` that includes
    ``n_features`` (``None`` = use every column) and ``selection`` (a method name of
    :func:`hbnlab.features.score_terms`, default ``"ig"``: information gain, thesis sec. 4.1.2).

    Learned attributes: ``classes_`` (the two labels; the second is the positive class), ``n_features_in_``,
    ``selected_features_`` (column indices into the input matrix, in decreasing score order),
    ``feature_scores_`` (their scores).
    """

    n_features = None
    selection = "ig"
    #: hyper-parameter -> allowed alternatives (:func:`hbnlab.bounds.validate_params`); subclasses
    #: extend it with ``{**BinaryTextClassifier._parameter_constraints, ...}``
    _parameter_constraints: dict = {"n_features": N_FEATURES_ALLOWED, "selection": [Choice(SCORE_METHODS)]}
    #: True for models of term presence/counts: sklearn's generic estimator checks train them on
    #: real-valued Gaussian blobs (shifted to >= 0 for ``positive_only`` models, so that nearly
    #: every "term" is present), where the usual training-accuracy bar is not expected.
    _poor_score_on_generic_data = False

    # ------------------------------------------------------------------ subclass API
    def _fit_selected(self, X, y):  # pragma: no cover - abstract
        raise NotImplementedError

    def _log_odds(self, X):  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers
    def _as_csr(self, X, reset: bool) -> sp.csr_matrix:
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=reset)  # rejects NaN/inf
        X = sp.csr_matrix(X)
        if X.shape[1] == 0:
            raise ValueError("X has 0 feature columns; at least 1 is required")
        return X

    def _check_non_negative(self, X: sp.csr_matrix) -> None:
        """Refuse negative entries when the model declares the ``positive_only`` tag (models of
        term presence or counts, :class:`NonNegativeInputMixin`)."""
        if get_tags(self).input_tags.positive_only and X.data.size and X.data.min() < 0:
            # the wording scikit-learn's estimator checks expect of a positive_only estimator
            raise ValueError(f"Negative values in data passed to {type(self).__name__}: X must hold term counts "
                             f"or 0/1 indicators, got min {X.data.min():g}")

    def _validate_y(self, y) -> np.ndarray:
        """Two class labels -> 0/1 (the larger label, e.g. 1 or True, is the positive class)."""
        from sklearn.utils.validation import column_or_1d

        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        if y.ndim != 1:
            raise ValueError(f"y should be a 1d array of binary labels, got shape {y.shape}")
        from sklearn.utils.multiclass import type_of_target

        kind = type_of_target(y)
        if kind == "continuous":
            raise ValueError("Unknown label type: continuous; y must hold binary class labels")
        values = np.unique(y)
        if values.size == 1:
            raise ValueError(
                f"y has only one class ({values[0]!r}); a binary classifier needs positive and negative examples"
            )
        if values.size != 2:
            raise ValueError(f"Only binary classification is supported: y must hold two classes, got "
                             f"{values.size} classes: {values[:5].tolist()} (use hbnlab.models.OneVsRest)")
        self.classes_ = values
        return (y == values[1]).astype(np.int8)

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
        X = self._as_csr(X, reset=True)
        y = self._validate_y(y)
        self._check_non_negative(X)
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
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
        X = self._as_csr(X, reset=False)
        self._check_non_negative(X)
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
        z = self.decision_function(X)
        return self.classes_[(z > 0).astype(np.int64)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.classifier_tags.poor_score = self._poor_score_on_generic_data
        tags.input_tags.sparse = True
        return tags


class NonNegativeInputMixin:
    """For models of term presence or counts: scikit-learn's ``positive_only`` tag, so that
    :class:`BinaryTextClassifier` refuses negative entries of ``X`` in ``fit`` and ``predict*``.

    Put it before the estimator base class: ``class M(NonNegativeInputMixin, BinaryTextClassifier)``.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags
