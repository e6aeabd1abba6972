"""End to end through the command line (subprocesses): train -> export-model -> predict -> report."""
from __future__ import annotations

import json
import pickle
import subprocess
import sys

import numpy as np
import pytest

from hbnlab.export.bn_formats import network_from_model
from hbnlab.export.model_io import load_model

SIZE = 500


def hbnlab(*args, cwd, ok=True):
    proc = subprocess.run([sys.executable, "-m", "hbnlab.cli", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("cli")


@pytest.fixture(scope="module")
def test_docs():
    from hbnlab.corpus import make_synthetic_corpus

    c = make_synthetic_corpus(n_documents=SIZE, random_state=0)
    return c.test[:40]


@pytest.fixture(scope="module")
def trained(workdir):
    proc = hbnlab("train", "--corpus", "synthetic", "--synthetic-size", SIZE, "--class", "alpha", "--classifier",
                  "hbn-or", "--n-restarts", 3, "--n-features", 12, "--random-state", 1, "--out", "m.hbnlab",
                  cwd=workdir)
    assert "wrote m.hbnlab" in proc.stdout and "test breakeven" in proc.stdout
    return workdir / "m.hbnlab"


def test_train_writes_a_model_with_its_provenance(trained):
    from hbnlab.corpus import make_synthetic_corpus

    m = load_model(trained)
    assert m.learner == "HierarchicalBNClassifier" and m.label == "alpha" and m.class_name == "alphaTOPIC"
    assert m.estimator.n_restarts == 3 and m.estimator.random_state == 1 and len(m.selected_terms) == 12
    assert m.corpus["fingerprint"] == make_synthetic_corpus(n_documents=SIZE, random_state=0).fingerprint()
    assert m.provenance["command"] == "train" and m.provenance["corpus_spec"]["size"] == SIZE
    assert 0 <= m.provenance["test_breakeven"] <= 100


def test_export_predict_and_open_elsewhere(trained, workdir, test_docs):
    gum = pytest.importorskip("pyagrum")
    from hbnlab.cli import main

    assert "wrote m.bif" in hbnlab("export-model", trained, "--format", "bif", "--out", "m.bif", cwd=workdir).stdout
    # the other formats in-process (the same command code; .net files are checked in test_bn_formats)
    for fmt, name in (("xmlbif", "m.bifxml"), ("hbnlab", "copy.hbnlab")):
        assert main(["export-model", str(trained), "--format", fmt, "--out", str(workdir / name)]) == 0
    docs = workdir / "docs.jsonl"
    lines = [json.dumps({"id": d.id, "title": d.title, "text": d.text}) for d in test_docs]
    lines.append(json.dumps({"text": "no id and nothing known"}))
    docs.write_text("\n".join(lines) + "\n\n")
    hbnlab("predict", "--model", "copy.hbnlab", "--input", docs, "--out", "preds.jsonl", "--evidence", cwd=workdir)
    preds = [json.loads(line) for line in (workdir / "preds.jsonl").read_text().splitlines()]
    assert [p["id"] for p in preds] == [d.id for d in test_docs] + [len(test_docs) + 1]
    # the CLI's numbers are the library's
    m = load_model(trained)
    want = m.predict_proba_texts([d.full_text for d in test_docs] + ["no id and nothing known"])
    assert [p["probability"] for p in preds] == [float(x) for x in want]
    assert all(p["label"] == "alpha" and p["class_variable"] == "alphaTOPIC" for p in preds)
    # --evidence is keyed by the exported network's names; the files give the same posterior
    net = network_from_model(m)
    assert list(preds[0]["evidence"]) == list(net.feature_variables)
    for fname, tol in (("m.bifxml", 1e-9), ("m.bif", 1e-6)):
        ie = gum.LazyPropagation(gum.loadBN(str(workdir / fname)))
        for p in preds:
            ie.setEvidence(p["evidence"])
            ie.makeInference()
            assert abs(ie.posterior("alphaTOPIC")[1] - p["probability"]) <= tol, fname


def test_run_and_report_from_a_manifest(workdir):
    from hbnlab.cli import main

    manifest = {"name": "cli", "corpus": {"kind": "synthetic", "seed": 2, "size": 400}, "n_categories": 2,
                "classifiers": [{"name": "NB"}, {"name": "HNB-OR", "params": {"n_restarts": 2}}], "n_features": 8}
    (workdir / "manifest.json").write_text(json.dumps(manifest))
    out = hbnlab("run", "manifest.json", "--out", "result.json", cwd=workdir).stdout
    assert "| micro |" in out and "wrote result.json" in out
    hbnlab("report", "--experiment", "manifest.json", "--out", "rep.html", cwd=workdir)
    for f in ("rep.html", "rep.csv", "rep.md", "rep-timings.csv", "rep-settings.csv", "rep-em.csv"):
        assert (workdir / f).stat().st_size > 0, f
    html = (workdir / "rep.html").read_text()
    assert 'id="table-breakeven"' in html and 'data-figure="fig-em-HNB-OR-8"' in html and "<svg" in html
    # in-process from here (same code path, no interpreter start-up): a saved result reports
    # without rerunning, and a rerun gives the same scores to the last digit
    assert main(["report", "--experiment", str(workdir / "result.json"), "--out", str(workdir / "rep2.html"),
                 "--no-trees"]) == 0
    assert (workdir / "rep2.csv").read_text() == (workdir / "rep.csv").read_text()
    assert main(["run", str(workdir / "manifest.json"), "--out", str(workdir / "result2.json")]) == 0
    r1 = json.loads((workdir / "result.json").read_text())
    r2 = json.loads((workdir / "result2.json").read_text())
    assert r1["scores"] == r2["scores"]


def test_a_pickle_is_refused_by_the_real_process(workdir, tmp_path):
    evil = tmp_path / "evil.hbnlab"
    evil.write_bytes(pickle.dumps({"a": 1}))
    (tmp_path / "docs.jsonl").write_text('{"id": 1, "text": "x"}\n')
    proc = hbnlab("predict", "--model", evil, "--input", tmp_path / "docs.jsonl", "--out", tmp_path / "p.jsonl",
                  cwd=workdir, ok=False)
    assert proc.returncode == 2 and proc.stderr.startswith("hbnlab: error:") and "pickle" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "p.jsonl").exists()


def test_errors_are_one_line_and_exit_2(trained, tmp_path, capsys):
    from hbnlab.cli import main

    (tmp_path / "docs.jsonl").write_text('{"id": 1, "text": "x"}\n{"id": 2, "txt": "y"}\n')
    (tmp_path / "other.json").write_text('{"foo": 1}')
    cases = [
        (("predict", "--model", trained, "--input", tmp_path / "docs.jsonl", "--out", tmp_path / "p.jsonl"),
         "line 2 of docs.jsonl: field 'text'"),
        (("predict", "--model", tmp_path / "docs.jsonl", "--input", tmp_path / "docs.jsonl", "--out",
          tmp_path / "p.jsonl"), "not a ZIP"),
        (("train", "--corpus", "synthetic", "--synthetic-size", 200, "--class", "nosuchclass", "--out",
          tmp_path / "x.hbnlab"), "'nosuchclass'"),
        (("train", "--corpus", tmp_path / "missing.csv", "--class", "a", "--out", tmp_path / "x.hbnlab"),
         "no such file"),
        (("train", "--class", "alpha", "--classifier", "nb", "--B", 3, "--out", tmp_path / "x.hbnlab"),
         "--B applies to"),
        (("run", tmp_path / "other.json"), "manifest field 'foo'"),
        (("report", "--experiment", tmp_path / "nothere.json", "--out", tmp_path / "r.html"), "cannot read"),
    ]
    for args, fragment in cases:
        assert main([str(a) for a in args]) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("hbnlab: error:") and err.count("\n") == 1, err
        assert fragment in err, err
    assert not (tmp_path / "x.hbnlab").exists() and not (tmp_path / "p.jsonl").exists()
    # an SVM has no Bayesian network: a clear error, and its model file still classifies text
    assert main(["train", "--corpus", "synthetic", "--synthetic-size", "300", "--class", "alpha", "--classifier",
                 "svm", "--n-features", "5", "--out", str(tmp_path / "svm.hbnlab")]) == 0
    assert main(["export-model", str(tmp_path / "svm.hbnlab"), "--format", "net", "--out",
                 str(tmp_path / "svm.net")]) == 2
    assert "no Bayesian-network form" in capsys.readouterr().err
    m = load_model(tmp_path / "svm.hbnlab")
    assert np.isfinite(m.predict_proba_texts(["anything"])).all()
