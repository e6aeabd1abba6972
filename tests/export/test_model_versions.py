"""Model files say which hbnlab wrote them and how the fit resolved its hyper-parameters (format
1.1, issue 39 item 2); files of format 1.0 and of other versions still load, with a note naming
both versions."""
from __future__ import annotations

import io
import json
import logging
import zipfile

import numpy as np
import pytest
from export_helpers import LEARNERS

import hbnlab
from hbnlab.export.model_io import FORMAT_MINOR, ModelFileError, load_model, model_to_bytes, resolved_params
from hbnlab.models.hbn import TABLE_4_1, HierarchicalBNClassifier

LOGGER = "hbnlab.export.model_io.container"


def _doc(raw: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return json.loads(zf.read("model.json"))


def _rewrite(raw: bytes, edit) -> bytes:
    """The file with ``edit(doc)`` applied to model.json (written without the checksum comment,
    as files before the checksums were)."""
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    doc = json.loads(members["model.json"])
    edit(doc)
    members["model.json"] = json.dumps(doc).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for n, b in members.items():
            zf.writestr(n, b)
    return buf.getvalue()


def _as_written_by_0_1_0(doc):
    """What hbnlab 0.1.0 wrote: format 1 without format_minor and resolved_params."""
    doc.pop("format_minor")
    doc.pop("resolved_params")
    doc["library_versions"]["hbnlab"] = "0.1.0"


@pytest.mark.parametrize("name", list(LEARNERS))
def test_every_model_file_records_its_version_and_every_resolved_parameter(name, fitted):
    est = fitted[name]
    doc = _doc(model_to_bytes(est))
    assert doc["format_minor"] == FORMAT_MINOR == 1
    assert doc["library_versions"]["hbnlab"] == hbnlab.__version__
    assert set(doc["resolved_params"]) == set(est.get_params(deep=False))
    assert load_model(model_to_bytes(est)).resolved_params == doc["resolved_params"]


@pytest.mark.parametrize("clustering", ["avg", "or", "dep"])
def test_none_defaults_are_recorded_as_the_fit_resolved_them(clustering, data):
    """B and alpha left None take Table 4.1's values for the clustering, children_select its
    clustering's rule: the file records those values, and the values given, unchanged."""
    X, y = data.X_train[:, :12], data.Y_train[:, 0].astype(np.int8)
    est = HierarchicalBNClassifier(clustering=clustering, n_restarts=2, random_state=0).fit(X, y)
    doc = _doc(model_to_bytes(est))
    assert doc["params"]["B"] is None and doc["params"]["alpha"] is None and doc["params"]["children_select"] is None
    B, alpha = TABLE_4_1[clustering]
    rp = doc["resolved_params"]
    assert (rp["B"], rp["alpha"]) == (B, alpha)
    # the default objective fits the tables for log P(c | f), keeps every child and records the penalty
    # its inner cross-validation chose; under EM, children_select is the clustering's rule
    assert rp["children_select"] == "all" and rp["cll_penalty"] == est.cll_penalty_ and est.cll_penalty_ > 0
    assert rp["tree_terms"] == est.tree_terms and rp["n_restarts"] == 2
    em = HierarchicalBNClassifier(clustering=clustering, n_restarts=2, objective="joint", random_state=0).fit(X, y)
    rp_em = _doc(model_to_bytes(em))["resolved_params"]
    assert rp_em["children_select"] == ("all" if clustering == "avg" else "cv") and rp_em["cll_penalty"] is None
    given = HierarchicalBNClassifier(clustering=clustering, B=4, alpha=0.5, children_select="all", n_restarts=2,
                                     random_state=0).fit(X, y)
    rp = resolved_params(given)
    assert (rp["B"], rp["alpha"], rp["children_select"]) == (4, 0.5, "all")


def test_a_callback_is_named_not_stored(fitted):
    est = fitted["HBN-OR"]
    est.set_params(progress=print)
    try:
        rp = resolved_params(est)
    finally:
        est.set_params(progress=None)
    assert rp["progress"] == "<not stored: builtin_function_or_method>"


def test_a_file_of_an_older_version_loads_with_a_note_naming_both(fitted, data, caplog):
    est = fitted["HBN-OR"]
    old = _rewrite(model_to_bytes(est), _as_written_by_0_1_0)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        m = load_model(old, name="last-week.hbnlab")
    assert np.array_equal(m.estimator.predict_proba(data.X_test), est.predict_proba(data.X_test))
    assert m.resolved_params is None and m.written_by == "0.1.0"
    notes = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert notes == [m.version_note]
    assert "last-week.hbnlab" in notes[0] and "hbnlab 0.1.0" in notes[0] and f"hbnlab {hbnlab.__version__}" in notes[0]
    assert "predates resolved_params" in notes[0]


def test_a_file_of_this_version_loads_without_a_note(fitted, caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        m = load_model(model_to_bytes(fitted["NB"]))
    assert m.version_note is None and not [r for r in caplog.records if r.name == LOGGER]


def test_a_file_of_a_newer_version_says_this_reader_is_older(fitted):
    def newer(doc):
        doc["library_versions"]["hbnlab"] = "99.0.0"
        doc["format_minor"] = FORMAT_MINOR + 1  # a later addition this reader does not know

    m = load_model(_rewrite(model_to_bytes(fitted["NB"]), newer), name="next.hbnlab")
    assert "hbnlab 99.0.0" in m.version_note and "an older version" in m.version_note
    m = load_model(_rewrite(model_to_bytes(fitted["NB"]), lambda d: d["library_versions"].update(hbnlab="dev")))
    assert "read by hbnlab" in m.version_note


@pytest.mark.parametrize("field, value, message", [
    ("format_minor", -1, "non-negative integer"), ("format_minor", "1", "non-negative integer"),
    ("format_minor", True, "non-negative integer"), ("resolved_params", [1], "JSON object or null"),
])
def test_bad_version_fields_name_the_field(fitted, field, value, message):
    raw = _rewrite(model_to_bytes(fitted["NB"]), lambda d: d.update({field: value}))
    with pytest.raises(ModelFileError, match=f"bad.hbnlab: field '{field}': .*{message}"):
        load_model(raw, name="bad.hbnlab")


def test_a_resaved_file_keeps_what_its_own_fit_resolved(fitted):
    """Re-saving a loaded file keeps its resolved_params (not what this version would resolve
    today), and a file of format 1.0 stays without them (null)."""
    raw = _rewrite(model_to_bytes(fitted["HBN-OR"]), lambda d: d["resolved_params"].update(children_select="all"))
    assert _doc(model_to_bytes(load_model(raw)))["resolved_params"]["children_select"] == "all"
    old = load_model(_rewrite(model_to_bytes(fitted["HBN-OR"]), _as_written_by_0_1_0))
    again = load_model(model_to_bytes(old))
    assert _doc(model_to_bytes(old))["resolved_params"] is None and again.resolved_params is None
