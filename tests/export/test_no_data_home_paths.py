"""Model files and reports do not carry the data home's absolute path (``$HBNLAB_DATA_HOME`` or
``~/.cache/hbnlab``): paths in it are written relative to it (issue 30, item 9)."""
from __future__ import annotations

import io
import uuid
import zipfile

import numpy as np
import pytest

from hbnlab.export import load_model, model_to_bytes, save_model
from hbnlab.export.portable import strip_data_home
from hbnlab.export.report import ExperimentResult, build_report, markdown, tables_csv
from hbnlab.models.naive_bayes import BernoulliNBClassifier
from hbnlab.pipeline.config import ExperimentConfig
from hbnlab.pipeline.tasks import load_model as load_workbench_model
from hbnlab.pipeline.tasks import store_model


@pytest.fixture(params=["env", "cache"])
def home(request, tmp_path, monkeypatch):
    """A data home whose path holds a name found nowhere else: ``$HBNLAB_DATA_HOME``, or the
    default ``~/.cache/hbnlab`` under a temporary ``$HOME``."""
    marker = f"hbnhome{uuid.uuid4().hex}"
    if request.param == "env":
        path = tmp_path / marker / "home"
        monkeypatch.setenv("HBNLAB_DATA_HOME", str(path))
    else:
        monkeypatch.delenv("HBNLAB_DATA_HOME", raising=False)
        monkeypatch.setenv("HOME", str(tmp_path / marker))
        path = tmp_path / marker / ".cache" / "hbnlab"
    (path / "uploads" / "ab12").mkdir(parents=True)
    return marker, path


def _all_bytes(data: bytes) -> bytes:
    """A ZIP's raw bytes and every member inflated."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return data + b"".join(zf.read(i) for i in zf.infolist())


def _config(path) -> ExperimentConfig:
    return ExperimentConfig(corpus="upload", upload_path=str(path / "uploads" / "ab12" / "my corpus.csv"),
                            classifiers=("NB",), n_features=2)


def test_model_files_hold_no_data_home_path(home, tmp_path):
    marker, path = home
    X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    est = BernoulliNBClassifier().fit(X, [1, 1, 0, 0])
    cfg = _config(path)
    meta = {"class": "wheat", "classifier": "NB", "config": cfg.to_dict(), "corpus": "my corpus",
            "fingerprint": "0" * 64, "synthetic": False, "note": f"read {path}/prepared/x and {path}"}
    workbench = store_model(est, meta, vocabulary=["cat", "dog"])
    assert marker.encode() not in _all_bytes(workbench)
    _, kept = load_workbench_model(workbench)
    assert kept["config"]["upload_path"] == "uploads/ab12/my corpus.csv"
    assert kept["note"] == "read prepared/x and ."

    out = save_model(est, tmp_path / "nb.hbnlab", vocabulary=["cat", "dog"],
                     corpus={"name": "c", "source": str(path / "uploads" / "ab12")},
                     provenance={"corpus_spec": {"path": str(path.resolve() / "reuters21578")}})
    assert marker.encode() not in _all_bytes(out.read_bytes())
    loaded = load_model(out)
    assert loaded.provenance["corpus_spec"]["path"] == "reuters21578"
    assert loaded.corpus["source"] == "uploads/ab12"
    assert marker.encode() not in _all_bytes(model_to_bytes(loaded))


def test_reports_hold_no_data_home_path(home):
    marker, path = home
    cfg = _config(path)
    rng = np.random.default_rng(0)
    labels = rng.random((12, 2)) < 0.5
    result = ExperimentResult(categories=["wheat", "corn"], classifiers=["NB"], labels=labels,
                              scores={"NB": rng.random((12, 2))}, settings=cfg.relevant_dict(),
                              corpus={"name": "my corpus", "path": str(path / "uploads" / "ab12" / "my corpus.csv"),
                                      "cache": str(path)},
                              title=f"report of {path / 'uploads' / 'ab12'}")
    html = build_report(result, include_plotlyjs=False, include_trees=False)
    assert "uploads/ab12/my corpus.csv" in html
    texts = [html, markdown(result), *tables_csv(result).values()]
    assert not [t[:80] for t in texts if marker in t]


def test_only_the_data_home_is_rewritten(home):
    _, path = home
    assert strip_data_home(f"{path}2/x") == f"{path}2/x"          # a sibling folder, not the data home
    assert strip_data_home(f"{path}.bak") == f"{path}.bak"
    assert strip_data_home(["/etc/hosts", 3, None]) == ["/etc/hosts", 3, None]
    assert strip_data_home({str(path): (f"{path}//a",)}) == {".": ("a",)}
