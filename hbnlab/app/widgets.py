"""Reusable Streamlit pieces: the page frame, the corpus badge, pickers and the live job table.

Corpus data (ids, titles, class names, terms, file names) and messages that quote it reach
Markdown elements only through :func:`md_escape` (:mod:`hbnlab.export.escape`), which pages use
as ``widgets.md_escape``.
"""
from __future__ import annotations

import time
from collections import Counter
from contextlib import contextmanager

import streamlit as st

from hbnlab.app import job_outputs, services, state, views
from hbnlab.app.uploads import hide_server_paths
from hbnlab.app.views.compare import p_text, signed_text
from hbnlab.app.views.jobs import empty_jobs_text, run_settings
from hbnlab.export.escape import md_escape
from hbnlab.jobs import JobNotFound, StaleJobError
from hbnlab.pipeline.config import CV_MAX, ExperimentConfig

ACTIVE = ("queued", "running")


# --------------------------------------------------------------------------- frame
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
    label = md_escape(services.config_corpus_label(cfg))
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
        counts = services.job_counts()
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


def step_controls(key: str, n_steps: int, *, label: str = "Step", first: int = 1, arrow_keys: bool = False) -> int:
    """Previous / Next buttons around a slider over steps ``first .. first + n_steps - 1``; the
    current step is ``st.session_state[key]`` and is returned as a 0-based index.  A stored step
    beyond a new, shorter sequence is clamped to its last step.

    Every control is drawn for one step and carries it: its widget key ends in that step and its
    callback goes to a step fixed when it was drawn (Next of step k: k + 1; the slider: the value
    it was moved to).  A click that reaches the server after the page has moved on (quick clicks
    while a rerun is under way) belongs to a control of the step the user saw: it repeats that
    move, or is ignored once that control is gone, and never moves a second time; a stale value of
    the slider drawn for step k leaves the step alone.

    ``arrow_keys`` (presentation mode): the Left and Right arrow keys press Previous and Next, and a
    progress bar takes the slider's place (a focused slider would take the arrows for itself).
    """
    lo, hi = int(first), int(first) + max(int(n_steps), 1) - 1
    current = min(max(int(st.session_state.get(key, lo)), lo), hi)
    st.session_state[key] = current

    def go(target: int) -> None:
        st.session_state[key] = min(max(int(target), lo), hi)

    def slid(widget_key: str) -> None:
        go(st.session_state[widget_key])

    c1, c2, c3 = st.columns([2, 6, 2] if arrow_keys else [1.4, 7, 1.4], vertical_alignment="bottom")
    c1.button("Previous", key=step_control_key(key, "prev", current), on_click=go, args=(current - 1,),
              disabled=current <= lo, icon=":material/chevron_left:", width="stretch",
              shortcut="Left" if arrow_keys else None)
    if hi == lo:
        c2.caption(f"{label} {lo} (the only one)")
    elif arrow_keys:
        c2.progress((current - lo) / (hi - lo), text=f"{label} {current} of {hi} · arrow keys ← →")
    else:
        slider_key = step_control_key(key, "at", current)
        c2.slider(f"{label} ({lo} to {hi})", min_value=lo, max_value=hi, value=current, key=slider_key,
                  on_change=slid, args=(slider_key,))
    c3.button("Next", key=step_control_key(key, "next", current), on_click=go, args=(current + 1,),
              disabled=current >= hi, icon=":material/chevron_right:", width="stretch",
              shortcut="Right" if arrow_keys else None)
    return current - lo


def step_control_key(key: str, control: str, step: int) -> str:
    """The widget key :func:`step_controls` gives its ``control`` ("prev", "next" or "at", the
    slider) when drawn for ``step``."""
    return f"{key}_{control}_{int(step)}"


def synthetic_notice(synthetic: bool) -> None:
    """The banner every view of synthetic data carries."""
    if synthetic:
        st.warning(f"{views.SYNTHETIC_BADGE}: documents are drawn from a planted hierarchical model "
                   "with pseudo-words; numbers here say nothing about real text.", icon=":material/science:")


#: The workbench field of each reader option a CorpusError may advise changing.
_OPTION_FIELDS = {"encoding": "Encoding"}


def show_error(exc: BaseException) -> None:
    """A reader or settings error as a readable message (never a traceback); a corpus error that
    a reader option fixes names the field of that option."""
    from hbnlab.corpus import CorpusError

    if isinstance(exc, CorpusError) and exc.parameter is not None:
        field = _OPTION_FIELDS.get(exc.parameter, exc.parameter)
        text = exc.advise(f"choose {{suggestion}} in the {field} field")
    else:
        text = str(exc) or type(exc).__name__
    st.error(md_escape(hide_server_paths(text)), icon=":material/error:")  # a stored upload by its name


@contextmanager
def readable_errors(stop: bool = True):
    """Show CorpusError / ValueError / missing-file errors as messages; stop the page."""
    from hbnlab.corpus import CorpusError

    try:
        yield
    except (CorpusError, ValueError, KeyError, FileNotFoundError, NotADirectoryError) as exc:
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
    from hbnlab.corpus import CorpusError

    bar = st.empty() if lazy else st.progress(0.0, text=text)
    failed = None
    try:
        yield lambda f, m: bar.progress(min(1.0, max(0.0, float(f))), text=m)
    except (CorpusError, ValueError, KeyError, FileNotFoundError, NotADirectoryError) as exc:
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
                return services.load_corpus(cfg)
        return services.load_corpus(cfg)


def load_experiment(cfg: ExperimentConfig):
    """Indexed corpus + term scores of ``cfg`` or a readable error and a stopped page."""
    load_corpus(cfg)
    with readable_errors():
        with st.spinner("Indexing and scoring terms ..."):
            return services.experiment(cfg)


# --------------------------------------------------------------------------- pickers
def class_picker(cfg: ExperimentConfig, data, *, key: str, label: str = "Class") -> str:
    """Select the focus class (stored as ``cfg.label``)."""
    cats = data.categories
    current = cfg.label if cfg.label in cats else cats[0]
    choice = st.selectbox(label, cats, index=cats.index(current), key=key)
    if choice != cfg.label:
        state.update_config(label=choice)
    return choice


_HOLD_OUT, _KFOLD = "one validation split", "k-fold cross-validation"


def validation_picker(cfg: ExperimentConfig, *, key: str) -> ExperimentConfig:
    """How tuning holds out documents: the hold-out split (by date when the corpus is dated, else
    stratified) or K-fold cross-validation; a change is stored in the config."""
    c1, c2 = st.columns([2, 1])
    mode = c1.radio("Validation", [_HOLD_OUT, _KFOLD], index=1 if cfg.cv else 0, horizontal=True, key=f"{key}_mode",
                    help="One split: training-0 / validation (the thesis's, by date, when every training document "
                         "is dated; else a seeded stratified split). k-fold: every training document is measured "
                         "once, by a model fitted on the other folds (small corpora).")
    k = c2.number_input("Folds (K)", min_value=2, max_value=CV_MAX, value=cfg.cv or 5, step=1, key=f"{key}_k",
                        disabled=mode == _HOLD_OUT)
    cv = int(k) if mode == _KFOLD else 0
    if cv != cfg.cv:
        cfg = state.update_config(cv=cv)
    return cfg


def validation_notice(data) -> set:
    """A caption on the validation split and a warning naming the classes it cannot score;
    returns those classes."""
    st.caption(f"Validation: {md_escape(data.validation_description())}.")
    bad = data.untunable()
    if bad:
        st.warning(f"{len(bad)} class{'' if len(bad) == 1 else 'es'} cannot be tuned on this split and "
                   f"{'is' if len(bad) == 1 else 'are'} left out: "
                   + "; ".join(f"{md_escape(c)} ({md_escape(why)})" for c, why in bad.items()))
    return set(bad)


def table_height(frame, max_rows: int = 40) -> int:
    """Pixel height that shows every row of ``frame`` (header included) up to ``max_rows``, so the
    micro and macro rows at the bottom of a breakeven table are never hidden behind a scroll."""
    return 35 * (min(len(frame), max_rows) + 1) + 3


def per_class_columns() -> dict:
    """Column formats of a tuning job's per-class table (breakevens in percent, one decimal)."""
    pct = {name: st.column_config.NumberColumn(name, format="%.1f") for name in ("breakeven", "best common cell")}
    return {**pct, "gain": st.column_config.NumberColumn("gain", format="%+.1f"),
            "alpha": st.column_config.NumberColumn("alpha", format="%g")}


def job_picker(jobs, *, key: str, label: str = "Training job", session_key: str | None = None):
    """Select one of ``jobs`` (newest first).

    The picker follows the newest job, so a job that finishes while the page is open becomes the
    selection; choosing an older job pins it (remembered in ``session_key``, shared by the pages
    that pass the same key) until "Follow the newest" is pressed.  A job trained on another corpus
    than the current one is marked in the list and with a warning.

    The selectbox's widget key names the newest job (:func:`job_picker_key`).  When a job
    finishes, the browser goes on reporting the selection of the list it drew before (the job
    that was the newest) until it has drawn the new list, and any rerun it asks for meanwhile (a
    fragment's refresh, a click on another page) carries that value.  On a widget of the same
    key the backend would take it for the user's choice of an older job and pin it; a new key
    per newest job leaves that report to a widget that is no longer on the page."""
    if not jobs:
        return None
    ids = [r.id for r in jobs]
    newest = ids[0]
    pin_key = session_key or f"{key}.pinned"
    pinned = state.recall(pin_key)
    if pinned not in ids:
        pinned = None
    widget_key = job_picker_key(key, newest)
    st.session_state[widget_key] = newest if pinned is None else pinned
    cfg = state.get_config()
    by_id = {r.id: r for r in jobs}

    def fmt(i):
        r = by_id[i]
        other = "" if services.job_on_corpus(r, cfg) else f" · other corpus: {services.job_corpus_label(r)}"
        settings = run_settings(r.spec.params)
        return f"#{r.id} · {r.label}{' · ' + settings if settings else ''}{other}"

    def pin():
        chosen = st.session_state[widget_key]
        state.remember(pin_key, None if chosen == newest else chosen)

    chosen = st.selectbox(label, ids, format_func=fmt, key=widget_key, on_change=pin)
    if pinned is None:
        st.caption("Following the newest finished job; choose another to pin it.")
    else:
        c1, c2 = st.columns([3, 1], vertical_alignment="center")
        c1.caption(f"Pinned to job #{pinned}, the newest finished job for now." if pinned == newest else
                   f"Pinned to job #{pinned}; the newest finished job is #{newest}.")
        c2.button("Follow the newest", key=f"{key}_follow", on_click=state.remember, args=(pin_key, None))
    if not services.job_on_corpus(by_id[chosen], cfg):
        other = md_escape(services.job_corpus_label(by_id[chosen]))
        st.warning(f"Job #{chosen} was trained on another corpus ({other}) "
                   f"than the current one ({corpus_description(cfg)}).", icon=":material/swap_horiz:")
    return chosen


def job_picker_key(key: str, newest: int) -> str:
    """The widget key of :func:`job_picker`'s selectbox ``key`` while job ``newest`` is the newest."""
    return f"{key}@{int(newest)}"


def unit_picker(outputs, *, key: str, label: str = "Model") -> str:
    """Select one trained unit ``"class|classifier"`` of a train job."""
    return st.selectbox(label, outputs.columns, key=key, format_func=lambda k: " · ".join(job_outputs.unit_parts(k)))


def forget(*keys: str) -> None:
    """Drop these widgets' values (an ``on_change`` callback: a choice that changes another
    widget's options starts that widget afresh)."""
    for k in keys:
        st.session_state.pop(k, None)


def follow_row(event, key: str, *, forget: tuple = ()) -> None:
    """Make a row clicked in an ``st.dataframe(on_select="rerun", selection_mode="single-row")`` the
    value of the selectbox ``key`` (whose options are the table's row numbers), once per click: the
    table's selection persists across reruns, so a later choice in the selectbox stands."""
    rows = list(event.selection.rows) if event is not None else []
    seen = f"{key}.clicked"
    if rows and rows[0] != st.session_state.get(seen):
        st.session_state[key] = rows[0]
        for k in forget:
            st.session_state.pop(k, None)
    st.session_state[seen] = rows[0] if rows else None


# --------------------------------------------------------------------------- jobs
def _job_actions(records, key: str) -> None:
    ids = [r.id for r in records]
    if not ids:
        return
    # The picker starts on the newest job and a choice holds only while no newer job comes: a job
    # just submitted is the one Cancel acts on.  Its widget key names the newest job (as
    # job_picker's), so a browser that still reports the old selection cannot pin it.
    newest, pin_key = ids[0], f"{key}_job.pinned"
    pinned = state.recall(pin_key)
    chosen = pinned[1] if pinned and pinned[0] == newest and pinned[1] in ids else newest
    widget_key = job_picker_key(f"{key}_job", newest)
    st.session_state[widget_key] = chosen

    def pin():
        state.remember(pin_key, (newest, st.session_state[widget_key]))

    c1, c2, c3, c4, c5 = st.columns([2, 1, 1, 1, 1], vertical_alignment="bottom")
    jid = c1.selectbox("Job", ids, key=widget_key, format_func=lambda i: f"#{i}", on_change=pin)
    rec = next(r for r in records if r.id == jid)
    refused = f"{key}_refused"
    message = st.session_state.pop(refused, None)  # set by a refused click of this run's callback
    if message:
        st.warning(md_escape(message), icon=":material/sync_problem:")
    shown = (rec.state, rec.attempt)  # what this tab shows: bound to the click, checked by the registry

    def destroy(action, job_id, expect):  # a button callback: runs with the record as it was shown
        try:
            action(job_id, expect=expect)
        except (StaleJobError, JobNotFound) as exc:
            st.session_state[refused] = str(exc)

    if c2.button("Cancel", key=f"{key}_cancel", disabled=rec.state not in ACTIVE, icon=":material/stop:",
                 on_click=destroy, args=(services.cancel_job, jid, shown)) and not message:
        st.toast(f"Cancel requested for job #{jid}")
    if c3.button("Retry", key=f"{key}_retry", disabled=rec.state not in ("failed", "cancelled", "interrupted"),
                 icon=":material/replay:"):
        services.retry_job(jid)
        st.toast(f"Job #{jid} queued again")
    if c4.button("Resume", key=f"{key}_resume", disabled=rec.state != "interrupted", icon=":material/play_arrow:"):
        services.resume_job(jid)
        st.toast(f"Job #{jid} resumed")
    if c5.button("Delete", key=f"{key}_delete", disabled=rec.state in ACTIVE, icon=":material/delete:",
                 on_click=destroy, args=(services.delete_job, jid, shown)) and not message:
        st.rerun(scope="app")
    with st.expander(f"Log of job #{jid}"):
        lines = services.job_logs(jid)
        if rec.error:
            st.error(md_escape(rec.error.strip().splitlines()[-1]))
        st.code("\n".join(lines[-200:]) or "(no log lines yet)", language=None)


def job_table(*, kind: str | None = None, key: str = "jobs", actions: bool = True, limit: int = 30) -> None:
    """The live job table: state, progress bar, restart / iteration / log-likelihood, elapsed,
    estimated remaining; cancel, retry, resume and delete.  Refreshed by a fragment every
    second while jobs are active (every 5 s otherwise, to notice jobs from another tab)."""
    try:
        active = any(r.state in ACTIVE for r in services.list_jobs(kind))
    except Exception as exc:  # noqa: BLE001 - a broken registry is shown, not raised
        show_error(exc)
        return

    @st.fragment(run_every=1.0 if active else 5.0)
    def _table():
        records = services.list_jobs(kind)[:limit]
        now_active = {r.id for r in records if r.state in ACTIVE}
        seen = st.session_state.get(f"{key}_active")
        st.session_state[f"{key}_active"] = now_active
        if seen is not None and seen ^ now_active:
            # a job finished (refresh what depends on it) or started (the sidebar's job count
            # refreshes often only on a page run that saw active jobs)
            st.rerun(scope="app")
        if not records:
            others = Counter(r.kind for r in services.list_jobs()) if kind else {}  # where the other jobs are
            st.caption(empty_jobs_text(kind, others))
            return
        df = views.jobs_frame(records)
        st.dataframe(df, hide_index=True, key=f"{key}_df", column_config={
            "progress": st.column_config.ProgressColumn("progress", min_value=0.0, max_value=1.0, format="percent"),
            "what": st.column_config.TextColumn("what", width="medium"),
            "detail": st.column_config.TextColumn("restart · iteration · log-likelihood", width="large"),
        })
        st.caption(f"Updated {time.strftime('%H:%M:%S')} · jobs run in background worker processes; "
                   "this page stays usable and a reload loses nothing.")
        if actions:
            _job_actions(records, key)

    _table()


def live_em_traces(*, key: str = "live_em") -> None:
    """While a training job runs: the best EM log-likelihood per iteration of each of its
    models so far (the worker writes one point per EM iteration)."""
    from hbnlab.app import charts

    if not any(r.state in ACTIVE for r in services.list_jobs("train")):
        return

    @st.fragment(run_every=1.0)
    def _plot():
        recs = [r for r in services.list_jobs("train") if r.state == "running"]
        if not recs:
            st.caption("Live EM traces appear here while a training job runs.")
            return
        rec = recs[0]
        series = services.registry().traces(rec.id)
        if not series:
            st.caption(f"Job #{rec.id}: waiting for the first EM iteration ...")
            return
        runs = {name.replace("|", " · "): [[v for _, v in pts]] for name, pts in series.items()}
        st.plotly_chart(charts.em_traces(runs, title=f"Job #{rec.id} (running): best log-likelihood per EM "
                                         "iteration"), key=f"{key}_chart")

    _plot()


def submission_note(key: str, message: str | None = None, job_id: int | None = None) -> None:
    """Show the page's last job submission (``message``, Markdown, replaces it) until the next
    one.  A confirmation written only in the run that submitted the job would vanish at the
    next rerun, and the job table reruns the page as soon as a job finishes: a quick job would
    take its own confirmation with it.  With ``job_id`` the note follows the job: "Submitted ..."
    while it is queued or running, then what became of it (a note that says "Submitted" about a
    job that ended long ago misleads)."""
    if message is not None:
        state.remember(key, (message, job_id))
    saved = state.recall(key)
    if not saved:
        return
    text, jid = saved if isinstance(saved, tuple) else (saved, None)
    rec = None
    if jid is not None:
        try:
            rec = services.get_job(jid)
        except Exception:  # noqa: BLE001 - a deleted registry: the note says what it knew
            rec = None
    if rec is None or rec.state in ("queued", "running"):
        st.success(text)
    elif rec.state == "done":
        st.success(f"Job #{jid} finished: its results are below.", icon=":material/check_circle:")
    else:
        st.warning(f"Job #{jid} ended {rec.state}" + (f": {md_escape(str(rec.error))[:300]}" if rec.error else "."),
                   icon=":material/error:")


def points_styler(df, *, signed=(), points=(), p=(), whole=()):
    """``df`` for ``st.dataframe`` with its numbers written as a reader says them (they stay numbers,
    so the columns still sort): differences in points signed, ``"0.0"`` for a zero
    (:func:`hbnlab.app.views.compare.signed_text`), breakevens and the like to one decimal, p-values
    below 0.001 as ``"< 0.001"`` (:func:`hbnlab.app.views.compare.p_text`), counts without decimals,
    and a missing value (None, NaN: an EM iteration count of naive Bayes) blank, never ``"None"``."""
    return (df.style.format(na_rep="")
            .format(signed_text, subset=list(signed))
            .format("{:.1f}", subset=list(points), na_rep="")
            .format(p_text, subset=list(p))
            .format("{:.0f}", subset=list(whole), na_rep=""))


def submit_job(submit, *args, **kwargs) -> tuple[int, str | None]:
    """``submit(*args, **kwargs)`` (:func:`services.submit_train` or :func:`services.submit_tune`):
    ``(job id, None)`` for a new job; for settings already queued or running, the earlier job's id and
    the message that says so (:class:`services.DuplicateJob`), so a second Enter or click starts nothing."""
    try:
        return submit(*args, **kwargs), None
    except services.DuplicateJob as dup:
        return dup.job_id, str(dup)


def wait_note(job_id: int) -> None:
    st.info(f"Job #{job_id} is running in the background; its progress is in the table below.",
            icon=":material/hourglass_top:")


__all__ = ["page_frame", "sidebar_status", "synthetic_notice", "show_error", "readable_errors", "load_corpus",
           "load_experiment", "class_picker", "job_picker", "job_picker_key", "unit_picker", "job_table",
           "corpus_description", "points_styler", "submit_job", "wait_note", "submission_note", "live_em_traces"]


def finished_job_outputs(key: str):
    """Pick a finished training job (shared selection across the result pages) and load its
    outputs; stops the page with a hint when there is none yet.  Returns ``(job_id, outputs)``."""
    from hbnlab.app import services, state

    done = services.finished_train_jobs()
    job_id = job_picker(done, key=key, session_key=state.EVAL_JOB)
    if job_id is None:
        st.info("No finished training job yet: train one on the Training page.")
        st.stop()
    with readable_errors():
        out = job_outputs.train_outputs(job_id)
    synthetic_notice(out.synthetic)
    return job_id, out
