"""A Training preset submits its own job and changes nothing the analyst set (config and every widget of
Features and Training); "Use these settings" on a finished job loads that job's settings into every
widget; a preset on a corpus of the user's own (an upload) runs on it."""
from __future__ import annotations

from app_testutil import no_exceptions, texts

WORDS = {"wheat": "wheat grain harvest farm crop", "crude": "oil crude barrel refinery pipeline",
         "gold": "gold mine ounce bullion silver", "money": "bank rate dollar interest currency"}


def _own_csv() -> bytes:
    rows = ["id,text,labels,split"]
    for label, text in WORDS.items():
        for i in range(10):
            rows.append(f"{label}{i},{text} {text} doc{i},{label},{'test' if i >= 7 else 'train'}")
    return ("\n".join(rows) + "\n").encode("utf-8")


def _recorder(monkeypatch):
    from hbnlab.app import job_client

    submitted = []
    monkeypatch.setattr(job_client, "submit_train", lambda cfg, **kw: submitted.append((cfg, kw)) or len(submitted))
    return submitted


#: Widgets of the kinds that hold a setting.
SETTING_KINDS = ("selectbox", "multiselect", "number_input", "radio", "text_input", "checkbox", "toggle", "slider",
                 "select_slider", "text_area")
#: Widgets of the Training page that show a job, not a setting.
NOT_SETTINGS = ("t_trace_job@", "t_trace_units")


def page_widgets(at, prefix: str) -> dict:
    """Every widget on the page whose key starts with ``prefix``: key -> value."""
    return {w.key: w.value for kind in SETTING_KINDS for w in at.get(kind)
            if w.key and w.key.startswith(prefix) and not w.key.startswith(NOT_SETTINGS)}


def both_pages(at) -> tuple[dict, dict]:
    """The widgets of Features and of Training (the page ends on Training)."""
    at.switch_page("pages/features.py").run()
    no_exceptions(at)
    features = page_widgets(at, "f_")
    at.switch_page("pages/training.py").run()
    no_exceptions(at)
    return features, page_widgets(at, "t_")


def _analyst_setup(app, *, train: bool):
    """Synthetic corpus; Features at 12 terms; Training set away from every default (and trained
    once with ``train``: the form's settings are then the session's)."""
    app.query_params = {"synthetic_size": "600", "n_features": "12", "n_categories": "4"}
    app.run()
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    app.selectbox(key="t_em_acceleration").set_value("squarem").run()
    app.number_input(key="t_screen_iter").set_value(3).run()
    app.multiselect(key="t_classes").set_value(["alpha", "bravo"])
    app.multiselect(key="t_classifiers").set_value(["NB", "HBN-DEP"])
    app.number_input(key="t_restarts").set_value(5)
    app.selectbox(key="t_hidden_states").set_value(3)
    app.number_input(key="t_tree_terms").set_value(7)
    app.selectbox(key="t_children_select").set_value("all")
    app.selectbox(key="t_objective").set_value("joint")
    app.number_input(key="t_seed").set_value(11)
    if train:
        app.button(key="FormSubmitter:train_form-Train").click()
    app.run()
    no_exceptions(app)


def test_a_preset_submits_its_own_job_and_changes_no_widget_of_features_or_training(app, monkeypatch):
    monkeypatch.delenv("HBNLAB_REUTERS_DIR", raising=False)
    submitted = _recorder(monkeypatch)
    _analyst_setup(app, train=True)
    features, training = both_pages(app)
    assert features["f_n_features"] == 12 and training["t_restarts"] == 5 and training["t_tree_terms"] == 7
    cfg_before = app.session_state["hbnlab.config"]
    for name, restarts, learners, n_classes in (("demo", 16, ("HBN-OR", "NB"), 3),
                                                ("thesis", 64, ("NB", "SVM", "HBN-AVG", "HBN-OR", "HBN-DEP"), 4)):
        app.button(key=f"t_preset_{name}").click().run()
        no_exceptions(app)
        run, kw = submitted[-1]
        assert (run.n_restarts, run.classifiers, run.n_features, kw["stage"]) == (restarts, learners, 30, "test")
        assert len(kw["classes"]) == min(n_classes, 4) and run.em_acceleration == "none" and run.tree_terms == 50
        assert any("Your settings and the form below are unchanged" in s.value for s in app.success)
        assert app.session_state["hbnlab.config"] == cfg_before, name
        assert both_pages(app) == (features, training), name

    # Train runs what the form shows: the analyst's settings, not a preset's
    app.button(key="FormSubmitter:train_form-Train").click().run()
    no_exceptions(app)
    cfg, kw = submitted[-1]
    assert (cfg.n_features, cfg.n_restarts, cfg.hidden_states, cfg.tree_terms) == (12, 5, 3, 7)
    assert cfg.children_select == "all"
    assert (cfg.em_acceleration, cfg.screen_iter, cfg.random_state) == ("squarem", 3, 11)
    assert kw["classifiers"] == ["NB", "HBN-DEP"] and kw["classes"] == training["t_classes"]


def test_use_these_settings_loads_a_finished_job_into_every_widget_of_features_and_training(app, monkeypatch):
    from app_testutil import wait_for_jobs

    from hbnlab.app import job_client
    from hbnlab.app.job_settings import TRAINING_WIDGETS
    from hbnlab.pipeline.config import ExperimentConfig

    monkeypatch.delenv("HBNLAB_REUTERS_DIR", raising=False)
    with monkeypatch.context() as m:
        _analyst_setup(app, train=_recorder(m) is not None)     # the analyst's Train is recorded, not run
    app.button(key="t_preset_demo").click().run()
    (rec,) = wait_for_jobs(300)
    assert rec.state == "done", rec.error
    job = rec.spec.params
    app.run()
    no_exceptions(app)
    # every settings widget of the page is in the one table "Use these settings" writes
    assert set(page_widgets(app, "t_")) == set(TRAINING_WIDGETS)
    assert page_widgets(app, "t_")["t_restarts"] == 5, "the preset left the form alone"
    app.button(key="t_use_settings").click().run()
    no_exceptions(app)
    assert any(f"Loaded the settings of job #{rec.id}" in t for t in texts(app, "info"))
    features, training = both_pages(app)
    cfg = ExperimentConfig.from_dict(job["config"])
    assert training == {"t_em_acceleration": "none", "t_screen_iter": 0, "t_screen_keep": cfg.screen_keep,
                        "t_hnb_init": "random", "t_classes": job["classes"], "t_classifiers": ["HBN-OR", "NB"],
                        "t_restarts": 16, "t_hidden_states": 2, "t_tree_terms": 50, "t_children_select": "auto",
                        "t_objective": "auto", "t_seed": cfg.random_state, "t_stage": "test"}
    assert features["f_n_features"] == 30 and features["f_selection"] == "ig" and features["f_scope"] == "local"
    assert features["f_categories"] == [] and features["f_n_categories"] == 3
    assert features["f_stopwords"] == cfg.stopwords and features["f_min_df"] == cfg.min_df
    assert app.session_state["hbnlab.config"].replace(label="") == cfg      # label: the Features page's focus class

    # Train now runs the job's settings again
    submitted = _recorder(monkeypatch)
    app.button(key="FormSubmitter:train_form-Train").click().run()
    no_exceptions(app)
    again, kw = submitted[-1]
    assert again.replace(label="") == cfg
    assert kw["classes"] == job["classes"] and kw["classifiers"] == job["classifiers"]
    job_client.shutdown_jobs(interrupt=True)


def test_a_preset_on_an_uploaded_corpus_keeps_the_upload(app, monkeypatch):
    from hbnlab.app import corpus_data

    monkeypatch.setattr(corpus_data, "reuters_available", lambda: True)
    submitted = _recorder(monkeypatch)
    path = corpus_data.store_upload(_own_csv(), "own.csv", {"id_column": "id", "split_column": "split"})
    app.query_params = {"corpus": "upload", "upload_path": str(path), "upload_id_column": "id",
                        "upload_split_column": "split", "n_features": "5", "min_df": "1"}
    app.run()
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    app.button(key="t_preset_demo").click().run()
    no_exceptions(app)
    cfg, kw = submitted[-1]
    assert (cfg.corpus, cfg.upload_path) == ("upload", str(path))
    assert set(kw["classes"]) <= set(WORDS) and len(kw["classes"]) == 3
    now = app.session_state["hbnlab.config"]
    assert (now.corpus, now.upload_path, now.n_features) == ("upload", str(path), 5)
    assert app.query_params["corpus"] == ["upload"] or app.query_params["corpus"] == "upload"


def test_the_demo_preset_still_moves_the_synthetic_corpus_to_reuters_when_it_is_at_hand():
    from hbnlab.app import corpus_data, job_settings
    from hbnlab.pipeline.config import ExperimentConfig

    real = corpus_data.reuters_available
    try:
        corpus_data.reuters_available = lambda: True
        assert job_settings.preset_changes("demo", ExperimentConfig())["corpus"] == "reuters"
        upload = ExperimentConfig(corpus="upload", upload_path="/x/own.csv")
        assert "corpus" not in job_settings.preset_changes("demo", upload)
        corpus_data.reuters_available = lambda: False
        assert "corpus" not in job_settings.preset_changes("demo", ExperimentConfig())
    finally:
        corpus_data.reuters_available = real
