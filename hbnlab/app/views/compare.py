"""The Compare page: finished training jobs side by side, and how sure each difference is.

A *system* is one classifier of one job (``"#3 · HBN-OR"``).  Systems are comparable when they
scored the same evaluation documents on the same classes; :func:`aligned` checks that and returns
the shared labels and each system's score matrix.  :func:`side_by_side` is the breakeven table
(per class, micro and macro) with one column per system; :func:`paired` runs the paired
bootstrap and McNemar's test of :mod:`hbnlab.evaluation.compare` for two of them.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from hbnlab.evaluation import mcnemar, paired_bootstrap


def system_key(job_id: int, classifier: str) -> str:
    return f"#{int(job_id)} · {classifier}"


def aligned(outputs: dict, systems: list[tuple[int, str]]):
    """``(classes, Y, {system key: S})`` for ``systems`` = ``[(job_id, classifier), ...]`` whose
    jobs are in ``outputs`` (job id -> :class:`TrainOutputs`).

    Raises ValueError naming the jobs when they were evaluated on different documents, splits or
    classes (the comparison would not be paired)."""
    if len(systems) < 2:
        raise ValueError("choose at least two systems to compare")
    first = outputs[systems[0][0]]
    for job_id, _ in systems[1:]:
        out = outputs[job_id]
        if out.stage != first.stage:
            raise ValueError(f"job #{job_id} was evaluated on the {out.stage} split, job #{first.job_id} on the "
                             f"{first.stage} split: compare jobs of one split")
        if list(out.doc_ids) != list(first.doc_ids):
            raise ValueError(f"jobs #{first.job_id} and #{job_id} were evaluated on different documents "
                             f"({len(first.doc_ids)} vs {len(out.doc_ids)}): compare jobs of one corpus and split")
    classes = [c for c in first.classes if all(c in outputs[j].classes for j, _ in systems)]
    if not classes:
        raise ValueError("the chosen jobs have no class in common")
    Y = first.Y[:, [first.classes.index(c) for c in classes]]
    scores = {}
    for job_id, clf in systems:
        out = outputs[job_id]
        if clf not in out.classifiers:
            raise ValueError(f"job #{job_id} has no classifier {clf!r}; it has {out.classifiers}")
        scores[system_key(job_id, clf)] = out.S[:, [out.column(c, clf) for c in classes]]
    return classes, Y, scores


def side_by_side(outputs: dict, systems: list[tuple[int, str]]) -> pd.DataFrame:
    """Breakeven (%) per class with micro and macro rows, one column per system; then, for every
    system after the first, its difference to the first."""
    from hbnlab.export.report import breakeven_by_classifier

    classes, Y, scores = aligned(outputs, systems)
    table = breakeven_by_classifier(Y, scores, classes, None, index_name="class")
    ref = next(iter(scores))
    for key in list(scores)[1:]:
        table[f"{key} − {ref}"] = table[key] - table[ref]
    return table


def paired(outputs: dict, a: tuple[int, str], b: tuple[int, str], *, n_boot: int = 1000, threshold: float = 0.5,
           random_state: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(bootstrap, mcnemar)`` tables of system ``b`` against system ``a`` (see
    :func:`hbnlab.evaluation.paired_bootstrap` and :func:`hbnlab.evaluation.mcnemar`)."""
    classes, Y, scores = aligned(outputs, [a, b])
    S_a, S_b = scores[system_key(*a)], scores[system_key(*b)]
    boot = paired_bootstrap(Y, S_a, S_b, categories=classes, n_boot=n_boot, random_state=random_state)
    mc = mcnemar(Y, S_a, S_b, threshold=threshold, categories=classes)
    return boot, mc


def verdict(boot: pd.DataFrame, a: str, b: str, level: float = 0.05) -> str:
    """One sentence on the micro and macro differences in words."""
    parts = []
    for row in ("micro", "macro"):
        d, p = boot.loc[row, "B - A"], boot.loc[row, "p"]
        if np.isnan(d):
            continue
        sure = "a difference the resampling supports" if p < level else "within what resampling the documents gives"
        parts.append(f"{row} breakeven {b} {'+' if d >= 0 else '−'}{abs(d):.1f} points against {a} "
                     f"({boot.loc[row, 'low']:+.1f} to {boot.loc[row, 'high']:+.1f}, p = {p:.3f}): {sure}")
    return "; ".join(parts) + "." if parts else "No class has a positive document: nothing to compare."
