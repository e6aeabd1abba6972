"""Numbers of states of the hidden nodes: a per-node choice by the Bayesian information criterion.

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
        Every candidate tried: ``node``, ``states`` (k), ``bic``, ``log_likelihood``,
        ``n_parameters``, ``accepted``.
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


def select_hidden_states(tree: TreeStructure, X, y, *, candidates=(2, 3, 4), search_restarts=None,
                         sample_weight=None, **em_options) -> StateSelection:
    """Choose the number of states of every hidden node of ``tree`` by BIC (see the module docstring).

    Parameters
    ----------
    tree : TreeStructure
        Its own numbers of states are ignored: the search starts from every hidden node at
        ``min(candidates)``.
    X, y, sample_weight
        Training data, as for :func:`hbnlab.bn.em.fit_em`.
    candidates : sequence of int, default=(2, 3, 4)
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
    n_restarts = int(em_options.pop("n_restarts", 64))
    search_R = max(8, n_restarts // 4) if search_restarts is None else int(search_restarts)
    search_R = min(search_R, n_restarts)
    n_docs = float(np.sum(sample_weight)) if sample_weight is not None else float(np.asarray(y).shape[0])

    def fit(t, R):
        return fit_em(t, X, y, n_restarts=R, sample_weight=sample_weight, **em_options)

    current = tree.with_states(cands[0])
    best = bic_score(fit(current, search_R), n_docs)
    steps = [{"node": None, "states": cands[0], "bic": best, "accepted": True}]
    hidden = [i for i in tree.topological_bottom_up() if i in set(tree.hidden_nodes())]
    for i in hidden:
        for k in cands[1:]:
            trial = current.with_states({i: k})
            res = fit(trial, search_R)
            score = bic_score(res, n_docs)
            ok = score > best
            steps.append({"node": i, "states": k, "bic": score, "n_parameters": res.params.n_free_parameters(),
                          "log_likelihood": float(res.full_log_likelihood[res.best_restart]), "accepted": ok})
            if not ok:
                break
            current, best = trial, score
    result = fit(current, n_restarts)
    return StateSelection(current, result, steps)


__all__ = ["select_hidden_states", "bic_score", "StateSelection"]
