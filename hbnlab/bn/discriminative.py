"""The tables of a fixed tree fitted for the decision: the conditional log-likelihood log P(c | f).

EM (:mod:`hbnlab.bn.em`) maximises the joint likelihood ``sum_d log P(c_d, f_d)``; for an HBN
this is the conditional likelihood plus the feature marginals (Karčiauskas 2002, Propositions 1-2),
but with hidden nodes the maximum EM finds is one of many local maxima of a surface most of whose
parameters describe the terms, and for a hierarchical naive Bayes most of the likelihood is that of
the terms.  Discriminative parameter learning for Bayesian-network classifiers fits the tables of a
fixed structure for ``CLL = sum_d log P(c_d | f_d)`` instead (Greiner and Zhou 2002; Roos et al.
2005; Pernkopf and Bilmes 2010; Zaidi et al. 2013), started from the generative solution.

Parametrisation.  Every learned table row is a softmax of free logits, ``theta_{.|u} =
softmax(w_{.|u})``, so that any ``w`` is a set of conditional probability tables: the fitted model
is the same Bayesian network, exported, explained and stored like the EM's.  The learned tables are
those EM learns (HBN: the class and the hidden nodes -- the feature marginals cancel from
``P(c | f)``; hierarchical naive Bayes: every table), plus the class's naive-Bayes children
``P(F_j | C)`` when the model has them (:class:`hbnlab.models.hbn.ClassChildren`).

Gradient: the difference of two E-steps.  For a node X with parents U,
``d log P(e) / d theta_{x|u} = E[N(x, u) | e] / theta_{x|u}``, so

    d CLL / d w_{x|u} = D(x, u) - theta_{x|u} sum_x' D(x', u),
    D = sum_d ( E[N | c_d, f_d] - E[N | f_d] ),

the expected family counts with the class clamped minus those with the class summed out (Jebara
and Pentland 1998; Quattoni et al. 2007's hidden-unit CRFs).  With ``E[N | f] = sum_c P(c | f)
E[N | c, f]``, ``D = sum_d r_d (E[N | C=1, f_d] - E[N | C=0, f_d])`` with the residual ``r_d = 1[c_d
= 1] - P(C=1 | f_d)``: two calls of the EM's own E-step kernels (:func:`hbnlab.bn.kernels.hbn_estep`,
:func:`hbnlab.bn.hnb_kernels.hnb_estep`), with the class set to 1 and to 0 and the documents
weighted by their signed residuals (the expected counts are linear in the weights).  ``P(C | f)``
is the whole model's: the tree's and the naive-Bayes children's evidence together.

Regularisation: a Gaussian prior on the logits centred at the generative solution,
``CLL(w) - penalty / 2 * ||w - w0||^2``; ``w0`` is the log of the EM tables after one MAP step
with a pseudo-count (``start_pseudo_count``) so that no start entry is 0 or 1, and the naive-Bayes
children's N0-smoothed frequencies.  A row no document reaches (a parent configuration never seen)
has a zero likelihood gradient and stays at its start; with ``penalty > 0`` the optimum is finite,
so no fitted entry is exactly 0 or 1.  The optimiser is L-BFGS (scipy) on the penalised objective.

References
----------
R. Greiner and W. Zhou, Structural extension to logistic regression: discriminative parameter
learning of belief net classifiers, AAAI 2002.  T. Roos, H. Wettig, P. Grünwald, P. Myllymäki and
H. Tirri, On discriminative Bayesian network classifiers and logistic regression, Machine Learning
59, 2005.  F. Pernkopf and J. Bilmes, Efficient heuristics for discriminative structure learning of
Bayesian network classifiers, JMLR 11, 2010.  N. A. Zaidi, J. Cerquides, M. J. Carman and G. I. Webb,
Alleviating naive Bayes attribute independence assumption by attribute weighting, JMLR 14, 2013.
T. Jebara and A. Pentland, Maximum conditional likelihood via bound maximization and the CEM
algorithm, NIPS 1998.  A. Quattoni, S. Wang, L.-P. Morency, M. Collins and T. Darrell, Hidden
conditional random fields, IEEE PAMI 29, 2007.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import log_expit

from hbnlab._validation import Cancelled, check_y01
from hbnlab.bn import hnb_kernels as HK
from hbnlab.bn import kernels as K
from hbnlab.bn.params import TreeParameters
from hbnlab.bn.structure import FEATURE

#: Pseudo-count of the MAP step that turns the EM tables into the start and centre of the fit.
START_PSEUDO_COUNT = 1.0


@dataclass(frozen=True, eq=False)
class ConditionalFit:
    """Outcome of :func:`fit_conditional`.

    Attributes
    ----------
    params : TreeParameters
        The fitted tables (HBN feature marginals: the start's, they do not enter ``P(c | f)``).
    children_p_on : ndarray (2, m) or None
        P(F_j = 1 | C = c) of the naive-Bayes children, rows c = 0, 1.
    conditional_log_likelihood : float
        ``sum_d log P(c_d | f_d)`` of the training documents at the fitted tables.
    start_conditional_log_likelihood : float
        The same at the start (the smoothed generative tables).
    start : TreeParameters
        The centre of the prior (:func:`smoothed_tables` of the EM's solution), and the start
        unless the fit was warm-started (``init``).
    logits : ndarray
        The fitted flat logit vector (``init`` of a warm-started fit with the same centre).
    objective : list of float
        The penalised objective at every L-BFGS iterate, the start first (never decreasing).
    n_iter : int
    converged : bool
    penalty : float
    seconds : float
    """

    params: TreeParameters
    children_p_on: np.ndarray | None
    conditional_log_likelihood: float
    start_conditional_log_likelihood: float
    start: TreeParameters
    logits: np.ndarray
    objective: list
    n_iter: int
    converged: bool
    penalty: float
    seconds: float


def learned_nodes(tree) -> list[int]:
    """The nodes whose tables enter ``P(c | f)``: all but an HBN's features."""
    return [i for i in range(tree.n_nodes) if not (tree.direction == "hbn" and tree.kind[i] == FEATURE)]


def smoothed_tables(params: TreeParameters, X, y, pseudo_count: float = START_PSEUDO_COUNT) -> TreeParameters:
    """One MAP step from ``params``: the expected counts of the training data (``X``, ``y``) under
    ``params``, plus ``pseudo_count`` per entry, normalised.  Every entry of the learned tables is
    then strictly between 0 and 1; with ``pseudo_count=0`` it is one EM step."""
    from hbnlab.bn import em as _em

    data = _em.EMData.from_documents(params.tree, X, y)
    cpts = [t[None] for t in params.cpts]
    stats = _em.e_step(data, cpts)
    new = _em.m_step(stats, cpts, pseudo_count=float(pseudo_count))
    return _em._as_params(params.tree, new, 0)


class _Problem:
    """The penalised conditional log-likelihood of one tree and its children, as a function of the
    flat logit vector, with its gradient."""

    def __init__(self, params: TreeParameters, X, y, children_p_on=None, X_children=None, penalty: float = 1.0):
        self.tree = params.tree
        self.direction = self.tree.direction
        self.y = check_y01(y).astype(np.float64)
        pd = K.collapse_patterns(X, None, n_columns=self.tree.n_features)
        self.plan = K.TreePlan(self.tree, pd.U)
        self.inverse = pd.inverse
        self.P = pd.n_patterns
        self.fixed = [t[None] for t in params.cpts]            # HBN feature marginals stay as given
        self.nodes = learned_nodes(self.tree)
        self.shapes = [params.cpts[i].shape for i in self.nodes]
        self.sizes = [int(np.prod(s)) for s in self.shapes]
        with np.errstate(divide="ignore"):
            w0 = [np.log(params.cpts[i]).ravel() for i in self.nodes]
        self.Xc = None
        if children_p_on is not None and np.asarray(children_p_on).shape[1] > 0:
            p = np.asarray(children_p_on, dtype=np.float64)
            self.Xc = sp.csr_matrix(X_children, dtype=np.float64) if sp.issparse(X_children) \
                else sp.csr_matrix(np.asarray(X_children, dtype=np.float64))
            self.Xc.data[:] = 1.0
            self.m = p.shape[1]
            # (m, 2[c], 2[state]): P(F_j = state | C = c)
            w0.append(np.log(np.stack([1.0 - p.T, p.T], axis=-1)).ravel())
        if any(not np.all(np.isfinite(a)) for a in w0):
            raise ValueError("the start tables hold an entry of 0 or 1; smooth them first (smoothed_tables)")
        self.w0 = np.concatenate(w0) if w0 else np.zeros(0)
        self.penalty = float(penalty)
        self.n_tree = int(sum(self.sizes))

    # ------------------------------------------------------------------ unpacking
    def tables(self, w) -> tuple[list, np.ndarray | None]:
        """Batched (R = 1) tables of every node, and the children's (m, 2, 2) table or None."""
        cpts = list(self.fixed)
        off = 0
        for i, shape, size in zip(self.nodes, self.shapes, self.sizes):
            logits = w[off:off + size].reshape(shape)
            e = np.exp(logits - logits.max(axis=-1, keepdims=True))
            cpts[i] = (e / e.sum(axis=-1, keepdims=True))[None]
            off += size
        kids = None
        if self.Xc is not None:
            logits = w[off:].reshape(self.m, 2, 2)
            top = logits.max(axis=-1, keepdims=True)                          # log P(F_j = s | C = c)
            kids = logits - (top + np.log(np.exp(logits - top).sum(axis=-1, keepdims=True)))
        return cpts, kids

    def params(self, w) -> tuple[TreeParameters, np.ndarray | None]:
        cpts, kids = self.tables(w)
        tables = [c[0] / c[0].sum(axis=-1, keepdims=True) for c in cpts]
        p_on = None if kids is None else np.exp(kids[:, :, 1]).T.copy()
        return TreeParameters(self.tree, tables), p_on

    # ------------------------------------------------------------------ value and gradient
    def _tree_log_odds(self, cpts) -> np.ndarray:
        """Per pattern log P(C=1 | f) - log P(C=0 | f) of the tree alone."""
        if self.direction == "hbn":
            return K.hbn_class_log_odds(self.plan, cpts)[0]
        lj = HK.hnb_root_logjoint(self.plan, cpts)[0]
        return lj[:, 1] - lj[:, 0]

    def _log_odds(self, cpts, kids, tree_lo=None) -> np.ndarray:
        """Per document log P(C=1 | f) - log P(C=0 | f) of the whole model."""
        lo = (self._tree_log_odds(cpts) if tree_lo is None else tree_lo)[self.inverse]
        if kids is not None:
            on = kids[:, 1, 1] - kids[:, 0, 1]
            off = kids[:, 1, 0] - kids[:, 0, 0]
            lo = lo + off.sum() + self.Xc @ (on - off)
        return lo

    def conditional_log_likelihood(self, w) -> float:
        cpts, kids = self.tables(w)
        lo = self._log_odds(cpts, kids)
        return float(np.sum(log_expit(np.where(self.y > 0, lo, -lo))))

    def value_and_grad(self, w) -> tuple[float, np.ndarray]:
        """The penalised CLL and its gradient in ``w``."""
        cpts, kids = self.tables(w)
        tree_lo = self._tree_log_odds(cpts)
        lo = self._log_odds(cpts, kids, tree_lo)
        cll = float(np.sum(log_expit(np.where(self.y > 0, lo, -lo))))
        r = self.y - np.exp(log_expit(lo))                                  # 1[c = 1] - P(C=1 | f)
        s = np.bincount(self.inverse, weights=r, minlength=self.P)
        grad = np.empty_like(w)
        if self.nodes:
            D = self._count_difference(cpts, s, tree_lo)
            off = 0
            for i, shape, size in zip(self.nodes, self.shapes, self.sizes):
                theta = cpts[i][0]
                d = D[i].reshape(shape)
                grad[off:off + size] = (d - theta * d.sum(axis=-1, keepdims=True)).ravel()
                off += size
        if kids is not None:
            on = self.Xc.T @ r                                              # sum_d r_d x_dj
            tot = r.sum()
            d1 = np.stack([tot - on, on], axis=-1)                          # class 1: residual r
            d = np.stack([-d1, d1], axis=1)                                 # class 0: residual -r
            theta = np.exp(kids)
            grad[self.n_tree:] = (d - theta * d.sum(axis=-1, keepdims=True)).ravel()
        diff = w - self.w0
        value = cll - 0.5 * self.penalty * float(diff @ diff)
        grad -= self.penalty * diff
        return value, grad

    def _count_difference(self, cpts, s, tree_log_odds=None) -> dict:
        """``D = sum_p s_p (E[N | C=1, f_p] - E[N | C=0, f_p])`` per learned node.  The HBN's E-step
        runs per pattern: its sub-pattern route clips a child's posterior numerator to [0, total],
        which holds for non-negative weights only, while ``s`` is signed."""
        if self.direction == "hbn" and self.tree.is_binary and tree_log_odds is not None:
            # one downward pass with the class message 1 / P(C=1 | f), -1 / P(C=0 | f)
            lo = np.clip(tree_log_odds, -700.0, 700.0)
            message = np.stack([-(1.0 + np.exp(lo)), 1.0 + np.exp(-lo)], axis=-1)[None]
            n, _ = K.hbn_estep(self.plan, cpts, None, s, class_message=message)
            return {i: n[i][0] for i in self.nodes}
        ones = np.ones(self.P, dtype=np.int8)
        zeros = np.zeros(self.P, dtype=np.int8)
        if self.direction == "hbn":
            n1, _ = K.hbn_estep(self.plan, cpts, ones, s, per_pattern=True)
            n0, _ = K.hbn_estep(self.plan, cpts, zeros, s, per_pattern=True)
        else:
            n1, _, _ = HK.hnb_estep(self.plan, cpts, ones, s)
            n0, _, _ = HK.hnb_estep(self.plan, cpts, zeros, s)
        return {i: (n1[i] - n0[i])[0] for i in self.nodes}


def fit_conditional(params: TreeParameters, X, y, *, children_p_on=None, X_children=None, penalty: float = 1.0,
                    max_iter: int = 200, tol: float = 1e-6, init=None, should_stop=None) -> ConditionalFit:
    """Fit the tables of ``params``'s tree (and the naive-Bayes children) for the penalised
    conditional log-likelihood, starting from -- and penalised toward -- ``params``.

    Parameters
    ----------
    params : TreeParameters
        The start and centre; its learned tables must hold no entry of exactly 0 or 1
        (:func:`smoothed_tables`).
    X : {array-like, sparse matrix} (n_documents, tree.n_features)
        The tree's binary features.
    y : array-like (n_documents,) of 0 / 1
    children_p_on : ndarray (2, m), optional
        P(F_j = 1 | C = c) of the class's naive-Bayes children (start and centre).
    X_children : {array-like, sparse matrix} (n_documents, m), optional
        Their binary features.
    penalty : float
        Precision of the Gaussian prior on the logits around the start (> 0 keeps every entry away
        from 0 and 1).
    max_iter : int
        L-BFGS iterations.
    tol : float
        L-BFGS's relative tolerance on the objective (``ftol``).
    init : ConditionalFit, optional
        A fit with the same centre (``params``, children and data) to start from instead of the
        centre: a warm start along a path of penalties (the prior is still centred on ``params``).
    should_stop : callable, optional
        Polled at every iterate; True raises :class:`hbnlab._validation.Cancelled`.
    """
    from scipy.optimize import minimize

    t0 = time.process_time()
    prob = _Problem(params, X, y, children_p_on, X_children, penalty)
    trace = []

    def fun(w):
        v, g = prob.value_and_grad(w)
        return -v, -g

    def callback(intermediate_result):
        trace.append(-float(intermediate_result.fun))
        if should_stop is not None and should_stop():
            raise Cancelled("conditional-likelihood fit cancelled")

    w_init = prob.w0 if init is None else np.asarray(init.logits, dtype=np.float64)
    if w_init.shape != prob.w0.shape:
        raise ValueError(f"init has {w_init.size} logits, this problem {prob.w0.size}")
    start_value, _ = prob.value_and_grad(w_init)
    trace.append(start_value)
    res = minimize(fun, w_init.copy(), jac=True, method="L-BFGS-B", callback=callback,
                   options={"maxiter": int(max_iter), "ftol": float(tol), "gtol": 1e-8})
    w = res.x
    if -res.fun < start_value:          # L-BFGS returns its best point; keep the start if that is no better
        w = w_init
    fitted, p_on = prob.params(w)
    return ConditionalFit(
        params=fitted, children_p_on=p_on,
        conditional_log_likelihood=prob.conditional_log_likelihood(w),
        start_conditional_log_likelihood=prob.conditional_log_likelihood(prob.w0), start=params, logits=w,
        objective=trace, n_iter=int(res.nit), converged=bool(res.success), penalty=float(penalty),
        seconds=time.process_time() - t0,
    )


__all__ = ["ConditionalFit", "fit_conditional", "smoothed_tables", "learned_nodes", "START_PSEUDO_COUNT"]
