"""The tie rules of the choices that decide reported figures: the three-phase tuning's B, alpha and
hidden states (:func:`hbnlab.experiments.reproduce.three_phase_tuning`), the catalogue grids of
:func:`hbnlab.experiments.thesis.tune_on_validation`, the terms per class of
:func:`hbnlab.experiments.thesis.choose_terms_per_class` and the sweep's per-category / global choice
(:func:`hbnlab.experiments.sweep.choose_configs`).

Every test holds an exact tie in the validation score, either scripted (a stand-in for
``thesis.run_row`` that returns hand-written breakevens) or real (two settings that fit the same
model: a number of terms above the vocabulary and every term, k nearest neighbours with k above the
training set, a one-term tree whose B and alpha change nothing), and asserts which candidate wins.
Where the grid allows, the winner is not its first entry, so "always the first" fails too."""
from __future__ import annotations

import pytest

from hbnlab.corpus import make_synthetic_corpus
from hbnlab.experiments import reproduce, thesis
from hbnlab.experiments import sweep as sw
from hbnlab.pipeline.data import prepare


@pytest.fixture(scope="module")
def small():
    return prepare(make_synthetic_corpus(n_documents=600, random_state=1), n_categories=2)


@pytest.fixture(scope="module")
def three():
    return prepare(make_synthetic_corpus(n_documents=400, n_classes=3, random_state=0), n_categories=3)


# --------------------------------------------------------------------------- three-phase tuning
@pytest.fixture
def scripted(monkeypatch):
    """Install validation micro breakevens by (B, alpha, hidden_states) for three_phase_tuning;
    unlisted settings score 50.  Returns the list of the settings scored, in order."""
    calls = []

    def install(table):
        def fake_row(data, name, nf, *, params, **kw):
            key = (params["B"], round(params["alpha"], 6), params.get("hidden_states", 2))
            calls.append(key)
            return {"micro": table.get(key, 50.0)}

        monkeypatch.setattr(reproduce.thesis, "run_row", fake_row)
        monkeypatch.setattr(reproduce.thesis, "tunable_indices", lambda data: [0])
        return calls

    return install


def test_each_phase_breaks_a_tie_to_the_smaller_alpha_and_to_the_B_nearer_7(scripted):
    calls = scripted({
        # phase 1 (B = 7, the OR grid): 0.05, 0.10 and 0.20 tie at 75 -> the smallest, 0.05
        (7, 0.0, 2): 70.0, (7, 0.05, 2): 75.0, (7, 0.1, 2): 75.0, (7, 0.15, 2): 72.0, (7, 0.2, 2): 75.0,
        # phase 2 (alpha = 0.05; B = 7 keeps its 75): B = 3 and 9 tie at 76 -> 9, nearer 7
        (3, 0.05, 2): 76.0, (5, 0.05, 2): 74.0, (9, 0.05, 2): 76.0,
        # phase 3 (B = 9, 0.05 +- k * 0.05 / 3; 0.05 keeps its 76): three tie at 77 -> the smallest
        (9, 0.016667, 2): 74.0, (9, 0.033333, 2): 77.0, (9, 0.066667, 2): 77.0, (9, 0.083333, 2): 77.0,
    })
    out = reproduce.three_phase_tuning(None, "HBN-OR")
    assert (out["B"], out["alpha"]) == (9, 0.033333)
    assert "hidden_states" not in out
    # the scores reused from an earlier phase (B = 7 in phase 2, alpha = 0.05 in phase 3) are not refitted
    assert calls == [(7, a, 2) for a in (0.0, 0.05, 0.1, 0.15, 0.2)] + [(3, 0.05, 2), (5, 0.05, 2), (9, 0.05, 2)] \
        + [(9, a, 2) for a in (0.016667, 0.033333, 0.066667, 0.083333)]


@pytest.mark.parametrize("B_grid, tied, chosen", [
    (None, (3, 9), 9),        # nearer 7 wins over the grid's first entry
    (None, (5, 9), 5),        # equally near 7: the smaller B
    (None, (7, 9), 7),        # the first phase's score at B = 7 takes part
    ((3, 12), (3, 12), 3),    # |3 - 7| < |12 - 7|
    ((10, 4), (4, 10), 4),    # equally near 7: the smaller B, whatever the order of the grid
])
def test_the_second_phase_breaks_a_tie_in_B_to_the_B_nearer_7_then_the_smaller(scripted, B_grid, tied, chosen):
    table = {(7, 0.0, 2): 70.0}                      # phase 1 chooses alpha = 0
    table.update({(b, 0.0, 2): 80.0 for b in tied})  # phase 2's tie; phase 3 finds nothing better at alpha > 0
    scripted(table)
    out = reproduce.three_phase_tuning(None, "HBN-OR", B_grid=B_grid)
    assert (out["B"], out["alpha"]) == (chosen, 0.0)


@pytest.mark.parametrize("k_grid, chosen", [((2, 3), (12, 2)), ((3, 2), (7, 3))])
def test_the_fourth_phase_breaks_a_tie_to_the_earlier_k_of_the_grid_before_the_B_nearer_7(scripted, k_grid, chosen):
    # phases 1-3: B = 12 (81), alpha = 0.  Phase 4 (top B 12: 3 ** 7 = 2187 rows fit under 2 ** 12):
    # k = 3 reaches 81 at B = 7, nearer 7 than the binary B = 12 -- the grid's order of k decides first
    scripted({(7, 0.0, 2): 80.0, (12, 0.0, 2): 81.0, (7, 0.0, 3): 81.0, (5, 0.0, 3): 81.0})
    out = reproduce.three_phase_tuning(None, "HBN-OR", B_grid=(3, 5, 7, 9, 12), k_grid=k_grid)
    assert (out["B"], out["hidden_states"], out["alpha"]) == (*chosen, 0.0)


def test_three_phase_tuning_on_a_real_tie_keeps_B_7_alpha_0_and_the_first_k(small):
    # one term: a tree without hidden nodes, so every B, alpha and number of states fits the same
    # classifier and every validation score ties exactly
    out = reproduce.three_phase_tuning(small, "HBN-OR", n_features=1, params={"n_restarts": 2}, k_grid=(3, 2))
    scored = [h["micro"] for h in out["history"] if h["micro"] is not None]
    assert len(scored) == 12 and len(set(scored)) == 1
    # k = 3 is scored at B = 3 and 5 (3 ** 7 > 2 ** 9 is not fitted), the binary k = 2 keeps B = 7:
    # the earlier k of the grid wins the tie, then the B nearer 7
    assert (out["B"], out["alpha"], out["hidden_states"]) == (5, 0.0, 3)
    binary = reproduce.three_phase_tuning(small, "HBN-OR", n_features=1, params={"n_restarts": 2})
    assert (binary["B"], binary["alpha"]) == (7, 0.0)


# --------------------------------------------------------------------------- catalogue grids
def test_tune_on_validation_breaks_a_scripted_tie_to_the_combination_listed_first(monkeypatch):
    micro = {(1, "tf"): 70.0, (1, "tfidf"): 80.0, (3, "tf"): 80.0, (3, "tfidf"): 75.0}
    monkeypatch.setattr(thesis, "tunable_indices", lambda data, log=None: [0])
    monkeypatch.setattr(thesis, "run_row", lambda data, name, nf, *, params, **kw:
                        {"micro": micro[params["k"], params["weighting"]]})
    best, curve = thesis.tune_on_validation(None, "KNN", 20, grid={"k": (1, 3), "weighting": ("tf", "tfidf")})
    assert best == {"k": 1, "weighting": "tfidf"}
    assert curve == {"k=1, weighting=tf": 70.0, "k=1, weighting=tfidf": 80.0, "k=3, weighting=tf": 80.0,
                     "k=3, weighting=tfidf": 75.0}
    best, _ = thesis.tune_on_validation(None, "KNN", 20, grid={"weighting": ("tfidf", "tf"), "k": (3, 1)})
    assert best == {"weighting": "tfidf", "k": 1}   # the order of the grid, not of the values


@pytest.mark.parametrize("ks, chosen", [((1, 5000, 9000), 5000), ((1, 9000, 5000), 9000)])
def test_tune_on_validation_breaks_a_real_tie_to_the_value_listed_first(three, ks, chosen):
    # 280 training documents: k = 5000 and k = 9000 both take every one as a neighbour
    best, curve = thesis.tune_on_validation(three, "KNN", 20, grid={"k": ks})
    assert curve[5000] == curve[9000] > curve[1]
    assert best == {"k": chosen}


# --------------------------------------------------------------------------- terms per class
def test_choose_terms_per_class_breaks_a_scripted_tie_to_the_candidate_listed_first(monkeypatch):
    class Data:
        categories = ["a", "b", "c", "d"]

    per_class = {10: {"a": 80.0, "b": 85.0, "d": 70.0}, 30: {"a": 90.0, "b": 85.0, "d": 60.0},
                 100: {"a": 90.0, "b": 60.0, "d": 70.0}}
    monkeypatch.setattr(thesis, "tunable_indices", lambda data, log=None: [0, 1, 3])   # c: no validation positive
    monkeypatch.setattr(thesis, "run_row", lambda data, name, nf, **kw:
                        {"micro": 0.0, "per_class": per_class[nf]})
    chosen, _ = thesis.choose_terms_per_class(Data(), "NB", (10, 30, 100))
    assert chosen == {"a": 30, "b": 10, "c": 10, "d": 10}
    chosen, _ = thesis.choose_terms_per_class(Data(), "NB", (100, 30, 10))
    assert chosen == {"a": 100, "b": 30, "c": 100, "d": 100}


def test_choose_terms_per_class_breaks_a_real_tie_to_the_candidate_listed_first(three):
    n_terms = len(three.vocabulary)   # every term, counted: the same classifier as None
    for candidates, chosen in (((1, n_terms, None), n_terms), ((1, None, n_terms), None)):
        picked, curve = thesis.choose_terms_per_class(three, "NB", candidates)
        every, counted, one = curve["all"]["per_class"], curve[str(n_terms)]["per_class"], curve["1"]["per_class"]
        assert every == counted and all(every[c] > one[c] for c in three.categories)
        assert picked == {c: chosen for c in three.categories}


# --------------------------------------------------------------------------- the sweep's choice
def _sweep(n_features, choose="per-category"):
    return sw.SweepConfig(clusterings=("avg",), B=(3,), alpha={"avg": (0.0,)}, n_features=n_features, choose=choose)


def _validation(table):
    """(category, clustering, config) -> (breakeven, positives) from category -> ({nf: breakeven}, positives)."""
    return {(c, "avg", (3, 0.0, nf, 2)): (be, n) for c, (bes, n) in table.items() for nf, be in bes.items()}


def test_the_sweep_breaks_a_per_category_tie_between_two_numbers_of_terms_by_grid_order():
    val = _validation({"a": ({20: 0.5, 5: 0.75, 10: 0.75}, 40), "b": ({20: 0.25, 5: 0.5, 10: 0.75}, 10)})
    ch = sw.choose_configs(_sweep((20, 5, 10)), ["a", "b"], val)
    assert ch[("a", "avg")]["config"] == (3, 0.0, 5, 2) and ch[("a", "avg")]["how"] == "per-category"
    assert ch[("a", "avg")]["validation_breakeven"] == 0.75
    assert ch[("b", "avg")]["config"] == (3, 0.0, 10, 2)
    # grid order, not the smaller number: the grid lists the terms as given
    ch = sw.choose_configs(_sweep((20, 10, 5)), ["a", "b"], val)
    assert ch[("a", "avg")]["config"] == (3, 0.0, 10, 2) and ch[("b", "avg")]["config"] == (3, 0.0, 10, 2)


def test_the_sweep_breaks_a_global_micro_tie_between_two_numbers_of_terms_by_grid_order():
    # micro (breakevens weighted by positives): 20 terms (20 + 0) / 50, 5 terms (30 + 0) / 50,
    # 10 terms (20 + 10) / 50 -- 5 and 10 tie; macro would take 10 terms (0.75 against 0.375)
    val = _validation({"a": ({20: 0.5, 5: 0.75, 10: 0.5}, 40), "b": ({20: 0.0, 5: 0.0, 10: 1.0}, 10)})
    for n_features, winner in (((20, 5, 10), 5), ((20, 10, 5), 10)):
        ch = sw.choose_configs(_sweep(n_features, "global"), ["a", "b", "c"], val, untunable={"c": "no positive"})
        assert {k: v["config"][2] for k, v in ch.items()} == {("a", "avg"): winner, ("b", "avg"): winner,
                                                               ("c", "avg"): winner}
        assert ch[("a", "avg")]["how"] == "global" and ch[("c", "avg")]["how"] == "global (not tuned: no positive)"
        assert ch[("a", "avg")]["global_validation_micro"] == 0.6
    # per category, b takes its own 10 terms; the untunable c falls back to the global choice
    ch = sw.choose_configs(_sweep((20, 5, 10)), ["a", "b", "c"], val, untunable={"c": "no positive"})
    assert [ch[(c, "avg")]["config"][2] for c in "abc"] == [5, 10, 5]


def test_the_global_choice_leaves_out_a_configuration_not_fitted_on_a_category():
    # 20 terms: a 0.50 (100 positives), b 0.60 (10) -> micro 0.509; 5 terms not fitted on a (None)
    # and 0.70 on b: pooled over b alone it would read 0.70 and win
    val = _validation({"a": ({20: 0.5, 5: None}, 100), "b": ({20: 0.6, 5: 0.7}, 10)})
    ch = sw.choose_configs(_sweep((20, 5), "global"), ["a", "b"], val)
    assert {k: v["config"][2] for k, v in ch.items()} == {("a", "avg"): 20, ("b", "avg"): 20}
    assert ch[("a", "avg")]["global_validation_micro"] == pytest.approx((50 + 6) / 110)
