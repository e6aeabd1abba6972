"""The thesis protocol end to end through the CLI (Reuters; slow, runs in CI)."""
import json

import pytest

from hbnlab.cli import main


@pytest.mark.slow
def test_reproduce_table_4_10_baseline_rows(reuters_path, tmp_path, capsys):
    out = tmp_path / "t410.json"
    rc = main(["reproduce", "table-4.10", "--reuters-dir", str(reuters_path), "--rows", "NB:30,SVM:30",
               "--json", str(out), "--n-jobs", "1"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "Table 4.10" in text and "ours / paper" in text
    doc = json.loads(out.read_text())
    assert doc["corpus"]["n_train"] in (7769, 7770) and doc["corpus"]["n_test"] in (3018, 3019)
    rows = {(r["classifier"], r["n_features"]): r for r in doc["rows"]}
    nb, svm = rows[("NB", 30)], rows[("SVM", 30)]
    assert set(nb["per_class"]) == {"earn", "acq", "money-fx", "grain", "crude", "trade", "interest", "ship",
                                    "wheat", "corn"}
    for row in (nb, svm):
        for key in ("micro", "macro", "paper_micro", "paper_macro", "seconds"):
            assert key in row
        # the acceptance band: within 2 points of the thesis's micro and macro breakeven
        assert abs(row["micro"] - row["paper_micro"]) <= 2.0, row
        assert abs(row["macro"] - row["paper_macro"]) <= 2.0, row
    # SVM beats NB at 30 features, as in the thesis (86.9 vs 83.1)
    assert svm["micro"] > nb["micro"]


def test_unknown_target_is_a_clean_error(capsys):
    rc = main(["reproduce", "table-9.99", "--reuters-dir", "/nonexistent"])
    assert rc == 2
    assert "unknown target" in capsys.readouterr().err


@pytest.mark.slow
def test_thesis_micro_is_the_positive_weighted_mean_of_its_per_class_breakevens(reuters_corpus):
    """Evidence for the micro definition we use by default: applied to the thesis's own per-class
    row and the ModApte test positives, it gives the thesis's micro row for 6 of its 7 rows.
    Both sides are printed rounded to 0.1, so they can differ by up to 0.05 + 0.05 = 0.1."""
    import numpy as np

    from hbnlab.experiments import paper_values as pv

    per_cat = reuters_corpus.summary()["per_category"]
    n = np.array([per_cat[c]["test"] for c in pv.THESIS_CLASSES], dtype=float)
    close = 0
    for vals in pv.TABLE_4_10.values():
        weighted = float(np.dot(vals[:10], n) / n.sum())
        close += abs(weighted - vals[10]) <= 0.1 + 1e-9
        assert abs(np.mean(vals[:10]) - vals[11]) <= 0.1 + 1e-9  # macro: the plain mean
    assert close >= 6
