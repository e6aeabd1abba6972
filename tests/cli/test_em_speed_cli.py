"""The EM speed options of the tree learners from the command line and from a manifest: ``hbnlab
train --param`` and a manifest's classifier ``params`` take ``acceleration``, ``screen_iter`` and
``screen_keep``, and the model file records them."""
from __future__ import annotations

import json

from hbnlab.cli import main
from hbnlab.experiments.manifest import ExperimentManifest, run_manifest
from hbnlab.export.model_io import load_model


def test_train_param_sets_the_em_speed_options(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path / "home"))
    model = tmp_path / "m.hbnlab"
    assert main(["train", "--corpus", "synthetic", "--synthetic-size", "300", "--class", "alpha",
                 "--classifier", "hnb-or", "--n-features", "10", "--n-restarts", "4", "--param", "acceleration=squarem",
                 "--param", "screen_iter=2", "--param", "screen_keep=2", "--out", str(model)]) == 0
    assert "trained HNB-OR for 'alpha'" in capsys.readouterr().out
    m = load_model(model)
    assert (m.estimator.acceleration, m.estimator.screen_iter, m.estimator.screen_keep) == ("squarem", 2, 2)
    settings = m.estimator.em_result_.settings
    assert settings["acceleration"] == "squarem" and len(settings["screened_out"]) == 2
    assert m.provenance["classifier_params"] == {"n_restarts": 4, "acceleration": "squarem", "screen_iter": 2,
                                                 "screen_keep": 2}


def test_a_manifest_runs_with_the_em_speed_options(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path / "home"))
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({
        "corpus": {"kind": "synthetic", "seed": 1, "size": 300}, "n_categories": 1, "n_features": 10,
        "classifiers": [{"name": "HBN-OR", "params": {"n_restarts": 4, "acceleration": "squarem", "screen_iter": 2,
                                                       "screen_keep": 3}},
                        {"name": "HNB-AVG", "params": {"n_restarts": 2, "acceleration": None}}],
    }), encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["run", str(manifest), "--out", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert set(result["classifiers"]) == {"HBN-OR (10)", "HNB-AVG (10)"}
    # the report's settings keep the manifest's classifier parameters
    specs = result["classifier_specs"]
    assert specs["HBN-OR (10)"]["params"]["acceleration"] == "squarem"
    assert specs["HNB-AVG (10)"]["params"]["acceleration"] is None
    models = run_manifest(ExperimentManifest.load(manifest), keep_models=True).models
    (hbn,) = models["HBN-OR (10)"].values()
    assert hbn.em_result_.settings["acceleration"] == "squarem"
    assert hbn.em_result_.settings["screen_keep"] == 3 and len(hbn.em_result_.settings["screened_out"]) == 1
    (hnb,) = models["HNB-AVG (10)"].values()
    assert "acceleration" not in hnb.em_result_.settings
