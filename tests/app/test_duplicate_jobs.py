"""A second identical submission (Enter in a number field submits the form, then the Train click)
starts nothing: it names the job of those settings that is already queued or running."""
from __future__ import annotations

import pytest
from app_testutil import no_exceptions, submit_training

from hbnlab.pipeline.config import ExperimentConfig

CFG = ExperimentConfig(corpus="synthetic", synthetic_size=600, n_features=10, n_restarts=2)


def test_an_identical_submission_names_the_active_job_and_queues_nothing(queue_only):
    job_client = queue_only
    first = job_client.submit_train(CFG, classes=["alpha"], classifiers=["NB"])
    with pytest.raises(job_client.DuplicateJob, match=f"already queued as job #{first}; no second job") as dup:
        job_client.submit_train(CFG, classes=["alpha"], classifiers=["NB"], label="another label, same work")
    assert (dup.value.job_id, dup.value.state) == (first, "queued")
    assert [r.id for r in job_client.list_jobs()] == [first]

    # anything that changes the work is a new job: classes, learners, stage, config, seed
    others = [job_client.submit_train(CFG, classes=["alpha", "bravo"], classifiers=["NB"]),
              job_client.submit_train(CFG, classes=["alpha"], classifiers=["NB", "HBN-OR"]),
              job_client.submit_train(CFG, classes=["alpha"], classifiers=["NB"], stage="validation"),
              job_client.submit_train(CFG.replace(n_restarts=3), classes=["alpha"], classifiers=["NB"]),
              job_client.submit_train(CFG.replace(random_state=1), classes=["alpha"], classifiers=["NB"])]
    assert len(set(others) | {first}) == 6

    # a finished (here: cancelled) job may be run again
    job_client.registry().request_cancel(first)
    again = job_client.submit_train(CFG, classes=["alpha"], classifiers=["NB"])
    assert again not in (first, *others)


def test_an_identical_tuning_grid_is_not_queued_twice(queue_only):
    job_client = queue_only
    first = job_client.submit_tune(CFG, "HBN-OR", [3], [0.0, 0.1], [10], ["alpha"])
    with pytest.raises(job_client.DuplicateJob) as dup:
        job_client.submit_tune(CFG, "HBN-OR", [3], [0.0, 0.1], [10], ["alpha"])
    assert dup.value.job_id == first
    assert job_client.submit_tune(CFG, "HBN-OR", [3, 5], [0.0, 0.1], [10], ["alpha"]) != first


def test_the_training_form_submitted_twice_starts_one_job_and_says_so(app, queue_only):
    job_client = queue_only
    app.query_params = {"synthetic_size": "600", "n_features": "10"}
    app.run()
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    submit_training(app, ["NB"], restarts=2, classes=["alpha"])   # Enter in "EM restarts"
    no_exceptions(app)
    (job,) = job_client.list_jobs()
    assert any(f"Submitted training job #{job.id}" in s.value for s in app.success)
    submit_training(app, ["NB"], restarts=2, classes=["alpha"])   # ... then the Train click
    no_exceptions(app)
    assert [r.id for r in job_client.list_jobs()] == [job.id]
    assert any(f"These settings are already queued as job #{job.id}; no second job was started." in s.value
               for s in app.success), [s.value for s in app.success]
    assert app.session_state["hbnlab.last_train_job"] == job.id


def test_a_grid_with_costly_cells_names_them_and_runs_only_when_confirmed(app, queue_only):
    """B = 7 and 9 with 3 hidden states have tables of 2,187 and 19,683 rows against the grid's
    median of 185.5: they are named before anything runs, and the grid is queued on the go-ahead."""
    job_client = queue_only
    app.query_params = {"synthetic_size": "600", "n_features": "10"}
    app.run()
    app.switch_page("pages/tuning.py").run()
    no_exceptions(app)
    app.selectbox(key="u_algo").set_value("HBN-OR")
    app.multiselect(key="u_classes").set_value(["alpha"])
    app.multiselect(key="u_B").set_value([3, 5, 7, 9])
    app.text_input(key="u_alpha").input("0.09")
    app.multiselect(key="u_k").set_value([2, 3])
    app.button(key="FormSubmitter:tune_form-Run the grid").click().run()
    no_exceptions(app)
    assert job_client.list_jobs() == []
    (warning,) = [w.value for w in app.warning if "cost far more" in w.value]
    assert "B = 7 with 3 hidden states: tables of 2,187 rows, about 11.8x" in warning
    assert "B = 9 with 3 hidden states: tables of 19,683 rows, about 106.1x" in warning
    assert "B = 5" not in warning
    app.button(key="u_run_costly").click().run()
    no_exceptions(app)
    (job,) = job_client.list_jobs()
    assert job.spec.params["B_values"] == [3, 5, 7, 9] and job.spec.params["hidden_states_values"] == [2, 3]
    assert any(f"Submitted tuning job #{job.id}: 8 cells x 1 classes." in s.value for s in app.success)
    assert not [w for w in app.warning if "cost far more" in w.value]


def test_a_grid_without_costly_cells_is_queued_at_once(app, queue_only):
    job_client = queue_only
    app.query_params = {"synthetic_size": "600", "n_features": "10"}
    app.run()
    app.switch_page("pages/tuning.py").run()
    app.selectbox(key="u_algo").set_value("HBN-OR")
    app.multiselect(key="u_classes").set_value(["alpha"])
    app.multiselect(key="u_B").set_value([3, 5, 7, 9])
    app.multiselect(key="u_k").set_value([2])
    app.button(key="FormSubmitter:tune_form-Run the grid").click().run()
    no_exceptions(app)
    assert len(job_client.list_jobs()) == 1 and not [w for w in app.warning if "cost far more" in w.value]
