"""The number of terms as a tuning dimension per class: the row syntax ``NAME:30/100/all``, the
choice on validation (checked against the validation rows it is made from), rows with a category ->
terms mapping, and ``--param`` settings."""
from __future__ import annotations

import numpy as np
import pytest

from hbnlab.corpus import make_synthetic_corpus
from hbnlab.experiments import reproduce as rep
from hbnlab.experiments import thesis
from hbnlab.pipeline.data import prepare


@pytest.fixture(scope="module")
def data():
    return prepare(make_synthetic_corpus(n_documents=500, n_classes=4, random_state=3), n_categories=4)


def test_row_syntax_lists_candidates():
    assert rep.parse_rows("HBN-OR:30/100/all, NB:5") == [("HBN-OR", (30, 100, None)), ("NB", 5)]
    with pytest.raises(ValueError, match="repeat"):
        rep.parse_rows("NB:30/30")
    with pytest.raises(ValueError, match="integer >= 1 or 'all'"):
        rep.parse_rows("NB:30/zero")


def test_settings_parse_and_go_only_to_rows_that_have_them():
    from hbnlab.cli.common import CLIError, parse_param_items

    assert parse_param_items(["alpha=0", "B=9", "note=x y"]) == {"alpha": 0, "B": 9, "note": "x y"}
    with pytest.raises(CLIError, match="KEY=VALUE"):
        parse_param_items(["alpha"])
    per_row = rep.table_4_10_rows_settings([("NB", 30), ("HBN-OR", 30)], {"alpha": 0.0, "N0": 0.5})
    assert per_row == {("NB", 30): {"N0": 0.5}, ("HBN-OR", 30): {"alpha": 0.0}}
    with pytest.raises(ValueError, match=r"no row's learner has the setting\(s\) \['C'\]"):
        rep.table_4_10_rows_settings([("NB", 30)], {"C": 1.0})
    with pytest.raises(ValueError, match="clustering"):  # a setting the name fixes is not offered
        rep.table_4_10_rows_settings([("HBN-OR", 30)], {"clustering": "avg"})


def test_each_class_takes_its_best_candidate_ties_to_the_first(data):
    candidates = (5, 20, None)
    chosen, curve = thesis.choose_terms_per_class(data, "NB", candidates)
    assert list(curve) == ["5", "20", "all"]
    for c in data.categories:
        direct = [thesis.run_row(data, "NB", nf, stage="validation")["per_class"][c] for nf in candidates]
        assert [curve[k]["per_class"][c] for k in curve] == direct
        assert chosen[c] == candidates[int(np.argmax(direct))]  # argmax: the first of equal maxima


def test_a_per_class_row_fits_each_class_with_its_own_terms(data):
    mapping = dict(zip(data.categories, (5, 20, 5, None)))
    row = thesis.run_row(data, "NB", mapping, stage="test")
    assert row["n_features"] == "per class" and row["n_features_per_class"] == mapping  # None: every term
    for c, nf in mapping.items():
        assert row["per_class"][c] == thesis.run_row(data, "NB", nf, stage="test")["per_class"][c]


def test_table_rows_with_candidates_record_the_choice(data):
    res = thesis.reproduce_table_4_10(data, [("NB", (5, 20)), ("NB", 20)])
    tuned, fixed = res["rows"]
    assert tuned["n_features"] == "5/20" and set(tuned["n_features_per_class"].values()) <= {5, 20}
    assert set(tuned["terms_tuning"]) == {"5", "20"}
    # every class that chose 20 has the fixed row's breakeven
    for c, nf in tuned["n_features_per_class"].items():
        if nf == 20:
            assert tuned["per_class"][c] == fixed["per_class"][c]
    assert "NB (5/20)" in thesis.format_table(res)


def test_the_per_class_row_of_a_saved_result_is_found_or_named_missing(data):
    import json

    res = rep.table_4_10(data, rows=[("NB", 5), ("NB", (5, 10))], n_jobs=1)
    saved = json.loads(json.dumps(res, default=str))
    row = thesis.per_class_terms_row(saved, "t.json")
    assert row["n_features"] == "5/10" and row["n_features_per_class"] == res["rows"][1]["n_features_per_class"]
    with pytest.raises(ValueError, match="t.json: no row with terms chosen per class"):
        thesis.per_class_terms_row({"rows": saved["rows"][:1]}, "t.json")


def test_tuned_tree_rows_choose_terms_then_b_and_alpha(data):
    res = rep.table_4_10(data, rows=[("HBN-OR", (5, 10))], tune=True, n_restarts=2, n_jobs=1,
                         settings={"alpha": 0.0})
    row = res["rows"][0]
    assert row["n_features"] == "5/10" and set(row["n_features_per_class"].values()) <= {5, 10}
    assert {"B", "alpha"} <= set(res["tuning"]["HBN-OR"]) and row["params"]["alpha"] == res["tuning"]["HBN-OR"]["alpha"]


def test_cli_refuses_an_unknown_setting_before_reading_the_corpus(capsys):
    from hbnlab.cli.main import main

    code = main(["reproduce", "table-4.10", "--corpus", "/nonexistent/corpus", "--rows", "NB:30", "--param", "C=1"])
    assert code == 2
    assert "--param: no row's learner has the setting(s) ['C']" in capsys.readouterr().err
