"""The outcome of a sweep: :class:`SweepResult`, its table and the files it writes.

The table gives per classifier the micro and macro breakeven over the categories, beside de
Campos et al.'s 90-category Reuters values of naive Bayes and the noisy-OR gate (de Campos et
al., Table 1) and, for the thesis's 10 categories, Karčiauskas 2002, Table 4.10.
"""
from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hbnlab.corpus import REUTERS_NAME
from hbnlab.experiments import paper_values as pv
from hbnlab.experiments.sweep.config import SWEEP_FORMAT_VERSION, SweepConfig, states_part
from hbnlab.export.escape import csv_cell, md_escape, md_table_cell

__all__ = ["SweepResult", "sweep_table", "format_table_markdown", "cells_csv", "test_scores_csv"]


@dataclass
class SweepResult:
    """The outcome of :func:`~hbnlab.experiments.sweep.run_sweep`.

    ``state`` is "done", "cancelled" or "failed"; ``table`` (see :func:`sweep_table`) and
    ``test_scores`` exist only when it is "done".
    """

    sweep_id: str
    config: SweepConfig
    state: str
    data_info: dict
    categories: list
    validation: list = field(default_factory=list)  # result dicts of the validation cells
    choices: dict = field(default_factory=dict)
    untunable: dict = field(default_factory=dict)  # category -> why the validation split cannot score it
    test: list = field(default_factory=list)  # result dicts of the test cells
    table: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)
    job_stats: dict = field(default_factory=dict)
    test_scores: dict = field(default_factory=dict)  # classifier -> (n_test, n_categories)
    trees: dict = field(default_factory=dict)  # classifier -> category -> tree dict
    Y_test: np.ndarray | None = None

    def to_dict(self) -> dict:
        return {
            "format": "hbnlab-sweep", "format_version": SWEEP_FORMAT_VERSION, "sweep_id": self.sweep_id,
            "state": self.state, "config": self.config.to_dict(), "data": self.data_info,
            "categories": list(self.categories), "table": self.table, "timings": self.timings,
            "errors": list(self.errors), "jobs": self.job_stats,
            "choices": [{"category": c, "clustering": k, **{kk: (list(v) if kk == "config" else v)
                                                          for kk, v in ch.items()}}
                        for (c, k), ch in self.choices.items()],
            "untunable": dict(self.untunable), "not_fitted": self.not_fitted(),
            "validation": self.validation, "test": self.test,
        }

    def not_fitted(self) -> list[dict]:
        """The (B, hidden states) the validation grid left out, with why
        (:meth:`SweepConfig.not_fitted`); none when the sweep does not tune."""
        if self.config.final_only:
            return []
        return [{"B": b, "hidden_states": k, "reason": why} for (b, k), why in self.config.not_fitted().items()]

    def write(self, out_dir, *, report: bool = True, report_trees: int = 10) -> dict:
        """Write ``sweep.json`` (everything), ``table.json`` / ``table.md`` (the table), ``cells.csv``
        (one row per cell) and, when done and ``report``, the HTML report with its CSV / Markdown
        tables (:func:`hbnlab.export.report.write_report`; trees of the ``report_trees`` most
        frequent categories).  The folder is replaced as a whole (:func:`hbnlab.export.atomic.atomic_directory`):
        a reader, or a failed write, never leaves a mix of two runs.  Returns ``{kind: Path}``."""
        from hbnlab.export.atomic import atomic_directory, write_text_atomic

        out = Path(out_dir)
        with atomic_directory(out) as tmp:
            paths = {"sweep": write_text_atomic(tmp / "sweep.json", json.dumps(_plain(self.to_dict()), indent=1))}
            if self.table:
                paths["table_json"] = write_text_atomic(tmp / "table.json", json.dumps(_plain(self.table), indent=1))
                paths["table_md"] = write_text_atomic(tmp / "table.md", format_table_markdown(self.table))
            paths["cells_csv"] = write_text_atomic(tmp / "cells.csv", cells_csv(self.validation + self.test))
            if self.test_scores and self.Y_test is not None:
                paths["test_scores_csv"] = write_text_atomic(tmp / "test_scores.csv", test_scores_csv(self))
            if report and self.state == "done" and self.test_scores:
                try:
                    from hbnlab.export import report as rep
                except ImportError:  # pragma: no cover - the report module ships with hbnlab
                    rep = None
                if rep is not None:
                    result = self.experiment_result(report_trees=report_trees)
                    for kind, p in rep.write_report(result, tmp / "report.html").items():
                        paths[f"report:{kind}"] = p
        return {kind: out / Path(p).relative_to(tmp) for kind, p in paths.items()}

    def experiment_result(self, report_trees: int = 10):
        """The test results as an :class:`hbnlab.export.report.ExperimentResult` (scores are the
        posterior probabilities, ``expit`` of the log-odds)."""
        from scipy.special import expit

        from hbnlab.export.report import ExperimentResult

        rows = self.table["rows"]
        names = [f"{r['classifier']} ({r['n_features']})" for r in rows]
        scores = {n: expit(self.test_scores[r["classifier"]]) for n, r in zip(names, rows)}
        timings, trees, paper, specs = {}, {}, {}, {}
        keep = set(self.categories[:report_trees])
        for n, r in zip(names, rows):
            clf = r["classifier"]
            timings[n] = {t["category"]: t.get("fit_seconds", float("nan")) for t in self.test
                          if t["classifier"] == clf and t.get("fit_seconds") is not None}
            tr = {c: t for c, t in self.trees.get(clf, {}).items() if c in keep}
            if tr:
                trees[n] = tr
            ref = pv.table_4_10_row(clf, r["n_features"])
            if ref is not None:  # per class only: the thesis's micro/macro are over 10 classes
                paper[n] = {"per_class": ref["per_class"], "source": "thesis Table 4.10"}
            specs[n] = {"name": clf, "n_features": r["n_features"], "params": r.get("configs", {})}
        return ExperimentResult(
            categories=self.categories, classifiers=names, labels=self.Y_test, scores=scores, stage="test",
            settings={"sweep_id": self.sweep_id, **self.config.to_dict()}, corpus=dict(self.data_info),
            classifier_specs=specs, timings=timings, trees=trees, paper=paper,
            title=f"hbnlab sweep {self.sweep_id}: {len(self.categories)} categories")


def _plain(o):
    if isinstance(o, dict):
        return {str(k): _plain(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_plain(v) for v in o]
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (float, np.floating)):
        return None if not math.isfinite(float(o)) else float(o)
    return o


def cells_csv(rows: Sequence[dict]) -> str:
    """One CSV row per cell result (validation and test), the columns of ``cells.csv``; text
    cells a spreadsheet would run as a formula are neutralised (:func:`hbnlab.export.escape.csv_cell`)."""
    cols = ["stage", "category", "classifier", "B", "alpha", "n_features", "hidden_states", "breakeven", "n_pos",
            "n_eval", "fit_seconds", "n_iter", "converged", "skipped", "job_id", "cell"]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: csv_cell(r.get(k)) for k in cols})
    return buf.getvalue()


def test_scores_csv(result: SweepResult) -> str:
    """``test_scores.csv``: one row per (test document, category) with its label and each
    classifier's score (the posterior log-odds), for significance tests and plots outside hbnlab.
    ``document`` is the position of the document in the sweep's test split."""
    clfs = [c for c in [*result.config.classifiers, *result.config.baselines] if c in result.test_scores]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["document", "category", "label", *clfs])
    Y = np.asarray(result.Y_test)
    for j, cat in enumerate(result.categories):
        cols = [np.asarray(result.test_scores[c])[:, j] for c in clfs]
        for i in range(Y.shape[0]):
            w.writerow([i, csv_cell(cat), int(Y[i, j]), *(repr(float(col[i])) for col in cols)])
    return buf.getvalue()


def sweep_table(result: SweepResult) -> dict:
    """The sweep's table: per classifier micro / macro breakeven over the categories (percent),
    beside de Campos et al.'s Reuters values (their Table 1) and, over the thesis's 10 categories,
    Karčiauskas 2002, Table 4.10."""
    from hbnlab.evaluation import macro_breakeven, micro_breakeven, per_class_breakeven
    from hbnlab.experiments.decampos import PAPER

    Y = result.Y_test
    cats = list(result.categories)
    top10 = [cats.index(c) for c in pv.THESIS_CLASSES if c in cats]
    rows, per_class = [], {}
    for clf in result.config.classifiers + list(result.config.baselines):
        S = result.test_scores[clf]
        cells = [t for t in result.test if t["classifier"] == clf]
        configs = {}
        for t in cells:
            key = ("untuned" if t["B"] is None else
                   f"B={t['B']} alpha={t['alpha']:g}{states_part(t.get('hidden_states', 2))} nf={t['n_features']}")
            configs[key] = configs.get(key, 0) + 1
        counts = {t["n_features"] for t in cells}
        # a per-category choice may give the categories different numbers of terms
        nf = counts.pop() if len(counts) == 1 else "per category"
        row = {
            "classifier": clf, "n_features": nf, "n_categories": len(cats),
            "micro": 100 * micro_breakeven(Y, S), "macro": 100 * macro_breakeven(Y, S),
            "micro_pooled": 100 * micro_breakeven(Y, S, method="pooled"),
            "configs": dict(sorted(configs.items(), key=lambda kv: -kv[1])),
            "fit_seconds_total": float(sum(t.get("fit_seconds") or 0.0 for t in cells)),
        }
        if len(top10) == len(pv.THESIS_CLASSES):
            row["top10_micro"] = 100 * micro_breakeven(Y[:, top10], S[:, top10])
            row["top10_macro"] = 100 * macro_breakeven(Y[:, top10], S[:, top10])
            ref = pv.table_4_10_row(clf, nf)
            if ref is not None:
                row["thesis_top10_micro"], row["thesis_top10_macro"] = ref["micro"], ref["macro"]
        rows.append(row)
        per_class[clf] = dict(zip(cats, (100 * per_class_breakeven(Y, S)).tolist()))
    reuters = result.data_info.get("name") == REUTERS_NAME
    reference = []
    if reuters:
        for name in ("NBayes", "OR-eq12", "OR-eq17"):
            p = PAPER[1][name]
            reference.append({"classifier": name, "micro": p["micro"], "macro": p["macro"],
                              "source": "de Campos et al., Table 1 (Reuters-21578, 90 categories)"})
    notes = [
        "micro = the thesis's definition (one threshold per category, at its breakeven; contingency "
        "tables summed); micro_pooled = one ranking of all (document, category) pairs.",
        "Scores are the posterior log-odds (same ranking as the posterior, no rounding to 1.0).",
    ]
    if any(k != 2 for k in result.config.hidden_states):
        notes.append("k = the hidden nodes' number of states (configurations without k: binary nodes).")
    not_fitted = result.not_fitted()
    if not_fitted:
        notes.append("Not fitted in validation (an HBN table above the binary grid's largest): "
                     + "; ".join(f"B={n['B']} k={n['hidden_states']} ({n['reason']})" for n in not_fitted) + ".")
    if result.untunable:
        notes.append("Not tuned (the validation split cannot score them; each got the configuration that is "
                     "best over the other categories): "
                     + "; ".join(f"{c}: {why}" for c, why in result.untunable.items()) + ".")
    if reuters:
        notes.append(
            "Protocols differ: hbnlab follows the thesis (documents with at least one of the categories, "
            "no stemming, the thesis's stop words, 30 information-gain terms per category); de Campos et al. "
            "keep the unlabelled ModApte documents (9,603 / 3,299), use Porter stemming, the SMART stop list "
            "and every term. The NB row is the thesis's Bernoulli naive Bayes (N0 = 0.1) on the sweep's data; "
            "de Campos's NBayes is multinomial.")
    return {
        "sweep_id": result.sweep_id, "corpus": result.data_info.get("name"),
        "n_categories": len(cats), "n_test": int(Y.shape[0]),
        "choose": None if result.config.final_only else result.config.choose,
        "final_only": result.config.final_only, "n_restarts": result.config.n_restarts,
        "rows": rows, "reference": reference, "per_class": per_class,
        "n_positive": dict(zip(cats, Y.sum(axis=0).astype(int).tolist())),
        "timings": dict(result.timings), "notes": notes,
    }


def format_table_markdown(table: Mapping) -> str:
    """The sweep table as GitHub-flavoured Markdown (names in cells escaped by
    :func:`hbnlab.export.escape.md_table_cell`)."""
    def f(v):
        return "" if v is None or (isinstance(v, float) and not math.isfinite(v)) else f"{v:.1f}"

    n = table["n_categories"]
    how = "Table 4.1's final B and alpha" if table.get("final_only") else f"tuned on validation ({table.get('choose')})"
    lines = [f"### {n}-category breakeven ({md_escape(table.get('corpus'))}, test split, {how}, "
             f"{table.get('n_restarts')} EM restarts)", "",
             "| classifier | features | micro BEP | macro BEP | pooled micro BEP | 10-class micro (thesis) "
             "| 10-class macro (thesis) | configurations |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in table["rows"]:
        conf = "; ".join(f"{md_table_cell(k)} ({v})" if len(r["configs"]) > 1 else md_table_cell(k)
                         for k, v in list(r["configs"].items())[:4])
        if len(r["configs"]) > 4:
            conf += f"; ... ({len(r['configs'])} in all)"
        t_mi = f(r.get("top10_micro")) + (f" ({f(r['thesis_top10_micro'])})" if "thesis_top10_micro" in r else "")
        t_ma = f(r.get("top10_macro")) + (f" ({f(r['thesis_top10_macro'])})" if "thesis_top10_macro" in r else "")
        lines.append(f"| {md_table_cell(r['classifier'])} (hbnlab) | {r['n_features']} | {f(r['micro'])} | "
                     f"{f(r['macro'])} | {f(r['micro_pooled'])} | {t_mi} | {t_ma} | {conf} |")
    for r in table.get("reference", []):
        lines.append(f"| {r['classifier']} (de Campos et al.) | all | {r['micro']:.1f} | {r['macro']:.1f} | | | | "
                     f"published |")
    lines.append("")
    t = table.get("timings", {})
    if t:
        lines.append(f"Wall time {t.get('wall_seconds', float('nan')):.0f} s"
                     + (f" on the {t['backend']}" if t.get("backend") else "")
                     + "; CPU time summed over the cells: validation "
                     f"{t.get('validation_cpu_seconds_total', 0):.0f} s, "
                     f"test {t.get('test_cpu_seconds_total', 0):.0f} s (cells reused from an earlier run count too).")
        lines.append("")
    for note in table.get("notes", []):
        lines.append(f"* {note}")
    return "\n".join(lines) + "\n"
