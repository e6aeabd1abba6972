"""The FutureWarning cycle of a changing default (hbnlab._deprecation), on a toy estimator that
uses it the way a real one would: the sentinel default, the constraint that accepts it, the
resolution in ``fit``."""
import warnings

import pytest
from sklearn.base import BaseEstimator, clone

from hbnlab import _deprecation as dep
from hbnlab.bounds import BoundsError, Choice, validate_params

CHANGE = dep.DefaultChange("ToyClassifier", "rule", old="all", new="cv", version="99.0.0",
                           why="cross-validated children")


class ToyClassifier(BaseEstimator):
    _parameter_constraints = {"rule": [Choice(("all", "cv")), dep.WARN_CHOICE]}

    def __init__(self, *, rule=dep.WARN):
        self.rule = rule

    def fit(self, X=None, y=None):
        validate_params(self, self._parameter_constraints)
        self.rule_ = dep.resolve_default("ToyClassifier", "rule", self.rule, changes=(CHANGE,))
        return self


def test_the_sentinel_behaves_as_the_old_default_and_warns_naming_everything():
    with pytest.warns(FutureWarning) as rec:
        est = ToyClassifier().fit()
    assert est.rule_ == "all"
    msg = str(rec[0].message)
    for part in ("ToyClassifier", "rule", "'all'", "'cv'", "99.0.0", "cross-validated children"):
        assert part in msg
    assert rec[0].filename == __file__  # stacklevel points at the caller of fit


@pytest.mark.parametrize("value", ["all", "cv"])
def test_an_explicit_value_is_used_and_never_warns(value):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ToyClassifier(rule=value).fit().rule_ == value


def test_the_sentinel_survives_get_params_and_clone():
    est = ToyClassifier()
    assert est.get_params() == {"rule": "warn"}
    assert clone(est).rule == dep.WARN


def test_the_constraint_accepts_the_sentinel_and_names_it_when_refusing():
    validate_params({"rule": "warn"}, ToyClassifier._parameter_constraints)
    with pytest.raises(BoundsError, match=r"rule must be 'all', 'cv' or 'warn', got 'Warn'"):
        validate_params({"rule": "Warn"}, ToyClassifier._parameter_constraints)


def test_a_sentinel_without_a_declared_change_is_an_error_naming_it():
    with pytest.raises(ValueError, match=r"ToyClassifier: other='warn' but no default change of other"):
        dep.resolve_default("ToyClassifier", "other", dep.WARN, changes=(CHANGE,))


def test_a_change_cannot_use_the_sentinel_or_an_unreadable_version():
    with pytest.raises(ValueError, match="sentinel"):
        dep.DefaultChange("E", "p", old="warn", new=1, version="1.0")
    with pytest.raises(ValueError, match="not a version number"):
        dep.DefaultChange("E", "p", old=0, new=1, version="next")


def test_expired_changes_are_those_whose_release_has_come():
    soon = dep.DefaultChange("E", "p", old=0, new=1, version="0.7.0")
    assert dep.expired_changes((soon, CHANGE), version="0.6.1") == []
    assert dep.expired_changes((soon, CHANGE), version="0.7") == [soon]


def test_no_declared_change_has_outlived_its_release():
    """When hbnlab.__version__ reaches a change's release, the new value becomes the plain default
    and the entry and its sentinel go (as scikit-learn removed force_alpha='warn' in 1.4)."""
    assert dep.expired_changes() == []
    for change in dep.DEFAULT_CHANGES:
        assert change.old != change.new


@pytest.mark.parametrize("text, expected", [("0.6.0", (0, 6)), ("0.6", (0, 6)), ("1.2.0rc1", (1, 2)),
                                            ("0.10.1", (0, 10, 1)), ("v2", (2,))])
def test_version_tuple(text, expected):
    assert dep.version_tuple(text) == expected
