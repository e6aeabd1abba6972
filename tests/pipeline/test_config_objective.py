"""The experiment config's ``objective``: what the tree learners' tables are fitted for, passed to every
tree learner, carried by the URL and the saved config, refused when unknown."""
from __future__ import annotations

import pytest

from hbnlab.models.hbn import OBJECTIVE_DEFAULT
from hbnlab.pipeline.config import OBJECTIVE_CHOICES, OBJECTIVE_LABELS, ExperimentConfig


def test_auto_leaves_the_estimator_default_and_a_choice_reaches_every_tree_learner():
    assert "objective" not in ExperimentConfig().classifier_params("HBN-OR")
    for objective in ("joint", "conditional"):
        cfg = ExperimentConfig(objective=objective)
        assert cfg.classifier_params("HBN-OR")["objective"] == objective
        assert cfg.classifier_params("HNB-DEP")["objective"] == objective
        assert "objective" not in cfg.classifier_params("NB")


@pytest.mark.parametrize("objective", OBJECTIVE_CHOICES)
def test_objective_round_trips_through_the_url_and_the_saved_config(objective):
    cfg = ExperimentConfig(objective=objective)
    back, problems = ExperimentConfig.from_query(cfg.to_query())
    assert back.objective == objective and not problems
    assert ExperimentConfig.from_dict(cfg.to_dict()).objective == objective
    if objective == "auto":  # a default is left out: configs written before the field keep their form
        assert "objective" not in cfg.to_dict()


def test_unknown_objective_is_refused_naming_the_field():
    with pytest.raises(ValueError, match="objective"):
        ExperimentConfig(objective="discriminative")


def test_the_auto_label_names_the_estimators_default():
    assert OBJECTIVE_LABELS[OBJECTIVE_DEFAULT] in OBJECTIVE_LABELS["auto"]
