"""Every range that matters, written out literally: a value just past an end is refused by ``fit``
(with the estimator and the parameter named), the end itself is accepted by the declared table.

``test_parameter_constraints.py`` derives its invalid values from the table under test, so a table entry
loosened there (``tol`` accepting -1, ``N0`` accepting 0, where naive Bayes then returns ``[nan nan]``)
goes unseen; here the expected ranges are the test's own text, so loosening or tightening an entry fails.
"""
from __future__ import annotations

import numpy as np
import pytest

from hbnlab.bounds import BoundsError, validate_params
from hbnlab.models.greedy_hnb import GreedyHNBClassifier
from hbnlab.models.hbn import HierarchicalBNClassifier, HierarchicalNBClassifier
from hbnlab.models.hierarchical import HierarchicalShrinkageNBClassifier
from hbnlab.models.kdb import KDependenceBNClassifier
from hbnlab.models.knn import KNNBinaryClassifier
from hbnlab.models.logistic import LogisticRegressionClassifier
from hbnlab.models.multinomial_nb import MultinomialNBBinaryClassifier, MultinomialNBClassifier
from hbnlab.models.naive_bayes import BernoulliNBClassifier
from hbnlab.models.or_gate import NoisyORBinaryClassifier, NoisyORClassifier
from hbnlab.models.rocchio import RocchioBinaryClassifier, RocchioClassifier
from hbnlab.models.svm import LinearSVMClassifier
from hbnlab.models.word_cluster_nb import WordClusterNB, WordGroupNBClassifier

TREES = (HierarchicalBNClassifier, HierarchicalNBClassifier)

#: (estimators, parameter, values at or inside the ends, values just outside them) -- the ranges, literally.
RANGES = [
    # the tree learners (thesis ch. 3; hbnlab.models.hbn.TREE_PARAMETER_CONSTRAINTS)
    (TREES, "B", [2, 20, None], [1, 0, 2.0]),
    (TREES, "alpha", [0.0, 1e6, None], [-1e-9, 1.000001e6]),
    (TREES, "n_direct", [0, 5], [-1]),
    (TREES, "tree_terms", [None, 1], [0, -1]),
    (TREES, "children_N0", [1e-9, 999_999.0], [0.0, -1.0, 1e6]),  # N0 > 0 (and < 1e6)
    (TREES, "n_restarts", [1, 1024], [0, 1025]),
    (TREES, "tol", [0.0, 1e-6], [-1e-9, float("nan")]),  # tol >= 0
    (TREES, "max_iter", [0, 500], [-1]),
    (TREES, "pseudo_count", [0.0, 1.0], [-1e-9, -1.0]),  # pseudo_count >= 0
    (TREES, "screen_iter", [0, 50], [-1, 51]),
    (TREES, "screen_keep", [1, 1024], [0, 1025]),
    (TREES, "hidden_states", [2, 8, "auto", "auto-holdout"], [1, 9, "Auto"]),
    (TREES, "objective", ["joint", "conditional"], ["cll", "Joint", None]),
    (TREES, "cll_penalty", [1e-9, 1.0, 1e6, "cv"], [0.0, -1.0, 1.000001e6, "CV", None]),  # > 0 or "cv"
    (TREES, "children_select", [None, "all", "cv", "cv-max"], ["auto", "none"]),
    (TREES, "tree_select", ["top", "dependent"], ["all"]),
    (TREES, "init", ["random", "hbn"], ["zero"]),
    (TREES, "stopping", ["absolute", "relative"], ["none"]),
    (TREES, "criterion", ["full", "conditional"], ["joint"]),
    (TREES, "acceleration", [None, "squarem"], ["none"]),
    (TREES, "n_features", [1, None], [0]),
    (TREES, "random_state", [0, 2**31 - 1, None], [-1, 2**31]),
    # the baselines
    ((BernoulliNBClassifier,), "N0", [1e-12, 1.0], [0.0, 0, -1.0]),  # N0 > 0: at 0 NB returns [nan nan]
    ((KNNBinaryClassifier,), "k", [1], [0]),
    ((KDependenceBNClassifier,), "k", [0, 10], [-1, 11]),
    ((KDependenceBNClassifier,), "alpha", [1e-12], [0.0]),
    ((KDependenceBNClassifier,), "block_size", [1], [0]),
    ((LogisticRegressionClassifier, LinearSVMClassifier), "C", [1e-12], [0.0, -1.0]),
    ((RocchioClassifier, RocchioBinaryClassifier), "beta", [1e-12], [0.0]),
    ((RocchioClassifier, RocchioBinaryClassifier), "gamma", [0.0], [-1e-9]),
    ((NoisyORClassifier, NoisyORBinaryClassifier), "leak", [0.0, 0.999], [1.0, -1e-9]),
    ((MultinomialNBClassifier, MultinomialNBBinaryClassifier), "alpha", [1e-12], [0.0]),
    ((WordClusterNB, WordGroupNBClassifier), "n_clusters", [1], [0]),
    ((WordClusterNB, WordGroupNBClassifier), "pool_size", [2, None], [1]),
    ((WordClusterNB, WordGroupNBClassifier), "alpha", [1e-12], [0.0]),
    ((GreedyHNBClassifier,), "cv", [2], [1]),
    ((GreedyHNBClassifier,), "max_iter", [1], [0]),
    ((GreedyHNBClassifier,), "tol", [0.0], [-1e-9]),
    ((GreedyHNBClassifier,), "alpha", [1e-12], [0.0]),
    ((HierarchicalShrinkageNBClassifier,), "held_out", [1e-9, 0.999], [0.0, 1.0]),
    ((HierarchicalShrinkageNBClassifier,), "max_iter", [1], [0]),
    ((HierarchicalShrinkageNBClassifier,), "tol", [0.0], [-1e-9]),
]

ACCEPTED = [(cls, p, v) for classes, p, ok, _ in RANGES for cls in classes for v in ok]
REFUSED = [(cls, p, v) for classes, p, _, bad in RANGES for cls in classes for v in bad]

X = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 1, 1], [1, 0, 0], [0, 0, 1]])
Y = np.array([1, 0, 1, 0, 1, 0])
MULTI_LABEL = (MultinomialNBClassifier, NoisyORClassifier, RocchioClassifier)


def _ids(cases):
    return [f"{c.__name__}-{p}={v!r}" for c, p, v in cases]


@pytest.mark.parametrize("cls, param, value", REFUSED, ids=_ids(REFUSED))
def test_fit_refuses_a_value_just_outside_the_range_naming_estimator_and_parameter(cls, param, value):
    est = cls().set_params(**{param: value})
    y = np.column_stack([Y, 1 - Y]).astype(bool) if cls in MULTI_LABEL else Y
    with pytest.raises(BoundsError, match=rf"^{cls.__name__}: {param} must be .*, got "):
        est.fit(X, y)


@pytest.mark.parametrize("cls, param, value", ACCEPTED, ids=_ids(ACCEPTED))
def test_the_table_accepts_the_ends_of_the_range(cls, param, value):
    validate_params(cls().set_params(**{param: value}), cls._parameter_constraints)


def test_every_range_above_names_a_declared_parameter():
    for classes, param, _, _ in RANGES:
        for cls in classes:
            assert param in cls._parameter_constraints, f"{cls.__name__}.{param}"


MUTANTS = [
    (HierarchicalBNClassifier, "tol", -1e-9, "HierarchicalBNClassifier: tol must be a finite number >= 0, got -1e-09"),
    (HierarchicalNBClassifier, "pseudo_count", -0.5,
     "HierarchicalNBClassifier: pseudo_count must be a finite number >= 0, got -0.5"),
    (BernoulliNBClassifier, "N0", 0, "BernoulliNBClassifier: N0 must be a finite number > 0, got 0"),
    (HierarchicalBNClassifier, "children_N0", 0.0,
     "HierarchicalBNClassifier: children_N0 must be a number in (0, 1e+06), got 0.0"),
]


@pytest.mark.parametrize("cls, param, value, message", MUTANTS, ids=[f"{c.__name__}-{p}" for c, p, _, _ in MUTANTS])
def test_the_mutants_of_issue_39_are_refused_with_the_whole_message(cls, param, value, message):
    with pytest.raises(BoundsError) as err:
        cls(**{param: value}).fit(X, Y)
    assert str(err.value) == message


def test_a_subclass_fit_is_checked_without_calling_the_check():
    class Wider(BernoulliNBClassifier):
        def fit(self, X, y, selected_features=None):
            self.own_fit_ran_ = True
            return super().fit(X, y, selected_features)

    est = Wider(N0=0)
    with pytest.raises(BoundsError, match=r"^Wider: N0 must be a finite number > 0, got 0$"):
        est.fit(X, Y)
    assert not hasattr(est, "own_fit_ran_")
    assert Wider(N0=1.0).fit(X, Y).own_fit_ran_
