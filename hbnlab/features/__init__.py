"""Feature selection: term scores (information gain, chi-square, mutual information, document
frequency, Fisher index) for all terms x categories at once, and local / global selection."""
from hbnlab.features.scoring import (
    SCORE_METHODS,
    chi_square,
    contingency_counts,
    document_frequency,
    fisher_index,
    fisher_index_multiclass,
    information_gain,
    pointwise_mutual_information,
    score_terms,
)
from hbnlab.features.selection import AGGREGATES, aggregate_scores, select_global, select_local

__all__ = [
    "SCORE_METHODS", "AGGREGATES", "score_terms", "contingency_counts", "information_gain", "chi_square",
    "pointwise_mutual_information", "document_frequency", "fisher_index", "fisher_index_multiclass",
    "select_local", "select_global",
    "aggregate_scores",
]
