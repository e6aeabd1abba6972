"""The Learn page's lessons: the traces of EM, inference and structure learning on the teaching corpus
(:mod:`hbnlab.app.views.learn`), cached per settings."""
from __future__ import annotations

import streamlit as st

from hbnlab.app.views import learn as learn_view


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
