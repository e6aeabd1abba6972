"""Greedy hierarchical naive Bayes for classification (Langseth & Nielsen).

The search (slides 6-14) starts from naive Bayes over binary term features and repeatedly adds
one latent variable L as a new child of the class C with exactly two children taken from the
current children of C, so the result is a binary tree:

1. candidate pair (slide 8): the pair {X, Y} of children of C with the highest
   P(Z <= 2N I(X, Y | C)), Z ~ chi-square with |sp(C)| (|sp(X)|-1)(|sp(Y)|-1) degrees of
   freedom (we rank by the log survival function, which does not saturate at 1);
2. cardinality (slides 9-14): L starts with one state per joint state of its children; two
   states l_i, l_j are collapsed while the approximate predictive-MDL difference

       dL(l_i, l_j) = log(N)/2 |sp(C)| - { sum_c [N(c,l_i) log N(c,l_i)/(N(c,l_i)+N(c,l_j))
                                                + N(c,l_j) log N(c,l_j)/(N(c,l_i)+N(c,l_j))]
                                          - N(l_i) log N(l_i)/(N(l_i)+N(l_j))
                                          - N(l_j) log N(l_j)/(N(l_i)+N(l_j)) }        # slide 14

   of the best pair is positive (the braces hold the drop in the log-likelihood of C given L,
   slide 13; the slide text is garbled, the signs follow from slide 11: collapsing saves
   |sp(C)| parameters and costs that likelihood).  We keep at least two states.  While states
   are collapsed L is a deterministic function of its children ("observed", slide 9);
3. parameters: initialised from those deterministic states, then refined by EM in which every
   latent is hidden (a vectorized E-step over documents by belief propagation on the tree,
   an M-step with Dirichlet(``alpha``) smoothing);
4. wrapper score (slide 5): cross-validated accuracy; the candidate is accepted while it
   improves on the current model (slide 6), otherwise the search stops.

Hidden variables that are children of C are represented for step 1 by their deterministic
states (slide 9: "we can now easily infer the data for the hidden variables").
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.special import xlogy
from scipy.stats import chi2

from hbnlab._validation import as_binary
from hbnlab.bounds import Bound
from hbnlab.models.base import RANDOM_STATE_ALLOWED, BinaryTextClassifier, NonNegativeInputMixin

__all__ = ["GreedyHNBClassifier", "HNBModel", "fit_hnb_em", "conditional_mutual_information_pairs",
           "collapse_states"]


# ---------------------------------------------------------------------------------- the model
@dataclass
class HNBModel:
    """An HNB with a binary class C at the root, binary features and multi-state latents.

    Variables ``0..n_features-1`` are the features, ``n_features + j`` the j-th latent.
    ``parent[v]`` is the latent above ``v`` or ``-1`` for the class; ``kids[j]`` are the two
    children of latent j; ``state_map[j][a, b]`` is the deterministic state of latent j for child
    states (a, b) (used to initialise EM and to give latents data in the search).
    """

    n_features: int
    parent: list = field(default_factory=list)
    card: list = field(default_factory=list)
    kids: list = field(default_factory=list)
    state_map: list = field(default_factory=list)

    @classmethod
    def naive_bayes(cls, n_features: int) -> HNBModel:
        return cls(n_features, [-1] * n_features, [2] * n_features, [], [])

    @property
    def n_latents(self) -> int:
        return len(self.kids)

    @property
    def n_vars(self) -> int:
        return self.n_features + self.n_latents

    def copy(self) -> HNBModel:
        return HNBModel(self.n_features, list(self.parent), list(self.card), list(self.kids),
                        [m.copy() for m in self.state_map])

    def class_children(self) -> list[int]:
        return [v for v in range(self.n_vars) if self.parent[v] == -1]

    def with_latent(self, a: int, b: int, state_map: np.ndarray) -> HNBModel:
        """A new model with latent L over children a, b of the class (L becomes a class child)."""
        if self.parent[a] != -1 or self.parent[b] != -1 or a == b:
            raise ValueError(f"variables {a} and {b} must be two distinct children of the class")
        m = self.copy()
        L = m.n_vars
        m.parent[a] = L
        m.parent[b] = L
        m.parent.append(-1)
        m.card.append(int(state_map.max()) + 1)
        m.kids.append((a, b))
        m.state_map.append(np.asarray(state_map, dtype=np.int64))
        return m

    def bottom_up(self) -> list[int]:
        """Variables ordered children before parents (features first, latents in creation order)."""
        return list(range(self.n_vars))  # a latent is always created after its children

    def hard_data(self, Xb: np.ndarray) -> list[np.ndarray]:
        """Deterministic states of every variable for binary feature rows ``Xb``."""
        h = [Xb[:, f].astype(np.int64) for f in range(self.n_features)]
        for j, (a, b) in enumerate(self.kids):
            h.append(self.state_map[j][h[a], h[b]])
        return h

    def to_nested(self, v: int | None = None):
        """Nested lists over feature indices (latents are lists of their two children)."""
        if v is None:
            return [self.to_nested(u) for u in self.class_children()]
        if v < self.n_features:
            return int(v)
        a, b = self.kids[v - self.n_features]
        return [self.to_nested(a), self.to_nested(b)]

    def features_under(self, v: int) -> list[int]:
        if v < self.n_features:
            return [v]
        a, b = self.kids[v - self.n_features]
        return sorted(self.features_under(a) + self.features_under(b))


# ---------------------------------------------------------------------------------- inference
def _leaf_groups(model: HNBModel) -> dict:
    """Leaves grouped by parent (-1 = the class): their messages are one matrix product."""
    groups: dict[int, list[int]] = {}
    for f in range(model.n_features):
        groups.setdefault(model.parent[f], []).append(f)
    return groups


def _upward(model: HNBModel, cpt: list, Xb: np.ndarray, marginalize: int | None = None):
    """Messages toward the root, vectorized over documents.

    Leaves under the same parent send, together, ``sum_f log P(x_f | pa)`` computed as one
    matrix product ``X[:, leaves] @ (log P(1|pa) - log P(0|pa)) + sum log P(0|pa)``; a latent L
    sends the row-normalised ``msg[L] = lambda_L @ P(L | pa)^T`` with
    ``lambda_L = prod of its children's messages`` (kept row-normalised in ``lam[L]``).
    A marginalised leaf sends nothing (its message is all ones).

    Returns (msg, lam, loglamC, logscale) with ``log P(x | c) = loglamC[:, c] + logscale``.
    """
    N = Xb.shape[0]
    Xf = Xb if Xb.dtype == np.float64 else Xb.astype(np.float64)
    logscale = np.zeros(N)
    acc: dict[int, np.ndarray] = {}
    for key, leaves in _leaf_groups(model).items():
        with np.errstate(divide="ignore"):
            L0 = np.stack([np.log(cpt[v][:, 0]) for v in leaves])  # (n_leaves, k_parent)
            L1 = np.stack([np.log(cpt[v][:, 1]) for v in leaves])
        D = L1 - L0
        if marginalize is not None and marginalize in leaves:
            r = leaves.index(marginalize)
            D[r] = 0.0
            L0[r] = 0.0
        acc[key] = Xf[:, leaves] @ D + L0.sum(axis=0)[None, :]
    msg: list = [None] * model.n_vars
    lam: list = [None] * model.n_vars
    for j in range(model.n_latents):  # latents in creation order: children first
        L = model.n_features + j
        ll = acc.pop(L)
        mx = ll.max(axis=1)
        lv = np.exp(ll - mx[:, None])
        logscale += mx
        m = lv @ cpt[L].T
        s = m.sum(axis=1)
        s = np.where(s > 0, s, 1.0)
        m /= s[:, None]
        logscale += np.log(s)
        lam[L], msg[L] = lv, m
        key = model.parent[L]
        with np.errstate(divide="ignore"):
            lm = np.log(m)
        acc[key] = acc[key] + lm if key in acc else lm
    return msg, lam, acc.pop(-1), logscale


def _log_posterior_odds(model: HNBModel, prior: np.ndarray, cpt: list, Xb: np.ndarray,
                        marginalize: int | None = None) -> np.ndarray:
    _, _, loglamC, _ = _upward(model, cpt, Xb, marginalize)
    with np.errstate(divide="ignore"):
        return (np.log(prior[1]) + loglamC[:, 1]) - (np.log(prior[0]) + loglamC[:, 0])


def _e_step(model: HNBModel, prior, cpt, Xb, y):
    """Expected counts for every CPT and the log-likelihood sum_d log P(x_d, c_d) (C observed)."""
    N = Xb.shape[0]
    Xf = Xb if Xb.dtype == np.float64 else Xb.astype(np.float64)
    msg, lam, loglamC, logscale = _upward(model, cpt, Xf)
    idx = np.arange(N)
    with np.errstate(divide="ignore"):
        loglik = float(np.sum(np.log(prior[y]) + loglamC[idx, y] + logscale))
    post: dict[int, np.ndarray] = {}
    postC = np.zeros((N, 2))
    postC[idx, y] = 1.0
    post[-1] = postC
    counts: list = [None] * model.n_vars
    for j in reversed(range(model.n_latents)):  # top-down
        v = model.n_features + j
        pp = post[model.parent[v]]
        m = msg[v]
        q = np.divide(pp, m, out=np.zeros_like(pp), where=m > 0)  # outside evidence at the parent
        xi = q[:, :, None] * cpt[v][None, :, :] * lam[v][:, None, :]
        z = xi.sum(axis=(1, 2))
        xi /= np.where(z > 0, z, 1.0)[:, None, None]
        counts[v] = xi.sum(axis=0)
        post[v] = xi.sum(axis=1)
    for key, leaves in _leaf_groups(model).items():
        # xi(d, i, s) is nonzero only at s = x_dv, where it equals post_parent(d, i)
        pp = post[key]
        c1 = pp.T @ Xf[:, leaves]  # (k_parent, n_leaves)
        c0 = pp.sum(axis=0)[:, None] - c1
        for r, v in enumerate(leaves):
            counts[v] = np.stack([c0[:, r], c1[:, r]], axis=1)
    return counts, loglik


def _m_step(counts, alpha):
    out = []
    for c in counts:
        c = c + alpha
        out.append(c / c.sum(axis=1, keepdims=True))
    return out


def _hard_counts(model: HNBModel, Xb, y, alpha):
    """CPTs from the deterministic states (all variables observed) -- the EM starting point."""
    h = model.hard_data(Xb)
    counts = []
    for v in range(model.n_vars):
        p = model.parent[v]
        hp = y if p == -1 else h[p]
        kp = 2 if p == -1 else model.card[p]
        M = np.zeros((kp, model.card[v]))
        np.add.at(M, (hp, h[v]), 1.0)
        counts.append(M)
    return _m_step(counts, alpha)


def _log_dirichlet(cpt, alpha) -> float:
    if alpha == 0:
        return 0.0
    with np.errstate(divide="ignore"):
        return float(sum(np.sum(alpha * np.log(c)) for c in cpt))


def fit_hnb_em(model: HNBModel, Xb, y, *, alpha: float = 1.0, max_iter: int = 100, tol: float = 1e-6,
               init: list | None = None):
    """Fit the CPTs of an HNB by EM with C observed and the latents hidden.

    E-step (:func:`_e_step`) returns expected counts and the log-likelihood; M-step
    (:func:`_m_step`) turns counts into smoothed CPTs; this function is only the loop (the
    pomegranate pattern of the house style).  The objective is the log-likelihood plus the
    Dirichlet log prior ``alpha sum log theta`` (MAP-EM), which never decreases.

    Returns
    -------
    prior, cpt, history (objective per iteration), converged
    """
    Xb = np.asarray(Xb, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    nc = np.bincount(y, minlength=2).astype(np.float64)
    prior = (nc + alpha) / (nc.sum() + 2 * alpha)
    cpt = _hard_counts(model, Xb, y, alpha) if init is None else [c.copy() for c in init]
    history = []
    converged = model.n_latents == 0
    n_iter = 1 if model.n_latents == 0 else int(max_iter)
    N = max(Xb.shape[0], 1)
    for it in range(n_iter):  # loop over EM iterations
        counts, ll = _e_step(model, prior, cpt, Xb, y)
        history.append(ll + _log_dirichlet(cpt, alpha))
        if model.n_latents == 0:
            break
        if it > 0 and history[-1] - history[-2] < tol * N:
            converged = True
            break
        cpt = _m_step(counts, alpha)
    return prior, cpt, history, converged


# ---------------------------------------------------------------------------------- search pieces
def conditional_mutual_information_pairs(hard: list, cards: list, y: np.ndarray) -> np.ndarray:
    """N * I(X_u, X_v | C) in nats for every pair of the given variables (vectorized).

    Returns a symmetric (n_vars, n_vars) matrix with zeros on the diagonal.
    """
    y = np.asarray(y, dtype=np.int64)
    cards = [int(k) for k in cards]
    starts = np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(np.int64)
    S = int(np.sum(cards))
    N = y.size
    cols = np.concatenate([starts[i] + np.asarray(h, dtype=np.int64) for i, h in enumerate(hard)])
    rows = np.tile(np.arange(N), len(hard))
    onehot = sp.csr_matrix((np.ones(cols.size), (rows, cols)), shape=(N, S))
    total = np.zeros((len(hard), len(hard)))
    for c in np.unique(y):  # loop over the classes
        Oc = onehot[y == c]
        J = np.asarray((Oc.T @ Oc).todense())  # joint counts N(x, y, c) in blocks
        nx = np.diag(J).copy()  # N(x, c) for every state of every variable
        Nc = float((y == c).sum())
        with np.errstate(divide="ignore"):
            lnx = np.where(nx > 0, np.log(np.where(nx > 0, nx, 1.0)), 0.0)
        T = xlogy(J, J) - J * (lnx[:, None] + lnx[None, :]) + J * np.log(Nc)
        total += np.add.reduceat(np.add.reduceat(T, starts, axis=0), starts, axis=1)
    np.fill_diagonal(total, 0.0)
    return np.maximum(total, 0.0)


def collapse_states(counts_cl: np.ndarray, N: int, n_classes: int = 2, min_states: int = 2):
    """Collapse latent states while the approximate predictive-MDL difference is positive.

    Parameters
    ----------
    counts_cl : (n_classes, n_states) array of N(c, l)
    N : number of cases (the log N / 2 of the parameter penalty, slide 11)

    Returns
    -------
    mapping : ndarray (n_states,) old state -> new state (0..k-1)
    deltas : list of the dL of every collapse performed (all > 0)
    """
    M = np.asarray(counts_cl, dtype=np.float64).copy()
    K = M.shape[1]
    groups = [[s] for s in range(K)]
    pen = 0.5 * np.log(max(N, 1)) * n_classes  # slide 11: log(N)/2 (|Theta_B| - |Theta_B'|)
    deltas = []
    while M.shape[1] > min_states:
        tot = M.sum(axis=0)
        Fc = xlogy(M, M).sum(axis=0) - xlogy(tot, tot)  # sum_c f(N_cl) - f(N_l)
        Ms = M[:, :, None] + M[:, None, :]
        ts = tot[:, None] + tot[None, :]
        Fs = xlogy(Ms, Ms).sum(axis=0) - xlogy(ts, ts)
        loss = Fc[:, None] + Fc[None, :] - Fs  # drop in sum log P(c | l), slide 13
        dL = pen - loss
        iu = np.triu_indices(M.shape[1], 1)
        vals = dL[iu]
        best = int(np.argmax(vals))
        if vals[best] <= 0:
            break
        i, j = int(iu[0][best]), int(iu[1][best])
        deltas.append(float(vals[best]))
        M[:, i] += M[:, j]
        M = np.delete(M, j, axis=1)
        groups[i] += groups.pop(j)
    mapping = np.empty(K, dtype=np.int64)
    for g, members in enumerate(groups):  # loop over the (few) states
        mapping[members] = g
    return mapping, deltas


# ---------------------------------------------------------------------------------- the estimator
class GreedyHNBClassifier(NonNegativeInputMixin, BinaryTextClassifier):
    """Greedy hierarchical naive Bayes (Langseth & Nielsen) over selected binary term features.

    Parameters
    ----------
    n_features : int or None, default 30
        Terms kept by local selection (``selection``) before the structure search.
    selection : str, default "ig"
        Scoring method of :func:`hbnlab.features.score_terms`.
    max_latents : int, default 10
        Upper bound on the number of latent variables added.
    cv : int, default 5
        Folds of the cross-validated accuracy that scores candidate models (wrapper).
    n_candidates : int, default 1
        Candidate pairs examined per step, in order of P(Z <= 2N I); the slides examine one.
    alpha : float, default 1.0
        Dirichlet pseudo-count of every CPT entry (EM is MAP-EM).
    max_iter : int, default 50
        EM iterations per fit.
    tol : float, default 1e-5
        EM stops when the objective gains less than ``tol`` per document.
    random_state : int or None
        Seeds the cross-validation folds.

    Attributes
    ----------
    model_ : HNBModel
    structure_ : list
        Nested lists over selected-feature positions (``[[0, 3], 1, [[2, 4], 5]]``).
    latent_cardinalities_ : list of int
        Cardinality of each latent in creation order.
    latents_ : list of dict
        Per latent: ``features`` (selected positions), ``cardinality``, ``children``.
    tree_ : hbnlab.bn.structure.TreeStructure
        The structure as a tree with direction ``"hnb"``; ``tree_cardinalities_`` maps its
        hidden node indices to cardinalities.
    history_ : list of dict
        Every candidate examined: pair, statistic, log survival, cardinality, cv accuracy,
        accepted.
    cv_accuracy_ : float
        Wrapper score of the final structure.
    class_prior_, cpt_ : the fitted parameters; ``lower_bound_``, ``n_iter_``, ``converged_``
        from the final EM run.

    References
    ----------
    H. Langseth and T. D. Nielsen, Classification using hierarchical naive Bayes models,
    Machine Learning 63(2), 2006 (and Langseth & Nielsen's HNB workshop slides).
    """

    _poor_score_on_generic_data = True  # presence model (see the base class)
    _parameter_constraints = {**BinaryTextClassifier._parameter_constraints,
                              "max_latents": [Bound("max_latents", 0, math.inf)], "cv": [Bound("cv", 2, math.inf)],
                              "n_candidates": [Bound("n_candidates", 1, math.inf)],
                              "alpha": [Bound("alpha", 0, math.inf, integer=False, lo_open=True)],
                              "max_iter": [Bound("max_iter", 1, math.inf)],
                              "tol": [Bound("tol", 0, math.inf, integer=False)], "random_state": RANDOM_STATE_ALLOWED}

    def __init__(self, *, n_features=30, selection="ig", max_latents=10, cv=5, n_candidates=1,
                 alpha=1.0, max_iter=50, tol=1e-5, random_state=None):
        self.n_features = n_features
        self.selection = selection
        self.max_latents = max_latents
        self.cv = cv
        self.n_candidates = n_candidates
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    # ------------------------------------------------------------------ helpers
    def _fit_params(self, model, Xb, y):
        return fit_hnb_em(model, Xb, y, alpha=float(self.alpha), max_iter=int(self.max_iter), tol=float(self.tol))

    def _cv_accuracy(self, model, Xb, y, folds) -> float:
        correct = 0
        for tr, te in folds:  # loop over folds
            prior, cpt, _, _ = self._fit_params(model, Xb[tr], y[tr])
            z = _log_posterior_odds(model, prior, cpt, Xb[te])
            correct += int(np.sum((z > 0).astype(np.int64) == y[te]))
        return correct / y.size

    def _candidate(self, model, Xb, y, exclude):
        """Best pair of class children by chi-square probability, skipping ``exclude``."""
        kids = model.class_children()
        if len(kids) < 2:
            return []
        h = model.hard_data(Xb)
        cards = [model.card[v] for v in kids]
        NI = conditional_mutual_information_pairs([h[v] for v in kids], cards, y)
        stat = 2.0 * NI  # 2 N I(X, Y | C) in nats
        kc = np.asarray(cards)
        df = 2 * np.outer(kc - 1, kc - 1)  # |sp(C)| (|sp(X)|-1)(|sp(Y)|-1), slide 8
        iu = np.triu_indices(len(kids), 1)
        logsf = chi2.logsf(stat[iu], df[iu])
        order = np.lexsort((-stat[iu], logsf))
        out = []
        for o in order:
            a, b = kids[iu[0][o]], kids[iu[1][o]]
            if (a, b) in exclude:
                continue
            out.append((a, b, float(stat[iu][o]), float(logsf[o]), int(df[iu][o])))
            if len(out) >= int(self.n_candidates):
                break
        return out

    # ------------------------------------------------------------------ BinaryTextClassifier API
    def _fit_selected(self, X, y):
        from sklearn.model_selection import StratifiedKFold

        Xb = as_binary(X).toarray()
        y = np.asarray(y, dtype=np.int64)
        N, F = Xb.shape
        model = HNBModel.naive_bayes(F)
        history = []
        n_splits = min(int(self.cv), int(np.bincount(y, minlength=2).min()))
        if n_splits >= 2:
            skf = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=self.random_state)
            folds = list(skf.split(np.zeros(N), y))
            score = self._cv_accuracy(model, Xb, y, folds)
        else:  # too few positives to cross-validate: naive Bayes
            folds, score = [], float("nan")
        tried: set = set()
        while folds and model.n_latents < int(self.max_latents):  # loop over search steps
            accepted = False
            for a, b, stat, logsf, df in self._candidate(model, Xb, y, tried):
                tried.add((a, b))
                h = model.hard_data(Xb)
                ka, kb = model.card[a], model.card[b]
                joint = h[a] * kb + h[b]
                ncl = np.zeros((2, ka * kb))
                np.add.at(ncl, (y, joint), 1.0)
                mapping, deltas = collapse_states(ncl, N)
                state_map = mapping.reshape(ka, kb)
                cand = model.with_latent(a, b, state_map)
                cscore = self._cv_accuracy(cand, Xb, y, folds)
                step = {
                    "pair": (model.to_nested(a), model.to_nested(b)),
                    "variables": (int(a), int(b)),
                    "statistic": stat,
                    "df": df,
                    "log_sf": logsf,
                    "initial_states": int(ka * kb),
                    "cardinality": int(mapping.max()) + 1,
                    "collapse_deltas": deltas,
                    "cv_accuracy": cscore,
                    "previous_cv_accuracy": score,
                    "accepted": bool(cscore > score),
                }
                history.append(step)
                if cscore > score:
                    model, score, accepted = cand, cscore, True
                    tried = set()
                    break
            if not accepted:
                break
        prior, cpt, lb, conv = self._fit_params(model, Xb, y)
        self.model_ = model
        self.class_prior_ = prior
        self.cpt_ = cpt
        self.lower_bound_ = lb[-1]
        self.n_iter_ = len(lb)
        self.converged_ = conv
        self.history_ = history
        self.cv_accuracy_ = score
        self._export_structure()

    def _export_structure(self):
        from hbnlab.bn.structure import TreeStructure, features_under

        m = self.model_
        self.structure_ = m.to_nested()
        self.latents_ = [
            {"features": m.features_under(m.n_features + j), "cardinality": int(m.card[m.n_features + j]),
             "children": (m.to_nested(a), m.to_nested(b))}
            for j, (a, b) in enumerate(m.kids)
        ]
        self.latent_cardinalities_ = [int(m.card[m.n_features + j]) for j in range(m.n_latents)]
        tree = TreeStructure.from_nested(self.structure_, direction="hnb")
        by_feats = {tuple(d["features"]): d["cardinality"] for d in self.latents_}
        self.tree_ = tree
        self.tree_cardinalities_ = {int(i): by_feats[tuple(features_under(tree, i))] for i in tree.hidden_nodes()}

    def _log_odds(self, X):
        return _log_posterior_odds(self.model_, self.class_prior_, self.cpt_, as_binary(X).toarray())

    # ------------------------------------------------------------------ explanations
    @property
    def prior_log_odds_(self) -> float:
        return float(np.log(self.class_prior_[1]) - np.log(self.class_prior_[0]))

    def term_contributions(self, X) -> np.ndarray:
        """Per selected term: log odds minus the log odds with that term's value unknown.

        Shape (n_documents, n_selected), columns in the order of ``selected_features_``.  For a
        term directly under the class this is exactly log P(x | c=1) / P(x | c=0); for terms
        under a latent it is the term's leave-one-out effect (contributions then need not sum
        to the score).
        """
        Xs = self._check_X(X)
        Xb = as_binary(Xs).toarray()
        full = _log_posterior_odds(self.model_, self.class_prior_, self.cpt_, Xb)
        out = np.empty((Xb.shape[0], Xb.shape[1]))
        for f in range(Xb.shape[1]):  # loop over tree leaves
            out[:, f] = full - _log_posterior_odds(self.model_, self.class_prior_, self.cpt_, Xb, marginalize=f)
        return out
