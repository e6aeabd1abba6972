"""What the pages call before a job has run: the job client (submit, list, cancel), the corpus and
the indexed experiment (cached loaders), the Features and Structure computations and the Learn page's
lessons.  What a finished job produced (its scores, Compare, Explain, Export, the Evaluation and Tuning
tables) is :mod:`hbnlab.app.job_outputs`, which calls this module.

Caching (Streamlit's guidance: ``st.cache_data`` for data, ``st.cache_resource`` for shared
objects):

* the corpus and the indexed experiment data are immutable once built (a frozen
  :class:`~hbnlab.corpus.Corpus`; :class:`~hbnlab.pipeline.data.ProtocolData` is never
  mutated by the app) and large: on Reuters, ``st.cache_data``'s pickle round trip costs
  ~0.35 s (corpus) + ~0.6 s (index) on *every* rerun, which would break the Structure page's
  "well under a second" redraw.  They are therefore shared with ``st.cache_resource``
  (read-only objects are thread-safe); everything derived from them (term tables, trees,
  evaluation tables, explanations) is small and goes through ``st.cache_data``.  Behind both, the
  store in the data home (:mod:`hbnlab.pipeline.store`) keeps the parsed corpus and the indexed data
  for every process, so an app restart or a worker reads them instead of parsing again.
* the run registry and the :class:`~hbnlab.jobs.LocalProcessRunner` are one per app process
  and data home (``st.cache_resource``); the jobs themselves live in the registry on disk, so a
  reload, a second tab or an app restart sees the same jobs.

All heavy work (EM training, tuning grids) is submitted as background jobs
(:mod:`hbnlab.pipeline.tasks`); nothing here runs EM in the script thread.
"""
from __future__ import annotations

import hashlib
import json
import logging
import threading
import uuid
from pathlib import Path

import pandas as pd
import streamlit as st

from hbnlab import bounds
from hbnlab._validation import HbnlabError
from hbnlab.app import views
from hbnlab.app.uploads import hide_server_paths, safe_file_name  # noqa: F401 - pages use services.*
from hbnlab.app.views import export as export_view
from hbnlab.app.views import learn as learn_view
from hbnlab.app.views.corpus import config_corpus_label
from hbnlab.jobs.records import RegistryError
from hbnlab.jobs.spec import canonical_json
from hbnlab.pipeline import corpus_spec as CS
from hbnlab.pipeline import tasks as T
from hbnlab.pipeline.config import STRUCTURE_ALGORITHMS, ExperimentConfig, check_table_size

_log = logging.getLogger(__name__)

#: Group of every workbench job (one workspace per data home: a second tab sees the same jobs).
JOB_GROUP = "workbench"
TASK_MODULE = "hbnlab.pipeline.tasks"
UPLOAD_TYPES = ("csv", "tsv", "tab", "jsonl", "ndjson", "parquet", "pq", "zip")
#: Worker processes of the runner (the machine has 2 cores).
MAX_WORKERS = bounds.env_integer(bounds.MAX_WORKERS, 2)


# --------------------------------------------------------------------------- data home, jobs
def data_home() -> Path:
    """``$HBNLAB_DATA_HOME``, else ``~/.cache/hbnlab``."""
    return CS.data_home()


@st.cache_resource(show_spinner=False)
def _job_client(home: str):
    # One registry + runner per app process and data home.  hbnlab.jobs.local stops the
    # runner at interpreter exit (running jobs become "interrupted", resumable).
    from hbnlab.jobs import get_runner
    from hbnlab.jobs.registry import RunRegistry

    registry = RunRegistry(Path(home) / "runs")
    runner = get_runner(registry, backend="local", max_workers=MAX_WORKERS)
    return registry, runner


def registry():
    """The run registry (SQLite under ``<data home>/runs``), one per app process."""
    return _job_client(str(data_home()))[0]


def runner():
    """The background runner (worker processes), one per app process."""
    return _job_client(str(data_home()))[1]


def shutdown_jobs(*, interrupt: bool = True) -> None:
    """Stop this process's runner, as an app exit does (running jobs become "interrupted")."""
    _, r = _job_client(str(data_home()))
    r.shutdown(wait=True, interrupt=interrupt)
    _job_client.clear()


def check_tunable(cfg: ExperimentConfig, classes=None) -> None:
    """Refuse, before a job starts, classes the config's validation split cannot score (a
    ValueError naming each class with its reason and what to change on the page)."""
    data = experiment(cfg)
    bad = data.untunable(list(classes) if classes else None)
    if bad:
        listed = "; ".join(f"'{c}': {why}" for c, why in bad.items())
        raise ValueError(f"{len(bad)} class{'' if len(bad) == 1 else 'es'} cannot be scored on the validation "
                         f"split ({data.validation_description()}): {listed}. Remove "
                         f"{'it' if len(bad) == 1 else 'them'} from Classes, or choose k-fold cross-validation.")


class DuplicateJob(Exception):
    """A submission identical to a job that is still queued or running (a form submitted by Enter
    in a number field and then by its button, a double click, a second tab): it is not queued
    again.  ``job_id`` and ``state`` are the earlier job's."""

    def __init__(self, job_id: int, state: str):
        self.job_id, self.state = int(job_id), state
        super().__init__(f"These settings are already {'running' if state == 'running' else 'queued'} as job "
                         f"#{job_id}; no second job was started.")


#: Parameters that differ between two submissions of the same work (where a job keeps its checkpoints).
_NOT_CONTENT = ("checkpoint_dir",)
_SUBMIT_LOCK = threading.Lock()


def job_content(spec) -> str:
    """What a job computes, as canonical JSON: its task, parameters (but the checkpoint directory)
    and seed; its label is left out. Two jobs of equal content give the same result."""
    params = {k: v for k, v in spec.params.items() if k not in _NOT_CONTENT}
    return canonical_json({"kind": spec.kind, "params": params, "random_state": spec.random_state,
                           "module": spec.module})


def _submit_once(spec) -> int:
    """Queue ``spec`` unless a workbench job of the same content (:func:`job_content`) is queued or
    running: that one raises :class:`DuplicateJob`. An active job of the same content gives the same
    result (same settings, same seed), however long ago it was submitted, so there is no time limit;
    a finished one may be run again."""
    content = job_content(spec)
    with _SUBMIT_LOCK:  # two reruns of this process cannot both miss each other's job
        for rec in registry().list(group=JOB_GROUP, states=("queued", "running")):
            if job_content(rec.spec) == content:
                raise DuplicateJob(rec.id, rec.state)
        return runner().submit(spec)


def submit_train(cfg: ExperimentConfig, *, classes=None, classifiers=None, stage: str = "test",
                 label: str | None = None, class_settings: dict | None = None) -> int:
    """Submit a "train" job for ``classes`` x ``classifiers`` (defaults: the config's); a
    validation-stage job on classes the split cannot score is refused first (:func:`check_tunable`).
    ``class_settings``: class -> its own ``n_features`` / ``B`` / ``alpha`` (a tuning job's best
    cell per class, :func:`per_class_settings`).  A submission identical to a queued or running job
    raises :class:`DuplicateJob` instead of starting a second one."""
    from hbnlab.jobs.spec import JobSpec

    if stage == "validation":
        check_tunable(cfg, classes)
    classifiers = list(classifiers or cfg.classifiers)
    for name in classifiers:       # refused before queueing: a table no fit accepts
        if str(name).upper() in STRUCTURE_ALGORITHMS:
            for own in [{}, *(class_settings or {}).values()]:
                check_table_size(name, own.get("B", cfg.structure_params(name)[0]),
                                 own.get("hidden_states", cfg.hidden_states))
    token = uuid.uuid4().hex  # names the job's checkpoint directory (not a modelling choice)
    params = {"config": cfg.to_dict(), "classes": list(classes or []), "classifiers": classifiers, "stage": stage,
              "checkpoint_dir": str(data_home() / "checkpoints" / token[:16])}
    if class_settings:
        params["class_settings"] = {str(c): dict(v) for c, v in class_settings.items()}
    what = ", ".join(classifiers)
    who = ", ".join(classes) if classes else "all classes"
    spec = JobSpec("train", params, label=label or f"train {what} on {who}", group=JOB_GROUP,
                   random_state=cfg.random_state, module=TASK_MODULE)
    return _submit_once(spec)


def submit_tune(cfg: ExperimentConfig, classifier: str, B_values, alpha_values, n_features_values=None,
                classes=None, hidden_states_values=None) -> int:
    """Submit a "tune" job: the grid on the validation split or folds (refused first for classes
    the split cannot score, :func:`check_tunable`); one identical to a queued or running job raises
    :class:`DuplicateJob`."""
    from hbnlab.jobs.spec import JobSpec

    check_tunable(cfg, classes)
    params = {"config": cfg.to_dict(), "classifier": classifier, "B_values": [int(b) for b in B_values],
              "alpha_values": [float(a) for a in alpha_values],
              "n_features_values": [int(n) for n in (n_features_values or [cfg.n_features])],
              "classes": list(classes or [])}
    label = (f"tune {classifier}: B {list(params['B_values'])} x alpha {list(params['alpha_values'])}"
             f" x features {params['n_features_values']}")
    if hidden_states_values:
        params["hidden_states_values"] = [cfg.replace(hidden_states=k).hidden_states  # refused before queueing
                                          for k in hidden_states_values]
        label += f" x hidden states {params['hidden_states_values']}"
    for k in params.get("hidden_states_values", [cfg.hidden_states]):
        check_table_size(classifier, max(params["B_values"]), k)
    spec = JobSpec("tune", params, label=label, group=JOB_GROUP, random_state=cfg.random_state, module=TASK_MODULE)
    return _submit_once(spec)


def list_jobs(kind: str | None = None, states=None) -> list:
    """Job records of the workbench, newest first."""
    recs = registry().list(group=JOB_GROUP, states=states)
    if kind is not None:
        recs = [r for r in recs if r.kind == kind]
    return sorted(recs, key=lambda r: r.id, reverse=True)


def get_job(job_id: int):
    return registry().get(int(job_id))


def cancel_job(job_id: int, expect: tuple[str, int] | None = None) -> None:
    """Request a cancel; the EM loop sees it between iterations (within a second).  ``expect``: the
    ``(state, attempt)`` the page showed; a :class:`~hbnlab.jobs.StaleJobError` when that attempt has
    finished or been replaced since (another tab retried it)."""
    runner().cancel(int(job_id), expect=expect)


def retry_job(job_id: int) -> None:
    """Run a failed / cancelled / interrupted job again (a new attempt of the same id)."""
    runner().retry(int(job_id))


def resume_job(job_id: int) -> None:
    """Resume an interrupted job: finished units are reused from its checkpoint."""
    runner().resume(int(job_id))


def delete_job(job_id: int, expect: tuple[str, int] | None = None) -> None:
    """Delete a finished job; ``expect``: the ``(state, attempt)`` the page showed, a
    :class:`~hbnlab.jobs.StaleJobError` and nothing deleted when the job has changed since."""
    registry().delete(int(job_id), expect=expect)


def job_logs(job_id: int) -> list[str]:
    return [f"[attempt {e.attempt}] {e.message}" for e in registry().logs(int(job_id))]


def job_counts() -> dict:
    return registry().counts(group=JOB_GROUP)


class MissingResultError(HbnlabError, ValueError):
    """A job's stored result (an artifact file) is missing or damaged.  The message names no path of
    the server; the server's log has the registry's own message."""


def read_artifact(digest: str) -> bytes:
    """The bytes of a stored result; :class:`MissingResultError` when it was deleted or damaged."""
    try:
        return registry().read_artifact(digest)
    except (RegistryError, OSError) as exc:
        _log.warning("artifact %s: %s", digest, exc)
        raise MissingResultError(f"a stored result of this job (file {str(digest)[:12]}...) is missing or damaged "
                                 "on the server; train the job again to recreate it") from None


# --------------------------------------------------------------------------- corpus
_PRIMED: dict = {}
_SEEN: set = set()
_PRIME_LOCK = threading.Lock()


@st.cache_resource(show_spinner=False, max_entries=6)
def _corpus(spec_json: str):
    primed = _PRIMED.pop(spec_json, None)
    return primed if primed is not None else CS.corpus_from_spec(json.loads(spec_json))


def load_corpus(cfg: ExperimentConfig, progress=None):
    """The config's corpus (cached and shared; see the module docstring).  Raises CorpusError.

    ``progress(fraction, message)`` is called while a corpus is parsed for the first time in
    this process (cached functions cannot drive a progress bar created outside them, so the
    first load runs here and is handed to the cache).
    """
    spec_json = json.dumps(cfg.corpus_spec(), sort_keys=True)
    if progress is not None and spec_json not in _SEEN:
        with _PRIME_LOCK:
            if spec_json not in _SEEN and spec_json not in _PRIMED:
                _PRIMED[spec_json] = CS.corpus_from_spec(cfg.corpus_spec(), progress=progress)
    corpus = _corpus(spec_json)
    _SEEN.add(spec_json)
    return corpus


def fetch_reuters(progress) -> Path:
    """Download (or find) Reuters-21578 in the cache; verified by SHA-256."""
    from hbnlab.corpus import fetch_reuters21578

    return Path(fetch_reuters21578(progress=progress))


def store_upload(data: bytes, filename: str, options: dict | None = None, progress=None) -> Path:
    """Check an upload with the safe readers, then keep it under the data home.

    The file is parsed first (:func:`hbnlab.corpus.load_upload`, which never half-loads, with
    the reader ``options`` of the config's upload columns), so a bad file raises its CorpusError
    and nothing is stored.  The parse runs in a child process with a memory limit and a deadline
    (:func:`hbnlab.corpus.isolated.check_upload`): a file that blows up takes down that child, not
    the server and every open tab.  Returns the stored path (the worker reads it from there).
    ``progress(fraction, message)`` hears how far the child's parse has come.
    """
    from hbnlab.corpus.isolated import check_upload
    from hbnlab.corpus.progress import as_fractions
    from hbnlab.export.atomic import write_bytes_atomic

    safe = safe_file_name(filename, "upload")
    digest = hashlib.sha256(data).hexdigest()[:16]
    path = data_home() / "uploads" / digest / safe
    checked = (str(path), json.dumps(options or {}, sort_keys=True))
    if checked not in _CHECKED_UPLOADS or not path.is_file():
        check_upload(data, filename, options,
                     progress=None if progress is None else as_fractions(progress, f"Checking {safe}: "))
        if not path.is_file():
            write_bytes_atomic(path, data)
        _CHECKED_UPLOADS.add(checked)
    return path


_CHECKED_UPLOADS: set = set()


@st.cache_data(show_spinner=False, max_entries=8)
def corpus_overview(spec_json: str) -> dict:
    return views.corpus_overview(_corpus(spec_json))


def overview(cfg: ExperimentConfig) -> dict:
    """Counts, class table, labels per document and lengths of the config's corpus."""
    return corpus_overview(json.dumps(cfg.corpus_spec(), sort_keys=True))


def search_documents(cfg: ExperimentConfig, query: str = "", split: str = "all", limit: int = 200) -> pd.DataFrame:
    return _search(json.dumps(cfg.corpus_spec(), sort_keys=True), query, split, limit)


@st.cache_data(show_spinner=False, max_entries=32)
def _search(spec_json: str, query: str, split: str, limit: int) -> pd.DataFrame:
    return views.search_documents(_corpus(spec_json), query, split=split, limit=limit)


@st.cache_resource(show_spinner=False, max_entries=6)
def _doc_index(spec_json: str) -> dict:
    return {d.id: k for k, d in enumerate(_corpus(spec_json).documents)}


def document(cfg: ExperimentConfig, doc_id: str):
    """The document with this id (KeyError naming it otherwise)."""
    spec_json = json.dumps(cfg.corpus_spec(), sort_keys=True)
    corpus = load_corpus(cfg)
    k = _doc_index(spec_json).get(doc_id)
    if k is None:
        raise KeyError(f"document id {doc_id!r} is not in corpus {corpus.name!r}")
    return corpus.documents[k]


# --------------------------------------------------------------------------- experiment data
#: The config fields that decide the indexed data (the cache key of :func:`experiment`).
_DATA_FIELDS = ("corpus", "synthetic_seed", "synthetic_size", "synthetic_model", "reuters_dir", "upload_path",
                "upload_text_column",
                "upload_labels_column", "upload_split_column", "upload_id_column", "upload_title_column",
                "upload_encoding", "upload_newsgroup_strip",
                "stopwords", "stemming", "min_df", "selection", "categories", "n_categories", "validation", "cv",
                "random_state")


def _experiment_key(cfg: ExperimentConfig) -> str:
    return json.dumps({k: v for k, v in cfg.to_dict().items() if k in _DATA_FIELDS}, sort_keys=True)


@st.cache_resource(show_spinner=False, max_entries=4)
def _experiment(key: str):
    cfg = ExperimentConfig.from_dict(json.loads(key))
    return T.prepare_experiment(cfg, corpus=_corpus(json.dumps(cfg.corpus_spec(), sort_keys=True)))


def experiment(cfg: ExperimentConfig):
    """Indexed corpus + term scores for the config (cached and shared)."""
    return _experiment(_experiment_key(cfg))


@st.cache_data(show_spinner=False, max_entries=64)
def _feature_table(key: str, label: str, n_features: int, scope: str) -> pd.DataFrame:
    return views.feature_table(_experiment(key), label, n_features, scope)


def feature_score_format(scores) -> str:
    """The printf format of the Features table's score column (:func:`views.features.score_format`)."""
    return views.score_format(scores)


def feature_table(cfg: ExperimentConfig, label: str) -> pd.DataFrame:
    """The selected terms of ``label`` with their scores and document frequencies."""
    return _feature_table(_experiment_key(cfg), label, cfg.n_features, cfg.scope)


@st.cache_data(show_spinner=False, max_entries=32)
def _feature_overview(key: str, n_features: int, scope: str) -> pd.DataFrame:
    return views.selected_terms_overview(_experiment(key), n_features, scope)


def feature_overview(cfg: ExperimentConfig) -> pd.DataFrame:
    """One column per class: its selected terms, best first."""
    return _feature_overview(_experiment_key(cfg), cfg.n_features, cfg.scope)


@st.cache_data(show_spinner=False, max_entries=256)
def _structure(key: str, label: str, algorithm: str, B: int, alpha: float, n_features: int, scope: str,
               tree_terms: int, children_select: str) -> dict:
    model = T.build_structure(_experiment(key), label, algorithm, B, alpha, n_features, scope, tree_terms,
                              children_select)
    tree = model.tree
    return {"dot": views.model_dot(tree, model.children, model.children_rule), "text": tree.to_text(),
            "tree": tree.to_dict(), "summary": views.model_summary(tree, model.children, model.children_rule)}


def structure(cfg: ExperimentConfig, label: str, algorithm: str | None = None) -> dict:
    """The network (structure only, no EM) a tree learner fits for ``label`` with the config's
    algorithm, B, alpha, terms in the tree and naive-Bayes children rule: ``{"dot", "text", "tree",
    "summary"}`` (:func:`hbnlab.pipeline.tasks.build_structure`)."""
    algorithm = algorithm or cfg.algorithm
    B, alpha = cfg.structure_params(algorithm)
    return _structure(_experiment_key(cfg), label, algorithm, B, alpha, cfg.n_features, cfg.scope, cfg.tree_terms,
                      cfg.children_select)


def tree_dot(dot: str, left_to_right: bool) -> str:
    """DOT source laid out left to right (legible for wide trees) or top-down."""
    return views.dot_layout(dot, "LR" if left_to_right else "TB")


# --------------------------------------------------------------------------- trained models
def reuters_available() -> bool:
    """Whether Reuters-21578 can be read without a download ($HBNLAB_REUTERS_DIR or the cache)."""
    from hbnlab.corpus import CorpusError

    try:
        return (CS.resolve_reuters_dir(None, download=False) / "reut2-000.sgm").is_file()
    except (CorpusError, OSError):
        return False


def preset_changes(name: str, cfg: ExperimentConfig) -> dict:
    """The config changes of preset ``name`` (:data:`hbnlab.pipeline.config.PRESETS`) for the current
    config: the preset's corpus only in place of the built-in synthetic one (and when it is
    available); an upload or Reuters stays the corpus."""
    from hbnlab.pipeline.config import PRESETS

    preset = PRESETS[name]
    changes = dict(preset.changes)
    if preset.corpus == "reuters" and cfg.corpus == "synthetic" and reuters_available():
        changes.update(corpus="reuters", reuters_dir="")
    return changes


def finished_train_jobs() -> list:
    return [r for r in list_jobs("train") if r.state == "done" and r.result]


def _job_config(rec) -> ExperimentConfig | None:
    try:
        return ExperimentConfig.from_dict(rec.spec.params["config"])
    except (KeyError, TypeError, ValueError):
        return None


def job_on_corpus(rec, cfg: ExperimentConfig) -> bool:
    """Whether job ``rec`` read the same documents as ``cfg`` (its corpus spec is the same)."""
    job_cfg = _job_config(rec)
    return job_cfg is not None and job_cfg.corpus_spec() == cfg.corpus_spec()


def job_corpus_label(rec) -> str:
    """The corpus job ``rec`` was trained on, in words."""
    job_cfg = _job_config(rec)
    return "unknown corpus" if job_cfg is None else config_corpus_label(job_cfg)












































# --------------------------------------------------------------------------- export










# --------------------------------------------------------------------------- tuning












# --------------------------------------------------------------------------- evaluation tables














# --------------------------------------------------------------------------- explain / export helpers
MODEL_SUFFIX = "hbnlab"
BN_FILES = export_view.BN_FILES
MODEL_FORMAT_NOTE = ("hbnlab model files (.hbnlab: JSON + arrays in a ZIP, no pickle) with the indexing settings "
                     "and vocabulary: hbnlab.export.load_model(path).predict_proba_texts([...]) classifies raw text.")






# --------------------------------------------------------------------------- Learn page
@st.cache_data(show_spinner=False, max_entries=32)
def lesson(settings: learn_view.LessonSettings) -> learn_view.Lesson:
    """The three traces on the teaching corpus.  EM runs here, in the script thread, because the
    corpus has 16 documents and 8 terms (a few restarts take milliseconds); real training goes to
    background jobs."""
    return learn_view.build_lesson(settings)


@st.cache_data(show_spinner=False, max_entries=32)
def lesson_default_document(settings: learn_view.LessonSettings) -> int:
    return learn_view.most_uncertain_document(lesson(settings))


@st.cache_data(show_spinner=False, max_entries=64)
def lesson_inference(settings: learn_view.LessonSettings, doc: int):
    """The inference trace of teaching document ``doc`` under the lesson's fitted parameters."""
    return learn_view.run_inference(lesson(settings), int(doc))


__all__ = [n for n in dir() if not n.startswith("_") and n not in (
    "annotations", "hashlib", "json", "os", "re", "threading", "uuid", "pd", "st", "Path")]
