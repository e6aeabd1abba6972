"""The thesis's experimental protocol on Reuters-21578 ModApte (Karčiauskas 2002, ch. 4).

* Indexing (sec. 4.1.2): lowercase, maximal letter runs, function words removed, no stemming,
  terms occurring in one training document dropped, binary features; vocabulary from the
  training set.
* Local feature selection by information gain on the *whole* training set, for the validation
  experiments too (sec. 4.1.2, last sentence).
* The 10 most frequent categories; one binary classifier per category.
* Validation experiments (Tables 4.2-4.9): train on training-0, measure on the validation split.
  Test experiments (Table 4.10): train on the training set, measure on the test set.
* Measures: per-class precision/recall breakeven, micro-averaged (all decisions of the 10 classes
  pooled, scores are probabilities) and macro-averaged, in percent.
"""
from __future__ import annotations

import itertools
import time
from collections.abc import Mapping

import numpy as np
from joblib import Parallel, delayed

from hbnlab.evaluation import breakeven_point, macro_breakeven, micro_breakeven, one_of_n_accuracy
from hbnlab.evaluation.baseline import baseline_notes
from hbnlab.experiments import paper_values as pv
from hbnlab.models.catalog import LEARNERS, learner
from hbnlab.pipeline.corpus_spec import is_reuters_modapte
from hbnlab.pipeline.data import ProtocolData
from hbnlab.pipeline.fit import fit_unit

__all__ = ["run_row", "tune_on_validation", "tuning_label", "reproduce_table_4_10", "sweep_features", "format_table",
           "DEFAULT_TABLE_4_10_ROWS", "thesis_values_apply", "tunable_indices", "choose_terms_per_class",
           "terms_label", "per_class_terms_row", "ValidationCells", "best_of", "smaller", "nearer_7"]


def thesis_values_apply(data: ProtocolData) -> bool:
    """Whether the thesis's published values describe this data: Reuters-21578 ModApte with the
    thesis's 10 classes, indexed with the thesis's stop list."""
    return (is_reuters_modapte(data.corpus_name) and sorted(data.categories) == sorted(pv.THESIS_CLASSES)
            and data.indexed.config.stopwords == "thesis")


def tunable_indices(data: ProtocolData, log=None) -> list[int]:
    """Indices of the categories the validation split can score; the others are named through
    ``log`` (none tunable: a ValueError naming each with its reason)."""
    bad = data.untunable()
    if len(bad) == len(data.categories):
        raise ValueError("no category can be tuned on this validation split: "
                         + "; ".join(f"{c}: {why}" for c, why in bad.items()))
    if bad and log is not None:
        log("  not tuned (the validation split cannot score them): "
            + "; ".join(f"{c} ({why})" for c, why in bad.items()))
    return [j for j, c in enumerate(data.categories) if c not in bad]


def _quiet(message: str) -> None:
    """The default ``log``: nothing is printed unless a frontend passes a logger."""


def _fit_score(data: ProtocolData, label: str, name: str, n_features, params, stage: str, random_state: int):
    # rank by the log-odds: the same order as P(c=1 | d), without the ties that rounding the
    # probability to 1.0 creates once |log-odds| > ~37; comparable across classes too
    t0 = time.perf_counter()
    res = fit_unit(data, label, name, n_features=n_features, params=params, stage=stage,
                   random_state=random_state, score="log_odds")
    return res.scores, time.perf_counter() - t0, res.estimator


def _terms_of(n_features, category: str):
    """The number of terms of one category: ``n_features`` itself, or its entry for the category
    when it maps category -> number of terms."""
    return n_features[category] if isinstance(n_features, Mapping) else n_features


def terms_label(n_features) -> str:
    """How a row's terms print: ``"30"``, ``"all"``, ``"30/100/all"`` (candidates chosen per class)
    or ``"per class"`` (a category -> terms mapping)."""
    if isinstance(n_features, Mapping):
        return "per class"
    if isinstance(n_features, tuple):
        return "/".join(_features_label(n) for n in n_features)
    return _features_label(n_features)


def _terms_value(n_features) -> int | None:
    """A number of terms as a row's ``n_features_per_class`` records it: an int, or ``None``
    (JSON ``null``) for every term, the value :func:`run_row` reads back."""
    return int(n_features) if n_features else None


def run_row(data: ProtocolData, name: str, n_features, *, params: dict | None = None,
            stage: str = "test", random_state: int = 0, n_jobs: int = 1, keep_models: bool = False,
            category_indices=None, paper: bool | None = None) -> dict:
    """Train and score one classifier on every category; breakeven per class, micro, macro.

    ``n_features``: an int, ``None`` (every term) or a mapping category -> either (terms chosen per
    class, :func:`choose_terms_per_class`); the row then records the mapping under
    ``"n_features_per_class"`` (``None``, JSON ``null``, for every term) and ``"n_features"`` reads
    ``"per class"``.  A row of every term records ``"n_features": "all"``, as :func:`terms_label`
    prints it and as candidate rows (``"30/all"``) do; a number of terms stays an int.  ``paper`` (default:
    :func:`thesis_values_apply`) adds the thesis's Table 4.10 values to a test row with one number
    of terms.
    """
    Y_eval = data.evaluation(stage)[0]
    js = list(range(len(data.categories))) if category_indices is None else list(category_indices)
    slim = data.without_documents()
    per_class_terms = isinstance(n_features, Mapping)
    tasks = [delayed(_fit_score)(slim, data.categories[j], name, _terms_of(n_features, data.categories[j]), params,
                                 stage, random_state) for j in js]
    t0 = time.perf_counter()
    out = Parallel(n_jobs=n_jobs)(tasks)
    seconds = time.perf_counter() - t0
    S = np.column_stack([o[0] for o in out])
    Y = Y_eval[:, js]
    per_class = {data.categories[j]: 100 * breakeven_point(Y[:, k], S[:, k]) for k, j in enumerate(js)}
    row = {
        "classifier": name,
        "n_features": terms_label(n_features) if per_class_terms or not n_features else int(n_features),
        "params": dict(params or {}),
        "stage": stage,
        "per_class": {k: round(v, 2) for k, v in per_class.items()},
        "micro": round(100 * micro_breakeven(Y, S), 2),
        "macro": round(100 * macro_breakeven(Y, S), 2),
        "accuracy": _accuracy(Y, S),
        "seconds": round(seconds, 3),
        "fit_seconds_per_class": {data.categories[j]: round(o[1], 3) for j, o in zip(js, out)},
    }
    if per_class_terms:
        row["n_features_per_class"] = {data.categories[j]: _terms_value(n_features[data.categories[j]]) for j in js}
    if paper is None:
        paper = thesis_values_apply(data) and not per_class_terms
    published = pv.table_4_10_row(name.upper(), int(n_features or 0)) if stage == "test" and paper else None
    if published is not None:
        row["paper_micro"] = published["micro"]
        row["paper_macro"] = published["macro"]
        row["paper_per_class"] = published["per_class"]
    if keep_models:
        row["_models"] = [o[2] for o in out]
        row["_scores"] = S
    return row


def _accuracy(Y, S) -> float | None:
    """One-of-n accuracy (%) of a row, ``None`` (n/a) unless every document has exactly one of the
    row's classes (:func:`hbnlab.evaluation.one_of_n_accuracy`)."""
    acc = one_of_n_accuracy(Y, S)
    return None if np.isnan(acc) else round(100 * acc, 2)


def per_class_terms_row(result: Mapping, source: str = "the result") -> dict:
    """The first row of a :func:`reproduce_table_4_10` result (or its JSON form) whose terms were
    chosen per class (it records ``"n_features_per_class"``); ``ValueError`` naming ``source``
    when there is none.  A class of every term reads ``None`` in the returned mapping, also from
    files that recorded it as ``0``."""
    for row in result.get("rows", []):
        if row.get("n_features_per_class"):
            return {**row, "n_features_per_class": {c: _terms_value(n) for c, n in row["n_features_per_class"].items()}}
    raise ValueError(f"{source}: no row with terms chosen per class")


class ValidationCells:
    """The cells of one learner's tuning grid, each a number of terms and settings over ``params``
    (B, alpha, the hidden states, C, k ...), trained on training-0 and scored on the validation split
    over ``category_indices`` (:func:`tunable_indices`) the way :func:`run_row` scores a row: micro
    and per-class breakeven, rounded to 0.01.  The tuning entry points score their grids here:
    :func:`tune_on_validation`, :func:`choose_terms_per_class` and
    :func:`hbnlab.experiments.reproduce.three_phase_tuning`."""

    def __init__(self, data: ProtocolData, name: str, *, category_indices, params: dict | None = None,
                 n_jobs: int = 1, random_state: int = 0):
        self.data, self.name, self.params = data, name, params
        self.category_indices, self.n_jobs, self.random_state = category_indices, n_jobs, random_state

    def row(self, n_features, settings: dict | None = None) -> dict:
        """The validation row of one cell: ``settings`` override ``params`` (none: ``params`` as given)."""
        params = self.params if settings is None else {**(self.params or {}), **settings}
        return run_row(self.data, self.name, n_features, params=params, stage="validation", n_jobs=self.n_jobs,
                       random_state=self.random_state, category_indices=self.category_indices)

    def micro(self, n_features, settings: dict | None = None) -> float:
        """The validation micro breakeven of one cell."""
        return self.row(n_features, settings)["micro"]


def best_of(candidates, score, *prefer):
    """The candidate of the highest ``score``; a tie goes to the candidate that the ``prefer`` keys
    rank highest, the first key first (:func:`smaller`, :func:`nearer_7`), then to the candidate
    listed first."""
    if not prefer:
        return max(candidates, key=score)
    return max(candidates, key=lambda c: (score(c), *(p(c) for p in prefer)))


def smaller(value):
    """A ``prefer`` key of :func:`best_of`: the smaller value first."""
    return -value


def nearer_7(B):
    """A ``prefer`` key of :func:`best_of`: the branching factor nearer the thesis's B = 7 first
    (of two equally near, list the smaller first to have it win)."""
    return -abs(B - 7)


def tune_on_validation(data: ProtocolData, name: str, n_features: int | None, *, grid: dict | None = None,
                       params: dict | None = None, n_jobs: int = 1, log=None) -> tuple[dict, dict]:
    """Choose hyper-parameters by validation micro breakeven (thesis sec. 4.2.1, the SVM's C), over
    the categories the validation split can score (:func:`tunable_indices`).

    ``grid`` (default: the learner's catalogue ``tuning``) maps each parameter to its candidates;
    every combination is scored and the best wins, ties going to the combination listed first
    (the SVM grid lists C from small to large: the smallest of equally good C).  Returns the
    chosen parameters and the validation micro breakeven of every combination, keyed by
    :func:`tuning_label`.
    """
    grid = dict(learner(name).tuning if grid is None else grid)
    if not grid:
        raise ValueError(f"{name}: no tuning grid; pass one, or choose a learner that has one: "
                         f"{[n for n, row in LEARNERS.items() if row.tuning]}")
    cells = ValidationCells(data, name, params=params, n_jobs=n_jobs, category_indices=tunable_indices(data, log))
    scored = [(combo, cells.micro(n_features, combo))
              for combo in (dict(zip(grid, values)) for values in itertools.product(*grid.values()))]
    best = best_of(scored, lambda s: s[1])[0]
    return best, {tuning_label(combo): micro for combo, micro in scored}


def choose_terms_per_class(data: ProtocolData, name: str, candidates, *, params: dict | None = None,
                           n_jobs: int = 1, random_state: int = 0, log=None) -> tuple[dict, dict]:
    """The number of terms of each category, chosen on the validation split.

    Every candidate (an int, or ``None`` for every term) is a validation row; each category the
    split can score (:func:`tunable_indices`) takes the candidate with its best validation
    breakeven, ties going to the candidate listed first (list them from few to many terms: the
    smallest of equally good choices).  A category the split cannot score takes the first
    candidate.  The same learner settings (``params``) serve every candidate: tune B and alpha
    after the terms (:func:`hbnlab.experiments.reproduce.three_phase_tuning` accepts the mapping).

    Returns
    -------
    chosen : dict
        Category -> number of terms (``None``: every term), for every category of ``data``.
    curve : dict
        Candidate label (``"30"``, ``"all"``) -> ``{"micro": ..., "per_class": {category: breakeven}}``
        on validation.
    """
    candidates = tuple(candidates)
    if not candidates:
        raise ValueError(f"{name}: no candidate numbers of terms to choose from")
    if len(set(candidates)) != len(candidates):
        raise ValueError(f"{name}: candidate numbers of terms repeat: {list(candidates)}")
    js = tunable_indices(data, log)
    cells = ValidationCells(data, name, params=params, n_jobs=n_jobs, random_state=random_state, category_indices=js)
    rows = dict(zip(candidates, (cells.row(nf) for nf in candidates)))
    curve = {_features_label(nf): {"micro": r["micro"], "per_class": r["per_class"]} for nf, r in rows.items()}
    chosen = {c: candidates[0] for c in data.categories}
    for c in (data.categories[j] for j in js):
        chosen[c] = best_of(candidates, {nf: r["per_class"][c] for nf, r in rows.items()}.get)
    if log is not None:
        log(f"  {name}: terms per class chosen on validation from {terms_label(candidates)}: "
            + ", ".join(f"{c} {_features_label(n)}" for c, n in chosen.items()))
    return chosen, curve


def tuning_label(combo: dict):
    """A grid point as a key of the tuning curve: the bare value for one parameter (``0.3``), else
    ``"k=10, weighting=tfidf"``."""
    if len(combo) == 1:
        return next(iter(combo.values()))
    return ", ".join(f"{k}={v}" for k, v in combo.items())


DEFAULT_TABLE_4_10_ROWS = [("NB", 30), ("NB", 100), ("LR", 30), ("LR", 100), ("SVM", 30), ("SVM", 200)]


def reproduce_table_4_10(data: ProtocolData, rows=None, *, n_jobs: int = 1, tune: bool = True,
                         random_state: int = 0, row_params: dict | None = None, row_terms: dict | None = None,
                         log=_quiet) -> dict:
    """Run the rows of Table 4.10 on the test split.  Returns the JSON document of the CLI.

    A row's features are an int, ``None`` (every term) or a tuple of candidates chosen per class on
    validation (:func:`choose_terms_per_class`; ``row_terms[(name, candidates)]`` may hold the
    choice and its curve already).  With ``tune``, a learner with a
    catalogue tuning grid (SVM's C, KNN's k and weighting) has the parameters the row does not set
    chosen on validation first (:func:`tune_on_validation`); the row then records the validation
    curve under ``"tuning"``.
    """
    rows = rows or DEFAULT_TABLE_4_10_ROWS
    out_rows = []
    for name, nf in rows:
        params = dict((row_params or {}).get((name, nf), {}))
        terms, terms_curve = nf, None
        if isinstance(nf, tuple):
            known = (row_terms or {}).get((name, nf))
            if known is None:
                terms, terms_curve = choose_terms_per_class(data, name, nf, params=params, n_jobs=n_jobs,
                                                            random_state=random_state, log=log)
            else:
                terms, terms_curve = known
        grid = {k: v for k, v in learner(name).tuning.items() if k not in params}
        curve = None
        if tune and grid:
            chosen, curve = tune_on_validation(data, name, terms, grid=grid, params=params, n_jobs=n_jobs, log=log)
            params.update(chosen)
            what = ", ".join(grid)
            log(f"  {name} ({terms_label(nf)}): {what} tuned on validation -> "
                f"{tuning_label(chosen)} (micro by {what}: {curve})")
        row = run_row(data, name, terms, params=params, stage="test", n_jobs=n_jobs, random_state=random_state)
        if isinstance(nf, tuple):
            row["n_features"] = terms_label(nf)
            row["terms_tuning"] = terms_curve
        if curve is not None:
            row["tuning"] = {str(k): v for k, v in curve.items()}
        log(f"  {name} ({terms_label(nf)}): micro {row['micro']:.1f} macro {row['macro']:.1f}  "
            f"[{row['seconds']:.1f}s]")
        out_rows.append(row)
    return {"rows": out_rows, "corpus": data.corpus_json(), "paper": thesis_values_apply(data),
            "untunable": data.untunable()}


def _features_label(n_features) -> str:
    return str(n_features) if n_features else "all"


def sweep_features(data: ProtocolData, name: str, feature_counts, *, params=None, n_jobs: int = 1,
                   paper: dict | None = None, log=_quiet) -> dict:
    """Validation micro breakeven against the number of features (Tables 4.8 and 4.9)."""
    rows = []
    js = tunable_indices(data, log)
    for nf in feature_counts:
        row = run_row(data, name, nf, params=params, stage="validation", n_jobs=n_jobs, category_indices=js)
        if paper and nf in paper:
            row["paper_micro"] = paper[nf]
        log(f"  {name} ({nf}): validation micro {row['micro']:.1f}" +
            (f"  paper {paper[nf]:.1f}" if paper and nf in paper else ""))
        rows.append(row)
    return {"rows": rows, "corpus": data.corpus_json()}


def format_table(result: dict, *, per_class: bool = True) -> str:
    """A text table shaped like Table 4.10: classes as rows, classifiers as columns, ours and the
    thesis's value (and the difference) in each cell."""
    rows = [r for r in result["rows"]]
    if not rows:
        return "(no rows)"
    heads = [f"{r['classifier']} ({_features_label(r['n_features'])})" for r in rows]
    published = any(r.get("paper_micro") is not None for r in rows)
    width = max(22 if published else 10, max(len(h) for h in heads) + 2)
    first = max([10, *(len(c) + 2 for c in rows[0]["per_class"])]) if per_class else 10
    lines = ["class".ljust(first) + "".join(h.rjust(width) for h in heads)]
    if published:
        lines.append(" " * first + "".join("ours / paper (diff)".rjust(width) for _ in heads))

    def cell(ours, paper):
        if paper is None:
            return f"{ours:.1f}".rjust(width)
        return f"{ours:.1f} / {paper:.1f} ({ours - paper:+.1f})".rjust(width)

    if per_class:
        for c in rows[0]["per_class"]:
            lines.append(c.ljust(first) + "".join(
                cell(r["per_class"].get(c, float("nan")), (r.get("paper_per_class") or {}).get(c)) for r in rows))
    lines.append("micro".ljust(first) + "".join(cell(r["micro"], r.get("paper_micro")) for r in rows))
    if any("macro" in r for r in rows):
        lines.append("macro".ljust(first) + "".join(cell(r["macro"], r.get("paper_macro")) for r in rows))
    if any("accuracy" in r for r in rows):
        lines.append("accuracy".ljust(first) + "".join(
            ("n/a" if r.get("accuracy") is None else f"{r['accuracy']:.1f}").rjust(width) for r in rows))
    lines.append("seconds".ljust(first) + "".join(f"{r['seconds']:.1f}".rjust(width) for r in rows))
    if any("accuracy" in r for r in rows):
        lines.append("")
        lines.append("accuracy: one-of-n (each document given the class with the highest score)"
                     + ("; n/a: some documents have none or several of the classes"
                        if any(r.get("accuracy") is None for r in rows) else ""))
    notes = baseline_notes(rows)
    if notes:
        lines.append("")
        lines.append("Baseline check (each HBN/HNB row against NB, LR and SVM with the same terms):")
        where = "test set" if result.get("stage", "test") == "test" else "validation split"
        lines.extend("  " + n.text(where) for n in notes)
    return "\n".join(lines)
