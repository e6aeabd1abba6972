"""The experiment config: round trips, validation messages, URL form (metamorphic + hand cases)."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hbnlab.experiments import paper_values as pv
from hbnlab.jobs.spec import JobSpec
from hbnlab.models.catalog import TABLE_4_1
from hbnlab.pipeline.config import (
    ALPHA_RANGE,
    CLASSIFIERS,
    CORPUS_OPTIONAL_DEFAULTS,
    EM_SPEED_DEFAULTS,
    OPTIONAL_DEFAULTS,
    PRESETS,
    STRUCTURE_ALGORITHMS,
    ExperimentConfig,
    clustering_of,
)


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
    em_acceleration=st.sampled_from(["none", "squarem"]),
    screen_iter=st.integers(0, 50),
    screen_keep=st.integers(1, 1024),
    upload_newsgroup_strip=st.booleans(),
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
    ("B_or", 1, "B_or must be an integer in 2..20, got 1"),  # the estimators' ranges: test_config_ranges.py
    ("B_avg", 21, "B_avg must be an integer in 2..20, got 21"),
    ("alpha_avg", -0.5, "alpha_avg must be a number in [0, 1e+06], got -0.5"),
    ("alpha_dep", 2e6, "alpha_dep must be a number in [0, 1e+06], got 2000000.0"),
    ("corpus", "mnist", "corpus must be one of"),
    ("n_features", 0, "n_features must be an integer in 1..5000, got 0"),
    ("stopwords", "french", "stopwords must be one of"),
    ("classifiers", ("HBN-XYZ",), "unknown learner 'HBN-XYZ'"),
    ("classifiers", (), "classifiers must name at least one learner"),
    ("em_acceleration", "fast", "em_acceleration must be one of ('none', 'squarem'), got 'fast'"),
    ("em_acceleration", None, "em_acceleration must be one of ('none', 'squarem'), got None"),
    ("screen_iter", 51, "screen_iter must be an integer in 0..50, got 51"),
    ("screen_iter", -1, "screen_iter must be an integer in 0..50, got -1"),
    ("screen_iter", True, "screen_iter must be an integer in 0..50, got True"),
    ("screen_keep", 0, "screen_keep must be an integer in 1..1024, got 0"),
    ("screen_keep", 2.5, "screen_keep must be an integer in 1..1024, got 2.5"),
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
    assert cfg.classifier_params("HBN-DEP") == {"B": 5, "alpha": 120.0, "n_restarts": 64, "acceleration": None,
                                                "screen_iter": 0, "screen_keep": 8}
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


# ---------------------------------------------------------------------------- EM speed options
#: relevant_dict() of the default config as hbnlab wrote it before the EM speed fields existed.
DEFAULT_RELEVANT = {
    "corpus": "synthetic", "synthetic_seed": 0, "synthetic_size": 3000, "synthetic_model": "groups",
    "stopwords": "thesis", "stemming": "none", "min_df": 2, "selection": "ig", "n_features": 30, "scope": "local",
    "categories": [], "n_categories": 10, "classifiers": ["HBN-OR", "NB"], "B_or": 9, "alpha_or": 0.09,
    "n_restarts": 64, "validation": "auto", "random_state": 0,
}


def _without_em_speed(cfg: ExperimentConfig) -> dict:
    """The to_dict() of a config class without the EM speed fields and the hidden states."""
    return {f.name: list(v) if isinstance(v := getattr(cfg, f.name), tuple) else v
            for f in dataclasses.fields(cfg) if f.name not in {**OPTIONAL_DEFAULTS, **CORPUS_OPTIONAL_DEFAULTS}}


@pytest.mark.parametrize("cfg", [
    ExperimentConfig(),
    ExperimentConfig(classifiers=("NB", "SVM")),
    ExperimentConfig(classifiers=("HNB-DEP", "NB"), cv=5, n_restarts=3, categories=("alpha",)),
    ExperimentConfig(corpus="upload", upload_path="/x/u.zip", classifiers=("HBN-AVG",)),
])
def test_em_speed_defaults_leave_the_serialised_forms_as_they_were(cfg):
    """Job specs, stored models and reports of the thesis's EM are byte for byte what they were
    before the EM speed fields: the fields are absent while they hold their defaults."""
    assert cfg.to_dict() == _without_em_speed(cfg)
    relevant = cfg.relevant_dict()
    assert not set(OPTIONAL_DEFAULTS) & set(relevant)
    spec = JobSpec("train", {"config": cfg.to_dict()}, group="g", random_state=0).to_json()
    assert "screen" not in spec and "acceleration" not in spec
    assert ExperimentConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.to_query().keys().isdisjoint(EM_SPEED_DEFAULTS)


def test_relevant_dict_of_the_default_config_is_unchanged():
    assert ExperimentConfig().relevant_dict() == DEFAULT_RELEVANT
    assert ExperimentConfig(screen_keep=8, em_acceleration="none").relevant_dict() == DEFAULT_RELEVANT
    # screen_keep alone does nothing without screening: no trace in the relevant settings
    assert ExperimentConfig(screen_keep=3).relevant_dict() == DEFAULT_RELEVANT


def test_em_speed_fields_shape_runs_of_tree_learners_only():
    fast = ExperimentConfig(em_acceleration="squarem", screen_iter=5, screen_keep=4)
    assert fast.to_dict() == {**_without_em_speed(fast), "em_acceleration": "squarem", "screen_iter": 5,
                              "screen_keep": 4}
    assert fast.relevant_dict() == {**DEFAULT_RELEVANT, "em_acceleration": "squarem", "screen_iter": 5,
                                    "screen_keep": 4}
    assert ExperimentConfig.from_dict(fast.to_dict()) == fast
    # no tree learner trained: neither the restarts nor the EM speed fields shaped the run
    nb = fast.relevant_dict(["NB", "SVM"])
    assert not {"n_restarts", *OPTIONAL_DEFAULTS} & set(nb)
    # without screening screen_keep is left out
    accel = ExperimentConfig(em_acceleration="squarem", screen_keep=4).relevant_dict()
    assert accel == {**DEFAULT_RELEVANT, "em_acceleration": "squarem"}


def test_classifier_params_pass_the_em_speed_options_to_the_tree_learners():
    cfg = ExperimentConfig(em_acceleration="squarem", screen_iter=3, screen_keep=2, n_restarts=6)
    for name in STRUCTURE_ALGORITHMS:
        p = cfg.classifier_params(name)
        assert (p["acceleration"], p["screen_iter"], p["screen_keep"], p["n_restarts"]) == ("squarem", 3, 2, 6)
    assert cfg.classifier_params("NB") == {} and cfg.classifier_params("SVM") == {}
    plain = ExperimentConfig().classifier_params("HNB-OR")
    assert (plain["acceleration"], plain["screen_iter"], plain["screen_keep"]) == (None, 0, 8)
    # the estimators take them as they are
    from hbnlab.models.catalog import make_classifier

    est = make_classifier("HNB-OR", 10, cfg.classifier_params("HNB-OR"), 0)
    assert (est.acceleration, est.screen_iter, est.screen_keep) == ("squarem", 3, 2)


def test_hnb_init_reaches_the_hnb_learners_only():
    cfg = ExperimentConfig(hnb_init="hbn", classifiers=("HNB-AVG", "HBN-AVG"))
    assert cfg.classifier_params("HNB-AVG")["init"] == "hbn"
    assert "init" not in cfg.classifier_params("HBN-AVG")
    assert "init" not in ExperimentConfig().classifier_params("HNB-AVG")     # the default leaves the form as it was
    assert cfg.to_dict()["hnb_init"] == "hbn" and ExperimentConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.relevant_dict()["hnb_init"] == "hbn"
    assert "hnb_init" not in cfg.relevant_dict(["NB"]) and "hnb_init" not in cfg.relevant_dict(["HBN-OR"])
    from hbnlab.models.catalog import make_classifier

    assert make_classifier("HNB-DEP", 10, cfg.classifier_params("HNB-DEP"), 0).init == "hbn"
    with pytest.raises(ValueError, match=r"hnb_init must be one of \('random', 'hbn'\), got 'warm'"):
        ExperimentConfig(hnb_init="warm")


def test_em_speed_fields_in_the_url():
    cfg = ExperimentConfig(em_acceleration="squarem", screen_iter=4)
    assert cfg.to_query() == {"em_acceleration": "squarem", "screen_iter": "4"}
    back, problems = ExperimentConfig.from_query(cfg.to_query())
    assert back == cfg and not problems
    bad, problems = ExperimentConfig.from_query({"em_acceleration": "turbo", "screen_iter": "99", "screen_keep": "2"})
    assert (bad.em_acceleration, bad.screen_iter, bad.screen_keep) == ("none", 0, 2)
    assert any("em_acceleration='turbo' ignored" in p for p in problems)
    assert any("screen_iter='99' ignored" in p for p in problems)


def test_the_thesis_preset_turns_the_em_speed_options_off():
    fast = ExperimentConfig(em_acceleration="squarem", screen_iter=5, screen_keep=4)
    thesis = fast.replace(**PRESETS["thesis"].changes)
    assert (thesis.em_acceleration, thesis.screen_iter, thesis.screen_keep) == ("none", 0, 8)


def test_hidden_states_reach_every_tree_learner_and_keep_the_thesis_form_at_2():
    from hbnlab.models.catalog import make_classifier

    cfg = ExperimentConfig(hidden_states=3, classifiers=("HNB-AVG", "HBN-OR", "NB"))
    assert cfg.classifier_params("HNB-AVG")["hidden_states"] == cfg.classifier_params("HBN-OR")["hidden_states"] == 3
    assert cfg.classifier_params("NB") == {}
    assert make_classifier("HBN-OR", 10, cfg.classifier_params("HBN-OR"), 0).hidden_states == 3
    assert "hidden_states" not in ExperimentConfig().classifier_params("HBN-OR")
    assert "hidden_states" not in ExperimentConfig().to_dict()
    assert cfg.to_dict()["hidden_states"] == 3 and ExperimentConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.relevant_dict()["hidden_states"] == 3 and "hidden_states" not in cfg.relevant_dict(["NB"])
    auto = ExperimentConfig(hidden_states="auto-holdout")
    assert auto.classifier_params("HBN-DEP")["hidden_states"] == "auto-holdout"
    assert ExperimentConfig.from_dict(auto.to_dict()) == auto


@pytest.mark.parametrize("value", [1, 9, 2.0, True, "3", "bic"])
def test_bad_hidden_states_are_named(value):
    with pytest.raises(ValueError, match=r"hidden_states must be an integer in 2\.\.8, 'auto' or 'auto-holdout', got"):
        ExperimentConfig(hidden_states=value)


def test_the_hnb_started_at_the_hbn_needs_a_number_of_states():
    with pytest.raises(ValueError, match="hnb_init='hbn' needs a number of hidden states, got hidden_states='auto'"):
        ExperimentConfig(hnb_init="hbn", hidden_states="auto")
    assert ExperimentConfig(hnb_init="hbn", hidden_states=4).classifier_params("HNB-OR")["init"] == "hbn"


def test_hidden_states_in_the_url():
    for value, text in ((3, "3"), ("auto", "auto"), ("auto-holdout", "auto-holdout")):
        cfg = ExperimentConfig(hidden_states=value)
        assert cfg.to_query() == {"hidden_states": text}
        assert ExperimentConfig.from_query(cfg.to_query()) == (cfg, [])
    back, problems = ExperimentConfig.from_query({"hidden_states": "many"})
    assert back == ExperimentConfig() and "URL parameter hidden_states='many' ignored" in problems[0]


def test_large_tables_name_the_hbn_learners_whose_k_to_the_B_rows_pass_the_binary_trees_largest():
    cfg = ExperimentConfig(hidden_states=3, B_or=12, classifiers=("HBN-OR", "HNB-OR", "HBN-AVG", "NB"))
    assert cfg.large_tables() == {"HBN-OR": 3 ** 12}          # HNB tables have k rows; AVG's B = 7: 2187
    assert cfg.large_tables(["HBN-AVG"]) == {}
    assert cfg.replace(hidden_states=2).large_tables() == {} and cfg.replace(hidden_states="auto").large_tables() == {}
    assert cfg.replace(hidden_states=5, B_avg=7).large_tables(["HBN-AVG"]) == {"HBN-AVG": 5 ** 7}


def test_hbn_tables_no_fit_accepts_are_refused_naming_the_settings():
    from hbnlab.pipeline.config import MAX_TABLE_ROWS, check_table_size

    with pytest.raises(ValueError, match=r"HBN-OR with 5 hidden states at B = 9: a node's table would have "
                                         r"1,953,125 rows, more than the 1,048,576 a fit accepts"):
        check_table_size("hbn-or", 9, 5)
    assert MAX_TABLE_ROWS == 2 ** 20
    check_table_size("HNB-OR", 12, 8)          # an HNB node's table has k rows whatever B is
    check_table_size("HBN-OR", 12, "auto")     # a search changes one node at a time
    check_table_size("HBN-OR", 12, 3)          # 531,441 rows: large, accepted
    check_table_size("NB", 12, 8)
