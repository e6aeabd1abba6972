"""The tuning entry points' full results on small synthetic corpora, pinned value for value: the
three-phase tuning of the HBN rows (:func:`hbnlab.experiments.reproduce.three_phase_tuning`), the
catalogue grids (:func:`hbnlab.experiments.thesis.tune_on_validation`) and the terms per class
(:func:`hbnlab.experiments.thesis.choose_terms_per_class`).  They share one scoring of validation
cells and one set of tie rules (:class:`hbnlab.experiments.thesis.ValidationCells`,
:func:`hbnlab.experiments.thesis.best_of`); most grids below hold ties, so the rules decide."""
from __future__ import annotations

import pytest

from hbnlab.corpus import make_synthetic_corpus
from hbnlab.experiments import reproduce, thesis
from hbnlab.pipeline.data import prepare

#: The tree rows' tables by EM, as when these values were pinned (the default objective refits them).
EM = {"objective": "joint"}
#: The synthetic corpora of the tuning tests (test_choice_rules.py, test_terms_per_class.py):
#: name -> (documents, classes, seed, categories scored).
CORPORA = {"small": (600, 4, 1, 2), "three": (400, 3, 0, 3), "four": (500, 4, 3, 4)}


@pytest.fixture(scope="module")
def corpora():
    return {name: prepare(make_synthetic_corpus(n_documents=d, n_classes=k, random_state=seed), n_categories=n)
            for name, (d, k, seed, n) in CORPORA.items()}


def _cells(out):
    return [(h["B"], h["alpha"], h.get("hidden_states", 2), h["micro"]) for h in out["history"]]


def test_three_phase_tuning_results(corpora):
    data = corpora["small"]
    lines = []
    out = reproduce.three_phase_tuning(data, "HBN-OR", n_features=8, params={"n_restarts": 2, **EM},
                                       log=lines.append)
    assert (out["B"], out["alpha"], "hidden_states" in out) == (3, 0.0, False)
    assert _cells(out) == [(7, 0.0, 2, 85.42), (7, 0.05, 2, 85.42), (7, 0.1, 2, 85.42), (7, 0.15, 2, 85.42),
                           (7, 0.2, 2, 85.42), (3, 0.0, 2, 88.89), (5, 0.0, 2, 86.46), (9, 0.0, 2, 85.19),
                           (3, 0.016667, 2, 88.89), (3, 0.033333, 2, 88.89)]
    assert lines[0] == "    HBN-OR B=7 alpha=0: validation micro 85.42" and len(lines) == 10


def test_three_phase_tuning_results_with_a_k_grid(corpora):
    data = corpora["small"]
    out = reproduce.three_phase_tuning(data, "HBN-AVG", n_features=8, params={"n_restarts": 2, **EM}, B_grid=[3, 12],
                                       k_grid=(2, 3, "auto"))
    assert (out["B"], out["alpha"], out["hidden_states"]) == (7, 0.0, 2)
    assert _cells(out) == [(7, 0.0, 2, 87.85), (7, 0.03, 2, 87.85), (7, 0.06, 2, 87.85), (7, 0.09, 2, 87.85),
                           (7, 0.12, 2, 87.85), (3, 0.0, 2, 84.72), (12, 0.0, 2, 85.19), (7, 0.01, 2, 87.85),
                           (7, 0.02, 2, 87.85), (3, 0.0, 3, 82.64), (7, 0.0, 3, 87.85), (12, 0.0, 3, None),
                           (3, 0.0, "auto", 84.72), (7, 0.0, "auto", 87.85), (12, 0.0, "auto", 85.19)]
    assert out["history"][11]["not_fitted"] == "a node under 12 parents of 3 states has 531441 rows, above 2 ** 12"


def test_three_phase_tuning_results_with_terms_per_class(corpora):
    data = corpora["four"]
    terms = dict(zip(data.categories, (5, 10, 5, 10)))
    out = reproduce.three_phase_tuning(data, "HBN-DEP", n_features=terms, params={"n_restarts": 1, **EM})
    assert (out["B"], out["alpha"]) == (3, 0.0)
    assert [h["micro"] for h in out["history"]] == [85.0, 85.0, 83.0, 85.0, 85.0, 85.0, 85.0, 87.0, 86.0, 82.9,
                                                     84.25, 82.25]


def test_tune_on_validation_results(corpora):
    data = corpora["three"]
    best, curve = thesis.tune_on_validation(data, "KNN", 20)
    assert best == {"k": 10, "weighting": "tf"}
    assert list(curve.values()) == [90.05, 89.97, 89.87, 91.14, 91.14, 91.14, 93.67, 93.67, 93.67, 93.67, 93.67,
                                    93.67, 92.41, 92.41, 93.67, 93.67]
    assert list(curve)[6] == "k=10, weighting=tf"
    assert thesis.tune_on_validation(data, "SVM", 30) == (
        {"C": 0.01}, {0.01: 96.2, 0.03: 96.2, 0.1: 96.2, 0.3: 96.2, 1.0: 94.94, 3.0: 93.67})


def test_choose_terms_per_class_results(corpora):
    data = corpora["four"]
    chosen, curve = thesis.choose_terms_per_class(data, "NB", (5, 20, None))
    assert chosen == dict.fromkeys(data.categories, None)
    assert curve["20"] == {"micro": 90.0, "per_class": {"alpha": 91.43, "bravo": 91.67, "charlie": 90.48,
                                                        "delta": 85.0}}
    chosen, curve = thesis.choose_terms_per_class(data, "HBN-OR", (5, 10), params={"n_restarts": 1, "alpha": 0.0, **EM},
                                                  random_state=3)
    assert chosen == {"alpha": 10, "bravo": 5, "charlie": 5, "delta": 5}   # charlie: a tie at 85.71
    assert curve == {"5": {"micro": 83.83, "per_class": {"alpha": 82.86, "bravo": 85.42, "charlie": 85.71,
                                                         "delta": 81.67}},
                     "10": {"micro": 82.03, "per_class": {"alpha": 83.9, "bravo": 80.56, "charlie": 85.71,
                                                          "delta": 76.67}}}


def test_best_of_breaks_ties_by_the_prefer_keys_then_by_the_order_listed():
    score = {"a": 1.0, "b": 2.0, "c": 0.5, "d": 2.0}.get
    assert thesis.best_of("abcd", score) == "b"
    assert thesis.best_of("abcd", score, ord) == "d"
    near = {9: 1.0, 5: 1.0, 3: 1.0, 12: 0.0}.get
    assert thesis.best_of([3, 5, 9, 12], near, thesis.nearer_7) == 5      # 5 and 9 equally near 7: listed first
    assert thesis.best_of([12, 9, 5, 3], near, thesis.nearer_7) == 9
    assert thesis.best_of([0.2, 0.1, 0.3], lambda a: 1.0, thesis.smaller) == 0.1
