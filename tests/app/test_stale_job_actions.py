"""A Delete or Cancel pressed in a stale tab (issue 37 item 12): the button carries the job's state
and attempt as the tab showed them, and the registry refuses the action, with a message on the page,
when another tab has retried the job since -- even when the new attempt ended in the same state."""
from __future__ import annotations

import os

from app_testutil import no_exceptions, texts

from hbnlab.pipeline.config import ExperimentConfig

CFG = ExperimentConfig(corpus="synthetic", synthetic_size=600, n_features=10, n_restarts=2)


def _fail_once(reg, jid, error):
    [c] = reg.claim("local", worker_pid=os.getpid(), worker="test")
    assert c.job_id == jid
    reg.finish(jid, c.attempt, "failed", error=error)
    return c.attempt


def test_a_delete_from_a_stale_tab_is_refused_with_a_message(app, queue_only):
    job_client = queue_only
    reg = job_client.registry()
    jid = job_client.submit_train(CFG, classes=["alpha"], classifiers=["NB"])
    assert _fail_once(reg, jid, "boom") == 1
    app.run()
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    delete = app.button(key="train_jobs_delete")
    assert not delete.disabled  # this tab shows job #1 failed, attempt 1

    reg.retry(jid)  # another tab: Retry, and the new attempt fails again
    assert _fail_once(reg, jid, "boom again") == 2

    delete.click().run()
    no_exceptions(app)
    assert reg.get(jid).attempt == 2  # not deleted
    assert any(f"job {jid} is now failed (attempt 2), not failed (attempt 1) as shown when Delete was pressed"
               in w for w in texts(app, "warning")), texts(app, "warning")

    app.button(key="train_jobs_delete").click().run()  # pressed against what the tab now shows: deleted
    no_exceptions(app)
    assert job_client.list_jobs() == []
