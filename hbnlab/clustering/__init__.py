"""Feature clustering (thesis ch. 3: AVG, OR, DEP + ImproveClustering) and HBN / HNB tree
construction (figs 3.3-3.4)."""
from hbnlab.clustering.avg import cluster_features_avg, merge_avg
from hbnlab.clustering.construct import CLUSTERINGS, construct_nested, construct_tree, register_clustering
from hbnlab.clustering.dep import (
    cluster_features_dep,
    expression_3_1,
    improve_clustering,
    independence_pvalues,
)
from hbnlab.clustering.distributional import agglomerate_words, distributional_word_clusters
from hbnlab.clustering.mdl import MDLResult, mdl_word_groups
from hbnlab.clustering.orclust import cluster_features_or, or_cluster_statistics

__all__ = [
    "CLUSTERINGS",
    "MDLResult",
    "agglomerate_words",
    "distributional_word_clusters",
    "mdl_word_groups",
    "cluster_features_avg",
    "cluster_features_dep",
    "cluster_features_or",
    "construct_nested",
    "construct_tree",
    "expression_3_1",
    "improve_clustering",
    "independence_pvalues",
    "merge_avg",
    "or_cluster_statistics",
    "register_clustering",
]
