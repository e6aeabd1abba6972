"""Jobs survive the app process: a job started by one app process is listed by the next one
(finished or interrupted, never lost), can be resumed, and its model loads."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
from app_testutil import frame_with, no_exceptions, wait_for_jobs

from hbnlab.app.job_widgets import job_picker_key

ROOT = Path(__file__).resolve().parents[2]

# An "app process": the workbench's services in bare mode (no browser), submitting one job.
APP_PROCESS = textwrap.dedent("""
    import json, os, signal, sys, time
    from hbnlab.app import job_client, job_outputs
    from hbnlab.pipeline.config import ExperimentConfig

    cfg = ExperimentConfig(**json.loads(sys.argv[1]))
    job = job_client.submit_train(cfg, classifiers=json.loads(sys.argv[2]))
    print(job, flush=True)
    mode = sys.argv[3]
    while True:  # wait until some models are trained, then end as the test asks
        rec = job_client.get_job(job)
        if rec.state not in ("queued", "running"):
            break
        if mode == "exit" and (rec.progress or {}).get("unit", 0) >= 3:
            # freeze the worker so the job cannot finish before this app exits: the exit must
            # find it running (the runner then kills the worker and marks the job interrupted)
            os.kill(rec.worker_pid, signal.SIGSTOP)
            break
        time.sleep(0.01)
    print(job_client.get_job(job).state, flush=True)
    if mode == "exit":
        sys.exit(0)   # a normal app exit: the runner stops running jobs, they become interrupted
    time.sleep(600)   # mode "kill": the test SIGKILLs this process
""")


def _app_process(data_home, cfg: dict, classifiers, mode):
    env = {**os.environ, "HBNLAB_DATA_HOME": str(data_home), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", APP_PROCESS, json.dumps(cfg), json.dumps(classifiers), mode],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _check_models_load(job_id):
    from hbnlab.app import corpus_data, job_client, job_outputs
    from hbnlab.pipeline import tasks as T
    from hbnlab.pipeline.config import ExperimentConfig

    out = job_outputs.train_outputs(job_id)
    data = corpus_data.experiment(ExperimentConfig.from_dict(out.result["config"]))
    X_eval = data.split(out.stage)[2]
    for k, key in enumerate(out.columns):
        est, meta = T.load_model(job_client.read_artifact(out.unit(key)["model"]))
        assert f"{meta['class']}|{meta['classifier']}" == key
        np.testing.assert_allclose(est.predict_proba(X_eval)[:, 1], out.S[:, k])


def test_app_killed_mid_job_the_job_is_not_lost(data_home):
    cfg = {"synthetic_size": 1200, "n_features": 12, "n_restarts": 16}
    proc = _app_process(data_home, cfg, ["HBN-OR", "NB"], "kill")
    job_id = int(proc.stdout.readline())
    time.sleep(1.0)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    # the next app process: a new registry + runner over the same data home
    from hbnlab.app import job_client

    assert job_client.get_job(job_id).state in ("queued", "running", "done", "interrupted")
    (rec,) = wait_for_jobs(180, ids=[job_id])
    if rec.state == "interrupted":  # the worker died with the app: resume it
        job_client.resume_job(job_id)
        (rec,) = wait_for_jobs(180, ids=[job_id])
    assert rec.state == "done", rec.error
    _check_models_load(job_id)


def test_app_restart_interrupts_then_resume_reuses_finished_models(app, data_home):
    cfg = {"synthetic_size": 1500, "n_features": 15, "n_restarts": 256}
    proc = _app_process(data_home, cfg, ["NB", "HBN-DEP"], "exit")
    job_id = int(proc.stdout.readline())
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    from hbnlab.app import job_client

    rec = job_client.get_job(job_id)
    assert rec.state == "interrupted", (rec.state, rec.error, out)
    # the restarted app lists it as interrupted, and Resume works through the widgets
    app.run()
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    table = frame_with(app, "state", "attempt")
    assert table.loc[table["id"] == job_id, "state"].tolist() == ["interrupted"]
    newest = max(r.id for r in job_client.list_jobs())
    app.selectbox(key=job_picker_key("train_jobs_job", newest)).set_value(job_id).run()
    app.button(key="train_jobs_resume").click().run()
    no_exceptions(app)
    (rec,) = wait_for_jobs(240, ids=[job_id])
    assert rec.state == "done", rec.error
    assert rec.attempt == 2
    assert rec.result["resumed_units"] >= 2, "models finished before the restart are reused"
    assert any("reused from the interrupted attempt" in line for line in job_client.job_logs(job_id))
    _check_models_load(job_id)
