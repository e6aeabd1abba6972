"""Session state of the workbench: the one experiment config, mirrored into the URL.

Pages call :func:`get_config` at the top and :func:`set_config` after their widgets; the config
lives in ``st.session_state`` (shared by all pages of a browser session) and in
``st.query_params`` (so a reload or a bookmarked URL restores it).  The dataclass itself is
:class:`hbnlab.pipeline.config.ExperimentConfig` (kept free of Streamlit so tests and tasks can use it).
"""
from __future__ import annotations

import streamlit as st

from hbnlab.pipeline.config import ExperimentConfig

# Session-state keys (one place, so pages never spell them differently).
CONFIG = "hbnlab.config"
CONFIG_WARNINGS = "hbnlab.config_warnings"
LAST_TRAIN_JOB = "hbnlab.last_train_job"
#: The tuning job the Tuning page's picker is pinned to (None: it follows the newest); only a choice
#: in the picker sets it, never a submission.
TUNE_JOB = "hbnlab.tune_job"
EVAL_JOB = "hbnlab.eval_job"
#: The document Explain is asked to show (by its picker or another page) and the ``(job, unit,
#: document)`` it showed last (another model then starts at its own ranking's first document).
EXPLAIN_DOC = "hbnlab.explain_doc"
EXPLAIN_SHOWN = "hbnlab.explain_shown"
FLASH = "hbnlab.flash"
#: The last job submission of the Training / Tuning page (see job_widgets.submission_note).
TRAIN_NOTE = "hbnlab.train_note"
TUNE_NOTE = "hbnlab.tune_note"
#: What "Use these settings" loaded (shown once on the Training page).
SETTINGS_NOTE = "hbnlab.settings_note"
#: Key prefixes of the settings widgets of the pages other than Training (Features, Structure):
#: "Use these settings" forgets them, so each page builds them from the loaded config.
SETTINGS_WIDGET_PREFIXES = ("f_", "s_", "B_", "alpha_")
CONFIG_LISTENER = "hbnlab.config_listener"
#: Set once ``app.py`` has built the navigation in this session.
APP_NAVIGATION = "hbnlab.app_navigation"

#: URL keys the workbench owns besides the config fields (pages' own selections; ``present``: the
#: Learn page's presentation mode).
EXTRA_QUERY_KEYS = ("job", "doc", "present")


def get_config() -> ExperimentConfig:
    """The session's config; on the first run of a session it is read from the URL."""
    cfg = st.session_state.get(CONFIG)
    if cfg is None:
        cfg, problems = ExperimentConfig.from_query(dict(_query_items()))
        st.session_state[CONFIG] = cfg
        st.session_state[CONFIG_WARNINGS] = problems
    sync_query_params(cfg)
    return cfg


def set_config(cfg: ExperimentConfig) -> ExperimentConfig:
    """Store ``cfg`` for every page and mirror it into the URL."""
    if not isinstance(cfg, ExperimentConfig):
        raise TypeError(f"set_config needs an ExperimentConfig, got {type(cfg).__name__}")
    st.session_state[CONFIG] = cfg
    sync_query_params(cfg)
    listener = st.session_state.get(CONFIG_LISTENER)
    if listener is not None:
        listener(cfg)
    return cfg


def on_config_change(fn) -> None:
    """Call ``fn(cfg)`` whenever :func:`set_config` stores a config during this run (the page
    frame redraws the sidebar with it); the page frame sets it afresh on every run."""
    st.session_state[CONFIG_LISTENER] = fn


def load_config(cfg: ExperimentConfig) -> ExperimentConfig:
    """Store ``cfg`` from a widget callback (before the page draws anything): like
    :func:`set_config`, without the sidebar listener of the previous run (the page frame draws the
    sidebar from the stored config anyway)."""
    st.session_state.pop(CONFIG_LISTENER, None)
    return set_config(cfg)


def update_config(**changes) -> ExperimentConfig:
    """``set_config(get_config().replace(**changes))`` when something changed."""
    cfg = get_config()
    new = cfg.replace(**changes)
    if new != cfg:
        set_config(new)
    return new


def change_corpus(**changes) -> ExperimentConfig:
    """Like :func:`update_config` for corpus fields; a different corpus forgets the chosen
    categories and focus class (they belong to the old corpus)."""
    cfg = get_config()
    new = cfg.replace(**changes)
    if new.corpus_spec() != cfg.corpus_spec():
        new = new.replace(categories=(), label="")
    if new != cfg:
        set_config(new)
    return new


def reset_config(cfg: ExperimentConfig | None = None) -> ExperimentConfig:
    return set_config(cfg or ExperimentConfig())


def _query_items():
    qp = st.query_params
    return [(k, qp.get_all(k)) for k in qp.keys()]


def sync_query_params(cfg: ExperimentConfig) -> None:
    """Make the URL's config parameters equal ``cfg.to_query()`` (others are left alone)."""
    wanted = cfg.to_query()
    qp = st.query_params
    fields = set(ExperimentConfig.__dataclass_fields__)
    for key in list(qp.keys()):
        if key in fields and key not in wanted:
            del qp[key]
    for key, value in wanted.items():
        if qp.get(key) != value:
            qp[key] = value


def config_warnings() -> list[str]:
    """Messages about URL parameters that were ignored (shown once by the page frame)."""
    return st.session_state.pop(CONFIG_WARNINGS, []) or []


def flash(message: str, kind: str = "success") -> None:
    """A message shown once at the top of the next page run (after ``st.switch_page``); it is
    Markdown, so corpus data in it must be escaped by the caller (``widgets.md_escape``)."""
    st.session_state[FLASH] = (kind, message)


def pop_flash():
    return st.session_state.pop(FLASH, None)


def remember(key: str, value) -> None:
    st.session_state[key] = value


def recall(key: str, default=None):
    return st.session_state.get(key, default)


__all__ = ["ExperimentConfig", "get_config", "set_config", "update_config", "change_corpus", "reset_config",
           "sync_query_params",
           "load_config", "config_warnings", "flash", "pop_flash", "remember", "recall", "on_config_change", "CONFIG",
           "LAST_TRAIN_JOB", "TUNE_JOB", "EVAL_JOB", "EXPLAIN_DOC", "TRAIN_NOTE", "TUNE_NOTE",
           "SETTINGS_NOTE", "SETTINGS_WIDGET_PREFIXES", "EXPLAIN_SHOWN"]
