"""What a finished workbench job produced, for the result pages: its scores aligned with the
experiment (:func:`train_outputs`), the comparisons of Compare, the explanations of Explain, the files
of Export, the tables of Evaluation and Tuning.

The jobs, corpora and indexed experiments themselves come from :mod:`hbnlab.app.job_client` and
:mod:`hbnlab.app.corpus_data` (this module calls them through the module, so a test that replaces a
function there replaces it here too); the caches follow the same rules (``st.cache_resource`` for
large read-only objects, ``st.cache_data`` for small results).
"""
from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from hbnlab.app import corpus_data, job_client, views
from hbnlab.app.views import compare as compare_view
from hbnlab.app.views import export as export_view
from hbnlab.export.report import build_report
from hbnlab.pipeline import tasks as T
from hbnlab.pipeline.config import ExperimentConfig

#: The files of the Export page: a model file's suffix, the Bayesian-network formats and what a model file holds.
MODEL_SUFFIX = "hbnlab"
BN_FILES = export_view.BN_FILES
MODEL_FORMAT_NOTE = ("hbnlab model files (.hbnlab: JSON + arrays in a ZIP, no pickle) with the indexing settings "
                     "and vocabulary: hbnlab.export.load_model(path).predict_proba_texts([...]) classifies raw text.")


@st.cache_data(show_spinner=False, max_entries=16)
def _scores(digest: str):
    return T.scores_from_bytes(job_client.read_artifact(digest))


@st.cache_resource(show_spinner=False, max_entries=64)
def _model(digest: str):
    return T.load_model(job_client.read_artifact(digest))


def _outputs_key(job_id: int) -> str:
    rec = job_client.get_job(job_id)
    if rec.state != "done" or not rec.result:
        raise ValueError(f"job {job_id} is {rec.state}; evaluation needs a finished training job")
    if rec.kind != "train":
        raise ValueError(f"job {job_id} is a {rec.kind!r} job; evaluation needs a training job")
    return rec.result["scores"]


@st.cache_resource(show_spinner=False, max_entries=16)
def _train_outputs(job_id: int, digest: str) -> views.TrainOutputs:
    res = job_client.get_job(job_id).result
    cfg = ExperimentConfig.from_dict(res["config"])
    S, doc_ids, columns = _scores(digest)
    return views.TrainOutputs.build(job_id, res, S, doc_ids, columns, corpus_data.experiment(cfg), config=cfg)


def train_outputs(job_id: int) -> views.TrainOutputs:
    """Scores, labels and unit records of a finished train job, aligned with the experiment
    (cached, read-only)."""
    return _train_outputs(int(job_id), _outputs_key(job_id))


def comparable_systems() -> dict:
    """Every classifier of every finished training job, by its display key (``"#3 · HBN-OR"``)."""
    return {compare_view.system_key(r.id, c): (r.id, c)
            for r in job_client.finished_train_jobs() for c in r.result.get("classifiers", [])}


def system_labels() -> dict:
    """The pickers' name of every system of :func:`comparable_systems`, by its key: the key and the
    run's terms, B and alpha (``"#3 · HBN-OR · 30 terms · B 9, α 0.09"``,
    :func:`hbnlab.app.views.compare.system_label`)."""
    return {compare_view.system_key(r.id, c): compare_view.system_label(r.id, c, r.result)
            for r in job_client.finished_train_jobs() for c in r.result.get("classifiers", [])}


def baseline_notes(systems) -> list:
    """The baseline check of the HBN / HNB systems among ``systems`` (``[(job_id, classifier), ...]``):
    each against NB and SVM of its own job (the same terms), :meth:`TrainOutputs.baseline_notes`."""
    out = []
    for job_id, classifier in _systems(systems):
        notes = train_outputs(job_id).baseline_notes(breakeven_table(job_id))
        out += [n for n in notes if n.classifier == classifier]
    return out


def compare_verdict(boot: pd.DataFrame, a: str, b: str) -> str:
    """The micro / macro difference of a paired comparison in words."""
    return compare_view.verdict(boot, a, b)


def _systems(systems) -> tuple:
    return tuple((int(j), str(c)) for j, c in systems)


@st.cache_data(show_spinner=False, max_entries=16)
def _compare_table(systems: tuple, keys: tuple) -> pd.DataFrame:
    return compare_view.side_by_side({j: train_outputs(j) for j, _ in systems}, list(systems))


def compare_table(systems) -> pd.DataFrame:
    """Breakeven per class of ``systems`` (``[(job_id, classifier), ...]``) side by side, with the
    differences to the first; a system trained on another corpus is marked, without a difference
    (:func:`hbnlab.app.views.compare.side_by_side`)."""
    systems = _systems(systems)
    return _compare_table(systems, tuple(_outputs_key(j) for j, _ in systems))


def compare_notes(systems) -> list[str]:
    """One sentence per system trained on another corpus than the first
    (:func:`hbnlab.app.views.compare.corpus_notes`), and one when the jobs have different classes
    (:func:`hbnlab.app.views.compare.class_notes`)."""
    systems = _systems(systems)
    outputs = {j: train_outputs(j) for j, _ in systems}
    return compare_view.corpus_notes(outputs, list(systems)) + compare_view.class_notes(outputs, list(systems))


def pair_class_note(systems, a, b) -> str | None:
    """Whether the paired comparison of ``a`` and ``b`` covers other classes than the table of
    ``systems``, in words (:func:`hbnlab.app.views.compare.pair_class_note`)."""
    systems, (a, b) = _systems(systems), _systems([a, b])
    return compare_view.pair_class_note({j: train_outputs(j) for j, _ in systems}, list(systems), a, b)


def bootstrap_frame(boot: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """The paired bootstrap table as shown (:func:`hbnlab.app.views.compare.bootstrap_frame`)."""
    return compare_view.bootstrap_frame(boot, a, b)


def unpaired_reason(a, b) -> str | None:
    """Why systems ``a`` and ``b`` cannot be compared document by document (their jobs read
    different corpora), or None (:func:`hbnlab.app.views.compare.unpaired_reason`)."""
    a, b = _systems([a, b])
    return compare_view.unpaired_reason({j: train_outputs(j) for j in (a[0], b[0])}, a, b)


@st.cache_data(show_spinner="Resampling the documents ...", max_entries=16)
def _paired(a: tuple, b: tuple, keys: tuple, n_boot: int, threshold: float):
    return compare_view.paired({j: train_outputs(j) for j in (a[0], b[0])}, a, b, n_boot=n_boot,
                               threshold=threshold)


def paired_comparison(a, b, *, n_boot: int = 1000, threshold: float = 0.5):
    """``(bootstrap, mcnemar)`` of system ``b`` against ``a`` (:func:`hbnlab.app.views.compare.paired`),
    seeded, cached; a ValueError naming both corpora for systems trained on different ones."""
    a, b = _systems([a, b])
    return _paired(a, b, (_outputs_key(a[0]), _outputs_key(b[0])), int(n_boot), float(threshold))


def unit_model(digest: str):
    """``(estimator, metadata)`` of a stored model (the app's own artifact)."""
    return _model(digest)


def model_bytes(digest: str) -> bytes:
    return job_client.read_artifact(digest)


def em_traces(job_id: int) -> dict:
    """``{"class|classifier": [trace per restart]}`` of a finished train job."""
    rec = job_client.get_job(job_id)
    out = {}
    for u in (rec.result or {}).get("units", []):
        if u.get("traces"):
            runs = json.loads(job_client.read_artifact(u["traces"]).decode("utf-8"))
            if runs:
                out[f"{u['classifier']} · {u['class']}"] = runs
    return out


def explain(job_id: int, unit_key: str, doc_id: str) -> views.Explanation:
    """Why did the model of ``unit_key`` ("class|classifier") score ``doc_id`` as it did?"""
    out = train_outputs(job_id)
    unit = out.unit(unit_key)
    est, meta = unit_model(unit["model"])
    cfg = out.job_config()
    data = corpus_data.experiment(cfg)
    doc = corpus_data.document(cfg, doc_id)
    return views.explain_document(est, data, doc, label=unit["class"], classifier=unit["classifier"])


def export_tables(job_id: int) -> dict[str, bytes]:
    """CSV files of a finished train job: breakeven, ranking measures, per-document scores."""
    out = train_outputs(job_id)
    return views.export_tables(out)


def export_table_makers(job_id: int) -> dict:
    """:func:`export_tables` as functions (name -> callable returning the CSV bytes), for buttons
    that make their file when pressed."""
    return views.export_table_makers(train_outputs(job_id))


@st.cache_data(show_spinner=False, max_entries=16)
def bn_files(digest: str) -> dict[str, str]:
    """The Bayesian network of the model stored as artifact ``digest`` as BIF / XMLBIF / HUGIN text
    by format (:func:`hbnlab.app.views.export.bn_files`); empty for a learner without one."""
    return export_view.bn_files(job_client.read_artifact(digest))


def markdown_report(job_id: int) -> str:
    out = train_outputs(job_id)
    return views.markdown_report(out, job_client.get_job(job_id))


def html_report(job_id: int) -> str:
    """The self-contained HTML report of a training job (:func:`hbnlab.export.report.build_report`)."""
    return _html_report(int(job_id), _outputs_key(job_id))


@st.cache_data(show_spinner=False, max_entries=8)
def _html_report(job_id: int, digest: str) -> str:
    out = _train_outputs(job_id, digest)
    traces, trees = {}, {}
    for u in out.units:
        key = f"{u['class']}|{u['classifier']}"
        if u.get("traces"):
            traces[key] = json.loads(job_client.read_artifact(u["traces"]).decode("utf-8"))
        est, _ = unit_model(u["model"])
        if getattr(est, "tree_", None) is not None:
            trees[key] = est.tree_.to_dict()
    return build_report(views.experiment_result(out, traces, trees))


def alpha_grid(clustering: str) -> list[float]:
    """The thesis's first-phase alpha grid of a clustering (Tables 4.2-4.4)."""
    from hbnlab.experiments.reproduce import ALPHA_GRIDS

    return list(ALPHA_GRIDS[clustering])


def parse_alpha_values(text: str, clustering: str) -> list[float]:
    """``"0, 0.05, 0.1"`` -> floats in the algorithm's alpha range; errors name the bad item."""
    from hbnlab.pipeline.config import ALPHA_RANGE

    lo, hi, _ = ALPHA_RANGE[clustering]
    out = []
    for item in str(text).replace(";", ",").split(","):
        item = item.strip()
        if not item:
            continue
        try:
            v = float(item)
        except ValueError:
            raise ValueError(f"alpha values: {item!r} is not a number") from None
        if not lo <= v <= hi:
            raise ValueError(f"alpha values: {v:g} is outside [{lo:g}, {hi:g}] for {clustering.upper()}")
        out.append(v)
    if not out:
        raise ValueError("alpha values: give at least one number")
    return sorted(set(out))


def tuning_cells(job_id: int) -> pd.DataFrame:
    return views.tuning_frame(job_client.get_job(job_id).result)


def config_with_cell(result: dict) -> ExperimentConfig:
    """The tuning job's config with its best B, alpha, number of terms and hidden states for its
    algorithm."""
    best = result["best"]
    algo = result["classifier"]
    cfg = ExperimentConfig.from_dict(result["config"])
    return cfg.with_structure_params(algo, best["B"], best["alpha"]).replace(
        n_features=int(best["n_features"]), hidden_states=best.get("hidden_states", cfg.hidden_states))


def per_class_settings(result: dict) -> dict:
    """A tuning job's best cell per class as train-job ``class_settings`` (B, alpha, terms and,
    when the job recorded them, hidden states)."""
    return {c: {"B": int(v["B"]), "alpha": float(v["alpha"]), "n_features": int(v["n_features"]),
                **({"hidden_states": v["hidden_states"]} if "hidden_states" in v else {})}
            for c, v in result.get("best_per_class", {}).items()}


def per_class_frame(result: dict) -> pd.DataFrame:
    """One row per class: its own best cell of a tuning job beside the best common cell."""
    return views.per_class_tuning_frame(result)


@st.cache_data(show_spinner=False, max_entries=32)
def _breakeven_table(job_id: int, digest: str) -> pd.DataFrame:
    return _train_outputs(job_id, digest).breakeven_frame()


def breakeven_table(job_id: int) -> pd.DataFrame:
    """Breakeven (%) per class x classifier with micro / macro rows (and thesis columns)."""
    return _breakeven_table(int(job_id), _outputs_key(job_id))


@st.cache_data(show_spinner=False, max_entries=32)
def _ranking_table(job_id: int, digest: str) -> pd.DataFrame:
    return _train_outputs(job_id, digest).ranking_frame()


def ranking_table(job_id: int) -> pd.DataFrame:
    """Micro / macro breakeven, 11-point average precision, F1@k per classifier (%)."""
    return _ranking_table(int(job_id), _outputs_key(job_id))


def accuracy_table(job_id: int) -> pd.DataFrame:
    """One-of-n accuracy (%) per classifier, with the documents decided right (single-label jobs)."""
    return train_outputs(job_id).accuracy_frame()


@st.cache_data(show_spinner=False, max_entries=32)
def _confusions(job_id: int, digest: str, classifier: str) -> tuple:
    out = _train_outputs(job_id, digest)
    return out.confusion(classifier), out.confusion_frame(classifier)


def confusions(job_id: int, classifier: str) -> tuple:
    """``(matrix, largest confusions first)`` of one classifier's one-of-n decisions."""
    return _confusions(int(job_id), _outputs_key(job_id), classifier)


def confused_documents(job_id: int, classifier: str, true: str, given: str) -> pd.DataFrame:
    """The documents of class ``true`` that ``classifier`` gave ``given``, with both scores."""
    return train_outputs(job_id).confused_documents(classifier, true, given)


def pr_curves(job_id: int, label: str) -> dict:
    out = train_outputs(job_id)
    return {name: out.pr_curve(label, name) for name in out.classifiers}


def threshold_stats(job_id: int, label: str, classifier: str, threshold: float) -> dict:
    return train_outputs(job_id).threshold_stats(label, classifier, threshold)


def threshold_curve(job_id: int, label: str, classifier: str):
    return train_outputs(job_id).threshold_curve(label, classifier)


def unit_parts(unit_key: str) -> tuple[str, str]:
    """``(class, classifier)`` of a unit key ``"class|classifier"`` (a class name may hold ``|``)."""
    return T.split_unit_key(unit_key)


def ranked_documents(job_id: int, unit_key: str, query: str = "") -> pd.DataFrame:
    """Evaluation documents by decreasing score of one model, optionally filtered by id / text."""
    out = train_outputs(job_id)
    label, classifier = T.split_unit_key(unit_key)
    df = out.ranked_documents(label, classifier, limit=len(out.doc_ids))
    q = (query or "").strip()
    if q:
        hits = corpus_data.search_documents(out.job_config(), q, split="all", limit=10**9)
        df = df[df["doc_id"].isin(set(hits["id"]))]
    return df.reset_index(drop=True)


__all__ = ["train_outputs", "comparable_systems", "system_labels", "baseline_notes", "compare_verdict", "compare_table",
           "compare_notes", "pair_class_note", "bootstrap_frame", "unpaired_reason", "paired_comparison",
           "unit_model", "model_bytes", "em_traces", "explain", "export_tables", "export_table_makers", "bn_files",
           "markdown_report",
           "html_report", "alpha_grid", "parse_alpha_values", "tuning_cells", "config_with_cell",
           "per_class_settings", "per_class_frame", "breakeven_table", "ranking_table", "pr_curves",
           "accuracy_table", "confusions", "confused_documents",
           "threshold_stats", "threshold_curve", "unit_parts", "ranked_documents"]
