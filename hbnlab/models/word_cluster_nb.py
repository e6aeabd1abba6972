"""Multinomial naive Bayes over distributional word clusters (Baker & McCallum; Slonim & Tishby).

The words are clustered by :func:`hbnlab.clustering.distributional.agglomerate_words` (merge
cost = drop in I(C; W), thesis eqs. 1.2-1.4); each cluster becomes one feature whose count in a
document is the sum of its words' counts, and a multinomial naive Bayes with Laplace smoothing
(Verbeek sec. 3.2) is fitted over the clusters.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from hbnlab.bounds import Bound
from hbnlab.clustering.distributional import agglomerate_words, word_class_counts
from hbnlab.models.base import BinaryTextClassifier, NonNegativeInputMixin, ParameterConstraintsMixin

__all__ = ["WordClusterNB"]


class WordClusterNB(ParameterConstraintsMixin, ClassifierMixin, BaseEstimator):
    """Multi-class, single-label naive Bayes over ``n_clusters`` distributional word clusters.

    Parameters
    ----------
    n_clusters : int, default 50
        Number of word clusters (capped at the number of terms that occur in training).
    pool_size : int or None, default None
        Candidate pool of the agglomeration (Baker & McCallum / Verbeek sec. 5.2); ``None``
        merges greedily over all pairs.
    alpha : float, default 1.0
        Additive smoothing of p(cluster | class) (1.0 = Laplace, Verbeek sec. 3.2).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    clusters_ : ndarray of shape (n_features_in_,), int
        Cluster of every input column; ``-1`` for columns that never occur in training
        (ignored at prediction time).
    n_clusters_ : int
    agglomeration_ : Agglomeration
        Full merge sequence over the occurring terms.
    class_log_prior_ : ndarray of shape (n_classes,)
    feature_log_prob_ : ndarray of shape (n_classes, n_clusters_)
        log p(cluster | class).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[3, 0, 1, 0], [2, 1, 0, 0], [0, 0, 2, 3], [0, 1, 0, 4]])
    >>> clf = WordClusterNB(n_clusters=2).fit(X, [0, 0, 1, 1])
    >>> clf.predict(np.array([[1, 0, 0, 0], [0, 0, 0, 2]])).tolist()
    [0, 1]

    References
    ----------
    L. D. Baker and A. K. McCallum, Distributional clustering of words for text
    classification, SIGIR 1998.  N. Slonim and N. Tishby, Agglomerative information
    bottleneck, NIPS 2000.
    """

    _parameter_constraints = {"n_clusters": [Bound("n_clusters", 1, math.inf)],
                              "pool_size": [Bound("pool_size", 2, math.inf), None],
                              "alpha": [Bound("alpha", 0, math.inf, integer=False, lo_open=True)]}

    def __init__(self, n_clusters: int = 50, *, pool_size: int | None = None, alpha: float = 1.0):
        self.n_clusters = n_clusters
        self.pool_size = pool_size
        self.alpha = alpha

    # ------------------------------------------------------------------ validation
    def _as_csr(self, X, reset: bool) -> sp.csr_matrix:
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=reset)
        X = sp.csr_matrix(X)
        if X.data.size and X.data.min() < 0:
            raise ValueError(f"Negative values in data passed to WordClusterNB (min {X.data.min()}); "
                             "X must hold term counts")
        return X

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Cluster the terms of ``X`` by their class distributions and fit NB over the clusters.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_documents, n_terms)
            Term counts.
        y : array-like of shape (n_documents,)
            Class of every document (single label).
        """
        if y is None:
            raise ValueError("requires y to be passed, but the target y is None")
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        if y.ndim != 1:
            raise ValueError(f"y must be a 1-D vector of class labels, got shape {y.shape}")
        X = self._as_csr(X, reset=True)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
        check_classification_targets(y)
        classes, codes = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(f"y has only one class ({classes[0]!r}); at least 2 are needed")
        self.classes_ = classes
        K = classes.size
        counts = word_class_counts(X, codes, K)
        present = np.flatnonzero(counts.sum(axis=1) > 0)
        if present.size == 0:
            raise ValueError("X has no term occurrences; cannot cluster words")
        agg = agglomerate_words(counts[present], pool_size=self.pool_size)
        k = min(int(self.n_clusters), present.size)
        clusters = np.full(X.shape[1], -1, dtype=np.int64)
        clusters[present] = agg.labels(k)
        self.agglomeration_ = agg
        self.clusters_ = clusters
        self.n_clusters_ = k
        group_counts = np.zeros((k, K))
        np.add.at(group_counts, clusters[present], counts[present])
        a = float(self.alpha)
        # Laplace-smoothed p(cluster | class), Verbeek sec. 3.2
        self.feature_log_prob_ = (
            np.log(group_counts + a) - np.log(group_counts.sum(axis=0) + a * k)[None, :]
        ).T
        self.class_log_prior_ = np.log(np.bincount(codes, minlength=K) / codes.size)
        return self

    # ------------------------------------------------------------------ inference
    def _assignment(self) -> sp.csr_matrix:
        used = np.flatnonzero(self.clusters_ >= 0)
        return sp.csr_matrix(
            (np.ones(used.size), (used, self.clusters_[used])), shape=(self.n_features_in_, self.n_clusters_)
        )

    def _check_X(self, X) -> sp.csr_matrix:
        check_is_fitted(self, "clusters_")
        return self._as_csr(X, reset=False)

    def cluster_counts(self, X) -> sp.csr_matrix:
        """Cluster counts of every document, shape (n_documents, n_clusters_)."""
        return sp.csr_matrix(self._check_X(X) @ self._assignment())

    def _joint_log_likelihood(self, X) -> np.ndarray:
        G = self.cluster_counts(X)
        return np.asarray(G @ self.feature_log_prob_.T) + self.class_log_prior_[None, :]

    def predict_log_proba(self, X) -> np.ndarray:
        jll = self._joint_log_likelihood(X)
        mx = jll.max(axis=1, keepdims=True)
        return jll - (mx + np.log(np.exp(jll - mx).sum(axis=1, keepdims=True)))

    def predict_proba(self, X) -> np.ndarray:
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        check_is_fitted(self, "clusters_")
        return self.classes_[np.argmax(self._joint_log_likelihood(X), axis=1)]

    def decision_function(self, X) -> np.ndarray:
        """Log posterior of every class; for two classes the log odds of ``classes_[1]``."""
        lp = self.predict_log_proba(X)
        return lp[:, 1] - lp[:, 0] if lp.shape[1] == 2 else lp

    def term_contributions(self, X, class_index: int) -> sp.csr_matrix:
        """Per-term evidence ``x_dw (log p(g(w)|c) - mean_c' log p(g(w)|c'))`` for one class.

        Rows sum (with the centred log prior) to the centred joint log likelihood of the class,
        so each entry is that term's share of the score in the explanation view.
        """
        X = self._check_X(X)
        c = int(class_index)
        if not 0 <= c < self.classes_.size:
            raise ValueError(f"class_index must be in 0..{self.classes_.size - 1}, got {class_index}")
        flp = self.feature_log_prob_
        w = np.zeros(self.n_features_in_)
        used = self.clusters_ >= 0
        w[used] = (flp[c] - flp.mean(axis=0))[self.clusters_[used]]
        return sp.csr_matrix(X.multiply(w[None, :]))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        # a multinomial model of counts: like sklearn's MultinomialNB it scores poorly on the
        # Gaussian blobs of the estimator checks
        tags.classifier_tags.poor_score = True
        return tags


class WordGroupNBClassifier(NonNegativeInputMixin, BinaryTextClassifier):
    """One class against the rest with :class:`WordClusterNB`: the terms are grouped by their
    distribution over {class, not class} (Baker & McCallum 1998; Verbeek 2000), and a multinomial
    naive Bayes over the ``n_clusters`` word groups scores the documents.  With few groups the
    model has far fewer parameters than naive Bayes over the terms, which is the point of the
    method when training documents are few.

    Parameters
    ----------
    n_clusters : int, default 50
        Word groups (capped at the number of selected terms that occur in training).
    pool_size : int or None, default None
        Candidate pool of the agglomeration (see :class:`WordClusterNB`).
    alpha : float, default 1.0
        Additive smoothing of p(group | class).
    n_features : int or None, default None
        Terms selected per class before grouping (``None``: every term).
    selection : str, default "ig"

    Attributes
    ----------
    model_ : WordClusterNB
        The fitted two-class model over the selected terms.
    """

    _poor_score_on_generic_data = True
    _parameter_constraints = {**BinaryTextClassifier._parameter_constraints, **WordClusterNB._parameter_constraints}

    def __init__(self, n_clusters: int = 50, *, pool_size: int | None = None, alpha: float = 1.0,
                 n_features: int | None = None, selection: str = "ig"):
        self.n_clusters = n_clusters
        self.pool_size = pool_size
        self.alpha = alpha
        self.n_features = n_features
        self.selection = selection

    def _fit_selected(self, X, y):
        self.model_ = WordClusterNB(self.n_clusters, pool_size=self.pool_size, alpha=self.alpha).fit(X, y)
        return self

    def _log_odds(self, X):
        return self.model_.decision_function(X)

    def term_contributions(self, X) -> sp.csr_matrix:
        """Each selected term's share of the log-odds (the positive class's centred evidence
        doubled: with two classes, log p(g|1) - log p(g|0) = 2 (log p(g|1) - mean))."""
        return sp.csr_matrix(2 * self.model_.term_contributions(self._check_X(X), 1))
