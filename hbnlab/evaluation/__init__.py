"""Evaluation measures: breakeven (per class, micro, macro), 11-point average precision,
F1@k, precision-recall curves, confusion matrices, breakeven tables; paired comparisons of two
systems (bootstrap, McNemar)."""
from hbnlab.evaluation.compare import bootstrap_micro, mcnemar, paired_bootstrap
from hbnlab.evaluation.measures import (
    INTERPOLATIONS,
    MACRO_METHODS,
    MICRO_METHODS,
    breakeven_columns,
    breakeven_point,
    breakeven_table,
    category_ranks,
    confusion_matrix_binary,
    eleven_point_average_precision,
    f1_at_k,
    macro_breakeven,
    micro_breakeven,
    per_class_breakeven,
    pr_curve,
    precision_recall_f1_at_threshold,
    top_k_assignment,
)

__all__ = [
    "breakeven_point", "breakeven_columns", "category_ranks",
    "micro_breakeven", "macro_breakeven", "per_class_breakeven", "breakeven_table",
    "eleven_point_average_precision", "f1_at_k", "top_k_assignment", "pr_curve", "confusion_matrix_binary",
    "precision_recall_f1_at_threshold", "paired_bootstrap", "mcnemar", "bootstrap_micro",
    "MICRO_METHODS", "MACRO_METHODS", "INTERPOLATIONS",
]
