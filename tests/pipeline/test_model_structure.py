"""The Structure page's network is the one Training fits (issue 38, item 3): the tree over the
``tree_terms`` selected terms with the highest I(F; C) and the other selected terms as naive-Bayes
children of the class.  Two routes to one answer: :func:`build_structure` (no EM) and the fitted
estimator."""
from __future__ import annotations

import pytest

from hbnlab.models.hbn import CHILDREN_SELECT_DEFAULT
from hbnlab.pipeline import tasks as T
from hbnlab.pipeline.config import ExperimentConfig

DATA = ExperimentConfig(synthetic_size=600, n_features=24, n_categories=2)


@pytest.fixture(scope="module")
def data():
    return T.prepare_experiment(DATA)


@pytest.mark.parametrize("algorithm, tree_terms", [("HBN-OR", 10), ("HNB-AVG", 7), ("HBN-DEP", 10), ("HBN-OR", 0),
                                                   ("HBN-OR", 50)])
def test_build_structure_draws_the_network_the_estimator_fits(data, algorithm, tree_terms):
    label = data.categories[0]
    cfg = DATA.replace(tree_terms=tree_terms, children_select="all", n_restarts=1)
    B, alpha = cfg.structure_params(algorithm)
    model = T.build_structure(data, label, algorithm, B, alpha, cfg.n_features, cfg.scope, cfg.tree_terms,
                              cfg.children_select)
    est, _, _ = T.fit_config_unit(data, label, algorithm, cfg)
    assert model.tree.to_dict() == est.tree_.to_dict()
    fitted_children = tuple(getattr(est, "class_children_names_", ()) if est.class_children_ is not None else ())
    assert model.children == fitted_children
    in_tree = cfg.n_features if tree_terms in (0, 50) else tree_terms
    assert model.tree.n_features == in_tree and len(model.children) == cfg.n_features - in_tree


def test_cross_validated_children_are_the_candidates_the_fit_keeps_a_prefix_of(data):
    label = data.categories[0]
    cfg = DATA.replace(tree_terms=8, children_select="auto", n_restarts=1)
    B, alpha = cfg.structure_params("HBN-OR")
    model = T.build_structure(data, label, "HBN-OR", B, alpha, cfg.n_features, cfg.scope, cfg.tree_terms,
                              cfg.children_select)
    assert model.children_rule == CHILDREN_SELECT_DEFAULT["or"] == "cv" and len(model.children) == 16
    est, _, _ = T.fit_config_unit(data, label, "HBN-OR", cfg)
    kept = tuple(est.class_children_names_) if est.class_children_ is not None else ()
    assert model.children[: len(kept)] == kept
