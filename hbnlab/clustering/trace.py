"""Step-by-step records of the HBN structure construction (thesis figs 3.3-3.12), for teaching.

:func:`trace_construction` runs :func:`hbnlab.clustering.construct_nested` -- the one
ConstructHBNClassifier / ConstructSubtree of the library (figs 3.3-3.4) -- with a ``recorder`` and
turns every step it reports into a :class:`ClusteringStep`: each call of ClusterFeatures (fig. 3.5)
with its starting statistics, every merge of the greedy loop with the full matrix of candidate
costs (AVG and OR: the InfoLoss of fig. 3.8; DEP: Expression 3.1), every iteration of
ImproveClustering (fig. 3.12) with its matrix of E_2m values, and how ConstructSubtree turns the
clusters into nodes.  The clustering functions report each step to an ``observer`` just before
acting on it -- the trace is the algorithm's own account, not a re-implementation.

Meant for a handful of features (the matrices are N x N); nothing here is needed to fit a model.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from hbnlab._validation import check_branching_factor
from hbnlab.clustering.avg import cluster_features_avg
from hbnlab.clustering.construct import column_names, construct_nested
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


_SUBTREE_CASES = {
    "feature": "{label}: a single feature, its own node (fig. 3.4 step 1)",
    "hidden": "{label}: a hidden node with these features (fig. 3.4 step 2b)",
    "split": "{label}: more than B = {B} features, clustered again (fig. 3.4 step 2c)",
}


class _Recorder:
    """Turns the steps :func:`~hbnlab.clustering.construct_nested` reports to its ``recorder``
    into :class:`ClusteringStep` records, keeping the tree as it stands in ``root``."""

    def __init__(self, clustering: str, B: int, names: list[str]):
        self.clustering, self.B, self.names = clustering, B, names
        self.steps: list[ClusteringStep] = []
        self.root: list = []
        self.start: dict = {}  # the "start" step of the ClusterFeatures call under way

    def __call__(self, ev: dict) -> None:
        getattr(self, "on_" + ev["step"])(ev, self.node(ev["path"]))

    def node(self, path) -> list:
        """The children of the node at ``path`` (the class: ``root``)."""
        holder = self.root
        for k in path:
            holder = holder[k]
        return holder

    def emit(self, **kw) -> None:
        self.steps.append(ClusteringStep(nested=copy.deepcopy(self.root), **kw))

    def label(self, slot_cluster) -> str:
        return cluster_label(self.columns(slot_cluster), self.names)

    def columns(self, slot_cluster) -> tuple:
        return tuple(sorted(int(self.start["columns"][r]) for r in slot_cluster))

    @property
    def scope(self) -> tuple:
        return tuple(int(c) for c in self.start["columns"])

    def on_direct(self, ev, holder) -> None:
        holder[:] = list(ev["direct"])
        n = len(ev["direct"])
        self.emit(kind="subtree", title=f"{n} features, at most B = {self.B}: all are parents of the class",
                  cites="thesis fig. 3.3 step 3", text="No clustering is needed.", focus=tuple(ev["direct"]),
                  scope=tuple(ev["features"]))

    def on_start(self, ev, holder) -> None:
        """ClusterFeatures (fig. 3.5) starts on the features of the node at ``path``."""
        self.start = ev
        names, B = self.names, self.B
        depth = len(ev["path"])
        where = "the class" if depth == 0 else f"a hidden node at depth {depth}"
        cols = [int(c) for c in ev["columns"]]
        holder[:] = list(cols)
        labels = tuple(names[c] for c in cols)
        if self.clustering == "dep":
            ranked = ", ".join(f"{names[c]} ({i:.3f})" for c, i in zip(cols, ev["info"]))
            self.emit(kind="call", title=f"ClusterFeaturesDep on {len(cols)} features below {where}",
                      cites="thesis fig. 3.5; fig. 3.11 steps 1-2 (chi-square test, sec. 3.7)",
                      text=("Every feature starts in its own cluster. For each pair the chi-square test "
                            "estimates p_ij = P(F_i independent of F_j | C): a small p_ij means the two "
                            "words depend on each other and belong together. I(F, C) in bits: " + ranked),
                      focus=tuple(cols), scope=tuple(cols),
                      matrix=_finite_or_nan(ev["p"] + np.where(np.eye(len(cols), dtype=bool), np.nan, 0.0)),
                      row_labels=labels, col_labels=labels, matrix_name="p_ij = P(F_i ⊥ F_j | C)")
            return
        fig = "fig. 3.6 steps 1-3" if self.clustering == "avg" else "fig. 3.9 (= fig. 3.6 steps 1-3)"
        self.emit(kind="call",
                  title=f"ClusterFeatures{'Avg' if self.clustering == 'avg' else 'Or'} on {len(cols)} "
                        f"features below {where}",
                  cites=f"thesis fig. 3.5; {fig}",
                  text=("Every feature starts as its own cluster X_i = {F_i}; the clusters are sorted "
                        "by their mutual information with the class I(X_i, C), in bits. "
                        f"The loop merges clusters until at most B = {B} remain."),
                  focus=tuple(cols), scope=tuple(cols),
                  matrix=np.asarray(ev["info"], dtype=np.float64)[:, None],
                  row_labels=labels, col_labels=("I(X_i, C) [bits]",), matrix_name="I(X_i, C)")

    def on_merge(self, ev, holder) -> None:
        """The greedy loop joins two clusters (AVG / OR: fig. 3.6 step 4; DEP: fig. 3.11 step 3)."""
        clusters = ev["clusters"]
        labels = tuple(self.label(c) for c in clusters)
        a, b = ev["pair"]
        merged = self.columns(clusters[a] + clusters[b])
        after = [self.columns(c) for k, c in enumerate(clusters) if k != b]
        after[a] = merged
        holder[:] = _partition_nested(after)
        common = dict(kind="merge", title=f"Merge {labels[a]} and {labels[b]}", focus=merged, scope=self.scope,
                      row_labels=labels, col_labels=labels, chosen=(a, b))
        if self.clustering == "dep":
            value = ev["expression"][a, b]
            self.emit(cites="thesis fig. 3.11 step 3, Expression 3.1",
                      text=(f"For every pair of the {len(clusters)} clusters, Expression 3.1 is evaluated "
                            "for the partition with that pair merged: the average within-cluster p_ij "
                            "minus alpha times the mutual-information penalty. The smallest value, "
                            f"{value:.4f}, wins."),
                      matrix=_finite_or_nan(ev["expression"]), matrix_name="Expression 3.1 after merging the pair",
                      values={"expression": float(value)}, **common)
            return
        merge_fig = "fig. 3.7" if self.clustering == "avg" else "fig. 3.10"
        how = ("averages P(X), P(C | X) weighted by cluster size" if self.clustering == "avg"
               else "is the OR of its features: present when any of them is")
        value = ev["loss"][a, b]
        self.emit(cites=f"thesis fig. 3.6 step 4, InfoLoss fig. 3.8, Merge {merge_fig}",
                  text=(f"InfoLoss of every pair of the {len(clusters)} clusters: the information "
                        "about C lost by merging, times the average cluster size k = "
                        f"{ev['k']:.2f}, plus alpha (|X_i| + |X_j|) / k. The merged cluster "
                        f"{how}. The smallest loss, {value:.4f}, wins."),
                  matrix=_finite_or_nan(ev["loss"]), matrix_name="InfoLoss(X_i, X_j)",
                  values={"loss": float(value), "k": float(ev["k"])}, **common)

    def on_improve(self, ev, holder) -> None:
        """One iteration of ImproveClustering (fig. 3.12)."""
        names = self.names
        clusters = ev["clusters"]
        labels = tuple(self.label(c) for c in clusters)
        i, m = ev["move"]
        f = int(self.start["columns"][i])
        E2 = ev["E2"]
        gain = ev["E1"] - E2[i, m]
        if ev["moved"]:
            after = [list(self.columns(c)) for c in clusters]
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
        self.emit(kind="improve", title=title, cites="thesis fig. 3.12 (ImproveClustering)", text=text,
                  focus=(f,), scope=self.scope, matrix=_finite_or_nan(E2),
                  row_labels=tuple(names[c] for c in self.scope), col_labels=labels,
                  matrix_name="E_2m: Expression 3.1 if F_i moved to X_m", chosen=(i, m),
                  values={"E1": float(ev["E1"]), "gain": float(gain), "moved": bool(ev["moved"])})

    def on_clusters(self, ev, holder) -> None:
        """ConstructSubtree (figs 3.3-3.4) turns the clusters of a node into its children."""
        parts, F = ev["clusters"], ev["features"]
        holder[ev["offset"]:] = _partition_nested(parts)
        root = not ev["path"]
        node = "the class" if root else f"the hidden node over {cluster_label(F, self.names)}"
        lines = [_SUBTREE_CASES[kind].format(label=cluster_label(c, self.names), B=self.B)
                 for c, kind in zip(parts, ev["kinds"])]
        self.emit(kind="subtree", title=f"{len(parts)} clusters become the nodes below {node}",
                  cites="thesis fig. 3.3 step 4b" if root else "thesis fig. 3.4 step 2c-ii",
                  text="ConstructSubtree turns each cluster into a node. " + "; ".join(lines) + ".",
                  focus=tuple(F), scope=tuple(F))


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
        alpha=alpha)``: the steps are those :func:`~hbnlab.clustering.construct_nested` reports
        while it builds that tree.
    """
    if clustering not in TRACEABLE:
        raise ValueError(f"clustering must be one of {sorted(TRACEABLE)}, got {clustering!r}")
    record = _Recorder(clustering, check_branching_factor(B), column_names(X, feature_names))
    construct_nested(X, y, B=B, clustering=TRACEABLE[clustering], alpha=alpha, recorder=record)
    record.emit(kind="done", title="The structure is complete",
                cites="thesis fig. 3.3 steps 5-6",
                text=("Every node has at most B nodes below it. The structure is fixed; EM now learns its "
                      "probability tables (next section)."),
                focus=(), scope=tuple(range(len(record.names))))
    return record.steps


__all__ = ["ALGORITHM_FIGURES", "ClusteringStep", "TRACEABLE", "cluster_label", "trace_construction"]
