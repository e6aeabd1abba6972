"""The store of parsed and indexed corpora in the data home (hbnlab.pipeline.store).

Round trips are checked field by field against a fresh parse and a fresh preparation; the
failure cases (changed files, damaged entries, two writers, a full disk) each end with correct
data and a valid entry, or with no entry at all."""
from __future__ import annotations

import errno
import io
import json
import multiprocessing
import os
from pathlib import Path

import numpy as np
import pytest

from hbnlab.cli.common import NO_CACHE_ENV as CLI_NO_CACHE_ENV
from hbnlab.cli.main import main
from hbnlab.corpus import load_corpus, load_reuters21578, make_hierarchical_corpus, make_synthetic_corpus
from hbnlab.pipeline import store
from hbnlab.pipeline.corpus_spec import load_named_corpus
from hbnlab.pipeline.data import prepare
from hbnlab.text import IndexingConfig


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(h))
    monkeypatch.delenv(store.NO_CACHE_ENV, raising=False)
    monkeypatch.setattr(store, "_INDEXES", type(store._INDEXES)())    # this process has indexed nothing yet
    return h


def entries(home: Path, kind: str | None = None) -> list[Path]:
    root = home / store.CACHE_DIR
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if kind is None or p.name.startswith(kind + "-"))


def assert_same_data(a, b):
    """Every array and field of two ProtocolData objects equal (values, dtypes, shapes)."""
    ia, ib = a.indexed, b.indexed
    for name in ("X_train", "X_test"):
        xa, xb = getattr(ia, name), getattr(ib, name)
        assert xa.shape == xb.shape and xa.dtype == xb.dtype
        for part in ("data", "indices", "indptr"):
            pa, pb = getattr(xa, part), getattr(xb, part)
            assert pa.dtype == pb.dtype and np.array_equal(pa, pb), (name, part)
    for name in ("Y_train", "Y_test"):
        ya, yb = getattr(ia, name), getattr(ib, name)
        assert ya.dtype == yb.dtype and np.array_equal(ya, yb), name
    assert a.scores.dtype == b.scores.dtype and np.array_equal(a.scores, b.scores)
    assert a.folds.dtype == b.folds.dtype and np.array_equal(a.folds, b.folds)
    assert (a.selection, a.corpus_name, a.synthetic, a.fingerprint) == (b.selection, b.corpus_name, b.synthetic,
                                                                        b.fingerprint)
    assert a.info == b.info
    assert ia.config == ib.config and ia.vocabulary == ib.vocabulary and ia.categories == ib.categories
    assert ia.train_docs == ib.train_docs and ia.test_docs == ib.test_docs
    xa, xb = ia.indexer, ib.indexer
    assert xa.vocabulary_ == xb.vocabulary_ and xa.term_index_ == xb.term_index_
    assert np.array_equal(xa.document_frequency_, xb.document_frequency_) and xa.n_documents_ == xb.n_documents_
    texts = [d.full_text for d in ia.test_docs[:50]] + ["an unseen text about the market"]
    assert (xa.transform(texts) != xb.transform(texts)).nnz == 0
    assert a.validation_description() == b.validation_description()
    assert (a.topics is None) == (b.topics is None)
    if a.topics is not None:
        assert dict(a.topics.taxonomy.parents) == dict(b.topics.taxonomy.parents)
        assert np.array_equal(a.topics.Y, b.topics.Y)


def _round_trip(corpus_loader, fresh_corpus, home, **kw):
    log = []
    first = corpus_loader(log.append)
    second = corpus_loader(log.append)
    assert first == fresh_corpus and second == fresh_corpus and second.meta == fresh_corpus.meta
    assert any("read from" in m for m in log), log              # the second load came from the store
    fresh = prepare(fresh_corpus, **kw)
    built = store.prepare_cached(second, log=log.append, **kw)
    read = store.prepare_cached(second, log=log.append, **kw)
    assert read is not built
    assert sum(f"indexed {fresh_corpus.name} read from" in m for m in log) == 1
    assert_same_data(fresh, built)
    assert_same_data(fresh, read)
    assert len(entries(home, "corpus")) == 1 and len(entries(home, "data")) == 1


def test_round_trip_on_the_synthetic_corpus(home):
    fresh = make_synthetic_corpus(n_documents=400, random_state=3)
    _round_trip(lambda log: load_named_corpus("synthetic", size=400, seed=3, log=log), fresh, home,
                n_categories=4, indexing=IndexingConfig(min_df=1))


def test_round_trip_on_a_folder_corpus(home, folder_corpus):
    fresh = load_corpus(str(folder_corpus.root))
    _round_trip(lambda log: load_named_corpus(str(folder_corpus.root), log=log), fresh, home, validation="stratified",
                n_categories=3, indexing=IndexingConfig(min_df=1, stemming="porter"))


@pytest.mark.slow
def test_round_trip_on_reuters(home, reuters_path):
    fresh = load_reuters21578(reuters_path)
    _round_trip(lambda log: load_named_corpus("reuters", reuters_dir=str(reuters_path), log=log), fresh, home)


def test_settings_that_change_the_data_get_their_own_entry(home):
    corpus = load_named_corpus("synthetic", size=300, seed=1)
    a = store.prepare_cached(corpus, n_categories=3)
    b = store.prepare_cached(corpus, n_categories=3, selection="chi2")
    c = store.prepare_cached(corpus, n_categories=3, indexing=IndexingConfig(min_df=3))
    assert len(entries(home, "data")) == 3
    assert not np.array_equal(a.scores, b.scores) and a.indexed.n_terms != c.indexed.n_terms
    assert_same_data(store.prepare_cached(corpus, n_categories=3, selection="chi2"),
                     prepare(corpus, n_categories=3, selection="chi2"))


def test_a_changed_file_is_a_new_key_even_with_the_same_size_and_time(home, folder_corpus):
    root = folder_corpus.root
    first = load_named_corpus(str(root))
    path = next(p for p in sorted(root.rglob("*")) if p.is_file())
    st = path.stat()
    data = bytearray(path.read_bytes())
    i = data.index(b"report") if b"report" in data else 0
    data[i:i + 6] = b"REPORT"                                     # same size
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))          # same modification time
    second = load_named_corpus(str(root))
    assert second == load_corpus(str(root)) and second != first
    assert len(entries(home, "corpus")) == 2
    assert_same_data(store.prepare_cached(second, n_categories=2), prepare(second, n_categories=2))


def _damage(entry: Path, name: str, how: str) -> None:
    p = entry / name
    if how == "truncate":
        p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])
    elif how == "flip":
        data = bytearray(p.read_bytes())
        data[len(data) // 2] ^= 0xFF
        p.write_bytes(bytes(data))
    elif how == "delete":
        p.unlink()
    elif how == "foreign":
        meta = json.loads(p.read_text())
        meta["format"] = 999
        p.write_text(json.dumps(meta))


@pytest.mark.parametrize("kind,name,how", [
    ("corpus", "corpus.json", "truncate"), ("corpus", "corpus.json", "flip"), ("corpus", "entry.json", "delete"),
    ("data", "arrays.npz", "truncate"), ("data", "arrays.npz", "flip"), ("data", "data.json", "delete"),
    ("data", "entry.json", "foreign"), ("data", "entry.json", "truncate"),
    ("index", "arrays.npz", "flip"), ("index", "index.json", "delete"), ("index", "entry.json", "foreign"),
])
def test_a_damaged_entry_is_reported_once_and_rebuilt(home, kind, name, how):
    kw = dict(n_categories=3)
    corpus = load_named_corpus("synthetic", size=300, seed=2)
    store.prepare_cached(corpus, **kw)
    (entry,) = entries(home, kind)
    _damage(entry, name, how)
    store._INDEXES.clear()                                       # as a new process
    log = []
    again = load_named_corpus("synthetic", size=300, seed=2, log=log.append)
    data = store.prepare_cached(again, log=log.append, **kw)
    damaged = [m for m in log if "is damaged (" in m]
    assert len(damaged) == 1 and str(entry) in damaged[0], log
    assert again == make_synthetic_corpus(n_documents=300, random_state=2)
    assert_same_data(data, prepare(again, **kw))
    log.clear()                                                  # the rebuilt entry is valid
    store._INDEXES.clear()
    store.prepare_cached(load_named_corpus("synthetic", size=300, seed=2, log=log.append), log=log.append, **kw)
    assert [m for m in log if "read from" in m] and not [m for m in log if "is damaged (" in m or "built" in m]


def test_arrays_are_read_without_pickle(home):
    """An npz holding an object array (which only unpickling could read), with checksums that
    match, is refused as damaged: the store never unpickles."""
    corpus = load_named_corpus("synthetic", size=300, seed=4)
    store.prepare_cached(corpus, n_categories=2)
    (entry,) = entries(home, "data")
    with np.load(entry / "arrays.npz", allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["scores"] = np.array([{"not": "numbers"}] * 3, dtype=object)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    (entry / "arrays.npz").write_bytes(buf.getvalue())
    meta = json.loads((entry / "entry.json").read_text())
    meta["files"]["arrays.npz"] = {"bytes": len(buf.getvalue()), "sha256": __import__("hashlib").sha256(
        buf.getvalue()).hexdigest()}
    (entry / "entry.json").write_text(json.dumps(meta))
    log = []
    data = store.prepare_cached(corpus, log=log.append, n_categories=2)
    assert any("is damaged (" in m and "pickle" in m.lower() for m in log), log
    assert_same_data(data, prepare(corpus, n_categories=2))


def test_a_full_disk_leaves_no_entry_and_the_job_goes_on(home, monkeypatch):
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(store.os, "fsync", full)
    log = []
    corpus = load_named_corpus("synthetic", size=300, seed=5, log=log.append)
    data = store.prepare_cached(corpus, log=log.append, n_categories=2)
    assert corpus == make_synthetic_corpus(n_documents=300, random_state=5)
    assert_same_data(data, prepare(corpus, n_categories=2))
    failed = [m for m in log if "could not write" in m]
    assert len(failed) == 3 and all("No space left on device" in m for m in failed), log
    assert entries(home) == []                                   # no entry, no temporary folder


def test_the_store_can_be_turned_off(home, monkeypatch):
    monkeypatch.setenv(store.NO_CACHE_ENV, "1")
    store.prepare_cached(load_named_corpus("synthetic", size=200, seed=0), n_categories=2)
    assert not (home / store.CACHE_DIR).exists()
    assert CLI_NO_CACHE_ENV == store.NO_CACHE_ENV


def test_the_second_writer_keeps_the_first_entry(home):
    corpus = load_named_corpus("synthetic", size=200, seed=6)
    (entry,) = entries(home, "corpus")
    before = (entry / "corpus.json").read_bytes()
    key = json.loads((entry / "entry.json").read_text())["key"]
    assert not store._publish(entry, key, "corpus", {"corpus.json": b"{}"}, {}, log=None)
    assert (entry / "corpus.json").read_bytes() == before and entries(home) == [entry]
    assert load_named_corpus("synthetic", size=200, seed=6) == corpus


def _writer(home: str, barrier, queue) -> None:
    os.environ["HBNLAB_DATA_HOME"] = home
    log = []
    try:
        barrier.wait(timeout=60)
        corpus = load_named_corpus("synthetic", size=1500, seed=7, log=log.append)
        data = store.prepare_cached(corpus, log=log.append, n_categories=4)
        queue.put(("ok", data.fingerprint, int(data.X_train.nnz), log))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        queue.put(("error", repr(exc), 0, log))


def test_two_processes_writing_the_same_entries_both_succeed(home):
    ctx = multiprocessing.get_context("spawn")
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(str(home), barrier, queue)) for _ in range(2)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert [r[0] for r in results] == ["ok", "ok"], results
    assert results[0][1:3] == results[1][1:3]
    assert not any("is damaged (" in m or "could not write" in m for r in results for m in r[3]), results
    assert [p.name.split("-")[0] for p in entries(home)] == ["corpus", "data", "index"]  # one each, no leftovers
    log = []
    corpus = load_named_corpus("synthetic", size=1500, seed=7, log=log.append)
    data = store.prepare_cached(corpus, log=log.append, n_categories=4)
    assert sum("read from" in m for m in log) == 3, log
    assert_same_data(data, prepare(make_synthetic_corpus(n_documents=1500, random_state=7), n_categories=4))


def test_the_command_line_uses_reports_lists_and_clears_the_store(home, folder_corpus, capsys):
    argv = ["corpus-info", "--corpus", str(folder_corpus.root)]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "cache: corpus path" in first and "stored in" in first
    assert main(argv) == 0
    second = capsys.readouterr().out
    assert "read from" in second
    assert first.split("\n", 1)[1] == second.split("\n", 1)[1]  # the same report after the cache line
    assert main(["reproduce", "table-4.10", "--corpus", "synthetic", "--synthetic-size", "300", "--rows", "NB:20"]) == 0
    out = capsys.readouterr().out
    assert "cache: indexed" in out and "stored in" in out
    assert main(["cache", "list"]) == 0
    listing = capsys.readouterr().out
    assert f"{home / store.CACHE_DIR}: 4 entries" in listing and listing.count(" KB") + listing.count(" MB") >= 4
    assert main(["cache", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["entries"]
    assert sorted(r["kind"] for r in rows) == ["corpus", "corpus", "data", "index"]
    assert all(r["status"] == "ok" for r in rows)
    assert main(["cache", "clear"]) == 0
    assert "removed 4 entries" in capsys.readouterr().out and entries(home) == []


def test_the_command_line_no_cache_flag(home, folder_corpus, capsys, monkeypatch):
    monkeypatch.setenv(store.NO_CACHE_ENV, "0")                     # restored after the test
    assert main(["corpus-info", "--corpus", str(folder_corpus.root), "--no-cache"]) == 0
    assert "cache:" not in capsys.readouterr().out and entries(home) == []
    assert os.environ.get(store.NO_CACHE_ENV) == "1"                # workers started from here inherit it


def test_the_least_recently_used_entries_go_when_the_store_is_full(home, monkeypatch):
    corpus = load_named_corpus("synthetic", size=300, seed=8)
    store.prepare_cached(corpus, n_categories=2, random_state=0)
    store.prepare_cached(corpus, n_categories=2, random_state=1)
    # the index entry last: the next preparation uses it again
    by_use = [entries(home, "corpus")[0]] + sorted(entries(home, "data")) + [entries(home, "index")[0]]
    for t, p in enumerate(by_use, 1):
        os.utime(p / "entry.json", (t, t))                       # used in this order, long ago

    def size(p):
        return sum(f.stat().st_size for f in p.iterdir())
    full = sum(size(p) for p in by_use)
    monkeypatch.setenv(store.MAX_MB_ENV, str(full / 2**20))      # the store is exactly full
    log = []
    store.prepare_cached(corpus, n_categories=2, random_state=2, log=log.append)
    (new,) = [p for p in entries(home) if p not in by_use]
    left = [p for p in by_use if p in entries(home)]
    k = len(by_use) - len(left)
    assert k >= 1 and left == by_use[k:], log                      # the oldest went first
    assert sum(size(p) for p in left) + size(new) <= full
    assert sum("least recently used" in m for m in log) == k
    log.clear()
    store.prepare_cached(corpus, n_categories=2, random_state=2, log=log.append)
    assert "read from" in log[-1]                                  # the new entry stays


def test_a_training_job_in_a_new_worker_reads_the_store_and_logs_it(home, monkeypatch):
    """A worker process has its own in-process cache; a new one (here: that cache emptied) reads
    the corpus and the indexed data from the store, and the job's log says so."""
    from hbnlab.jobs.spec import JobSpec
    from hbnlab.jobs.tasks import InlineTaskContext, run_task
    from hbnlab.pipeline import tasks as T
    from hbnlab.pipeline.config import ExperimentConfig

    cfg = ExperimentConfig(synthetic_size=400, n_features=5, classifiers=("NB",), n_categories=2)
    spec = JobSpec("train", {"config": cfg.to_dict()}, group="test", random_state=0, module="hbnlab.pipeline.tasks")
    results = []
    for _ in range(2):
        monkeypatch.setattr(T, "_PREPARED", type(T._PREPARED)())    # a new worker process
        monkeypatch.setattr(store, "_INDEXES", type(store._INDEXES)())
        ctx = InlineTaskContext(spec)
        out = run_task(spec, ctx)
        assert out.state == "done", out.error
        results.append((out.result, [m for m in ctx.messages if m.startswith("cache:")]))
    (first, built), (second, read) = results
    assert len(built) == 3 and all("stored in" in m for m in built)
    assert len(read) == 3 and all("read from" in m for m in read)
    assert [u["breakeven"] for u in first["units"]] == [u["breakeven"] for u in second["units"]]


def test_defaults_given_or_left_out_share_one_entry(home):
    corpus = load_named_corpus("synthetic", size=300, seed=9)
    store.prepare_cached(corpus)
    log = []
    store.prepare_cached(corpus, n_categories=10, indexing=IndexingConfig(), selection="ig", validation="auto",
                         cv=None, random_state=0, require_test=True, log=log.append)
    assert len(entries(home, "data")) == 1 and "read from" in log[-1]


def test_a_corpus_that_is_not_plain_json_is_returned_and_not_stored(home, tmp_path):
    from hbnlab.corpus import Corpus

    src = tmp_path / "src.txt"
    src.write_text("x")
    base = make_synthetic_corpus(n_documents=60, random_state=0)
    odd = Corpus("odd", base.documents, meta={"tags": {"a", "b"}})      # a set: no JSON for it
    for _ in range(2):
        got = store.cached_corpus({"reader": "test"}, [src], lambda: odd)
        assert got is odd
    assert entries(home) == []
    log = []
    store.prepare_cached(odd, n_categories=2, log=log.append)            # its indexed data is plain: stored
    assert len(entries(home, "data")) == 1 and "stored in" in log[-1]


def test_a_topic_hierarchy_survives_the_store_and_its_taxonomy_is_part_of_the_key(home):
    from hbnlab.corpus.taxonomy import ROOT, Taxonomy

    fresh = make_hierarchical_corpus(n_documents=300, random_state=2)
    _round_trip(lambda log: load_named_corpus("synthetic-hierarchy", size=300, seed=2, log=log), fresh, home)
    read = store.prepare_cached(fresh)
    assert read.topics is not None and read.info["taxonomy"]["source"] == "dotted names"
    # a taxonomy file that puts every category under the root: another entry, other topics
    flat = Taxonomy({c: ROOT for c in fresh.categories()})
    with_file = store.prepare_cached(fresh, taxonomy=flat)
    assert len(entries(home, "data")) == 2 and with_file.info["taxonomy"]["source"] == "file"
    assert with_file.topics.Y.shape[1] < read.topics.Y.shape[1]
    assert_same_data(store.prepare_cached(fresh, taxonomy=flat), prepare(fresh, taxonomy=flat))


def test_a_change_of_classes_reuses_the_term_index(home, monkeypatch):
    """The term index depends on the corpus and the indexing only: other classes, selection,
    validation or seed index nothing again (in this process, nor in a new one), and give the
    data a fresh preparation gives."""
    from hbnlab.pipeline import data as D

    corpus = load_named_corpus("synthetic", size=600, seed=4)
    calls = []
    real = store.index_corpus
    monkeypatch.setattr(store, "index_corpus", lambda *a, **k: calls.append(1) or real(*a, **k))
    settings = [dict(n_categories=2), dict(n_categories=4), dict(categories=[corpus.categories()[2]]),
                dict(n_categories=3, selection="chi2"), dict(n_categories=3, validation="stratified", random_state=5)]
    for kw in settings:
        assert_same_data(store.prepare_cached(corpus, **kw), prepare(corpus, **kw))
    assert len(calls) == 1 and len(entries(home, "index")) == 1 and len(entries(home, "data")) == len(settings)
    monkeypatch.setattr(store, "_INDEXES", type(store._INDEXES)())   # a new process reads it from the store
    log = []
    assert_same_data(store.prepare_cached(corpus, n_categories=5, log=log.append), prepare(corpus, n_categories=5))
    assert len(calls) == 1 and any("index of synthetic read from" in m for m in log), log
    store.prepare_cached(corpus, n_categories=5, indexing=IndexingConfig(min_df=5))   # another indexing: indexed
    assert len(calls) == 2 and len(entries(home, "index")) == 2
    monkeypatch.setattr(D, "index_corpus", None)                    # prepare with an index never indexes
    with pytest.raises(ValueError, match="was built with"):
        prepare(corpus, n_categories=2, index=store.term_index(corpus), indexing=IndexingConfig(min_df=5))


def test_the_term_index_without_the_store_is_kept_in_this_process(home, monkeypatch):
    monkeypatch.setenv(store.NO_CACHE_ENV, "1")
    corpus = load_named_corpus("synthetic", size=300, seed=6)
    first = store.term_index(corpus)
    assert store.term_index(corpus) is first and entries(home) == []
    assert_same_data(store.prepare_cached(corpus, n_categories=3), prepare(corpus, n_categories=3))


def test_a_corpus_is_fingerprinted_and_split_once(monkeypatch):
    from hbnlab.pipeline import data as D

    corpus = make_synthetic_corpus(n_documents=300, random_state=1)
    assert corpus.fingerprint() == make_synthetic_corpus(n_documents=300, random_state=1).fingerprint()
    calls = []
    real = D.validation_folds
    monkeypatch.setattr(D, "validation_folds", lambda *a, **k: calls.append(k) or real(*a, **k))
    a = prepare(corpus, n_categories=2)
    b = prepare(corpus, n_categories=3)
    assert len(calls) == 1 and np.array_equal(a.folds, b.folds) and a.info["validation"] == b.info["validation"]
    prepare(corpus, n_categories=2, random_state=np.random.RandomState(0))   # a generator is never reused
    prepare(corpus, n_categories=2, random_state=1)
    assert len(calls) == 3
