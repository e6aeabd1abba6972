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
