"""Multinomial naive Bayes with the binary decomposition of de Campos et al. (eqs. 2-6).

The multi-label problem with ``n`` categories is decomposed into ``n`` binary class variables
``C_i`` in ``{c_i, not c_i}`` (de Campos sec. 2, last paragraphs).  All ``n`` binary models share
one set of sufficient statistics -- the term counts per class ``N_ik`` -- so the whole family is
fitted with one sparse product ``Y.T @ X`` and scored with one product ``X @ coef_.T``.

This module also holds :class:`MultiLabelTextClassifier`, the small base class of the natively
multi-label estimators of hbnlab (:class:`MultinomialNBClassifier`,
:class:`hbnlab.models.or_gate.NoisyORClassifier`, :class:`hbnlab.models.rocchio.RocchioClassifier`):
``fit(X, Y)`` with a boolean label matrix, ``decision_function(X)`` of shape
``(n_documents, n_classes)``.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from hbnlab._validation import as_count_matrix
from hbnlab.bounds import BOOLEAN, Bound, Choice
from hbnlab.models.base import BinaryTextClassifier, NonNegativeInputMixin, ParameterConstraintsMixin

__all__ = ["MultiLabelTextClassifier", "MultinomialNBClassifier", "MultinomialNBBinaryClassifier",
           "class_term_counts", "as_count_matrix", "presence_pattern", "TERM_TOTALS",
           "one_of_n_log_odds"]


def presence_pattern(X: sp.csr_matrix) -> sp.csr_matrix:
    """The 0/1 presence matrix of a count matrix checked by :func:`as_count_matrix`.

    The same values as :func:`hbnlab._validation.as_binary`, but in ``X``'s storage order: the
    order of a row's entries is the summation order of the products ``X @ W`` that score
    documents, and the column-selected matrices of the binary adapters have unsorted indices,
    so sorting them would change the last bits of the scores.
    """
    Xb = X.copy()
    Xb.data = (Xb.data > 0).astype(np.float64)
    return Xb


class MultiLabelTextClassifier(ParameterConstraintsMixin, BaseEstimator):
    """Base class: one model for all categories of a multi-label corpus.

    Subclasses implement ``_fit_multilabel(X, Y)`` (X: CSR counts, Y: bool (n_docs, n_classes))
    and ``_decision(X)`` returning a float array (n_docs, n_classes) that ranks documents for
    each class.  Probabilistic subclasses set ``_probabilistic = True``: their decision value is
    the log-odds ``log P(c_i | d) - log P(not c_i | d)`` and :meth:`predict_proba` is its logistic.

    Learned attributes: ``n_features_in_``, ``n_classes_``.
    """

    _probabilistic = False
    #: the Y checks of fit: every class needs a positive document; and a negative one?
    _needs_negatives = True
    #: hyper-parameter -> allowed alternatives, checked before every ``fit`` (:class:`ParameterConstraintsMixin`)
    _parameter_constraints: dict = {}

    def _fit_multilabel(self, X, Y):  # pragma: no cover - abstract
        raise NotImplementedError

    def _decision(self, X):  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ validation
    @staticmethod
    def _validate_Y(Y, n_rows: int, needs_negatives: bool) -> np.ndarray:
        Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y)
        if Y.ndim != 2:
            raise ValueError(
                f"Y must be a 2-D label matrix (n_documents, n_classes) of 0/1 or bool, got shape {Y.shape}"
            )
        if Y.shape[0] != n_rows:
            raise ValueError(f"X has {n_rows} rows but Y has {Y.shape[0]}")
        if Y.shape[1] == 0:
            raise ValueError("Y has 0 class columns; at least 1 is required")
        values = np.unique(Y)
        if not set(values.tolist()) <= {0, 1}:
            raise ValueError(f"Y must hold 0/1 or bool labels, got values {values[:5].tolist()}")
        Y = Y.astype(bool)
        pos = Y.sum(axis=0)
        empty = np.flatnonzero(pos == 0)
        if empty.size:
            raise ValueError(f"Y column(s) {empty[:10].tolist()} have no positive training document")
        if needs_negatives:
            full = np.flatnonzero(pos == n_rows)
            if full.size:
                raise ValueError(f"Y column(s) {full[:10].tolist()} have no negative training document")
        return Y

    def fit(self, X, Y):
        """Fit on a term-count matrix ``X`` (n_documents, n_terms) and labels ``Y`` (n_documents, n_classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_documents, n_terms)
            Non-negative term counts (or 0/1 indicators).
        Y : array-like of shape (n_documents, n_classes)
            Boolean (or 0/1) label matrix; a document may have several labels.

        Returns
        -------
        self
        """
        X = as_count_matrix(X)
        Y = self._validate_Y(Y, X.shape[0], self._needs_negatives)
        self.n_features_in_ = X.shape[1]
        self.n_classes_ = Y.shape[1]
        self._fit_multilabel(X, Y)
        return self

    def _check_X(self, X) -> sp.csr_matrix:
        check_is_fitted(self, "n_classes_")
        X = as_count_matrix(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} columns but {type(self).__name__} was fitted with {self.n_features_in_}"
            )
        return X

    # ------------------------------------------------------------------ public API
    def decision_function(self, X) -> np.ndarray:
        """Ranking score per document and class, shape (n_documents, n_classes)."""
        return np.asarray(self._decision(self._check_X(X)), dtype=np.float64)

    def predict_log_proba(self, X) -> np.ndarray:
        """log P(c_i = 1 | d) per document and class, shape (n_documents, n_classes)."""
        if not self._probabilistic:
            raise AttributeError(f"{type(self).__name__} is not probabilistic; use decision_function")
        return -np.logaddexp(0.0, -self.decision_function(X))

    def predict_proba(self, X) -> np.ndarray:
        """P(c_i = 1 | d) per document and class, shape (n_documents, n_classes).

        Multi-label: each column is a separate binary posterior, rows need not sum to 1.
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """Boolean label matrix: class i assigned where the decision value is > 0."""
        return self.decision_function(X) > 0


TERM_TOTALS = ("documents", "classes")


def one_of_n_log_odds(J) -> np.ndarray:
    """Log-odds ``log p(c_i | d) - log(1 - p(c_i | d))`` when one class variable takes the n values.

    ``J`` holds ``log p(c_i) p(d | c_i)`` up to a per-row constant (de Campos sec. 2, the model
    before the binary decomposition); the posterior is its row-wise softmax.  The log-odds are
    ``J_i - logsumexp_{j != i} J_j``, taken without cancellation: for the row maximum the sum
    runs over the other entries, for the rest ``logsumexp(J) + log1p(-exp(J_i - logsumexp(J)))``
    with ``exp(...) <= 1/2``.  A single column gives ``+inf`` (a certain class).

    Examples
    --------
    >>> J = np.log([[0.2, 0.3, 0.5]])
    >>> np.allclose(one_of_n_log_odds(J), np.log([[0.2 / 0.8, 0.3 / 0.7, 0.5 / 0.5]]))
    True
    """
    J = np.asarray(J, dtype=np.float64)
    n, m = J.shape
    top = np.argmax(J, axis=1)
    rows = np.arange(n)
    with np.errstate(divide="ignore"):
        lse = np.logaddexp.reduce(J, axis=1)
        rest = J.copy()
        rest[rows, top] = -np.inf
        lse_rest = np.logaddexp.reduce(rest, axis=1) if m > 1 else np.full(n, -np.inf)
        others = lse[:, None] + np.log1p(-np.exp(J - lse[:, None]))
    others[rows, top] = lse_rest
    with np.errstate(invalid="ignore"):
        return J - others


def class_term_counts(X: sp.csr_matrix, Y: np.ndarray, totals: str = "documents"):
    """The sufficient statistics shared by multinomial NB and the OR gate (de Campos sec. 3.2).

    Parameters
    ----------
    X : sparse matrix (n_documents, n_terms)
    Y : array (n_documents, n_classes) of bool
    totals : {"documents", "classes"}, default "documents"
        How ``N_{.k}`` and ``N`` are formed.  ``"documents"``: occurrences in all training
        documents (the column sums of ``X``), so for a multi-label corpus ``N_k - N_ik`` is
        exactly the count in the documents outside class i (eq. 6), and documents without a
        class count too.  ``"classes"``: de Campos et al.'s formula ``N_{.k} = sum_i N_ik`` (sec.
        2, after eq. 6) and ``N = sum_k N_{.k}``: everything from the ``N_ik`` table alone, so a
        document counts once per label and a document without a label not at all.  The two
        agree on a single-label corpus in which every document has a class.

    Returns
    -------
    N_ik : ndarray (n_classes, n_terms)
        Occurrences of term k in the training documents of class i.
    N_k : ndarray (n_terms,)
        ``N_{.k}``, see ``totals``.
    N_i : ndarray (n_classes,)
        Words in the documents of class i (``N_{i.}``).
    N : float
        ``sum_k N_{.k}``.
    """
    if totals not in TERM_TOTALS:
        raise ValueError(f"totals must be one of {TERM_TOTALS}, got {totals!r}")
    Yf = sp.csr_matrix(np.asarray(Y, dtype=np.float64))
    N_ik = np.asarray((Yf.T @ X).toarray(), dtype=np.float64)
    if totals == "classes":
        N_k = N_ik.sum(axis=0)
    else:
        N_k = np.asarray(X.sum(axis=0), dtype=np.float64).ravel()
    N_i = N_ik.sum(axis=1)
    return N_ik, N_k, N_i, float(N_k.sum())


class MultinomialNBClassifier(MultiLabelTextClassifier):
    """Multinomial naive Bayes, one binary model per class sharing the counts (de Campos eqs. 2-6).

    For class i the log-odds of a document d with term counts ``n_jk`` is

        log p(c_i)/(1 - p(c_i)) + sum_k n_jk [log p(t_k | c_i) - log p(t_k | not c_i)]

    with (eq. 4, Laplace) ``p(t_k | c_i) = (N_ik + alpha) / (N_i. + alpha M)``, (eq. 6)
    ``p(t_k | not c_i) = (N_.k - N_ik + alpha) / (N - N_i. + alpha M)`` and (eq. 5) the maximum
    likelihood prior ``p(c_i) = N_i,doc / N_doc``.  ``M`` is the number of columns of X (the
    training vocabulary).  The document-length and multinomial-coefficient factors of eq. 2 are
    the same for c_i and not c_i and cancel (eq. 3).

    Parameters
    ----------
    alpha : float, default=1.0
        Additive smoothing; 1 is the Laplace estimate of eqs. 4 and 6.
    binary : bool, default=False
        Clip counts to 0/1 before fitting and scoring (a multinomial model on term presence).
    totals : {"documents", "classes"}, default="documents"
        ``N_{.k}`` and ``N`` of eq. 6 from all training documents or as ``sum_i N_ik``
        (:func:`class_term_counts`).

    Attributes
    ----------
    feature_log_prob_ : ndarray (n_classes, n_terms)
        log p(t_k | c_i).
    feature_log_prob_neg_ : ndarray (n_classes, n_terms)
        log p(t_k | not c_i).
    class_log_prior_ : ndarray (n_classes, 2)
        log p(not c_i), log p(c_i).
    coef_ : ndarray (n_classes, n_terms)
        ``feature_log_prob_ - feature_log_prob_neg_``: the contribution of one occurrence.
    intercept_ : ndarray (n_classes,)
        Prior log-odds.

    References
    ----------
    de Campos, Fernández-Luna, Huete, Romero, "OR gate Bayesian networks for text
    classification", sec. 2.

    Examples
    --------
    Two classes, two terms; class 0 has counts (2, 0) and the complement (1, 3):

    >>> import numpy as np
    >>> X = np.array([[2, 0], [1, 1], [0, 2]])
    >>> Y = np.array([[1, 0], [0, 1], [0, 1]], dtype=bool)
    >>> nb = MultinomialNBClassifier().fit(X, Y)
    >>> bool(np.isclose(nb.coef_[0, 0], np.log((2 + 1) / (2 + 2)) - np.log((1 + 1) / (4 + 2))))
    True
    """

    _probabilistic = True
    _parameter_constraints = {"alpha": [Bound("alpha", 0, math.inf, integer=False, lo_open=True)],
                              "binary": [BOOLEAN], "totals": [Choice(TERM_TOTALS)]}

    def __init__(self, *, alpha=1.0, binary=False, totals="documents"):
        self.alpha = alpha
        self.binary = binary
        self.totals = totals

    def _prepare(self, X):
        return presence_pattern(X) if self.binary else X

    def _fit_multilabel(self, X, Y):
        X = self._prepare(X)
        a = float(self.alpha)
        N_ik, N_k, N_i, N = class_term_counts(X, Y, self.totals)
        M = X.shape[1]
        # de Campos eq. 4 (Laplace, alpha = 1)
        self.feature_log_prob_ = np.log(N_ik + a) - np.log(N_i + a * M)[:, None]
        # de Campos eq. 6: the complement class
        self.feature_log_prob_neg_ = np.log(N_k[None, :] - N_ik + a) - np.log(N - N_i + a * M)[:, None]
        # de Campos eq. 5: maximum-likelihood prior over documents
        n_pos = Y.sum(axis=0).astype(np.float64)
        n_doc = float(Y.shape[0])
        self.class_log_prior_ = np.column_stack([np.log(n_doc - n_pos), np.log(n_pos)]) - np.log(n_doc)
        self.coef_ = self.feature_log_prob_ - self.feature_log_prob_neg_
        self.intercept_ = self.class_log_prior_[:, 1] - self.class_log_prior_[:, 0]

    def _decision(self, X):
        X = self._prepare(X)
        return np.asarray(X @ self.coef_.T) + self.intercept_[None, :]

    def joint_log_likelihood(self, X) -> np.ndarray:
        """``log p(c_i) + sum_k n_jk log p(t_k | c_i)`` (de Campos eqs. 3-5), shape (n_documents, n_classes):
        the one-class-variable model's unnormalised log posterior (see :func:`one_of_n_log_odds`)."""
        X = self._prepare(self._check_X(X))
        return np.asarray(X @ self.feature_log_prob_.T) + self.class_log_prior_[:, 1][None, :]

    def term_contributions(self, X, class_index: int = 0) -> sp.csr_matrix:
        """Per-document, per-term contribution ``n_jk * coef_[i, k]`` to class i's log-odds.

        Sparse (n_documents, n_terms); ``intercept_[i] + row sum`` is the decision value.
        """
        X = self._prepare(self._check_X(X))
        i = int(class_index)
        if not 0 <= i < self.n_classes_:
            raise ValueError(f"class_index must be in [0, {self.n_classes_}), got {class_index}")
        return sp.csr_matrix(X.multiply(self.coef_[i][None, :]))


class MultinomialNBBinaryClassifier(NonNegativeInputMixin, BinaryTextClassifier):
    """One class of :class:`MultinomialNBClassifier` as a binary estimator (thesis protocol).

    Parameters
    ----------
    alpha : float, default=1.0
        Laplace smoothing (de Campos eqs. 4, 6).
    binary : bool, default=False
        Clip counts to 0/1.
    n_features : int or None, default=None
        Number of locally selected terms (None: all columns).
    selection : str, default="ig"
        Scoring method for local selection (:func:`hbnlab.features.score_terms`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2, 0], [1, 1], [0, 2]])
    >>> clf = MultinomialNBBinaryClassifier().fit(X, np.array([1, 0, 0]))
    >>> clf.predict(X).tolist()
    [1, 0, 0]
    """

    _parameter_constraints = {**BinaryTextClassifier._parameter_constraints,
                              **{k: v for k, v in MultinomialNBClassifier._parameter_constraints.items()
                                 if k in ("alpha", "binary")}}

    def __init__(self, *, alpha=1.0, binary=False, n_features=None, selection="ig"):
        self.alpha = alpha
        self.binary = binary
        self.n_features = n_features
        self.selection = selection

    def _fit_selected(self, X, y):
        self.model_ = MultinomialNBClassifier(alpha=self.alpha, binary=self.binary)
        self.model_.fit(as_count_matrix(X), y.reshape(-1, 1) > 0)
        self.coef_ = self.model_.coef_[0]
        self.intercept_ = float(self.model_.intercept_[0])
        return self

    def _log_odds(self, X):
        return self.model_.decision_function(X)[:, 0]

    def term_contributions(self, X) -> sp.csr_matrix:
        """Contribution of each selected term to the log-odds, sparse (n_documents, n_selected)."""
        return self.model_.term_contributions(self._check_X(X), 0)
