"""The Export page: a finished train job as CSV files, a Markdown report, the data of the HTML
report, a model's Bayesian network as BIF / XMLBIF / HUGIN files, the job's settings (JSON) and
the job as a Python script that rebuilds it (:mod:`hbnlab.pipeline.script`); neither of the last two
holds a path of the server.

The tables are the Evaluation page's (:class:`~hbnlab.app.views.results.TrainOutputs`); their
CSV and Markdown text is made by :func:`hbnlab.export.report.table_csv` and
:func:`hbnlab.export.report.markdown_table`, the same functions as every other hbnlab report.
"""
from __future__ import annotations

import json

from hbnlab.app.views.corpus import SYNTHETIC_BADGE, corpus_label
from hbnlab.app.views.results import TrainOutputs
from hbnlab.experiments import paper_values as pv
from hbnlab.export.bn_formats import BN_LEARNERS, FORMATS, network_from_model
from hbnlab.export.escape import md_escape
from hbnlab.export.model_io import load_model
from hbnlab.export.report import ExperimentResult, markdown_table, table_csv
from hbnlab.models.catalog import CLUSTERINGS
from hbnlab.pipeline.config import EM_SPEED_DEFAULTS, OPTIONAL_DEFAULTS, STRUCTURE_ALGORITHMS, ExperimentConfig, is_hnb
from hbnlab.pipeline.script import job_script, shareable_config

#: Columns of the units table that count (printed as integers; naive Bayes's are empty).
UNIT_COUNTS = ("EM iterations",)


def export_table_makers(out: TrainOutputs) -> dict:
    """The CSV files of a finished train job, each as a function that writes it (name -> callable
    returning bytes): the Export page makes a file when its button is pressed, not on every run."""
    scores = "test_scores.csv" if out.stage == "test" else "validation_scores.csv"
    return {
        "breakeven.csv": lambda: table_csv(out.breakeven_frame()).encode("utf-8"),
        "ranking_measures.csv": lambda: table_csv(out.ranking_frame()).encode("utf-8"),
        "models.csv": lambda: table_csv(out.units_frame(), whole=UNIT_COUNTS).encode("utf-8"),
        scores: lambda: table_csv(out.document_scores()).encode("utf-8"),
    }


def export_tables(out: TrainOutputs) -> dict:
    """CSV files (name -> bytes) of a finished train job."""
    return {name: make() for name, make in export_table_makers(out).items()}


def settings_json(out: TrainOutputs) -> str:
    """The job's experiment settings as JSON, without the server's paths (an upload by its name,
    :func:`hbnlab.pipeline.script.shareable_config`)."""
    return json.dumps(shareable_config(out.result.get("config", {})), indent=2, ensure_ascii=False)


def python_script(out: TrainOutputs, file_name: str) -> str:
    """The job as a Python script that rebuilds it with the library and prints its breakeven table
    (:func:`hbnlab.pipeline.script.job_script`)."""
    res = out.result
    return job_script(out.job_config(), classes=res.get("classes") or (), classifiers=out.classifiers,
                      stage=out.stage, class_settings=res.get("class_settings"), job_id=out.job_id,
                      file_name=file_name)


#: The Bayesian-network file formats: (button title, file suffix, MIME type) by format name.
BN_FILES = {"bif": ("BIF", ".bif", "text/plain"), "xmlbif": ("XMLBIF", ".bifxml", "application/xml"),
            "net": ("HUGIN .net", ".net", "text/plain")}


def bn_files(model_file: bytes) -> dict[str, str]:
    """A workbench model's Bayesian network as the text of each file format (BIF, XMLBIF, HUGIN
    ``.net``; :func:`hbnlab.export.network_from_model`, as ``hbnlab export-model`` writes them), by
    format name; empty for a learner without a network form (SVM, Rocchio, ...)."""
    loaded = load_model(model_file, name="workbench model")
    if loaded.learner not in BN_LEARNERS:
        return {}
    net = network_from_model(loaded)
    return {fmt: net.to_text(fmt) for fmt in FORMATS}


def experiment_result(out: TrainOutputs, traces: dict | None = None, trees: dict | None = None):
    """The job as a :class:`hbnlab.export.report.ExperimentResult` (the schema of every hbnlab
    report): scores and labels per classifier, settings, corpus, timings, EM traces and trees.

    ``traces`` / ``trees`` map ``"class|classifier"`` to the restarts' log-likelihood traces and
    to ``TreeStructure.to_dict()``.
    """
    cfg = out.result.get("config", {})
    timings, em, tr, specs, paper = {}, {}, {}, {}, {}
    for u in out.units:
        c, k = u["classifier"], u["class"]
        key = f"{k}|{c}"
        timings.setdefault(c, {})[k] = float(u.get("seconds") or 0.0)
        if traces and traces.get(key):
            em.setdefault(c, {})[k] = traces[key]
        if trees and trees.get(key):
            tr.setdefault(c, {})[k] = trees[key]
    for c in out.classifiers:
        specs[c] = {"name": c, "n_features": out.n_features}
        row = pv.table_4_10_row(c, out.n_features) if out.compare_with_thesis() else None
        if row is not None:
            paper[c] = {**row, "source": "Karčiauskas (2002), Table 4.10"}
    corpus = {"name": out.corpus_name, "synthetic": out.synthetic, "fingerprint": out.result.get("fingerprint", "")}
    try:
        settings = (out.config or ExperimentConfig.from_dict(cfg)).relevant_dict(out.classifiers)
    except (TypeError, ValueError):
        settings = cfg           # a config written by another version: shown as stored
    return ExperimentResult(categories=out.classes, classifiers=out.classifiers, labels=out.Y,
                            scores={c: out.scores_of(c) for c in out.classifiers}, doc_ids=out.doc_ids,
                            stage=out.stage, settings=settings, corpus=corpus, classifier_specs=specs, timings=timings,
                            em_traces=em, trees=tr, paper=paper,
                            title=f"hbnlab workbench report — job {out.job_id}"
                                  + (" (synthetic corpus)" if out.synthetic else ""))


def _tree_settings_line(cfg: dict, classifiers) -> str:
    """The B / alpha of the clusterings the trained tree learners use (no line of numbers for
    learners that were not trained)."""
    used = [c for c in CLUSTERINGS if any(str(n).upper().endswith(f"-{c.upper()}") for n in classifiers
                                          if str(n).upper() in STRUCTURE_ALGORITHMS)]
    if not used:
        return f"* random_state={cfg.get('random_state')}"
    parts = ", ".join(f"{c.upper()} B={cfg.get(f'B_{c}')} alpha={cfg.get(f'alpha_{c}')}" for c in used)
    em = {**OPTIONAL_DEFAULTS, **{k: cfg[k] for k in OPTIONAL_DEFAULTS if k in cfg}}
    speed = ""
    if em["hidden_states"] != OPTIONAL_DEFAULTS["hidden_states"]:
        k = em["hidden_states"]
        speed += (f", hidden nodes with {k} states" if isinstance(k, int)
                  else f", each hidden node's number of states chosen by {k}")
    if em["tree_terms"] and int(cfg.get("n_features") or 0) > em["tree_terms"]:  # else the thesis's model
        kids = {"auto": "; OR and DEP keep the strongest k of them, k cross-validated", "all": "",
                "cv": "; the strongest k of them kept, k cross-validated",
                "cv-max": "; the strongest k of them kept, k cross-validated (best)"}[em["children_select"]]
        speed += (f", the tree holding the {em['tree_terms']} strongest terms (the others naive-Bayes children "
                  f"of the class{kids})")
    if em["em_acceleration"] != EM_SPEED_DEFAULTS["em_acceleration"]:
        speed += f", {str(em['em_acceleration']).upper()} acceleration"
    if em["screen_iter"]:
        speed += f", the best {em['screen_keep']} restarts kept after {em['screen_iter']} E-steps"
    if em["hnb_init"] != EM_SPEED_DEFAULTS["hnb_init"] and any(is_hnb(n) for n in classifiers):
        speed += ", the HNB's EM started at the HBN"
    return (f"* HBN/HNB settings: {parts}, {cfg.get('n_restarts')} EM restarts{speed}, "
            f"random_state={cfg.get('random_state')}")


def markdown_report(out: TrainOutputs, record) -> str:
    """A self-contained Markdown report of one training job (corpus names and classes escaped by
    :func:`hbnlab.export.escape.md_escape`, the tables by :func:`~hbnlab.export.report.markdown_table`)."""
    cfg = out.result.get("config", {})
    split = ("test set (trained on the training set)" if out.stage == "test"
             else "validation split (trained on training-0)")
    lines = [f"# hbnlab workbench report — job {out.job_id}", ""]
    breakeven = out.breakeven_frame()
    if out.synthetic:
        lines += [f"> **{SYNTHETIC_BADGE}.** These numbers describe the generated corpus, not real text.", ""]
    lines += [
        f"* corpus: **{md_escape(corpus_label(out.corpus_name, out.synthetic))}**",
        f"* evaluated on the {split}: {len(out.doc_ids)} documents",
        f"* classes: {md_escape(', '.join(out.classes))}",
        f"* classifiers: {', '.join(out.classifiers)}",
        f"* indexing: stopwords={cfg.get('stopwords')}, stemming={cfg.get('stemming')}, min_df={cfg.get('min_df')}",
        f"* features: {cfg.get('n_features')} per class by {cfg.get('selection')} ({cfg.get('scope')} selection)",
        _tree_settings_line(cfg, out.classifiers),
        "",
        "## Breakeven (%) per class",
        "",
        markdown_table(breakeven),
        "",
        *[f"* {md_escape(n.text('test set' if out.stage == 'test' else 'validation split'))}"
          for n in out.baseline_notes(breakeven)],
        "",
        "## Ranking measures (%)",
        "",
        markdown_table(out.ranking_frame()),
        "",
        "## Models",
        "",
        markdown_table(out.units_frame(), floatfmt="{:.3f}", whole=UNIT_COUNTS),
        "",
    ]
    if out.compare_with_thesis():
        lines += ["Columns named `thesis ...` are Karčiauskas (2002), Table 4.10, printed beside ours.", ""]
    return "\n".join(lines)
