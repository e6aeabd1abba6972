"""Readings of the thesis's feature clustering that its text leaves open, and the ImproveClustering
bug it suspects (Karčiauskas 2002, figs 3.6-3.12).

Our AVG, OR and DEP (:mod:`hbnlab.clustering.avg`, :mod:`~hbnlab.clustering.orclust`,
:mod:`~hbnlab.clustering.dep`) follow one reading of figs 3.6-3.12, checked against slow oracles.
Two of the thesis's observations disagree with it: its HBN-AVG for class ``trade`` has only hidden
parents of the class (fig. 4.1) and its HBN-OR has ``trade`` and ``tariffs`` at the class
(fig. 4.2), and alpha = 0 is its worst AVG and DEP setting on validation (Tables 4.2 and 4.4) where
it is our best.  The thesis itself reports "strange gain* values, which may be explained by a
possible error in the program code for ImproveClustering" (sec. 3.7).

:class:`ClusteringVariant` is a clustering function ``(X, y, features, B, alpha)`` -- usable as
the ``clustering`` of :func:`~hbnlab.clustering.construct_tree` and of the HBN/HNB estimators --
that re-implements AVG, OR or DEP with plain loops (slow, for experiments) and these options, all
off by default (the default variant returns the same partitions as the fast kernels; a test
checks it):

``log_base``
    Mutual information in bits (2, ours) or nats (``math.e``).  Only rescales I, i.e. alpha: with
    alpha = 0 the partitions cannot change.
``class_prior``
    The P(C) in I(X, C) = sum_{x,c} P(x, c) log(P(c | x) / P(c)): ``"implied"`` (ours, the marginal
    of the joint itself, a proper mutual information), ``"data"`` (the P(C = c_m) that fig. 3.6
    step 2 computes once from the data, also for merged AVG clusters, whose averaged joint has
    another marginal -- fig. 3.7) or ``"uniform"`` (1 / |C|).  With a count-based joint (every
    singleton, every OR cluster) ``"data"`` is ``"implied"``, and ``"uniform"`` is I(X, C) plus the
    constant log|C| - H(C): the constant cancels from every comparison of OR's loss (dI gains it
    once, at the same k for all pairs of a step) and of DEP's Expression 3.1 (the penalty gains it
    times the number of clusters, equal across the candidates of a step), so only AVG's merged
    clusters can tell the three apart.
``tie_order``
    Which of equally good candidates wins (within a relative 1e-10): ``"first"`` (ours: lowest
    (i, j) in the initial order, a strict ``<`` scan) or ``"last"`` (a ``<=`` scan).
``feature_order``
    The initial order of the clusters, which decides ties and which slot a merged cluster keeps:
    ``"info_desc"`` (ours, fig. 3.6 step 3: decreasing I(F, C), ties by column), ``"info_asc"``
    or ``"given"`` (the order of ``features``; fig. 3.11, DEP, has no sorting step).
``improve`` (DEP only; fig. 3.12)
    ``"derived"`` (ours: the within-cluster pair count after the move, D - (|X_l| - 1) + |X_m|);
    ``"stray_term"`` (the printed denominator taken literally as a program would run it: the
    stray C(|X_k|, 2) after the sum uses the loop variable's last value, the last cluster other
    than X_l, X_m, counted twice); ``"all_clusters"`` (the sum over all of A, old C(|X_l|, 2) and
    C(|X_m|, 2) not removed); ``"multiplied_update"`` (step 2.b.ii as extracted,
    d_jl <- d_jl p_ji, the minus sign read as a product); ``"stale_d"`` (d_ik never updated after
    a move); ``"off"`` (no ImproveClustering).  The buggy readings also carry their E_2m forward as
    the next E_1, as step 2.b.iii does.

Examples
--------
>>> import numpy as np
>>> X = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 0]])
>>> y = np.array([1, 1, 0, 0])
>>> ClusteringVariant("avg")(X, y, [0, 1, 2, 3], 2, 0.0)
[[0, 1], [2, 3]]
>>> ClusteringVariant("dep", improve="off").name
'dep[improve=off]'
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

import numpy as np

from hbnlab.clustering.common import TIE_RTOL, initial_rank, prepare
from hbnlab.clustering.dep import pvalues_of

__all__ = ["ClusteringVariant", "VARIANT_OPTIONS"]

#: Every option's allowed values; the first is the default (our reading).
VARIANT_OPTIONS = {
    "log_base": (2.0, math.e),
    "class_prior": ("implied", "data", "uniform"),
    "tie_order": ("first", "last"),
    "feature_order": ("info_desc", "info_asc", "given"),
    "improve": ("derived", "stray_term", "all_clusters", "multiplied_update", "stale_d", "off"),
}


@dataclass(frozen=True)
class ClusteringVariant:
    """One reading of AVG, OR or DEP (see the module docstring); call it as a clustering function.

    Parameters
    ----------
    algorithm : {"avg", "or", "dep"}
    log_base, class_prior, tie_order, feature_order, improve :
        See the module docstring; the defaults are our reading.
    """

    algorithm: str
    log_base: float = 2.0
    class_prior: str = "implied"
    tie_order: str = "first"
    feature_order: str = "info_desc"
    improve: str = "derived"

    def __post_init__(self):
        if self.algorithm not in ("avg", "or", "dep"):
            raise ValueError(f"algorithm must be one of ('avg', 'or', 'dep'), got {self.algorithm!r}")
        for f in fields(self):
            if f.name in VARIANT_OPTIONS and getattr(self, f.name) not in VARIANT_OPTIONS[f.name]:
                raise ValueError(f"{f.name} must be one of {VARIANT_OPTIONS[f.name]}, got {getattr(self, f.name)!r}")
        if self.improve != "derived" and self.algorithm != "dep":
            raise ValueError(f"improve applies to DEP only (ImproveClustering, fig. 3.12), got algorithm "
                             f"{self.algorithm!r}")

    @property
    def name(self) -> str:
        """``"avg"`` for the default reading, else ``"avg[class_prior=data, tie_order=last]"``."""
        def shown(value):
            return "e" if value == math.e else value

        changed = [f"{f.name}={shown(getattr(self, f.name))}"
                   for f in fields(self) if f.name != "algorithm" and getattr(self, f.name) != f.default]
        return self.algorithm + (f"[{', '.join(changed)}]" if changed else "")

    @property
    def __name__(self) -> str:  # construct_tree names a clustering function by its __name__
        return self.name

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> ClusteringVariant:
        return cls(**d)

    # ------------------------------------------------------------------ the clustering function
    def __call__(self, X, y, features, B, alpha) -> list[list[int]]:
        stats, B, alpha = prepare(X, y, features, B, alpha)
        n, n1 = stats.n, stats.n1
        px, q1, q0 = _conditionals(stats.df, stats.df1, n, n1)
        info = self.mutual_information(px, q1, q0, n1 / n)
        order = self._initial_order(info, stats.columns)
        if self.algorithm == "dep":
            clusters = self._dep(stats, order, info[order], B, alpha)
        else:
            clusters = self._agglomerate(stats, order, B, alpha)
        clusters = sorted(clusters, key=min)  # by the initial order of a cluster's first feature
        return [sorted(int(stats.columns[order[r]]) for r in c) for c in clusters]

    def mutual_information(self, px1, q1, q0, prior1) -> np.ndarray:
        """I(X, C) from P(X=1), P(C=1|X=1), P(C=1|X=0) with this variant's P(C) and log base;
        ``prior1`` is the data's P(C=1)."""
        px1, q1, q0 = (np.asarray(a, dtype=np.float64) for a in (px1, q1, q0))
        cells = ((px1 * q1, q1, 1), (px1 * (1 - q1), 1 - q1, 0),
                 ((1 - px1) * q0, q0, 1), ((1 - px1) * (1 - q0), 1 - q0, 0))
        if self.class_prior == "implied":
            pc1 = px1 * q1 + (1 - px1) * q0
        elif self.class_prior == "data":
            pc1 = np.full(px1.shape, float(prior1))
        else:
            pc1 = np.full(px1.shape, 0.5)
        out = np.zeros(np.broadcast(px1, q1, q0).shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            for joint, cond, c in cells:
                pc = pc1 if c == 1 else 1 - pc1
                out = out + np.where(joint > 0, joint * np.log(cond / pc), 0.0)
        out = out / math.log(self.log_base)
        # a proper mutual information is >= 0 (clip rounding noise, as common.py does); the
        # other priors give a divergence-like quantity that is kept as it is
        return np.maximum(out, 0.0) if self.class_prior == "implied" else out

    # ------------------------------------------------------------------ pieces
    def _initial_order(self, info, columns) -> np.ndarray:
        if self.feature_order == "given":
            return np.arange(columns.size)
        order = initial_rank(info, columns)
        return order[::-1].copy() if self.feature_order == "info_asc" else order

    def _pick(self, cost) -> tuple[int, int]:
        """The best (smallest) entry of ``cost``; ties to the first or last in row-major order."""
        flat = cost.ravel()
        m = flat.min()
        hits = np.flatnonzero(flat <= m + TIE_RTOL * max(1.0, abs(m)))
        k = int(hits[0] if self.tie_order == "first" else hits[-1])
        return divmod(k, cost.shape[1])

    def _agglomerate(self, stats, order, B, alpha) -> list[list[int]]:
        """Figs 3.6-3.10 with plain loops: slots in the initial order, the merged cluster keeps
        the lower slot."""
        N = order.size
        n, n1 = stats.n, stats.n1
        members = [[r] for r in range(N)]
        if N <= B:
            return members
        Z = stats.Xb[:, order].toarray() > 0  # OR columns (fig. 3.10)
        ybool = stats.y > 0
        px, q1, q0 = _conditionals(stats.df[order], stats.df1[order], n, n1)
        size = np.ones(N)
        info = self.mutual_information(px, q1, q0, n1 / n)
        active = list(range(N))
        while len(active) > B:
            a = np.array(active)
            m = a.size
            if self.algorithm == "avg":
                s_i, s_j = size[a][:, None], size[a][None, :]
                mpx = (s_i * px[a][:, None] + s_j * px[a][None, :]) / (s_i + s_j)  # fig. 3.7
                mq1 = (s_i * q1[a][:, None] + s_j * q1[a][None, :]) / (s_i + s_j)
                mq0 = (s_i * q0[a][:, None] + s_j * q0[a][None, :]) / (s_i + s_j)
            else:
                Za = Z[:, a].astype(np.float64)
                both = Za.T @ Za
                both1 = Za[ybool].T @ Za[ybool]
                cnt = Za.sum(axis=0)
                pos = Za[ybool].sum(axis=0)
                ucnt = cnt[:, None] + cnt[None, :] - both  # |A u B| (fig. 3.10)
                upos = pos[:, None] + pos[None, :] - both1
                mpx, mq1, mq0 = _conditionals(ucnt, upos, n, n1)
            merged = self.mutual_information(mpx, mq1, mq0, n1 / n)
            dI = info[a][:, None] + info[a][None, :] - merged
            k = N / m
            cost = dI * k + alpha * (size[a][:, None] + size[a][None, :]) / k  # fig. 3.8
            cost = np.where(np.triu(np.ones((m, m), dtype=bool), 1), cost, np.inf)
            ia, ib = self._pick(cost)
            i, j = active[ia], active[ib]
            if self.algorithm == "avg":
                size[i], px[i], q1[i], q0[i] = size[i] + size[j], mpx[ia, ib], mq1[ia, ib], mq0[ia, ib]
            else:
                Z[:, i] |= Z[:, j]
                size[i] += size[j]
                px[i], q1[i], q0[i] = mpx[ia, ib], mq1[ia, ib], mq0[ia, ib]
            info[i] = merged[ia, ib]
            members[i].extend(members[j])
            members[j] = []
            active.remove(j)
        return [members[i] for i in active]

    def _dep(self, stats, order, info, B, alpha) -> list[list[int]]:
        """Figs 3.11-3.12 with plain loops over positions in the initial order."""
        p = pvalues_of(stats)[np.ix_(order, order)].copy()
        np.fill_diagonal(p, 0.0)
        N = order.size
        clusters = [[r] for r in range(N)]
        E = -alpha / N * float(info.sum())  # all singletons (first term 0, see dep.py)
        while len(clusters) > B:
            m = len(clusters)
            M = np.zeros((N, m))
            for k, c in enumerate(clusters):
                M[c, k] = 1.0
            P = M.T @ p @ M  # P[a, b] = sum of p_ij between X_a and X_b; P[a, a] = 2 S_a
            size = M.sum(axis=0)
            isum = info @ M
            S = float(np.trace(P)) / 2
            D = float((size * (size - 1) / 2).sum())
            pen = float((isum / size).sum())
            t = isum / size
            num = S + P
            den = D + np.outer(size, size)
            dpen = (isum[:, None] + isum[None, :]) / (size[:, None] + size[None, :]) - t[:, None] - t[None, :]
            cost = num / den - alpha / (m - 1) * (pen + dpen)  # Expression 3.1
            cost = np.where(np.triu(np.ones((m, m), dtype=bool), 1), cost, np.inf)
            a, b = self._pick(cost)
            E = float(cost[a, b])
            clusters[a] = clusters[a] + clusters[b]
            del clusters[b]
        if self.improve != "off":
            clusters = self._improve(p, info, clusters, alpha, E)
        return clusters

    def _improve(self, p, info, clusters, alpha, E1) -> list[list[int]]:
        """ImproveClustering (fig. 3.12) in the reading ``self.improve``."""
        N, K = info.size, len(clusters)
        labels = np.empty(N, dtype=np.int64)
        for k, c in enumerate(clusters):
            labels[c] = k
        M = np.zeros((N, K))
        M[np.arange(N), labels] = 1.0
        d = p @ M  # step 1: d_ik
        E = float(E1)
        rows = np.arange(N)
        for _ in range(N):
            size = np.bincount(labels, minlength=K).astype(np.float64)
            isum = np.bincount(labels, weights=info, minlength=K)
            S = float(d[rows, labels].sum()) / 2  # the current sum of distances, from d
            pairs = size * (size - 1) / 2
            D = float(pairs.sum())
            pen = float((isum / size).sum())
            s_l = size[labels][:, None]
            s_m = size[None, :]
            num = S - d[rows, labels][:, None] + d
            new_pairs = (s_l - 1) * (s_l - 2) / 2 + s_m * (s_m + 1) / 2
            if self.improve in ("derived", "multiplied_update", "stale_d"):
                den = D - pairs[labels][:, None] - pairs[None, :] + new_pairs
            elif self.improve == "all_clusters":
                den = D + new_pairs
            else:  # "stray_term": the last cluster other than X_l and X_m counted twice
                ks = np.arange(K)
                last = np.full((N, K), -1)
                for l_ in range(K):
                    for m_ in range(K):
                        others = ks[(ks != l_) & (ks != m_)]
                        if others.size:
                            last[labels == l_, m_] = others[-1]
                extra = np.where(last >= 0, pairs[np.maximum(last, 0)], 0.0)
                den = D - pairs[labels][:, None] - pairs[None, :] + new_pairs + extra
            t = isum / size
            with np.errstate(divide="ignore", invalid="ignore"):
                new_pen = (pen - t[labels][:, None] - t[None, :]
                           + (isum[labels] - info)[:, None] / (s_l - 1)
                           + (isum[None, :] + info[:, None]) / (s_m + 1))
                E2 = num / den - alpha / K * new_pen
            allowed = (s_l > 1) & (labels[:, None] != np.arange(K)[None, :])
            E2 = np.where(allowed & np.isfinite(E2), E2, np.inf)
            if not np.isfinite(E2).any():
                break
            # the largest gain E_1 - E_2m is the smallest E_2m; ties as in the greedy loop
            low = E2.min()
            hits = np.flatnonzero(E2.ravel() <= low + TIE_RTOL * max(1.0, abs(low)))
            i, m = divmod(int(hits[0] if self.tie_order == "first" else hits[-1]), K)
            if not E - E2[i, m] > TIE_RTOL * max(1.0, abs(E)):
                break
            src = int(labels[i])
            col = p[:, i]
            if self.improve == "multiplied_update":
                d[:, src] = d[:, src] * col  # step 2.b.ii as extracted: "d_jl <- d_jl p_ji"
                d[:, m] += col
            elif self.improve != "stale_d":
                d[:, src] -= col
                d[:, m] += col
            labels[i] = m
            E = float(E2[i, m])
        return [np.flatnonzero(labels == k).tolist() for k in range(K)]


def _conditionals(cnt, pos, n, n1):
    """P(X=1), P(C=1 | X=1), P(C=1 | X=0) from counts; a conditional on an empty event is the
    prior P(C=1) (it carries no information; :func:`hbnlab.clustering.avg.singleton_statistics`)."""
    cnt = np.asarray(cnt, dtype=np.float64)
    pos = np.asarray(pos, dtype=np.float64)
    prior = n1 / n
    with np.errstate(divide="ignore", invalid="ignore"):
        q1 = np.where(cnt > 0, pos / cnt, prior)
        q0 = np.where(n - cnt > 0, (n1 - pos) / (n - cnt), prior)
    return cnt / n, q1, q0
