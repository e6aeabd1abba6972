"""A job's pages read its stored config once: the outputs of a finished job carry it parsed, and
Explain and the ranked documents take it from there instead of parsing it again."""
from __future__ import annotations

from app_testutil import wait_for_jobs


def test_explain_and_search_parse_the_jobs_config_at_most_once(data_home, monkeypatch):
    from hbnlab.app import job_client, job_outputs
    from hbnlab.pipeline.config import ExperimentConfig

    cfg = ExperimentConfig(corpus="synthetic", synthetic_size=600, n_features=10, n_restarts=1)
    job_id = job_client.submit_train(cfg, classes=["alpha"], classifiers=["NB", "HBN-OR"])
    (rec,) = wait_for_jobs(180, ids=[job_id])
    assert rec.state == "done", rec.error
    calls = []
    real = ExperimentConfig.from_dict.__func__
    monkeypatch.setattr(ExperimentConfig, "from_dict", classmethod(lambda cls, d: calls.append(1) or real(cls, d)))
    out = job_outputs.train_outputs(job_id)
    assert out.config == ExperimentConfig.from_dict(rec.result["config"])
    calls.clear()
    doc = out.doc_ids[0]
    job_outputs.explain(job_id, "alpha|HBN-OR", doc)
    job_outputs.ranked_documents(job_id, "alpha|NB", query="alpha")
    assert len(calls) <= 1, f"the job's config was parsed {len(calls)} times"
