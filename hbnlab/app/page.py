"""The frame every page draws: the hand-over to ``app.py``'s navigation, the title and one-shot
messages, the sidebar (the corpus badge, the count of background jobs), the synthetic-data banner, and
reader and settings errors shown as messages that stop the page (never a traceback), around the
corpus and experiment loads.

Corpus data and messages that quote it reach Markdown only through
:func:`~hbnlab.export.escape.md_escape`.
"""
from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

from hbnlab.app import corpus_data, job_client, state, views
from hbnlab.app.uploads import hide_server_paths
from hbnlab.app.views.corpus import config_corpus_label
from hbnlab.corpus import CorpusError
from hbnlab.export.escape import md_escape
from hbnlab.pipeline.config import ExperimentConfig


def _hand_over_to_the_app_navigation() -> None:
    """Rerun through ``app.py`` when Streamlit started this page on its own.

    With a ``pages/`` folder beside the main script, a Streamlit server whose first request opens a
    page by its path (``/corpus?...``, a bookmarked or shared link) runs that page file directly,
    with a file-name sidebar, and keeps doing so for every session until some run calls
    ``st.navigation`` (Streamlit's multipage "v1" mode, ``PagesManager.uses_pages_directory``).
    Clearing the flag and rerunning makes the server run ``app.py``, whose navigation resolves the
    same URL path to the same page.  A session in which ``app.py`` has run is left alone (AppTest
    runs pages this way on purpose).
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory and not st.session_state.get(state.APP_NAVIGATION):
        PagesManager.uses_pages_directory = False
        st.rerun()


def page_frame(title: str, intro: str | None = None) -> ExperimentConfig:
    """Title, one-shot messages and the sidebar corpus badge; returns the session's config."""
    _hand_over_to_the_app_navigation()
    cfg = state.get_config()
    st.title(title)
    if intro:
        st.caption(intro)
    for msg in state.config_warnings():
        st.warning(md_escape(msg))
    flash = state.pop_flash()
    if flash:
        kind, msg = flash
        getattr(st, kind, st.info)(msg)
    sidebar_status(cfg)
    return cfg


def corpus_description(cfg: ExperimentConfig) -> str:
    label = md_escape(config_corpus_label(cfg))
    return f"{label} — {views.SYNTHETIC_BADGE}" if cfg.corpus == "synthetic" else label


def sidebar_status(cfg: ExperimentConfig) -> None:
    """The sidebar's "Current experiment" box.  It is drawn into a placeholder that
    :func:`hbnlab.app.state.set_config` redraws in the same run, so a form that changes the config
    is reflected at once, not one run later."""
    slot = st.sidebar.empty()

    def draw(current: ExperimentConfig) -> None:
        with slot.container():
            _sidebar_body(current)

    draw(cfg)
    state.on_config_change(draw)
    with st.sidebar:
        _sidebar_jobs()


#: Seconds between refreshes of the sidebar's job count while jobs run or wait, and otherwise
#: (to notice a job submitted from another tab or the command line).  Every refresh redraws a
#: part of the page, and a click that lands in a redraw can be lost: an idle page refreshes
#: rarely.
SIDEBAR_REFRESH_ACTIVE, SIDEBAR_REFRESH_IDLE = 2.0, 30.0


def _job_counts() -> tuple[int, int]:
    try:
        counts = job_client.job_counts()
    except Exception:  # noqa: BLE001 - the sidebar must never break a page
        counts = {}
    return counts.get("running", 0), counts.get("queued", 0)


def _sidebar_jobs() -> None:
    """The sidebar's count of running and queued jobs, refreshed on its own (the rest of the page
    reruns only on interaction): every :data:`SIDEBAR_REFRESH_ACTIVE` seconds if jobs were
    active when the page ran, else every :data:`SIDEBAR_REFRESH_IDLE`.  The job table reruns the
    page when a job starts or ends, so a job submitted on a page with the table is counted at
    once."""
    active = any(_job_counts())

    @st.fragment(run_every=SIDEBAR_REFRESH_ACTIVE if active else SIDEBAR_REFRESH_IDLE)
    def _count():
        running, queued = _job_counts()
        if running or queued:
            st.caption(f"Background jobs: {running} running, {queued} queued")

    _count()


def _sidebar_body(cfg: ExperimentConfig) -> None:
    st.markdown("**Current experiment**")
    if cfg.corpus == "synthetic":
        st.warning(f"Corpus: {corpus_description(cfg)}", icon=":material/science:")
    else:
        st.info(f"Corpus: {corpus_description(cfg)}")
    states = "" if cfg.hidden_states == 2 else f" · hidden states: {cfg.hidden_states}"
    st.caption(f"{cfg.n_features} terms per class by {cfg.selection} · learners: {', '.join(cfg.classifiers)}"
               + states)


def synthetic_notice(synthetic: bool) -> None:
    """The banner every view of synthetic data carries."""
    if synthetic:
        st.warning(f"{views.SYNTHETIC_BADGE}: documents are drawn from a planted hierarchical model "
                   "with pseudo-words; numbers here say nothing about real text.", icon=":material/science:")


#: The errors a page shows as a message (a reader's, a setting's, a missing file) instead of a traceback.
READABLE_ERRORS = (CorpusError, ValueError, KeyError, FileNotFoundError, NotADirectoryError)
#: The workbench field of each reader option a CorpusError may advise changing.
_OPTION_FIELDS = {"encoding": "Encoding"}


def show_error(exc: BaseException) -> None:
    """A reader or settings error as a readable message (never a traceback); a corpus error that
    a reader option fixes names the field of that option."""
    if isinstance(exc, CorpusError) and exc.parameter is not None:
        field = _OPTION_FIELDS.get(exc.parameter, exc.parameter)
        text = exc.advise(f"choose {{suggestion}} in the {field} field")
    else:
        text = str(exc) or type(exc).__name__
    st.error(md_escape(hide_server_paths(text)), icon=":material/error:")  # a stored upload by its name


@contextmanager
def readable_errors(stop: bool = True):
    """Show CorpusError / ValueError / missing-file errors as messages; stop the page."""
    try:
        yield
    except READABLE_ERRORS as exc:
        show_error(exc)
        if stop:
            st.stop()


@contextmanager
def progress_task(text: str, *, lazy: bool = False):
    """A progress bar for the block, with the block's reader and settings errors shown as
    messages (as :func:`readable_errors`); yields ``report(fraction, message)``.  The bar is
    removed before the message is shown and the page stops, so no stale bar stays behind.
    ``lazy``: the bar appears at the first report (a block that has nothing to do, such as a
    rerun over an upload already read, draws nothing)."""
    bar = st.empty() if lazy else st.progress(0.0, text=text)
    failed = None
    try:
        yield lambda f, m: bar.progress(min(1.0, max(0.0, float(f))), text=m)
    except READABLE_ERRORS as exc:
        failed = exc
    finally:
        bar.empty()
    if failed is not None:
        show_error(failed)
        st.stop()


def load_corpus(cfg: ExperimentConfig):
    """The corpus of ``cfg`` or a readable error and a stopped page."""
    with readable_errors():
        if cfg.corpus == "reuters":
            with st.spinner("Parsing Reuters-21578 (about 2 s) ..."):
                return corpus_data.load_corpus(cfg)
        return corpus_data.load_corpus(cfg)


def load_experiment(cfg: ExperimentConfig):
    """Indexed corpus + term scores of ``cfg`` or a readable error and a stopped page."""
    load_corpus(cfg)
    with readable_errors():
        with st.spinner("Indexing and scoring terms ..."):
            return corpus_data.experiment(cfg)
