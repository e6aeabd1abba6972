"""Every page through streamlit.testing.v1.AppTest on the synthetic corpus, and the main flow
corpus -> features -> structure -> train -> evaluate -> explain -> export through the widgets."""
from __future__ import annotations

import time

import pytest
from app_testutil import frame_with, no_exceptions, submit_training, texts, wait_for_jobs

from hbnlab.app.job_widgets import job_picker_key

PAGES = ["corpus", "features", "structure", "training", "tuning", "evaluation", "explain", "compare", "export"]


def _texts(at, kind):
    return texts(at, kind)


def _start(at):
    at.run()
    no_exceptions(at)
    at.button(key="start_synthetic").click().run()
    no_exceptions(at)
    return at


def _dot(at) -> str:
    charts = at.get("graphviz_chart")
    assert charts, "no graphviz chart on the page"
    return charts[0].proto.spec


def test_home_page(app):
    app.run()
    no_exceptions(app)
    assert any("hierarchical Bayesian network" in m for m in _texts(app, "markdown"))
    assert len(app.get("page_link")) == 10  # 9 workbench pages + Learn
    assert app.button(key="start_synthetic").label == "Start with the synthetic corpus"


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_the_synthetic_corpus(app, page):
    _start(app)
    app.switch_page(f"pages/{page}.py").run()
    no_exceptions(app)
    assert app.title[0].value == page.capitalize()
    assert not app.error, _texts(app, "error")
    # the synthetic corpus is labelled as such on every page (sidebar badge)
    assert any("SYNTHETIC" in w for w in _texts(app.sidebar, "warning"))


def test_start_loads_the_synthetic_corpus(app):
    _start(app)
    assert app.title[0].value == "Corpus"
    assert any("synthetic corpus" in s for s in _texts(app, "success"))
    assert any("SYNTHETIC" in w for w in _texts(app, "warning"))
    assert [m.value for m in app.metric] == ["3000", "2100", "900", "4"]
    app.text_input(key="doc_query").input("syn00002").run()
    no_exceptions(app)
    assert app.dataframe[-1].value["id"].tolist() == ["syn00002"]


def test_settings_survive_a_reload_through_the_url(app):
    app.query_params = {"B_or": "4", "n_features": "20", "algorithm": "HBN-OR", "alpha_or": "oops"}
    app.run()
    no_exceptions(app)
    assert any("alpha_or='oops' ignored" in w for w in _texts(app, "warning"))
    app.switch_page("pages/structure.py").run()
    no_exceptions(app)
    assert app.slider(key="B_or").value == 4
    assert app.slider(key="alpha_or").value == pytest.approx(0.09)
    assert "n_features" in app.query_params and app.query_params["B_or"] == "4"
    app.slider(key="B_or").set_value(6).run()
    assert app.query_params["B_or"] == "6"


def test_bad_upload_shows_the_reader_message(app):
    _start(app)
    app.radio(key="corpus_source").set_value("upload").run()
    no_exceptions(app)
    app.file_uploader(key="corpus_upload").upload("broken.csv", b"title,body\nhello,world\n", "text/csv").run()
    no_exceptions(app)
    errors = _texts(app, "error")
    assert errors and "broken.csv" in errors[0] and "text" in errors[0], errors
    assert "Traceback" not in errors[0]


def test_a_good_upload_replaces_the_corpus(app):
    _start(app)
    app.radio(key="corpus_source").set_value("upload").run()
    rows = ["text,labels,split"] + [f"wheat grain harvest {i},grain,train" for i in range(6)] + [
        f"oil crude barrel {i},crude,train" for i in range(6)] + ["wheat grain,grain,test", "oil barrel,crude,test"]
    app.text_input(key="upload_split").input("split")
    app.file_uploader(key="corpus_upload").upload("mine.csv", "\n".join(rows).encode(), "text/csv").run()
    no_exceptions(app)
    assert not app.error, _texts(app, "error")
    assert [m.value for m in app.metric] == ["14", "12", "2", "2"]
    assert not any("SYNTHETIC" in w for w in _texts(app.sidebar, "warning"))


def test_structure_slider_redraws_the_tree(app):
    """The redraw's time is measured by benchmarks/bench_responsiveness.py."""
    _start(app)
    app.switch_page("pages/structure.py").run()
    no_exceptions(app)
    before = _dot(app)
    assert "alphaTOPIC" in before
    app.slider(key="B_or").set_value(3).run()
    no_exceptions(app)
    after = _dot(app)
    assert after != before
    # with B = 3 no node has more than 3 nodes below it: count arcs into each node
    heads = [line.split("->")[1].strip(" ;") for line in after.splitlines() if "->" in line]
    assert max(heads.count(h) for h in set(heads)) <= 3
    app.selectbox(key="s_algorithm").set_value("HBN-DEP").run()
    no_exceptions(app)
    assert app.slider(key="alpha_dep").value == 170.0 and app.slider(key="B_dep").value == 7
    assert app.slider(key="alpha_dep").max == 400.0


def test_main_flow_through_the_widgets(app):
    _start(app)
    # features: 12 terms per class
    app.switch_page("pages/features.py").run()
    no_exceptions(app)
    app.number_input(key="f_n_features").set_value(12)
    app.button(key="FormSubmitter:features_form-Apply").click().run()
    no_exceptions(app)
    assert len(app.dataframe[0].value) == 12
    # structure: HBN-OR with B = 4
    app.switch_page("pages/structure.py").run()
    app.slider(key="B_or").set_value(4).run()
    no_exceptions(app)
    # training: HBN-OR and NB on two classes, few restarts
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    submit_training(app, ["HBN-OR", "NB"], restarts=3, classes=["alpha", "bravo"])
    no_exceptions(app)
    assert any("Submitted training job" in s for s in _texts(app, "success"))
    (rec,) = wait_for_jobs(180)
    assert rec.state == "done", rec.error
    assert rec.result["config"]["B_or"] == 4 and rec.result["config"]["n_features"] == 12
    app.run()
    no_exceptions(app)
    assert not app.error, _texts(app, "error")
    # the confirmation outlives the rerun that follows the job's end, and says it ended
    assert any("Job #1 finished: its results are below." in s for s in _texts(app, "success"))
    assert not any("Submitted training job" in s for s in _texts(app, "success"))
    assert frame_with(app, "classifier", "EM iterations")["classifier"].tolist() == ["HBN-OR", "NB", "HBN-OR", "NB"]
    assert app.get("plotly_chart"), "EM trace plot"
    # evaluation
    app.switch_page("pages/evaluation.py").run()
    no_exceptions(app)
    table = frame_with(app, "class", index=True)
    assert list(table.index) == ["alpha", "bravo", "micro", "macro"] and list(table.columns) == ["HBN-OR", "NB"]
    assert (table.values > 50).all()
    app.slider(key="e_threshold").set_value(0.9).run()
    no_exceptions(app)
    # explain: the HBN model of alpha on a document found by text
    app.switch_page("pages/explain.py").run()
    no_exceptions(app)
    app.selectbox(key="x_unit").set_value("alpha|HBN-OR").run()
    no_exceptions(app)
    verdict = (_texts(app, "success") + _texts(app, "warning"))
    assert any("HBN-OR gives P(alpha | document)" in v for v in verdict)
    dot = _dot(app)
    assert "alphaTOPIC" in dot and "P=" in dot and "fillcolor" in dot
    assert any("<mark" in h.proto.body for h in app.get("html"))
    app.selectbox(key="x_unit").set_value("alpha|NB").run()
    no_exceptions(app)
    # export: the HTML report and the CSV files are made when their button is pressed, not by a run
    from hbnlab.app import job_client, job_outputs
    from hbnlab.app.views import export as export_view

    built = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(job_outputs, "build_report", lambda *a, **k: built.append("html") or "<html></html>")
        mp.setattr(export_view, "table_csv", lambda *a, **k: built.append("csv") or "")
        app.switch_page("pages/export.py").run()
    no_exceptions(app)
    labels = [b.label for b in app.get("download_button")]
    assert "Download the report (Markdown)" in labels and "breakeven.csv" in labels
    assert built == []
    job = max(r.id for r in job_client.finished_train_jobs())
    tables = job_outputs.export_table_makers(job)
    made = {name: make() for name, make in tables.items()}          # what a press of each button gives
    assert made == job_outputs.export_tables(job) and all(made.values())
    assert any(label.startswith("Download the model") for label in labels)
    # a second browser tab (a new session) sees the same job and its results
    from streamlit.testing.v1 import AppTest

    tab2 = AppTest.from_file(app._script_path, default_timeout=90).run()
    tab2.switch_page("pages/evaluation.py").run()
    no_exceptions(tab2)
    assert list(frame_with(tab2, "class", index=True).columns) == ["HBN-OR", "NB"]


def test_tuning_grid_heatmap_and_train_the_best_cell(app):
    _start(app)
    app.switch_page("pages/tuning.py").run()
    no_exceptions(app)
    app.selectbox(key="u_algo").set_value("HBN-AVG")
    app.multiselect(key="u_classes").set_value(["alpha", "charlie"])
    app.multiselect(key="u_B").set_value([3, 5])
    app.text_input(key="u_alpha").input("0, 0.1, 0.5")  # 0.5 is outside AVG's range
    app.multiselect(key="u_nf").set_value([10])
    app.button(key="FormSubmitter:tune_form-Run the grid").click().run()
    no_exceptions(app)
    assert any("0.5 is outside [0, 0.2] for AVG" in e for e in _texts(app, "error"))
    app.text_input(key="u_alpha").input("0, 0.1")
    app.button(key="FormSubmitter:tune_form-Run the grid").click().run()
    assert any("4 cells x 2 classes" in s for s in _texts(app, "success"))
    (rec,) = wait_for_jobs(180)
    assert rec.state == "done", rec.error
    app.run()
    no_exceptions(app)
    best = rec.result["best"]
    assert any(f"Best cell: B = {best['B']}, alpha = {best['alpha']:g}" in s for s in _texts(app, "success"))
    heat = [c for c in app.get("plotly_chart") if "heatmap" in c.proto.spec]
    assert len(heat) == 1
    # every cell carries its paired-bootstrap interval against the best cell; the best's is [0, 0]
    cells = rec.result["cells"]
    assert all(c["vs_best_low"] <= c["vs_best_high"] for c in cells)
    top = next(c for c in cells if (c["B"], c["alpha"]) == (best["B"], best["alpha"]))
    assert top["vs_best_low"] == top["vs_best_high"] == 0 and top["tied_with_best"]
    assert "minus the best cell" in heat[0].proto.spec
    assert any("within resampling noise of the best" in c.value for c in app.caption)
    app.button(key="u_train_best").click().run()
    no_exceptions(app)
    recs = wait_for_jobs(180)
    train = [r for r in recs if r.kind == "train"][0]
    assert train.state == "done", train.error
    cfg = train.result["config"]
    assert (cfg["B_avg"], cfg["alpha_avg"], cfg["n_features"]) == (best["B"], best["alpha"], 10)
    assert train.result["classifiers"] == ["HBN-AVG"] and train.result["classes"] == ["alpha", "charlie"]


def test_cancel_from_the_job_table_stops_the_job(app):
    """EM stops itself on the cancel (its latency: benchmarks/bench_responsiveness.py)."""
    from hbnlab.app import job_client

    _start(app)
    app.switch_page("pages/training.py").run()
    app.multiselect(key="t_classifiers").set_value(["HBN-DEP"])
    app.number_input(key="t_restarts").set_value(256)
    app.button(key="FormSubmitter:train_form-Train").click().run()
    no_exceptions(app)
    deadline = time.monotonic() + 60
    while "iteration" not in (job_client.get_job(1).progress or {}):  # EM is running in the worker
        assert time.monotonic() < deadline and job_client.get_job(1).state in ("queued", "running")
        time.sleep(0.05)
    app.run()
    assert frame_with(app, "state", "attempt")["state"].tolist() == ["running"]
    app.selectbox(key=job_picker_key("train_jobs_job", 1)).set_value(1)      # the newest job: the picker's own
    app.button(key="train_jobs_cancel").click().run()
    (rec,) = wait_for_jobs(30)
    assert rec.state == "cancelled", (rec.state, rec.error)
    assert rec.error is None or "killed" not in rec.error, rec.error  # stopped by EM, not by a kill
    app.run()
    no_exceptions(app)
    assert frame_with(app, "state", "attempt")["state"].tolist() == ["cancelled"]
    assert not app.button(key="train_jobs_retry").disabled


def test_wrong_reuters_path_leaves_no_stale_progress_and_keeps_the_buttons(app, tmp_path):
    _start(app)
    app.radio(key="corpus_source").set_value("reuters").run()
    if app.get("selectbox") and any(b.key == "reuters_copy" for b in app.selectbox):
        app.selectbox(key="reuters_copy").set_value("Another folder on the server ...").run()
    app.text_input(key="reuters_dir").input(str(tmp_path / "nowhere")).run()
    app.button(key="load_reuters").click().run()
    no_exceptions(app)
    assert app.error, "the wrong path is reported"
    assert not app.get("progress"), "no progress bar is left behind"
    assert app.button(key="fetch_reuters").label == "Download into the cache"


def test_sidebar_follows_a_form_submit_in_the_same_run(app):
    _start(app)
    app.switch_page("pages/features.py").run()
    app.number_input(key="f_n_features").set_value(12)
    app.button(key="FormSubmitter:features_form-Apply").click().run()
    no_exceptions(app)
    side = [c.value for c in app.sidebar.caption]
    assert any(s.startswith("12 terms per class") for s in side), side
    assert not any(s.startswith("30 terms per class") for s in side), side


def _run_tuning_grid(app, alpha: str, terms: list, states: list | None = None) -> None:
    """Submit an HBN-OR grid at B = 3 on classes alpha and bravo from the Tuning page."""
    _start(app)
    app.switch_page("pages/tuning.py").run()
    app.selectbox(key="u_algo").set_value("HBN-OR")
    app.multiselect(key="u_classes").set_value(["alpha", "bravo"])
    app.multiselect(key="u_B").set_value([3])
    app.text_input(key="u_alpha").input(alpha)
    app.multiselect(key="u_nf").set_value(terms)
    if states is not None:
        app.multiselect(key="u_k").set_value(states)
    app.button(key="FormSubmitter:tune_form-Run the grid").click().run()


def test_tuning_over_terms_shows_each_class_its_own_cell_and_trains_with_it(app):
    _run_tuning_grid(app, "0.05", [10, 30])
    (rec,) = wait_for_jobs(180)
    assert rec.state == "done", rec.error
    app.run()
    no_exceptions(app)
    own = rec.result["best_per_class"]
    table = frame_with(app, "class", "terms")
    assert table["class"].tolist() == ["alpha", "bravo"]
    for c, v in own.items():
        values = [cell["per_class"][c] for cell in rec.result["cells"]]
        assert v["breakeven"] == max(values)
        assert table.set_index("class").loc[c, "terms"] == v["n_features"]
    assert any("per-class figure" in c.value for c in app.caption)
    app.button(key="u_train_per_class").click().run()
    no_exceptions(app)
    train = [r for r in wait_for_jobs(180) if r.kind == "train"][0]
    assert train.state == "done", train.error
    assert train.result["class_settings"] == {c: {"B": 3, "alpha": 0.05, "n_features": v["n_features"],
                                                  "hidden_states": 2} for c, v in own.items()}
    for unit in train.result["units"]:  # each class fitted with its own number of terms
        assert len(unit["terms"]) == own[unit["class"]]["n_features"]


def test_tuning_over_hidden_states_draws_a_grid_per_number_and_trains_with_the_chosen_one(app):
    from hbnlab.app import job_outputs

    _run_tuning_grid(app, "0, 0.05", [10], states=[3, 2])
    assert any("4 cells x 2 classes" in s for s in _texts(app, "success"))
    (rec,) = wait_for_jobs(240)
    assert rec.state == "done", rec.error
    assert rec.spec.params["hidden_states_values"] == [2, 3]     # the grid runs in the offered order
    app.run()
    no_exceptions(app)
    # no stale "Submitted" note once the job has ended
    assert not any("Submitted tuning job" in s for s in _texts(app, "success"))
    assert any(f"Job #{rec.id} finished" in s for s in _texts(app, "success"))
    cells = rec.result["cells"]
    assert sorted((c["hidden_states"], c["alpha"]) for c in cells) == [(2, 0.0), (2, 0.05), (3, 0.0), (3, 0.05)]
    heat = [c for c in app.get("plotly_chart") if "heatmap" in c.proto.spec]
    assert len(heat) == 2 and "hidden states 3" in heat[1].proto.spec
    best = rec.result["best"]
    assert best["micro"] == max(c["micro"] for c in cells)
    assert any(f"hidden states {best['hidden_states']} — validation" in s for s in _texts(app, "success"))
    table = frame_with(app, "class", "terms")
    assert list(table.columns[:3]) == ["class", "terms", "hidden states"]
    assert job_outputs.config_with_cell(rec.result).hidden_states == best["hidden_states"]
    app.button(key="u_train_per_class").click().run()
    no_exceptions(app)
    train = [r for r in wait_for_jobs(240) if r.kind == "train"][0]
    assert train.state == "done", train.error
    own = rec.result["best_per_class"]
    for unit in train.result["units"]:   # each class fitted with its own number of states
        model, _ = job_outputs.unit_model(unit["model"])
        assert model.hidden_states == own[unit["class"]]["hidden_states"]
