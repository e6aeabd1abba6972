"""JobSpec: round trips, canonical params, versioning, and the bad-input battery."""
from __future__ import annotations

import dataclasses
import json
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hbnlab.jobs import SPEC_VERSION, JobSpec, SpecError

json_scalars = st.none() | st.booleans() | st.integers(-2**53, 2**53) | st.text(max_size=8) | \
    st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(json_scalars, lambda children: st.lists(children, max_size=4)
                           | st.dictionaries(st.text(max_size=6), children, max_size=4), max_leaves=20)


def test_round_trip_dict_json_pickle():
    spec = JobSpec("count", {"n": 3, "grid": {"B": [2, 3]}}, label="demo", group="s1",
                   random_state=7, module="hbnlab.jobs.testing", inputs=("corpus",))
    data = spec.to_dict()
    assert data["spec_version"] == SPEC_VERSION
    assert json.loads(json.dumps(data)) == data  # plain JSON
    assert JobSpec.from_dict(data) == spec
    assert JobSpec.from_json(spec.to_json()) == spec
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert hash(JobSpec.from_dict(data)) == hash(spec)


def test_params_are_copied_and_canonical():
    params = {"tuple": (1, 2), "np_int": np.int64(3), "np_float": np.float32(0.5),
              "np_bool": np.bool_(True), "nested": {"t": (1.0,)}}
    spec = JobSpec("count", params)
    assert spec.params == {"tuple": [1, 2], "np_int": 3, "np_float": 0.5, "np_bool": True,
                           "nested": {"t": [1.0]}}
    assert type(spec.params["np_int"]) is int and type(spec.params["np_bool"]) is bool
    params["tuple"] = "changed"
    assert spec.params["tuple"] == [1, 2]


def test_frozen():
    spec = JobSpec("count")
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.kind = "other"


def test_to_json_is_deterministic():
    a = JobSpec("count", {"b": 1, "a": 2})
    b = JobSpec("count", {"a": 2, "b": 1})
    assert a.to_json() == b.to_json()


@given(json_values)
@settings(max_examples=60, deadline=None)
def test_any_json_params_round_trip(value):
    spec = JobSpec("k", {"v": value})
    assert JobSpec.from_json(spec.to_json()) == spec
    assert json.loads(json.dumps(spec.params)) == spec.params


@pytest.mark.parametrize("kwargs, match", [
    ({"kind": ""}, "kind must be a non-empty task name, got ''"),
    ({"kind": 3}, "kind must be a non-empty task name, got 3"),
    ({"kind": "k", "params": [1]}, "params must be a dict of JSON data, got list"),
    ({"kind": "k", "params": {"s": {1, 2}}}, r"params\['s'\] must be JSON data .* got set"),
    ({"kind": "k", "params": {"x": math.nan}}, r"params\['x'\] must be finite JSON numbers, got nan"),
    ({"kind": "k", "params": {"x": [math.inf]}}, r"params\['x'\]\[0\] must be finite"),
    ({"kind": "k", "params": {1: "a"}}, "params keys must be strings, got 1"),
    ({"kind": "k", "label": None}, "label must be a str, got None"),
    ({"kind": "k", "group": ""}, "group must be a non-empty str, got ''"),
    ({"kind": "k", "random_state": 1.5}, "random_state must be an int or None, got 1.5"),
    ({"kind": "k", "random_state": True}, "random_state must be an int or None, got True"),
    ({"kind": "k", "module": ""}, "module must be an importable module name or None, got ''"),
    ({"kind": "k", "inputs": "corpus"}, "inputs must be a tuple of non-empty names, got 'corpus'"),
    ({"kind": "k", "inputs": ("",)}, "inputs must be a tuple of non-empty names"),
    ({"kind": "k", "spec_version": 2}, "spec_version must be 1 for a new JobSpec, got 2"),
])
def test_bad_input_names_the_value(kwargs, match):
    with pytest.raises(SpecError, match=match):
        JobSpec(**kwargs)


def test_from_dict_versions_and_fields():
    data = JobSpec("count", {"n": 1}).to_dict()
    newer = dict(data, spec_version=SPEC_VERSION + 1)
    with pytest.raises(SpecError, match=f"spec_version {SPEC_VERSION + 1} is newer"):
        JobSpec.from_dict(newer)
    with pytest.raises(SpecError, match=r"unknown job spec field\(s\) \['colour'\]"):
        JobSpec.from_dict(dict(data, colour="red"))
    with pytest.raises(SpecError, match="needs a 'kind'"):
        JobSpec.from_dict({"params": {}})
    with pytest.raises(SpecError, match="spec_version must be a positive int, got 0"):
        JobSpec.from_dict(dict(data, spec_version=0))
    with pytest.raises(SpecError, match="not valid JSON"):
        JobSpec.from_json("{nope")
    # version 1 written without the version key (hand-made specs) is accepted
    assert JobSpec.from_dict({"kind": "count", "params": {"n": 1}}) == JobSpec("count", {"n": 1})
