"""Numbers of states of the hidden nodes: a per-node choice by the Bayesian information criterion
(or by a held-out split).

A binary hidden node squeezes its whole subtree into one bit before the node above sees it.
:func:`select_hidden_states` lets each hidden node have ``k`` states, ``k`` picked from
``candidates`` by BIC (Schwarz 1978) on the training data,

    BIC = log P(c, f | theta_hat) - d / 2 * log N,

with ``theta_hat`` the EM fit (the best of the restarts), ``d`` the free parameters of the
tables (:meth:`~hbnlab.bn.params.TreeParameters.n_free_parameters`) and ``N`` the number of
documents.  For an HBN ``log P(c, f)`` is ``log P(c | f)`` plus a constant (Proposition 1 of
Karčiauskas 2002: the feature marginals do not depend on the hidden nodes), so the comparison is
on the conditional likelihood the classifier uses.

Why BIC and not a validation split: it uses all training documents for both the fit and the
choice, needs no second split of an already small positive class (Reuters categories have
tens to hundreds of positives), and is the large-sample approximation of the marginal
likelihood used for hidden-variable cardinalities in Bayesian-network learning (Chickering and
Heckerman 1997).  Its parameter count is nominal: an HBN table gets a row for every
configuration of the nodes below it, seen in the data or not, so a third state of a child of a
node with many children is expensive; that is the criterion's verdict, not a bug.

``score="holdout"`` scores a candidate instead by the conditional log-likelihood
``log P(c | f)`` of a held-out quarter of the training documents (a stratified split; the fit
uses the other three quarters), with the probabilities clipped to [1e-4, 1 - 1e-4] as a log loss
is (a maximum-likelihood table gives probability 0 to a class never seen with a configuration,
and one such held-out document would make every candidate -inf).  It spends documents on the
choice but counts no nominal parameters; on Reuters BIC keeps every node binary (see
``benchmarks/results/hbn_hidden_states.md``).

Search: coordinate ascent, one pass.  Starting from every hidden node binary, the hidden nodes
are visited bottom-up (leaves side first); for each, ``k`` runs up the candidates while BIC
improves (the other nodes keep their current ``k``), and the best is kept.  That costs at most
``1 + n_hidden * (len(candidates) - 1)`` EM fits, each with ``search_restarts`` restarts; the
chosen tree is then refitted with the full number of restarts.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hbnlab.bn.em import EMResult, fit_em
from hbnlab.bn.structure import TreeStructure


@dataclass
class StateSelection:
    """Outcome of :func:`select_hidden_states`.

    Attributes
    ----------
    tree : TreeStructure
        The tree with the chosen numbers of states.
    result : EMResult
        The final fit of ``tree`` (full restarts).
    steps : list of dict
        Every candidate tried: ``node``, ``states`` (k), ``score`` (BIC or held-out log-likelihood),
        ``log_likelihood`` (training), ``n_parameters``, ``accepted``.
    """

    tree: TreeStructure
    result: EMResult
    steps: list = field(default_factory=list)

    @property
    def hidden_states(self) -> dict:
        return {i: self.tree.cardinality(i) for i in self.tree.hidden_nodes()}


def bic_score(result: EMResult, n_documents: float) -> float:
    """``log P(c, f) - d / 2 log N`` of the best restart of an EM fit."""
    ll = float(result.full_log_likelihood[result.best_restart])
    d = result.params.n_free_parameters()
    return ll - 0.5 * d * float(np.log(max(n_documents, 1.0)))


HOLDOUT_FRACTION = 0.25
HOLDOUT_CLIP = 1e-4
SCORES = ("bic", "holdout")


def _holdout_split(y, seed):
    """Boolean mask of a stratified held-out quarter of the documents."""
    y = np.asarray(y)
    rng = np.random.default_rng(seed)
    mask = np.zeros(y.shape[0], dtype=bool)
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        mask[rng.permutation(idx)[:int(round(HOLDOUT_FRACTION * idx.size))]] = True
    return mask


def holdout_score(params, X, y) -> float:
    """``sum log P(c | f)`` with P clipped to [HOLDOUT_CLIP, 1 - HOLDOUT_CLIP]."""
    from hbnlab.bn.inference import class_posterior

    p = class_posterior(params, X)[np.arange(len(y)), np.asarray(y, dtype=np.int64)]
    return float(np.log(np.clip(p, HOLDOUT_CLIP, 1.0 - HOLDOUT_CLIP)).sum())


def select_hidden_states(tree: TreeStructure, X, y, *, candidates=(2, 3, 4), score="bic",
                         search_restarts=None, sample_weight=None, **em_options) -> StateSelection:
    """Choose the number of states of every hidden node of ``tree`` by BIC (see the module docstring).

    Parameters
    ----------
    tree : TreeStructure
        Its own numbers of states are ignored: the search starts from every hidden node at
        ``min(candidates)``.
    X, y, sample_weight
        Training data, as for :func:`hbnlab.bn.em.fit_em`.
    candidates : sequence of int, default=(2, 3, 4)
    score : {"bic", "holdout"}, default="bic"
        See the module docstring.
    search_restarts : int, optional
        EM restarts of the fits of the search; default ``max(8, n_restarts // 4)``.
    **em_options
        Passed to :func:`~hbnlab.bn.em.fit_em` (``n_restarts``, ``tol``, ``random_state``, ...).

    Returns
    -------
    StateSelection
    """
    cands = sorted({int(k) for k in candidates})
    if not cands or cands[0] < 2:
        raise ValueError(f"candidates must be integers >= 2, got {list(candidates)!r}")
    if score not in SCORES:
        raise ValueError(f"score must be one of {SCORES}, got {score!r}")
    n_restarts = int(em_options.pop("n_restarts", 64))
    search_R = max(8, n_restarts // 4) if search_restarts is None else int(search_restarts)
    search_R = min(search_R, n_restarts)
    n_docs = float(np.sum(sample_weight)) if sample_weight is not None else float(np.asarray(y).shape[0])
    if score == "holdout":
        held = _holdout_split(y, 0)
        Xs = X.tocsr() if hasattr(X, "tocsr") else np.asarray(X)
        fit_X, fit_y, held_X, held_y = Xs[~held], np.asarray(y)[~held], Xs[held], np.asarray(y)[held]
        fit_w = None if sample_weight is None else np.asarray(sample_weight)[~held]
    else:
        fit_X, fit_y, fit_w = X, y, sample_weight

    def search_fit(t):
        res = fit_em(t, fit_X, fit_y, n_restarts=search_R, sample_weight=fit_w, **em_options)
        value = bic_score(res, n_docs) if score == "bic" else holdout_score(res.params, held_X, held_y)
        return res, value

    current = tree.with_states(cands[0])
    _, best = search_fit(current)
    steps = [{"node": None, "states": cands[0], "score": best, "accepted": True}]
    hidden = [i for i in tree.topological_bottom_up() if i in set(tree.hidden_nodes())]
    for i in hidden:
        for k in cands[1:]:
            trial = current.with_states({i: k})
            res, value = search_fit(trial)
            ok = value > best
            steps.append({"node": i, "states": k, "score": value, "n_parameters": res.params.n_free_parameters(),
                          "log_likelihood": float(res.full_log_likelihood[res.best_restart]), "accepted": ok})
            if not ok:
                break
            current, best = trial, value
    result = fit_em(current, X, y, n_restarts=n_restarts, sample_weight=sample_weight, **em_options)
    return StateSelection(current, result, steps)


__all__ = ["select_hidden_states", "bic_score", "holdout_score", "StateSelection", "SCORES"]
