"""A Table 4.10 row of every term says so in its JSON (``"n_features": "all"``, never ``0``), a
class of every term in a per-class mapping is ``null``, and the readers of those files (the text
table, :func:`thesis.per_class_terms_row`) read both the new form and files that wrote ``0``."""
from __future__ import annotations

import json

import pytest

from hbnlab.cli.main import main
from hbnlab.experiments import reproduce as rep
from hbnlab.experiments import thesis


def test_cli_json_of_a_knn_all_row_says_all(tmp_path, capsys):
    out = tmp_path / "t.json"
    code = main(["reproduce", "table-4.10", "--corpus", "synthetic", "--synthetic-size", "300", "--rows",
                 "KNN:all,NB:all,NB:5", "--n-jobs", "1", "--json", str(out)])
    assert code == 0, capsys.readouterr().err
    rows = json.loads(out.read_text())["rows"]
    assert [(r["classifier"], r["n_features"]) for r in rows] == [("KNN", "all"), ("NB", "all"), ("NB", 5)]
    printed = capsys.readouterr().out
    assert "KNN (all)" in printed and "NB (all)" in printed and "NB (5)" in printed


@pytest.fixture(scope="module")
def data():
    from hbnlab.corpus import make_synthetic_corpus
    from hbnlab.pipeline.data import prepare

    return prepare(make_synthetic_corpus(n_documents=300, n_classes=3, random_state=5), n_categories=3)


def test_per_class_terms_of_every_term_are_null_and_read_back(data):
    mapping = {c: None if k == 0 else 5 for k, c in enumerate(data.categories)}
    saved = json.loads(json.dumps({"rows": [thesis.run_row(data, "NB", mapping, stage="test")]}))
    row = saved["rows"][0]
    assert row["n_features_per_class"] == mapping  # null, not 0
    assert f'"n_features_per_class": {{"{data.categories[0]}": null' in json.dumps(saved)
    # every class scored with its recorded terms gives the recorded breakeven again
    back = thesis.per_class_terms_row(saved, "t.json")
    again = thesis.run_row(data, "NB", back["n_features_per_class"], stage="test")
    assert again["per_class"] == row["per_class"]
    chosen = rep.table_4_10(data, rows=[("NB", (5, None))], n_jobs=1)["rows"][0]
    assert chosen["n_features"] == "5/all" and set(chosen["n_features_per_class"].values()) <= {5, None}


def test_files_written_with_zero_still_read_as_every_term(data):
    row = thesis.run_row(data, "NB", None, stage="test")
    old = {**row, "n_features": 0}
    assert "NB (all)" in thesis.format_table({"rows": [old]})
    assert thesis.format_table({"rows": [old]}) == thesis.format_table({"rows": [row]})
    legacy = {"rows": [{**row, "n_features": "per class", "n_features_per_class": {c: 0 for c in data.categories}}]}
    assert set(thesis.per_class_terms_row(legacy)["n_features_per_class"].values()) == {None}
