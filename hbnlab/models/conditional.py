"""The tree learners' ``objective="conditional"``: the EM's tables refitted for the conditional
log-likelihood log P(c | f) (:func:`hbnlab.bn.discriminative.fit_conditional`), the prior's
precision chosen by an inner cross-validation of the training documents.

:class:`ConditionalTablesMixin` is the part of :class:`hbnlab.models.hbn.HierarchicalBNClassifier`
and :class:`~hbnlab.models.hbn.HierarchicalNBClassifier` that runs after EM; it needs the
estimator's ``_fit_tree`` (structure and EM on given rows), ``tree_``, ``params_``,
``class_children_`` and the hyper-parameters ``cll_penalty``, ``n_restarts``, ``children_N0``,
``random_state`` and ``should_stop``.
"""
from __future__ import annotations

from types import MappingProxyType

import numpy as np
from scipy.special import log_expit

from hbnlab.bn import inference as _inf
from hbnlab.bn.discriminative import fit_conditional, smoothed_tables
from hbnlab.models.naive_bayes import ClassChildren

#: ``objective``: ``"joint"``, the thesis's EM (maximum likelihood of the class and the terms);
#: ``"conditional"``, the EM's solution refitted for the penalised conditional log-likelihood
#: log P(c | f) (:mod:`hbnlab.bn.discriminative`).
OBJECTIVES = ("joint", "conditional")
#: The tree learners' ``objective`` default, chosen by decision rule 13 of
#: ``benchmarks/results/hbn_any_corpus.md`` (3-fold cross-validation of the Reuters-21578 and OHSUMED
#: training sets, HBN-OR at 100 / 300 terms: +1.96 breakeven over the EM's default at 2.1-2.8x its CPU).
OBJECTIVE_DEFAULT = "conditional"
#: The penalties ``cll_penalty="cv"`` compares (the precision of the Gaussian prior on the tables'
#: logits around the generative solution), and the one used when a class has too few documents of
#: one kind for the inner folds.
CLL_PENALTIES = (0.3, 1.0, 3.0, 10.0)
CLL_PENALTY_FALLBACK = 3.0
#: The thesis's model at any number of terms (Karčiauskas 2002): every selected term in the tree and
#: the tables by EM alone.  ``reproduce table-4.10 --thesis`` sets these on every tree row.
THESIS_PARAMS = MappingProxyType({"objective": "joint", "tree_terms": None})
#: Folds of the inner cross-validation of ``cll_penalty="cv"`` (those of ``children_select`` too).
INNER_FOLDS = 3


class ConditionalTablesMixin:
    """Refits a fitted tree's tables for log P(c | f) (see the module docstring)."""

    def _conditional_start(self, params, Xb, y, T, kids):
        """The smoothed generative tables and children that the conditional fit starts from."""
        start = smoothed_tables(params, Xb[:, :T], y)
        return start, (None if kids is None else kids.p_on)

    def _fit_conditional(self, Xb, y, names):
        """Refit the tables (and the naive-Bayes children) for the penalised conditional
        log-likelihood (:func:`hbnlab.bn.discriminative.fit_conditional`), from the EM's solution;
        ``cll_penalty="cv"`` picks the penalty by an inner cross-validation."""
        T = self.tree_.n_features
        cc = self.class_children_
        k = 0 if cc is None else cc.n_children
        Xb = Xb.tocsr() if hasattr(Xb, "tocsr") else np.asarray(Xb)
        penalty = self.cll_penalty
        if penalty == "cv":
            penalty = self._cv_penalty(Xb[:, :T + k], np.asarray(y), T, k, list(names[:T]))
        start, p_on = self._conditional_start(self.params_, Xb, y, T, cc)
        fit = fit_conditional(start, Xb[:, :T], y, children_p_on=p_on, X_children=Xb[:, T:T + k] if k else None,
                              penalty=float(penalty), should_stop=self.should_stop)
        self.params_ = fit.params
        self.cll_penalty_ = float(penalty)
        if fit.children_p_on is not None:
            self.class_children_ = ClassChildren(fit.children_p_on)
        self.conditional_fit_ = fit

    def _cv_penalty(self, Xb, y, T, k, names) -> float:
        """The penalty of :data:`CLL_PENALTIES` with the highest held-out conditional log-likelihood
        in a stratified :data:`INNER_FOLDS`-fold cross-validation of the training documents
        (each fold: EM on the fold's tree with a quarter of the restarts, then the fits along the
        grid from the strongest prior to the weakest, each started from the previous one's tables)."""
        from sklearn.model_selection import StratifiedKFold
        from sklearn.utils import check_random_state

        n_pos = int(y.sum())
        grid = CLL_PENALTIES
        if min(n_pos, y.size - n_pos) < INNER_FOLDS:
            return CLL_PENALTY_FALLBACK
        rng = check_random_state(self.random_state)
        seeds = rng.randint(np.iinfo(np.int32).max, size=INNER_FOLDS + 1)
        folds = StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=int(seeds[-1]))
        held_ll = np.zeros(len(grid))
        for (fit_rows, held), seed in zip(folds.split(np.zeros((y.size, 1)), y), seeds):
            Xf, Xh = Xb[fit_rows], Xb[held]
            _, result, _, _ = self._fit_tree(Xf[:, :T], y[fit_rows], names, n_restarts=max(1, self.n_restarts // 4),
                                             random_state=int(seed), progress=False)
            kids = ClassChildren.fit(Xf[:, T:], y[fit_rows], float(self.children_N0)) if k else None
            start, p_on = self._conditional_start(result.params, Xf, y[fit_rows], T, kids)
            fit = None
            for g in np.argsort(grid)[::-1]:         # strongest prior first, each fit from the previous one
                fit = fit_conditional(start, Xf[:, :T], y[fit_rows], children_p_on=p_on,
                                      X_children=Xf[:, T:] if k else None, penalty=float(grid[g]), init=fit,
                                      should_stop=self.should_stop)
                lo = _inf.class_log_odds(fit.params, Xh[:, :T])
                if k:
                    lo = lo + ClassChildren(fit.children_p_on).log_odds(Xh[:, T:])
                held_ll[g] += float(np.sum(log_expit(np.where(y[held] > 0, lo, -lo))))
        best = int(np.argmax(held_ll))
        self.cll_cv_ = {"penalty": [float(v) for v in grid], "held_out_cll": [float(v) for v in held_ll]}
        return float(grid[best])


__all__ = ["OBJECTIVES", "OBJECTIVE_DEFAULT", "CLL_PENALTIES", "CLL_PENALTY_FALLBACK", "THESIS_PARAMS", "INNER_FOLDS",
           "ConditionalTablesMixin"]
