"""Reuters-21578 through the workbench's widgets: load ModApte, draw the HBN-OR tree of `trade`
live, train HBN-OR on the 10 thesis classes in the background and see thesis Table 4.10 beside ours."""
from __future__ import annotations

import pytest
from app_testutil import frame_with, no_exceptions, submit_training, wait_for_jobs

pytestmark = pytest.mark.slow


def test_reuters_hbn_or_row_from_the_browser(app, reuters_path, reuters_corpus):
    app.run()
    app.switch_page("pages/corpus.py").run()
    app.radio(key="corpus_source").set_value("reuters").run()
    no_exceptions(app)
    # the server's copy is offered: nothing to type
    copy = app.selectbox(key="reuters_copy")
    assert str(reuters_path.resolve()) in copy.options[0] and "HBNLAB_REUTERS_DIR" in copy.options[0], copy.options
    app.button(key="load_reuters").click().run(timeout=120)
    no_exceptions(app)
    assert not app.error, [e.value for e in app.error]
    s = reuters_corpus.summary()
    assert [m.value for m in app.metric] == [str(s["n_documents"]), str(s["n_train"]), str(s["n_test"]),
                                             str(len(reuters_corpus.categories(min_train=1, min_test=1)))]
    assert abs(s["n_train"] - 7769) <= 1 and abs(s["n_test"] - 3019) <= 1  # thesis sec. 4.1.1
    assert not any("SYNTHETIC" in w.value for w in app.sidebar.warning)

    app.switch_page("pages/structure.py").run(timeout=120)
    no_exceptions(app)
    app.selectbox(key="s_class").set_value("trade").run()
    app.slider(key="B_or").set_value(5).run()  # the redraw's time: benchmarks/bench_responsiveness.py
    no_exceptions(app)
    assert "tradeTOPIC" in app.get("graphviz_chart")[0].proto.spec
    app.slider(key="B_or").set_value(9).run()  # back to Table 4.1

    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    from hbnlab.experiments.paper_values import THESIS_CLASSES

    assert sorted(app.multiselect(key="t_classes").value) == sorted(THESIS_CLASSES)  # the 10 most frequent
    submit_training(app, ["HBN-OR"], restarts=4)
    no_exceptions(app)
    (rec,) = wait_for_jobs(600)
    assert rec.state == "done", rec.error

    app.switch_page("pages/evaluation.py").run(timeout=120)
    no_exceptions(app)
    table = frame_with(app, "class", index=True)
    assert list(table.columns) == ["HBN-OR", "thesis HBN-OR"]
    assert table.loc["micro", "thesis HBN-OR"] == 85.4 and table.loc["macro", "thesis HBN-OR"] == 78.9
    # ours within a few points of the thesis's micro average (4 restarts instead of 64)
    assert abs(table.loc["micro", "HBN-OR"] - 85.4) < 5.0, table
