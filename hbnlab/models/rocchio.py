"""Rocchio with TF-IDF prototypes and cosine scores: de Campos et al.'s non-probabilistic baseline.

de Campos et al. (sec. 4) use "the well-known Rocchio method [3]" -- Joachims's TF-IDF
Rocchio classifier -- without stating its parameters.  Following Joachims (1997, sec. 2), each
document is a TF-IDF vector ``d = tf(t, d) * log(N_doc / df(t))`` scaled to unit length, the
prototype of class c_i is

    c_i = beta / |C_i| * sum_{d in C_i} d  -  gamma / |not C_i| * sum_{d not in C_i} d,

and a document's score for c_i is the cosine between its vector and the prototype.  The default
``beta=16, gamma=4`` are the relevance-feedback values of Buckley, Salton and Allan (1994) that
the text-categorization literature adopted for Rocchio; only the ratio gamma/beta changes the
ranking (cosine is scale-free).  All prototypes are one sparse product ``Y.T @ D``.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from hbnlab.bounds import BOOLEAN, Bound
from hbnlab.models.base import BinaryTextClassifier, NonNegativeInputMixin
from hbnlab.models.multinomial_nb import MultiLabelTextClassifier, as_count_matrix

__all__ = ["RocchioClassifier", "RocchioBinaryClassifier", "tfidf_unit_rows"]


def tfidf_unit_rows(X: sp.csr_matrix, idf: np.ndarray, sublinear_tf: bool = False) -> sp.csr_matrix:
    """TF-IDF rows scaled to unit Euclidean length (rows without known terms stay zero)."""
    D = sp.csr_matrix(X, dtype=np.float64, copy=True)
    if sublinear_tf:
        D.data = 1.0 + np.log(D.data)
    D = sp.csr_matrix(D.multiply(idf[None, :]))
    norms = np.sqrt(np.asarray(D.multiply(D).sum(axis=1)).ravel())
    inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    return sp.csr_matrix(sp.diags(inv) @ D)


class RocchioClassifier(MultiLabelTextClassifier):
    """TF-IDF Rocchio prototypes for all classes, cosine scores (Joachims 1997; de Campos sec. 4).

    Parameters
    ----------
    beta : float, default=16.0
        Weight of the positive centroid.
    gamma : float, default=4.0
        Weight of the negative centroid (0 gives the plain centroid classifier).
    sublinear_tf : bool, default=False
        Use 1 + log(tf) instead of the raw term frequency.

    Attributes
    ----------
    idf_ : ndarray (n_terms,)
        log(N_doc / df), 0 for terms absent from the training documents.
    prototypes_ : ndarray (n_classes, n_terms)
        The Rocchio prototype vectors, each scaled to unit length (cosine needs only direction).

    Notes
    -----
    ``decision_function`` is the cosine in [-1, 1] (a ranking score, not a probability; the
    multi-label ``predict`` assigns a class when the cosine is > 0).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2, 0, 1], [0, 3, 1], [1, 0, 0]])
    >>> Y = np.array([[1, 0], [0, 1], [1, 0]], dtype=bool)
    >>> roc = RocchioClassifier().fit(X, Y)
    >>> roc.decision_function(np.array([[1, 0, 0]])).argmax(axis=1).tolist()
    [0]
    """

    _parameter_constraints = {"beta": [Bound("beta", 0, math.inf, integer=False, lo_open=True)],
                              "gamma": [Bound("gamma", 0, math.inf, integer=False)], "sublinear_tf": [BOOLEAN]}

    def __init__(self, *, beta=16.0, gamma=4.0, sublinear_tf=False):
        self.beta = beta
        self.gamma = gamma
        self.sublinear_tf = sublinear_tf

    def _fit_multilabel(self, X, Y):
        n_doc = X.shape[0]
        df = np.bincount(X.indices, minlength=X.shape[1]).astype(np.float64)
        with np.errstate(divide="ignore"):
            self.idf_ = np.where(df > 0, np.log(n_doc / np.maximum(df, 1.0)), 0.0)  # Joachims 1997 IDF
        D = tfidf_unit_rows(X, self.idf_, self.sublinear_tf)
        Yf = np.asarray(Y, dtype=np.float64)
        n_pos = Yf.sum(axis=0)
        n_neg = n_doc - n_pos
        pos_sum = np.asarray((sp.csr_matrix(Yf).T @ D).toarray())
        all_sum = np.asarray(D.sum(axis=0)).ravel()
        neg_sum = all_sum[None, :] - pos_sum
        # Rocchio prototype (Joachims 1997 eq. 1): beta * positive centroid - gamma * negative centroid
        P = float(self.beta) * pos_sum / n_pos[:, None] - float(self.gamma) * neg_sum / n_neg[:, None]
        norms = np.linalg.norm(P, axis=1)
        self.prototypes_ = P / np.where(norms > 0, norms, 1.0)[:, None]

    def _decision(self, X):
        D = tfidf_unit_rows(X, self.idf_, self.sublinear_tf)
        return np.asarray(D @ self.prototypes_.T)

    def term_contributions(self, X, class_index: int = 0) -> sp.csr_matrix:
        """Each term's share of the cosine with class i's prototype, sparse (n_docs, n_terms).

        The row sums are the decision values.
        """
        X = self._check_X(X)
        i = int(class_index)
        if not 0 <= i < self.n_classes_:
            raise ValueError(f"class_index must be in [0, {self.n_classes_}), got {class_index}")
        D = tfidf_unit_rows(X, self.idf_, self.sublinear_tf)
        return sp.csr_matrix(D.multiply(self.prototypes_[i][None, :]))


class RocchioBinaryClassifier(NonNegativeInputMixin, BinaryTextClassifier):
    """One class of :class:`RocchioClassifier` as a binary estimator.

    ``decision_function`` is the cosine score; ``predict_proba`` (inherited) is its logistic,
    a monotone transform and not a calibrated probability.

    Parameters
    ----------
    beta, gamma, sublinear_tf :
        As in :class:`RocchioClassifier`.
    n_features : int or None, default=None
    selection : str, default="ig"

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2, 0, 1], [0, 3, 1], [1, 0, 0]])
    >>> RocchioBinaryClassifier().fit(X, np.array([1, 0, 1])).predict(X).tolist()
    [1, 0, 1]
    """

    _poor_score_on_generic_data = True  # presence/count model (see the base class)

    _parameter_constraints = {**BinaryTextClassifier._parameter_constraints, **RocchioClassifier._parameter_constraints}

    def __init__(self, *, beta=16.0, gamma=4.0, sublinear_tf=False, n_features=None, selection="ig"):
        self.beta = beta
        self.gamma = gamma
        self.sublinear_tf = sublinear_tf
        self.n_features = n_features
        self.selection = selection


    def _fit_selected(self, X, y):
        self.model_ = RocchioClassifier(beta=self.beta, gamma=self.gamma, sublinear_tf=self.sublinear_tf)
        self.model_.fit(as_count_matrix(X), y.reshape(-1, 1) > 0)
        return self

    def _log_odds(self, X):
        return self.model_.decision_function(X)[:, 0]

    def term_contributions(self, X) -> sp.csr_matrix:
        """Each selected term's share of the cosine, sparse (n_documents, n_selected)."""
        return self.model_.term_contributions(self._check_X(X), 0)
