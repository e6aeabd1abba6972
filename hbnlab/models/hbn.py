"""Hierarchical Bayesian network classifiers (thesis ch. 2-3): HBN (arcs toward the class) and
the hierarchical naive Bayes variant of sec. 3.3 (arcs away from the class).

Both estimators (a) select ``n_features`` terms (information gain by default, thesis sec. 4.1.2),
(b) build a tree over them with :func:`hbnlab.clustering.construct_tree` (figs 3.3-3.4 with the
AVG / OR / DEP feature clustering), and (c) learn the tables with multi-restart EM
(:func:`hbnlab.bn.em.fit_em`; 64 restarts, tolerance 1e-4 as in sec. 3.2).  Prediction is exact
inference (:mod:`hbnlab.bn.inference`).

The hierarchical naive Bayes estimator is called :class:`HierarchicalNBClassifier` (not "HNB"
in code: WEKA's HNB is an unrelated model).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from hbnlab._validation import as_binary
from hbnlab.bn import em as _em
from hbnlab.bn import inference as _inf
from hbnlab.bn.structure import TreeStructure
from hbnlab.bounds import (
    ALPHA,
    CALLABLE,
    HIDDEN_STATES,
    N_RESTARTS,
    SCREEN_ITER,
    SCREEN_KEEP,
    Bound,
    Choice,
    check_table_rows,
    validate_params,
)
from hbnlab.clustering import CLUSTERINGS, construct_tree
from hbnlab.models.base import RANDOM_STATE_ALLOWED, BinaryTextClassifier, NonNegativeInputMixin
from hbnlab.models.conditional import (
    CLL_PENALTIES,
    INNER_FOLDS,
    OBJECTIVE_DEFAULT,
    OBJECTIVES,
    THESIS_PARAMS,
    ConditionalTablesMixin,
)
from hbnlab.models.naive_bayes import CLASS_CHILDREN_N0, ClassChildren

#: finite stand-in for an infinite class log-odds in ``decision_function``
LOG_ODDS_CAP = 1e6

#: Final branching factor B and alpha per clustering algorithm (Karčiauskas 2002, Table 4.1): the
#: defaults when ``B`` / ``alpha`` are None.  DEP's alpha weighs mutual information against the
#: number of dependent pairs and lives on a scale of about a hundred; AVG's and OR's lie below one.
TABLE_4_1 = MappingProxyType({"avg": (7, 0.05), "or": (9, 0.09), "dep": (7, 170.0)})

#: ``tree_terms``'s default: the tree holds the 50 terms with the highest I(F; C); with more selected
#: terms the others are naive-Bayes children of the class.  Chosen by the rules of
#: ``benchmarks/results/hbn_any_corpus.md`` on the validation splits of Reuters-21578 and OHSUMED (at
#: <= 50 terms the model is the thesis's; ``tree_terms=None`` puts every term in the tree).
TREE_TERMS_DEFAULT = 50



@dataclass(frozen=True, eq=False)
class TreeExplanation:
    """Why the model scored documents as it did (see :meth:`HierarchicalBNClassifier.explain`).

    Everything is computed in log space from the model's tables (:func:`hbnlab.bn.inference.subtree_log_odds`),
    never from a probability rounded to 0 or 1, and nothing is capped: a model whose table has an
    empty cell can be *certain* of a document (``certain``), its log-odds then ``+inf`` / ``-inf``.

    Attributes
    ----------
    log_odds : ndarray (n_documents,)
        log P(c=1 | x) - log P(c=0 | x); ``+inf`` / ``-inf`` where the model gives a class probability
        exactly 0 (``decision_function`` reports those as +-``LOG_ODDS_CAP``), NaN where a
        hierarchical naive Bayes gives the document probability 0 under both classes.
    prior_log_odds : float
        The class log-odds with no evidence.
    node_names : list of str
    node_kinds : list of str
    node_marginals : ndarray (n_documents, n_nodes)
        P(node = 1 | document): observed value for features, posterior given all features for
        the class and the hidden nodes.
    contribution_nodes : list of int
        The nodes directly below the class (``explain(X)``), or every node but the class
        (``explain(X, nodes="all")``); the naive-Bayes children of the class follow the tree's nodes.
    node_distributions : list of ndarray
        Per node, P(node = t | document), shape (n_documents, number of states of the node);
        ``node_marginals`` is their column 1 for binary nodes and the mean state over ``n - 1``
        for a hidden node of ``n > 2`` states.
    contributions : ndarray (n_documents, len(contribution_nodes))
        ``LO(c | all features) - LO(c | all features except those under the node)``
        (:func:`hbnlab.bn.inference.log_odds_change`: 0 where the model is as certain without the
        node's evidence, +-inf where that evidence makes it certain); a naive-Bayes child's is the
        term it adds to the log-odds, ``log P(f | c=1) / P(f | c=0)``, finite however certain the
        tree is.  For the hierarchical naive Bayes the class's children add up exactly:
        ``prior_log_odds + contributions.sum(1) == log_odds``.
    log_odds_without : ndarray (n_documents, len(contribution_nodes))
        ``LO(c | all features except those under the node)``.
    """

    log_odds: np.ndarray
    prior_log_odds: float
    node_names: list
    node_kinds: list
    node_marginals: np.ndarray
    contribution_nodes: list
    contributions: np.ndarray
    node_distributions: list = None
    log_odds_without: np.ndarray = None

    @property
    def certain(self) -> np.ndarray:
        """Per document: whether the model gives a class probability exactly 0 or 1 (an infinite
        log-odds) or cannot score the document at all (NaN)."""
        return ~np.isfinite(self.log_odds)

    @property
    def contribution_names(self) -> list:
        return [self.node_names[i] for i in self.contribution_nodes]

    def marginals_frame(self):
        """pandas DataFrame (documents x nodes) of the node marginals."""
        import pandas as pd

        return pd.DataFrame(self.node_marginals, columns=self.node_names)

    def contributions_frame(self):
        """pandas DataFrame (documents x class children) of the subtree contributions."""
        import pandas as pd

        return pd.DataFrame(self.contributions, columns=self.contribution_names)


class _TreeClassifier(ConditionalTablesMixin, NonNegativeInputMixin, BinaryTextClassifier):
    """Shared implementation; subclasses fix the arc direction."""

    _direction = "hbn"
    _poor_score_on_generic_data = True  # presence model (see the base class)

    def __init__(
        self,
        *,
        B=None,
        alpha=None,
        clustering="avg",
        n_direct=0,
        n_features=30,
        tree_terms=TREE_TERMS_DEFAULT,
        children_N0=CLASS_CHILDREN_N0,
        tree_select="top",
        children_select=None,
        selection="ig",
        n_restarts=64,
        tol=1e-4,
        max_iter=1000,
        stopping="relative",
        criterion="full",
        pseudo_count=0.0,
        acceleration=None,
        screen_iter=0,
        screen_keep=8,
        hidden_states=2,
        init="random",
        objective=OBJECTIVE_DEFAULT,
        cll_penalty="cv",
        feature_names=None,
        class_name="class",
        random_state=None,
        progress=None,
        should_stop=None,
    ):
        self.B = B
        self.alpha = alpha
        self.clustering = clustering
        self.n_direct = n_direct
        self.n_features = n_features
        self.tree_terms = tree_terms
        self.children_N0 = children_N0
        self.tree_select = tree_select
        self.children_select = children_select
        self.selection = selection
        self.n_restarts = n_restarts
        self.tol = tol
        self.max_iter = max_iter
        self.stopping = stopping
        self.criterion = criterion
        self.pseudo_count = pseudo_count
        self.acceleration = acceleration
        self.screen_iter = screen_iter
        self.screen_keep = screen_keep
        self.hidden_states = hidden_states
        self.init = init
        self.objective = objective
        self.cll_penalty = cll_penalty
        self.feature_names = feature_names
        self.class_name = class_name
        self.random_state = random_state
        self.progress = progress
        self.should_stop = should_stop

    # ------------------------------------------------------------------ fitting
    def _selected_names(self, n_selected):
        if self.feature_names is None:
            return [f"F{int(c)}" for c in self.selected_features_]
        names = [str(n) for n in self.feature_names]
        if len(names) == self.n_features_in_:
            return [names[int(c)] for c in self.selected_features_]
        if len(names) == n_selected:
            return names
        raise ValueError(
            f"feature_names has {len(names)} names; expected one per input column ({self.n_features_in_}) "
            f"or one per selected feature ({n_selected})"
        )

    def _structure_params(self) -> tuple[int, float]:
        """``(B, alpha)``: the given values, else Table 4.1's for the clustering (AVG's for a
        clustering function)."""
        key = self.clustering if isinstance(self.clustering, str) else "avg"
        B0, alpha0 = TABLE_4_1.get(key, TABLE_4_1["avg"])
        return int(B0 if self.B is None else self.B), float(alpha0 if self.alpha is None else self.alpha)

    def _build_tree(self, X, y, names) -> TreeStructure:
        B, alpha = self._structure_params()
        return construct_tree(
            X, y, B=B, clustering=self.clustering, alpha=alpha, direction=self._direction,
            feature_names=names, class_name=str(self.class_name), n_direct=self.n_direct,
        )

    def _split_terms(self, Xb, y, names):
        """Order the selected terms so that the tree's come first; fit the class's naive-Bayes
        children on the others.  Returns the ordered binary matrix, its names and the number of
        the tree's terms (its first columns)."""
        m = Xb.shape[1]
        T = self.tree_terms
        self.class_children_ = None
        if T is None or T >= m:
            return Xb, names, m
        from hbnlab.features import score_terms

        scores = score_terms(Xb, y.reshape(-1, 1).astype(bool), method="ig")[:, 0]
        order = np.lexsort((np.arange(m), -scores))  # I(F; C) decreasing, ties by column
        self.selected_features_ = np.asarray(self.selected_features_)[order]
        self.feature_scores_ = np.asarray(self.feature_scores_)[order]
        Xb = Xb[:, order]
        names = [names[i] for i in order]
        if self.tree_select == "dependent":
            keep = dependent_terms(Xb[:, :T], y)
            first = np.concatenate([keep, np.setdiff1d(np.arange(m), keep)])  # tree's first, IG order kept
            self.selected_features_ = self.selected_features_[first]
            self.feature_scores_ = self.feature_scores_[first]
            Xb = Xb[:, first]
            names = [names[i] for i in first]
            T = int(keep.size)
        self.class_children_ = ClassChildren.fit(Xb[:, T:], y, float(self.children_N0))
        self.class_children_names_ = names[T:]
        return Xb, names, T

    def _children_rule(self) -> str:
        """``children_select``, or when None: every child with ``objective="conditional"`` (the
        conditional fit weighs each child itself), else the clustering's rule
        (:data:`CHILDREN_SELECT_DEFAULT`)."""
        rule = self.children_select
        if rule is None:
            if self.objective == "conditional":
                return "all"
            rule = CHILDREN_SELECT_DEFAULT.get(self.clustering if isinstance(self.clustering, str) else "", "all")
        return rule

    def _fit_selected(self, X, y):
        rule = self._children_rule()
        Xb = as_binary(X)
        names = self._selected_names(X.shape[1])
        Xb, names, T = self._split_terms(Xb, y, names)
        tree, result, self.state_selection_, self.start_em_result_ = self._fit_tree(Xb[:, :T], y, names[:T])
        self.tree_ = tree
        self.em_result_ = result
        self.params_ = result.params
        best = result.best_restart
        self.n_iter_ = int(result.n_iter[best])
        self.converged_ = bool(result.converged[best])
        self.lower_bound_ = float(result.log_likelihood)
        if not self.converged_ and self.n_iter_ >= self.max_iter:
            import warnings

            from sklearn.exceptions import ConvergenceWarning

            warnings.warn(f"EM stopped at max_iter={self.max_iter} iterations before the log-likelihood gain fell "
                          f"below tol={self.tol} ({self.stopping}); raise max_iter or tol", ConvergenceWarning,
                          stacklevel=3)
        self._select_children(Xb, y, names, rule)
        self.generative_params_ = self.params_
        self.conditional_fit_ = self.cll_cv_ = self.cll_penalty_ = None
        if self.objective == "conditional":
            self._fit_conditional(Xb, y, names)
        return self

    def _fit_tree(self, Xb, y, names, *, n_restarts=None, random_state=None, progress=True):
        """Structure and EM of the tree over binary ``Xb``: ``(tree, em_result, state_selection,
        start_em_result)``; ``n_restarts`` / ``random_state`` replace the estimator's when given,
        ``progress=False`` leaves the progress callback out."""
        hs = check_hidden_states(self.hidden_states)
        B, alpha = self._structure_params()
        n_restarts = self.n_restarts if n_restarts is None else n_restarts
        if self._direction == "hbn":  # joins B (Table 4.1's when None) and hidden_states: not in the table
            check_table_rows(B, hs)
        tree = self._build_tree(Xb, y, names)
        options = dict(n_restarts=n_restarts, tol=self.tol, max_iter=self.max_iter,
                       stopping=self.stopping, criterion=self.criterion, pseudo_count=self.pseudo_count,
                       acceleration=self.acceleration, screen_iter=self.screen_iter, screen_keep=self.screen_keep,
                       random_state=self.random_state if random_state is None else random_state,
                       progress=self.progress if progress else None, should_stop=self.should_stop)
        steps = start_result = None
        start = self._check_init(hs)
        if hs in HIDDEN_STATE_SEARCHES:
            from hbnlab.bn.states import select_hidden_states

            sel = select_hidden_states(tree, Xb, y, score="bic" if hs == "auto" else "holdout", **options)
            tree, result, steps = sel.tree, sel.result, sel.steps
        else:
            if hs != 2:
                tree = tree.with_states(hs)
            if start == "hbn":
                result, start_result = _em.fit_hnb_from_hbn(tree, Xb, y, **options)
            else:
                result = _em.fit_em(tree, Xb, y, **options)
        return tree, result, steps, start_result

    def _select_children(self, Xb, y, names, rule: str):
        """``rule`` "cv" / "cv-max": keep the first k naive-Bayes children, k chosen by the
        breakeven of an inner stratified cross-validation (:func:`children_candidates`).  ``Xb``
        and ``names``: the selected terms, the tree's first."""
        self.children_cv_ = None
        cc = self.class_children_
        y = np.asarray(y)
        n_pos = int(y.sum())
        if rule == "all" or cc is None or min(n_pos, y.size - n_pos) < CHILDREN_CV_FOLDS:
            return
        from sklearn.model_selection import StratifiedKFold
        from sklearn.utils import check_random_state

        from hbnlab.evaluation.measures import breakeven_columns

        Xb = Xb.tocsr() if hasattr(Xb, "tocsr") else np.asarray(Xb)
        T = self.tree_.n_features
        ks = children_candidates(T, T + cc.n_children)
        rng = check_random_state(self.random_state)
        seeds = rng.randint(np.iinfo(np.int32).max, size=CHILDREN_CV_FOLDS + 1)
        folds = StratifiedKFold(CHILDREN_CV_FOLDS, shuffle=True, random_state=int(seeds[-1]))
        S = np.zeros((y.size, len(ks)))
        names = list(names[:T])
        for (fit_rows, held), seed in zip(folds.split(np.zeros((y.size, 1)), y), seeds):
            Xf, Xh = Xb[fit_rows], Xb[held]
            _, result, _, _ = self._fit_tree(Xf[:, :T], y[fit_rows], names, n_restarts=max(1, self.n_restarts // 4),
                                             random_state=int(seed), progress=False)
            lo = np.nan_to_num(_inf.class_log_odds(result.params, Xh[:, :T]), nan=0.0,
                               posinf=LOG_ODDS_CAP, neginf=-LOG_ODDS_CAP)
            kids = ClassChildren.fit(Xf[:, T:], y[fit_rows], float(self.children_N0))
            cum = np.hstack([np.zeros((held.size, 1)), np.cumsum(kids.contributions(Xh[:, T:]), axis=1)])
            S[held] = lo[:, None] + cum[:, ks]
        bep = breakeven_columns(np.repeat(y[:, None], len(ks), axis=1), S)
        best = float(np.nanmax(bep))
        # "cv": the one-standard-error rule toward more terms (the inner folds train on two thirds of
        # the documents, and the best number of terms grows with the documents); "cv-max": the best
        margin = np.sqrt(best * (1.0 - best) / n_pos) if rule == "cv" else 0.0
        k = int(ks[np.flatnonzero(bep >= best - margin - 1e-12)[-1]])  # ties: the most children
        self.children_cv_ = {"n_children": [int(v) for v in ks], "breakeven": [float(b) for b in bep],
                             "margin": float(margin)}
        if k < cc.n_children:
            self.selected_features_ = np.asarray(self.selected_features_)[: T + k]
            self.feature_scores_ = np.asarray(self.feature_scores_)[: T + k]
            self.class_children_names_ = self.class_children_names_[:k]
            self.class_children_ = ClassChildren(cc.p_on[:, :k]) if k else None

    def _check_init(self, hidden_states) -> str:
        # init itself is in the table; init='hbn' joins it with the direction and hidden_states
        if self.init == "hbn":
            if self._direction != "hnb":
                raise ValueError("init='hbn' starts a hierarchical naive Bayes at an HBN; an HBN takes init='random'")
            if isinstance(hidden_states, str):
                raise ValueError(f"init='hbn' needs an integer hidden_states, got {hidden_states!r}")
        return self.init

    # ------------------------------------------------------------------ prediction
    def _tree_columns(self, X):
        """``X``'s columns that are the tree's features (all of them without class children)."""
        return X if getattr(self, "class_children_", None) is None else X[:, : self.tree_.n_features]

    def _log_odds(self, X):
        lo = _inf.class_log_odds(self.params_, self._tree_columns(X))
        cc = getattr(self, "class_children_", None)
        if cc is not None:
            lo = lo + cc.log_odds(as_binary(X[:, self.tree_.n_features:]))
        # A class probability that is exactly 0 (a maximum-likelihood table with an empty cell)
        # gives an infinite log-odds; report it as +-LOG_ODDS_CAP so that scores stay finite
        # (breakeven and ranking code require finite scores).  NaN cannot arise from valid
        # tables (both class probabilities zero), but is mapped to 0 for safety.
        return np.nan_to_num(lo, nan=0.0, posinf=LOG_ODDS_CAP, neginf=-LOG_ODDS_CAP)

    # ------------------------------------------------------------------ inspection
    def explain(self, X, nodes=None) -> TreeExplanation:
        """Node marginals and subtree contributions for each document of ``X``, in log space and
        uncapped (a certain model's log-odds is infinite: :class:`TreeExplanation`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_documents, n_features_in_)
        nodes : {None, "all"}
            The nodes whose contributions are computed: None, those directly below the class;
            ``"all"``, every node but the class.  The naive-Bayes children of the class follow.

        Returns
        -------
        TreeExplanation
        """
        if nodes not in (None, "all"):
            raise ValueError(f"nodes must be None (the class's children) or 'all', got {nodes!r}")
        Xs = self._check_X(X)
        Xt = self._tree_columns(Xs)
        which = None if nodes is None else range(1, self.tree_.n_nodes)
        full, without, nodes = _inf.subtree_log_odds(self.params_, Xt, which)
        prior = _inf.prior_marginals(self.params_)[0]
        dists = _inf.node_distributions(self.params_, Xt)
        names, kinds, nodes = list(self.tree_.names), list(self.tree_.kind), list(nodes)
        cc = getattr(self, "class_children_", None)
        kids = np.zeros((Xs.shape[0], 0))
        if cc is not None:
            # each naive-Bayes child of the class adds its own term to the log-odds: removing its
            # evidence removes exactly that term
            Xc = as_binary(Xs[:, self.tree_.n_features:])
            present = np.asarray(Xc.toarray(), dtype=float)
            first = self.tree_.n_nodes
            names += list(self.class_children_names_)
            kinds += ["feature"] * cc.n_children
            nodes += list(range(first, first + cc.n_children))
            kids = cc.contributions(Xc)
            dists = dists + [np.column_stack([1.0 - present[:, j], present[:, j]]) for j in range(cc.n_children)]
        kids_lo = kids.sum(axis=1)
        log_odds = full + kids_lo                   # the children's terms are finite (N0-smoothed)
        contrib = np.hstack([_inf.log_odds_change(full, without), kids])
        without = np.hstack([without + kids_lo[:, None], log_odds[:, None] - kids])
        with np.errstate(divide="ignore"):
            prior_lo = float(np.log(prior) - np.log1p(-prior))
        return TreeExplanation(
            log_odds=log_odds,
            prior_log_odds=prior_lo,
            node_names=names,
            node_kinds=kinds,
            node_marginals=np.column_stack([_inf.marginal_summary(d) for d in dists]),
            contribution_nodes=nodes,
            contributions=contrib,
            node_distributions=dists,
            log_odds_without=without,
        )

    def to_dot(self, X=None) -> str:
        """Graphviz DOT source of the learned tree.

        With ``X`` (one document, shape (1, n_features_in_)) every node is labelled and shaded by
        P(node = 1 | document).
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "tree_")
        if X is None:
            return self.tree_.to_dot()
        Xs = self._check_X(X)
        if Xs.shape[0] != 1:
            raise ValueError(f"to_dot shades one document; X has {Xs.shape[0]} rows")
        m = _inf.node_marginals(self.params_, self._tree_columns(Xs))[0]
        states = self.tree_.states
        labels = {i: f"{self.tree_.names[i]}\\nP={m[i]:.2f}" if states[i] == 2
                  else f"{self.tree_.names[i]} ({states[i]} states)\\nmean state/{states[i] - 1}={m[i]:.2f}"
                  for i in range(self.tree_.n_nodes)}
        fill = {i: _shade(m[i]) for i in range(self.tree_.n_nodes)}
        return self.tree_.to_dot(node_fill=fill, node_label=labels)


#: Starting points of EM (``init``).
INITS = ("random", "hbn")


#: The searches ``hidden_states`` may name instead of a number of states (per hidden node: BIC on the
#: training data, or the log-likelihood of a held-out quarter).
HIDDEN_STATE_SEARCHES = ("auto", "auto-holdout")


#: How ``tree_terms`` picks the tree's terms when there are more selected terms: ``"top"``, the
#: ``tree_terms`` with the highest I(F; C); ``"dependent"``, those of them that depend on another of
#: them given the class (:func:`dependent_terms`).
TREE_SELECTIONS = ("top", "dependent")

#: Significance level of the conditional-independence test of ``tree_select="dependent"``.
DEPENDENCE_P = 1e-3


def dependent_terms(Xb, y, p_value: float = DEPENDENCE_P) -> np.ndarray:
    """Columns of binary ``Xb`` (n, m) that are not independent given the class of some other column.

    The test is the G-test of conditional independence of two binary terms given the binary class
    (G = 2 N I(F_i; F_j | C), chi-square with 2 degrees of freedom; Karčiauskas's DEP clustering
    tests dependence the same way, and Friedman et al. 1997's TAN weighs pairs by I(F_i; F_j | C)).
    Returns the columns in increasing order; the first two when no pair is dependent (a tree needs
    terms to group).

    >>> rng = np.random.RandomState(0)
    >>> y = rng.randint(0, 2, 400); a = rng.rand(400) < 0.5
    >>> X = np.column_stack([a, a ^ (rng.rand(400) < 0.1), rng.rand(400) < 0.5]).astype(int)
    >>> dependent_terms(X, y).tolist()
    [0, 1]
    """
    from scipy.stats import chi2

    X = np.asarray(Xb.toarray() if hasattr(Xb, "toarray") else Xb, dtype=np.float64)
    y = np.asarray(y)
    m = X.shape[1]
    G = np.zeros((m, m))
    for c in (0, 1):
        Xc = X[y == c]
        n = float(Xc.shape[0])
        if n == 0:
            continue
        n11 = Xc.T @ Xc
        a = np.diag(n11)
        n10 = a[:, None] - n11
        n01 = a[None, :] - n11
        n00 = n - n11 - n10 - n01
        pa = np.stack([n - a, a])  # counts of F_i = 0, 1
        for cell, (u, v) in ((n00, (0, 0)), (n01, (0, 1)), (n10, (1, 0)), (n11, (1, 1))):
            expected = pa[u][:, None] * pa[v][None, :] / n
            with np.errstate(divide="ignore", invalid="ignore"):
                G += 2 * np.where(cell > 0, cell * np.log(cell / expected), 0.0)
    np.fill_diagonal(G, 0.0)
    keep = np.flatnonzero(G.max(axis=1) > chi2.isf(p_value, 2)) if m > 1 else np.arange(m)
    return keep if keep.size >= 2 else np.arange(min(2, m))


#: How many of the class's naive-Bayes children a fit keeps: ``"all"``, every selected term after
#: the tree's; ``"cv"`` / ``"cv-max"``, the first k of them (in decreasing I(F; C)), k chosen on the
#: breakeven b of an inner stratified cross-validation of the training data (:data:`CHILDREN_CV_FOLDS`
#: folds): the most children whose b is within one standard error sqrt(b*(1 - b) / n_positives) of
#: the best (``"cv"``), or the best (``"cv-max"``).
CHILDREN_SELECTIONS = ("all", "cv", "cv-max")
CHILDREN_CV_FOLDS = INNER_FOLDS
#: ``children_select=None``: the rule per clustering, chosen by decision rule 10 of
#: ``benchmarks/results/hbn_any_corpus.md`` (5-fold cross-validation of the Reuters-21578 and OHSUMED
#: training sets): ``"cv"`` for OR and DEP, every child for AVG (and for a clustering function).
CHILDREN_SELECT_DEFAULT = MappingProxyType({"or": "cv", "dep": "cv", "avg": "all"})


def children_candidates(tree_terms: int, n_terms: int) -> np.ndarray:
    """The numbers of naive-Bayes children ``children_select="cv"`` compares: the models with
    ``tree_terms * 2**j`` terms in all (j = 0, 1, ...) below ``n_terms``, and all ``n_terms``.

    >>> children_candidates(50, 300).tolist()
    [0, 50, 150, 250]
    >>> children_candidates(50, 100).tolist()
    [0, 50]
    """
    totals = [tree_terms]
    while totals[-1] * 2 < n_terms:
        totals.append(totals[-1] * 2)
    return np.asarray([t - tree_terms for t in totals] + [n_terms - tree_terms])


#: ``tree_terms``: None (every selected term in the tree) or an integer >= 1 (more than the selected
#: terms: all of them).  The workbench's 0 for "every term" (:data:`hbnlab.bounds.TREE_TERMS`) is None here.
TREE_TERMS_ALLOWED = [None, Bound("tree_terms", 1, math.inf)]
#: ``hidden_states``: :data:`hbnlab.bounds.HIDDEN_STATES` or a search's name.
HIDDEN_STATES_ALLOWED = [HIDDEN_STATES, Choice(HIDDEN_STATE_SEARCHES)]


def check_tree_terms(value):
    """``tree_terms`` as None or an int, checked against :data:`TREE_TERMS_ALLOWED` (a
    :class:`~hbnlab.bounds.BoundsError` naming the parameter otherwise)."""
    validate_params({"tree_terms": value}, {"tree_terms": TREE_TERMS_ALLOWED})
    return None if value is None else int(value)


def check_hidden_states(value):
    """``hidden_states`` as an int or a search's name, checked against :data:`HIDDEN_STATES_ALLOWED`
    (a :class:`~hbnlab.bounds.BoundsError` naming the parameter otherwise)."""
    validate_params({"hidden_states": value}, {"hidden_states": HIDDEN_STATES_ALLOWED})
    return value if isinstance(value, str) else int(value)


def parse_hidden_states(text: str):
    """``hidden_states`` written as text (a command line, a URL): a search's name or an integer."""
    text = str(text).strip()
    if text in HIDDEN_STATE_SEARCHES:
        return text
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number of states (an integer in {HIDDEN_STATES.lo}..{HIDDEN_STATES.hi}, "
                         "auto or auto-holdout)") from None


def oversized_hidden_states(k, B: int, max_B: int) -> str | None:
    """Why a tuning grid whose binary search reaches ``B = max_B`` does not fit an HBN with branching
    factor ``B`` and ``k``-state hidden nodes, or None when it does.

    An HBN node's table has a row per configuration of its parents, up to ``k ** B`` rows; the
    E-step enumerates every row for every document pattern, so a grid fits no table larger than
    its binary search's largest, ``2 ** max_B`` rows (3 ** 7 = 2,187 rows is above 2 ** 9 = 512).
    The searches ``"auto"`` / ``"auto-holdout"`` are bounded by the estimator's own limits instead
    (:data:`hbnlab.bn.params.MAX_ROWS`).

    >>> oversized_hidden_states(3, 5, 9) is None
    True
    >>> oversized_hidden_states(3, 7, 9)
    'a node under 7 parents of 3 states has 2187 rows, above 2 ** 9'
    """
    if isinstance(k, int) and k ** B > 2 ** max_B:
        return f"a node under {B} parents of {k} states has {k ** B} rows, above 2 ** {max_B}"
    return None


def _shade(p: float) -> str:
    """White (P=0) to orange (P=1)."""
    p = float(np.clip(p, 0.0, 1.0)) if np.isfinite(p) else 0.0
    r, g, b = 255, int(round(255 - p * (255 - 165))), int(round(255 - p * 255))
    return f"#{r:02x}{g:02x}{b:02x}"


_PARAMS_DOC = """
    Parameters
    ----------
    B : int or None, default=None
        Branching factor: at most B nodes below the class and below each hidden node.  None:
        thesis Table 4.1's value for the clustering (AVG 7, OR 9, DEP 7).
    alpha : float or None, default=None
        Parameter of the feature clustering (cluster size penalty for AVG / OR, mutual
        information importance for DEP).  None: Table 4.1's value for the clustering
        (AVG 0.05, OR 0.09, DEP 170), tuned at 30 terms.  The AVG / OR merge cost is
        ``dI * k + alpha * size / k`` (thesis fig. 3.8): with 100-300 terms the weak terms' ``dI``
        is far below the penalty and the clustering merges by size alone
        (``benchmarks/results/hbn_terms_ablation.md``).
    clustering : {"avg", "or", "dep"} or callable, default="avg"
        Feature clustering (thesis secs. 3.5-3.7) or a function
        ``(X, y, features, B, alpha) -> list of clusters``.
    n_direct : int, default=0
        Features kept directly at the class: the ``n_direct`` with the highest I(F, C); the
        others are clustered into at most ``B - n_direct`` subtrees (see
        :func:`hbnlab.clustering.construct_tree`).  0 is the thesis's tree (fig. 3.3).
    n_features : int or None, default=30
        Number of locally selected terms (thesis sec. 4.1.2).
    tree_terms : int or None, default=50
        How many selected terms the tree holds: the ``tree_terms`` with the highest I(F; C) on the
        training data; every other selected term is a child of the class with its own table
        P(F | C) (N0 = 0.1 smoothing, as :class:`~hbnlab.models.naive_bayes.BernoulliNBClassifier`),
        so a weak term adds its own evidence to the class log-odds instead of passing through a
        binary hidden variable.  The network stays one Bayesian network (tree -> C -> those
        terms); EM fits the tree as before and those tables are closed-form frequencies (the class
        is observed in training).  ``None``: every term in the tree, the thesis's model; with at
        most ``tree_terms`` selected terms the two are the same (the default's choice:
        ``benchmarks/results/hbn_any_corpus.md``).
    tree_select : {"top", "dependent"}, default="top"
        With more selected terms than ``tree_terms``: the tree holds the ``tree_terms`` with the
        highest I(F; C) (``"top"``), or only those of them that depend on another of them given
        the class (``"dependent"``, :func:`dependent_terms`: G-test, p < 0.001); every other
        selected term is a naive-Bayes child of the class.
    children_select : {None, "all", "cv", "cv-max"}, default=None
        Which naive-Bayes children the fit keeps: every selected term after the tree's
        (``"all"``), or the first k of them in decreasing I(F; C), k chosen among
        :func:`children_candidates` (0 and the models with ``tree_terms`` x 2, x 4, ... terms and
        with all of them) on the breakeven of a 3-fold stratified cross-validation of the training
        data, the folds' trees fitted with a quarter of ``n_restarts``: ``"cv"`` keeps the most
        children whose breakeven b is within one standard error, sqrt(b (1 - b) / n_positives), of
        the best (the inner folds train on two thirds of the documents, and the best number of
        terms grows with the documents), ``"cv-max"`` the best (ties: more children).  None: every
        child with ``objective="conditional"`` (its fit weighs each child); with ``"joint"`` the
        clustering's rule, :data:`CHILDREN_SELECT_DEFAULT` (``"cv"`` for OR and DEP, ``"all"`` for
        AVG; ``benchmarks/results/hbn_any_corpus.md``, round 6).  The choice is in ``children_cv_``;
        ``selected_features_`` lists the kept terms only.
    children_N0 : float, default=0.1
        Pseudo-count per state of the class's naive-Bayes children (``tree_terms``): their
        P(F = 1 | C = c) is (n + N0) / (N + 2 N0), the thesis's N0 smoothing; a larger value draws
        each weak term's log-ratio toward 0.
    selection : str, default="ig"
        Term scoring method for the selection.
    n_restarts : int, default=64
        EM restarts (thesis sec. 3.2); the best log-likelihood is kept.
    tol : float, default=1e-4
        EM stopping threshold (thesis sec. 3.2).
    max_iter : int, default=1000
        Maximal EM iterations per restart.
    stopping : {"relative", "absolute"}, default="relative"
        Stopping rule on the log-likelihood gain (see :mod:`hbnlab.bn.em`).
    criterion : {"full", "conditional"}, default="full"
        Log-likelihood the rule watches: ``log P(c, f)`` or ``log P(c | f)``.
    pseudo_count : float, default=0.0
        Dirichlet pseudo-count added to every expected count in the M-step (0: maximum
        likelihood, as HUGIN's EM in the thesis).
    acceleration : {None, "squarem"}, default=None
        ``"squarem"``: SQUAREM extrapolation of the EM steps (Varadhan and Roland 2008) with a
        safeguard that keeps the log-likelihood non-decreasing; the stopping rule is the same
        (the gain of one plain EM step; ``benchmarks/results/em_acceleration.md``).
    screen_iter : int, default=0
        With ``screen_iter > 0``, after ``screen_iter`` E-steps only the ``screen_keep`` restarts
        with the highest log-likelihood go on (short-run screening, Biernacki, Celeux and Govaert
        2003); 0 runs every restart to the stopping rule, as the thesis does.
    screen_keep : int, default=8
        Restarts kept by the screening.
    hidden_states : int, "auto" or "auto-holdout", default=2
        Number of states of every hidden node (2: the thesis's binary hidden variables), or
        ``"auto"``: per hidden node, k in {2, 3, 4} chosen by BIC on the training data
        (:func:`hbnlab.bn.states.select_hidden_states`; up to ``1 + 2 * n_hidden`` extra EM fits
        with a quarter of the restarts); ``"auto-holdout"``: the same search scored by the
        conditional log-likelihood of a held-out quarter of the training documents.  The class
        and the features stay binary.  An HBN node's table has a row per configuration of the
        nodes below it, so k > 2 multiplies its table (and the E-step's work) quickly
        (``benchmarks/results/hbn_hidden_states.md``).
    init : {"random", "hbn"}, default="random"
        Where EM starts.  ``"random"``: ``n_restarts`` random starting points (the thesis's).
        ``"hbn"`` (hierarchical naive Bayes only): first the HBN on the same tree is fitted with
        the EM options above, then one restart of the HNB's EM starts from one HNB M-step on that
        HBN's posterior (:func:`hbnlab.bn.em.hnb_start_from_hbn`;
        ``benchmarks/results/hnb_start.txt``).
    objective : {"joint", "conditional"}, default="conditional"
        What the tables are fitted for.  ``"joint"``: the thesis's EM, the maximum of the
        likelihood of the class and the terms.  ``"conditional"``: EM as above, then every learned
        table and the naive-Bayes children refitted for the conditional log-likelihood
        ``sum log P(c | f)`` of the training documents, from the EM's solution after one MAP step
        with a pseudo-count of 1 per entry, under a Gaussian prior of precision ``cll_penalty`` on
        the tables' logits around it (:func:`hbnlab.bn.discriminative.fit_conditional`;
        Greiner and Zhou 2002, Roos et al. 2005).  The result is the same Bayesian network with
        other tables, and none of its entries is 0 or 1.  ``"conditional"`` is the default by
        decision rule 13 of ``benchmarks/results/hbn_any_corpus.md``; ``"joint"`` (with
        ``tree_terms=None``, :data:`THESIS_PARAMS`) is the thesis's model.
    cll_penalty : float or "cv", default="cv"
        The prior's precision for ``objective="conditional"``: larger stays closer to the EM's
        tables.  ``"cv"``: the one of :data:`CLL_PENALTIES` with the highest held-out conditional
        log-likelihood in a 3-fold stratified cross-validation of the training documents (each
        fold's tree fitted by EM with a quarter of the restarts); ``cll_cv_`` records it.
    feature_names : sequence of str, optional
        Names of the input columns (one per column of ``X``) or of the selected features (one per
        selected column, in the order of ``selected_features_``); used for the tree's labels.
    class_name : str, default="class"
        Label of the root (the thesis writes e.g. ``"tradeTOPIC"``).
    random_state : None, int or RandomState
        Seeds the EM restarts.
    progress : callable, optional
        Called with a dict after every EM iteration (see :func:`hbnlab.bn.em.fit_em`).
    should_stop : callable, optional
        Polled between EM iterations; returning True aborts ``fit`` with
        :class:`hbnlab._validation.Cancelled`.

    Attributes
    ----------
    tree_ : TreeStructure
    params_ : TreeParameters
    em_result_ : EMResult
        Traces, iterations, convergence and time of every restart.
    n_iter_ : int
        EM iterations of the kept restart.
    converged_ : bool
    lower_bound_ : float
        Final log-likelihood (of ``criterion``) of the kept restart.
    start_em_result_ : EMResult or None
        With ``init="hbn"``: the EM of the HBN the hierarchical naive Bayes started from.
    class_children_ : ClassChildren or None
        The naive-Bayes children of the class (the selected terms after the tree's ``tree_terms``;
        ``selected_features_`` lists the tree's terms first), None when the tree holds every term.
    class_children_names_ : list of str
        Their names.
    children_cv_ : dict or None
        With ``children_select="cv"`` / ``"cv-max"`` and naive-Bayes children: ``{"n_children":
        [...], "breakeven": [...], "margin": m}``, the candidates, their inner cross-validated
        breakevens and how far below the best a candidate with more children may be.
    generative_params_ : TreeParameters
        The EM's tables (``params_`` too with ``objective="joint"``).
    conditional_fit_ : ConditionalFit or None
        With ``objective="conditional"``: the refit (its start, the training conditional
        log-likelihood before and after, the L-BFGS trace).
    cll_penalty_ : float or None
        The prior's precision the conditional fit used.
    cll_cv_ : dict or None
        With ``cll_penalty="cv"``: ``{"penalty": [...], "held_out_cll": [...]}``.
    state_selection_ : list of dict or None
        With ``hidden_states="auto"`` / ``"auto-holdout"``: every (node, k) the search tried, its score and
        whether it was kept (``tree_.states`` holds the result).
    selected_features_, feature_scores_, classes_, n_features_in_
        See :class:`hbnlab.models.base.BinaryTextClassifier`.
"""


#: The tree learners' hyper-parameters (:func:`hbnlab.bounds.validate_params`, at the start of ``fit``).
#: Checked where they meet, not here: B with hidden_states (an HBN table's rows, ``check_table_rows``),
#: n_direct with B (``construct_tree``), init='hbn' with the direction and hidden_states (``_check_init``),
#: feature_names with X's columns (``_selected_names``); class_name is any label.
TREE_PARAMETER_CONSTRAINTS = {
    **BinaryTextClassifier._parameter_constraints,
    "B": [Bound("B", 2, math.inf), None], "alpha": [ALPHA, None],
    "clustering": [Choice(CLUSTERINGS), CALLABLE],  # the registry, read at each check
    "n_direct": [Bound("n_direct", 0, math.inf)], "tree_terms": TREE_TERMS_ALLOWED,
    "children_N0": [Bound("children_N0", 0, 1e6, integer=False, lo_open=True, hi_open=True)],
    "tree_select": [Choice(TREE_SELECTIONS)], "children_select": [None, Choice(CHILDREN_SELECTIONS)],
    "n_restarts": [N_RESTARTS], "tol": [Bound("tol", 0, math.inf, integer=False)],
    "max_iter": [Bound("max_iter", 0, math.inf)], "stopping": [Choice(_em.STOPPING)],
    "criterion": [Choice(_em.CRITERIA)], "pseudo_count": [Bound("pseudo_count", 0, math.inf, integer=False)],
    "acceleration": [Choice(_em.ACCELERATIONS)], "screen_iter": [SCREEN_ITER], "screen_keep": [SCREEN_KEEP],
    "hidden_states": HIDDEN_STATES_ALLOWED, "init": [Choice(INITS)], "random_state": RANDOM_STATE_ALLOWED,
    "objective": [Choice(OBJECTIVES)],
    "cll_penalty": [Bound("cll_penalty", 0, 1e6, integer=False, lo_open=True), Choice(("cv",))],
    "progress": [None, CALLABLE], "should_stop": [None, CALLABLE],
}


class HierarchicalBNClassifier(_TreeClassifier):
    __doc__ = (
        """Hierarchical Bayesian network (HBN) classifier (thesis ch. 2, sec. 3.2).

    The class is the root of a tree; hidden binary variables sit between it and the features;
    all arcs point toward the class, so P(c | f) is computed bottom-up and maximising the
    likelihood also maximises the conditional likelihood (Propositions 1-2).
"""
        + _PARAMS_DOC
        + """
    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> y = rng.randint(0, 2, 200)
    >>> X = (rng.rand(200, 6) < np.where(y[:, None] == 1, 0.7, 0.2)).astype(int)
    >>> clf = HierarchicalBNClassifier(B=3, n_features=None, n_restarts=4, random_state=0).fit(X, y)
    >>> clf.tree_.n_features, float(clf.score(X, y)) > 0.8
    (6, True)
    """
    )

    _direction = "hbn"
    _parameter_constraints = TREE_PARAMETER_CONSTRAINTS


class HierarchicalNBClassifier(_TreeClassifier):
    __doc__ = (
        """Hierarchical naive Bayes classifier (thesis sec. 3.3): the HBN tree with the arcs
    pointing away from the class; random initial tables for hidden *and* feature nodes.
"""
        + _PARAMS_DOC
        + """
    Examples
    --------
    Two groups of three terms, each group present together in its class's documents:

    >>> import numpy as np
    >>> y = np.tile([0, 1], 60)
    >>> X = np.repeat(np.column_stack([y, 1 - y]), 3, axis=1)
    >>> hnb = HierarchicalNBClassifier(B=2, n_features=None, n_restarts=2, random_state=0).fit(X, y)
    >>> hnb.predict(X[:4]).tolist(), hnb.tree_.n_features
    ([0, 1, 0, 1], 6)
    """
    )

    _direction = "hnb"
    _parameter_constraints = TREE_PARAMETER_CONSTRAINTS


__all__ = ["HierarchicalBNClassifier", "HierarchicalNBClassifier", "TreeExplanation", "ClassChildren",
           "TREE_TERMS_DEFAULT", "TREE_SELECTIONS", "CHILDREN_SELECTIONS", "CHILDREN_SELECT_DEFAULT",
           "children_candidates",
           "check_tree_terms", "dependent_terms", "check_hidden_states",
           "parse_hidden_states", "oversized_hidden_states", "HIDDEN_STATE_SEARCHES", "INITS",
           "TREE_PARAMETER_CONSTRAINTS", "TREE_TERMS_ALLOWED", "HIDDEN_STATES_ALLOWED", "OBJECTIVES",
           "CLL_PENALTIES", "THESIS_PARAMS", "OBJECTIVE_DEFAULT"]
