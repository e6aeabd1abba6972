"""The workbench's config (and so the URL) checks the tree learners' settings against the estimators'
own table, one table per parameter (issue 39 item 1b): it accepts what a fit accepts (the URL once
refused ``alpha_or=0.5`` and ``B_or=15`` from ranges of its own), refuses what a fit refuses, and the
sliders' narrower ranges, declared in one place, start at the estimator's lower ends and widen to
show any value the config accepted.  The ranges are written literally, so loosening one fails."""
from __future__ import annotations

import pytest

from hbnlab.bounds import BoundsError, validate_params
from hbnlab.models.catalog import TABLE_4_1
from hbnlab.models.hbn import TREE_PARAMETER_CONSTRAINTS, HierarchicalBNClassifier
from hbnlab.pipeline.config import (
    ALPHA_RANGE,
    B_RANGE,
    EM_ACCELERATIONS,
    TREE_FIELD_CONSTRAINTS,
    TREE_FIELD_PARAMETERS,
    ExperimentConfig,
    slider_range,
)

#: field -> (accepted at the ends, refused just outside), literally.
RANGES = {
    "B_or": ([2, 12, 15, 20], [1, 21, 2.0, True]),
    "B_avg": ([2, 20], [1, 21]),
    "B_dep": ([2, 20], [1, 21]),
    "alpha_or": ([0.0, 0.3, 0.5, 1e6], [-1e-9, 1.000001e6, float("nan"), float("inf")]),
    "alpha_avg": ([0.0, 0.5, 1e6], [-1e-9, 1.000001e6]),
    "alpha_dep": ([0.0, 400.0, 1000.0, 1e6], [-1.0, 2e6]),
    "n_restarts": ([1, 1024], [0, 1025]),
    "screen_iter": ([0, 50], [-1, 51]),
    "screen_keep": ([1, 1024], [0, 1025]),
    "hidden_states": ([2, 8, "auto", "auto-holdout"], [1, 9, "Auto"]),
}


@pytest.mark.parametrize("field, value", [(f, v) for f, (ok, _) in RANGES.items() for v in ok])
def test_the_config_accepts_the_ends_of_the_estimators_range(field, value):
    assert getattr(ExperimentConfig(**{field: value}), field) == value


@pytest.mark.parametrize("field, value", [(f, v) for f, (_, bad) in RANGES.items() for v in bad])
def test_the_config_refuses_just_outside_naming_the_field(field, value):
    with pytest.raises(BoundsError, match=rf"^{field} must be "):
        ExperimentConfig(**{field: value})


def test_the_url_accepts_what_the_estimator_accepts():
    cfg, problems = ExperimentConfig.from_query({"alpha_or": "0.5", "B_or": "15", "alpha_dep": "1000"})
    assert problems == [] and (cfg.alpha_or, cfg.B_or, cfg.alpha_dep) == (0.5, 15, 1000.0)
    params = cfg.classifier_params("HBN-OR")
    assert (params["B"], params["alpha"]) == (15, 0.5)
    est = HierarchicalBNClassifier(**params)
    validate_params(est, est._parameter_constraints)


def _accepted(constraints, name, value) -> bool:
    try:
        validate_params({name: value}, constraints)
    except BoundsError:
        return False
    return True


@pytest.mark.parametrize("field", sorted(TREE_FIELD_PARAMETERS))
def test_each_field_is_the_estimators_parameter_with_its_table(field):
    """One table per parameter: a value the estimator's entry accepts the config accepts, and the reverse
    (``B``'s upper end aside: B_x is shared with the HBN, whose fit stops at MAX_PARENTS = 20)."""
    param = TREE_FIELD_PARAMETERS[field]
    table = {param: [c for c in TREE_PARAMETER_CONSTRAINTS[param] if c is not None]}
    for value in [-1, 0, 1, 2, 8, 9, 20, 50, 51, 1024, 1025, 0.5, 1e6, 2e6, "auto", "x", True]:
        by_config, by_estimator = _accepted(TREE_FIELD_CONSTRAINTS, field, value), _accepted(table, param, value)
        if param == "B" and isinstance(value, int) and value > 20:
            assert by_estimator and not by_config
        else:
            assert by_config == by_estimator, (field, value)


def test_the_sliders_narrow_from_the_estimators_lower_ends_and_widen_to_show_the_value():
    assert B_RANGE == (2, 12)
    assert ALPHA_RANGE == {"avg": (0.0, 0.2, 0.005), "or": (0.0, 0.3, 0.005), "dep": (0.0, 400.0, 5.0)}
    for clustering, (B, alpha) in TABLE_4_1.items():
        lo, hi, _ = ALPHA_RANGE[clustering]
        assert lo <= alpha <= hi and B_RANGE[0] <= B <= B_RANGE[1]
        ExperimentConfig(**{f"alpha_{clustering}": hi, f"B_{clustering}": B_RANGE[1]})  # the slider's ends pass
    assert slider_range(B_RANGE, 15) == (2, 15) and slider_range(B_RANGE, 7) == B_RANGE
    assert slider_range(ALPHA_RANGE["or"], 0.5) == (0.0, 0.5, 0.005)


def test_em_accelerations_are_the_estimators_with_none_spelled_out():
    assert EM_ACCELERATIONS == ("none", "squarem")
