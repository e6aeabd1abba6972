"""The units table of a report (issue 38, minor): naive Bayes has no EM, so its EM columns are missing
values -- an empty cell, never ``None`` -- and a count (EM iterations) prints as an integer, never
``13.000``, in the Markdown table and in the CSV file alike."""
from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd

from hbnlab.export.report import markdown_table, table_csv

UNITS = pd.DataFrame([
    {"class": "earn", "classifier": "HBN-OR", "breakeven (%)": 91.25, "seconds": 0.5, "EM iterations": 13,
     "converged": True, "log-likelihood": -1234.5},
    {"class": "earn", "classifier": "NB", "breakeven (%)": 90.0, "seconds": 0.01, "EM iterations": None,
     "converged": None, "log-likelihood": None},
])


def _cells(md: str) -> list[dict]:
    head, _, *rows = md.splitlines()
    names = [c.strip() for c in head.strip("|").split("|")]
    return [dict(zip(names, (c.strip() for c in r.strip("|").split("|")))) for r in rows]


def test_markdown_units_table_leaves_nb_em_columns_empty_and_counts_whole():
    hbn, nb = _cells(markdown_table(UNITS, "{:.3f}", whole=["EM iterations"]))
    assert hbn["EM iterations"] == "13" and hbn["converged"] == "True" and hbn["log-likelihood"] == "-1234.500"
    assert nb["EM iterations"] == nb["converged"] == nb["log-likelihood"] == ""
    assert next(v for k, v in hbn.items() if k.startswith("breakeven")) == "91.250"


def test_none_is_an_empty_cell_without_whole_columns_too():
    md = markdown_table(pd.DataFrame({"a": ["x", None], "b": [1.0, np.nan]}))
    assert "None" not in md and _cells(md)[1] == {"a": "", "b": ""}


def test_csv_units_table_writes_counts_whole_and_missing_values_empty():
    rows = list(csv.DictReader(io.StringIO(table_csv(UNITS, whole=["EM iterations"]))))
    assert rows[0]["EM iterations"] == "13" and rows[1]["EM iterations"] == ""
    assert rows[1]["converged"] == rows[1]["log-likelihood"] == ""
    assert rows[0]["log-likelihood"] == "-1234.5000"                  # a float column keeps its decimals


def test_a_whole_column_the_table_lacks_is_ignored():
    assert markdown_table(UNITS[["class"]], whole=["EM iterations"]).splitlines()[0] == "| class |"
