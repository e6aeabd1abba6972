"""The job table's action picker (Cancel, Retry, Resume, Delete) moves to a job submitted after an
older one was chosen (issue 38, minor: Cancel targeted the older job while the new one ran)."""
from __future__ import annotations

from app_testutil import no_exceptions

from hbnlab.app.job_widgets import job_picker_key
from hbnlab.pipeline.config import ExperimentConfig

SMALL = ExperimentConfig(synthetic_size=600, n_features=10, n_restarts=2, n_categories=2)


def _picker(app, newest):
    return app.selectbox(key=job_picker_key("train_jobs_job", newest))


def test_a_new_job_takes_the_action_picker_from_an_older_choice(app, queue_only):
    job_client = queue_only
    first = job_client.submit_train(SMALL, classes=["alpha"], classifiers=["NB"])
    second = job_client.submit_train(SMALL, classes=["bravo"], classifiers=["NB"])
    app.session_state["hbnlab.config"] = SMALL
    app.run()
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    assert _picker(app, second).value == second
    _picker(app, second).set_value(first).run()             # the analyst looks at the older job
    no_exceptions(app)
    app.run()
    assert _picker(app, second).value == first, "a choice stays while no new job comes"
    third = job_client.submit_train(SMALL, classes=["alpha", "bravo"], classifiers=["NB"])
    app.run()
    no_exceptions(app)
    assert _picker(app, third).value == third, "Cancel must target the job just submitted"
    assert not app.button(key="train_jobs_cancel").disabled
