"""Issue 38 item 7, "what I just did" as code: the Export page offers a Python script that rebuilds a
finished job with the library; run in a fresh process with a fresh data home, it prints the job's own
breakeven table (per class, micro and macro).  For an upload the script names no server path: it reads
the file from the path on its command line, the upload's name the default."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

from app_testutil import no_exceptions, wait_for_jobs

from hbnlab.pipeline.config import ExperimentConfig

#: The script fits every unit again: a deadline well above its few seconds on a loaded machine.
SCRIPT_DEADLINE = 300
SMALL = dict(n_features=8, n_restarts=2, B_or=3, random_state=5)


def _train(cfg, classes, classifiers):
    from hbnlab.app import job_client

    job = job_client.submit_train(cfg, classes=classes, classifiers=classifiers)
    (rec,) = wait_for_jobs(240, ids=[job])
    assert rec.state == "done", rec.error
    return job


def _export_script(app, cfg) -> str:
    """The script as the Export page shows it (the code view) and offers it (the download)."""
    app.query_params = {k: str(v) for k, v in cfg.to_query().items()}
    app.run()
    app.switch_page("pages/export.py").run()
    no_exceptions(app)
    (button,) = [b for b in app.get("download_button") if "as Python" in b.label]
    (code,) = [c.value for c in app.code if "fit_config_unit" in c.value]
    return code


def _run(script: str, tmp_path, *args) -> str:
    path = tmp_path / "job.py"
    path.write_text(script, encoding="utf-8")
    env = {**os.environ, "HBNLAB_DATA_HOME": str(tmp_path / "elsewhere-home")}  # nothing of the server's
    done = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=SCRIPT_DEADLINE)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def _job_table(job) -> str:
    from hbnlab.app import job_outputs
    from hbnlab.export.report import markdown_table

    return markdown_table(job_outputs.breakeven_table(job))


def test_the_script_of_a_synthetic_job_prints_the_jobs_breakeven_table(app, tmp_path):
    cfg = ExperimentConfig(corpus="synthetic", synthetic_size=500, synthetic_seed=3, **SMALL)
    job = _train(cfg, ["alpha", "bravo"], ["NB", "HBN-OR"])
    script = _export_script(app, cfg)
    assert "prepare_experiment" in script and "'synthetic_seed': 3," in script
    printed = _run(script, tmp_path)
    expected = _job_table(job)
    assert "| micro |" in expected and "| macro |" in expected
    assert printed == expected
    # the report's baseline note names the split in full (it read "on the test: micro breakeven")
    from hbnlab.app import job_outputs

    report = job_outputs.markdown_report(job)
    assert "on the test set" in report and "on the test:" not in report and "on the test," not in report
    # its Models table: NB's EM columns empty, not "None"; iterations whole numbers, not "13.000"
    models = report.split("## Models", 1)[1].split("\n\n")[1].splitlines()
    head = [c.strip() for c in models[0].strip("|").split("|")]
    rows = [dict(zip(head, (c.strip() for c in r.strip("|").split("|")))) for r in models[2:]]
    assert "None" not in report
    assert {r["EM iterations"] for r in rows if r["classifier"] == "NB"} == {""}
    assert all(r["EM iterations"].isdigit() for r in rows if r["classifier"] == "HBN-OR")
    models_csv = list(csv.DictReader(io.StringIO(job_outputs.export_tables(job)["models.csv"].decode())))
    assert {r["EM iterations"] for r in models_csv if r["classifier"] == "NB"} == {""}
    assert all(r["EM iterations"].isdigit() for r in models_csv if r["classifier"] == "HBN-OR")


def test_the_script_of_an_upload_reads_the_path_it_is_given_and_names_no_server_path(app, data_home, tmp_path):
    from hbnlab.app import corpus_data
    from hbnlab.corpus import make_synthetic_corpus

    corpus = make_synthetic_corpus(n_documents=400, random_state=1)
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["id", "text", "labels", "split"])
    for d in list(corpus.train) + list(corpus.test):
        writer.writerow([d.id, d.text, "|".join(sorted(d.labels)), d.split])
    raw = buf.getvalue().encode("utf-8")
    stored = corpus_data.store_upload(raw, "bank notes.csv", {})
    cfg = ExperimentConfig(corpus="upload", upload_path=str(stored), **SMALL)
    job = _train(cfg, ["alpha", "bravo"], ["NB", "HBN-OR"])
    script = _export_script(app, cfg)
    assert str(data_home) not in script and "uploads" not in script
    assert "'bank_notes.csv'" in script                   # the upload's name: the default argument
    # the settings JSON beside it: the upload by its name, not the server's path (issue 38, minor)
    from hbnlab.app import job_outputs
    from hbnlab.app.views.export import settings_json

    settings = json.loads(settings_json(job_outputs.train_outputs(job)))
    assert settings["upload_path"] == "bank_notes.csv" and str(data_home) not in json.dumps(settings)
    elsewhere = tmp_path / "my data"
    elsewhere.mkdir()
    (elsewhere / "bank_notes.csv").write_bytes(raw)
    printed = _run(script, tmp_path, str(elsewhere / "bank_notes.csv"))
    assert printed == _job_table(job)
