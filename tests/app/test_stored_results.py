"""Issue 30 item 8: a deleted or damaged stored result is a plain message on Compare, Evaluation, Explain
and Export (never a RegistryError box naming the server's path); class names holding ``|`` or a comma
survive the unit keys and a reload of the URL."""
from __future__ import annotations

import json

import streamlit as st
from app_testutil import no_exceptions, shown, submit_training, texts, wait_for_jobs

from hbnlab.pipeline.config import ExperimentConfig, query_list, query_list_text
from hbnlab.pipeline.tasks import split_unit_key, unit_key

CLASSES = {"grain|wheat": "wheat grain harvest crop bushel", "oil, crude": "oil crude barrel opec refinery",
           "ship": "ship port tanker vessel cargo"}


def _jsonl() -> bytes:
    rows = []
    for label, words in CLASSES.items():
        w = words.split()
        for i in range(12):
            rows.append({"text": f"{' '.join(w[i % 5:] + w[:i % 5])} day{i}", "labels": [label],
                         "split": "test" if i >= 9 else "train"})
    return "\n".join(json.dumps(r) for r in rows).encode()


def _train_on_hostile_names(app):
    app.run()
    app.button(key="start_synthetic").click().run()
    app.radio(key="corpus_source").set_value("upload").run()
    app.text_input(key="upload_split").input("split")
    app.file_uploader(key="corpus_upload").upload("names.jsonl", _jsonl(), "application/json").run()
    no_exceptions(app)
    assert not app.error, texts(app, "error")
    app.switch_page("pages/features.py").run()
    app.multiselect(key="f_categories").set_value(["grain|wheat", "oil, crude"])
    app.number_input(key="f_n_features").set_value(5)
    app.button(key="FormSubmitter:features_form-Apply").click().run()
    no_exceptions(app)
    app.switch_page("pages/training.py").run()
    submit_training(app, ["NB", "SVM"], classes=["grain|wheat", "oil, crude"])
    no_exceptions(app)
    (rec,) = wait_for_jobs(120)
    assert rec.state == "done", rec.error
    return rec


def test_class_names_with_a_pipe_or_a_comma_survive_unit_keys_and_the_url(app, data_home):
    rec = _train_on_hostile_names(app)
    cfg = app.session_state["hbnlab.config"]
    assert cfg.categories == ("grain|wheat", "oil, crude")

    app.switch_page("pages/explain.py").run()
    no_exceptions(app)
    app.selectbox(key="x_unit").set_value("grain|wheat|NB").run()
    no_exceptions(app)
    assert any(shown(m.label) == "P(grain|wheat | document)" for m in app.metric), [m.label for m in app.metric]
    app.switch_page("pages/evaluation.py").run()
    no_exceptions(app)
    app.switch_page("pages/export.py").run()
    no_exceptions(app)

    # a reload of the URL gives the same two classes back (not 'oil' and ' crude')
    from streamlit.testing.v1 import AppTest

    again = AppTest.from_file(app._script_path, default_timeout=90)
    again.query_params = cfg.to_query()
    again.run()
    no_exceptions(again)
    assert not any("ignored" in w for w in texts(again, "warning"))
    assert again.session_state["hbnlab.config"].categories == ("grain|wheat", "oil, crude")
    assert rec.result["classes"] == ["grain|wheat", "oil, crude"]


def _show_pages(app, pages):
    out = {}
    for page in pages:
        app.switch_page(page).run()
        no_exceptions(app)
        out[page] = texts(app, "error")
    return out


def test_deleted_or_damaged_results_are_a_message_without_the_servers_path(app, data_home):
    rec = _train_on_hostile_names(app)
    artifacts = next(data_home.rglob("artifacts"))
    models = {u["model"] for u in rec.result["units"]}

    # a damaged model file (the scores intact): Explain and Export say so
    for digest in models:
        (artifacts / digest).write_bytes(b"not the model")
    st.cache_data.clear()
    st.cache_resource.clear()
    errors = _show_pages(app, ["pages/explain.py", "pages/export.py"])
    for page, messages in errors.items():
        assert any("is missing or damaged on the server; train the job again" in e for e in messages), (page, messages)
        assert not any(str(data_home) in e or "artifacts" in e for e in messages), (page, messages)

    # every stored file deleted: Compare, Evaluation, Explain and Export say so
    for f in artifacts.iterdir():
        f.unlink()
    st.cache_data.clear()
    st.cache_resource.clear()
    pages = ["pages/compare.py", "pages/evaluation.py", "pages/explain.py", "pages/export.py"]
    errors = _show_pages(app, pages)
    for page, messages in errors.items():
        assert any("is missing or damaged on the server" in e for e in messages), (page, messages)
        assert not any(str(data_home) in e for e in messages), (page, messages)


def test_unit_keys_and_url_lists_round_trip_any_class_name():
    for label in ("grain|wheat", "oil, crude", "[x]", "a|b|c", "earn"):
        assert split_unit_key(unit_key(label, "HBN-OR")) == (label, "HBN-OR")
    names = ("oil, crude", "grain|wheat", "[bracket", "earn")
    assert query_list(query_list_text(names)) == names
    assert query_list_text(["earn", "acq"]) == "earn,acq"          # the old form, kept
    cfg = ExperimentConfig(categories=names)
    back, problems = ExperimentConfig.from_query(cfg.to_query())
    assert back.categories == names and problems == []
    back, problems = ExperimentConfig.from_query({"categories": "earn,acq"})
    assert back.categories == ("earn", "acq")
    _, problems = ExperimentConfig.from_query({"categories": '["oil", 3]'})
    assert problems and "expected a JSON list of names (strings)" in problems[0]
