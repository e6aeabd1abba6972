"""The workbench trains HIER-NB: the synthetic generator's topic hierarchy (dotted classes) on the
Corpus page, HIER-NB and NB on the Training page, the Evaluation table; on a flat corpus the job
fails with the message that names the fix."""
from __future__ import annotations

from app_testutil import frame_with, no_exceptions, shown, texts, wait_for_jobs

LEAVES = sorted(f"{t}.{c}" for t in ("alpha", "bravo", "charlie") for c in ("red", "green", "blue"))


def _train(app, classifiers):
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    assert "HIER-NB" in app.multiselect(key="t_classifiers").options
    app.multiselect(key="t_classifiers").set_value(classifiers)
    app.button(key="FormSubmitter:train_form-Train").click().run()
    no_exceptions(app)
    (rec,) = [r for r in wait_for_jobs(300) if r.kind == "train"]
    return rec


def test_training_page_trains_hier_nb_on_the_hierarchical_synthetic_corpus(app):
    app.run()
    app.button(key="start_synthetic").click().run()
    app.radio(key="synthetic_model").set_value("hierarchy").run()
    app.slider(key="synthetic_size").set_value(900).run()
    no_exceptions(app)
    assert [m.value for m in app.metric] == ["900", "630", "270", "9"]
    assert any("topic hierarchy" in w for w in texts(app.sidebar, "warning"))
    rec = _train(app, ["HIER-NB", "NB"])
    assert rec.state == "done", rec.error
    app.switch_page("pages/evaluation.py").run()
    no_exceptions(app)
    table = frame_with(app, "class", index=True)
    assert sorted(table.index[:-2]) == LEAVES and list(table.columns) == ["HIER-NB", "NB"]
    assert table.loc["micro", "HIER-NB"] > table.loc["micro", "NB"] + 10
    # explain: the generic term-flip explanation of a HIER-NB model
    app.switch_page("pages/explain.py").run()
    no_exceptions(app)
    app.selectbox(key="x_unit").set_value("alpha.red|HIER-NB").run()
    no_exceptions(app)
    assert any("HIER-NB gives P(alpha.red | document)" in v for v in texts(app, "success") + texts(app, "warning"))
    # export: the model file of each unit
    app.switch_page("pages/export.py").run()
    app.selectbox(key="p_unit").set_value("alpha.red|HIER-NB").run()
    no_exceptions(app)
    assert "Download the model alpha.red · HIER-NB" in [shown(b.label) for b in app.get("download_button")]


def test_hier_nb_on_a_flat_corpus_fails_naming_the_fix(app):
    app.run()
    app.button(key="start_synthetic").click().run()
    app.slider(key="synthetic_size").set_value(300).run()
    rec = _train(app, ["HIER-NB"])
    assert rec.state == "failed" and "no topic hierarchy" in rec.error and "dotted names" in rec.error
