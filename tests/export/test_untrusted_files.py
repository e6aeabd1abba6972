"""The malicious-file battery: every bad file is a ModelFileError naming the file and the field,
and nothing in a file can run code."""
from __future__ import annotations

import copy
import io
import json
import os
import pickle
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hbnlab.export.model_io import LoadLimits, ModelFileError, load_model, model_to_bytes
from hbnlab.text import IndexingConfig


# --------------------------------------------------------------------------- helpers
def _split(raw: bytes) -> tuple[dict, dict]:
    """(model.json as a dict, arrays as {key: ndarray})."""
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        doc = json.loads(zf.read("model.json"))
        arrays = {}
        if "arrays.npz" in zf.namelist():
            with np.load(io.BytesIO(zf.read("arrays.npz")), allow_pickle=False) as npz:
                arrays = {k: npz[k] for k in npz.files}
    return doc, arrays


def _join(doc, arrays=None, *, json_text=None, extra=None, npz_bytes=None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("model.json", json_text if json_text is not None else json.dumps(doc))
        if npz_bytes is not None:
            zf.writestr("arrays.npz", npz_bytes)
        elif arrays:
            b = io.BytesIO()
            np.savez(b, **arrays)
            zf.writestr("arrays.npz", b.getvalue())
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return buf.getvalue()


def _write(tmp_path, data: bytes, name="evil.hbnlab"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def _expect(path, field_fragment: str, message_fragment: str, **kw):
    with pytest.raises(ModelFileError) as ei:
        load_model(path, **kw)
    e = ei.value
    text = str(e)
    assert str(path) in text, text
    if field_fragment:
        assert e.field is not None and field_fragment in e.field, (e.field, text)
    assert message_fragment.lower() in text.lower(), text
    return e


@pytest.fixture(scope="module")
def nb_raw(fitted, data):
    return model_to_bytes(fitted["NB"], indexing=IndexingConfig(), vocabulary=data.vocabulary, label="alpha")


@pytest.fixture(scope="module")
def hbn_raw(fitted, data):
    return model_to_bytes(fitted["HBN-OR"], indexing=IndexingConfig(), vocabulary=data.vocabulary, label="alpha")


class _Evil:
    """Unpickling this runs ``os.system`` -- if anything ever unpickles a model file."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


# --------------------------------------------------------------------------- pickles
def test_crafted_pickle_renamed_to_hbnlab(tmp_path, fitted):
    marker = tmp_path / "pwned"
    p = _write(tmp_path, pickle.dumps({"estimator": fitted["NB"], "x": _Evil(marker)}))
    _expect(p, "", "pickle")
    assert not marker.exists()
    for proto in (0, 1):  # the old text protocols do not start with 0x80: still refused (not a ZIP)
        p = _write(tmp_path, pickle.dumps(_Evil(marker), protocol=proto), f"p{proto}.hbnlab")
        _expect(p, "", "not a ZIP")
    assert not marker.exists()


def test_arrays_npz_with_an_object_array(tmp_path, nb_raw):
    marker = tmp_path / "pwned"
    doc, arrays = _split(nb_raw)
    b = io.BytesIO()
    evil = dict(arrays)
    evil["feature_log_prob_"] = np.array([_Evil(marker)], dtype=object)
    np.savez(b, **evil)  # allow_pickle is the default for writing
    p = _write(tmp_path, _join(doc, npz_bytes=b.getvalue()))
    _expect(p, "arrays.npz:feature_log_prob_", "object array")
    assert not marker.exists()


def test_pickle_inside_the_archive_as_model_json(tmp_path):
    marker = tmp_path / "pwned"
    p = _write(tmp_path, _join(None, json_text=pickle.dumps(_Evil(marker))))
    _expect(p, "model.json", "")
    assert not marker.exists()


def test_loading_never_touches_pickle(monkeypatch, fitted, data, word_cluster_nb):
    """No code-execution path: with every unpickling entry point sabotaged, every learner loads."""
    raws = [model_to_bytes(e, vocabulary=data.vocabulary) for e in fitted.values()]
    raws.append(model_to_bytes(word_cluster_nb))

    def boom(*a, **k):
        raise AssertionError("pickle used while loading a model file")

    monkeypatch.setattr(pickle, "loads", boom)
    monkeypatch.setattr(pickle, "load", boom)
    monkeypatch.setattr(pickle, "Unpickler", boom)
    monkeypatch.setattr(np, "load", boom)
    for raw in raws:
        load_model(raw)


# --------------------------------------------------------------------------- archives
def test_zip_bomb_declared_size(tmp_path, nb_raw):
    doc, arrays = _split(nb_raw)
    # 80 MB of JSON whitespace: valid JSON, compresses about 1000:1
    text = json.dumps(doc) + " " * (80 * 2**20)
    p = _write(tmp_path, _join(None, arrays, json_text=text))
    assert p.stat().st_size < 2**20
    _expect(p, "model.json", "limit")


def test_zip_bomb_compression_ratio(tmp_path, nb_raw):
    doc, arrays = _split(nb_raw)
    p = _write(tmp_path, _join(None, arrays, json_text=json.dumps(doc) + " " * (4 * 2**20)))
    _expect(p, "model.json", "compression ratio", limits=LoadLimits(max_compression_ratio=100))


def test_zip_bomb_nested_in_arrays_npz(tmp_path, nb_raw):
    doc, arrays = _split(nb_raw)
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for k, v in arrays.items():
            b = io.BytesIO()
            np.lib.format.write_array(b, v)
            zf.writestr(k + ".npy", b.getvalue())
        b = io.BytesIO()
        np.lib.format.write_array(b, np.zeros(4 * 2**20))  # 32 MB of zeros
        zf.writestr("bomb.npy", b.getvalue())
    p = _write(tmp_path, _join(doc, npz_bytes=inner.getvalue()))
    _expect(p, "arrays.npz", "", limits=LoadLimits(max_arrays_bytes=2**20))


def test_lying_zip_header_is_corrupt(tmp_path, nb_raw):
    """A member whose header claims fewer bytes than it holds: read no further than the claim."""
    doc, arrays = _split(nb_raw)
    raw = bytearray(_join(None, arrays, json_text=json.dumps(doc) + " " * 2**20))
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as zf:
        info = zf.getinfo("model.json")
    real = info.file_size.to_bytes(4, "little")
    fake = (1000).to_bytes(4, "little")
    assert raw.count(real) >= 2
    raw = bytes(raw).replace(real, fake)
    p = _write(tmp_path, raw)
    _expect(p, "model.json", "corrupt")


def test_truncated_files(tmp_path, hbn_raw):
    for n, cut in enumerate((len(hbn_raw) // 2, len(hbn_raw) - 10, 30, 3)):
        p = _write(tmp_path, hbn_raw[:cut], f"t{n}.hbnlab")
        _expect(p, "", "")
    _expect(_write(tmp_path, hbn_raw[: len(hbn_raw) // 2], "half.hbnlab"), "", "truncated or corrupt")


def test_empty_and_foreign_files(tmp_path):
    _expect(_write(tmp_path, b"", "empty.hbnlab"), "", "not a ZIP")
    _expect(_write(tmp_path, b"name,labels\nx,y\n", "table.hbnlab"), "", "not a ZIP")
    _expect(tmp_path / "missing.hbnlab", "", "cannot be read")


def test_unexpected_and_missing_members(tmp_path, nb_raw):
    doc, arrays = _split(nb_raw)
    _expect(_write(tmp_path, _join(doc, arrays, extra={"payload.py": "import os"}), "x.hbnlab"), "payload.py",
            "unexpected archive member")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("arrays.npz", b"")
    _expect(_write(tmp_path, buf.getvalue(), "y.hbnlab"), "model.json", "missing")


def test_file_size_limit(tmp_path, nb_raw):
    _expect(_write(tmp_path, nb_raw, "big.hbnlab"), "", "limit", limits=LoadLimits(max_file_bytes=100))


# --------------------------------------------------------------------------- probability tables
def test_nan_cpt_in_a_tree_model(tmp_path, hbn_raw):
    doc, arrays = _split(hbn_raw)
    doc["state"]["params_"]["cpts"][0][0][1] = None  # JSON null -> NaN
    _expect(_write(tmp_path, _join(doc, arrays)), "state.params_.cpts", "non-finite")


def test_nan_token_in_model_json(tmp_path, hbn_raw):
    doc, arrays = _split(hbn_raw)
    text = json.dumps(doc).replace('"cpts": [[[', '"cpts": [[[NaN, ', 1)
    assert "NaN" in text
    _expect(_write(tmp_path, _join(None, arrays, json_text=text)), "model.json", "NaN")


def test_nan_in_an_array(tmp_path, nb_raw):
    doc, arrays = _split(nb_raw)
    arrays["feature_log_prob_"] = arrays["feature_log_prob_"].copy()
    arrays["feature_log_prob_"][1, 2] = np.nan
    _expect(_write(tmp_path, _join(doc, arrays)), "state.feature_log_prob_", "non-finite")


def test_rows_not_summing_to_one_and_negative(tmp_path, hbn_raw, nb_raw):
    doc, arrays = _split(hbn_raw)
    d1 = copy.deepcopy(doc)
    d1["state"]["params_"]["cpts"][0][0] = [0.5, 0.6]
    _expect(_write(tmp_path, _join(d1, arrays), "a.hbnlab"), "state.params_.cpts", "sums to")
    d2 = copy.deepcopy(doc)
    d2["state"]["params_"]["cpts"][0][0] = [1.5, -0.5]
    _expect(_write(tmp_path, _join(d2, arrays), "b.hbnlab"), "state.params_.cpts", "negative")
    doc, arrays = _split(nb_raw)
    arrays["class_log_prior_"] = np.log(np.array([0.5, 0.7]))
    _expect(_write(tmp_path, _join(doc, arrays), "c.hbnlab"), "state.class_log_prior_", "sums to")
    doc, arrays = _split(nb_raw)
    arrays["feature_log_prob_off_"] = arrays["feature_log_prob_off_"] - 0.1
    _expect(_write(tmp_path, _join(doc, arrays), "d.hbnlab"), "state.feature_log_prob_off_", "differs from 1")


def test_kdb_theta_out_of_range(tmp_path, fitted):
    doc, arrays = _split(model_to_bytes(fitted["KDB"]))
    arrays["theta_"] = arrays["theta_"].copy()
    arrays["theta_"][0, 0, 0] = 1.0
    _expect(_write(tmp_path, _join(doc, arrays)), "state.theta_", "strictly between")


# --------------------------------------------------------------------------- structures
def test_cyclic_tree(tmp_path, hbn_raw):
    doc, arrays = _split(hbn_raw)
    tree = doc["state"]["params_"]["tree"]
    hidden = [i for i, k in enumerate(tree["kind"]) if k == "hidden"]
    assert hidden, "the fitted HBN-OR has a hidden node"
    h = hidden[0]
    child = next(i for i, u in enumerate(tree["up"]) if u == h)
    tree["up"][h] = child  # h -> child -> h
    _expect(_write(tmp_path, _join(doc, arrays)), "state.params_.tree", "cycle")


def test_tree_with_a_missing_feature_leaf(tmp_path, hbn_raw):
    doc, arrays = _split(hbn_raw)
    tree = doc["state"]["params_"]["tree"]
    j = tree["kind"].index("feature")
    tree["feature"][j] = 999
    _expect(_write(tmp_path, _join(doc, arrays)), "state.params_.tree", "feature columns")


def test_tree_of_the_wrong_direction(tmp_path, hbn_raw):
    doc, arrays = _split(hbn_raw)
    doc["learner"] = "HierarchicalNBClassifier"
    _expect(_write(tmp_path, _join(doc, arrays)), "state.params_", "direction")


def test_cyclic_kdb_parents(tmp_path, fitted):
    est = fitted["KDB"]
    doc, arrays = _split(model_to_bytes(est))
    order = est.order_
    parents = arrays["parents_"].copy()
    parents[order[0], 0] = order[1]  # the first term takes a later one as parent: a cycle
    arrays["parents_"] = parents
    _expect(_write(tmp_path, _join(doc, arrays)), "state.parents_", "cycle")


def test_greedy_hnb_latent_children_must_point_back(tmp_path, fitted):
    est = fitted["GREEDY-HNB"]
    doc, arrays = _split(model_to_bytes(est))
    # the seeded fixture's greedy search adds latents; without one this test would check nothing
    assert doc["state"]["model"]["kids"], "the fixture's greedy HNB has no latent variable"
    doc["state"]["model"]["kids"][0] = [0, 0]
    _expect(_write(tmp_path, _join(doc, arrays)), "state.model.kids", "")


# --------------------------------------------------------------------------- schema
def test_wrong_format_and_version(tmp_path, nb_raw):
    doc, arrays = _split(nb_raw)
    d = dict(doc, format_version=2)
    e = _expect(_write(tmp_path, _join(d, arrays), "v2.hbnlab"), "format_version", "newer")
    assert "version 2" in str(e)
    d = dict(doc, format_version="1")
    _expect(_write(tmp_path, _join(d, arrays), "vs.hbnlab"), "format_version", "integer")
    d = dict(doc, format="some-other-model")
    _expect(_write(tmp_path, _join(d, arrays), "f.hbnlab"), "format", "hbnlab-model")


@pytest.mark.parametrize("learner", ["os.system", "subprocess.Popen", "LogisticRegression", "", None,
                                     "hbnlab.models.naive_bayes.BernoulliNBClassifier", "__import__"])
def test_unknown_learner_class(tmp_path, nb_raw, learner):
    doc, arrays = _split(nb_raw)
    doc["learner"] = learner
    _expect(_write(tmp_path, _join(doc, arrays)), "learner", "unknown learner class")


def test_unknown_and_bad_hyper_parameters(tmp_path, nb_raw):
    doc, arrays = _split(nb_raw)
    d = copy.deepcopy(doc)
    d["params"]["__class__"] = "os.system"
    _expect(_write(tmp_path, _join(d, arrays), "a.hbnlab"), "params.__class__", "not a hyper-parameter")
    d = copy.deepcopy(doc)
    d["params"]["N0"] = {"$array": "x"}
    _expect(_write(tmp_path, _join(d, arrays), "b.hbnlab"), "params.N0", "unsupported")


def test_array_reference_errors(tmp_path, nb_raw):
    doc, arrays = _split(nb_raw)
    d = copy.deepcopy(doc)
    d["state"]["feature_log_prob_"]["$array"] = "nowhere"
    _expect(_write(tmp_path, _join(d, arrays), "a.hbnlab"), "state.feature_log_prob_", "not in arrays.npz")
    a = dict(arrays, feature_log_prob_=arrays["feature_log_prob_"][:, :3])
    _expect(_write(tmp_path, _join(doc, a), "b.hbnlab"), "state.feature_log_prob_", "shape")
    a = dict(arrays, feature_log_prob_=arrays["feature_log_prob_"].astype(np.float32))
    _expect(_write(tmp_path, _join(doc, a), "c.hbnlab"), "arrays.npz:feature_log_prob_", "not allowed")
    a = dict(arrays, smuggled=np.arange(3))
    _expect(_write(tmp_path, _join(doc, a), "d.hbnlab"), "arrays.npz", "not referenced")
    a = dict(arrays, selected_features_=arrays["selected_features_"] + 10**6)
    _expect(_write(tmp_path, _join(doc, a), "e.hbnlab"), "state.selected_features_", "above the maximum")


def test_pipeline_errors(tmp_path, nb_raw):
    doc, arrays = _split(nb_raw)
    d = copy.deepcopy(doc)
    d["pipeline"]["vocabulary"] = d["pipeline"]["vocabulary"][:-1]
    _expect(_write(tmp_path, _join(d, arrays), "a.hbnlab"), "pipeline.vocabulary", "columns")
    d = copy.deepcopy(doc)
    d["pipeline"]["indexing"]["tokenizer"] = "eval"
    _expect(_write(tmp_path, _join(d, arrays), "b.hbnlab"), "pipeline.indexing", "unknown")


def test_deeply_nested_json(tmp_path, nb_raw):
    doc, arrays = _split(nb_raw)
    text = json.dumps(doc)[:-1] + ', "provenance": ' + "[" * 5000 + "]" * 5000 + "}"
    _expect(_write(tmp_path, _join(None, arrays, json_text=text)), "model.json", "nested")


def test_json_that_is_not_an_object(tmp_path):
    _expect(_write(tmp_path, _join(None, json_text="[1, 2, 3]")), "model.json", "JSON object")


# --------------------------------------------------------------------------- fuzzing
_JUNK = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
                  st.text(max_size=5), st.lists(st.integers(-3, 3), max_size=4), st.just({}), st.just([[]]))


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:3]):
            yield from _paths(v, prefix + (i,))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_model_json_is_refused_cleanly(hbn_raw, data):
    """Replace any one value of model.json by junk: loading succeeds or raises ModelFileError."""
    doc, arrays = _split(hbn_raw)
    paths = [p for p in _paths(doc) if p and p[0] not in ("provenance", "library_versions", "created")]
    path = data.draw(st.sampled_from(paths))
    junk = data.draw(_JUNK)
    target = doc
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = junk
    try:
        m = load_model(_join(doc, arrays), name="fuzz.hbnlab")
    except ModelFileError as e:
        assert "fuzz.hbnlab" in str(e)
    else:
        assert m.estimator is not None


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pos=st.integers(0, 10**9), byte=st.integers(0, 255))
def test_flipped_bytes_are_refused_cleanly(nb_raw, pos, byte):
    raw = bytearray(nb_raw)
    raw[pos % len(raw)] = byte
    try:
        load_model(bytes(raw), name="flip.hbnlab")
    except ModelFileError as e:
        assert "flip.hbnlab" in str(e)


def test_tree_size_and_depth_limits(tmp_path, hbn_raw):
    """Checked in linear time before the tree is built (a deep chain would make the structural
    checks quadratic)."""
    doc, arrays = _split(hbn_raw)
    n = len(doc["state"]["params_"]["tree"]["up"])
    _expect(_write(tmp_path, _join(doc, arrays), "a.hbnlab"), "state.params_.tree", "limit",
            limits=LoadLimits(max_tree_nodes=n - 1))
    _expect(_write(tmp_path, _join(doc, arrays), "b.hbnlab"), "state.params_.tree", "deeper than 1 levels",
            limits=LoadLimits(max_tree_depth=1))
    # a 100 000-node chain: refused quickly by size, and by depth when the size limit allows it
    chain = copy.deepcopy(doc)
    t = chain["state"]["params_"]["tree"]
    N = 100_000
    t.update(up=[-1] + list(range(N - 1)), kind=["class"] + ["hidden"] * (N - 1), feature=[-1] * N,
             names=[f"h{i}" for i in range(N)])
    _expect(_write(tmp_path, _join(chain, arrays), "c.hbnlab"), "state.params_.tree", "limit")
    _expect(_write(tmp_path, _join(chain, arrays), "d.hbnlab"), "state.params_.tree", "deeper than",
            limits=LoadLimits(max_tree_nodes=10**6))


# --------------------------------------------------------------------------- issue 12: leaks and checksums
def _npz_with_header(arrays: dict, key: str, header: bytes) -> bytes:
    """``arrays`` as an .npz whose member ``key`` has the given .npy header dict text."""
    header = header + b" " * (63 - (10 + len(header)) % 64) + b"\n"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for k, a in arrays.items():
            npy = io.BytesIO()
            np.save(npy, a)
            data = npy.getvalue()
            if k == key:
                data = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + a.tobytes()
            zf.writestr(f"{k}.npy", data)
    return buf.getvalue()


@pytest.mark.parametrize("header", [b"{'descr': '''<f8', 'fortran_order': False, 'shape': (2,), }",  # TokenError
                                    b"{'descr': '<f8', 'fortran_order': False, 'shape': (2,), ",       # SyntaxError
                                    b"{'descr': '<f8', 'fortran_order': False, 'shape': " + b"(" * 3000,
                                    b"{'descr': 3, 'fortran_order': False, 'shape': (2,), }"])
def test_malformed_npy_header_names_the_member(tmp_path, nb_raw, header):
    doc, arrays = _split(nb_raw)
    key = sorted(arrays)[0]
    path = _write(tmp_path, _join(doc, npz_bytes=_npz_with_header(arrays, key, header)))
    _expect(path, f"arrays.npz:{key}", "not a valid .npy array")


def test_malformed_npy_header_is_one_cli_line(tmp_path, nb_raw, capsys):
    from hbnlab.cli.main import main

    doc, arrays = _split(nb_raw)
    key = sorted(arrays)[0]
    path = _write(tmp_path, _join(doc, npz_bytes=_npz_with_header(arrays, key, b"{'descr': '''<f8'")))
    texts = tmp_path / "in.txt"
    texts.write_text("one text\n")
    assert main(["predict", "--model", str(path), "--input", str(texts), "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hbnlab: error: {path}: field 'arrays.npz:{key}'") and "Traceback" not in err


def test_json_over_the_size_cap_is_refused_before_parsing(tmp_path, nb_raw, monkeypatch):
    doc, arrays = _split(nb_raw)
    doc["provenance"] = {"x": [0.123456789] * 800_000}  # 10 MB of numbers, compresses 500:1
    path = _write(tmp_path, _join(doc, arrays))
    monkeypatch.setattr(json, "loads", lambda *a, **k: pytest.fail("model.json was parsed"))
    _expect(path, "model.json", "the limit is 8388608")


def test_hundred_thousand_deep_json_never_reaches_the_parser(tmp_path, nb_raw, monkeypatch):
    doc, arrays = _split(nb_raw)
    text = json.dumps(doc)[:-1] + ', "provenance": "[[[", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path = _write(tmp_path, _join(None, arrays, json_text=text))
    monkeypatch.setattr(json, "loads", lambda *a, **k: pytest.fail("model.json was parsed"))
    _expect(path, "model.json", "nested deeper than 64 levels")


def _container_depth(value) -> int:
    """Oracle: how many arrays / objects nest, by recursion on the parsed value."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return 1 + max(map(_container_depth, value), default=0)
    return 0


def test_raw_depth_agrees_with_the_parsed_depth():
    from hbnlab._validation import raw_json_depth

    for value in ([], {}, [[], {"a": [1, "]]"]}], {"k[": ["\\", '"', '\\"[', [[[]]]]}, "[[", 3,
                  {"a": {"b": {"c": ["\\\\\"{{"]}}}, [[[{"x": "}}}}"}]], "{"]):
        assert raw_json_depth(json.dumps(value).encode()) == _container_depth(value), value


def test_recursion_or_memory_error_anywhere_names_the_file(tmp_path, nb_raw, monkeypatch):
    from hbnlab.export.model_io import container

    path = _write(tmp_path, nb_raw)
    for exc in (RecursionError, MemoryError):
        def boom(*a, _exc=exc, **k):
            raise _exc()
        monkeypatch.setattr(container, "_check_header", boom)
        _expect(path, "", exc.__name__)


def test_payload_sha256_recorded_and_checked(tmp_path, nb_raw):
    import hashlib

    with zipfile.ZipFile(io.BytesIO(nb_raw)) as zf:
        comment = zf.comment.decode()
        members = {n: zf.read(n) for n in zf.namelist()}
    assert comment == "hbnlab-sha256 " + " ".join(f"{n}={hashlib.sha256(b).hexdigest()}" for n, b in members.items())
    # an edit that keeps the ZIP valid (new CRC) but not the recorded hash
    doc = json.loads(members["model.json"])
    doc["label"] = "edited"
    for member, data in (("model.json", json.dumps(doc).encode()), ("arrays.npz", members["arrays.npz"] + b"\0")):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for n, b in members.items():
                zf.writestr(n, data if n == member else b)
            zf.comment = comment.encode()
        _expect(_write(tmp_path, buf.getvalue(), f"{member}.hbnlab"), member, "SHA-256 differs")
    # a malformed list under the prefix
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b)
        zf.comment = b"hbnlab-sha256 model.json=xyz"
    _expect(_write(tmp_path, buf.getvalue(), "bad-comment.hbnlab"), "", "archive comment")


def test_files_without_the_hash_still_load(tmp_path, nb_raw):
    doc, arrays = _split(nb_raw)
    old = _join(doc, arrays)  # written the way format 1 files were before the comment
    with zipfile.ZipFile(io.BytesIO(old)) as zf:
        assert zf.comment == b""
    m = load_model(_write(tmp_path, old, "old.hbnlab"))
    assert np.array_equal(m.estimator.predict_proba(np.eye(m.estimator.n_features_in_)),
                          load_model(nb_raw).estimator.predict_proba(np.eye(m.estimator.n_features_in_)))


# --------------------------------------------------------------------------- k-state search record
@pytest.fixture(scope="module")
def auto_states_raw():
    from hbnlab.models.hbn import HierarchicalBNClassifier

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (300, 8))
    y = (X[:, 0] | X[:, 1]) & rng.integers(0, 2, 300)
    est = HierarchicalBNClassifier(B=3, n_features=None, n_restarts=4, random_state=0,
                                   hidden_states="auto").fit(X, y)
    assert est.state_selection_ and est.state_selection_[0]["node"] is None
    return est, model_to_bytes(est)


def test_state_selection_round_trips(auto_states_raw):
    est, raw = auto_states_raw
    m = load_model(raw)
    assert m.estimator.state_selection_ == est.state_selection_
    assert m.estimator.tree_.to_dict() == est.tree_.to_dict()


@pytest.mark.parametrize("change, field, message", [
    (lambda s: s.__setitem__("state_selection_", "all"), "state_selection_", "list"),
    (lambda s: s["state_selection_"][1].__setitem__("node", 10_000), "state_selection_.1.node", "node of the tree"),
    (lambda s: s["state_selection_"][1].__setitem__("states", 1), "state_selection_.1.states", "integer in"),
    (lambda s: s["state_selection_"][1].__setitem__("accepted", "yes"), "state_selection_.1.accepted", "true or false"),
    (lambda s: s["state_selection_"][0].__setitem__("code", "os.system"), "state_selection_.0", "unknown field"),
])
def test_bad_state_selection_is_named(tmp_path, auto_states_raw, change, field, message):
    doc, arrays = _split(auto_states_raw[1])
    change(doc["state"])
    _expect(_write(tmp_path, _join(doc, arrays)), field, message)


def test_models_without_a_state_search_load_with_none(hbn_raw):
    assert "state_selection_" not in _split(hbn_raw)[0]["state"]
    assert load_model(hbn_raw).estimator.state_selection_ is None


def _needs_zip_version(raw: bytes, version: int, entry: int = 0) -> bytes:
    """``raw`` with the ``entry``-th central-directory record asking for ZIP version ``version / 10``
    to extract (the bytes 6-7 after its signature)."""
    out = bytearray(raw)
    at = -1
    for _ in range(entry + 1):
        at = out.index(b"PK\x01\x02", at + 1)
    out[at + 6:at + 8] = version.to_bytes(2, "little")
    return bytes(out)


@pytest.mark.parametrize("entry", [0, 1])
def test_a_directory_entry_of_a_later_zip_version_is_refused_cleanly(nb_raw, entry):
    # found by test_flipped_bytes_are_refused_cleanly: zipfile refuses such an entry with an exception of its own
    with pytest.raises(ModelFileError, match=r"later\.hbnlab.*not a readable ZIP archive.*zip file version 6\.4"):
        load_model(_needs_zip_version(nb_raw, 64, entry), name="later.hbnlab")
    with zipfile.ZipFile(io.BytesIO(nb_raw)) as zf:
        doc, npz = json.loads(zf.read("model.json")), zf.read("arrays.npz")
    with pytest.raises(ModelFileError, match=r"late\.hbnlab.*arrays\.npz.*not a valid \.npz archive"):
        load_model(_join(doc, npz_bytes=_needs_zip_version(npz, 64)), name="late.hbnlab")
