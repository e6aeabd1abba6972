"""hbnlab.pipeline.script: the job's script for every corpus source is valid Python holding no server path;
an uploaded stop list travels as its words; per-class settings become the config fields the train
task replaces.  (The script of a finished job against the job's own table: tests/app/test_export_script.py.)"""
from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

from hbnlab.pipeline.config import ExperimentConfig
from hbnlab.pipeline.script import class_overrides, job_script, shareable_config

SERVER = "/srv/hbn-home"


@pytest.mark.parametrize("cfg", [
    ExperimentConfig(corpus="synthetic", synthetic_size=400),
    ExperimentConfig(corpus="reuters", reuters_dir=f"{SERVER}/reuters"),
    ExperimentConfig(corpus="upload", upload_path=f"{SERVER}/uploads/0123456789abcdef/данные.csv",
                     upload_text_column="body", upload_newsgroup_strip=True),
    ExperimentConfig(corpus="upload", upload_path=f'{SERVER}/uploads/0123456789abcdef/a"""b.csv'),
])
def test_the_script_is_python_and_names_no_server_path(cfg):
    script = job_script(cfg, classes=["earn", "oil, crude"], classifiers=["NB", "HBN-DEP"], job_id=4)
    ast.parse(script)
    assert SERVER not in script and "uploads" not in script
    if cfg.corpus == "upload":
        name = cfg.upload_path.rsplit("/", 1)[1]
        assert f"UPLOAD_NAME = {name!r}" in script and 'parser.add_argument("corpus"' in script


def test_shareable_config_keeps_the_uploads_name_only():
    cfg = ExperimentConfig(corpus="upload", upload_path=f"{SERVER}/uploads/0123456789abcdef/bank.csv").to_dict()
    out = shareable_config(cfg)
    assert out["upload_path"] == "bank.csv" and SERVER not in repr(out)
    assert ExperimentConfig.from_dict(out).upload_path == "bank.csv"          # still a config
    assert shareable_config({"reuters_dir": f"{SERVER}/r"})["reuters_dir"] == ""


def test_class_settings_become_the_fields_of_the_tree_learners_clusterings():
    own = {"earn": {"n_features": 50, "B": 5, "alpha": 0.1, "hidden_states": 3}, "acq": {"n_features": 20}}
    assert class_overrides(own, ["NB", "HBN-OR", "HNB-OR"]) == {
        "earn": {"n_features": 50, "B_or": 5, "alpha_or": 0.1, "hidden_states": 3}, "acq": {"n_features": 20}}
    assert class_overrides(own, ["NB"]) == {"earn": {"n_features": 50}, "acq": {"n_features": 20}}


def test_an_uploaded_stop_list_travels_as_its_words(tmp_path, monkeypatch):
    from hbnlab.pipeline.stop_lists import store_own_stop_list

    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path / "server"))
    name = store_own_stop_list(b"model\nmodels\nword\n", "mine.txt")
    cfg = ExperimentConfig(corpus="synthetic", synthetic_size=300, n_features=5, stopwords=name, classifiers=("NB",))
    script = job_script(cfg, classes=["alpha"])
    assert name not in script and "'model'," in script
    path = tmp_path / "job.py"
    path.write_text(script, encoding="utf-8")
    env = {**os.environ, "HBNLAB_DATA_HOME": str(tmp_path / "elsewhere")}
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "| alpha |" in done.stdout and "| micro |" in done.stdout
    assert (tmp_path / "elsewhere" / "stoplists" / f"{name[4:]}.txt").is_file()   # the same list, by its words
