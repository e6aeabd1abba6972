"""A corpus read tells how far it has come (issue 29: an upload parsed with a progress bar that
moves): the readers tick per ZIP member, per decoded file and per table row; the isolated upload
check relays its child's ticks; the workbench's store_upload turns them into fractions."""
from __future__ import annotations

import io
import zipfile

import pytest

from hbnlab.corpus import load_upload
from hbnlab.corpus.isolated import check_upload
from hbnlab.corpus.progress import EVERY, as_fractions, reporting, tick

N = 2 * EVERY + 37  # more files than two reporting strides, not a multiple of one


def _tree_zip(n=N) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for k in range(n):
            z.writestr(f"news/train/{'ab'[k % 2]}/m{k}", f"message number {k} about {'ab'[k % 2]}")
    return buf.getvalue()


def _table(n=N) -> bytes:
    return ("id,text,labels\n" + "".join(f"{k},words of row {k},{'ab'[k % 2]}\n" for k in range(n))).encode()


def _heard(read) -> dict:
    seen: dict = {}
    with reporting(lambda stage, done, total: seen.setdefault(stage, []).append((done, total))):
        read()
    return seen


def _check_stage(ticks, total):
    dones = [d for d, _ in ticks]
    assert {t for _, t in ticks} == {total}
    assert dones == sorted(dones) and dones[0] == 1 and dones[-1] == total
    assert dones[1:-1] == list(range(EVERY, total, EVERY))


def test_a_zip_tree_ticks_per_member_and_per_decoded_file():
    seen = _heard(lambda: load_upload(_tree_zip(), "news.zip"))
    assert set(seen) == {"inflating members", "decoding files"}
    _check_stage(seen["decoding files"], N)
    assert seen["inflating members"][-1][0] == seen["inflating members"][-1][1] >= N  # folders are members too
    _check_stage(seen["inflating members"], seen["inflating members"][-1][1])


def test_a_table_ticks_per_row():
    seen = _heard(lambda: load_upload(_table(), "t.csv", id_column="id"))
    assert set(seen) == {"reading rows"}
    _check_stage(seen["reading rows"], N)


def test_nobody_listens_outside_the_block_and_the_block_restores_the_listener():
    outer, inner = [], []
    with reporting(lambda *a: outer.append(a)):
        with reporting(lambda *a: inner.append(a)):
            tick("x", 1, 1)
        tick("y", 1, 1)
    tick("z", 1, 1)
    assert inner == [("x", 1, 1)] and outer == [("y", 1, 1)]


def test_the_isolated_check_relays_its_childs_ticks_in_the_callers_thread():
    import threading

    heard = []
    n = check_upload(_tree_zip(), "news.zip", progress=lambda *a: heard.append((threading.get_ident(), *a)))
    assert n == N
    assert {h[0] for h in heard} == {threading.get_ident()}
    assert heard[-1][1:] == ("decoding files", N, N)  # the last tick always arrives
    stages = [h[1] for h in heard]
    assert stages == sorted(stages, key=["inflating members", "decoding files"].index)


def test_a_failing_read_still_raises_its_error_with_progress_on():
    from hbnlab.corpus import CorpusError

    with pytest.raises(CorpusError, match=r"^m\.csv: no column 'text'"):
        check_upload(b"body,labels\nwheat,grain\n", "m.csv", progress=lambda *a: None)


def test_fractions_for_a_progress_bar():
    told = []
    listener = as_fractions(lambda f, m: told.append((f, m)), "Checking t.csv: ")
    listener("reading rows", 1, 4)
    listener("reading rows", 4, 4)
    assert told == [(0.25, "Checking t.csv: reading rows, 1 of 4"), (1.0, "Checking t.csv: reading rows, 4 of 4")]


def test_the_workbench_bar_hears_the_check_and_a_servers_parse(tmp_path, monkeypatch):
    """store_upload's child check (fractions in [0, 1] naming the file and the stage); the server
    reads the corpus the check parsed (nothing to report), and a parse of its own -- another
    reading setting -- is heard on the same kind of bar (the Corpus page runs both under one
    lazily drawn bar)."""
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path))
    from hbnlab.app import corpus_data
    from hbnlab.pipeline.config import ExperimentConfig

    told = []
    data = _tree_zip()
    path = corpus_data.store_upload(data, "news.zip", {}, progress=lambda f, m: told.append((f, m)))
    assert told[-1] == (1.0, f"Checking news.zip: decoding files, {N:,} of {N:,}")
    assert all(0.0 < f <= 1.0 for f, _ in told)
    told.clear()
    cfg = ExperimentConfig(corpus="upload", upload_path=str(path))
    assert len(corpus_data.load_corpus(cfg, progress=lambda f, m: told.append((f, m)))) == N
    assert told == []  # the check's corpus, from the store: not parsed again
    own = ExperimentConfig(corpus="upload", upload_path=str(path), upload_encoding="utf-8")
    assert len(corpus_data.load_corpus(own, progress=lambda f, m: told.append((f, m)))) == N
    assert told[-1] == (1.0, f"Reading news.zip: decoding files, {N:,} of {N:,}")
    assert all(0.0 < f <= 1.0 for f, _ in told)
    told.clear()
    corpus_data.store_upload(data, "news.zip", {}, progress=lambda f, m: told.append((f, m)))
    corpus_data.load_corpus(cfg, progress=lambda f, m: told.append((f, m)))
    assert told == []  # already checked and read: a rerun draws no bar


def test_a_tick_cut_short_or_a_stray_message_does_not_stop_the_relay(monkeypatch):
    """The relay parses each stderr line of the child; a line that is not a whole tick is kept as
    the child's message and the relay goes on (a dead relay would leave the pipe full and the child
    blocked until its deadline)."""
    import subprocess
    import sys

    from hbnlab.corpus import isolated

    script = ("import sys, pickle\n"
              "sys.stdin.buffer.read()\n"
              "e = sys.stderr.buffer\n"
              "e.write(b'\\x00hbnlab-tick\\tdecoding files\\t5\\n'); e.write(b'a warning\\n')\n"
              "e.write(b'x' * 300000 + b'\\n')\n"
              "e.write(b'\\x00hbnlab-tick\\tdecoding files\\t7\\t7\\n'); e.flush()\n"
              "sys.stdout.buffer.write(pickle.dumps(('ok', 7, '')))\n")
    real = subprocess.Popen
    monkeypatch.setattr(isolated.subprocess, "Popen",
                        lambda args, **kw: real([sys.executable, "-c", script], **kw))
    heard = []
    assert isolated.check_upload(b"x", "f.csv", progress=lambda *a: heard.append(a), timeout=30) == 7
    assert heard[-1] == ("decoding files", 7, 7)
