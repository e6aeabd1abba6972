"""The declared hyper-parameter table of every estimator (``_parameter_constraints``, checked by
:func:`hbnlab.bounds.validate_params` before every ``fit``, applied by
:class:`hbnlab.models.base.ParameterConstraintsMixin`): each declared parameter refuses what lies outside
it before ``X`` is read, the error names the estimator and the parameter, the defaults pass, and no
parameter goes undeclared.  The generated cases derive their invalid values from the table under test,
so the ranges themselves are written out literally in ``test_parameter_ranges.py``."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hbnlab.bounds import (
    ALPHA,
    BOOLEAN,
    CALLABLE,
    HIDDEN_STATES,
    N_RESTARTS,
    NONE,
    Bound,
    BoundsError,
    Choice,
    Kind,
    describe_allowed,
    shown,
    validate_params,
)
from hbnlab.models.catalog import LEARNERS, make_classifier, options
from hbnlab.models.hbn import HierarchicalBNClassifier, HierarchicalNBClassifier
from hbnlab.models.multinomial_nb import MultinomialNBClassifier
from hbnlab.models.or_gate import WEIGHT_METHODS, NoisyORBinaryClassifier, NoisyORClassifier
from hbnlab.models.rocchio import RocchioClassifier
from hbnlab.models.word_cluster_nb import WordClusterNB

#: Every estimator class: the catalogue's, then the multi-label models and the word-cluster model
#: the binary adapters build.
ESTIMATORS = list(dict.fromkeys([row.estimator for row in LEARNERS.values()]
                                + [MultinomialNBClassifier, NoisyORClassifier, RocchioClassifier, WordClusterNB]))

#: Parameters deliberately outside the table, with the reason.
EXEMPT = {
    # feature_names is checked against X's columns when the names are used (_selected_names: one per input
    # column or per selected one), a joint check with the data; class_name is any label (str() is taken).
    HierarchicalBNClassifier: {"feature_names", "class_name"},
    HierarchicalNBClassifier: {"feature_names", "class_name"},
}

#: Values tried against every parameter; those no alternative accepts must be refused.
#: (10**400: past what math.isfinite takes, issue 37 item 4.)
CANDIDATES = [-1, 0, 1, 2, -0.5, 0.5, 1.5, 10**9, 10**400, 1e300, float("nan"), float("inf"), "bogus", True, None,
              object(), [1, 2]]


def _ids(classes):
    return [c.__name__ for c in classes]


def _refused(allowed) -> list:
    out = [v for v in CANDIDATES if not any(v in (NONE if c is None else c) for c in allowed)]
    assert out, f"no candidate lies outside {describe_allowed(allowed)}"
    return out


class _Unread:
    """A stand-in for X that fails the test when fit reads it (so the check came before any allocation)."""

    def __array__(self, *args, **kwargs):
        raise AssertionError("fit read X before it checked its parameters")

    def __getattr__(self, name):
        raise AssertionError(f"fit read X.{name} before it checked its parameters")

    def __len__(self):
        raise AssertionError("fit read len(X) before it checked its parameters")


def _y(cls):
    y = np.array([0, 1, 0, 1])
    return np.column_stack([y, 1 - y]).astype(bool) if cls in (MultinomialNBClassifier, NoisyORClassifier,
                                                              RocchioClassifier) else y


CASES = [(cls, name, bad) for cls in ESTIMATORS for name, allowed in cls._parameter_constraints.items()
         for bad in _refused(allowed)]


@pytest.mark.parametrize("cls, name, bad", CASES,
                         ids=[f"{c.__name__}-{n}-{type(b).__name__}:{b!r:.20}" for c, n, b in CASES])
def test_a_value_outside_the_table_is_refused_naming_the_parameter_before_x_is_read(cls, name, bad):
    est = cls().set_params(**{name: bad})
    allowed = describe_allowed(cls._parameter_constraints[name])
    with pytest.raises(BoundsError) as err:
        est.fit(_Unread(), _y(cls))
    assert str(err.value) == f"{cls.__name__}: {name} must be {allowed}, got {shown(bad)}"


@pytest.mark.parametrize("cls", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_every_parameter_is_declared_or_exempt_and_the_defaults_pass(cls):
    params = set(cls().get_params())
    declared = set(cls._parameter_constraints)
    exempt = EXEMPT.get(cls, set())
    assert declared <= params, f"{cls.__name__} declares parameters it does not take: {sorted(declared - params)}"
    assert not declared & exempt
    assert params == declared | exempt, (f"{cls.__name__}: parameter(s) {sorted(params - declared - exempt)} have "
                                         "no entry in _parameter_constraints (nor an exemption here)")
    validate_params(cls(), cls._parameter_constraints)


@pytest.mark.parametrize("name", list(LEARNERS))
def test_the_catalogue_settings_and_tuning_grids_pass_the_tables(name):
    row = LEARNERS[name]
    est = make_classifier(name, 30, random_state=7)
    validate_params(est, row.estimator._parameter_constraints)
    for param, grid in row.tuning.items():
        for value in grid:
            validate_params({param: value}, row.estimator._parameter_constraints)


def test_the_noisy_or_rows_are_read_from_the_estimators_table():
    assert options(NoisyORBinaryClassifier, "weights") == WEIGHT_METHODS
    assert [n for n in LEARNERS if n.startswith("OR-")] == ["OR-EQ11", "OR-EQ12", "OR-EQ15", "OR-EQ17"]
    assert {LEARNERS[n].fixed["weights"] for n in LEARNERS if n.startswith("OR-")} == set(WEIGHT_METHODS)


def test_a_fit_on_a_tiny_matrix_refuses_before_it_fits_and_fits_when_the_value_is_fixed():
    X = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
    y = np.array([1, 0, 1, 0])
    est = make_classifier("KNN", None, {"k": 0})
    with pytest.raises(BoundsError, match=r"^KNNBinaryClassifier: k must be an integer >= 1, got 0$"):
        est.fit(X, y)
    assert not hasattr(est, "selected_features_")
    assert est.set_params(k=1).fit(X, y).predict(X).tolist() == y.tolist()


# ------------------------------------------------------------------ validate_params by hand
MESSAGES = [
    # closed lower end, no upper end
    ({"k": [Bound("k", 1, math.inf)]}, 0, "k must be an integer >= 1, got 0"),
    # open lower end
    ({"C": [Bound("C", 0, math.inf, integer=False, lo_open=True)]}, 0.0, "C must be a finite number > 0, got 0.0"),
    ({"C": [Bound("C", 0, math.inf, integer=False, lo_open=True)]}, math.inf, "C must be a finite number > 0, got inf"),
    # closed lower, open upper end
    ({"leak": [Bound("leak", 0, 1, integer=False, hi_open=True)]}, 1.0, "leak must be a number in [0, 1), got 1.0"),
    # both ends open
    ({"held_out": [Bound("held_out", 0, 1, integer=False, lo_open=True, hi_open=True)]}, 0,
     "held_out must be a number in (0, 1), got 0"),
    # both ends closed (a declared bound)
    ({"n_restarts": [N_RESTARTS]}, 2000, "n_restarts must be an integer in 1..1024, got 2000"),
    ({"alpha": [ALPHA]}, -0.1, "alpha must be a number in [0, 1e+06], got -0.1"),
    # None as an alternative
    ({"n_features": [Bound("n_features", 1, math.inf), None]}, 0, "n_features must be an integer >= 1 or None, got 0"),
    ({"tree_terms": [NONE, Bound("tree_terms", 1, math.inf)]}, "30",
     "tree_terms must be None or an integer >= 1, got '30'"),
    # a Choice alone, one option, beside other alternatives
    ({"weighting": [Choice(("tf", "tfidf", "logtfidf"))]}, "bm25",
     "weighting must be one of ('tf', 'tfidf', 'logtfidf'), got 'bm25'"),
    ({"selection": [Choice(("fisher",))]}, "ig", "selection must be 'fisher', got 'ig'"),
    ({"hidden_states": [HIDDEN_STATES, Choice(("auto", "auto-holdout"))]}, 1,
     "hidden_states must be an integer in 2..8, 'auto' or 'auto-holdout', got 1"),
    # boolean, callable, a kind of object
    ({"shrinkage": [BOOLEAN]}, "yes", "shrinkage must be True or False, got 'yes'"),
    ({"progress": [None, CALLABLE]}, 3, "progress must be None or a callable, got 3"),
    ({"rng": [Kind("a numpy Generator", lambda v: isinstance(v, np.random.Generator))]}, 3,
     "rng must be a numpy Generator, got 3"),
]


@pytest.mark.parametrize("constraints, value, message", MESSAGES, ids=[m for _, _, m in MESSAGES])
def test_validate_params_messages(constraints, value, message):
    (name,) = constraints
    with pytest.raises(BoundsError) as err:
        validate_params({name: value}, constraints)
    assert str(err.value) == message
    assert isinstance(err.value, ValueError)


def test_validate_params_accepts_any_alternative_numpy_scalars_and_skips_undeclared_names():
    table = {"k": [Bound("k", 1, math.inf)], "x": [Bound("x", 0, 1, integer=False)], "flag": [BOOLEAN],
             "n": [Bound("n", 1, math.inf), None], "how": [Choice(("a", "b"))]}
    validate_params({"k": np.int64(3), "x": np.float64(0.5), "flag": np.bool_(True), "n": None, "how": "b",
                     "other": object()}, table)
    validate_params({}, table)
    for bad in ({"k": 2.0}, {"k": True}, {"x": np.nan}, {"flag": 0}, {"how": b"a"}, {"how": np.array(["a"])}):
        with pytest.raises(BoundsError, match=f"^{next(iter(bad))} must be "):
            validate_params(bad, table)


def test_a_choice_over_a_registry_reads_it_at_each_check():
    registry = {"avg": None}
    table = {"clustering": [Choice(registry), CALLABLE]}
    with pytest.raises(BoundsError, match=r"^clustering must be 'avg' or a callable, got 'mine'$"):
        validate_params({"clustering": "mine"}, table)
    registry["mine"] = None
    validate_params({"clustering": "mine"}, table)
    validate_params({"clustering": len}, table)


def test_an_estimator_is_read_through_get_params():
    with pytest.raises(BoundsError, match=r"^leak must be a number in \[0, 1\), got 1$"):
        validate_params(NoisyORClassifier(leak=1), NoisyORClassifier._parameter_constraints)
