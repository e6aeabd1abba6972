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
