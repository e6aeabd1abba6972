"""The workbench's job widgets: the pickers of a finished job and of one trained model, the live job
table with its actions (cancel, retry, resume, delete) and log, the live EM traces of a running job,
and the note and refusal of a submission.

A picker follows the newest job and pins an older one when the user chooses it; its widget key names
the newest job (:func:`job_picker_key`), so a browser still reporting an older list cannot pin it.
"""
from __future__ import annotations

import time
from collections import Counter

import streamlit as st

from hbnlab.app import charts, job_client, job_outputs, state, views
from hbnlab.app.page import corpus_description, readable_errors, show_error, synthetic_notice
from hbnlab.app.views.jobs import empty_jobs_text, run_settings
from hbnlab.export.escape import md_escape
from hbnlab.jobs import JobNotFound, StaleJobError

ACTIVE = ("queued", "running")


# --------------------------------------------------------------------------- pickers
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
        other = "" if job_client.job_on_corpus(r, cfg) else f" · other corpus: {job_client.job_corpus_label(r)}"
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
    if not job_client.job_on_corpus(by_id[chosen], cfg):
        other = md_escape(job_client.job_corpus_label(by_id[chosen]))
        st.warning(f"Job #{chosen} was trained on another corpus ({other}) "
                   f"than the current one ({corpus_description(cfg)}).", icon=":material/swap_horiz:")
    return chosen


def job_picker_key(key: str, newest: int) -> str:
    """The widget key of :func:`job_picker`'s selectbox ``key`` while job ``newest`` is the newest."""
    return f"{key}@{int(newest)}"


def unit_picker(outputs, *, key: str, label: str = "Model") -> str:
    """Select one trained unit ``"class|classifier"`` of a train job."""
    return st.selectbox(label, outputs.columns, key=key, format_func=lambda k: " · ".join(job_outputs.unit_parts(k)))


def finished_job_outputs(key: str):
    """Pick a finished training job (shared selection across the result pages) and load its
    outputs; stops the page with a hint when there is none yet.  Returns ``(job_id, outputs)``."""
    done = job_client.finished_train_jobs()
    job_id = job_picker(done, key=key, session_key=state.EVAL_JOB)
    if job_id is None:
        st.info("No finished training job yet: train one on the Training page.")
        st.stop()
    with readable_errors():
        out = job_outputs.train_outputs(job_id)
    synthetic_notice(out.synthetic)
    return job_id, out


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
                 on_click=destroy, args=(job_client.cancel_job, jid, shown)) and not message:
        st.toast(f"Cancel requested for job #{jid}")
    if c3.button("Retry", key=f"{key}_retry", disabled=rec.state not in ("failed", "cancelled", "interrupted"),
                 icon=":material/replay:"):
        job_client.retry_job(jid)
        st.toast(f"Job #{jid} queued again")
    if c4.button("Resume", key=f"{key}_resume", disabled=rec.state != "interrupted", icon=":material/play_arrow:"):
        job_client.resume_job(jid)
        st.toast(f"Job #{jid} resumed")
    if c5.button("Delete", key=f"{key}_delete", disabled=rec.state in ACTIVE, icon=":material/delete:",
                 on_click=destroy, args=(job_client.delete_job, jid, shown)) and not message:
        st.rerun(scope="app")
    with st.expander(f"Log of job #{jid}"):
        lines = job_client.job_logs(jid)
        if rec.error:
            st.error(md_escape(rec.error.strip().splitlines()[-1]))
        st.code("\n".join(lines[-200:]) or "(no log lines yet)", language=None)


def job_table(*, kind: str | None = None, key: str = "jobs", actions: bool = True, limit: int = 30) -> None:
    """The live job table: state, progress bar, restart / iteration / log-likelihood, elapsed,
    estimated remaining; cancel, retry, resume and delete.  Refreshed by a fragment every
    second while jobs are active (every 5 s otherwise, to notice jobs from another tab)."""
    try:
        active = any(r.state in ACTIVE for r in job_client.list_jobs(kind))
    except Exception as exc:  # noqa: BLE001 - a broken registry is shown, not raised
        show_error(exc)
        return

    @st.fragment(run_every=1.0 if active else 5.0)
    def _table():
        records = job_client.list_jobs(kind)[:limit]
        now_active = {r.id for r in records if r.state in ACTIVE}
        seen = st.session_state.get(f"{key}_active")
        st.session_state[f"{key}_active"] = now_active
        if seen is not None and seen ^ now_active:
            # a job finished (refresh what depends on it) or started (the sidebar's job count
            # refreshes often only on a page run that saw active jobs)
            st.rerun(scope="app")
        if not records:
            others = Counter(r.kind for r in job_client.list_jobs()) if kind else {}  # where the other jobs are
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
    if not any(r.state in ACTIVE for r in job_client.list_jobs("train")):
        return

    @st.fragment(run_every=1.0)
    def _plot():
        recs = [r for r in job_client.list_jobs("train") if r.state == "running"]
        if not recs:
            st.caption("Live EM traces appear here while a training job runs.")
            return
        rec = recs[0]
        series = job_client.registry().traces(rec.id)
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
            rec = job_client.get_job(jid)
        except Exception:  # noqa: BLE001 - a deleted registry: the note says what it knew
            rec = None
    if rec is None or rec.state in ("queued", "running"):
        st.success(text)
    elif rec.state == "done":
        st.success(f"Job #{jid} finished: its results are below.", icon=":material/check_circle:")
    else:
        st.warning(f"Job #{jid} ended {rec.state}" + (f": {md_escape(str(rec.error))[:300]}" if rec.error else "."),
                   icon=":material/error:")


def submit_job(submit, *args, **kwargs) -> tuple[int, str | None]:
    """``submit(*args, **kwargs)`` (:func:`job_client.submit_train` or :func:`job_client.submit_tune`):
    ``(job id, None)`` for a new job; for settings already queued or running, the earlier job's id and
    the message that says so (:class:`job_client.DuplicateJob`), so a second Enter or click starts nothing."""
    try:
        return submit(*args, **kwargs), None
    except job_client.DuplicateJob as dup:
        return dup.job_id, str(dup)


def wait_note(job_id: int) -> None:
    st.info(f"Job #{job_id} is running in the background; its progress is in the table below.",
            icon=":material/hourglass_top:")
