"""The Compare page: finished training jobs side by side, and how sure each difference is.

A *system* is one classifier of one job (``"#3 · HBN-OR"``).  Two systems are *paired* when they
scored the same evaluation documents on the same classes: their jobs read the same corpus (the
same fingerprint, :meth:`hbnlab.corpus.Corpus.fingerprint`: ids, splits, labels and texts) and
were evaluated on the same split.  Document ids alone do not say so: two synthetic corpora of
different seeds, or two uploads without an id column and with as many rows, number their
documents alike.

:func:`aligned` checks the pairing and returns the shared labels and each system's score
matrix; :func:`paired` runs the paired bootstrap and McNemar's test of
:mod:`hbnlab.evaluation.compare` for two paired systems and refuses any other pair, with
:func:`unpaired_reason` as its message.  :func:`side_by_side` is the breakeven table (per class,
micro and macro) with one column per system and, for each system paired with the first, its
difference to the first; a system trained on another corpus keeps its column, scored against its
own labels and marked :data:`OTHER_CORPUS`, without a difference (:func:`corpus_notes` says why).
On a single-label corpus the table ends with an ``accuracy`` row (one-of-n,
:func:`hbnlab.evaluation.one_of_n_accuracy`): the share of documents whose highest-scoring class is
their one true class.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from hbnlab.app.views.corpus import config_corpus_label
from hbnlab.app.views.jobs import run_settings
from hbnlab.evaluation import mcnemar, one_of_n_accuracy, paired_bootstrap
from hbnlab.export.report import breakeven_by_classifier
from hbnlab.pipeline.config import ExperimentConfig

#: Appended to the side-by-side column of a system trained on another corpus than the first.
OTHER_CORPUS = " (other corpus)"


def system_key(job_id: int, classifier: str) -> str:
    return f"#{int(job_id)} · {classifier}"


def system_label(job_id: int, classifier: str, result: dict) -> str:
    """A system as the pickers name it: its key and the settings that tell it from another run of
    the same learner (:func:`hbnlab.app.views.jobs.run_settings`), ``"#2 · HBN-DEP · 30 terms · B 7, α 170"``."""
    settings = run_settings(result, [classifier])
    return system_key(job_id, classifier) + (f" · {settings}" if settings else "")


def corpus_description(out) -> str:
    """The corpus a job (:class:`~hbnlab.app.views.results.TrainOutputs`) was trained on, in
    words, with the start of its fingerprint: ``"synthetic (seed 7, 600 documents),
    fingerprint 9b1e2c3d"``."""
    config = out.result.get("config") or {}
    parsed = getattr(out, "config", None)
    if parsed is None and "corpus" in config:
        parsed = ExperimentConfig.from_dict(config)
    label = config_corpus_label(parsed) if parsed is not None and "corpus" in config else out.corpus_name
    fingerprint = out.result.get("fingerprint")
    return f"{label or 'unnamed corpus'}, fingerprint {fingerprint[:8]}" if fingerprint else label or "unnamed corpus"


def same_corpus(a, b) -> bool:
    """Whether two jobs' outputs come from one corpus: equal fingerprints (jobs recorded before
    fingerprints were kept: equal corpus names)."""
    fa, fb = a.result.get("fingerprint"), b.result.get("fingerprint")
    if fa and fb:
        return fa == fb
    return a.corpus_name == b.corpus_name


def unpaired_reason(outputs: dict, a: tuple[int, str], b: tuple[int, str]) -> str | None:
    """Why systems ``a`` and ``b`` cannot be compared document by document because their jobs
    read different corpora, or None when they read the same one."""
    out_a, out_b = outputs[a[0]], outputs[b[0]]
    if same_corpus(out_a, out_b):
        return None
    return (f"{system_key(*a)} and {system_key(*b)} were trained on different corpora: "
            f"{corpus_description(out_a)}; {corpus_description(out_b)}. A document of one is not the document "
            f"of the same id in the other, so no paired comparison (bootstrap, McNemar) is made between them; "
            f"compare systems trained on one corpus.")


def _check_stage(outputs: dict, systems: list[tuple[int, str]]) -> None:
    first = outputs[systems[0][0]]
    for job_id, _ in systems[1:]:
        out = outputs[job_id]
        if out.stage != first.stage:
            raise ValueError(f"job #{job_id} was evaluated on the {out.stage} split, job #{first.job_id} on the "
                             f"{first.stage} split: compare jobs of one split")


def _common_classes(outputs: dict, systems: list[tuple[int, str]]) -> list[str]:
    first = outputs[systems[0][0]]
    classes = [c for c in first.classes if all(c in outputs[j].classes for j, _ in systems)]
    if not classes:
        raise ValueError("the chosen jobs have no class in common")
    return classes


def _scores(out, job_id: int, classifier: str, classes: list[str]) -> np.ndarray:
    if classifier not in out.classifiers:
        raise ValueError(f"job #{job_id} has no classifier {classifier!r}; it has {out.classifiers}")
    return out.S[:, [out.column(c, classifier) for c in classes]]


def _labels(out, classes: list[str]) -> np.ndarray:
    return out.Y[:, [out.classes.index(c) for c in classes]]


def aligned(outputs: dict, systems: list[tuple[int, str]]):
    """``(classes, Y, {system key: S})`` for ``systems`` = ``[(job_id, classifier), ...]`` whose
    jobs are in ``outputs`` (job id -> :class:`TrainOutputs`).

    Raises ValueError naming the jobs when they read different corpora (:func:`unpaired_reason`)
    or were evaluated on different documents, splits or classes: the comparison would not be
    paired."""
    if len(systems) < 2:
        raise ValueError("choose at least two systems to compare")
    _check_stage(outputs, systems)
    first = outputs[systems[0][0]]
    for system in systems[1:]:
        reason = unpaired_reason(outputs, systems[0], system)
        if reason is not None:
            raise ValueError(reason)
        out = outputs[system[0]]
        if list(out.doc_ids) != list(first.doc_ids):
            raise ValueError(f"jobs #{first.job_id} and #{out.job_id} were evaluated on different documents "
                             f"({len(first.doc_ids)} vs {len(out.doc_ids)}): compare jobs of one corpus and split")
    classes = _common_classes(outputs, systems)
    scores = {system_key(j, clf): _scores(outputs[j], j, clf, classes) for j, clf in systems}
    return classes, _labels(first, classes), scores


def side_by_side(outputs: dict, systems: list[tuple[int, str]]) -> pd.DataFrame:
    """Breakeven (%) per class with micro and macro rows, one column per system, and an ``accuracy``
    row (one-of-n, %) when every document has exactly one of the classes; then, for every system
    paired with the first, its difference to the first.

    A system whose job read another corpus than the first's is scored against its own job's
    labels, its column is marked :data:`OTHER_CORPUS` and it gets no difference column (the two
    numbers come from different documents)."""
    if len(systems) < 2:
        raise ValueError("choose at least two systems to compare")
    _check_stage(outputs, systems)
    classes = _common_classes(outputs, systems)
    ref_out = outputs[systems[0][0]]
    paired = [s for s in systems if same_corpus(ref_out, outputs[s[0]])]
    if len(paired) > 1:
        _, Y, scores = aligned(outputs, paired)
    else:
        Y, scores = _labels(ref_out, classes), {system_key(*paired[0]): _scores(ref_out, *paired[0], classes)}
    table = breakeven_by_classifier(Y, scores, classes, None, index_name="class")
    accuracy = {k: _accuracy(Y, S) for k, S in scores.items()}
    for job_id, clf in systems:
        if (job_id, clf) in paired:
            continue
        out = outputs[job_id]
        own_Y, own_S = _labels(out, classes), _scores(out, job_id, clf, classes)
        own = breakeven_by_classifier(own_Y, {"x": own_S}, classes, None, index_name="class")
        table[system_key(job_id, clf) + OTHER_CORPUS] = own["x"]
        accuracy[system_key(job_id, clf) + OTHER_CORPUS] = _accuracy(own_Y, own_S)
    table = table[[system_key(*s) + ("" if s in paired else OTHER_CORPUS) for s in systems]]
    if any(not np.isnan(v) for v in accuracy.values()):
        table.loc["accuracy"] = [accuracy[c] for c in table.columns]
    ref = system_key(*systems[0])
    for s in paired[1:]:
        key = system_key(*s)
        table[f"{key} − {ref}"] = table[key] - table[ref]
    return table


def _accuracy(Y, S) -> float:
    """One-of-n accuracy (%) of ``S`` on ``Y``; NaN unless every document has exactly one class."""
    return 100 * one_of_n_accuracy(Y, S)


def _class_list(classes) -> str:
    return ", ".join(f"'{c}'" for c in classes)


def class_notes(outputs: dict, systems: list[tuple[int, str]]) -> list[str]:
    """One sentence when the chosen systems' jobs do not all have the same classes: the table of
    :func:`side_by_side` covers only the classes every job has, and which each job's leaves out."""
    classes = _common_classes(outputs, systems)
    extra = {}
    for job_id, _ in systems:
        own = [c for c in outputs[job_id].classes if c not in classes]
        if own:
            extra[job_id] = own
    if not extra:
        return []
    left_out = "; ".join(f"job #{j} also has {_class_list(own)}" for j, own in extra.items())
    return [f"The jobs were trained on different classes: the table covers the {len(classes)} they all have "
            f"({_class_list(classes)}), its micro and macro rows too; {left_out}, left out here."]


def pair_class_note(outputs: dict, systems: list[tuple[int, str]], a: tuple[int, str],
                    b: tuple[int, str]) -> str | None:
    """A sentence when the paired comparison of ``a`` and ``b`` (the classes both jobs have) covers
    other classes than the side-by-side table of ``systems`` (the classes every job has): their
    micro and macro differences are then over different classes and need not agree."""
    table = _common_classes(outputs, systems)
    pair = _common_classes(outputs, [a, b])
    if pair == table:
        return None
    return (f"This comparison covers the {len(pair)} classes both {system_key(*a)} and {system_key(*b)} have, the "
            f"table above the {len(table)} every chosen system has ({_class_list(table)}): their micro and "
            f"macro differences are over different classes and need not agree.")


def signed_text(x) -> str:
    """A difference in points, one decimal, signed (``"+1.2"``, ``"−3.0"``); ``"0.0"`` when it rounds
    to zero, never ``"−0.0"``; ``""`` for a missing one."""
    if x is None or np.isnan(x):
        return ""
    r = round(float(x), 1)
    return "0.0" if r == 0 else f"{'+' if r > 0 else '−'}{abs(r):.1f}"


def p_text(p, resamples: int | None = None) -> str:
    """A bootstrap p-value as shown: three decimals, ``"< 0.001"`` below 0.001 (never ``"0.000"``);
    ``p = 0`` says only that no resample of ``resamples`` reached the observed difference, so it is
    ``"< 1/resamples"`` when that is coarser (``"< 0.005"`` of 200)."""
    if p is None or np.isnan(p):
        return ""
    if p == 0 and resamples and 1 / resamples > 0.001:
        return f"< {1 / resamples:.4f}".rstrip("0")
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def bootstrap_frame(boot: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """The paired bootstrap table as the page shows it: the systems' names as column heads and p
    as text (:func:`p_text`); the other columns stay numbers."""
    out = boot.rename(columns={"A": a, "B": b, "B - A": "difference", "low": "95% low", "high": "95% high"})
    out["p"] = [p_text(p, n) for p, n in zip(boot["p"], boot["resamples"])]
    return out


def corpus_notes(outputs: dict, systems: list[tuple[int, str]]) -> list[str]:
    """One sentence per system trained on another corpus than the first system: what its column
    of :func:`side_by_side` is, naming both corpora."""
    ref = systems[0]
    notes = []
    for s in systems[1:]:
        if not same_corpus(outputs[ref[0]], outputs[s[0]]):
            notes.append(f"{system_key(*s)} was trained on another corpus ({corpus_description(outputs[s[0]])}) than "
                         f"the reference {system_key(*ref)} ({corpus_description(outputs[ref[0]])}): its column, "
                         f"marked '{OTHER_CORPUS.strip()}', is its breakeven on its own documents, with no difference "
                         f"to the reference and no paired test.")
    return notes


def paired(outputs: dict, a: tuple[int, str], b: tuple[int, str], *, n_boot: int = 1000, threshold: float = 0.5,
           random_state: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(bootstrap, mcnemar)`` tables of system ``b`` against system ``a`` (see
    :func:`hbnlab.evaluation.paired_bootstrap` and :func:`hbnlab.evaluation.mcnemar`).

    Raises ValueError (:func:`aligned`) for systems that are not paired, e.g. trained on
    different corpora."""
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
        shown_p = p_text(p, boot.loc[row, "resamples"])
        parts.append(f"{row} breakeven {b} {signed_text(d)} points against {a} "
                     f"({signed_text(boot.loc[row, 'low'])} to {signed_text(boot.loc[row, 'high'])}, "
                     f"p {shown_p if shown_p.startswith('<') else '= ' + shown_p}): {sure}")
    return "; ".join(parts) + "." if parts else "No class has a positive document: nothing to compare."
