"""The Learn page's EM chart from iteration 0, its presentation mode (toggle and ``?present=1``) and
step controls that a click on a stale page cannot move twice."""
from __future__ import annotations

import pytest
from app_testutil import no_exceptions

KEY = "learn_clu_step"


def _open(app, query=None):
    if query:
        app.query_params = dict(query)
    app.run()
    no_exceptions(app)
    app.switch_page("pages/learn.py").run()
    no_exceptions(app)
    return app


def _step(app, key=KEY) -> int:
    return int(app.session_state[key])


def _html(app) -> list[str]:
    return [h.proto.body for h in app.get("html")]


# --------------------------------------------------------------------------- the EM chart
@pytest.mark.parametrize("large", [False, True])
def test_em_chart_shows_iteration_zero(large):
    from hbnlab.app import charts
    from hbnlab.app.views import learn as L

    em = L.build_lesson(L.LessonSettings()).em
    curves = [em.log_likelihoods(r) for r in range(em.n_restarts)]
    fig = charts.em_restart_curves(curves, iteration=0, best=em.result.best_restart, selected=0, large=large)
    lines = [t for t in fig.data if t.mode == "lines"]
    assert lines and all(t.x[0] == 0 for t in lines)
    start = min(float(c[0]) for c in curves)
    for xaxis in (fig.layout.xaxis, fig.layout.xaxis2):  # both panels share the iterations
        lo, hi = xaxis.range
        assert lo < 0 <= hi and hi >= max(len(c) for c in curves) - 1
    # the upper panel holds the random starts (far below the optima), with a marker on each
    lo, hi = fig.layout.yaxis.range
    assert lo < start < hi and lo < max(float(c[-1]) for c in curves) < hi
    starts = [t for t in fig.data if t.mode == "markers" and t.yaxis == "y" and 0 in list(t.x)]
    assert len(starts) == len(curves)
    # the lower panel zooms on the climb: the optima of the restarts stay apart
    lo2, hi2 = fig.layout.yaxis2.range
    finals = [float(c[-1]) for c in curves]
    assert lo2 < min(finals) and max(finals) < hi2 and hi2 - lo2 < (hi - lo) / 2
    if large:
        assert fig.layout.font.size >= 18


# --------------------------------------------------------------------------- stale clicks
def test_a_stale_next_click_does_not_move_twice(app):
    """A Next click that reaches the server after the page moved on (the user clicked again before
    the rerun was drawn) must not skip a step: Next drawn for step k goes to k + 1, once."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    _open(app)
    assert _step(app) == 1
    stale_next = app.button(key=f"{KEY}_next_1")
    stale_page = stale_next.click().root.get_widget_states()  # what the browser showing step 1 sends
    app.run()
    no_exceptions(app)
    assert _step(app) == 2

    # the same click again, with every other control of the page of step 1 as the browser had it
    app._run(stale_page)
    no_exceptions(app)
    assert _step(app) == 2

    # the click of step 1's Next alone, the rest of the page current: still step 2
    fresh = app._tree.get_widget_states()
    fresh.widgets.append(WidgetState(id=stale_next.id, trigger_value=True))
    app._run(fresh)
    no_exceptions(app)
    assert _step(app) == 2

    # a click on the Next drawn for step 2 moves on, and so does Previous
    app.button(key=f"{KEY}_next_2").click().run()
    assert _step(app) == 3
    app.button(key=f"{KEY}_prev_3").click().run()
    assert _step(app) == 2


def test_a_stale_slider_value_leaves_the_step_alone(app):
    _open(app)
    stale_page = app.slider(key=f"{KEY}_at_1").root.get_widget_states()
    app.button(key=f"{KEY}_next_1").click().run()
    assert _step(app) == 2
    app._run(stale_page)  # the slider of step 1 still at 1: no move back
    no_exceptions(app)
    assert _step(app) == 2
    app.slider(key=f"{KEY}_at_2").set_value(5).run()
    assert _step(app) == 5


# --------------------------------------------------------------------------- presentation mode
def test_presentation_mode_from_the_url(app):
    _open(app, {"present": "1"})
    assert app.toggle(key="learn_present").value is True
    assert app.query_params.get("present") in ("1", ["1"])
    # one section, one step: only the clustering controls, no slider, the arrow keys on the buttons
    keys = [b.key for b in app.button]
    assert keys == ["learn_section_0", "learn_section_1", "learn_section_2", "learn_section_3", f"{KEY}_prev_1",
                    f"{KEY}_next_1"], keys
    assert app.button(key=f"{KEY}_next_1").proto.shortcut.lower() == "right"
    assert app.button(key=f"{KEY}_prev_1").proto.shortcut.lower() == "left"
    assert not [s for s in app.slider if str(s.key).startswith("learn_") and "_step_" in str(s.key)]
    assert not app.dataframe  # the corpus and "All steps" tables are folded away
    html = _html(app)
    assert any("<style>" in h and "font-size" in h for h in html)
    assert any("Step 1 of" in h and "font-size:2.1rem" in h for h in html)
    dots = app.get("graphviz_chart")
    assert len(dots) == 1 and "fontsize=26" in dots[0].proto.spec

    app.button(key=f"{KEY}_next_1").click().run()
    no_exceptions(app)
    assert _step(app) == 2 and any("Step 2 of" in h for h in _html(app))

    # the EM section alone, its chart from iteration 0 in large type
    app.button(key="learn_section_1").click().run()
    no_exceptions(app)
    assert [b.key for b in app.button][4:] == ["learn_em_step_prev_0", "learn_em_step_next_0"]
    assert app.button(key="learn_section_1").proto.type == "primary"
    assert any("Iteration 0 of" in h for h in _html(app))
    charts = app.get("plotly_chart")
    assert len(charts) == 1 and '"font":{"size":20' in charts[0].proto.spec.replace(" ", "")
    assert _step(app) == 2  # the clustering step is kept while another section is shown

    # the two fits of the same tree: EM's and the conditional likelihood's, side by side
    app.button(key="learn_section_3").click().run()
    no_exceptions(app)
    summary = app.dataframe[0].value
    assert list(summary["fit"])[0] == "EM (the thesis)" and len(summary) == 3
    cll = summary["log P(c | f) (the decision's)"].tolist()
    assert cll[2] >= cll[1]  # the conditional fit climbs from its start


def test_the_toggle_switches_presentation_mode_and_the_url(app):
    _open(app)
    assert app.toggle(key="learn_present").value is False
    assert "present" not in app.query_params
    assert len(app.get("graphviz_chart")) == 3  # normal mode: every section drawn
    app.toggle(key="learn_present").set_value(True).run()
    no_exceptions(app)
    assert app.query_params.get("present") in ("1", ["1"])
    assert len(app.get("graphviz_chart")) == 1
    app.toggle(key="learn_present").set_value(False).run()
    no_exceptions(app)
    assert "present" not in app.query_params
    assert len(app.get("graphviz_chart")) == 3
    assert not any("<style>" in h for h in _html(app))


def test_presentation_pieces():
    from hbnlab.app.views import learn as L

    assert all(L.url_flag(v) for v in ("1", "true", "Yes", "on", ["0", "1"]))
    assert not any(L.url_flag(v) for v in (None, "", "0", "false", "no", []))
    lesson = L.build_lesson(L.LessonSettings())
    dot = L.clustering_dot(lesson.clustering[2], lesson.example)
    big = L.presentation_dot(dot)
    assert "fontsize=11" in dot and "fontsize=26" in big and "fontsize=11" not in big
    assert "edge [" in big and big.count("->") == dot.count("->")
    labels = [line for line in dot.splitlines() if "label=" in line]
    assert labels == [line for line in big.splitlines() if "label=" in line]  # the nodes themselves unchanged
    card = L.step_card_html(1, 3, "<b>x</b>", "a & b", "fig. 3.5", kind="merge", large=True)
    assert "&lt;b&gt;" in card and "font-size:2.1rem" in card
    frame = L.step_matrix(lesson.clustering[1])
    if frame is not None:
        assert "font-size:clamp(1rem, 1.05vw, 1.35rem)" in L.matrix_html(frame, large=True)
    css = L.PRESENTATION_CSS.lower()  # static and offline: no script, no fetched resource
    assert css.startswith("<style>") and css.endswith("</style>")
    assert not any(bad in css for bad in ("<script", "url(", "@import", "http"))
