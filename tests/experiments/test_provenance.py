"""hbnlab.experiments.provenance: the commit (dirty or not), the command, the time and the version
of a run, on a throwaway git repository."""
from __future__ import annotations

import datetime as _dt
import shutil
import subprocess

import pytest

import hbnlab
from hbnlab.experiments import provenance as P

NOW = _dt.datetime(2026, 11, 28, 20, 30, tzinfo=_dt.timezone.utc)


@pytest.fixture
def repo(tmp_path):
    if shutil.which("git") is None:
        pytest.fail("git is needed by the provenance tests")

    def git(*args):
        return subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    git("config", "user.email", "t@example.invalid")
    git("config", "user.name", "t")
    (tmp_path / "a.txt").write_text("one\n")
    git("add", "a.txt")
    git("commit", "-q", "-m", "one")
    return tmp_path, git("rev-parse", "HEAD").strip()


def test_a_clean_tree_gives_the_head_sha(repo):
    path, sha = repo
    assert P.git_commit(path) == sha


def test_a_changed_tracked_file_marks_the_commit_dirty_an_untracked_one_does_not(repo):
    path, sha = repo
    (path / "new.txt").write_text("untracked\n")
    assert P.git_commit(path) == sha
    (path / "a.txt").write_text("two\n")
    assert P.git_commit(path) == sha + "-dirty"


def test_outside_a_checkout_the_commit_is_unknown(tmp_path):
    assert P.git_commit(tmp_path) is None


def test_provenance_names_commit_command_time_and_version(repo):
    path, sha = repo
    p = P.provenance(["benchmarks/hbn_any_corpus.py", "--variants", "thesis;default"], now=NOW, repo=path)
    assert p == {"commit": sha, "command": "benchmarks/hbn_any_corpus.py --variants 'thesis;default'",
                 "time": "2026-11-28T20:30:00+00:00", "hbnlab_version": hbnlab.__version__}


def test_the_default_command_is_this_process_and_the_commit_this_checkout(monkeypatch):
    monkeypatch.setattr("sys.argv", ["bench.py", "--json", "out file.json"])
    p = P.provenance()
    assert p["command"] == "bench.py --json 'out file.json'"
    assert p["commit"] is None or p["commit"].split("-")[0] == subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=P._CHECKOUT, capture_output=True, text=True).stdout.strip()


def test_stamp_keeps_a_documents_keys_and_wraps_rows():
    p = {"commit": "c2", "command": "x", "time": "t2", "hbnlab_version": "0.6.0"}
    assert P.stamp({"a": 1, "provenance": "old"}, p) == {"provenance": p, "a": 1}
    first = P.stamp([{"row": 1}], {**p, "commit": "c1", "time": "t1"})
    assert P.rows_of(first) == [{"row": 1}] and P.rows_of([{"row": 1}]) == [{"row": 1}]
    again = P.stamp(P.rows_of(first) + [{"row": 2}], p, earlier=first)
    assert again["rows"] == [{"row": 1}, {"row": 2}]
    assert again["provenance"]["commit"] == "c2" and [e["commit"] for e in again["provenance"]["earlier"]] == ["c1"]
    third = P.stamp(again["rows"], {**p, "commit": "c3"}, earlier=again)
    assert [e["commit"] for e in third["provenance"]["earlier"]] == ["c1", "c2"]
    assert "earlier" not in P.stamp([], p, earlier=[{"row": 1}])["provenance"]  # a file from before provenance


def test_the_line_and_the_test_set_log(tmp_path):
    p = {"commit": "abc-dirty", "command": "b.py --configs 'a|b'", "time": "2026-11-28T20:30:00+00:00",
         "hbnlab_version": "0.6.0"}
    assert P.provenance_line(p) == ("provenance: commit abc-dirty, hbnlab 0.6.0, 2026-11-28T20:30:00+00:00, "
                                    "command: b.py --configs 'a|b'")
    log = tmp_path / "TEST_SET_RUNS.md"
    log.write_text("| date | commit | command | results |\n| --- | --- | --- | --- |\n")
    P.log_test_set_run(log, "benchmarks/results/x_test.json", p)
    assert log.read_text().splitlines()[-1] == (
        "| 2026-11-28 | abc-dirty | `b.py --configs 'a\\|b'` | benchmarks/results/x_test.json |")


@pytest.mark.parametrize("json_line", [False, True])
def test_start_run_prints_the_provenance_first(capsys, monkeypatch, json_line):
    import json

    monkeypatch.setattr("sys.argv", ["bench.py", "--quick"])
    prov = P.start_run(json_line=json_line)
    out = capsys.readouterr().out.splitlines()
    assert out == [json.dumps({"provenance": prov}) if json_line else P.provenance_line(prov)]
    assert prov["command"] == "bench.py --quick"
