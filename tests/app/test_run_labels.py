"""Issue 38, minors: Compare and the job pickers named two runs of one learner alike ("#2 · HBN-DEP",
"#3 · HBN-DEP"); each now says its terms, B and alpha.  Tuning's job list said "No jobs yet" while
training jobs existed; it says what it lists and where the training jobs are."""
from __future__ import annotations

from app_testutil import no_exceptions, texts, wait_for_jobs

from hbnlab.app.views.compare import system_label
from hbnlab.app.views.jobs import empty_jobs_text, run_settings
from hbnlab.pipeline.config import ExperimentConfig

BASE = ExperimentConfig(corpus="synthetic", synthetic_size=400, n_features=6, n_restarts=1, B_or=3)


def test_a_system_label_names_terms_b_and_alpha_of_its_own_learner():
    result = {"config": ExperimentConfig(n_features=30, B_dep=7, alpha_dep=170.0).to_dict(),
              "classifiers": ["NB", "HBN-DEP", "HBN-OR"]}
    assert system_label(2, "HBN-DEP", result) == "#2 · HBN-DEP · 30 terms · B 7, α 170"
    assert system_label(2, "HBN-OR", result) == "#2 · HBN-OR · 30 terms · B 9, α 0.09"
    assert system_label(2, "NB", result) == "#2 · NB · 30 terms"
    assert run_settings(result) == "30 terms · OR B 9, α 0.09; DEP B 7, α 170"
    tuned = {**result, "class_settings": {"earn": {"n_features": 50, "B": 5, "alpha": 100.0}}}
    assert system_label(3, "HBN-DEP", tuned) == "#3 · HBN-DEP · terms per class · B and α per class"
    assert system_label(4, "NB", {"config": {"corpus": "nonsense"}}) == "#4 · NB"   # unreadable: the key


def test_empty_job_list_says_what_it_lists_and_where_the_others_are():
    assert empty_jobs_text("tune", {"train": 1}) == "No tuning sweeps yet; 1 training job is on Training."
    assert empty_jobs_text("tune", {"train": 3, "tune": 0}) == "No tuning sweeps yet; 3 training jobs are on Training."


def test_compare_and_the_job_pickers_tell_two_runs_of_one_learner_apart(app):
    from hbnlab.app import job_client

    jobs = []
    for cfg in (BASE, BASE.replace(B_or=4, alpha_or=0.2)):
        jobs.append(job_client.submit_train(cfg, classes=["alpha"], classifiers=["HBN-OR", "NB"]))
    recs = wait_for_jobs(240, ids=jobs)
    assert all(r.state == "done" for r in recs), [r.error for r in recs]
    first, second = jobs
    app.query_params = {k: str(v) for k, v in BASE.to_query().items()}
    app.run()
    app.switch_page("pages/compare.py").run()
    no_exceptions(app)
    options = app.multiselect(key="c_systems").options
    assert f"#{first} · HBN-OR · 6 terms · B 3, α 0.09" in options
    assert f"#{second} · HBN-OR · 6 terms · B 4, α 0.2" in options
    assert f"#{first} · NB · 6 terms" in options

    app.switch_page("pages/evaluation.py").run()
    no_exceptions(app)
    picker = next(s for s in app.selectbox if s.label == "Training job")
    assert any(o.startswith(f"#{second} · ") and o.endswith("· 6 terms · B 4, α 0.2") for o in picker.options), \
        picker.options

    app.switch_page("pages/tuning.py").run()
    no_exceptions(app)
    captions = texts(app, "caption")
    assert "No tuning sweeps yet; 2 training jobs are on Training." in captions, captions
    assert "No jobs yet." not in captions
