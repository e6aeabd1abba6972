"""Exact inference in HBN and HNB classifiers, vectorized over documents.

All functions take a :class:`~hbnlab.bn.params.TreeParameters` and a binary document x feature
matrix ``X`` (CSR or dense, shape (n_documents, n_features); a positive entry counts as
"present", a negative one is an error), collapse the documents to their distinct patterns and
run the kernels of :mod:`hbnlab.bn.kernels` once per pattern.

HBN (thesis ch. 2): all features are observed parentless roots, so the distribution of each
hidden node given the features is computed bottom-up, ``q_i = P(H_i = 1 | features under i)``.
With the class unobserved, ``q_i`` is also the posterior given *all* features (a hidden node is
d-separated from the features outside its subtree: the paths meet at unobserved colliders), so
:func:`node_marginals` returns ``q_i`` for both.

HNB (thesis sec. 3.3): upward lambda messages from the observed features, combined with the
class prior at the root; a downward pass gives the posteriors of the hidden nodes.

Subtree contributions (both directions) answer "why did the model say *trade*?": for a node
``j`` the contribution is

    LO(C | all features) - LO(C | all features except those under j)

with ``LO`` the class log-odds.  For an HNB the contributions of the class's children add up
exactly: ``LO(all) = log P(C=1)/P(C=0) + sum_j contribution_j`` (each child sends one factor to
the class).  For an HBN, removing the evidence under ``j`` replaces ``q_j`` by its prior marginal
``P(j = 1)`` (features under ``j`` are independent of the others), and the contributions are not
additive in general: they measure how much the evidence in that subtree moved the decision,
given all the rest.
"""
from __future__ import annotations

import numpy as np

from hbnlab.bn import hnb_kernels as HK
from hbnlab.bn import kernels as K
from hbnlab.bn.params import TreeParameters
from hbnlab.bn.structure import FEATURE


def _check_params(params) -> TreeParameters:
    if not isinstance(params, TreeParameters):
        raise TypeError(f"params must be a TreeParameters, got {type(params).__name__}")
    return params


def _batched(params: TreeParameters):
    return [t[None] for t in params.cpts]


def _prepare(params: TreeParameters, X, y=None):
    data = K.collapse_patterns(X, y, n_columns=params.tree.n_features)
    plan = K.TreePlan(params.tree, data.U)
    return data, plan


def class_log_odds(params: TreeParameters, X) -> np.ndarray:
    """log P(C=1 | features) - log P(C=0 | features) per document, shape (n_documents,).

    ``+inf`` / ``-inf`` when the parameters give the other class probability exactly zero.
    """
    params = _check_params(params)
    data, plan = _prepare(params, X)
    cpts = _batched(params)
    if params.direction == "hbn":
        lo = K.hbn_class_log_odds(plan, cpts)[0]
    else:
        lj = HK.hnb_root_logjoint(plan, cpts)[0]
        with np.errstate(invalid="ignore"):
            lo = lj[:, 1] - lj[:, 0]
    return lo[data.inverse]


def class_posterior(params: TreeParameters, X) -> np.ndarray:
    """P(C = s | features), shape (n_documents, 2)."""
    lo = class_log_odds(params, X)
    with np.errstate(over="ignore"):
        p1 = np.exp(-np.logaddexp(0.0, -lo))
        p0 = np.exp(-np.logaddexp(0.0, lo))
    return np.column_stack([p0, p1])


def log_likelihood(params: TreeParameters, X, y, *, conditional: bool = False, per_document: bool = False):
    """log P(c, f) (``conditional=False``) or log P(c | f) of labelled documents.

    Returns the total, or a vector with one value per document when ``per_document``.
    """
    params = _check_params(params)
    y = np.asarray(y)
    data, plan = _prepare(params, X, y)
    cpts = _batched(params)
    P = data.n_patterns
    yi = data.y.astype(np.int64)
    if params.direction == "hbn":
        q, _ = K.hbn_upward(plan, cpts)
        lp = K.log0(q[0][0, plan.nodes[0].inv, yi])
        if not conditional:
            lp = lp + _hbn_feature_logprob(params, data.U)
    else:
        lj = HK.hnb_root_logjoint(plan, cpts)[0]
        lp = lj[np.arange(P), yi]
        if conditional:
            lp = lp - np.logaddexp(lj[:, 0], lj[:, 1])
    if per_document:
        return lp[data.inverse]
    return float(np.sum(data.counts * lp))


def _hbn_feature_logprob(params, U):
    tree = params.tree
    out = np.zeros(U.shape[0])
    for i in tree.feature_nodes():
        t = params.cpt(i)
        with np.errstate(divide="ignore"):
            out += np.where(U[:, tree.feature[i]], np.log(t[1]), np.log(t[0]))
    return out


def marginal_summary(dist: np.ndarray) -> np.ndarray:
    """One number per distribution over a node's states (last axis): P(state 1) for a binary
    node; the mean state over ``n - 1`` (in [0, 1]; P(state 1) when ``n = 2``) otherwise."""
    n = dist.shape[-1]
    if n == 2:
        return dist[..., 1]
    return dist @ (np.arange(n) / (n - 1))


def prior_distributions(params: TreeParameters) -> list:
    """P(node = t) with no evidence: one array of the node's number of states per node."""
    params = _check_params(params)
    tree = params.tree
    if params.direction == "hbn":
        plan = K.TreePlan(tree, np.zeros((1, tree.n_features), dtype=bool))
        over = {i: params.cpt(i)[None, None, :] for i in tree.feature_nodes()}
        q, _ = K.hbn_upward(plan, _batched(params), over)
        return [np.array(params.cpt(i) if tree.kind[i] == FEATURE else q[i][0, 0]) for i in range(tree.n_nodes)]
    dist = {0: params.cpt(0)}
    for i in sorted(range(1, tree.n_nodes), key=tree.depth):
        dist[i] = dist[tree.up[i]] @ params.cpt(i)
    return [np.array(dist[i]) for i in range(tree.n_nodes)]


def prior_marginals(params: TreeParameters) -> np.ndarray:
    """P(node = 1) with no evidence, shape (n_nodes,) (for a hidden node of ``n > 2`` states its
    mean state over ``n - 1``; :func:`prior_distributions` gives the full distributions)."""
    return np.array([float(marginal_summary(d)) for d in prior_distributions(params)])


def node_marginals(params: TreeParameters, X, y=None) -> np.ndarray:
    """P(node = 1 | document), shape (n_documents, n_nodes).

    Features: their observed value.  Class and hidden nodes: the posterior given all features
    (for an HBN this is the bottom-up value ``q_i``), or given the features and the class when
    ``y`` is given (then the class column is ``y``).  A hidden node of ``n > 2`` states gets its
    posterior mean state over ``n - 1`` (:func:`node_distributions` gives the distributions).
    """
    return np.column_stack([marginal_summary(d) for d in node_distributions(params, X, y)])


def node_distributions(params: TreeParameters, X, y=None) -> list:
    """P(node = t | document) for every node: a list of arrays (n_documents, n_states of the node).

    The same posteriors as :func:`node_marginals` (features: their observed value as a one-hot
    row; with ``y`` the posteriors given the class as well), for nodes of any number of states.
    """
    params = _check_params(params)
    tree = params.tree
    data, plan = _prepare(params, X, y)
    cpts = _batched(params)
    P = data.n_patterns
    out: list = [None] * tree.n_nodes
    for i in tree.feature_nodes():
        x = data.U[:, tree.feature[i]].astype(np.float64)
        out[i] = np.column_stack([1.0 - x, x])
    if params.direction == "hbn":
        if y is None:
            q, _ = K.hbn_upward(plan, cpts)
            for i in plan.bottom_up:
                out[i] = q[i][0, plan.nodes[i].inv]
        else:
            _, _, posts = K.hbn_estep(plan, cpts, data.y, data.counts, return_posteriors=True)
            for i in plan.bottom_up:
                out[i] = posts[i][0]
    else:
        loglam, lam, msg = HK.hnb_upward(plan, cpts)
        if y is None:
            lj = HK._hnb_root_logjoint(cpts, loglam[0])
            post_root = np.exp(lj - np.logaddexp(lj[..., :1], lj[..., 1:]))
        else:
            post_root = np.zeros((1, P, 2))
            post_root[0, np.arange(P), data.y.astype(np.int64)] = 1.0
        post = HK.hnb_downward(plan, cpts, lam, msg, post_root)
        for i in plan.bottom_up:
            p = post[i][0]
            tot = p.sum(axis=1, keepdims=True)
            out[i] = np.divide(p, tot, out=np.full(p.shape, np.nan), where=tot > 0)
    return [np.asarray(d)[data.inverse] for d in out]


def _check_nodes(tree, nodes) -> list:
    nodes = list(tree.children(0)) if nodes is None else [int(j) for j in nodes]
    for j in nodes:
        if not (0 < j < tree.n_nodes):
            raise ValueError(f"node {j} is not a non-root node of the tree (1..{tree.n_nodes - 1})")
    return nodes


def subtree_log_odds(params: TreeParameters, X, nodes=None):
    """The class log-odds with all the evidence, and with the evidence under each node removed.

    Both come from the log-space quantities of the upward pass -- ``log P(C = c | f)`` of an HBN
    (thesis ch. 2), ``log P(C = c, f)`` of an HNB -- never from a probability rounded to 0 or 1.

    Parameters
    ----------
    params : TreeParameters
    X : {array-like, sparse matrix} of shape (n_documents, n_features)
    nodes : sequence of int, optional
        Non-root nodes; default: the nodes directly below the class.

    Returns
    -------
    full : ndarray of shape (n_documents,)
        ``LO(C | all features)``.
    without : ndarray of shape (n_documents, len(nodes))
        ``LO(C | all features except those under node)``.
    nodes : list of int

    Notes
    -----
    A table with an empty cell (maximum likelihood, ``pseudo_count=0``) can give a class probability
    exactly 0: the log-odds is then ``+inf`` or ``-inf`` (the model is *certain*), and so is the
    log-odds without a node's evidence unless that evidence is what makes the model certain.  An HNB
    that gives the document probability 0 under both classes has no log-odds (NaN).
    """
    params = _check_params(params)
    nodes = _check_nodes(params.tree, nodes)
    data, plan = _prepare(params, X)
    cpts = _batched(params)
    without = np.zeros((data.n_patterns, len(nodes)))
    with np.errstate(invalid="ignore"):
        if params.direction == "hbn":
            full = K.hbn_class_log_odds(plan, cpts)[0]
            prior = prior_distributions(params)
            for col, j in enumerate(nodes):
                # the features under j are independent of the others: their evidence removed, j
                # has its prior distribution
                without[:, col] = K.hbn_class_log_odds(plan, cpts, {j: prior[j][None, None, :]})[0]
        else:
            def lo(removed):
                lj = HK.hnb_root_logjoint(plan, cpts, frozenset(removed))[0]
                return lj[:, 1] - lj[:, 0]

            full = lo(())
            for col, j in enumerate(nodes):
                # dropping node j's message to the node above removes all evidence under j
                without[:, col] = lo((j,))
    return full[data.inverse], without[data.inverse], nodes


def log_odds_change(full, without) -> np.ndarray:
    """``full - without`` of class log-odds, where both may be infinite (a certain model): equal
    values give 0 (the evidence changes nothing, however certain the model is without it), ``+inf``
    or ``-inf`` when only ``full`` is infinite (that evidence makes the model certain).  NaN only
    where ``full`` is (a document the model gives probability 0 under both classes)."""
    full = np.asarray(full, dtype=np.float64)
    without = np.asarray(without, dtype=np.float64)
    if full.ndim == 1 and without.ndim == 2:
        full = full[:, None]
    with np.errstate(invalid="ignore"):
        return np.where(full == without, 0.0, full - without)


def subtree_contributions(params: TreeParameters, X, nodes=None):
    """Change of the class log-odds caused by the evidence under each node.

    Parameters
    ----------
    params : TreeParameters
    X : {array-like, sparse matrix} of shape (n_documents, n_features)
    nodes : sequence of int, optional
        Non-root nodes to score; default: the nodes directly below the class.

    Returns
    -------
    contributions : ndarray of shape (n_documents, len(nodes))
        ``LO(C | all features) - LO(C | all features except those under node)``
        (:func:`subtree_log_odds`, :func:`log_odds_change`: 0 where the model is equally certain
        without the node's evidence, +-inf where that evidence makes it certain).
    nodes : list of int

    Notes
    -----
    For an HNB and the class's children, ``prior log-odds + contributions.sum(1)`` equals the
    class log-odds exactly.  For an HBN the contributions are not additive.
    """
    full, without, nodes = subtree_log_odds(params, X, nodes)
    return log_odds_change(full, without), nodes


__all__ = [
    "class_log_odds", "class_posterior", "log_likelihood", "node_marginals", "prior_marginals",
    "node_distributions", "prior_distributions", "marginal_summary", "subtree_contributions", "subtree_log_odds",
    "log_odds_change",
]
