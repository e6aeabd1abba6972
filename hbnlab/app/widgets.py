"""The input controls and table formats the pages share: Previous / Next step controls, the class and
validation pickers, a selectbox driven by a clicked table row, and the formats of the result tables.

Corpus data (ids, titles, class names, terms, file names) and messages that quote it reach
Markdown elements only through :func:`md_escape` (:mod:`hbnlab.export.escape`), which pages use
as ``widgets.md_escape``.
"""
from __future__ import annotations

import streamlit as st

from hbnlab.app import state
from hbnlab.app.views.compare import p_text, signed_text
from hbnlab.export.escape import md_escape
from hbnlab.pipeline.config import CV_MAX, ExperimentConfig


# --------------------------------------------------------------------------- steps
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


# --------------------------------------------------------------------------- table formats
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



__all__ = ["md_escape", "step_controls", "step_control_key", "class_picker", "validation_picker", "validation_notice",
           "table_height", "per_class_columns", "forget", "follow_row", "points_styler"]
