"""Naive Bayes over a topic hierarchy: per-node feature selection and shrinkage toward the
ancestors (Chakrabarti 2003, sec. 5.7; McCallum, Rosenfeld, Mitchell & Ng 1998).

Classification (Chakrabarti 2003, sec. 5.7: top-down classification along the tree).  For a
category c with path root = u_0, u_1, ..., u_k = c,

    P(c | d) = prod_{i < k} P(u_{i+1} | u_i, d),

each factor the posterior of a multinomial naive Bayes model at internal node u_i among its
children.  The documents of u_i that belong to none of its children (documents labelled u_i
itself, or at the root the documents of no category) form one more class, ``"(other)"``, so that
the factors are proper posteriors.  ``decision_function`` is log P(c | d) - log(1 - P(c | d)).
A category that is an internal node of the taxonomy is scored as its whole subtree (Chakrabarti's
inheritance); an evaluation against the corpus's labels as given counts the subtree's other
documents as negatives.

Feature selection per internal node (sec. 5.7.1).  The node u_i keeps the ``n_features`` terms of
highest Fisher index among its children (eq. 5.11, :func:`hbnlab.features.fisher_index_multiclass`),
computed on the documents of u_i's subtree only: a term that is noise at the root may separate
the children of a deep node.

Parameter estimation by shrinkage (sec. 5.7.2; McCallum et al. 1998).  The term distribution of a
class v of node u is the mixture

    theta~_v = lambda_0 theta_v + lambda_1 theta_u + ... + lambda_m theta_root + lambda_{m+1} / |F_u|

of maximum-likelihood estimates along the path from v up to the root and the uniform distribution
over the node's terms F_u.  The estimate of an ancestor a_j uses the documents of a_j's subtree
minus those of the node below it on the path, so that the levels are estimated from disjoint
documents (our reading of McCallum et al.'s construction; the mixture would otherwise count the
class's own words at every level).  The weights lambda maximise the likelihood of held-out documents
of v (a seeded fraction ``held_out`` of the fitting documents, whose words the level estimates do
not see) by EM (:func:`fit_shrinkage_weights`: E-step, the share of each held-out word that each
level generated; M-step, the shares normalised).  The final levels are then estimated on every
fitting document and mixed with those weights.  ``shrinkage=False`` gives the plain
Laplace-smoothed estimate instead (the hierarchy without sec. 5.7.2, for ablations).

How the learner fits the per-category framework.  Every hbnlab learner is a binary estimator
fitted on ``(X, y)`` for one category.  This one also needs each document's membership in the
other nodes of the taxonomy; ``fit`` takes it as two keyword arguments: ``topics``, a
:class:`~hbnlab.corpus.taxonomy.TopicLabels` of the fitting documents (the taxonomy and the node
membership, inheritance applied), and ``target``, the node of the category.  The catalogue row
declares ``needs_topics``, and :func:`hbnlab.pipeline.fit.fit_unit` passes the two from
:attr:`hbnlab.pipeline.data.ProtocolData.topics`, computed once per corpus from every document's
full label set (so a category's siblings count even when the experiment does not list them).
The taxonomy is data, not a hyper-parameter: it stays out of ``get_params``, and the learned state
records what prediction needs (the path, each node's classes, terms and tables).  A plain
``fit(X, y)`` without ``topics`` -- as scikit-learn's estimator checks call it -- is the one-level
case: the root with the two children "positive" and "negative", shrinkage toward the pooled
distribution.

References
----------
S. Chakrabarti, *Mining the Web: Discovering Knowledge from Hypertext Data*, Morgan Kaufmann,
2003, sec. 5.7.  A. McCallum, R. Rosenfeld, T. Mitchell and A. Y. Ng, "Improving text
classification by shrinkage in a hierarchy of classes", ICML 1998.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from hbnlab.bounds import BOOLEAN, SEED, Bound, Choice, Kind
from hbnlab.corpus.taxonomy import ROOT, Taxonomy, TopicLabels
from hbnlab.features import fisher_index_multiclass
from hbnlab.models.base import BinaryTextClassifier, NonNegativeInputMixin
from hbnlab.models.multinomial_nb import as_count_matrix

__all__ = ["HierarchicalShrinkageNBClassifier", "NodeModel", "RESIDUAL", "shrinkage_e_step", "shrinkage_m_step",
           "fit_shrinkage_weights", "level_masks"]

#: The pseudo-class of a node's documents that belong to none of its children.
RESIDUAL = "(other)"
#: The node names of the one-level hierarchy a plain ``fit(X, y)`` uses.
_FALLBACK = Taxonomy({"negative": ROOT, "positive": ROOT})


# =========================================================================== EM for the mixture weights
def shrinkage_e_step(levels: np.ndarray, counts: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, float]:
    """E-step of McCallum et al. (1998): expected number of held-out words each level generated.

    Parameters
    ----------
    levels : ndarray (L, m)
        One distribution over the node's m terms per level (a row of zeros: a level without data).
    counts : ndarray (m,)
        Held-out word counts of the class.
    lam : ndarray (L,)
        Current mixture weights.

    Returns
    -------
    beta : ndarray (L,)
        ``beta_j = sum_t counts_t lam_j levels[j, t] / sum_i lam_i levels[i, t]``.
    loglik : float
        Held-out log-likelihood ``sum_t counts_t log sum_j lam_j levels[j, t]`` under ``lam``.
    """
    mix = lam @ levels
    seen = counts > 0
    loglik = float(counts[seen] @ np.log(mix[seen]))
    resp = lam[:, None] * levels[:, seen] / mix[seen][None, :]
    return resp @ counts[seen], loglik


def shrinkage_m_step(beta: np.ndarray) -> np.ndarray:
    """M-step: the weights are the normalised expected counts."""
    return beta / beta.sum()


def fit_shrinkage_weights(levels: np.ndarray, counts: np.ndarray, *, max_iter: int = 100,
                          tol: float = 1e-6) -> tuple[np.ndarray, list[float]]:
    """Mixture weights of ``levels`` maximising the likelihood of the held-out ``counts`` (EM).

    Starts from equal weights on the levels that have data; stops when the held-out
    log-likelihood per word rises by less than ``tol`` or after ``max_iter`` iterations.  Returns
    the weights and the log-likelihood before each M-step (never decreasing: EM).  Without
    held-out words the starting weights are returned with an empty trace.

    Examples
    --------
    >>> levels = np.array([[1.0, 0.0], [0.5, 0.5]])
    >>> lam, trace = fit_shrinkage_weights(levels, np.array([3.0, 1.0]), max_iter=500, tol=1e-12)
    >>> lam.round(3).tolist()  # 0.75 = lam_0 + lam_1 / 2 fits the held-out frequency of term 0
    [0.5, 0.5]
    """
    has = levels.sum(axis=1) > 0
    lam = has / has.sum()
    total = float(counts.sum())
    trace: list[float] = []
    if total <= 0:
        return lam, trace
    for _ in range(int(max_iter)):
        beta, loglik = shrinkage_e_step(levels, counts, lam)
        if trace and (loglik - trace[-1]) / total < tol:
            trace.append(loglik)
            break
        trace.append(loglik)
        lam = shrinkage_m_step(beta)
    return lam, trace


def level_masks(topics: TopicLabels, member: np.ndarray, up: tuple) -> list[np.ndarray]:
    """The documents behind each level of one class's shrinkage mixture (McCallum et al. 1998).

    ``member`` marks the class's documents, ``up`` is the path from the class's node up to the
    root (``(u, parent(u), ..., ROOT)``).  Level 0 is the class; level j >= 1 is the subtree of
    ``up[j - 1]`` minus the documents of the level below it on the path.
    """
    masks = [member]
    below = member
    for node in up:
        inside = topics.column(node)
        masks.append(inside & ~below)
        below = inside
    return masks


# =========================================================================== one internal node
@dataclass(frozen=True)
class NodeModel:
    """The naive Bayes model of one internal node among its children.

    ``features`` index the classifier's ``selected_features_``; ``log_theta[k]`` is class k's
    (shrunk) log term distribution over them; ``lambdas[k]`` its mixture weights (class, node,
    ..., root, uniform; empty without shrinkage); ``target`` the class on the path to the
    classifier's category.  A node whose documents all belong to one child has that one class,
    no terms and no weights: its edge has probability 1.
    """

    node: str
    classes: tuple
    features: np.ndarray
    log_prior: np.ndarray
    log_theta: np.ndarray
    lambdas: np.ndarray
    target: int

    def log_posterior(self, X: sp.csr_matrix) -> np.ndarray:
        """log P(class | node, d) of every class, (n_documents, n_classes); ``X`` holds the
        classifier's selected columns."""
        Z = np.asarray(X[:, self.features] @ self.log_theta.T) + self.log_prior[None, :]
        return Z - logsumexp(Z, axis=1, keepdims=True)


class HierarchicalShrinkageNBClassifier(NonNegativeInputMixin, BinaryTextClassifier):
    """Top-down multinomial naive Bayes over a topic taxonomy with per-node Fisher feature
    selection and shrinkage toward the ancestors (Chakrabarti 2003, sec. 5.7; McCallum et al. 1998).

    Parameters
    ----------
    n_features : int or None, default=None
        Terms per internal node (``None``: every term).
    selection : {"fisher"}, default="fisher"
        Per-node term score: Fisher's index among the node's children (Chakrabarti eq. 5.11).
    shrinkage : bool, default=True
        Mix each class's estimate with its ancestors' and the uniform one (sec. 5.7.2); False:
        Laplace-smoothed estimates with ``alpha``.
    alpha : float, default=1.0
        Laplace pseudo-count (``shrinkage=False`` only).
    held_out : float, default=0.3
        Fraction of the fitting documents whose words choose the mixture weights.
    max_iter : int, default=100
    tol : float, default=1e-6
        EM stops when the held-out log-likelihood per word rises by less.
    random_state : int, default=0
        Seeds the held-out draw.

    Attributes
    ----------
    path_ : tuple of str
        The internal nodes from the root down to the category's parent, then the category.
    nodes_ : list of NodeModel
        One per internal node of the path.
    em_traces_ : list of list of list of float
        Held-out log-likelihood per EM iteration, per node and class.
    n_iter_ : int
        The most EM iterations any class's weights took (1 without shrinkage: one counting pass).

    Examples
    --------
    >>> import numpy as np
    >>> from hbnlab.corpus.taxonomy import Taxonomy, TopicLabels
    >>> tax = Taxonomy.from_names(["a.x", "a.y", "b"])
    >>> topics = TopicLabels.from_label_sets(tax, [{"a.x"}, {"a.x"}, {"a.y"}, {"a.y"}, {"b"}, {"b"}])
    >>> X = np.array([[2, 1, 0], [1, 1, 0], [0, 1, 2], [0, 1, 1], [0, 0, 3], [1, 0, 2]])
    >>> clf = HierarchicalShrinkageNBClassifier(shrinkage=False)
    >>> clf = clf.fit(X, [1, 1, 0, 0, 0, 0], topics=topics, target="a.x")
    >>> clf.path_
    ('', 'a', 'a.x')
    >>> bool(clf.decision_function(X[:1])[0] > 0)
    True
    """

    _poor_score_on_generic_data = True  # count model (see the base class)
    _parameter_constraints = {
        "n_features": BinaryTextClassifier._parameter_constraints["n_features"],
        "selection": [Choice(("fisher",))],  # Chakrabarti eq. 5.11 per node
        "shrinkage": [BOOLEAN],
        "alpha": [Bound("alpha", 0, math.inf, integer=False, lo_open=True)],
        "held_out": [Bound("held_out", 0, 1, integer=False, lo_open=True, hi_open=True)],
        "max_iter": [Bound("max_iter", 1, math.inf)],
        "tol": [Bound("tol", 0, math.inf, integer=False)],
        "random_state": [SEED, None, Kind("a numpy Generator", lambda v: isinstance(v, np.random.Generator))],
    }

    def __init__(self, *, n_features=None, selection="fisher", shrinkage=True, alpha=1.0, held_out=0.3,
                 max_iter=100, tol=1e-6, random_state=0):
        self.n_features = n_features
        self.selection = selection
        self.shrinkage = shrinkage
        self.alpha = alpha
        self.held_out = held_out
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    # ------------------------------------------------------------------ checks
    def _candidates(self, selected_features, n_cols: int) -> np.ndarray:
        if selected_features is None:
            return np.arange(n_cols)
        cols = np.asarray(selected_features, dtype=np.int64)
        if cols.ndim != 1 or cols.size == 0 or cols.min() < 0 or cols.max() >= n_cols:
            raise ValueError("selected_features must be a non-empty list of column indices of X")
        return cols

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, selected_features=None, *, topics: TopicLabels | None = None, target: str | None = None):
        """Fit the internal nodes on the path to ``target``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_documents, n_terms)
            Term counts or 0/1 indicators.
        y : array-like of shape (n_documents,)
            The category's binary labels; its positives must belong to ``target`` in ``topics``.
        selected_features : array-like of int, optional
            Candidate columns; each node selects its ``n_features`` among them (default: every column).
        topics : TopicLabels, optional
            Node membership of the fitting documents (default: the one-level hierarchy of ``y``).
        target : str, optional
            The category's node (required with ``topics``).
        """
        X = self._as_csr(X, reset=True)
        y01 = self._validate_y(y)
        self._check_non_negative(X)
        if X.shape[0] != y01.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y01.shape[0]} labels")
        if topics is None:
            topics = TopicLabels(_FALLBACK, np.column_stack([y01 == 0, y01 == 1]))
            target = "positive"
        else:
            if target is None or target not in topics.taxonomy or target == ROOT:
                raise ValueError(f"target must be a node of the taxonomy, got {target!r}")
            if topics.n_documents != X.shape[0]:
                raise ValueError(f"topics holds {topics.n_documents} documents but X has {X.shape[0]} rows")
            if np.any(y01.astype(bool) & ~topics.column(target)):
                raise ValueError(f"y marks documents that topics does not place in {target!r}")
        cand = self._candidates(selected_features, X.shape[1])
        counts = as_count_matrix(X)
        rng = np.random.default_rng(self.random_state)
        held = rng.random(X.shape[0]) < float(self.held_out)
        path = (ROOT, *topics.taxonomy.path(target))
        fitted, traces = [], []
        for i in range(len(path) - 1):
            up = tuple(reversed(path[: i + 1]))
            model, scores, trace = self._fit_node(counts, topics, up, path[i + 1], cand, held)
            fitted.append((model, scores))
            traces.append(trace)
        # the union of the nodes' terms, in order of first use; nodes index into it
        order, seen = [], {}
        for model, _ in fitted:
            for c in model.features:
                if int(c) not in seen:
                    seen[int(c)] = len(order)
                    order.append(int(c))
        score_of = {}
        for model, scores in fitted:
            for c, s in zip(model.features, scores):
                score_of.setdefault(int(c), float(s))
        self.selected_features_ = np.asarray(order, dtype=np.int64)
        self.feature_scores_ = np.array([score_of[c] for c in order])
        self.nodes_ = [NodeModel(m.node, m.classes, np.array([seen[int(c)] for c in m.features], dtype=np.int64),
                                 m.log_prior, m.log_theta, m.lambdas, m.target) for m, _ in fitted]
        self.path_ = path
        self.em_traces_ = traces
        self.n_iter_ = max([1, *(len(t) for node in traces for t in node)])
        return self

    def _fit_node(self, counts: sp.csr_matrix, topics: TopicLabels, up: tuple, child: str, cand: np.ndarray,
                  held: np.ndarray):
        """The model of node ``up[0]`` (``up`` runs from it to the root) with global term columns."""
        tax = topics.taxonomy
        node = up[0]
        inside = topics.column(node)
        kids = [c for c in tax.children(node) if topics.column(c).any()]
        members = [topics.column(c) for c in kids]
        rest = inside & ~np.any(members, axis=0) if members else inside
        classes = list(kids)
        if rest.any():
            classes.append(RESIDUAL)
            members.append(rest)
        M = np.column_stack(members)
        if len(classes) == 1:
            # a single child holds every document of the node: the edge is certain, no term decides it
            model = NodeModel(node, tuple(classes), np.zeros(0, dtype=np.int64), np.zeros(1), np.zeros((1, 0)),
                              np.zeros((1, 0)), 0)
            return model, np.zeros(0), [[]]
        rows = np.flatnonzero(inside)
        # Chakrabarti sec. 5.7.1: terms scored among the documents of this node's subtree only
        scores = fisher_index_multiclass(counts[rows][:, cand], M[rows])
        order = np.lexsort((np.arange(scores.size), -scores))
        if self.n_features is not None:
            order = order[: int(self.n_features)]
        features = cand[order]
        Xf = counts[:, features]
        m = features.size
        n_class = M.sum(axis=0).astype(np.float64)
        log_prior = np.log((n_class + 1.0) / (n_class.sum() + n_class.size))
        log_theta = np.empty((len(classes), m))
        lambdas = np.empty((len(classes), len(up) + 2 if self.shrinkage else 0))
        traces = []
        for k in range(len(classes)):
            masks = level_masks(topics, M[:, k], up)
            if not self.shrinkage:
                c = np.asarray(Xf[masks[0]].sum(axis=0)).ravel()
                log_theta[k] = np.log((c + self.alpha) / (c.sum() + self.alpha * m))
                traces.append([])
                continue
            fit_levels = _level_distributions(Xf, [mk & ~held for mk in masks])
            h = np.asarray(Xf[M[:, k] & held].sum(axis=0)).ravel()
            lam, trace = fit_shrinkage_weights(fit_levels, h, max_iter=self.max_iter, tol=self.tol)
            theta = lam @ _level_distributions(Xf, masks)
            log_theta[k] = np.log(theta)
            lambdas[k] = lam
            traces.append(trace)
        target = classes.index(child)
        model = NodeModel(node, tuple(classes), features, log_prior, log_theta, lambdas, target)
        return model, scores[order], traces

    # ------------------------------------------------------------------ predict
    def path_log_proba(self, X) -> np.ndarray:
        """log P(u_{i+1} | u_i, d) for every edge of the path, (n_documents, depth)."""
        return self._path_terms(self._check_X(X))

    def _path_terms(self, X: sp.csr_matrix) -> np.ndarray:
        cols = [model.log_posterior(X)[:, model.target] for model in self.nodes_]
        return np.column_stack(cols) if cols else np.zeros((X.shape[0], 0))

    def _log_odds(self, X):
        # Chakrabarti 2003, sec. 5.7: P(c | d) is the product of the edge posteriors on the path
        log_p = np.minimum(self._path_terms(X).sum(axis=1), -np.finfo(np.float64).tiny)
        # log(1 - P): expm1 near P = 1, log1p elsewhere (each branch only where it is accurate)
        near_one = log_p > -np.log(2.0)
        log_q = np.empty_like(log_p)
        log_q[near_one] = np.log(-np.expm1(log_p[near_one]))
        log_q[~near_one] = np.log1p(-np.exp(log_p[~near_one]))
        return log_p - log_q


def _level_distributions(Xf: sp.csr_matrix, masks: list) -> np.ndarray:
    """Maximum-likelihood term distributions of the documents of each mask, plus the uniform
    distribution as the last row; a mask without words gives a row of zeros."""
    S = sp.csr_matrix(np.vstack(masks).astype(np.float64))
    C = (S @ Xf).toarray()
    tot = C.sum(axis=1, keepdims=True)
    P = np.divide(C, tot, out=np.zeros_like(C), where=tot > 0)
    return np.vstack([P, np.full((1, Xf.shape[1]), 1.0 / Xf.shape[1])])
