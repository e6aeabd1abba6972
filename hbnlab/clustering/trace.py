"""Step-by-step records of the HBN structure construction (thesis figs 3.3-3.12), for teaching.

:func:`trace_construction` builds the same tree as :func:`hbnlab.clustering.construct_nested`
and records every step on the way: each call of ClusterFeatures (fig. 3.5) with its starting
statistics, every merge of the greedy loop with the full matrix of candidate costs (AVG and OR:
the InfoLoss of fig. 3.8; DEP: Expression 3.1), every iteration of ImproveClustering (fig. 3.12)
with its matrix of E_2m values, and how ConstructSubtree (figs 3.3-3.4) turns the clusters into
nodes.  The numbers come from the library's own clustering functions, which report each step to
an ``observer`` just before acting on it -- the trace is the algorithm's own account, not a
re-implementation.

Meant for a handful of features (the matrices are N x N); nothing here is needed to fit a model.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from hbnlab._validation import as_binary, check_branching_factor, check_y01
from hbnlab.clustering.avg import cluster_features_avg
from hbnlab.clustering.common import validate_alpha
from hbnlab.clustering.dep import cluster_features_dep
from hbnlab.clustering.orclust import cluster_features_or

#: the clusterings that report their steps
TRACEABLE = {"avg": cluster_features_avg, "or": cluster_features_or, "dep": cluster_features_dep}

#: where each algorithm is in the thesis (Karčiauskas, 2002)
ALGORITHM_FIGURES = {
    "avg": "sec. 3.5, figs 3.6-3.8",
    "or": "sec. 3.6, figs 3.9-3.10 (with figs 3.6 and 3.8)",
    "dep": "sec. 3.7, figs 3.11-3.12, Expression 3.1",
}


@dataclass(frozen=True)
class ClusteringStep:
    """One step of the structure construction.

    Attributes
    ----------
    kind : str
        ``"call"`` (ClusterFeatures starts on a set of features), ``"merge"`` (the greedy loop
        joins two clusters), ``"improve"`` (an ImproveClustering iteration), ``"subtree"``
        (ConstructSubtree turns clusters into nodes) or ``"done"``.
    title : str
        One line saying what happens.
    cites : str
        The figure / equation of the thesis the step illustrates.
    text : str
        A few sentences for a reader who follows along.
    nested : list
        The tree as it stands after the step, in the nested-list form of
        :func:`~hbnlab.clustering.construct_nested` (ints: feature columns).
    focus : tuple of int
        Feature columns the step is about (highlighted when the tree is drawn).
    scope : tuple of int
        The features of the ClusterFeatures call the step belongs to.
    matrix : ndarray or None
        The numbers the step decides on (NaN where no value exists).
    row_labels, col_labels : tuple of str
    matrix_name : str
    chosen : tuple of int or None
        The (row, column) of ``matrix`` the algorithm picked.
    """

    kind: str
    title: str
    cites: str
    text: str
    nested: list
    focus: tuple = ()
    scope: tuple = ()
    matrix: np.ndarray | None = None
    row_labels: tuple = ()
    col_labels: tuple = ()
    matrix_name: str = ""
    chosen: tuple | None = None
    values: dict = field(default_factory=dict)


def cluster_label(cluster, names) -> str:
    """``{trade, tariff}`` for a cluster of columns (a single feature keeps its bare name)."""
    cluster = list(cluster)
    if len(cluster) == 1:
        return str(names[cluster[0]])
    return "{" + ", ".join(str(names[f]) for f in cluster) + "}"


def _partition_nested(clusters):
    return [c[0] if len(c) == 1 else list(c) for c in clusters]


def _finite_or_nan(a):
    a = np.array(a, dtype=np.float64)
    a[~np.isfinite(a)] = np.nan
    return a


def trace_construction(X, y, *, B, clustering="avg", alpha, feature_names=None) -> list[ClusteringStep]:
    """Record ConstructHBNClassifier (thesis fig. 3.3) step by step.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_documents, n_features)
        Binary document x feature matrix (column j is feature j of the tree).
    y : array-like of shape (n_documents,)
        0/1 class labels.
    B : int
        Branching factor (>= 2).
    clustering : {"avg", "or", "dep"}
    alpha : float
        The clustering's parameter (>= 0).
    feature_names : sequence of str, optional
        Default ``F0, F1, ...``.

    Returns
    -------
    list of ClusteringStep
        The last step's ``nested`` equals ``construct_nested(X, y, B=B, clustering=clustering,
        alpha=alpha)``.
    """
    if clustering not in TRACEABLE:
        raise ValueError(f"clustering must be one of {sorted(TRACEABLE)}, got {clustering!r}")
    B = check_branching_factor(B)
    alpha = validate_alpha(alpha)
    Xb = as_binary(X, fmt="csc")
    n = Xb.shape[1]
    if n == 0:
        raise ValueError("X has 0 feature columns; at least 1 is required")
    y = check_y01(y, Xb.shape[0]).astype(np.int64)
    names = [f"F{j}" for j in range(n)] if feature_names is None else [str(s) for s in feature_names]
    if len(names) != n:
        raise ValueError(f"feature_names has {len(names)} names but X has {n} columns")
    fn = TRACEABLE[clustering]
    steps: list[ClusteringStep] = []
    root: list = []

    def emit(**kw):
        steps.append(ClusteringStep(nested=copy.deepcopy(root), **kw))

    def cluster_features(F: list[int], holder: list, depth: int) -> list[list[int]]:
        """One ClusterFeatures call (fig. 3.5); every reported step redraws ``holder``."""
        where = "the class" if depth == 0 else f"a hidden node at depth {depth}"
        start: dict = {}

        def label_of(slot_cluster):
            return cluster_label(sorted(int(start["columns"][r]) for r in slot_cluster), names)

        def columns_of(slot_cluster):
            return tuple(sorted(int(start["columns"][r]) for r in slot_cluster))

        def observe(ev):
            if ev["step"] == "start":
                start.update(ev)
                cols = [int(c) for c in ev["columns"]]
                holder[:] = list(cols)
                ranked = ", ".join(f"{names[c]} ({i:.3f})" for c, i in zip(cols, ev["info"]))
                if clustering == "dep":
                    emit(kind="call", title=f"ClusterFeaturesDep on {len(cols)} features below {where}",
                         cites="thesis fig. 3.5; fig. 3.11 steps 1-2 (chi-square test, sec. 3.7)",
                         text=("Every feature starts in its own cluster. For each pair the chi-square test "
                               "estimates p_ij = P(F_i independent of F_j | C): a small p_ij means the two "
                               "words depend on each other and belong together. I(F, C) in bits: " + ranked),
                         focus=tuple(cols), scope=tuple(cols),
                         matrix=_finite_or_nan(ev["p"] + np.where(np.eye(len(cols), dtype=bool), np.nan, 0.0)),
                         row_labels=tuple(names[c] for c in cols), col_labels=tuple(names[c] for c in cols),
                         matrix_name="p_ij = P(F_i ⊥ F_j | C)")
                else:
                    fig = "fig. 3.6 steps 1-3" if clustering == "avg" else "fig. 3.9 (= fig. 3.6 steps 1-3)"
                    emit(kind="call",
                         title=f"ClusterFeatures{'Avg' if clustering == 'avg' else 'Or'} on {len(cols)} "
                               f"features below {where}",
                         cites=f"thesis fig. 3.5; {fig}",
                         text=("Every feature starts as its own cluster X_i = {F_i}; the clusters are sorted "
                               "by their mutual information with the class I(X_i, C), in bits. "
                               f"The loop merges clusters until at most B = {B} remain."),
                         focus=tuple(cols), scope=tuple(cols),
                         matrix=np.asarray(ev["info"], dtype=np.float64)[:, None],
                         row_labels=tuple(names[c] for c in cols), col_labels=("I(X_i, C) [bits]",),
                         matrix_name="I(X_i, C)")
                return
            clusters = ev["clusters"]
            labels = tuple(label_of(c) for c in clusters)
            if ev["step"] == "merge":
                a, b = ev["pair"]
                merged = columns_of(clusters[a] + clusters[b])
                after = [columns_of(c) for k, c in enumerate(clusters) if k != b]
                after[a] = merged
                holder[:] = _partition_nested(after)
                if clustering == "dep":
                    value = ev["expression"][a, b]
                    emit(kind="merge", title=f"Merge {labels[a]} and {labels[b]}",
                         cites="thesis fig. 3.11 step 3, Expression 3.1",
                         text=(f"For every pair of the {len(clusters)} clusters, Expression 3.1 is evaluated "
                               "for the partition with that pair merged: the average within-cluster p_ij "
                               "minus alpha times the mutual-information penalty. The smallest value, "
                               f"{value:.4f}, wins."),
                         focus=merged, scope=tuple(int(c) for c in start["columns"]),
                         matrix=_finite_or_nan(ev["expression"]), row_labels=labels, col_labels=labels,
                         matrix_name="Expression 3.1 after merging the pair", chosen=(a, b),
                         values={"expression": float(value)})
                else:
                    merge_fig = "fig. 3.7" if clustering == "avg" else "fig. 3.10"
                    how = ("averages P(X), P(C | X) weighted by cluster size" if clustering == "avg"
                           else "is the OR of its features: present when any of them is")
                    value = ev["loss"][a, b]
                    emit(kind="merge", title=f"Merge {labels[a]} and {labels[b]}",
                         cites=f"thesis fig. 3.6 step 4, InfoLoss fig. 3.8, Merge {merge_fig}",
                         text=(f"InfoLoss of every pair of the {len(clusters)} clusters: the information "
                               "about C lost by merging, times the average cluster size k = "
                               f"{ev['k']:.2f}, plus alpha (|X_i| + |X_j|) / k. The merged cluster "
                               f"{how}. The smallest loss, {value:.4f}, wins."),
                         focus=merged, scope=tuple(int(c) for c in start["columns"]),
                         matrix=_finite_or_nan(ev["loss"]), row_labels=labels, col_labels=labels,
                         matrix_name="InfoLoss(X_i, X_j)", chosen=(a, b),
                         values={"loss": float(value), "k": float(ev["k"])})
            elif ev["step"] == "improve":
                i, m = ev["move"]
                f = int(start["columns"][i])
                E2 = ev["E2"]
                gain = ev["E1"] - E2[i, m]
                rows = tuple(names[int(c)] for c in start["columns"])
                if ev["moved"]:
                    after = [list(columns_of(c)) for c in clusters]
                    for c in after:
                        if f in c:
                            c.remove(f)
                    after[m] = sorted(after[m] + [f])
                    holder[:] = _partition_nested(after)
                    title = f"Move {names[f]} to {labels[m]}"
                    text = (f"ImproveClustering tries every single-feature move out of a cluster with more than "
                            f"one feature. Moving {names[f]} to {labels[m]} lowers Expression 3.1 from "
                            f"{ev['E1']:.4f} to {E2[i, m]:.4f} (gain {gain:.4f} > 0), so it is made.")
                else:
                    title = "ImproveClustering stops: no move lowers Expression 3.1"
                    text = (f"The best move ({names[f]} to {labels[m]}) would change Expression 3.1 from "
                            f"{ev['E1']:.4f} to {E2[i, m]:.4f}: gain* = {gain:.4f} is not positive, so the "
                            "clustering is final.") if np.isfinite(E2[i, m]) else (
                            "No feature can move (every cluster is a single feature).")
                emit(kind="improve", title=title, cites="thesis fig. 3.12 (ImproveClustering)", text=text,
                     focus=(f,), scope=tuple(int(c) for c in start["columns"]),
                     matrix=_finite_or_nan(E2), row_labels=rows, col_labels=labels,
                     matrix_name="E_2m: Expression 3.1 if F_i moved to X_m", chosen=(i, m),
                     values={"E1": float(ev["E1"]), "gain": float(gain), "moved": bool(ev["moved"])})

        parts = fn(Xb, y, list(F), B, alpha, observer=observe)
        holder[:] = _partition_nested(parts)
        return parts

    def subtree(F: list[int], holder: list, depth: int) -> None:
        """ConstructSubtree (fig. 3.4) for the node whose children go into ``holder``."""
        parts = cluster_features(F, holder, depth)
        node = "the class" if depth == 0 else f"the hidden node over {cluster_label(F, names)}"
        lines = []
        for c in parts:
            if len(c) == 1:
                lines.append(f"{names[c[0]]}: a single feature, its own node (fig. 3.4 step 1)")
            elif len(c) <= B:
                lines.append(f"{cluster_label(c, names)}: a hidden node with these features (fig. 3.4 step 2b)")
            else:
                lines.append(f"{cluster_label(c, names)}: more than B = {B} features, clustered again "
                             "(fig. 3.4 step 2c)")
        emit(kind="subtree", title=f"{len(parts)} clusters become the nodes below {node}",
             cites="thesis fig. 3.3 step 4b" if depth == 0 else "thesis fig. 3.4 step 2c-ii",
             text="ConstructSubtree turns each cluster into a node. " + "; ".join(lines) + ".",
             focus=tuple(F), scope=tuple(F))
        for k, c in enumerate(parts):
            if len(c) > B:
                subtree(list(c), holder[k], depth + 1)

    features = list(range(n))
    if n <= B:
        root[:] = features
        emit(kind="subtree", title=f"{n} features, at most B = {B}: all are parents of the class",
             cites="thesis fig. 3.3 step 3", text="No clustering is needed.", focus=tuple(features),
             scope=tuple(features))
    else:
        subtree(features, root, 0)
    emit(kind="done", title="The structure is complete",
         cites="thesis fig. 3.3 steps 5-6",
         text=("Every node has at most B nodes below it. The structure is fixed; EM now learns its "
               "probability tables (next section)."),
         focus=(), scope=tuple(features))
    return steps


__all__ = ["ALGORITHM_FIGURES", "ClusteringStep", "TRACEABLE", "cluster_label", "trace_construction"]
