"""Issue 38 item 5 in the report: one-of-n accuracy beside breakeven in the ranking table, CSV,
Markdown and HTML, and n/a with the reason when documents have no or several categories."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hbnlab.export import report as R
from hbnlab.export.report import ExperimentResult


def _result(Y, S):
    Y = np.asarray(Y, bool)
    return ExperimentResult(["a", "b", "c"], ["NB", "SVM"], Y, {"NB": np.asarray(S, float),
                                                                "SVM": np.asarray(S, float)[:, ::-1].copy()})


SINGLE = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]]
SCORES = [[0.9, 0.2, 0.1], [0.6, 0.5, 0.0], [0.1, 0.1, 0.3], [0.4, 0.3, 0.1]]


def test_single_label_accuracy_in_every_form():
    res = _result(SINGLE, SCORES)
    ranking = R.ranking_frame(res)
    assert list(ranking.columns[:3]) == ["micro breakeven", "macro breakeven", "accuracy"]
    assert ranking.loc["NB", "accuracy"] == pytest.approx(75.0)  # document 2 goes to a
    assert ranking.loc["SVM", "accuracy"] == 0.0  # reversed columns: every document wrong
    assert "accuracy" in R.tables_csv(res)["ranking.csv"].splitlines()[0]
    md = R.markdown(res)
    assert R.accuracy_note(res).startswith("Accuracy: one-of-n, each document given the category with the highest")
    assert R.md_escape(R.accuracy_note(res)) in md
    html = R.build_report(res, include_plotlyjs=False)
    assert 'id="accuracy-note"' in html and "75.0" in html


def test_multi_label_accuracy_is_na_with_the_reason():
    Y = [[1, 1, 0], [0, 1, 0], [0, 0, 0], [1, 0, 0]]
    res = _result(Y, SCORES)
    ranking = R.ranking_frame(res)
    assert all(math.isnan(v) for v in ranking["accuracy"])
    note = R.accuracy_note(res)
    assert note.startswith("Accuracy: n/a, 1 of 4 documents have none of the 3 classes, 1 have several")
    assert R.markdown(res).count(R.md_escape(note)) == 1
