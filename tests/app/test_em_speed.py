"""The Training page's EM speed options: the widgets write the config (and the URL), a training
job's tree learners run with them, and a preset of the thesis runs without them and leaves them on."""
from __future__ import annotations

import pytest
from app_testutil import no_exceptions, submit_training, texts, wait_for_jobs


def _training_page(app):
    app.query_params = {"synthetic_size": "600", "n_features": "10"}
    app.run()
    no_exceptions(app)
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    return app


def test_em_speed_options_reach_the_trained_models(app):
    from hbnlab.app import job_outputs

    _training_page(app)
    assert app.selectbox(key="t_em_acceleration").value == "none"
    assert app.number_input(key="t_screen_iter").value == 0
    assert app.number_input(key="t_screen_keep").disabled, "no screening: nothing to keep"
    assert "em_acceleration" not in app.query_params and "screen_iter" not in app.query_params

    app.selectbox(key="t_em_acceleration").set_value("squarem").run()
    app.number_input(key="t_screen_iter").set_value(2).run()
    no_exceptions(app)
    assert not app.number_input(key="t_screen_keep").disabled
    app.number_input(key="t_screen_keep").set_value(2).run()
    no_exceptions(app)
    cfg = app.session_state["hbnlab.config"]
    assert (cfg.em_acceleration, cfg.screen_iter, cfg.screen_keep) == ("squarem", 2, 2)
    assert app.query_params["em_acceleration"] == "squarem" and app.query_params["screen_iter"] == "2"

    submit_training(app, ["HBN-OR", "NB"], restarts=4, classes=["alpha"])
    no_exceptions(app)
    assert any("Submitted training job" in s for s in texts(app, "success"))
    (rec,) = wait_for_jobs(120)
    assert rec.state == "done", rec.error
    config = rec.result["config"]
    assert (config["em_acceleration"], config["screen_iter"], config["screen_keep"], config["n_restarts"]) == (
        "squarem", 2, 2, 4)
    units = {u["classifier"]: u for u in rec.result["units"]}
    est, meta = job_outputs.unit_model(units["HBN-OR"]["model"])
    assert (est.acceleration, est.screen_iter, est.screen_keep) == ("squarem", 2, 2)
    settings = est.em_result_.settings
    assert settings["acceleration"] == "squarem"
    assert (settings["n_restarts"], settings["screen_iter"], settings["screen_keep"]) == (4, 2, 2)
    assert len(settings["screened_out"]) == 2, "2 of the 4 restarts were dropped by the screening"
    assert meta["config"]["em_acceleration"] == "squarem"


def test_the_thesis_preset_runs_without_the_em_speed_options_and_leaves_the_analysts_on(app, monkeypatch):
    from hbnlab.app import job_client

    submitted = []
    monkeypatch.setattr(job_client, "submit_train", lambda cfg, **kw: submitted.append(cfg) or 1)
    _training_page(app)
    app.selectbox(key="t_em_acceleration").set_value("squarem").run()
    app.number_input(key="t_screen_iter").set_value(3).run()
    app.selectbox(key="t_hidden_states").set_value(3)
    submit_training(app, ["NB"], classes=["alpha"])
    no_exceptions(app)
    assert submitted[0].hidden_states == 3
    app.button(key="t_preset_thesis").click().run()
    no_exceptions(app)
    cfg = submitted[-1]
    assert (cfg.em_acceleration, cfg.screen_iter, cfg.screen_keep, cfg.hidden_states) == ("none", 0, 8, 2)
    # the preset's job is its own: the widgets and the session's config keep the analyst's settings
    assert app.selectbox(key="t_em_acceleration").value == "squarem"
    assert app.number_input(key="t_screen_iter").value == 3
    assert app.selectbox(key="t_hidden_states").value == 3
    submit_training(app, ["NB"], classes=["alpha"])
    assert submitted[-1].hidden_states == 3 and submitted[-1].em_acceleration == "squarem"
    assert app.session_state["hbnlab.config"].em_acceleration == "squarem"


def test_the_markdown_report_names_the_em_speed_options_only_when_they_are_on():
    from hbnlab.app.views.export import _tree_settings_line
    from hbnlab.pipeline.config import ExperimentConfig

    plain = _tree_settings_line(ExperimentConfig().to_dict(), ["HBN-OR", "NB"])
    assert plain == "* HBN/HNB settings: OR B=9 alpha=0.09, 64 EM restarts, random_state=0"
    fast = ExperimentConfig(em_acceleration="squarem", screen_iter=5, screen_keep=4).to_dict()
    assert _tree_settings_line(fast, ["HBN-OR"]) == ("* HBN/HNB settings: OR B=9 alpha=0.09, 64 EM restarts, SQUAREM "
                                                     "acceleration, the best 4 restarts kept after 5 E-steps, "
                                                     "random_state=0")
    assert _tree_settings_line(fast, ["NB"]) == "* random_state=0"


def test_the_hnb_start_reaches_the_hnb_learners_and_the_report(app):
    from hbnlab.app import job_outputs
    from hbnlab.app.views.export import _tree_settings_line

    _training_page(app)
    assert app.radio(key="t_hnb_init").value == "random"
    app.radio(key="t_hnb_init").set_value("hbn").run()
    no_exceptions(app)
    assert app.session_state["hbnlab.config"].hnb_init == "hbn" and app.query_params["hnb_init"] == "hbn"
    submit_training(app, ["HNB-DEP", "HBN-DEP"], restarts=4, classes=["alpha"])
    no_exceptions(app)
    (rec,) = wait_for_jobs(120)
    assert rec.state == "done", rec.error
    units = {u["classifier"]: u for u in rec.result["units"]}
    hnb, _ = job_outputs.unit_model(units["HNB-DEP"]["model"])
    hbn, _ = job_outputs.unit_model(units["HBN-DEP"]["model"])
    assert hnb.init == "hbn" and hnb.em_result_.n_restarts == 1
    assert hbn.init == "random" and hbn.em_result_.n_restarts == 4
    line = _tree_settings_line(rec.result["config"], ["HNB-DEP", "HBN-DEP"])
    assert line == ("* HBN/HNB settings: DEP B=7 alpha=170.0, 4 EM restarts, the HNB's EM started at the HBN, "
                    "random_state=0")
    assert "started at the HBN" not in _tree_settings_line(rec.result["config"], ["HBN-DEP"])


def test_the_hidden_states_reach_the_tree_learners_the_url_and_the_report(app):
    from hbnlab.app import job_outputs
    from hbnlab.app.views.export import _tree_settings_line

    _training_page(app)
    assert app.selectbox(key="t_hidden_states").value == 2
    app.selectbox(key="t_hidden_states").set_value(3)
    submit_training(app, ["HNB-OR", "HBN-OR", "NB"], restarts=3, classes=["alpha"])
    no_exceptions(app)
    assert app.session_state["hbnlab.config"].hidden_states == 3 and app.query_params["hidden_states"] == "3"
    assert any(c.value.endswith("· hidden states: 3") for c in app.sidebar.caption)
    assert not any("has a table of" in w for w in texts(app, "warning"))     # B = 9: 3 ** 9 rows
    (rec,) = wait_for_jobs(180)
    assert rec.state == "done", rec.error
    units = {u["classifier"]: u for u in rec.result["units"]}
    for name in ("HNB-OR", "HBN-OR"):
        model, _ = job_outputs.unit_model(units[name]["model"])
        assert model.hidden_states == 3
        assert {model.tree_.cardinality(i) for i in model.tree_.hidden_nodes()} == {3}
    line = _tree_settings_line(rec.result["config"], ["HNB-OR", "HBN-OR"])
    assert line == "* HBN/HNB settings: OR B=9 alpha=0.09, 3 EM restarts, hidden nodes with 3 states, random_state=0"
    # the HNB cannot start at the HBN while the states are searched per node: refused with a message
    app.selectbox(key="t_hidden_states").set_value("auto")
    submit_training(app, ["NB"], classes=["alpha"])
    no_exceptions(app)
    assert app.session_state["hbnlab.config"].hidden_states == "auto"
    app.radio(key="t_hnb_init").set_value("hbn").run()
    no_exceptions(app)
    assert any("hnb_init='hbn' needs a number of hidden states" in e for e in texts(app, "error"))
    assert app.session_state["hbnlab.config"].hnb_init == "random"


def test_the_training_page_warns_of_hbn_tables_of_k_to_the_B_rows(app):
    app.query_params = {"synthetic_size": "600", "n_features": "10", "hidden_states": "5",
                        "classifiers": "HBN-OR,HNB-OR,HNB-AVG"}
    app.run()
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    (warning,) = [w for w in texts(app, "warning") if "has a table of" in w]
    # 5 ** 9 rows for HBN-OR (B = 9); the HNB learners' tables have 5 rows
    assert warning.startswith("Hidden nodes of 5 states: HBN-OR (B = 9) has a table of 1,953,125 rows, more than "
                              "the 1,048,576 a fit accepts: training it is refused.")
    cfg = app.session_state["hbnlab.config"]
    app.session_state["hbnlab.config"] = cfg.replace(hidden_states=4)     # 4 ** 9 = 262,144 rows: accepted
    app.run()
    (warning,) = [w for w in texts(app, "warning") if "has a table of" in w]
    assert warning.startswith("Hidden nodes of 4 states: HBN-OR (B = 9) has a table of 262,144 rows. ")
    assert "expect a long fit" in warning
    submit_training(app, ["NB"], classes=["alpha"])
    no_exceptions(app)
    assert not any("has a table of" in w for w in texts(app, "warning"))


def test_jobs_whose_hbn_tables_no_fit_accepts_are_refused_before_queueing(app):
    from hbnlab.app import job_client
    from hbnlab.pipeline.config import ExperimentConfig

    cfg = ExperimentConfig(hidden_states=5, classifiers=("HBN-OR",))
    with pytest.raises(ValueError, match="HBN-OR with 5 hidden states at B = 9"):
        job_client.submit_train(cfg)
    with pytest.raises(ValueError, match="HBN-AVG with 4 hidden states at B = 11"):
        job_client.submit_train(cfg.replace(hidden_states=2), classifiers=["HBN-AVG"],
                              class_settings={"alpha": {"B": 11, "hidden_states": 4}})
    with pytest.raises(ValueError, match="HBN-DEP with 3 hidden states at B = 13"):
        job_client.submit_tune(cfg.replace(hidden_states=2), "HBN-DEP", [3, 13], [100.0], hidden_states_values=[2, 3])
    assert job_client.list_jobs() == []
