"""``reproduce table-4.10 --tune`` tunes each HBN row with the row's own number of terms."""
from __future__ import annotations

import pytest

from hbnlab.corpus import make_synthetic_corpus
from hbnlab.experiments import thesis
from hbnlab.experiments.reproduce import three_phase_tuning
from hbnlab.pipeline.data import prepare


@pytest.fixture(scope="module")
def small():
    return prepare(make_synthetic_corpus(n_documents=600, random_state=1), n_categories=2)


def test_every_score_is_the_validation_row_at_the_requested_number_of_terms(small):
    out = three_phase_tuning(small, "HBN-OR", n_features=8, params={"n_restarts": 2})
    first = out["history"][0]
    again = thesis.run_row(small, "HBN-OR", 8, params={"n_restarts": 2, "B": first["B"], "alpha": first["alpha"]},
                           stage="validation", category_indices=thesis.tunable_indices(small))
    assert again["micro"] == first["micro"]
    at30 = three_phase_tuning(small, "HBN-OR", n_features=30, params={"n_restarts": 2})
    assert [h["micro"] for h in at30["history"]] != [h["micro"] for h in out["history"]]
    assert out["B"] in (3, 5, 7, 9) and out["alpha"] >= 0


def test_a_B_grid_replaces_the_thesis_grid_in_the_second_phase(small):
    out = three_phase_tuning(small, "HBN-OR", n_features=8, params={"n_restarts": 2}, B_grid=[12, 3])
    tried = [h["B"] for h in out["history"]]
    # phase 1 at B = 7, phase 2 at the grid's B (7 reused), phase 3 at the chosen B
    assert set(tried) <= {3, 7, 12} and {3, 12} <= set(tried)
    assert out["B"] in (3, 7, 12)
    thesis_grid = three_phase_tuning(small, "HBN-OR", n_features=8, params={"n_restarts": 2})
    assert {h["B"] for h in thesis_grid["history"]} <= {3, 5, 7, 9}


@pytest.mark.parametrize("grid", [[], [1, 5], ["x"], [2.5]])
def test_bad_B_grids_are_named(grid):
    from hbnlab.experiments.reproduce import check_B_grid

    with pytest.raises(ValueError, match="B grid"):
        check_B_grid(grid)


def test_a_k_grid_adds_a_fourth_phase_over_B_at_the_chosen_alpha(small):
    plain = three_phase_tuning(small, "HBN-OR", n_features=8, params={"n_restarts": 2})
    out = three_phase_tuning(small, "HBN-OR", n_features=8, params={"n_restarts": 2}, k_grid=(2, 3))
    # the first three phases do not see the grid: the same history, then k = 3 at every B of phase 2
    assert out["history"][:len(plain["history"])] == plain["history"]
    fourth = out["history"][len(plain["history"]):]
    assert [(h["B"], h["alpha"], h["hidden_states"]) for h in fourth] == [(b, plain["alpha"], 3) for b in (3, 5, 7, 9)]
    # 3 ** 7 and 3 ** 9 rows are above the binary search's largest table, 2 ** 9: not fitted
    assert [h["micro"] is None for h in fourth] == [False, False, True, True]
    assert fourth[2]["not_fitted"] == "a node under 7 parents of 3 states has 2187 rows, above 2 ** 9"
    again = thesis.run_row(small, "HBN-OR", 8, params={"n_restarts": 2, "B": 5, "alpha": plain["alpha"],
                                                       "hidden_states": 3},
                           stage="validation", category_indices=thesis.tunable_indices(small))
    assert again["micro"] == fourth[1]["micro"]
    binary = max(h["micro"] for h in plain["history"] if (h["B"], h["alpha"]) == (plain["B"], plain["alpha"]))
    best3 = max(h["micro"] for h in fourth[:2])
    assert out["hidden_states"] == (3 if best3 > binary else 2)
    assert out["alpha"] == plain["alpha"] and "hidden_states" not in plain


def test_the_fourth_phase_skips_tables_too_large_to_fit_and_breaks_ties_to_the_earlier_k(monkeypatch):
    from hbnlab.bn.params import ParameterError
    from hbnlab.experiments import reproduce

    def fake_row(data, name, nf, *, params, **kw):
        k, B, a = params.get("hidden_states", 2), params["B"], params["alpha"]
        if k == "auto" and B == 12:
            raise ParameterError("node 0 ('c'): its parents have 2097152 configurations; at most 1048576")
        micro = {(2, 7): 80.0, (2, 9): 81.0, (3, 5): 81.0, (3, 7): 79.0, ("auto", 5): 81.0}.get((k, B), 70.0)
        return {"micro": micro - a}

    monkeypatch.setattr(reproduce.thesis, "run_row", fake_row)
    monkeypatch.setattr(reproduce.thesis, "tunable_indices", lambda data: [0])
    out = reproduce.three_phase_tuning(None, "HBN-OR", k_grid=(2, 3, "auto"), B_grid=[3, 5, 7, 9, 12])
    # phases 1-3 choose B = 9, alpha = 0 (81.0); k = 3 and auto reach 81.0 at B = 5: the tie goes to k = 2
    assert (out["B"], out["alpha"], out["hidden_states"]) == (9, 0.0, 2)
    skipped = [h for h in out["history"] if h.get("micro") is None]
    # 3 ** 9 and 3 ** 12 rows are above 2 ** 12; the search's table at B = 12 is refused by the estimator
    assert [(h["B"], h["hidden_states"]) for h in skipped] == [(9, 3), (12, 3), (12, "auto")]
    assert "19683 rows, above 2 ** 12" in skipped[0]["not_fitted"] and "2097152" in skipped[2]["not_fitted"]
    out = reproduce.three_phase_tuning(None, "HBN-OR", k_grid=("auto", 3), B_grid=[3, 5, 7, 9, 12])
    assert (out["B"], out["hidden_states"]) == (5, "auto")      # without k = 2: the earlier of the tied entries


def test_the_tuned_row_is_trained_with_the_chosen_number_of_states(small):
    from hbnlab.experiments.reproduce import table_4_10

    res = table_4_10(small, rows=[("HBN-OR", 8)], tune=True, n_restarts=2, n_jobs=1, tune_k_grid=(3,))
    assert res["tuning"]["HBN-OR"]["hidden_states"] == 3
    assert res["rows"][0]["params"]["hidden_states"] == 3


@pytest.mark.parametrize("grid, message", [((), "at least one"), ((2, 2), "repeats"), ((1,), "hidden_states must"),
                                           (("best",), "hidden_states must")])
def test_bad_k_grids_are_named(grid, message):
    from hbnlab.experiments.reproduce import check_k_grid

    with pytest.raises(ValueError, match=f"hidden-states grid.*{message}"):
        check_k_grid(grid)
    assert check_k_grid([3, "auto", 2]) == (3, "auto", 2)
