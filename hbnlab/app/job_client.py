"""The workbench's background jobs: the job client (submit, list, cancel, retry, resume, delete), the
refusal of a submission identical to an active job, a job's logs and stored results, and which corpus
a job read.  What a finished job produced is :mod:`hbnlab.app.job_outputs`, which calls this module.

The run registry and the :class:`~hbnlab.jobs.LocalProcessRunner` are one per app process and data
home (``st.cache_resource``); the jobs themselves live in the registry on disk, so a reload, a second
tab or an app restart sees the same jobs.  All heavy work (EM training, tuning grids) is submitted as
background jobs (:mod:`hbnlab.pipeline.tasks`); nothing here runs EM in the script thread.
"""
from __future__ import annotations

import logging
import threading
import uuid
from pathlib import Path

import streamlit as st

from hbnlab import bounds
from hbnlab._validation import HbnlabError
from hbnlab.app import corpus_data
from hbnlab.app.views.corpus import config_corpus_label
from hbnlab.jobs.records import RegistryError
from hbnlab.jobs.spec import canonical_json
from hbnlab.pipeline.config import STRUCTURE_ALGORITHMS, ExperimentConfig, check_table_size

_log = logging.getLogger(__name__)

#: Group of every workbench job (one workspace per data home: a second tab sees the same jobs).
JOB_GROUP = "workbench"
TASK_MODULE = "hbnlab.pipeline.tasks"
#: Worker processes of the runner (the machine has 2 cores).
MAX_WORKERS = bounds.env_integer(bounds.MAX_WORKERS, 2)


# --------------------------------------------------------------------------- the job client
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
    return _job_client(str(corpus_data.data_home()))[0]


def runner():
    """The background runner (worker processes), one per app process."""
    return _job_client(str(corpus_data.data_home()))[1]


def shutdown_jobs(*, interrupt: bool = True) -> None:
    """Stop this process's runner, as an app exit does (running jobs become "interrupted")."""
    _, r = _job_client(str(corpus_data.data_home()))
    r.shutdown(wait=True, interrupt=interrupt)
    _job_client.clear()


def check_tunable(cfg: ExperimentConfig, classes=None) -> None:
    """Refuse, before a job starts, classes the config's validation split cannot score (a
    ValueError naming each class with its reason and what to change on the page)."""
    data = corpus_data.experiment(cfg)
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
              "checkpoint_dir": str(corpus_data.data_home() / "checkpoints" / token[:16])}
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
