"""The result pages follow the newest finished job unless one is pinned, and mark a job trained
on another corpus than the current one."""
from __future__ import annotations

from app_testutil import no_exceptions, wait_for_jobs


def _train(cfg, classes, classifiers):
    from hbnlab.app import job_client

    job_id = job_client.submit_train(cfg, classes=classes, classifiers=classifiers)
    (rec,) = wait_for_jobs(180, ids=[job_id])
    assert rec.state == "done", rec.error
    return job_id


def _captions(at):
    return [c.value for c in at.caption]


def _picker(at, key, newest):
    """The job picker ``key`` of the page while job ``newest`` is the newest finished one."""
    from hbnlab.app.job_widgets import job_picker_key

    return at.selectbox(key=job_picker_key(key, newest))


def test_evaluation_follows_the_newest_job_until_pinned(app):
    from hbnlab.pipeline.config import ExperimentConfig

    app.run()
    app.button(key="start_synthetic").click().run()
    no_exceptions(app)
    base = ExperimentConfig(corpus="synthetic", synthetic_size=600, n_features=10, n_restarts=1)
    first = _train(base, ["alpha"], ["NB"])
    app.session_state["hbnlab.config"] = base
    app.switch_page("pages/evaluation.py").run()
    no_exceptions(app)
    assert _picker(app, "e_job", first).value == first
    assert any("Following the newest" in c for c in _captions(app))

    # a job on another corpus finishes while the page is open: the page moves to it and says
    # that it was trained on another corpus
    other = _train(base.replace(synthetic_seed=7), ["alpha"], ["NB"])
    app.run()
    no_exceptions(app)
    assert _picker(app, "e_job", other).value == other
    assert any(f"Job #{other} was trained on another corpus" in w.value for w in app.warning)
    assert any("other corpus: synthetic (seed 7" in o for o in _picker(app, "e_job", other).options)

    # choosing the older job pins it: a newer job does not take over, the caption says so
    _picker(app, "e_job", other).set_value(first).run()
    no_exceptions(app)
    third = _train(base, ["bravo"], ["NB"])
    app.run()
    no_exceptions(app)
    assert _picker(app, "e_job", third).value == first
    assert any(f"Pinned to job #{first}; the newest finished job is #{third}" in c for c in _captions(app))
    assert not any("another corpus" in w.value for w in app.warning)

    # the pin is shared with the Training page's picker; "Follow the newest" releases it
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    assert _picker(app, "t_trace_job", third).value == first
    app.button(key="t_trace_job_follow").click().run()
    no_exceptions(app)
    assert _picker(app, "t_trace_job", third).value == third

    # a job pinned when it was submitted and still the newest: the caption does not contradict itself
    from hbnlab.app import state

    app.session_state[state.EVAL_JOB] = third  # the pin the Training and Evaluation pickers share
    app.run()
    no_exceptions(app)
    assert any(f"Pinned to job #{third}, the newest finished job for now" in c for c in _captions(app))
    assert not any(f"the newest finished job is #{third}" in c for c in _captions(app))


def test_score_format_shows_large_scores_in_full():
    import numpy as np

    from hbnlab.app.views import score_format

    assert score_format(np.array([4422.43, 3085.60])) % 4422.43 == "4422.4"
    assert score_format(np.array([0.0123, 0.2])) % 0.0123 == "0.01230"
    assert score_format(np.array([12.5])) % 12.5 == "12.500"
    assert score_format(np.array([])) % 1.0 == "1.0000"


def test_quick_demo_preset_trains_three_classes_on_the_current_corpus_without_reuters(app, monkeypatch):
    """Without Reuters at hand the demo preset runs on the current corpus: 3 classes, HBN-OR and NB,
    16 restarts, evaluated on the test set; the Evaluation page then shows that job."""
    from app_testutil import frame_with

    monkeypatch.delenv("HBNLAB_REUTERS_DIR", raising=False)
    app.run()
    app.button(key="start_synthetic").click().run()
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    app.button(key="t_preset_demo").click().run()
    no_exceptions(app)
    assert any("Quick demo" in s.value for s in app.success)
    (rec,) = wait_for_jobs(240)
    assert rec.state == "done", rec.error
    cfg = rec.spec.params["config"]
    assert cfg["corpus"] == "synthetic" and cfg["n_restarts"] == 16 and cfg["classifiers"] == ["HBN-OR", "NB"]
    assert len(rec.spec.params["classes"]) == 3 and rec.spec.params["stage"] == "test"
    app.switch_page("pages/evaluation.py").run()
    no_exceptions(app)
    table = frame_with(app, "class", index=True)
    assert list(table.columns) == ["HBN-OR", "NB"] and len(table) == 3 + 2


def test_compare_page_two_systems_with_intervals(app):
    """Two classifiers of one job side by side; the paired bootstrap table and the verdict."""
    from app_testutil import frame_with

    from hbnlab.pipeline.config import ExperimentConfig

    app.run()
    app.switch_page("pages/compare.py").run()
    no_exceptions(app)
    assert any("at least two trained classifiers" in i.value for i in app.info)
    base = ExperimentConfig(corpus="synthetic", synthetic_size=600, n_features=10, n_restarts=2)
    job = _train(base, ["alpha", "bravo"], ["NB", "HBN-OR"])
    app.session_state["hbnlab.config"] = base
    app.run()
    no_exceptions(app)
    assert app.multiselect(key="c_systems").value == [f"#{job} · NB", f"#{job} · HBN-OR"]
    table = frame_with(app, f"#{job} · HBN-OR − #{job} · NB")
    assert list(table.index) == ["alpha", "bravo", "micro", "macro"]
    diff = table[f"#{job} · HBN-OR − #{job} · NB"]
    assert (diff == table[f"#{job} · HBN-OR"] - table[f"#{job} · NB"]).all()
    app.select_slider(key="c_boot").set_value(200).run()
    no_exceptions(app)
    boot = frame_with(app, "difference", "95% low", "95% high", "p", index=False)
    assert len(boot) == 4 and (boot["95% low"] <= boot["difference"] + 1e-9).all()
    assert any("micro breakeven" in i.value and "points against" in i.value for i in app.info)


def test_compare_page_does_not_pair_jobs_of_different_corpora(app):
    """Two jobs on synthetic corpora of seeds 0 and 7 share their document ids: Compare shows both
    columns, marks the other corpus's, and refuses the paired verdict with a message naming both."""
    import pytest
    from app_testutil import frame_with, shown

    from hbnlab.pipeline.config import ExperimentConfig

    base = ExperimentConfig(corpus="synthetic", synthetic_size=600, n_features=10, n_restarts=1)
    first = _train(base, ["alpha"], ["NB"])
    second = _train(base.replace(synthetic_seed=7), ["alpha"], ["NB"])
    app.session_state["hbnlab.config"] = base
    app.run()
    app.switch_page("pages/compare.py").run()
    no_exceptions(app)
    app.multiselect(key="c_systems").set_value([f"#{first} · NB", f"#{second} · NB"]).run()
    no_exceptions(app)
    assert not app.error, [e.value for e in app.error]
    table = frame_with(app, f"#{second} · NB (other corpus)")
    assert list(table.columns) == [f"#{first} · NB", f"#{second} · NB (other corpus)"]
    warnings = [shown(w.value) for w in app.warning]
    assert any(w.startswith(f"#{second} · NB was trained on another corpus (synthetic (seed 7, 600 documents)")
               for w in warnings), warnings
    assert any(f"#{first} · NB and #{second} · NB were trained on different corpora: synthetic (seed 0, 600 "
               f"documents)" in w and "synthetic (seed 7, 600 documents)" in w for w in warnings), warnings
    assert not any("points against" in i.value for i in app.info)
    with pytest.raises(AssertionError):
        frame_with(app, "difference", "95% low", "95% high", "p")
