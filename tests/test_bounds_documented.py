"""The README's "Serving a team" and ``hbnlab/export/FORMAT.md`` say what is bounded, with the
figures the code enforces: every ``Bound`` of ``hbnlab/bounds.py`` with its range, the corpus
readers' and the upload parse's limits, the runners' shutdown deadlines, the loopback-only local
Dask cluster, and every field of the model files' ``LoadLimits``.  A figure changed in the code
without the docs fails here."""
from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

import pytest

from hbnlab import bounds

ROOT = Path(__file__).resolve().parents[1]


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def serving() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("### Serving a team")
    return text[start:text.index("\n## ", start)]


def _range(b: bounds.Bound) -> str:
    return f"{b.lo}..{b.hi}" if b.integer else f"[{b.lo:g}, {b.hi:g}]"


def test_every_bound_is_a_row_of_the_readme_table_with_its_range(serving):
    found = {name: b for name, b in vars(bounds).items() if isinstance(b, bounds.Bound)}
    assert len(found) >= 10
    rows = [line for line in serving.splitlines() if line.startswith("|")]
    for name, b in found.items():
        mine = [r for r in rows if f"`{name}`" in r]
        assert len(mine) == 1, f"README, Serving a team: no table row for {name}"
        cells = [c.strip() for c in mine[0].strip("|").split("|")]
        assert cells[1] == _range(b), f"{name}: README says {cells[1]}, the code {_range(b)}"
        assert f"`{b.name}`" in cells[0], f"{name}: README does not name the setting {b.name}"
    flat = _flat(serving)
    assert f"`MAX_TABLE_ROWS` = 2**20 = {bounds.MAX_TABLE_ROWS:,} rows" in flat and bounds.MAX_TABLE_ROWS == 2**20
    assert f"`MAX_PARENTS` = {bounds.MAX_PARENTS} nodes" in flat


def test_the_corpus_and_upload_limits_are_stated_with_their_figures(serving):
    from hbnlab.corpus import _common, collections, encoding, fetch, isolated, parquet, readers

    flat = _flat(serving)
    want = [
        f"`DEFAULT_MAX_BYTES` = {_common.DEFAULT_MAX_BYTES / 1e6:g} MB ({_common.DEFAULT_MAX_BYTES:,} bytes",
        f"`MAX_ZIP_MEMBERS` = {readers.MAX_ZIP_MEMBERS:,} members",
        f"`MAX_PARQUET_ROWS` = {parquet.MAX_PARQUET_ROWS:,} rows",
        f"`BATCH_ROWS` = {parquet.BATCH_ROWS:,} rows",
        f"`MAX_JSONL_DEPTH` = {readers.MAX_JSONL_DEPTH} levels",
        f"`MEMORY_BYTES` = {isolated.MEMORY_BYTES / 2**30:g} GiB",
        f"`TIMEOUT_SECONDS` = {isolated.TIMEOUT_SECONDS:g} s",
        f"`MAX_FILE_BYTES` = {collections.MAX_FILE_BYTES:,} bytes",
        f"`MAX_FILES` = {collections.MAX_FILES:,} files",
        f"`MAX_EXTRACTED_BYTES` = {fetch.MAX_EXTRACTED_BYTES:,} bytes",
        f"`GUESS_SAMPLE_BYTES` = {encoding.GUESS_SAMPLE_BYTES:,} bytes",
        f"`GUESS_PIECES` = {encoding.GUESS_PIECES} whole-line pieces",
    ]
    for phrase in want:
        assert phrase in flat, f"README, Serving a team: {phrase!r} not found"
    from hbnlab.export.model_io.spec import LoadLimits

    assert f"at {LoadLimits().max_json_depth} levels" in flat


def test_the_job_deadlines_and_the_local_cluster_are_stated(serving):
    from hbnlab.jobs import dask_runner, local
    from hbnlab.pipeline import store

    flat = _flat(serving)
    for runner in (local.LocalProcessRunner, dask_runner.DaskRunner):
        timeout = inspect.signature(runner.shutdown).parameters["timeout"].default
        assert f"`{runner.__name__}.shutdown`" in flat
        assert f"`timeout` (default {timeout:g} s)" in flat
    d = dask_runner.DaskRunner
    assert f"`thread_join_min` = {d.thread_join_min:g} s" in flat
    assert f"`result_timeout` = {d.result_timeout:g} s" in flat
    grace = inspect.signature(d.__init__).parameters["cancel_grace"].default
    assert f"`cancel_grace` = {grace:g} s" in flat
    assert f"`LOCAL_HOST` = {dask_runner.LOCAL_HOST}" in flat and dask_runner.LOCAL_HOST == "127.0.0.1"
    reap = inspect.signature(local._Worker.kill).parameters["reap_timeout"].default
    assert f"reaped within {reap:g} s" in flat
    assert f"`{store.MAX_MB_ENV}` megabytes (default {store.DEFAULT_MAX_MB}" in flat
    assert "`HBNLAB_MAX_WORKERS` worker processes (default 2" in flat


def test_format_md_states_every_load_limit():
    from hbnlab.export.model_io.spec import LoadLimits

    text = _flat((ROOT / "hbnlab" / "export" / "FORMAT.md").read_text(encoding="utf-8"))
    lim = LoadLimits()
    mib = 2**20
    want = {
        "max_file_bytes": f"{lim.max_file_bytes / mib:g} MiB, `max_file_bytes`",
        "max_json_bytes": f"{lim.max_json_bytes / mib:g} MiB uncompressed, `max_json_bytes`",
        "max_arrays_bytes": f"{lim.max_arrays_bytes / mib:g} MiB uncompressed, `max_arrays_bytes`",
        "max_arrays": f"{lim.max_arrays} arrays, `max_arrays`",
        "max_compression_ratio": f"{lim.max_compression_ratio:g} for members above 1 MiB, `max_compression_ratio`",
        "max_json_depth": f"depth {lim.max_json_depth} (`max_json_depth`)",
        "max_tree_nodes": f"{lim.max_tree_nodes:,} nodes (`max_tree_nodes`)",
        "max_tree_depth": f"{lim.max_tree_depth} steps (`max_tree_depth`)",
    }
    assert set(want) == {f.name for f in dataclasses.fields(LoadLimits)}, "a LoadLimits field has no phrase here"
    for field, phrase in want.items():
        assert phrase in text, f"FORMAT.md: {field}: {phrase!r} not found"


def test_the_readme_says_what_runs_where_for_an_upload_and_the_code_agrees(serving, tmp_path, monkeypatch):
    """Issue 37 item 11: README said the workbench "parses every upload in a child process"; only the
    upload check does.  The sentence says which parse runs where, and this test holds the code to it: the
    check goes through the child, the server's later parse of the stored upload does not."""
    flat = _flat(serving)
    assert "parses every upload in a child process" not in flat
    for phrase in ("The workbench checks every upload in a child process",
                   "hands the parsed corpus back as JSON", "so an upload is parsed once",
                   "Every other parse of the stored upload runs outside that child",
                   "not by `MEMORY_BYTES` or `TIMEOUT_SECONDS`", "the server process parses it to show the pages",
                   "settings given in the URL", "a job's worker process parses it again"):
        assert phrase in flat, f"README, Serving a team: {phrase!r} not found"

    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path / "home"))
    from hbnlab.app import corpus_data
    from hbnlab.corpus import isolated
    from hbnlab.pipeline import corpus_spec
    from hbnlab.pipeline.config import ExperimentConfig

    children, parses = [], []
    real = isolated._in_child
    monkeypatch.setattr(isolated, "_in_child", lambda *a, **k: children.append(a[1]) or real(*a, **k))
    real_load = corpus_spec.load_upload
    monkeypatch.setattr(corpus_spec, "load_upload", lambda *a, **k: parses.append(a[1]) or real_load(*a, **k))
    data = "".join(f"wheat grain {i},grain\noil crude {i},crude\n" for i in range(12)).encode()
    path = corpus_data.store_upload(b"text,labels\n" + data, "mine.csv", {"encoding": "utf-8"})
    assert children == ["mine.csv"]  # the check: in the child
    corpus = corpus_data.load_corpus(ExperimentConfig(corpus="upload", upload_path=str(path), upload_encoding="utf-8"))
    assert len(corpus.train) + len(corpus.test) == 24 and children == ["mine.csv"]
    assert parses == []  # parsed once: the server read the child's corpus from the store
    other = ExperimentConfig(corpus="upload", upload_path=str(path), upload_encoding="cp1252")  # as in a URL
    assert len(corpus_data.load_corpus(other)) == 24 and parses == ["mine.csv"] and children == ["mine.csv"]
