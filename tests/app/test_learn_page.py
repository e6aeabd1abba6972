"""The Learn page through AppTest: it needs no corpus, every step control moves the step, and
the numbers shown are the traces' own."""
from __future__ import annotations

import pytest
from app_testutil import frame_with, no_exceptions


def _open(app):
    app.run()
    no_exceptions(app)
    app.switch_page("pages/learn.py").run()
    no_exceptions(app)
    return app


def _slider(app, key):
    """The step slider of ``key`` (its widget key ends in the step it was drawn for)."""
    return next(s for s in app.slider if str(s.key).startswith(f"{key}_at_"))


def _button(app, key, control):
    """The Previous ("prev") or Next ("next") button of ``key``, drawn for the current step."""
    return next(b for b in app.button if str(b.key).startswith(f"{key}_{control}_"))


def _cards(app) -> list[str]:
    """The step cards (the other HTML elements are matrices)."""
    return [h.proto.body for h in app.get("html") if "</span>Step " in h.proto.body
            or "</span>Iteration " in h.proto.body]


def test_learn_page_renders_without_a_loaded_corpus(app):
    _open(app)
    assert app.title[0].value == "Learn"
    assert not app.error
    cards = _cards(app)
    assert len(cards) == 3  # one step card per section
    assert "Step 1 of" in cards[0] and "fig. 3.5" in cards[0]
    assert len(app.get("graphviz_chart")) == 3  # clustering tree, EM tree, inference tree
    corpus = frame_with(app, "text", "trade", "tariff")
    assert len(corpus) == 16


@pytest.mark.parametrize("key", ["learn_clu_step", "learn_em_step", "learn_inf_step"])
def test_every_step_control_moves_the_step(app, key):
    _open(app)
    section = ["learn_clu_step", "learn_em_step", "learn_inf_step"].index(key)
    unit = "Iteration" if key == "learn_em_step" else "Step"
    first = int(_slider(app, key).min)  # EM counts iterations from 0 (the random start)
    assert _slider(app, key).value == first
    assert _button(app, key, "prev").disabled
    _button(app, key, "next").click().run()
    no_exceptions(app)
    assert _slider(app, key).value == first + 1
    assert f"{unit} {first + 1} of" in _cards(app)[section]
    _button(app, key, "next").click().run()
    _button(app, key, "prev").click().run()
    no_exceptions(app)
    assert _slider(app, key).value == first + 1
    last = int(_slider(app, key).max)
    _slider(app, key).set_value(last).run()
    no_exceptions(app)
    assert _slider(app, key).value == last
    assert _button(app, key, "next").disabled
    assert f"{unit} {last} of {last}" in _cards(app)[section]
    _button(app, key, "prev").click().run()
    assert _slider(app, key).value == last - 1


@pytest.mark.parametrize("clustering", ["avg", "or", "dep"])
def test_each_clustering_steps_to_the_finished_tree(app, clustering):
    _open(app)
    app.selectbox(key="learn_clustering").set_value(clustering).run()
    no_exceptions(app)
    last = int(_slider(app, "learn_clu_step").max)
    _slider(app, "learn_clu_step").set_value(last).run()
    no_exceptions(app)
    assert "The structure is complete" in _cards(app)[0]
    if clustering == "dep":
        kinds = frame_with(app, "kind", "what happens")["kind"].tolist()
        assert "improve" in kinds


def test_a_shorter_sequence_clamps_the_step(app):
    _open(app)
    _slider(app, "learn_clu_step").set_value(_slider(app, "learn_clu_step").max).run()
    app.slider(key="learn_B").set_value(4).run()
    no_exceptions(app)
    assert _slider(app, "learn_clu_step").value == _slider(app, "learn_clu_step").max


def test_em_restart_and_inference_document_pickers(app):
    _open(app)
    app.selectbox(key="learn_em_restart").set_value(0).run()
    no_exceptions(app)
    table = frame_with(app, "restart", "log-likelihood", "final")
    assert table["best"].sum() == 1
    app.radio(key="learn_direction").set_value("hnb").run()
    no_exceptions(app)
    app.selectbox(key="learn_doc").set_value(8).run()
    no_exceptions(app)
    check = frame_with(app, "traced", "library")
    assert check["|difference|"].max() <= 1e-12
    last = int(_slider(app, "learn_inf_step").max)
    _slider(app, "learn_inf_step").set_value(last).run()
    no_exceptions(app)
    assert "P(" in _cards(app)[2]


def test_card_text_is_escaped():
    from hbnlab.app.views.learn import step_card_html

    html = step_card_html(1, 2, "<script>x</script>", "a & b", "thesis fig. 3.6")
    assert "<script>" not in html and "&lt;script&gt;" in html and "a &amp; b" in html
