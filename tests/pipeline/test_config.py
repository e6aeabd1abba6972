"""The experiment config: round trips, validation messages, URL form (metamorphic + hand cases)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hbnlab.experiments import paper_values as pv
from hbnlab.models.catalog import TABLE_4_1
from hbnlab.pipeline.config import ALPHA_RANGE, CLASSIFIERS, STRUCTURE_ALGORITHMS, ExperimentConfig, clustering_of


def test_defaults_are_the_thesis_settings():
    cfg = ExperimentConfig()
    # thesis Table 4.1: AVG B=7 a=0.05, OR B=9 a=0.09, DEP B=7 a=170
    assert cfg.structure_params("HBN-AVG") == (7, 0.05)
    assert cfg.structure_params("HBN-OR") == (9, 0.09)
    assert cfg.structure_params("HBN-DEP") == (7, 170.0)
    assert cfg.structure_params("HNB-DEP") == cfg.structure_params("HBN-DEP")
    assert cfg.n_features == 30 and cfg.n_restarts == 64 and cfg.selection == "ig"
    assert cfg.to_query() == {}, "a default config must leave the URL clean"
    for name, (B, a) in pv.TABLE_4_1.items():
        assert cfg.structure_params(name) == (B, a)


configs = st.builds(
    ExperimentConfig,
    corpus=st.sampled_from(["synthetic", "reuters"]),
    synthetic_seed=st.integers(0, 10_000),
    synthetic_size=st.integers(20, 10_000),
    stopwords=st.sampled_from(["thesis", "smart", "sklearn", "none"]),
    stemming=st.sampled_from(["none", "porter"]),
    min_df=st.integers(1, 20),
    n_features=st.integers(1, 500),
    categories=st.lists(st.sampled_from(["earn", "acq", "money-fx", "alpha", "bravo"]), unique=True, max_size=4)
    .map(tuple),
    classifiers=st.lists(st.sampled_from(CLASSIFIERS), min_size=1, max_size=4, unique=True).map(tuple),
    algorithm=st.sampled_from(STRUCTURE_ALGORITHMS),
    B_or=st.integers(2, 12),
    alpha_or=st.floats(0.0, 0.3),
    alpha_dep=st.floats(0.0, 400.0),
    n_restarts=st.integers(1, 200),
    random_state=st.integers(0, 2**31 - 1),
)


@settings(max_examples=80, deadline=None)
@given(configs)
def test_round_trips(cfg):
    assert ExperimentConfig.from_dict(cfg.to_dict()) == cfg
    back, problems = ExperimentConfig.from_query(cfg.to_query())
    assert problems == []
    assert back == cfg


@pytest.mark.parametrize("field, value, needle", [
    ("B_or", 1, "B_or must be an integer in 2..12, got 1"),
    ("B_avg", 13, "B_avg must be an integer in 2..12, got 13"),
    ("alpha_avg", 0.5, "alpha_avg must be a number in [0.0, 0.2], got 0.5"),
    ("alpha_dep", -1.0, "alpha_dep must be a number in [0.0, 400.0], got -1.0"),
    ("corpus", "mnist", "corpus must be one of"),
    ("n_features", 0, "n_features must be an integer in 1..5000, got 0"),
    ("stopwords", "french", "stopwords must be one of"),
    ("classifiers", ("HBN-XYZ",), "unknown learner 'HBN-XYZ'"),
    ("classifiers", (), "classifiers must name at least one learner"),
])
def test_validation_names_the_bad_value(field, value, needle):
    with pytest.raises(ValueError) as err:
        ExperimentConfig(**{field: value})
    assert needle in str(err.value)


def test_upload_needs_a_path():
    with pytest.raises(ValueError, match="upload_path"):
        ExperimentConfig(corpus="upload")


def test_from_dict_rejects_unknown_fields():
    with pytest.raises(ValueError, match=r"unknown field\(s\) \['colour'\]"):
        ExperimentConfig.from_dict({"colour": "red"})


def test_bad_url_values_are_ignored_one_by_one():
    cfg, problems = ExperimentConfig.from_query(
        {"B_or": "1", "alpha_or": "abc", "n_features": "60", "job": "7", "classifiers": "NB,HBN-AVG"})
    assert cfg.n_features == 60 and cfg.classifiers == ("NB", "HBN-AVG")
    assert cfg.B_or == 9 and cfg.alpha_or == 0.09  # the bad ones keep their defaults
    assert len(problems) == 2
    assert any("B_or='1'" in p for p in problems) and any("alpha_or='abc'" in p for p in problems)


def test_url_lists_take_the_last_value():
    cfg, problems = ExperimentConfig.from_query({"n_features": ["10", "40"]})
    assert cfg.n_features == 40 and not problems


def test_structure_param_updates_touch_only_their_algorithm():
    cfg = ExperimentConfig().with_structure_params("HNB-DEP", 5, 120.0)
    assert cfg.structure_params("HBN-DEP") == (5, 120.0)
    assert cfg.structure_params("HBN-OR") == (9, 0.09)
    assert cfg.to_query() == {"B_dep": "5", "alpha_dep": "120.0"}
    assert cfg.classifier_params("HBN-DEP") == {"B": 5, "alpha": 120.0, "n_restarts": 64}
    assert cfg.classifier_params("NB") == {}


def test_alpha_ranges_hold_the_table_4_1_defaults():
    for clustering, (_, a) in TABLE_4_1.items():
        lo, hi, _ = ALPHA_RANGE[clustering]
        assert lo <= a <= hi
    with pytest.raises(ValueError, match="structure algorithm must be one of"):
        clustering_of("HBN-MDL")


def test_corpus_spec_is_the_cache_key():
    a = ExperimentConfig(n_features=10)
    b = ExperimentConfig(n_features=99, B_or=3)
    assert a.corpus_spec() == b.corpus_spec() == {"corpus": "synthetic", "seed": 0, "size": 3000}
    assert ExperimentConfig(synthetic_seed=1).corpus_spec() != a.corpus_spec()
    assert ExperimentConfig(stemming="porter").indexing_dict() == {"stopwords": "thesis", "stemming": "porter",
                                                                   "min_df": 2}


def test_upload_encoding_is_part_of_the_corpus_spec():
    cfg = ExperimentConfig(corpus="upload", upload_path="/x/u.zip")
    assert cfg.upload_encoding == "auto" and "encoding" not in cfg.corpus_spec()["options"]
    named = cfg.replace(upload_encoding="latin-1")
    assert named.corpus_spec()["options"] == {"encoding": "latin-1"} and named.corpus_spec() != cfg.corpus_spec()
    with pytest.raises(ValueError, match=r"upload_encoding must be one of .*'utf-16'.*got 'klingon'"):
        cfg.replace(upload_encoding="klingon")
    parsed, problems = ExperimentConfig.from_query({"upload_encoding": "cp1252"})
    assert parsed.upload_encoding == "cp1252" and not problems
