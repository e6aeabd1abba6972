"""Slow, obviously-correct versions of the thesis's clustering algorithms (figs 3.6-3.12).

Every candidate is recomputed from scratch from the data each step (scalar arithmetic, explicit
OR columns, Expression 3.1 summed pair by pair) -- no pair-cost matrix, no running totals.  The
fast kernels must return the same partitions.  Tie rule shared with the kernels: smallest value,
values within a relative 1e-10 of the smallest are tied, and the first candidate in
lexicographic order of (rank of cluster a's best feature, rank of cluster b's) wins.
"""
from __future__ import annotations

import math
from itertools import combinations

import numpy as np

TOL = 1e-10


def dense01(X):
    import scipy.sparse as sp

    A = X.toarray() if sp.issparse(X) else np.asarray(X)
    return (A != 0).astype(np.int64)


def mi_scalar(joint):
    """I(X, C) in bits from a dict {(x, c): P(x, c)}; marginals from the table."""
    px = {x: sum(v for (a, _), v in joint.items() if a == x) for x in (0, 1)}
    pc = {c: sum(v for (_, b), v in joint.items() if b == c) for c in (0, 1)}
    total = 0.0
    for (x, c), v in joint.items():
        if v > 0:
            total += v * math.log2(v / (px[x] * pc[c]))
    return max(total, 0.0)


def mi_from_column(col, y):
    n = len(y)
    joint = {(x, c): float(np.sum((col == x) & (y == c))) / n for x in (0, 1) for c in (0, 1)}
    return mi_scalar(joint)


def mi_from_conditionals(px1, q1, q0):
    joint = {(1, 1): px1 * q1, (1, 0): px1 * (1 - q1), (0, 1): (1 - px1) * q0, (0, 0): (1 - px1) * (1 - q0)}
    return mi_scalar(joint)


def ranks(A, y, features):
    info = {f: mi_from_column(A[:, f], y) for f in features}
    order = sorted(features, key=lambda f: (-info[f], f))
    # runs of values within TOL of the run's first value are ties, ordered by column
    groups, start, g = {}, None, 0
    for f in order:
        if start is None:
            start = info[f]
        elif start - info[f] > TOL * max(1.0, abs(start)):
            g, start = g + 1, info[f]
        groups[f] = g
    order = sorted(features, key=lambda f: (groups[f], f))
    return {f: r for r, f in enumerate(order)}, info


def pick_min(cands):
    """cands: list of (key_tuple, value) already in lexicographic key order."""
    best = min(v for _, v in cands)
    tol = TOL * max(1.0, abs(best))
    for k, v in cands:
        if v <= best + tol:
            return k, v
    raise AssertionError


def _info_loss_loop(A, y, features, B, alpha, stats_of, merged_info):
    """Fig. 3.6 loop.  stats_of(members) -> per-cluster stats; merged_info(ca, cb) -> I(Merge)."""
    rank, _ = ranks(A, y, features)
    N = len(features)
    clusters = sorted(([f] for f in features), key=lambda c: rank[c[0]])
    stats = [stats_of(c) for c in clusters]
    while len(clusters) > B:
        k = N / len(clusters)  # fig. 3.8
        cands = []
        for a, b in combinations(range(len(clusters)), 2):
            dI = stats[a]["I"] + stats[b]["I"] - merged_info(stats[a], stats[b], clusters[a] + clusters[b])
            loss = dI * k + alpha * (len(clusters[a]) + len(clusters[b])) / k
            cands.append(((a, b), loss))
        (a, b), _ = pick_min(cands)
        new = clusters[a] + clusters[b]
        new_stats = stats_of(new, stats[a], stats[b])
        keep = [i for i in range(len(clusters)) if i not in (a, b)]
        clusters = [clusters[i] for i in keep] + [new]
        stats = [stats[i] for i in keep] + [new_stats]
        order = sorted(range(len(clusters)), key=lambda i: min(rank[f] for f in clusters[i]))
        clusters = [clusters[i] for i in order]
        stats = [stats[i] for i in order]
    return [sorted(c) for c in clusters]


def slow_avg(X, y, features, B, alpha):
    """ClusterFeaturesAvg (figs 3.6-3.8) with the literal scalar Merge of fig. 3.7."""
    A, y = dense01(X), np.asarray(y).astype(np.int64)
    n, n1 = len(y), float(y.sum())

    def stats_of(members, sa=None, sb=None):
        if sa is None:  # a singleton from the data (fig. 3.6 step 2)
            col = A[:, members[0]]
            df, df1 = float(col.sum()), float((col * y).sum())
            px = df / n
            q1 = df1 / df if df > 0 else n1 / n
            q0 = (n1 - df1) / (n - df) if n - df > 0 else n1 / n
            return {"s": 1, "px": px, "q1": q1, "q0": q0, "I": mi_from_conditionals(px, q1, q0)}
        m = merge_scalar(sa, sb)
        m["I"] = mi_from_conditionals(m["px"], m["q1"], m["q0"])
        return m

    def merged_info(sa, sb, _members):
        m = merge_scalar(sa, sb)
        return mi_from_conditionals(m["px"], m["q1"], m["q0"])

    return _info_loss_loop(A, y, list(features), B, alpha, stats_of, merged_info)


def merge_scalar(sa, sb):
    si, sj = sa["s"], sb["s"]  # fig. 3.7
    return {
        "s": si + sj,
        "px": (si * sa["px"] + sj * sb["px"]) / (si + sj),
        "q1": (si * sa["q1"] + sj * sb["q1"]) / (si + sj),
        "q0": (si * sa["q0"] + sj * sb["q0"]) / (si + sj),
    }


def slow_or(X, y, features, B, alpha):
    """ClusterFeaturesOr (figs 3.9-3.10): every candidate's OR column built explicitly."""
    A, y = dense01(X), np.asarray(y).astype(np.int64)

    def or_info(members):
        return mi_from_column(A[:, members].max(axis=1), y)

    def stats_of(members, sa=None, sb=None):
        return {"I": or_info(members)}

    def merged_info(sa, sb, members):
        return or_info(members)

    return _info_loss_loop(A, y, list(features), B, alpha, stats_of, merged_info)


def chi2_pvalue_pair(a, b, y):
    """p = P(F_a indep F_b | C) from the counts of one pair (thesis sec. 3.7), loop version."""
    from scipy.stats import chi2

    X2 = 0.0
    for c in (0, 1):
        m = y == c
        nc = float(m.sum())
        if nc == 0:
            continue
        for u in (0, 1):
            for v in (0, 1):
                x = float(np.sum((a == u) & (b == v) & m))
                e = float(np.sum((a == u) & m)) * float(np.sum((b == v) & m)) / nc
                if e > 0:
                    X2 += (x - e) ** 2 / e
    return float(chi2.sf(X2, 2))


def expression_scratch(p, info, clusters, alpha):
    """Expression 3.1, pair by pair (first term 0 for an all-singleton partition)."""
    num = sum(p[i][j] for c in clusters for i, j in combinations(sorted(c), 2))
    den = sum(len(c) * (len(c) - 1) // 2 for c in clusters)
    pen = sum(info[i] / len(c) for c in clusters for i in c)
    return (num / den if den else 0.0) - alpha / len(clusters) * pen


def slow_dep(X, y, features, B, alpha, return_trace=False):
    """ClusterFeaturesDep + ImproveClustering (figs 3.11-3.12), Expression 3.1 from scratch for
    every candidate merge and every candidate move."""
    A, y = dense01(X), np.asarray(y).astype(np.int64)
    features = list(features)
    rank, info = ranks(A, y, features)
    p = {f: {g: (chi2_pvalue_pair(A[:, f], A[:, g], y) if f != g else 0.0) for g in features} for f in features}
    clusters = sorted(([f] for f in features), key=lambda c: rank[c[0]])
    E1 = expression_scratch(p, info, clusters, alpha)
    while len(clusters) > B:
        cands = []
        for a, b in combinations(range(len(clusters)), 2):
            trial = [c for i, c in enumerate(clusters) if i not in (a, b)] + [clusters[a] + clusters[b]]
            cands.append(((a, b), expression_scratch(p, info, trial, alpha)))
        (a, b), E1 = pick_min(cands)
        new = clusters[a] + clusters[b]
        clusters = [c for i, c in enumerate(clusters) if i not in (a, b)] + [new]
        clusters.sort(key=lambda c: min(rank[f] for f in c))
    # ImproveClustering: features in rank order, clusters in their current (fixed) order
    N = len(features)
    by_rank = sorted(features, key=lambda f: rank[f])
    trace = []
    for _ in range(N):
        cands = []
        for f in by_rank:
            src = next(k for k, c in enumerate(clusters) if f in c)
            if len(clusters[src]) < 2:
                continue
            for m in range(len(clusters)):
                if m == src:
                    continue
                trial = [list(c) for c in clusters]
                trial[src].remove(f)
                trial[m].append(f)
                cands.append(((f, m), expression_scratch(p, info, trial, alpha)))
        if not cands:
            break
        (f, m), E2 = pick_min(cands)
        if not E1 - E2 > TOL * max(1.0, abs(E1)):
            break
        src = next(k for k, c in enumerate(clusters) if f in c)
        clusters[src].remove(f)
        clusters[m].append(f)
        trace.append((f, src, m, E2))
        E1 = E2
    out = sorted((sorted(c) for c in clusters), key=lambda c: min(rank[f] for f in c))
    return (out, trace) if return_trace else out
