"""The Tuning page on an undated upload: the split is described, a class the split cannot score is
named before any job starts (never a failure after the job ran), and k-fold cross-validation is a
choice that reaches the job."""
from __future__ import annotations

from app_testutil import no_exceptions, texts, wait_for_jobs


def _texts(at, kind):
    return texts(at, kind)


def _upload(at):
    at.run()
    at.button(key="start_synthetic").click().run()
    at.radio(key="corpus_source").set_value("upload").run()
    words = {"grain": "wheat grain harvest crop", "crude": "oil crude barrel opec", "ship": "ship port tanker vessel"}
    rows = ["text,labels,split"]
    for label, text in words.items():
        n = 1 if label == "ship" else 10  # 'ship' has one training document: it cannot be tuned
        rows += [f"{text} day{i},{label},train" for i in range(n)] + [f"{text} test,{label},test"]
    at.text_input(key="upload_split").input("split")
    at.file_uploader(key="corpus_upload").upload("mine.csv", "\n".join(rows).encode(), "text/csv").run()
    no_exceptions(at)
    assert not at.error, _texts(at, "error")
    return at


def test_tuning_names_classes_the_split_cannot_score_before_a_job_starts(app):
    _upload(app)
    app.switch_page("pages/tuning.py").run()
    no_exceptions(app)
    assert any("Validation: training-0" in c and "stratified" in c for c in _texts(app, "caption"))
    warnings = _texts(app, "warning")
    assert any("ship (it has 1 training document" in w for w in warnings), warnings
    assert set(app.multiselect(key="u_classes").value) == {"grain", "crude"}
    app.multiselect(key="u_classes").set_value(["grain", "ship"])
    app.multiselect(key="u_B").set_value([3])
    app.text_input(key="u_alpha").input("0")
    app.multiselect(key="u_nf").set_value([10])
    app.button(key="FormSubmitter:tune_form-Run the grid").click().run()
    no_exceptions(app)
    errors = _texts(app, "error")
    assert any("'ship': it has 1 training document" in e and "k-fold" in e for e in errors), errors
    from hbnlab.app import job_client

    assert job_client.list_jobs("tune") == []  # refused before submitting

    # k-fold cross-validation: chosen on the page, described, carried by the job's config
    app.radio(key="u_validation_mode").set_value("k-fold cross-validation").run()
    app.number_input(key="u_validation_k").set_value(3).run()
    no_exceptions(app)
    assert any("3-fold stratified cross-validation" in c for c in _texts(app, "caption"))
    app.multiselect(key="u_classes").set_value(["grain", "crude"])
    app.button(key="FormSubmitter:tune_form-Run the grid").click().run()
    no_exceptions(app)
    (rec,) = wait_for_jobs(120)
    assert rec.state == "done", rec.error
    assert rec.result["config"]["cv"] == 3 and rec.result["classes"] == ["grain", "crude"]
