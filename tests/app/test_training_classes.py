"""Training offers every class with training and test documents, not only the Features page's most
frequent ones; a class added there joins the experiment's classes and is trained."""
from __future__ import annotations

from app_testutil import no_exceptions, submit_training

from hbnlab.app import corpus_data


def test_a_class_outside_the_features_set_can_be_trained(app, queue_only):
    job_client = queue_only
    app.query_params = {"synthetic_size": "600", "n_features": "10", "n_categories": "2"}
    app.run()
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    box = app.multiselect(key="t_classes")
    cfg = app.session_state["hbnlab.config"]
    corpus = corpus_data.load_corpus(cfg)
    usable = corpus.categories(min_train=1, min_test=1)
    assert box.value == usable[:2] and box.options == usable and len(usable) > 2
    extra = usable[-1]
    submit_training(app, ["NB"], restarts=2, classes=[usable[0], extra])
    no_exceptions(app)
    (job,) = job_client.list_jobs()
    assert job.spec.params["classes"] == [usable[0], extra]
    assert list(app.session_state["hbnlab.config"].categories) == usable[:2] + [extra]
