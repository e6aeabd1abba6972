"""One-of-n decisions on a single-label corpus: accuracy and the confusion matrix.

A *one-of-n* classifier gives every document the one class with the highest score among the
trained classes (Sebastiani 2002, sec. 3: "single-label" text categorisation).  Its accuracy is the
share of documents whose given class is their true one, and its confusion matrix counts, for every
true class, where the documents went.  Both are only meaningful when every evaluated document has
exactly one of the trained classes: a document with none cannot be right and a document with two
cannot be wrong.  :func:`single_label_problem` says in words why a label matrix is not like that;
the functions here then give ``nan`` (accuracy) or refuse (the confusion matrix) rather than a
number that would mislead.

On a single-label matrix, accuracy equals micro-averaged F1@1 (:func:`hbnlab.evaluation.f1_at_k`
with ``k=1``): every document is assigned one class and has one, so precision = recall = accuracy.

Ties between the highest scores go to the first such class (the order of the columns), as
``numpy.argmax`` and scikit-learn's ``accuracy_score(y, S.argmax(1))`` decide them.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from hbnlab.evaluation.measures import check_score_matrices

__all__ = ["single_label_problem", "is_single_label", "one_of_n_predictions", "one_of_n_accuracy",
           "confusion_matrix", "largest_confusions", "confused_rows"]


def single_label_problem(Y, *, what: str = "documents") -> str | None:
    """``None`` when every row of the label matrix ``Y`` holds exactly one label, else why not in
    words ("412 of 3019 documents have none of the 10 classes, 321 have several").

    >>> single_label_problem([[1, 0], [0, 1]]) is None
    True
    >>> single_label_problem([[1, 0], [0, 0], [1, 1]])
    '1 of 3 documents have none of the 2 classes, 1 have several'
    """
    Y = np.asarray(Y, dtype=bool)
    if Y.ndim != 2:
        raise ValueError(f"Y must be a matrix (n_documents, n_classes), got shape {Y.shape}")
    per_row = Y.sum(axis=1)
    none, several = int((per_row == 0).sum()), int((per_row > 1).sum())
    if not none and not several and Y.shape[0]:
        return None
    if not Y.shape[0]:
        return f"no {what}"
    parts = []
    if none:
        parts.append(f"{none} of {Y.shape[0]} {what} have none of the {Y.shape[1]} classes")
    if several:
        parts.append(f"{several} have several" if parts else f"{several} of {Y.shape[0]} {what} have several of "
                                                             f"the {Y.shape[1]} classes")
    return ", ".join(parts)


def is_single_label(Y) -> bool:
    """Whether every row of ``Y`` holds exactly one label (and there is at least one row)."""
    return single_label_problem(Y) is None


def one_of_n_predictions(S) -> np.ndarray:
    """Column of the highest score of each row of ``S`` (ties: the first such column)."""
    S = np.asarray(S, dtype=np.float64)
    if S.ndim != 2 or S.shape[1] == 0:
        raise ValueError(f"S must be a matrix (n_documents, n_classes >= 1), got shape {S.shape}")
    return np.argmax(S, axis=1)


def one_of_n_accuracy(Y, S) -> float:
    """Share of documents whose highest-scoring class is their one true class; ``nan`` when some
    document has no label or several (:func:`single_label_problem`).

    Parameters
    ----------
    Y : array-like of shape (n_documents, n_classes)
        0/1 truth.
    S : array-like of shape (n_documents, n_classes)
        Scores (any monotone scale per class; only the largest of each row matters).

    Returns
    -------
    float in [0, 1], or nan

    Examples
    --------
    >>> Y = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]]
    >>> S = [[0.9, 0.2, 0.1], [0.6, 0.5, 0.0], [0.1, 0.1, 0.3], [0.4, 0.4, 0.1]]
    >>> one_of_n_accuracy(Y, S)  # the second document goes to class 0; the tie of the last one to class 0
    0.75
    >>> import math; math.isnan(one_of_n_accuracy([[1, 1], [0, 1]], [[1, 0], [0, 1]]))
    True
    """
    Y, S = check_score_matrices(Y, S)
    if not is_single_label(Y):
        return float("nan")
    pred = one_of_n_predictions(S)
    return float(Y[np.arange(Y.shape[0]), pred].mean())


def confusion_matrix(Y, S) -> np.ndarray:
    """Counts of one-of-n decisions: ``C[i, j]`` documents of true class ``i`` given class ``j``
    (rows: truth, columns: decision, in the column order of ``Y`` and ``S``; the diagonal holds the
    right decisions).  As ``sklearn.metrics.confusion_matrix(Y.argmax(1), S.argmax(1))``.

    Raises
    ------
    ValueError
        When some document has no label or several, saying how many.

    Examples
    --------
    >>> confusion_matrix([[1, 0], [0, 1], [0, 1]], [[0.9, 0.1], [0.7, 0.2], [0.1, 0.8]])
    array([[1, 0],
           [1, 1]])
    """
    Y, S = check_score_matrices(Y, S)
    problem = single_label_problem(Y)
    if problem is not None:
        raise ValueError(f"a confusion matrix needs exactly one class per document: {problem}")
    k = Y.shape[1]
    true = np.argmax(Y, axis=1)
    pred = one_of_n_predictions(S)
    return np.bincount(true * k + pred, minlength=k * k).reshape(k, k).astype(np.int64)


def largest_confusions(C, classes: Sequence[str]) -> pd.DataFrame:
    """The off-diagonal cells of a confusion matrix with at least one document, largest first
    (ties: by true class, then given class, in ``classes`` order): columns ``true``, ``given``,
    ``documents`` and ``share of true`` (the cell's share of its true class's documents).

    >>> top = largest_confusions([[5, 2, 0], [3, 4, 0], [0, 2, 9]], ["a", "b", "c"])
    >>> top[["true", "given", "documents"]].values.tolist()
    [['b', 'a', 3], ['a', 'b', 2], ['c', 'b', 2]]
    >>> top["share of true"].round(3).tolist()
    [0.429, 0.286, 0.182]
    """
    C = np.asarray(C, dtype=np.int64)
    classes = list(classes)
    if C.ndim != 2 or C.shape != (len(classes), len(classes)):
        raise ValueError(f"C must be a {len(classes)} x {len(classes)} matrix for {len(classes)} classes, "
                         f"got shape {C.shape}")
    i, j = np.nonzero(C)
    off = i != j
    i, j = i[off], j[off]
    counts = C[i, j]
    order = np.lexsort((j, i, -counts))
    i, j, counts = i[order], j[order], counts[order]
    totals = C.sum(axis=1)
    return pd.DataFrame({"true": [classes[a] for a in i], "given": [classes[b] for b in j], "documents": counts,
                         "share of true": counts / np.maximum(totals[i], 1)})


def confused_rows(Y, S, true: int, given: int) -> np.ndarray:
    """Rows (documents) whose one true class is column ``true`` and whose highest score is in
    column ``given``, in row order: the documents behind cell ``C[true, given]`` of
    :func:`confusion_matrix`."""
    Y, S = check_score_matrices(Y, S)
    one = Y.sum(axis=1) == 1
    return np.flatnonzero(one & Y[:, true] & (one_of_n_predictions(S) == given))
