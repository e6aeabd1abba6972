"""Validation tuning through the catalogue's grids (SVM's C, KNN's k and weighting) and the
Table 4.10 row syntax, on a small synthetic corpus."""
from __future__ import annotations

import pytest

from hbnlab.corpus import make_synthetic_corpus
from hbnlab.experiments import reproduce as rep
from hbnlab.experiments import thesis
from hbnlab.models.catalog import learner
from hbnlab.pipeline.data import prepare


@pytest.fixture(scope="module")
def data():
    return prepare(make_synthetic_corpus(n_documents=400, n_classes=3, random_state=0), n_categories=3)


def test_parse_rows_reads_all_and_refuses_nonsense():
    assert rep.parse_rows("NB:30, KNN:all,SVM") == [("NB", 30), ("KNN", None), ("SVM", 30)]
    for bad in ("KNN:0", "KNN:many", "KNN:-5"):
        with pytest.raises(ValueError, match="integer >= 1 or 'all'"):
            rep.parse_rows(bad)


def test_grids_live_in_the_catalogue():
    assert set(learner("KNN").tuning) == {"k", "weighting"}
    assert learner("SVM").tuning["C"] == tuple(sorted(learner("SVM").tuning["C"]))  # ties -> the smallest C
    assert learner("NB").tuning == {}


def test_tuning_scores_every_combination_and_breaks_ties_by_grid_order(data):
    grid = {"k": (3, 5), "weighting": ("tf", "tfidf")}
    best, curve = thesis.tune_on_validation(data, "KNN", 20, grid=grid)
    assert list(curve) == ["k=3, weighting=tf", "k=3, weighting=tfidf", "k=5, weighting=tf", "k=5, weighting=tfidf"]
    top = max(curve.values())
    first = next(label for label, v in curve.items() if v == top)
    assert thesis.tuning_label(best) == first
    # the same numbers as scoring a combination directly
    js = thesis.tunable_indices(data)
    direct = thesis.run_row(data, "KNN", 20, params=best, stage="validation", category_indices=js)["micro"]
    assert direct == top


def test_a_learner_without_a_grid_is_named(data):
    with pytest.raises(ValueError, match="no tuning grid.*'SVM'.*'KNN'"):
        thesis.tune_on_validation(data, "NB", 20)


def test_table_rows_tune_only_what_the_row_does_not_fix(data):
    res = thesis.reproduce_table_4_10(data, [("KNN", None), ("SVM", 20)], row_params={("KNN", None): {"k": 5}})
    knn, svm = res["rows"]
    assert knn["n_features"] == "all" and knn["params"]["k"] == 5 and knn["params"]["weighting"] in ("tf", "tfidf")
    assert set(knn["tuning"]) == {"tf", "tfidf"}
    assert svm["params"]["C"] in learner("SVM").tuning["C"] and len(svm["tuning"]) == 6
    assert "KNN (all)" in thesis.format_table(res)


def test_knn_is_offered_wherever_the_catalogue_is_read():
    from hbnlab.export.model_io.registry import REGISTRY
    from hbnlab.models.catalog import NEIGHBOUR_ROWS
    from hbnlab.pipeline.config import CLASSIFIERS

    assert "KNN" in CLASSIFIERS  # the workbench's Training page lists these
    assert "KNNBinaryClassifier" in REGISTRY  # model files
    assert "KNN" in NEIGHBOUR_ROWS  # --extra-rows
