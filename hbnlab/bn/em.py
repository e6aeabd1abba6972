"""Multi-restart EM for HBN and HNB classifiers (thesis sec. 3.2 and 3.3).

In the manner of pomegranate v1, EM is three small pieces:

* :func:`e_step` -- expected sufficient statistics (expected family counts) and the
  log-likelihood of the current parameters, by exact message passing on the tree
  (:mod:`hbnlab.bn.kernels`);
* :func:`m_step` -- statistics (+ an optional Dirichlet pseudo-count) to tables;
* :func:`fit_em` -- only the convergence loop.

The class and all features are observed, the hidden nodes are latent.  Documents are
collapsed to distinct (feature pattern, class) rows with counts, and all restarts run as one
batch: every table has a leading restart axis ``R``.  A restart that has converged is frozen
(masked out of the batch) while the others go on.

Thesis set-up (sec. 3.2, after fig. 3.4; sec. 3.3): 64 restarts [CH97]; random initial tables
for the hidden nodes (each row uniform on the simplex, i.e. Dirichlet(1); hidden nodes may have
more than two states, see :func:`hbnlab.bn.states.select_hidden_states`); the class table of
an HBN starts uniform (0.5 / 0.5 for every parent configuration); HBN feature marginals are
fixed at the feature frequencies (Proposition 2: that is their maximum-likelihood value and
the conditional likelihood does not depend on them); for an HNB the feature tables are random
too and the class prior starts uniform; EM stops when the log-likelihood gains less than a
threshold (1e-4); the restart with the best log-likelihood (of the stopping ``criterion``) is
kept.

Stopping rule (the thesis's footnote says only "the difference between the log likelihood for
two successive iterations"; its EM was HUGIN's, whose tolerance is on the *relative*
difference of the log-likelihood of the cases, i.e. log P(c, f)):

* ``stopping="absolute"``: stop when ``LL_t - LL_{t-1} < tol``;
* ``stopping="relative"``: stop when ``LL_t - LL_{t-1} < tol * |LL_{t-1}|``;
* ``criterion="full"``: ``LL = sum log P(c, f)``; for an HBN this is the conditional
  log-likelihood plus the constant ``K`` of Proposition 1 (the feature marginals), so a relative
  rule on it is much looser than on the conditional one;
* ``criterion="conditional"``: ``LL = sum log P(c | f)``.  For an HBN it differs from the full
  one by a constant and is non-decreasing under EM; for an HNB it is not what EM maximises and
  may decrease (the rule then stops at the first decrease).

A restart also stops when the gain is <= 0 (a fixed point), or after ``max_iter`` M-steps.

The default is ``stopping="relative", criterion="full"``: it is the thesis's set-up (HUGIN's
rule on the log-likelihood of the cases), it reproduces the thesis's HBN-AVG breakevens best,
and it is 15-100 times faster.  Measured with ``python benchmarks/bench_em.py --no-peers
--variants --variant-classes trade,grain,crude,interest,money-fx`` (HBN-AVG, B = 7, 64 restarts,
tol 1e-4, max_iter 1000; test breakeven %, thesis Table 4.10 in brackets)::

    class       relative, full   relative, conditional   absolute (full or conditional)
    trade       68.4 (64.1)      68.4                    69.2
    grain       82.6 (83.2)      90.6                    90.6
    crude       75.7 (75.5)      78.3                    78.8
    interest    61.1 (62.6)      56.5                    58.0
    money-fx    55.3 (59.9)      58.7                    58.9
    mean        68.6 (69.1)      70.5                    71.1
    iterations  8-27 (mean)      373-769                 1000 (never converges)
    CPU s       0.7-1.4          15-71                   24-91

For an HBN, ``absolute`` gives the same iterations for both criteria (they differ by a
constant).  The stricter rules buy ~2 breakeven points on average at 15-100x the time; pass
``criterion="conditional"`` for them.

M-step rule for a table row whose expected count is zero (a parent configuration that never
occurs in the training data, e.g. a combination of feature values no document has): the row
is set to **uniform** (0.5 / 0.5; ``1/n`` for a node of ``n`` states).  Such a row does not
enter the expected complete-data log-likelihood, so any value keeps EM monotone; uniform means "no information" when the
configuration is met at prediction time, where keeping the previous value would keep a random
initial value.  With ``pseudo_count > 0`` no row is ever empty.

With ``pseudo_count = a > 0`` the M-step is the MAP step under a symmetric Dirichlet(a + 1) prior, so
EM increases ``log L + a * sum log theta`` (over the learned tables), not ``log L`` itself: the
stopping criterion, the traces and the choice of the best restart then use that log posterior
(``full_log_likelihood`` / ``conditional_log_likelihood`` of the result stay the plain values).

Two options make the 64 restarts cheaper; both are off by default (the thesis's EM):

* ``acceleration="squarem"``: SQUAREM (Varadhan and Roland 2008).  From an EM iterate t0, two EM
  steps give t1 and t2; the trial point ``t0 - 2 a r + a^2 v`` (``r = t1 - t0``,
  ``v = t2 - 2 t1 + t0``, ``a = -|r| / |v|``, at most -1) is halved towards t2 while it leaves
  the simplex or shrinks a probability below ``SQUAREM_MIN_RATIO`` of its value at t2; the next
  iterate is one EM step from the trial point if its log-likelihood is at least t1's, else t2.
  The stopping rule is applied to ``LL(t1) - LL(t0)``, the gain of one plain EM step, so it
  means what it means for plain EM; the recorded log-likelihoods never decrease.  ``n_iter``
  then counts E-steps after the first (three per cycle), ``traces`` the EM iterates (t0, t1).
* ``screen_iter = m > 0``: after m E-steps only the ``screen_keep`` restarts with the highest
  criterion go on (the short-run strategy of Biernacki, Celeux and Govaert 2003); the others
  stop, unconverged, and are listed in ``settings["screened_out"]``.

References
----------
R. Varadhan and C. Roland, Simple and globally convergent methods for accelerating the
convergence of any EM algorithm, Scandinavian Journal of Statistics 35, 2008.
C. Biernacki, G. Celeux and G. Govaert, Choosing starting values for the EM algorithm for getting
the highest likelihood in multivariate Gaussian mixture models, Computational Statistics & Data
Analysis 41, 2003.
G. Karčiauskas, Text Categorization Using Hierarchical Bayesian Network Classifiers, MSc thesis,
Aalborg University, 2002, sec. 3.2-3.3.
D. M. Chickering and D. Heckerman, Efficient approximations for the marginal likelihood of
Bayesian networks with hidden variables, Machine Learning 29, 1997 [CH97].
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from sklearn.utils import check_random_state

from hbnlab._validation import Cancelled, check_y01
from hbnlab.bn import hnb_kernels as HK
from hbnlab.bn import kernels as K
from hbnlab.bn.params import TreeParameters, cpt_shape
from hbnlab.bn.structure import CLASS, FEATURE, TreeStructure
from hbnlab.bounds import N_RESTARTS

STOPPING = ("absolute", "relative")
ACCELERATIONS = (None, "squarem")
CRITERIA = ("full", "conditional")


@dataclass
class SufficientStatistics:
    """What the E-step returns for a batch of ``R`` parameter sets.

    Attributes
    ----------
    counts : dict node -> ndarray
        Expected family counts, shaped like the batched table of the node, ``(R, *cpt_shape)``:
        ``counts[i][r, x, s]`` is the expected number of documents with node ``i`` in state
        ``s`` and its parent configuration ``x``.  Nodes whose tables EM does not learn (HBN
        features) are absent.
    log_likelihood : ndarray (R,)
        ``sum log P(c, f)`` under the parameters the statistics were computed with.
    conditional_log_likelihood : ndarray (R,)
        ``sum log P(c | f)``.
    """

    counts: dict
    log_likelihood: np.ndarray
    conditional_log_likelihood: np.ndarray


@dataclass
class EMResult:
    """Outcome of :func:`fit_em`.

    Attributes
    ----------
    params : TreeParameters
        The best restart's parameters.
    best_restart : int
    log_likelihood : float
        The best restart's final value of the stopping criterion.
    traces : list of ndarray
        Per restart, the criterion log-likelihood of every evaluated parameter set
        (``traces[r][t]`` after ``t`` M-steps; length ``n_iter[r] + 1``).
    n_iter : ndarray of int (R,)
        M-steps performed per restart.
    converged : ndarray of bool (R,)
        Whether the stopping rule fired before ``max_iter``.
    seconds : ndarray (R,)
        Wall-clock seconds from the start of the batch until the restart stopped (the restarts
        share one batch, so this is the time each one was running).
    total_seconds : float
    full_log_likelihood, conditional_log_likelihood : ndarray (R,)
        Final values of both criteria per restart.
    settings : dict
    cancelled : bool
    """

    params: TreeParameters
    best_restart: int
    log_likelihood: float
    traces: list
    n_iter: np.ndarray
    converged: np.ndarray
    seconds: np.ndarray
    total_seconds: float
    full_log_likelihood: np.ndarray
    conditional_log_likelihood: np.ndarray
    settings: dict = field(default_factory=dict)
    cancelled: bool = False

    @property
    def n_restarts(self) -> int:
        return len(self.traces)

    def to_dict(self) -> dict:
        """JSON-able summary (parameters included)."""
        return {
            "params": self.params.to_dict(),
            "best_restart": int(self.best_restart),
            "log_likelihood": float(self.log_likelihood),
            "traces": [t.tolist() for t in self.traces],
            "n_iter": self.n_iter.tolist(),
            "converged": self.converged.tolist(),
            "seconds": self.seconds.tolist(),
            "total_seconds": float(self.total_seconds),
            "full_log_likelihood": self.full_log_likelihood.tolist(),
            "conditional_log_likelihood": self.conditional_log_likelihood.tolist(),
            "settings": dict(self.settings),
            "cancelled": bool(self.cancelled),
        }


# ============================================================================ data
@dataclass
class EMData:
    """Training data collapsed for EM: a plan over the distinct (pattern, class) rows."""

    plan: K.TreePlan
    y: np.ndarray
    counts: np.ndarray
    n_documents: int

    @classmethod
    def from_documents(cls, tree: TreeStructure, X, y, sample_weight=None) -> EMData:
        y = check_y01(y)
        data = K.collapse_patterns(X, y, n_columns=tree.n_features, sample_weight=sample_weight)
        return cls(K.TreePlan(tree, data.U), data.y, data.counts, data.n_documents)

    @property
    def tree(self) -> TreeStructure:
        return self.plan.tree

    @cached_property
    def feature_ones(self) -> np.ndarray:
        """(n_features,) weighted count of each feature's 1s (fixed during EM)."""
        return K.feature_ones(self.plan, self.counts)


# ============================================================================ pieces
def initial_parameters(data: EMData, n_restarts: int, random_state=None, init=None, pseudo_count: float = 0.0):
    """Batched starting tables, ``list`` of ``(R, *cpt_shape)`` arrays (thesis sec. 3.2 / 3.3).

    Hidden rows (and HNB feature rows) are uniform on the simplex; the HBN class table and the
    HNB class prior are 0.5 / 0.5; HBN feature marginals are the (pseudo-count smoothed)
    feature frequencies.  ``init`` (a TreeParameters or a list of them) replaces the first
    restarts; for an HBN their feature marginals are still set to the frequencies.
    """
    tree = data.tree
    rng = check_random_state(random_state)
    R = int(n_restarts)
    cpts = []
    if tree.direction == "hbn":
        n = data.counts.sum()
        n1 = data.feature_ones
    for i in range(tree.n_nodes):
        shape = cpt_shape(tree, i)
        kind = tree.kind[i]
        if tree.direction == "hbn" and kind == FEATURE:
            p1 = (n1[tree.feature[i]] + pseudo_count) / (n + 2 * pseudo_count) if n + 2 * pseudo_count > 0 else 0.5
            t = np.broadcast_to(np.array([1.0 - p1, p1]), (R, 2)).copy()
        elif kind == CLASS:
            t = np.full((R, *shape), 0.5)
        else:
            # hidden nodes (both directions) and HNB features: Dirichlet(1) rows
            if shape[-1] == 2:
                p1 = rng.random_sample((R, *shape[:-1]))
                t = np.stack([1.0 - p1, p1], axis=-1)
            else:
                e = rng.standard_exponential((R, *shape))
                t = e / e.sum(axis=-1, keepdims=True)
        cpts.append(t)
    if init is not None:
        inits = [init] if isinstance(init, TreeParameters) else list(init)
        if len(inits) > R:
            raise ValueError(f"got {len(inits)} initial parameter sets for n_restarts={R}")
        for r, p in enumerate(inits):
            if not isinstance(p, TreeParameters) or p.tree.to_dict() != tree.to_dict():
                raise ValueError(f"init[{r}] is not a TreeParameters for this tree")
            for i in range(tree.n_nodes):
                if not (tree.direction == "hbn" and tree.kind[i] == FEATURE):
                    cpts[i][r] = p.cpt(i)
    return cpts


def e_step(data: EMData, cpts) -> SufficientStatistics:
    """Expected family counts and log-likelihoods for a batch of parameter sets.

    Restarts are processed in chunks that keep intermediates below
    :data:`hbnlab.bn.kernels.MAX_BLOCK_ELEMENTS` elements; no loop over documents.
    """
    plan, tree = data.plan, data.tree
    R = cpts[0].shape[0]
    chunk = plan.restart_chunk(R)
    parts = []
    for a in range(0, R, chunk):
        sub = [c[a:a + chunk] for c in cpts]
        if tree.direction == "hbn":
            stats, llc = K.hbn_estep(plan, sub, data.y, data.counts)
            llf = llc + K.hbn_feature_loglik(plan, sub, data.counts, data.feature_ones)
        else:
            stats, llf, llc = HK.hnb_estep(plan, sub, data.y, data.counts)
        parts.append((stats, llf, llc))
    if len(parts) == 1:
        stats, llf, llc = parts[0]
    else:
        stats = {i: np.concatenate([p[0][i] for p in parts]) for i in parts[0][0]}
        llf = np.concatenate([p[1] for p in parts])
        llc = np.concatenate([p[2] for p in parts])
    return SufficientStatistics(stats, llf, llc)


def m_step(stats: SufficientStatistics, cpts, pseudo_count: float = 0.0):
    """New batched tables from expected counts: ``(N + a) / (N_row + n a)`` for a node of ``n``
    states (the posterior mean under a symmetric Dirichlet(a) prior; maximum likelihood for
    ``a = 0``).  Rows whose total is zero become uniform (see the module docstring).  Tables
    without statistics are kept.  Tables of one shape are normalised as one stacked array (the
    same arithmetic per element); the new tables are views into it."""
    new = list(cpts)
    groups: dict[tuple, list] = {}
    for i, N in stats.counts.items():
        groups.setdefault(N.shape, []).append(i)
    for ids in groups.values():
        N = stats.counts[ids[0]][None] if len(ids) == 1 else np.stack([stats.counts[i] for i in ids])
        if pseudo_count:
            N = N + pseudo_count
        tot = N.sum(axis=-1, keepdims=True)
        ok = tot > 0
        T = np.where(ok, N / np.where(ok, tot, 1.0), 1.0 / N.shape[-1])
        for k, i in enumerate(ids):
            new[i] = T[k]
    return new


def _log_prior(cpts, counts) -> np.ndarray:
    """``sum log theta`` per restart over the tables EM learns (those with statistics)."""
    total = 0.0
    for i in counts:
        c = cpts[i]
        with np.errstate(divide="ignore"):
            total = total + np.log(c).reshape(c.shape[0], -1).sum(axis=1)
    return total


def _as_params(tree, cpts, r) -> TreeParameters:
    tables = []
    for c in cpts:
        t = np.array(c[r], dtype=np.float64)
        # renormalise away the last-bit rounding of the M-step
        tables.append(t / t.sum(axis=-1, keepdims=True))
    return TreeParameters(tree, tables)


# ============================================================================ HNB started at an HBN
def hnb_counts_from_hbn(tree: TreeStructure, counts: dict) -> dict:
    """The hierarchical naive Bayes's expected family counts from an HBN's on the same tree.

    An HBN family is a node with all its children, so its expected counts hold the joint
    expected count of the node and any one child; summing out the other children gives the HNB
    family (child, parent) of every arc, and summing out all of them the class counts.
    ``counts[p]`` has shape ``(R, rows, n_p)`` (rows: mixed radix over ``tree.children(p)``, the
    first child least significant); the result maps every node ``i > 0`` to ``(R, n_up, n_i)``
    and the class to ``(R, n_0)``.
    """
    out = {}
    for p in range(tree.n_nodes):
        ch = tree.children(p)
        if not ch:
            continue
        N = counts[p]
        cards = [tree.cardinality(c) for c in ch]
        N = N.reshape(N.shape[0], *reversed(cards), N.shape[-1])
        k = len(ch)
        for j, c in enumerate(ch):
            axis = 1 + (k - 1 - j)
            other = tuple(1 + a for a in range(k) if 1 + a != axis)
            out[c] = np.swapaxes(N.sum(axis=other), 1, 2)
        if p == 0:
            out[0] = N.sum(axis=tuple(range(1, k + 1)))
    return out


def hnb_start_from_hbn(params: TreeParameters, X, y, *, sample_weight=None,
                       pseudo_count: float = 0.0) -> TreeParameters:
    """Starting tables for a hierarchical naive Bayes from a fitted HBN on the same tree: one HNB
    M-step on the HBN's posterior over the hidden nodes (its E-step on ``X``, ``y``).

    The HBN's EM is cheap because its feature tables are fixed.  From this point one HNB restart
    met the thesis's stopping rule in 17-171 iterations (median 48) on Reuters, where the 64
    random restarts took 24-100 each on average (``benchmarks/results/hnb_start.txt``).
    """
    tree = params.tree
    if tree.direction != "hbn":
        raise ValueError(f"params must belong to an HBN tree (direction 'hbn'), got {tree.direction!r}")
    data = EMData.from_documents(tree, X, y, sample_weight)
    stats = e_step(data, [np.asarray(t)[None] for t in params.cpts])
    hnb = tree.with_direction("hnb")
    counts = hnb_counts_from_hbn(tree, stats.counts)
    shells = [np.empty((1, *cpt_shape(hnb, i))) for i in range(hnb.n_nodes)]
    tables = m_step(SufficientStatistics(counts, stats.log_likelihood, stats.conditional_log_likelihood), shells,
                    pseudo_count)
    return _as_params(hnb, tables, 0)


def fit_hnb_from_hbn(tree: TreeStructure, X, y, *, sample_weight=None, **options) -> tuple[EMResult, EMResult]:
    """A hierarchical naive Bayes on ``tree`` (direction ``"hnb"``) started at the HBN on the same
    tree: the HBN's EM with ``options`` (those of :func:`fit_em`), :func:`hnb_start_from_hbn` on its
    best parameters, then one HNB restart from there with the same options (no screening).

    Returns ``(hnb_result, hbn_result)``.
    """
    hbn = fit_em(tree.with_direction("hbn"), X, y, sample_weight=sample_weight, **options)
    init = hnb_start_from_hbn(hbn.params, X, y, sample_weight=sample_weight,
                              pseudo_count=options.get("pseudo_count", 0.0))
    one = {**options, "n_restarts": 1, "screen_iter": 0}
    return fit_em(tree.with_direction("hnb"), X, y, init=init, sample_weight=sample_weight, **one), hbn


def _check_options(n_restarts, tol, max_iter, stopping, criterion, pseudo_count, acceleration=None,
                   screen_iter=0, screen_keep=8):
    N_RESTARTS.check(n_restarts)
    if not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tol must be a non-negative number, got {tol!r}")
    if not isinstance(max_iter, (int, np.integer)) or max_iter < 0:
        raise ValueError(f"max_iter must be a non-negative integer, got {max_iter!r}")
    if stopping not in STOPPING:
        raise ValueError(f"stopping must be one of {STOPPING}, got {stopping!r}")
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    if not np.isfinite(pseudo_count) or pseudo_count < 0:
        raise ValueError(f"pseudo_count must be a non-negative number, got {pseudo_count!r}")
    if acceleration not in ACCELERATIONS:
        raise ValueError(f"acceleration must be one of {ACCELERATIONS}, got {acceleration!r}")
    if isinstance(screen_iter, bool) or not isinstance(screen_iter, (int, np.integer)) or screen_iter < 0:
        raise ValueError(f"screen_iter must be a non-negative integer (0: no screening), got {screen_iter!r}")
    if isinstance(screen_keep, bool) or not isinstance(screen_keep, (int, np.integer)) or screen_keep < 1:
        raise ValueError(f"screen_keep must be a positive integer, got {screen_keep!r}")


def _criterion(stats: SufficientStatistics, tables, criterion: str, pseudo_count: float) -> np.ndarray:
    crit = stats.log_likelihood if criterion == "full" else stats.conditional_log_likelihood
    if pseudo_count:
        # with a pseudo-count the M-step maximises log L + a * sum log theta (MAP under
        # Dirichlet(a + 1)): that objective rises at every step, log L alone need not
        crit = crit + pseudo_count * _log_prior(tables, stats.counts)
    return crit


def _take(tables, keep) -> list:
    """The rows ``keep`` (a boolean mask over the restarts) of batched tables; the tables
    themselves when every restart is kept."""
    if keep.all():
        return list(tables)
    return [t[keep] for t in tables]


def _subset(stats: SufficientStatistics, keep) -> SufficientStatistics:
    if keep.all():
        return stats
    return SufficientStatistics({i: N[keep] for i, N in stats.counts.items()}, stats.log_likelihood[keep],
                                stats.conditional_log_likelihood[keep])


class _Run:
    """Per-restart bookkeeping of one batched EM run, shared by the plain and the accelerated loop."""

    def __init__(self, tree, R: int, settings: dict, progress, observer):
        self.t0 = time.perf_counter()
        self.tree, self.R, self.settings = tree, R, settings
        self.progress, self.observer = progress, observer
        self.traces = [[] for _ in range(R)]
        self.full = np.full(R, -np.inf)
        self.cond = np.full(R, -np.inf)
        self.crit = np.full(R, -np.inf)
        self.n_iter = np.zeros(R, dtype=np.int64)
        self.converged = np.zeros(R, dtype=bool)
        self.seconds = np.zeros(R)
        self.active = np.ones(R, dtype=bool)
        self.screened: list[int] = []
        self.screen_done = False

    def record(self, idx, stats: SufficientStatistics, crit):
        """The criteria of the restarts ``idx`` at their current EM iterate."""
        self.full[idx] = stats.log_likelihood
        self.cond[idx] = stats.conditional_log_likelihood
        self.crit[idx] = crit
        for r, v in zip(idx.tolist(), crit.tolist()):
            self.traces[r].append(v)

    def observe(self, it, idx, tables, stats, done, point="em"):
        if self.observer is not None:
            self.observer({"iteration": it, "restarts": idx.copy(), "tables": [c.copy() for c in tables],
                           "log_likelihood": stats.log_likelihood.copy(),
                           "conditional_log_likelihood": stats.conditional_log_likelihood.copy(),
                           "stopped": done.copy(), "point": point})

    def stop(self, idx):
        self.seconds[idx] = time.perf_counter() - self.t0
        self.active[idx] = False

    def screen(self, it, idx, crit, done, screen_iter: int, keep: int):
        """At the first iterate with ``it >= screen_iter > 0``: of the restarts ``idx`` that go on
        (``~done``), all but the ``keep`` with the highest criterion ``crit`` (ties to the lower
        index) are cut; returns ``done`` with them added."""
        go = ~done
        if not screen_iter or self.screen_done or it < screen_iter or not go.any():
            return done
        self.screen_done = True
        order = np.lexsort((idx[go], -np.where(np.isnan(crit[go]), -np.inf, crit[go])))
        cut = np.flatnonzero(go)[order[keep:]]
        self.screened.extend(idx[cut].tolist())
        done = done.copy()
        done[cut] = True
        return done

    def settle(self, it, idx, tables, stats, done, *, max_iter, screen_iter, screen_keep):
        """The bookkeeping after the E-step of an EM iterate of the restarts ``idx`` (its criterion
        recorded): observe, screen, stop the restarts that are ``done``, report progress.
        Returns the mask of those that go on."""
        self.observe(it, idx, tables, stats, done)
        done = self.screen(it, idx, self.crit[idx], done, screen_iter, screen_keep)
        self.stop(idx[done])
        self.report(it, max_iter)
        return ~done

    def report(self, it, max_iter):
        if self.progress is None:
            return
        cur = np.where(np.isfinite(self.crit), self.crit, np.nan)
        self.progress({
            "iteration": it, "max_iter": int(max_iter), "n_restarts": self.R,
            "n_running": int(self.active.sum()), "running": np.flatnonzero(self.active).tolist(),
            "n_converged": int(self.converged.sum()), "log_likelihood": cur.tolist(),
            "best_log_likelihood": float(np.nanmax(cur)) if np.isfinite(cur).any() else float("nan"),
            "elapsed": time.perf_counter() - self.t0,
        })

    def result(self, cpts, cancelled=False) -> EMResult:
        crit = self.crit
        best = int(np.argmax(np.where(np.isnan(crit), -np.inf, crit)))
        settings = dict(self.settings)
        if self.settings.get("screen_iter"):
            settings["screened_out"] = sorted(self.screened)
        now = time.perf_counter() - self.t0
        return EMResult(
            params=_as_params(self.tree, cpts, best), best_restart=best, log_likelihood=float(crit[best]),
            traces=[np.array(t) for t in self.traces], n_iter=self.n_iter.copy(), converged=self.converged.copy(),
            seconds=np.where(self.active, now, self.seconds), total_seconds=now,
            full_log_likelihood=self.full.copy(), conditional_log_likelihood=self.cond.copy(),
            settings=settings, cancelled=cancelled,
        )

    def check_cancel(self, should_stop, cpts):
        if should_stop is not None and should_stop():
            cancelled = Cancelled("EM was cancelled by should_stop()")
            cancelled.result = self.result(cpts, cancelled=True)
            raise cancelled


def _threshold(prev, tol, stopping):
    return tol if stopping == "absolute" else tol * np.abs(prev)


def _stops(gain, thr):
    with np.errstate(invalid="ignore"):
        return (gain < thr) | (gain <= 0) | np.isnan(gain)


# ============================================================================ the loops
def fit_em(
    tree: TreeStructure,
    X,
    y,
    *,
    n_restarts: int = 64,
    tol: float = 1e-4,
    max_iter: int = 1000,
    stopping: str = "relative",
    criterion: str = "full",
    pseudo_count: float = 0.0,
    acceleration: str | None = None,
    screen_iter: int = 0,
    screen_keep: int = 8,
    random_state=None,
    init=None,
    sample_weight=None,
    progress=None,
    should_stop=None,
    observer=None,
) -> EMResult:
    """Learn the tables of ``tree`` by EM with ``n_restarts`` random restarts run as one batch.

    Parameters
    ----------
    tree : TreeStructure
        Direction ``"hbn"`` or ``"hnb"``; feature column ``j`` of ``X`` is the feature node with
        ``tree.feature == j``.
    X : {array-like, sparse matrix} of shape (n_documents, tree.n_features)
        Binary features (a positive entry counts as present; negative entries raise).
    y : array-like of shape (n_documents,)
        0/1 class.
    n_restarts, tol, max_iter, stopping, criterion, pseudo_count
        See the module docstring.  ``max_iter`` bounds the number of E-steps after the first
        per restart (for plain EM, the M-steps).
    acceleration : {None, "squarem"}, default=None
        ``"squarem"``: the squared iterative extrapolation of Varadhan and Roland (2008) with the
        step length of their scheme S3 and a monotone safeguard (see the module docstring).
    screen_iter : int, default=0
        With ``screen_iter > 0``, the restarts still running after ``screen_iter`` E-steps are cut
        to the ``screen_keep`` with the highest criterion, and only those go on (short-run
        screening of starting values, Biernacki, Celeux and Govaert 2003).  0: every restart runs
        to the stopping rule, as in the thesis.
    screen_keep : int, default=8
    random_state : None, int or RandomState
        Seeds the random initial tables.
    init : TreeParameters or list of them, optional
        Starting points for the first restarts (the others are random).
    sample_weight : array-like of shape (n_documents,), optional
    progress : callable, optional
        Called after every iteration with a dict: ``iteration``, ``max_iter``,
        ``n_restarts``, ``n_running`` and ``running`` (restarts still iterating),
        ``n_converged``, ``log_likelihood`` (latest criterion value per restart),
        ``best_log_likelihood``, ``elapsed`` (seconds).
    observer : callable, optional
        Called after every E-step with a dict: ``iteration``, ``restarts`` (indices of the
        restarts evaluated, i.e. still running), ``tables`` (their batched tables, the
        parameters the E-step used, one ``(len(restarts), *cpt_shape)`` array per node),
        ``log_likelihood`` and ``conditional_log_likelihood`` (per evaluated restart),
        ``stopped`` (which of them stop at this iteration) and ``point`` (``"em"``, or
        ``"extrapolated"`` for a SQUAREM trial point that is not an EM iterate).  The arrays are
        copies.
    should_stop : callable, optional
        Checked between iterations; when it returns True, :class:`hbnlab._validation.Cancelled`
        is raised; its ``result`` attribute holds the best parameters reached so far (an
        :class:`EMResult` with ``cancelled=True``).

    Returns
    -------
    EMResult
    """
    _check_options(n_restarts, tol, max_iter, stopping, criterion, pseudo_count, acceleration, screen_iter,
                   screen_keep)
    data = EMData.from_documents(tree, X, y, sample_weight)
    R = int(n_restarts)
    cpts = initial_parameters(data, R, random_state, init, pseudo_count)
    settings = {"n_restarts": R, "tol": float(tol), "max_iter": int(max_iter), "stopping": stopping,
                "criterion": criterion, "pseudo_count": float(pseudo_count),
                "n_documents": data.n_documents, "n_patterns": data.plan.P}
    if acceleration is not None:
        settings["acceleration"] = acceleration
    if screen_iter:
        settings.update(screen_iter=int(screen_iter), screen_keep=int(screen_keep))
    run = _Run(tree, R, settings, progress, observer)
    loop = _plain_loop if acceleration is None else _squarem_loop
    loop(data, cpts, run, tol=float(tol), max_iter=int(max_iter), stopping=stopping, criterion=criterion,
         pseudo_count=float(pseudo_count), screen_iter=int(screen_iter), screen_keep=int(screen_keep),
         should_stop=should_stop)
    return run.result(cpts)


def _plain_loop(data, cpts, run: _Run, *, tol, max_iter, stopping, criterion, pseudo_count, screen_iter,
                screen_keep, should_stop):
    settle = dict(max_iter=max_iter, screen_iter=screen_iter, screen_keep=screen_keep)
    for it in range(max_iter + 1):
        idx = np.flatnonzero(run.active)
        sub = _take(cpts, run.active)
        stats = e_step(data, sub)
        crit = _criterion(stats, sub, criterion, pseudo_count)
        prev = run.crit[idx]                                  # the previous iterate's criterion
        stop = _stops(crit - prev, _threshold(prev, tol, stopping)) if it > 0 else np.zeros(idx.size, bool)
        run.record(idx, stats, crit)
        run.converged[idx[stop]] = True
        go = run.settle(it, idx, sub, stats, stop | (it == max_iter), **settle)
        if not go.any():
            break
        new = m_step(_subset(stats, go), _take(sub, go), pseudo_count)
        for c, nc in zip(cpts, new):
            if nc is not c:
                c[idx[go]] = nc
        run.n_iter[idx[go]] += 1
        run.check_cancel(should_stop, cpts)


#: A SQUAREM trial point may not shrink a probability below this fraction of its value at the
#: plain two-step point t2: a longer step that would (or that would leave the simplex) is halved
#: towards t2 (step -1).  Clipping to the simplex instead puts probabilities near 0, where EM's
#: multiplicative updates barely move them, and EM then stops on a false plateau (seen on planted
#: trees: a gain below 1e-10 at a log-likelihood 0.03 below plain EM's).  On those trees 0.1
#: blocked most long steps; 0.01 met an absolute tolerance of 1e-8 / 1e-10 in 2.7-6.7x fewer
#: E-steps than plain EM (and where plain EM had not met it after 20,000, in 2,300-3,400); 0.001
#: once needed 19,000.
SQUAREM_MIN_RATIO = 0.01


def _extrapolate(t0, t1, t2, learned, max_halvings: int = 60, min_ratio: float = None):
    """The SQUAREM trial point ``t0 - 2 a r + a^2 v`` (r = t1 - t0, v = t2 - 2 t1 + t0, step
    a = -|r| / |v| per restart, scheme S3 of Varadhan and Roland 2008, at most -1; halved towards
    -1 while the point breaks :data:`SQUAREM_MIN_RATIO`), on the learned tables; the others are
    ``t0``'s.  Returns the trial tables and the steps."""
    min_ratio = SQUAREM_MIN_RATIO if min_ratio is None else min_ratio
    R = t0[0].shape[0]
    nr, nv = np.zeros(R), np.zeros(R)
    r, v = {}, {}
    for i in learned:
        r[i] = t1[i] - t0[i]
        v[i] = t2[i] - 2.0 * t1[i] + t0[i]
        nr += np.einsum("ij,ij->i", r[i].reshape(R, -1), r[i].reshape(R, -1))
        nv += np.einsum("ij,ij->i", v[i].reshape(R, -1), v[i].reshape(R, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(nv > 0, -np.sqrt(nr) / np.sqrt(nv), -1.0)
    a = np.where(np.isfinite(a), np.minimum(a, -1.0), -1.0)

    def point(a):
        out, ok = list(t0), np.ones(R, dtype=bool)
        for i in learned:
            ai = a.reshape((R,) + (1,) * (t0[i].ndim - 1))
            out[i] = t0[i] - 2.0 * ai * r[i] + ai * ai * v[i]
            ok &= (out[i] >= min_ratio * t2[i]).reshape(R, -1).all(axis=1)
        return out, ok

    out, ok = point(a)
    for _ in range(max_halvings):
        if ok.all():
            break
        a = np.where(ok, a, (a - 1.0) / 2.0)
        out, ok = point(a)
    if not ok.all():
        a = np.where(ok, a, -1.0)
        out, ok = point(a)
    for i in learned:
        t = np.where(ok.reshape((R,) + (1,) * (t0[i].ndim - 1)), out[i], t2[i])
        t = np.maximum(t, 0.0)
        out[i] = t / t.sum(axis=-1, keepdims=True)
    return out, a


def _squarem_loop(data, cpts, run: _Run, *, tol, max_iter, stopping, criterion, pseudo_count, screen_iter,
                  screen_keep, should_stop):
    """One SQUAREM cycle from the EM iterate t0 (whose E-step is done): t1 = M(t0); the stopping
    rule on LL(t1) - LL(t0), the gain of one plain EM step, exactly as in the plain loop; t2 =
    M(t1); the trial point t' (:func:`_extrapolate`); the next t0 is M(t') if LL(t') >= LL(t1),
    else t2.  Three E-steps per cycle; the recorded log-likelihoods never decrease."""
    it = 0
    idx = np.flatnonzero(run.active)
    sub0 = [c[idx] for c in cpts]
    s0 = e_step(data, sub0)
    c0 = _criterion(s0, sub0, criterion, pseudo_count)
    settle = dict(max_iter=max_iter, screen_iter=screen_iter, screen_keep=screen_keep)
    while True:
        # the EM iterate t0 of the running restarts idx: cpts[idx] == sub0
        run.record(idx, s0, c0)
        run.converged[idx[np.isnan(c0)]] = True
        go = run.settle(it, idx, sub0, s0, np.isnan(c0) | (run.n_iter[idx] >= max_iter), **settle)
        if not go.any():
            return
        run.check_cancel(should_stop, cpts)
        idx, sub0, s0, c0 = idx[go], _take(sub0, go), _subset(s0, go), c0[go]

        # t1: one EM step; the stopping rule
        sub1 = m_step(s0, sub0, pseudo_count)
        for c, t in zip(cpts, sub1):
            c[idx] = t
        it += 1
        run.n_iter[idx] += 1
        s1 = e_step(data, sub1)
        c1 = _criterion(s1, sub1, criterion, pseudo_count)
        run.record(idx, s1, c1)
        stop = _stops(c1 - c0, _threshold(c0, tol, stopping))
        run.converged[idx[stop]] = True
        go = run.settle(it, idx, sub1, s1, stop | (run.n_iter[idx] + 2 > max_iter), **settle)
        if not go.any():
            return
        run.check_cancel(should_stop, cpts)
        idx, s1, c1 = idx[go], _subset(s1, go), c1[go]
        sub0, sub1 = _take(sub0, go), _take(sub1, go)

        # t2, the trial point, the safeguard
        sub2 = m_step(s1, sub1, pseudo_count)
        trial, _ = _extrapolate(sub0, sub1, sub2, list(s1.counts))
        it += 1
        run.n_iter[idx] += 1
        st = e_step(data, trial)
        ct = _criterion(st, trial, criterion, pseudo_count)
        run.observe(it, idx, trial, st, np.zeros(idx.size, dtype=bool), point="extrapolated")
        with np.errstate(invalid="ignore"):
            accept = ct >= c1
        stepped = m_step(st, trial, pseudo_count)
        sub0 = [np.where(accept.reshape((-1,) + (1,) * (a.ndim - 1)), a, b) for a, b in zip(stepped, sub2)]
        for c, t in zip(cpts, sub0):
            c[idx] = t
        it += 1
        run.n_iter[idx] += 1
        s0 = e_step(data, sub0)
        c0 = _criterion(s0, sub0, criterion, pseudo_count)


__all__ = [
    "fit_em", "e_step", "m_step", "initial_parameters", "EMData", "EMResult", "SufficientStatistics",
    "STOPPING", "CRITERIA",
]
