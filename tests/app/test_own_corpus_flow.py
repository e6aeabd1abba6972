"""The workbench on a user's own corpus: a ZIP of a 20-class folder corpus in four encodings, no
dates, uploaded with Encoding auto -> Features -> Tuning (the stratified validation split, every
class tunable) -> Training -> Evaluation."""
from __future__ import annotations

from app_testutil import frame_with, no_exceptions, submit_training, wait_for_jobs
from corpus_fixtures import corpus_files, zip_bytes

N_CLASSES = 20


def test_zip_upload_to_evaluation_with_no_setting_beyond_the_file(app):
    gen = corpus_files(n_classes=N_CLASSES, docs_per_class=8, random_state=5)
    app.run()
    app.button(key="start_synthetic").click().run()
    app.radio(key="corpus_source").set_value("upload").run()
    assert app.selectbox(key="upload_encoding").value == "auto"
    app.file_uploader(key="corpus_upload").upload("news.zip", zip_bytes(gen.files, "news/"), "application/zip").run()
    no_exceptions(app)
    assert not app.error, [e.value for e in app.error]
    assert [m.value for m in app.metric] == [str(N_CLASSES * 8), str(N_CLASSES * 6), str(N_CLASSES * 2),
                                             str(N_CLASSES)]
    report = frame_with(app, "codec", "files")
    assert dict(zip(report["codec"], report["files"])) == {"cp1252": 80, "utf-16": 40, "utf-8": 40}

    app.switch_page("pages/features.py").run()
    no_exceptions(app)
    app.number_input(key="f_n_categories").set_value(N_CLASSES)
    app.button(key="FormSubmitter:features_form-Apply").click().run()
    no_exceptions(app)
    assert [m.value for m in app.metric][2] == str(N_CLASSES)

    app.switch_page("pages/tuning.py").run()
    no_exceptions(app)
    assert any("stratified" in c.value for c in app.caption), [c.value for c in app.caption]
    assert not app.warning or not any("cannot be tuned" in w.value for w in app.warning)
    assert len(app.multiselect(key="u_classes").value) == N_CLASSES
    app.selectbox(key="u_algo").set_value("HBN-OR")
    app.multiselect(key="u_B").set_value([3])
    app.text_input(key="u_alpha").input("0, 0.1")
    app.multiselect(key="u_nf").set_value([10])
    app.button(key="FormSubmitter:tune_form-Run the grid").click().run()
    no_exceptions(app)
    (tune,) = wait_for_jobs(300)
    assert tune.state == "done", tune.error
    assert tune.result["classes"] == [f"class{k:02d}" for k in range(N_CLASSES)]
    assert all(len(c["per_class"]) == N_CLASSES for c in tune.result["cells"])

    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    submit_training(app, ["HBN-OR", "NB"], restarts=2)
    no_exceptions(app)
    recs = wait_for_jobs(300)
    train = [r for r in recs if r.kind == "train"][0]
    assert train.state == "done", train.error

    app.switch_page("pages/evaluation.py").run()
    no_exceptions(app)
    table = frame_with(app, "class", index=True)
    assert list(table.columns) == ["HBN-OR", "NB"] and len(table) == N_CLASSES + 2
    assert not any("thesis" in str(c) for c in table.columns)
