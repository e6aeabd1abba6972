"""Experiment manifests: schema, errors naming the field, and exact reruns."""
from __future__ import annotations

import json

import numpy as np
import pytest

from hbnlab.experiments.manifest import ClassifierSpec, CorpusSpec, ExperimentManifest, ManifestError, run_manifest
from hbnlab.export.report import ExperimentResult
from hbnlab.text import IndexingConfig

SMALL = {
    "name": "rerun test",
    "corpus": {"kind": "synthetic", "seed": 3, "size": 500},
    "n_categories": 2,
    "classifiers": [{"name": "NB"}, {"name": "SVM", "params": {"C": 0.5}}, {"name": "KDB", "params": {"k": 1}},
                    {"name": "HBN-OR", "params": {"n_restarts": 3}}, {"name": "HNB-AVG", "params": {"n_restarts": 2},
                                                                      "n_features": 8}],
    "n_features": 12,
    "random_state": 7,
}


@pytest.fixture(scope="module")
def manifest():
    return ExperimentManifest.from_dict(SMALL)


@pytest.fixture(scope="module")
def result(manifest):
    return run_manifest(manifest, keep_models=True)


def test_round_trip_and_defaults(manifest, tmp_path):
    d = manifest.to_dict()
    assert d["format"] == "hbnlab-experiment-manifest" and d["format_version"] == 1
    assert d["indexing"] == IndexingConfig().to_dict() and d["stage"] == "test" and d["selection"] == "ig"
    assert ExperimentManifest.from_dict(d) == manifest
    p = manifest.save(tmp_path / "m.json")
    assert ExperimentManifest.load(p) == manifest
    assert json.loads(p.read_text())["classifiers"][1] == {"name": "SVM", "params": {"C": 0.5}}


@pytest.mark.parametrize("patch, field, fragment", [
    ({"classifiers": [{"name": "NB"}, {"name": "XGBOOST"}]}, "classifiers[1].name", "unknown classifier"),
    ({"classifiers": [{"name": "NB", "params": {"N0": [1, {"a": 2}]}}]}, "classifiers[0].params.N0[1]", "unsupported"),
    ({"classifiers": [{"name": "NB", "params": {"random_state": 3}}]}, "classifiers[0].params.random_state", "set by"),
    ({"classifiers": []}, "classifiers", "at least one"),
    ({"classifiers": [{"name": "NB"}, {"name": "nb"}]}, "classifiers", "both named"),
    ({"stage": "train"}, "stage", "must be one of"),
    ({"n_features": 0}, "n_features", ">= 1"),
    ({"n_features": True}, "n_features", "integer"),
    ({"random_state": -1}, "random_state", ">= 0"),
    ({"selection": "magic"}, "selection", "must be one of"),
    ({"corpus": {"kind": "ftp"}}, "corpus.kind", "must be one of"),
    ({"corpus": {"kind": "path"}}, "corpus.path", "needs a path"),
    ({"corpus": {"kind": "synthetic", "size": 3}}, "corpus.size", ">= 8"),
    ({"corpus": {"kind": "synthetic", "sede": 3}}, "corpus.sede", "unknown field"),
    ({"indexing": {"stemming": "lancaster"}}, "indexing", "stemming"),
    ({"categories": ["a", "a"]}, "categories", "twice"),
    ({"fingerprint": "abc"}, "fingerprint", "SHA-256"),
    ({"format_version": 9}, "format_version", "not supported"),
    ({"colour": "blue"}, "colour", "unknown field"),
])
def test_errors_name_the_field(patch, field, fragment):
    with pytest.raises(ManifestError) as ei:
        ExperimentManifest.from_dict({**SMALL, **patch})
    assert ei.value.field == field
    assert f"{field!r}" in str(ei.value) and fragment in str(ei.value)


def test_load_names_the_file(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"corpus": {"kind": "synthetic"}, "classifiers": [{"name": "HAL"}]}')
    with pytest.raises(ManifestError, match=r"bad\.json: manifest field 'classifiers\[0\]\.name'"):
        ExperimentManifest.load(p)
    p.write_text("{not json")
    with pytest.raises(ManifestError, match="bad.json.*not valid JSON"):
        ExperimentManifest.load(p)


def test_result_shape_and_contents(result, manifest):
    assert result.classifiers == ["NB (12)", "SVM (12)", "KDB (12)", "HBN-OR (12)", "HNB-AVG (8)"]
    assert len(result.categories) == 2
    n = len(result.doc_ids)
    assert result.labels.shape == (n, 2)
    for c in result.classifiers:
        assert result.scores[c].shape == (n, 2)
        assert np.all((result.scores[c] >= 0) & (result.scores[c] <= 1))
        assert set(result.timings[c]) == set(result.categories)
    assert set(result.em_traces) == {"HBN-OR (12)", "HNB-AVG (8)"}
    assert len(result.em_traces["HBN-OR (12)"][result.categories[0]]) == 3
    assert set(result.trees) == {"HBN-OR (12)", "HNB-AVG (8)"}
    tree = result.trees["HNB-AVG (8)"][result.categories[1]]
    assert tree["direction"] == "hnb" and tree["names"][0] == f"{result.categories[1]}TOPIC"
    assert sum(k == "feature" for k in tree["kind"]) == 8
    assert result.settings["fingerprint"] == manifest.corpus.load().fingerprint()
    assert result.corpus["synthetic"] is True and result.paper == {}  # the thesis's values do not apply
    # the scores are the kept models' predictions
    m = result.models["KDB (12)"][result.categories[0]]
    assert m.n_features == 12


def test_rerun_reproduces_every_number(manifest, result):
    """Same manifest, same machine: the same scores to the last bit."""
    again = run_manifest(manifest)
    assert again.classifiers == result.classifiers and again.doc_ids == result.doc_ids
    for c in result.classifiers:
        assert np.array_equal(again.scores[c], result.scores[c]), c
    assert again.em_traces == result.em_traces and again.trees == result.trees
    assert np.array_equal(again.labels, result.labels)


def test_rerun_from_the_saved_settings(result):
    """The result carries its manifest (with the fingerprint): running that reproduces it."""
    m2 = ExperimentManifest.from_dict(result.settings)
    again = run_manifest(m2)
    for c in result.classifiers:
        assert np.array_equal(again.scores[c], result.scores[c])


def test_result_json_round_trip_is_exact(result, tmp_path):
    p = result.save(tmp_path / "r.json")
    back = ExperimentResult.load(p)
    for c in result.classifiers:
        assert np.array_equal(back.scores[c], result.scores[c])
    assert np.array_equal(back.labels, result.labels)
    assert back.em_traces == result.em_traces and back.trees == result.trees and back.timings == result.timings
    assert back.settings == result.settings and back.models == {}


def test_fingerprint_mismatch_is_refused(manifest):
    other = manifest.with_fingerprint("0" * 64)
    with pytest.raises(ManifestError, match="'fingerprint'.*different documents"):
        run_manifest(other)


def test_unknown_category_is_refused():
    m = ExperimentManifest.from_dict({**SMALL, "categories": ["alpha", "nonexistent"]})
    with pytest.raises(ManifestError, match="'categories'.*nonexistent"):
        run_manifest(m)


def test_validation_stage_runs_on_training0(manifest):
    import dataclasses

    m = dataclasses.replace(manifest, stage="validation", classifiers=(ClassifierSpec("NB"),))
    r = run_manifest(m)
    corpus = manifest.corpus.load()
    train_ids = {d.id for d in corpus.train}
    assert r.stage == "validation" and set(r.doc_ids) <= train_ids
    assert 0 < len(r.doc_ids) < len(train_ids)


def test_corpus_spec_path_kind(tmp_path):
    import csv

    p = tmp_path / "tiny.csv"
    with p.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "text", "labels", "split"])
        for i in range(20):
            lab = "spam" if i % 2 else "ham"
            w.writerow([f"d{i}", f"{lab} word{i % 3} common text", lab, "test" if i >= 14 else "train"])
    spec = CorpusSpec("path", path=str(p))
    c = spec.load()
    assert len(c) == 20 and set(c.categories()) == {"spam", "ham"}
    assert CorpusSpec.from_dict(spec.to_dict()) == spec
    assert "encoding" not in spec.to_dict()   # "auto": manifests written before encodings stay the same
    named = CorpusSpec("path", path=str(p), encoding="latin-1")
    assert named.to_dict()["encoding"] == "latin-1" and CorpusSpec.from_dict(named.to_dict()) == named
    assert named.load().fingerprint() == c.fingerprint()
    with pytest.raises(ManifestError, match=r"'corpus.encoding': .*unknown encoding 'klingon'"):
        CorpusSpec("path", path=str(p), encoding="klingon")


def test_cross_validation_manifest_pools_every_training_document():
    d = {**SMALL, "classifiers": [{"name": "NB"}], "stage": "validation", "cv": 3, "random_state": 2}
    m = ExperimentManifest.from_dict(d)
    assert m.to_dict()["cv"] == 3 and m.to_dict()["validation"] == "auto"
    res = run_manifest(m)
    assert res.corpus["validation"] == {"method": "cv", "n_folds": 3, "random_state": 2}
    assert len(res.doc_ids) == res.corpus["n_train"] and len(set(res.doc_ids)) == len(res.doc_ids)
    with pytest.raises(ManifestError, match="'cv'"):
        ExperimentManifest.from_dict({**d, "cv": 1})
    with pytest.raises(ManifestError, match="'validation'"):
        ExperimentManifest.from_dict({**d, "validation": "random"})
