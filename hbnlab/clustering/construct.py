"""Structure construction of HBN / HNB classifiers: ConstructHBNClassifier and ConstructSubtree
(thesis sec. 3.2, figs 3.3-3.4) and ConstructHNBClassifier (sec. 3.3), structure only (no EM).

**|F| <= B versus |F| < B.**  Fig. 3.3 (the class) makes the features parents directly when
``|F| <= B``; fig. 3.4 (a hidden node) when ``|F| < B``.  We use ``<= B`` in both places.  With
``< B`` a cluster of exactly B features goes to ClusterFeatures with N = B: the loop
"while |A| > B" never runs, every feature stays a singleton, ImproveClustering cannot move a
feature out of a singleton, and ConstructSubtree of each singleton returns the feature itself --
so H gets the same B feature parents and the trees are identical for AVG, OR and DEP (a test
checks this).  ``<= B`` states that directly, saves a clustering call per such cluster, and does
not depend on a user-registered clustering returning singletons when it has nothing to merge.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hbnlab._validation import as_binary, check_branching_factor, check_y01
from hbnlab.bn.structure import DIRECTIONS, TreeStructure
from hbnlab.clustering.avg import cluster_features_avg
from hbnlab.clustering.common import FeatureStats, check_partition, initial_rank, validate_alpha
from hbnlab.clustering.dep import cluster_features_dep
from hbnlab.clustering.orclust import cluster_features_or

ClusteringFunction = Callable[..., list]

#: name -> clustering function ``(X, y, features, B, alpha) -> list[list[int]]``
CLUSTERINGS: dict[str, ClusteringFunction] = {
    "avg": cluster_features_avg,
    "or": cluster_features_or,
    "dep": cluster_features_dep,
}


def register_clustering(name: str, fn: ClusteringFunction, *, overwrite: bool = False) -> None:
    """Make a clustering function available to :func:`construct_tree` under ``name``.

    ``fn(X, y, features, B, alpha)`` must return a partition of ``features`` (column indices of
    ``X``) into between 2 and ``B`` non-empty clusters whenever ``len(features) > B``.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"clustering name must be a non-empty string, got {name!r}")
    if not callable(fn):
        raise ValueError(f"clustering {name!r} must be callable, got {type(fn).__name__}")
    if name in CLUSTERINGS and not overwrite and CLUSTERINGS[name] is not fn:
        raise ValueError(f"clustering {name!r} is already registered (pass overwrite=True to replace it)")
    CLUSTERINGS[name] = fn


def _resolve(clustering) -> tuple[ClusteringFunction, str]:
    if callable(clustering):
        return clustering, getattr(clustering, "__name__", "clustering")
    if isinstance(clustering, str) and clustering in CLUSTERINGS:
        return CLUSTERINGS[clustering], clustering
    raise ValueError(f"clustering must be one of {sorted(CLUSTERINGS)} or a callable, got {clustering!r}")


def check_n_direct(n_direct, B: int) -> int:
    """``n_direct`` as an int in ``0 .. B - 1`` (the class keeps at least one slot for the
    clusters of the other features)."""
    if isinstance(n_direct, bool) or not isinstance(n_direct, (int, np.integer)) or not 0 <= n_direct < B:
        raise ValueError(f"n_direct must be an integer in 0..B-1 = 0..{B - 1}, got {n_direct!r}")
    return int(n_direct)


def column_names(X, feature_names=None) -> list[str]:
    """The names of the columns of ``X``: ``feature_names`` as strings (default ``F0, F1, ...``),
    one per column."""
    shape = np.shape(X)
    n = shape[1] if len(shape) == 2 else 0
    if feature_names is None:
        return [f"F{j}" for j in range(n)]
    names = [str(s) for s in feature_names]
    if len(shape) == 2 and len(names) != n:
        raise ValueError(f"feature_names has {len(names)} names but X has {n} columns")
    return names


def node_kind(n_features: int, B: int) -> str:
    """What ConstructSubtree (thesis fig. 3.4) makes of a cluster of ``n_features`` features:
    ``"feature"`` (step 1: the feature itself), ``"hidden"`` (step 2.b: a hidden node with the
    features below it; ``<= B``, see the module docstring) or ``"split"`` (step 2.c: a hidden
    node over the subtrees of a further clustering)."""
    if n_features == 1:
        return "feature"
    return "hidden" if n_features <= B else "split"


def construct_nested(X, y, *, B, clustering="avg", alpha, n_direct=0, recorder=None) -> list:
    """The tree of :func:`construct_tree` as nested lists (ints = feature columns, lists =
    hidden nodes; the outer list holds the class's nodes).

    ``recorder``, when given, is called with one dict per step, in the order of the steps.  Every
    dict names the node it is about by ``path`` (the child indices leading to it from the
    class, ``()`` for the class) and its ``features``:

    * ``step="direct"``: the features ``direct`` are put at the class itself -- all of them when
      there are at most B (fig. 3.3 step 3), else the ``n_direct`` most informative ones;
    * the steps a built-in clustering reports to its ``observer`` (``"start"``, ``"merge"``,
      ``"improve"``; see :func:`hbnlab.clustering.cluster_features_avg` and
      :func:`hbnlab.clustering.cluster_features_dep`) while it clusters the node's features;
    * ``step="clusters"``: the node's ``clusters`` (sorted column lists), each with its
      :func:`node_kind` in ``kinds``, placed at child indices ``offset, offset + 1, ...``; the
      nodes of clusters of kind ``"split"`` follow, depth first.
    """
    B = check_branching_factor(B)
    alpha = validate_alpha(alpha)
    n_direct = check_n_direct(n_direct, B)
    fn, name = _resolve(clustering)
    Xb = as_binary(X, fmt="csc")  # once; the clustering functions then only slice columns
    n = Xb.shape[1]
    if n == 0:
        raise ValueError("X has 0 feature columns; at least 1 is required")
    if Xb.shape[0] == 0:
        raise ValueError("X has 0 documents; the clustering statistics need at least 1")
    y = check_y01(y, Xb.shape[0]).astype(np.float64)
    # the built-in clusterings expose a kernel over shared statistics: counts, co-occurrences
    # and p-values of all n features are computed once per tree, each recursive call uses the
    # sub-arrays of its features (same numbers as computing them on the subset)
    kernel = getattr(fn, "_kernel", None)
    stats = FeatureStats(Xb, y, np.arange(n)) if kernel is not None or n_direct else None
    y_labels = y.astype(np.int64)

    def run(F: list[int], k: int, observer):
        if kernel is not None:
            return kernel(stats, np.asarray(F, dtype=np.int64), k, alpha, observer)
        return fn(Xb, y_labels, list(F), k, alpha)  # user callables get 0/1 CSC X and int y

    def cluster(F: list[int], path: tuple, k: int) -> list[list[int]]:
        observer = None if recorder is None else (lambda ev: recorder({**ev, "path": path, "features": F}))
        parts = check_partition(run(F, k, observer), F, k, name=f"clustering {name!r}")
        if len(parts) < 2:
            raise ValueError(
                f"clustering {name!r} returned {len(parts)} cluster for {len(F)} features with B = {k}; "
                "at least 2 are needed to make progress"
            )
        return parts

    def children(F: list[int], path: tuple, k: int = B, offset: int = 0) -> list:
        parts = cluster(F, path, k)
        if recorder is not None:
            recorder({"step": "clusters", "path": path, "features": F, "clusters": parts, "offset": offset,
                      "kinds": [node_kind(len(c), B) for c in parts]})
        return [subtree(c, path + (offset + j,)) for j, c in enumerate(parts)]

    def subtree(F: list[int], path: tuple):
        # thesis fig. 3.4
        kind = node_kind(len(F), B)
        if kind == "feature":
            return F[0]  # step 1: the feature variable itself
        if kind == "hidden":  # step 2.b (see the module docstring for <= versus <)
            return list(F)
        return children(F, path)  # step 2.c

    features = list(range(n))
    # thesis fig. 3.3
    if n <= B:
        direct, rest, k = features, [], B  # step 3: all features are parents (HNB: children) of C
    elif not n_direct:
        direct, rest, k = [], features, B  # step 4
    else:
        # the n_direct features most informative about C stay at the class; the other
        # B - n_direct slots hold the tree of the rest (one subtree when a single slot is left)
        ranked = initial_rank(stats.info, stats.columns).tolist()
        direct, rest, k = ranked[:n_direct], sorted(ranked[n_direct:]), B - n_direct
        if len(rest) <= k:
            direct, rest = direct + rest, []
    if recorder is not None and direct:
        recorder({"step": "direct", "path": (), "features": features, "direct": direct})
    if not rest:
        return direct
    if k == 1:
        return direct + [subtree(rest, (len(direct),))]
    return direct + children(rest, (), k, offset=len(direct))


def construct_tree(
    X,
    y,
    *,
    B,
    clustering="avg",
    alpha,
    direction="hbn",
    feature_names=None,
    class_name="class",
    n_direct=0,
) -> TreeStructure:
    """Build the structure of an HBN or HNB classifier (thesis figs 3.3-3.4, sec. 3.3).

    If the number of features is at most B they are put directly at the class; otherwise
    ``clustering`` splits them into at most B clusters, and each cluster becomes a feature (one
    feature) or a hidden node over the features (at most B features) or over the subtrees of a
    further clustering (more than B).  HNB uses the same tree with arcs pointing away from the
    root.  No parameters are learnt (the thesis runs EM afterwards).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_documents, n_features)
        Binary document x feature matrix already restricted to the selected features; column j
        is feature j of the tree.
    y : array-like of shape (n_documents,)
        0/1 class labels.
    B : int
        Branching factor (>= 2): the maximal number of nodes below the class or a hidden node.
    clustering : {"avg", "or", "dep"} or str or callable, default="avg"
        A name in :data:`CLUSTERINGS` (see :func:`register_clustering`) or a function
        ``(X, y, features, B, alpha) -> list[list[int]]``.
    alpha : float
        The clustering's parameter (cluster size penalty for AVG / OR, mutual information
        importance for DEP); >= 0.
    direction : {"hbn", "hnb"}, default="hbn"
    feature_names : sequence of str, optional
        Names of the columns (default ``F0, F1, ...``).
    class_name : str, default="class"
        Name of the root (the thesis writes ``"tradeTOPIC"``).
    n_direct : int, default=0
        The ``n_direct`` features with the highest I(F, C) are put directly at the class and
        the others are clustered into at most ``B - n_direct`` subtrees (0: thesis fig. 3.3).
        Every hidden node is one bit about everything below it; with many features the thesis's
        tree puts the strong terms under hidden nodes shared with dozens of weak ones, and the
        class sees them only through that bit.

    Returns
    -------
    TreeStructure
        Hidden nodes named ``hidden1, hidden2, ...`` breadth-first.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0, 0, 1], [1, 1, 0, 0, 0], [0, 0, 1, 1, 1], [0, 0, 1, 0, 0]])
    >>> y = np.array([1, 1, 0, 0])
    >>> tree = construct_tree(X, y, B=2, clustering="avg", alpha=0.0,
    ...                       feature_names=list("abcde"), class_name="yTOPIC")
    >>> tree.n_features, tree.kind[0], tree.names[0]
    (5, 'class', 'yTOPIC')
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    if feature_names is not None:
        feature_names = column_names(X, feature_names)
    nested = construct_nested(X, y, B=B, clustering=clustering, alpha=alpha, n_direct=n_direct)
    return TreeStructure.from_nested(
        nested, feature_names=feature_names, class_name=str(class_name), direction=direction, B=int(B)
    )


__all__ = [
    "CLUSTERINGS",
    "check_n_direct",
    "column_names",
    "construct_nested",
    "construct_tree",
    "node_kind",
    "register_clustering",
]
