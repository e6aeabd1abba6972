"""Evaluation measures: breakeven (per class, micro, macro), 11-point average precision,
F1@k, precision-recall curves, confusion matrices, breakeven tables; one-of-n accuracy and the
confusion matrix of a single-label corpus; paired comparisons of two
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
from hbnlab.evaluation.single_label import (
    confused_rows,
    confusion_matrix,
    is_single_label,
    largest_confusions,
    one_of_n_accuracy,
    one_of_n_predictions,
    single_label_problem,
)

__all__ = [
    "breakeven_point", "breakeven_columns", "category_ranks",
    "micro_breakeven", "macro_breakeven", "per_class_breakeven", "breakeven_table",
    "eleven_point_average_precision", "f1_at_k", "top_k_assignment", "pr_curve", "confusion_matrix_binary",
    "precision_recall_f1_at_threshold", "paired_bootstrap", "mcnemar", "bootstrap_micro",
    "MICRO_METHODS", "MACRO_METHODS", "INTERPOLATIONS",
    "one_of_n_accuracy", "one_of_n_predictions", "confusion_matrix", "largest_confusions", "confused_rows",
    "single_label_problem", "is_single_label",
]
