"""The baseline check: a tree row against NB and SVM with the same terms, a warning when below NB."""
from __future__ import annotations

from hbnlab.evaluation.baseline import baseline_notes
from hbnlab.experiments.thesis import format_table

ROWS = [
    {"classifier": "NB", "n_features": 100, "micro": 64.2},
    {"classifier": "SVM", "n_features": 100, "micro": 70.0},
    {"classifier": "HBN-OR", "n_features": 100, "micro": 61.9},
    {"classifier": "HNB-AVG", "n_features": 100, "micro": 64.2},
    {"classifier": "HBN-DEP", "n_features": 300, "micro": 50.0},
    {"classifier": "NB", "n_features": 300, "micro": 49.9},
]


def test_only_tree_rows_are_checked_against_the_same_terms():
    notes = {(n.classifier, n.n_features): n for n in baseline_notes(ROWS)}
    assert set(notes) == {("HBN-OR", 100), ("HNB-AVG", 100), ("HBN-DEP", 300)}
    assert notes["HBN-OR", 100].below_nb and notes["HBN-OR", 100].svm == 70.0
    assert not notes["HNB-AVG", 100].below_nb  # a tie is not below
    assert not notes["HBN-DEP", 300].below_nb and notes["HBN-DEP", 300].svm is None
    text = notes["HBN-OR", 100].text("validation split")
    assert text.startswith("Warning: HBN-OR (100 terms) is below naive Bayes") and "61.9 against 64.2" in text
    assert "validation split" in text and "SVM 70.0" in text


def test_a_tree_row_without_nb_says_so():
    (note,) = baseline_notes([{"classifier": "HBN-OR", "n_features": 30, "micro": 80.0}])
    assert note.nb is None and not note.below_nb and "train NB beside it" in note.text()


def test_the_cli_table_prints_the_check():
    rows = [{**r, "per_class": {"a": r["micro"]}, "seconds": 1.0} for r in ROWS[:3]]
    out = format_table({"rows": rows})
    assert "Baseline check" in out and "Warning: HBN-OR (100 terms) is below naive Bayes" in out
