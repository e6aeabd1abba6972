"""A tuning job's best cell per class: the choice (ties to the first cell), the pooled micro
breakeven of the combination, and train jobs whose classes take their own settings."""
from __future__ import annotations

import numpy as np
import pytest

from hbnlab.evaluation import micro_breakeven
from hbnlab.pipeline.config import ExperimentConfig
from hbnlab.pipeline.tasks import _unit_config, per_class_best


def _cell(B, alpha, nf, a, b):
    return {"B": B, "alpha": alpha, "n_features": nf, "per_class": {"a": a, "b": b}}


def test_each_class_takes_its_own_best_cell_ties_to_the_first():
    cells = [_cell(3, 0.0, 10, 50.0, 80.0), _cell(5, 0.1, 10, 70.0, 60.0), _cell(7, 0.1, 30, 70.0, 80.0)]
    rng = np.random.default_rng(0)
    Y = rng.random((40, 2)) < 0.3
    scores = [rng.random((40, 2)) for _ in cells]
    chosen, micro = per_class_best(cells, scores, Y, ["a", "b"])
    assert chosen == {"a": {"B": 5, "alpha": 0.1, "n_features": 10, "breakeven": 70.0},
                      "b": {"B": 3, "alpha": 0.0, "n_features": 10, "breakeven": 80.0}}
    # the combination pools class a's scores from cell 1 and class b's from cell 0
    combined = np.column_stack([scores[1][:, 0], scores[0][:, 1]])
    assert micro == round(100 * micro_breakeven(Y, combined), 2)


def test_a_unit_takes_its_class_settings_and_only_known_fields():
    cfg = ExperimentConfig(corpus="synthetic", n_features=30)
    own = {"a": {"B": 5, "alpha": 0.02, "n_features": 10}}
    unit = _unit_config(cfg, "a", "HBN-AVG", own)
    assert (unit.n_features, *unit.structure_params("HBN-AVG")) == (10, 5, 0.02)
    assert _unit_config(cfg, "b", "HBN-AVG", own) is cfg  # a class without settings keeps the job's
    nb = _unit_config(cfg, "a", "NB", own)  # not a tree: only the number of terms applies
    assert nb.n_features == 10 and nb.structure_params("HBN-AVG") == cfg.structure_params("HBN-AVG")
    with pytest.raises(ValueError, match=r"class_settings\['a'\]: unknown field\(s\) \['C'\]"):
        _unit_config(cfg, "a", "NB", {"a": {"C": 1.0}})


def test_hidden_states_are_a_class_setting_of_the_tree_learners():
    cfg = ExperimentConfig(corpus="synthetic")
    own = {"a": {"B": 5, "hidden_states": 3}}
    assert _unit_config(cfg, "a", "HBN-OR", own).hidden_states == 3
    assert _unit_config(cfg, "a", "NB", own).hidden_states == cfg.hidden_states
    cells = [{**_cell(3, 0.0, 10, 50.0, 80.0), "hidden_states": 2}, {**_cell(3, 0.0, 10, 70.0, 60.0),
                                                                     "hidden_states": "auto"}]
    Y = np.random.default_rng(1).random((30, 2)) < 0.3
    chosen, _ = per_class_best(cells, [np.ones((30, 2)), np.ones((30, 2))], Y, ["a", "b"])
    assert (chosen["a"]["hidden_states"], chosen["b"]["hidden_states"]) == ("auto", 2)
