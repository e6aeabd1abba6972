"""Experiment results and the reports made from them: self-contained HTML, CSV tables, Markdown.

:class:`ExperimentResult` is the one schema the CLI (``hbnlab run`` / ``hbnlab report``, via
:func:`hbnlab.experiments.manifest.run_manifest`) and the workbench's Export page fill: per
classifier and class the scores P(class | document) on the evaluation split, the true labels,
optionally the fitted models, the settings, the corpus summary, timings, EM traces and learned
trees.  From it:

* :func:`report_tables` -- the tables as pandas DataFrames (settings, corpus, breakeven with the
  thesis's values where they apply, ranking measures, timings, EM summary, versions);
* :func:`tables_csv` -- the same tables as CSV text;
* :func:`markdown` -- the same tables as GitHub-flavoured Markdown, for pasting;
* :func:`build_report` -- one HTML file that opens offline: plotly.js is inlined once (no CDN),
  PR curves and EM traces are plotly figures, learned trees are inline SVG drawn by Graphviz's
  ``dot`` (:func:`hbnlab.export.render.dot_to_svg`; a readable note replaces them when ``dot`` is
  missing).

The settings, the corpus summary and the title are shown with paths in the data home written
relative to it (:func:`hbnlab.export.portable.strip_data_home`).

Breakeven (thesis sec. 4.1.3) is computed by :mod:`hbnlab.evaluation`; the thesis's Table 4.10
values (:mod:`hbnlab.experiments.paper_values`) are printed beside ours only for Reuters-21578
ModApte on the test split with the thesis's classifier and feature count.
"""
from __future__ import annotations

import datetime as _dt
import html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from hbnlab._validation import HbnlabError
from hbnlab.corpus import REUTERS_NAME
from hbnlab.export.escape import csv_safe_frame, md_escape, md_table_cell, plotly_text
from hbnlab.export.model_io import library_versions, plain_json, resolved_params
from hbnlab.export.portable import strip_data_home

RESULT_FORMAT = "hbnlab-experiment-result"
RESULT_VERSION = 1


class ResultError(HbnlabError, ValueError):
    """An experiment result is malformed; the message names the field."""


# =========================================================================== the result
@dataclass
class ExperimentResult:
    """Everything a report shows about one experiment.

    Parameters
    ----------
    categories : list of str
        The classes (one binary classifier each).
    classifiers : list of str
        Display names of the classifiers, unique (``"NB (30)"``, ``"HBN-OR (30)"``).
    labels : ndarray of bool, shape (n_documents, n_categories)
        True labels of the evaluation documents.
    scores : dict str -> ndarray, shape (n_documents, n_categories)
        Per classifier, P(class | document) on the evaluation documents.
    doc_ids : list of str
        Ids of the evaluation documents (optional).
    stage : {"test", "validation"}
    settings : dict
        The experiment's settings (a manifest's ``to_dict()`` or the workbench config).
    corpus : dict
        ``name``, ``synthetic``, ``fingerprint``, ``n_train``, ``n_test``, ``n_terms``, ...
    classifier_specs : dict str -> dict
        Per classifier ``{"name": row name, "n_features": int, "params": {...}, "resolved_params":
        {...}}``: the parameters given and, when known, every hyper-parameter as the fit resolved it
        (:func:`hbnlab.export.model_io.resolved_params`; filled from ``models`` when absent).
    timings : dict str -> dict str -> float
        Seconds to fit per classifier and category.
    em_traces : dict str -> dict str -> list of list of float
        Per classifier and category, the log-likelihood trace of every EM restart.
    trees : dict str -> dict str -> dict
        Per classifier and category, the learned tree (``TreeStructure.to_dict()``).
    models : dict str -> dict str -> estimator
        Fitted models (optional, never serialised by :meth:`to_dict`).
    paper : dict str -> dict
        Per classifier, reference values ``{"per_class": {...}, "micro": .., "macro": ..,
        "source": ..}`` printed beside ours.
    versions : dict
    created : str
    title : str
    """

    categories: list
    classifiers: list
    labels: np.ndarray
    scores: dict
    doc_ids: list = field(default_factory=list)
    stage: str = "test"
    settings: dict = field(default_factory=dict)
    corpus: dict = field(default_factory=dict)
    classifier_specs: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    em_traces: dict = field(default_factory=dict)
    trees: dict = field(default_factory=dict)
    models: dict = field(default_factory=dict)
    paper: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)
    created: str = ""
    title: str = "hbnlab experiment"

    def __post_init__(self):
        self.categories = [str(c) for c in self.categories]
        self.classifiers = [str(c) for c in self.classifiers]
        self.labels = np.asarray(self.labels).astype(bool)
        self.scores = {str(k): np.asarray(v, dtype=np.float64) for k, v in self.scores.items()}
        if not self.created:
            self.created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        if not self.versions:
            self.versions = library_versions()
        for c, fitted in self.models.items():  # every category's model of a row shares its parameters
            spec = self.classifier_specs.setdefault(c, {})
            if fitted and "resolved_params" not in spec:
                spec["resolved_params"] = resolved_params(next(iter(fitted.values())))
        self.validate()

    def validate(self) -> ExperimentResult:
        """Check shapes and names; raises :class:`ResultError` naming the field."""
        if len(set(self.categories)) != len(self.categories):
            raise ResultError("categories: a category is listed twice")
        if len(set(self.classifiers)) != len(self.classifiers):
            raise ResultError("classifiers: a classifier is listed twice")
        if self.labels.ndim != 2 or self.labels.shape[1] != len(self.categories):
            raise ResultError(f"labels: expected shape (n_documents, {len(self.categories)}), got {self.labels.shape}")
        n = self.labels.shape[0]
        if set(self.scores) != set(self.classifiers):
            missing = sorted(set(self.classifiers) - set(self.scores))
            extra = sorted(set(self.scores) - set(self.classifiers))
            raise ResultError(f"scores: classifiers {missing} have no scores, {extra} are not listed")
        for k, S in self.scores.items():
            if S.shape != self.labels.shape:
                raise ResultError(f"scores[{k!r}]: expected shape {self.labels.shape}, got {S.shape}")
            if not np.all(np.isfinite(S)):
                raise ResultError(f"scores[{k!r}]: holds non-finite values")
        if self.doc_ids and len(self.doc_ids) != n:
            raise ResultError(f"doc_ids: {len(self.doc_ids)} ids for {n} documents")
        if self.stage not in ("test", "validation"):
            raise ResultError(f"stage: must be 'test' or 'validation', got {self.stage!r}")
        return self

    # ------------------------------------------------------------------ measures
    def breakeven(self) -> dict:
        """Per classifier the breakeven table (percent): per category, micro, macro."""
        from hbnlab.evaluation import breakeven_table

        return {c: breakeven_table(self.labels, self.scores[c], self.categories)["breakeven"] for c in self.classifiers}

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        """Plain JSON data (models are left out; floats are exact: JSON keeps 17 digits)."""
        return {
            "format": RESULT_FORMAT, "format_version": RESULT_VERSION, "title": self.title, "created": self.created,
            "stage": self.stage, "categories": list(self.categories), "classifiers": list(self.classifiers),
            "doc_ids": [str(d) for d in self.doc_ids], "labels": self.labels.astype(int).tolist(),
            "scores": {k: v.tolist() for k, v in self.scores.items()},
            "settings": plain_json(self.settings), "corpus": plain_json(self.corpus),
            "classifier_specs": plain_json(self.classifier_specs), "timings": plain_json(self.timings),
            "em_traces": plain_json(self.em_traces), "trees": plain_json(self.trees), "paper": plain_json(self.paper),
            "versions": plain_json(self.versions),
        }

    @classmethod
    def from_dict(cls, d: dict) -> ExperimentResult:
        if not isinstance(d, dict):
            raise ResultError(f"expected a JSON object, got {type(d).__name__}")
        if d.get("format") != RESULT_FORMAT:
            raise ResultError(f"format: expected {RESULT_FORMAT!r}, got {d.get('format')!r}")
        if d.get("format_version") != RESULT_VERSION:
            raise ResultError(f"format_version: expected {RESULT_VERSION}, got {d.get('format_version')!r}")
        for key in ("categories", "classifiers", "labels", "scores"):
            if key not in d:
                raise ResultError(f"{key}: missing")
        try:
            labels = np.asarray(d["labels"], dtype=np.int64).astype(bool)
            scores = {k: np.asarray([[np.nan if x is None else x for x in row] for row in v], dtype=np.float64)
                      for k, v in d["scores"].items()}
        except (TypeError, ValueError, AttributeError) as e:
            raise ResultError(f"labels / scores: not numeric matrices ({e})") from None
        if labels.ndim == 1 and labels.size == 0:
            labels = labels.reshape(0, len(d["categories"]))
        return cls(categories=d["categories"], classifiers=d["classifiers"], labels=labels, scores=scores,
                   doc_ids=d.get("doc_ids") or [], stage=d.get("stage", "test"), settings=d.get("settings") or {},
                   corpus=d.get("corpus") or {}, classifier_specs=d.get("classifier_specs") or {},
                   timings=d.get("timings") or {}, em_traces=d.get("em_traces") or {}, trees=d.get("trees") or {},
                   paper=d.get("paper") or {}, versions=d.get("versions") or {}, created=d.get("created", ""),
                   title=d.get("title", "hbnlab experiment"))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), allow_nan=False, indent=1)

    def save(self, path) -> Path:
        from hbnlab.export.atomic import write_text_atomic

        return write_text_atomic(Path(path), self.to_json())

    @classmethod
    def load(cls, path) -> ExperimentResult:
        p = Path(path)
        try:
            d = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ResultError(f"{p}: cannot read an experiment result ({e})") from None
        try:
            return cls.from_dict(d)
        except ResultError as e:
            raise ResultError(f"{p}: {e}") from None


# =========================================================================== tables
def _flatten(d: dict, prefix: str = "") -> list[tuple[str, str]]:
    rows = []
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            rows += _flatten(v, key + ".")
        elif isinstance(v, (list, tuple)) and v and isinstance(v[0], dict):
            for i, item in enumerate(v):
                rows += _flatten(item, f"{key}[{i}].") if isinstance(item, dict) else [(f"{key}[{i}]", str(item))]
        else:
            rows.append((key, json.dumps(v) if isinstance(v, (list, tuple)) else str(v)))
    return rows


def _kv_frame(d: dict, name: str) -> pd.DataFrame:
    rows = _flatten(d)
    return pd.DataFrame(rows, columns=["setting" if name == "settings" else "item", "value"])


def paper_applies(result: ExperimentResult) -> bool:
    """The thesis's values are comparable: Reuters-21578 ModApte, test split."""
    return result.corpus.get("name") == REUTERS_NAME and result.stage == "test"


def breakeven_by_classifier(labels, scores: dict, categories, references: dict | None = None, *,
                            reference_column: str = "{} (thesis)", index_name: str = "category") -> pd.DataFrame:
    """Breakeven in percent (thesis sec. 4.1.3): rows = categories, ``micro``, ``macro``; a column
    per classifier, each followed by its reference values where ``references`` has them.

    Parameters
    ----------
    labels : array of bool, shape (n_documents, n_categories)
    scores : dict str -> array, shape (n_documents, n_categories)
        Per classifier (in column order), P(class | document).
    categories : list of str
    references : dict str -> dict, optional
        Per classifier, ``{"per_class": {category: value}, "micro": .., "macro": ..}`` (a thesis
        Table 4.10 row); a classifier without one (or with None) gets no reference column, a
        category missing from ``per_class`` gets NaN.
    reference_column : str, default "{} (thesis)"
        Name of the reference column; ``{}`` is the classifier.
    index_name : str, default "category"

    Returns
    -------
    pandas.DataFrame
    """
    from hbnlab.evaluation import breakeven_table

    categories = [str(c) for c in categories]
    idx = categories + ["micro", "macro"]
    cols = {}
    for c, S in scores.items():
        cols[c] = breakeven_table(labels, S, categories)["breakeven"].reindex(idx).to_numpy()
        ref = (references or {}).get(c)
        if ref:
            per = ref.get("per_class") or {}
            cols[reference_column.format(c)] = np.array([per.get(k, np.nan) for k in categories]
                                                        + [ref.get("micro", np.nan), ref.get("macro", np.nan)],
                                                        dtype=float)
    return pd.DataFrame(cols, index=pd.Index(idx, name=index_name))


def breakeven_frame(result: ExperimentResult) -> pd.DataFrame:
    """Breakeven in percent: rows = categories, ``micro``, ``macro``; a column per classifier,
    followed by ``<classifier> (thesis)`` where the thesis reports that row (Table 4.10)."""
    df = breakeven_by_classifier(result.labels, {c: result.scores[c] for c in result.classifiers},
                                 result.categories, result.paper if paper_applies(result) else None)
    df.insert(0, "n_positive", list(result.labels.sum(axis=0).astype(int)) + [int(result.labels.sum())] * 2)
    return df


def baseline_lines(result: ExperimentResult, be: pd.DataFrame) -> list[str]:
    """The baseline check (:func:`hbnlab.evaluation.baseline.baseline_notes`) of the run's HBN / HNB
    classifiers against its NB and SVM, which share the run's terms; ``be`` is :func:`breakeven_frame`."""
    from hbnlab.evaluation.baseline import baseline_notes

    return [n.text() for n in baseline_notes({"classifier": c, "n_features": None, "micro": float(be.loc["micro", c])}
                                             for c in result.classifiers)]


def ranking_frame(result: ExperimentResult) -> pd.DataFrame:
    """Micro/macro breakeven, one-of-n accuracy (NaN unless every document has exactly one of the
    categories: :func:`accuracy_note` says why), 11-point average precision (per document) and micro
    F1@1 (de Campos sec. 5) per classifier, in percent."""
    from hbnlab.evaluation import (
        eleven_point_average_precision,
        f1_at_k,
        macro_breakeven,
        micro_breakeven,
        one_of_n_accuracy,
    )

    rows = []
    Y = result.labels
    for c in result.classifiers:
        S = result.scores[c]
        row = {"classifier": c, "micro breakeven": 100 * micro_breakeven(Y, S),
               "macro breakeven": 100 * macro_breakeven(Y, S), "accuracy": 100 * one_of_n_accuracy(Y, S)}
        try:
            row["11-pt avg precision"] = 100 * float(eleven_point_average_precision(Y, S))
        except ValueError:
            row["11-pt avg precision"] = np.nan
        try:
            row["micro F1@1"] = 100 * float(f1_at_k(Y, S, 1, average="micro"))
        except ValueError:
            row["micro F1@1"] = np.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("classifier")


def timings_frame(result: ExperimentResult) -> pd.DataFrame:
    """Seconds to fit: a row per classifier, a column per category and the total."""
    rows = []
    for c in result.classifiers:
        t = result.timings.get(c) or {}
        row = {"classifier": c}
        row.update({k: float(t[k]) if k in t else np.nan for k in result.categories})
        row["total"] = float(np.nansum([t.get(k, np.nan) for k in result.categories])) if t else np.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("classifier")


def em_frame(result: ExperimentResult) -> pd.DataFrame:
    """Per classifier and category with EM: restarts, iterations of the best restart, its final
    log-likelihood, and the spread of the final values over the restarts."""
    rows = []
    for c in result.classifiers:
        for cat, traces in (result.em_traces.get(c) or {}).items():
            finals = [t[-1] for t in traces if t and t[-1] is not None and math.isfinite(t[-1])]
            if not finals:
                continue
            best = int(np.argmax(finals))
            rows.append({"classifier": c, "category": cat, "restarts": len(traces),
                         "iterations (best)": len(traces[best]) - 1, "log-likelihood (best)": max(finals),
                         "log-likelihood (worst)": min(finals)})
    return pd.DataFrame(rows, columns=["classifier", "category", "restarts", "iterations (best)",
                                       "log-likelihood (best)", "log-likelihood (worst)"])


def corpus_frame(result: ExperimentResult) -> pd.DataFrame:
    c = strip_data_home(dict(result.corpus))
    per = c.pop("per_category", None)
    df = _kv_frame(c, "corpus")
    if isinstance(per, dict):
        extra = [(f"category {k}", f"{v.get('train', '')} train / {v.get('test', '')} test") for k, v in per.items()
                 if isinstance(v, dict)]
        df = pd.concat([df, pd.DataFrame(extra, columns=df.columns)], ignore_index=True)
    pos = result.labels.sum(axis=0)
    extra = [(f"positives in the {result.stage} split: {k}", str(int(p))) for k, p in zip(result.categories, pos)]
    extra.insert(0, (f"documents in the {result.stage} split", str(result.labels.shape[0])))
    return pd.concat([df, pd.DataFrame(extra, columns=df.columns)], ignore_index=True)


#: the report's tables, in order (name -> title)
TABLES = {
    "settings": "Settings", "corpus": "Corpus", "breakeven": "Breakeven (%) per class",
    "ranking": "Ranking measures (%)", "timings": "Fit time (s)", "em": "EM restarts", "versions": "Versions",
}


def accuracy_note(result: ExperimentResult) -> str:
    """What the ranking table's ``accuracy`` column is, or why it is n/a (empty) for this run."""
    from hbnlab.evaluation import single_label_problem

    problem = single_label_problem(result.labels)
    if problem is None:
        return ("Accuracy: one-of-n, each document given the category with the highest score (ties: the first); "
                "the share given its true one.")
    return (f"Accuracy: n/a, {problem}; it needs exactly one of the categories per document (a single-label "
            f"corpus with every category trained).")


def report_tables(result: ExperimentResult) -> dict:
    """The report's tables as DataFrames, keyed like :data:`TABLES`."""
    return {
        "settings": _kv_frame(strip_data_home(result.settings), "settings"),
        "corpus": corpus_frame(result),
        "breakeven": breakeven_frame(result),
        "ranking": ranking_frame(result),
        "timings": timings_frame(result),
        "em": em_frame(result),
        "versions": _kv_frame({**result.versions, "created": result.created}, "versions"),
    }


def tables_csv(result: ExperimentResult) -> dict:
    """The report's tables as CSV text, ``{"breakeven.csv": "...", ...}``."""
    return {f"{name}.csv": table_csv(df) for name, df in report_tables(result).items()}


def _whole_columns(df: pd.DataFrame, whole) -> pd.DataFrame:
    """``df`` with the columns ``whole`` (counts: EM iterations) as nullable integers, so a count
    stored beside a missing value (a float column) prints as ``13``, the missing one empty."""
    cols = [c for c in whole if c in df.columns]
    return df.astype({c: "Int64" for c in cols}) if cols else df


def table_csv(df: pd.DataFrame, whole=()) -> str:
    """One table as CSV text: floats with four decimals, the columns ``whole`` as integers, a
    missing value empty, the index kept unless it is a plain ``RangeIndex`` (row numbers); text
    cells that a spreadsheet would run as a formula are neutralised
    (:func:`hbnlab.export.escape.csv_safe_frame`)."""
    keep_index = not isinstance(df.index, pd.RangeIndex)
    return csv_safe_frame(_whole_columns(df, whole)).to_csv(index=keep_index, float_format="%.4f")


def markdown_table(df: pd.DataFrame, floatfmt: str = "{:.1f}", whole=()) -> str:
    """A GitHub-flavoured Markdown table (no dependency on ``tabulate``).

    A named or non-``RangeIndex`` index becomes the first column; a missing value (NaN, None: naive
    Bayes's EM columns) prints as an empty cell, the columns ``whole`` (counts) as integers, other
    floats through ``floatfmt``; text goes through :func:`hbnlab.export.escape.md_escape`
    (``|`` and every other Markdown character escaped, a line break becomes a space) so every row
    stays one line and corpus data is never read as markup.  A table without rows is ``_(none)_``.

    Examples
    --------
    >>> df = pd.DataFrame({"NB": [91.25, np.nan]}, index=pd.Index(["earn", "micro"], name="class"))
    >>> print(markdown_table(df))
    | class | NB |
    | --- | --- |
    | earn | 91.2 |
    | micro |  |
    >>> units = pd.DataFrame({"classifier": ["HBN-OR", "NB"], "EM iterations": [13, None], "converged": [True, None]})
    >>> print(markdown_table(units, "{:.3f}", whole=["EM iterations"]))
    | classifier | EM iterations | converged |
    | --- | --- | --- |
    | HBN-OR | 13 | True |
    | NB |  |  |
    """
    df = _whole_columns(df, whole)
    if df.index.name or not isinstance(df.index, pd.RangeIndex):
        df = df.reset_index()
    if df.empty:
        return "_(none)_"

    def cell(v):
        if v is None or v is pd.NA:
            return ""
        if isinstance(v, (float, np.floating)):
            return "" if np.isnan(v) else floatfmt.format(v)
        return md_table_cell(v)

    head = "| " + " | ".join(md_table_cell(c) for c in df.columns) + " |"
    sep = "| " + " | ".join("---" for _ in df.columns) + " |"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body])


def _param_text(value) -> str:
    if isinstance(value, list) and len(value) > 5:
        return f"[{len(value)} values]"
    return json.dumps(value, ensure_ascii=False)


def header_lines(result: ExperimentResult) -> list[str]:
    """The report's header, plain text: the hbnlab version and time that produced the result, the
    split it was evaluated on, then one line per classifier with its hyper-parameters as the fit
    resolved them (``classifier_specs[c]["resolved_params"]``), or the parameters given where the
    result does not record them (a result written before hbnlab 0.6.0)."""
    lines = [f"Generated by hbnlab {result.versions.get('hbnlab', '(unknown version)')} on {result.created}; "
             f"evaluated on the {result.stage} split ({result.labels.shape[0]} documents, "
             f"{len(result.categories)} classes, {len(result.classifiers)} classifiers)."]
    for c in result.classifiers:
        spec = result.classifier_specs.get(c, {})
        if spec.get("resolved_params") is not None:
            kind, params = "hyper-parameters as fitted", spec["resolved_params"]
        elif spec.get("params") is not None:
            kind, params = "parameters given (resolved values not recorded)", spec["params"]
        else:
            lines.append(f"{c}: hyper-parameters not recorded")
            continue
        text = ", ".join(f"{k}={_param_text(v)}" for k, v in sorted(params.items())) or "(the defaults)"
        lines.append(f"{c}: {kind}: {text}")
    return lines


def markdown(result: ExperimentResult) -> str:
    """The report's tables as one Markdown document."""
    tables = report_tables(result)
    head, *per_classifier = header_lines(result)
    lines = [f"# {strip_data_home(result.title)}", "", md_escape(head), "",
             *(f"* {md_escape(t)}" for t in per_classifier), ""]
    if result.corpus.get("synthetic"):
        lines += ["> **Synthetic corpus.** These numbers describe generated documents, not real text.", ""]
    fmt = {"timings": "{:.3f}", "em": "{:.2f}"}
    for name, title in TABLES.items():
        lines += [f"## {title}", "", markdown_table(tables[name], fmt.get(name, "{:.1f}")), ""]
        if name == "ranking":
            lines += [md_escape(accuracy_note(result)), ""]
    if paper_applies(result) and result.paper:
        lines += ["Columns marked `(thesis)` are Karčiauskas (2002), Table 4.10, printed beside ours.", ""]
    checks = baseline_lines(result, tables["breakeven"])
    if checks:
        lines += ["## Baseline check", "", *(f"* {md_escape(t)}" for t in checks), ""]
    return "\n".join(lines)


# =========================================================================== HTML
_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1200px;color:#222;
padding:0 1em}
h1{font-size:1.7em;margin-bottom:.2em}h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table.hbn-table{border-collapse:collapse;font-size:.9em;margin:.6em 0}
table.hbn-table th,table.hbn-table td{border:1px solid #ccc;padding:3px 8px;text-align:right}
table.hbn-table th{background:#f3f3f3}table.hbn-table td:first-child,table.hbn-table th:first-child{text-align:left}
.badge{display:inline-block;background:#fff3cd;border:1px solid #e0c36a;padding:4px 10px;border-radius:4px;
margin:.5em 0}
.note{color:#666;font-size:.9em}.tree{display:inline-block;vertical-align:top;margin:1em;max-width:100%;
overflow-x:auto;border:1px solid #eee;padding:.5em}.tree h3{font-size:1em;margin:.2em 0}.tree svg{max-width:none;
height:auto}.figure{margin:1em 0;border:1px solid #eee}
nav a{margin-right:1em}table.hbn-kv td{text-align:left;font-family:ui-monospace,Menlo,Consolas,monospace}
"""


def _table_html(df: pd.DataFrame, name: str, floatfmt: str = "{:.1f}") -> str:
    if df.empty:
        return f'<p class="note" data-table="{name}">(none)</p>'
    keep_index = not isinstance(df.index, pd.RangeIndex)
    kv = list(df.columns) in (["setting", "value"], ["item", "value"])
    return df.to_html(index=keep_index, classes="hbn-table hbn-kv" if kv else "hbn-table", table_id=f"table-{name}",
                      border=0, na_rep="",
                      float_format=lambda v: floatfmt.format(v), escape=True)


def _figure_html(fig, div_id: str) -> str:
    body = fig.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, default_height="420px",
                       config={"displaylogo": False, "responsive": True})
    return f'<div class="figure" data-figure="{html.escape(div_id)}">{body}</div>'


def _slug(s: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9_-]+", "-", str(s)).strip("-") or "x"


def pr_figures(result: ExperimentResult) -> list:
    """(div id, plotly Figure) per category: precision-recall curves of every classifier."""
    import plotly.graph_objects as go

    from hbnlab.evaluation import breakeven_point, pr_curve

    out = []
    for j, cat in enumerate(result.categories):
        y = result.labels[:, j]
        if not y.any():
            continue
        fig = go.Figure()
        for c in result.classifiers:
            p, r, _ = pr_curve(y, result.scores[c][:, j])
            be = 100 * breakeven_point(y, result.scores[c][:, j])
            fig.add_trace(go.Scatter(x=r, y=p, mode="lines", name=f"{plotly_text(c)} (breakeven {be:.1f})",
                                     line={"shape": "hv"}))
        fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="precision = recall",
                                 line={"dash": "dot", "color": "#999"}, hoverinfo="skip"))
        fig.update_layout(title=f"Precision-recall: {plotly_text(cat)}", xaxis_title="recall", yaxis_title="precision",
                          xaxis={"range": [0, 1.02]}, yaxis={"range": [0, 1.02]}, template="plotly_white",
                          margin={"l": 50, "r": 20, "t": 50, "b": 40})
        out.append((f"fig-pr-{_slug(cat)}", fig))
    return out


def em_figures(result: ExperimentResult, max_restarts: int = 64) -> list:
    """(div id, Figure) per classifier with EM: every restart's log-likelihood trace per category
    (the best restart drawn solid)."""
    import plotly.graph_objects as go

    out = []
    for c in result.classifiers:
        per_cat = result.em_traces.get(c) or {}
        if not per_cat:
            continue
        fig = go.Figure()
        for cat, traces in per_cat.items():
            clean = [[np.nan if v is None else float(v) for v in t] for t in traces[:max_restarts]]
            finals = [t[-1] if t else -np.inf for t in clean]
            best = int(np.nanargmax(finals)) if clean else 0
            for r, t in enumerate(clean):
                fig.add_trace(go.Scatter(y=t, mode="lines", legendgroup=cat, showlegend=r == best,
                                         name=f"{cat}", opacity=1.0 if r == best else 0.25,
                                         line={"width": 2 if r == best else 1}))
        fig.update_layout(title=f"EM log-likelihood per iteration: {plotly_text(c)}", xaxis_title="iteration",
                          yaxis_title="log-likelihood", template="plotly_white",
                          margin={"l": 60, "r": 20, "t": 50, "b": 40})
        out.append((f"fig-em-{_slug(c)}", fig))
    return out


def tree_svgs(result: ExperimentResult) -> tuple[list, str | None]:
    """([(title, svg)], message) for every learned tree; message is set when Graphviz is missing."""
    from hbnlab.bn.structure import TreeStructure
    from hbnlab.export.render import GraphvizMissing, dot_to_svg

    out = []
    for c in result.classifiers:
        for cat, td in (result.trees.get(c) or {}).items():
            try:
                tree = TreeStructure.from_dict(td)
            except (ValueError, TypeError, KeyError) as e:
                out.append((f"{c} · {cat}", f'<p class="note">tree not drawable: {html.escape(str(e))}</p>'))
                continue
            try:
                svg = dot_to_svg(tree.to_dot())
            except GraphvizMissing as e:
                return [], str(e)
            out.append((f"{c} · {cat}", svg))
    return out, None


def build_report(result: ExperimentResult, *, title: str | None = None, include_plotlyjs: bool = True,
                 include_trees: bool = True) -> str:
    """A self-contained HTML report of an experiment.

    Parameters
    ----------
    result : ExperimentResult
    title : str, optional
    include_plotlyjs : bool, default True
        Inline plotly.js (about 4.8 MB) so the file opens offline; False references nothing and
        the figures stay blank (for tests that only parse the tables).
    include_trees : bool, default True
        Draw the learned trees with Graphviz's ``dot``.

    Returns
    -------
    str
        The HTML document.  Sections have ids ``settings``, ``corpus``, ``breakeven``,
        ``ranking``, ``pr-curves``, ``em``, ``trees``, ``timings``, ``versions``; tables have ids
        ``table-<name>``; figures are ``div.figure[data-figure=fig-pr-<class> | fig-em-<classifier>]``.
    """
    import plotly.offline

    title = strip_data_home(title or result.title)
    tables = report_tables(result)
    esc = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{esc(title)}</title>", f"<style>{_CSS}</style>"]
    if include_plotlyjs:
        parts.append('<script type="text/javascript">' + plotly.offline.get_plotlyjs() + "</script>")
    head, *per_classifier = header_lines(result)
    parts += ["</head><body>", f"<h1>{esc(title)}</h1>", f'<p class="note">{esc(head)}</p>',
              '<details class="note" id="resolved-params"><summary>Hyper-parameters</summary><ul>'
              + "".join(f"<li>{esc(t)}</li>" for t in per_classifier) + "</ul></details>"]
    if result.corpus.get("synthetic"):
        parts.append('<p class="badge" id="synthetic-badge"><b>Synthetic corpus.</b> These numbers describe '
                     "generated documents, not real text.</p>")
    sections = ["settings", "corpus", "breakeven", "ranking", "pr-curves", "em", "trees", "timings", "versions"]
    parts.append("<nav>" + "".join(f'<a href="#{s}">{s}</a>' for s in sections) + "</nav>")

    def section(sid, heading, body):
        parts.append(f'<section id="{sid}"><h2>{esc(heading)}</h2>{body}</section>')

    section("settings", TABLES["settings"], _table_html(tables["settings"], "settings"))
    section("corpus", TABLES["corpus"], _table_html(tables["corpus"], "corpus"))
    be_note = ""
    if paper_applies(result) and result.paper:
        be_note = ('<p class="note">Columns marked <i>(thesis)</i> are Karčiauskas (2002), Table 4.10, '
                   "printed beside ours.</p>")
    elif result.paper:
        be_note = '<p class="note">The thesis\'s values apply to Reuters-21578 ModApte test runs only.</p>'
    section("breakeven", TABLES["breakeven"],
            '<p class="note">Precision/recall breakeven in percent (thesis sec. 4.1.3); micro pools every '
            "decision of every class, macro averages the classes.</p>"
            + _table_html(tables["breakeven"], "breakeven") + be_note
            + "".join(f'<p class="note baseline">{esc(t)}</p>' for t in baseline_lines(result, tables["breakeven"])))
    section("ranking", TABLES["ranking"], _table_html(tables["ranking"], "ranking")
            + f'<p class="note" id="accuracy-note">{esc(accuracy_note(result))}</p>')
    figs = "".join(_figure_html(f, i) for i, f in pr_figures(result)) or '<p class="note">(no class has positives)</p>'
    section("pr-curves", "Precision-recall curves", figs)
    em_figs = "".join(_figure_html(f, i) for i, f in em_figures(result))
    section("em", "EM traces", (em_figs or '<p class="note">(no classifier used EM)</p>')
            + _table_html(tables["em"], "em", "{:.2f}"))
    if include_trees and result.trees:
        svgs, missing = tree_svgs(result)
        if missing:
            body = f'<p class="note" id="graphviz-missing">Trees not drawn: {esc(missing)}</p>'
        else:
            body = "".join(f'<div class="tree" data-tree="{esc(t)}"><h3>{esc(t)}</h3>{svg}</div>' for t, svg in svgs)
    elif result.trees:
        body = '<p class="note">(trees not drawn)</p>'
    else:
        body = '<p class="note">(no classifier learned a tree)</p>'
    section("trees", "Learned trees", body)
    section("timings", TABLES["timings"], _table_html(tables["timings"], "timings", "{:.3f}"))
    section("versions", TABLES["versions"], _table_html(tables["versions"], "versions"))
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(result: ExperimentResult, path, **kwargs) -> dict:
    """Write ``path`` (HTML), ``<stem>.csv`` (the breakeven table), ``<stem>-<table>.csv`` (the
    other tables) and ``<stem>.md`` beside it.  Returns ``{kind: Path}``."""
    from hbnlab.export.atomic import write_text_atomic

    path = Path(path)
    out = {"html": write_text_atomic(path, build_report(result, **kwargs))}
    stem = path.with_suffix("")
    for name, text in tables_csv(result).items():
        key = name[:-4]
        target = Path(f"{stem}.csv") if key == "breakeven" else Path(f"{stem}-{key}.csv")
        out[f"csv:{key}"] = write_text_atomic(target, text)
    out["md"] = write_text_atomic(Path(f"{stem}.md"), markdown(result))
    return out


__all__ = ["ExperimentResult", "ResultError", "TABLES", "report_tables", "breakeven_by_classifier", "breakeven_frame",
           "ranking_frame", "timings_frame", "em_frame", "corpus_frame", "tables_csv", "table_csv", "markdown",
           "markdown_table", "header_lines", "build_report", "write_report", "pr_figures", "em_figures", "tree_svgs",
           "paper_applies"]
