"""Validation splits of a corpus's training documents, for any corpus.

Tuning needs documents the model was not fitted on.  The thesis (Karčiauskas 2002, sec. 4.1.1)
splits the Reuters-21578 training set by date into training-0 and validation.  Most user corpora
have no dates, and ordering them by anything else (file path, say) puts whole classes on one side.
This module gives every corpus a split and says which one it used:

* ``"date"`` -- the thesis's split (:func:`hbnlab.corpus.train0_validation_split`), chosen by
  ``"auto"`` when every training document has a date;
* ``"stratified"`` -- a seeded *iterative stratification* (Sechidis, Tsoumakas & Vlahavas 2011),
  which keeps each label's share of documents on both sides close to the split's fraction, also
  for multi-label corpora, followed by a repair pass so that **every label with at least two
  training documents has positives on both sides**;
* ``cv=K`` -- K stratified folds (the same algorithm with K equal parts) for k-fold
  cross-validation; a label with at least two documents has them in at least two folds, so every
  fold's fitting part holds a positive of it.

The result is a *fold vector* over the training documents: ``folds[i] = k >= 0`` puts document
``i`` in evaluation fold ``k``; ``-1`` means "only ever fitted on" (training-0 of a hold-out split).
A hold-out split has one fold (0 = validation); cross-validation has K.

:func:`untunable_labels` finds, before any job runs, the labels that a split cannot score: no
positive (or no negative) document to fit on in some fold, or no positive to measure on.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._common import check_random_state
from .base import Corpus, Document
from .reuters import THESIS_TRAIN, THESIS_TRAIN0, train0_validation_split

__all__ = ["VALIDATION_METHODS", "VALIDATION_FRACTION", "iterative_stratification", "validation_folds",
           "untunable_labels", "fold_counts"]

#: ``"auto"`` = ``"date"`` when every training document is dated, else ``"stratified"``.
VALIDATION_METHODS = ("auto", "date", "stratified")
#: The thesis's validation share of the training set: 1,942 of 7,769 documents.
VALIDATION_FRACTION = (THESIS_TRAIN - THESIS_TRAIN0) / THESIS_TRAIN


def _label_matrix(label_sets: Sequence[frozenset]) -> tuple[np.ndarray, list]:
    labels = sorted(set().union(*label_sets)) if label_sets else []
    index = {lab: j for j, lab in enumerate(labels)}
    Y = np.zeros((len(label_sets), len(labels)), dtype=bool)
    for i, ls in enumerate(label_sets):
        for lab in ls:
            Y[i, index[lab]] = True
    return Y, labels


def iterative_stratification(Y, proportions: Sequence[float], random_state=0) -> np.ndarray:
    """Assign each row of the label matrix ``Y`` to one of ``len(proportions)`` parts.

    The algorithm of Sechidis, Tsoumakas & Vlahavas (2011), fig. 1: each part ``j`` wants
    ``proportions[j]`` of the rows and of every label's positives.  Repeatedly take the label with
    the fewest positives still unassigned (ties: the lower column), and send each of its rows (in
    a seeded random order) to the part that wants that label most; ties go to the part that wants
    the most rows overall, then to the lowest-numbered such part after a seeded shuffle.  Rows
    without any label fill the parts' remaining wants the same way.

    Afterwards a repair pass makes sure that every label with at least two positives appears in at
    least two parts, and, with two parts, in both: the label's row with the fewest labels (ties:
    seeded order) moves from its most populous part to an empty one, only if that move does not
    empty another label's part.

    Parameters
    ----------
    Y : array-like of bool, shape (n_rows, n_labels)
    proportions : sequence of float
        Positive shares, normalised to sum to one.
    random_state : int, RandomState or Generator

    Returns
    -------
    parts : ndarray of int, shape (n_rows,)
        The part of each row, in ``0 .. len(proportions) - 1``.

    References
    ----------
    Sechidis, K., Tsoumakas, G. & Vlahavas, I. (2011). On the stratification of multi-label data.
    ECML PKDD 2011, LNCS 6913, 145-158.
    """
    Y = np.asarray(Y, dtype=bool)
    if Y.ndim != 2:
        raise ValueError(f"Y must be a 2-d label matrix, got shape {Y.shape}")
    r = np.asarray(proportions, dtype=np.float64)
    if r.ndim != 1 or r.size < 2 or np.any(r <= 0) or not np.all(np.isfinite(r)):
        raise ValueError(f"proportions must be at least two positive numbers, got {list(proportions)!r}")
    r = r / r.sum()
    rng = check_random_state(random_state)
    n, n_labels = Y.shape
    k = r.size
    order = np.asarray(rng.permutation(n))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    part_tiebreak = np.asarray(rng.permutation(k))

    want_rows = r * n
    want = np.outer(r, Y.sum(axis=0).astype(np.float64))  # (parts, labels)
    parts = np.full(n, -1, dtype=np.int64)
    remaining = Y.copy()
    left = remaining.sum(axis=0)

    def choose(candidates_score: np.ndarray) -> int:
        best = candidates_score.max()
        tied = np.flatnonzero(candidates_score == best)
        if tied.size > 1:
            rows_best = want_rows[tied].max()
            tied = tied[want_rows[tied] == rows_best]
        if tied.size > 1:
            tied = tied[np.argsort(part_tiebreak[tied])][:1]
        return int(tied[0])

    while left.any():
        active = np.flatnonzero(left)
        lab = int(active[np.argmin(left[active])])
        rows = np.flatnonzero(remaining[:, lab])
        for i in rows[np.argsort(rank[rows])]:
            j = choose(want[:, lab])
            parts[i] = j
            labs = np.flatnonzero(Y[i])
            want[j, labs] -= 1
            want_rows[j] -= 1
            remaining[i, :] = False
        left = remaining.sum(axis=0)
    for i in order[parts[order] < 0]:
        j = choose(want_rows)
        parts[i] = j
        want_rows[j] -= 1
    _repair(Y, parts, k, rank)
    return parts


def _repair(Y: np.ndarray, parts: np.ndarray, k: int, rank: np.ndarray) -> None:
    """Move rows so that each label with >= 2 positives is in >= min(2, k) parts and, with k == 2,
    in both (see :func:`iterative_stratification`)."""
    counts = np.stack([Y[parts == j].sum(axis=0) for j in range(k)])  # (parts, labels)
    n_pos = Y.sum(axis=0)
    n_labels_row = Y.sum(axis=1)
    for lab in np.flatnonzero(n_pos >= 2):
        empty = np.flatnonzero(counts[:, lab] == 0)
        needed = empty.size if k == 2 else max(0, 2 - int((counts[:, lab] > 0).sum()))
        for target in empty[:needed]:
            source = int(np.argmax(counts[:, lab]))
            if counts[source, lab] < 2:
                break
            rows = np.flatnonzero(Y[:, lab] & (parts == source))
            rows = rows[np.lexsort((rank[rows], n_labels_row[rows]))]
            for i in rows:
                others = np.flatnonzero(Y[i])
                if np.all(counts[source, others] >= 2):  # nobody loses their last positive here
                    parts[i] = target
                    counts[source, others] -= 1
                    counts[target, others] += 1
                    break


def _dated(documents: Sequence[Document]) -> bool:
    return bool(documents) and all(d.date is not None for d in documents)


def validation_folds(corpus: Corpus, *, method: str = "auto", cv: int | None = None, random_state=0,
                     fraction: float = VALIDATION_FRACTION) -> tuple[np.ndarray, dict]:
    """The evaluation fold of every training document of ``corpus`` (in corpus order).

    Parameters
    ----------
    corpus : Corpus
    method : {"auto", "date", "stratified"}
        How a hold-out split is drawn (see the module docstring).  Ignored when ``cv`` is given.
    cv : int, optional
        ``K >= 2``: K-fold cross-validation with iteratively stratified folds.
    random_state : int
        Seeds the stratified split and folds (the date split has no randomness).
    fraction : float
        Validation share of a stratified hold-out split (default: the thesis's 1,942 / 7,769).

    Returns
    -------
    folds : ndarray of int, shape (n_train,)
        ``-1``: fitting only (training-0); ``k >= 0``: evaluated in fold ``k``.
    info : dict
        ``method`` (``"date"``, ``"stratified"`` or ``"cv"``), ``n_folds``, ``random_state``
        and, for a stratified split, ``fraction``.
    """
    if method not in VALIDATION_METHODS:
        raise ValueError(f"validation method must be one of {VALIDATION_METHODS}, got {method!r}")
    train = corpus.train
    n = len(train)
    if cv is not None:
        if isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or cv < 2:
            raise ValueError(f"cv must be an integer >= 2 (the number of folds), got {cv!r}")
        if cv > n:
            raise ValueError(f"cv={cv} folds need at least {cv} training documents; the corpus has {n}")
        Y, _ = _label_matrix([d.labels for d in train])
        folds = iterative_stratification(Y, [1.0] * int(cv), random_state)
        return folds, {"method": "cv", "n_folds": int(cv), "random_state": random_state}
    if method == "auto":
        method = "date" if _dated(train) else "stratified"
    if method == "date":
        _, validation = train0_validation_split(corpus)
        ids = {d.id for d in validation}
        folds = np.array([0 if d.id in ids else -1 for d in train], dtype=np.int64)
        return folds, {"method": "date", "n_folds": 1}
    if not 0.0 < float(fraction) < 1.0:
        raise ValueError(f"fraction must be in (0, 1), got {fraction!r}")
    Y, _ = _label_matrix([d.labels for d in train])
    parts = iterative_stratification(Y, [1.0 - float(fraction), float(fraction)], random_state)
    folds = np.where(parts == 1, 0, -1).astype(np.int64)
    return folds, {"method": "stratified", "n_folds": 1, "random_state": random_state,
                   "fraction": round(float(fraction), 6)}


def fold_counts(Y, folds) -> list[dict]:
    """Per column of ``Y``: positives fitted on and evaluated, per fold.

    Returns a list (one entry per column) of ``{"fit": [n per fold], "eval": [n per fold],
    "fit_negatives": [n per fold]}``.
    """
    Y = np.asarray(Y, dtype=bool)
    folds = np.asarray(folds)
    K = int(folds.max()) + 1 if folds.size and folds.max() >= 0 else 0
    out = []
    for j in range(Y.shape[1]):
        y = Y[:, j]
        out.append({"fit": [int((y & (folds != k)).sum()) for k in range(K)],
                    "eval": [int((y & (folds == k)).sum()) for k in range(K)],
                    "fit_negatives": [int((~y & (folds != k)).sum()) for k in range(K)]})
    return out


def untunable_labels(Y, folds, labels: Sequence[str]) -> dict[str, str]:
    """Labels a split cannot score, each with the reason (empty dict when all can be tuned).

    A label needs, in every fold, a positive and a negative document to fit on, and at least one
    positive among the evaluated documents (pooled over the folds).
    """
    reasons = {}
    for lab, c in zip(labels, fold_counts(Y, folds)):
        K = len(c["fit"])
        if K == 0:
            reasons[lab] = "the split has no validation documents"
            continue
        total = c["fit"][0] + c["eval"][0] if K == 1 else sum(c["eval"])
        if total < 2:
            reasons[lab] = (f"it has {total} training document{'' if total == 1 else 's'}; tuning needs at least 2 "
                            f"(one to fit on, one to measure on)")
        elif sum(c["eval"]) == 0:
            reasons[lab] = "no validation positive"
        elif min(c["fit"]) == 0:
            k = int(np.argmin(c["fit"]))
            what = "training-0" if K == 1 else f"the fitting part of fold {k + 1}"
            reasons[lab] = f"no positive in {what} (all its {total} documents are evaluated there)"
        elif min(c["fit_negatives"]) == 0:
            reasons[lab] = "no negative document to fit on"
    return reasons
