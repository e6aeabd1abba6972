"""A full disk: every writer names the file, and a sweep stops with the command that resumes it.

The tests mount a small tmpfs (CI runs as root) and fill it; where mounting is not permitted
they inject ENOSPC at the write instead.
"""
from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from hbnlab.cli import main
from hbnlab.export.atomic import WriteError, write_bytes_atomic
from hbnlab.jobs import RunRegistry
from hbnlab.jobs.records import system_failure

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


@contextmanager
def small_filesystem(where: Path, size: str = "4m"):
    """A tmpfs of ``size`` at ``where``, or None when this process may not mount one."""
    where.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    try:
        yield where if r.returncode == 0 else None
    finally:
        if r.returncode == 0:
            subprocess.run(["umount", "-l", str(where)], check=True)


def fill(fs: Path) -> None:
    """Take every free byte of ``fs``."""
    with open(fs / "filler", "ab") as f:
        chunk = b"\0" * (1 << 16)
        try:
            while True:
                f.write(chunk)
                f.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC


def _inject_enospc(monkeypatch):
    import hbnlab.export.atomic as atomic

    def full(fd, *a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(atomic.os, "fsync", full)


def test_atomic_write_names_the_file_and_leaves_nothing(tmp_path, monkeypatch):
    with small_filesystem(tmp_path / "fs", "64k") as fs:
        target = (fs or tmp_path) / "sub" / "model.hbnlab"
        if fs is None:
            _inject_enospc(monkeypatch)
        with pytest.raises(WriteError) as ei:
            write_bytes_atomic(target, b"x" * 200_000)
        assert ei.value.errno == errno.ENOSPC and isinstance(ei.value, OSError)
        assert str(ei.value) == f"[Errno 28] cannot write {target}: No space left on device"
        assert system_failure(ei.value) == "No space left on device"
        assert os.listdir(target.parent) == []  # no temporary file left behind


def test_train_on_a_full_disk_is_one_line_naming_the_file(tmp_path, monkeypatch, capsys):
    with small_filesystem(tmp_path / "fs", "64k") as fs:
        out = (fs or tmp_path) / "nb.hbnlab"
        if fs is None:
            _inject_enospc(monkeypatch)
        else:
            fill(fs)
        rc = main(["train", "--corpus", "synthetic", "--synthetic-size", "300", "--class", "alpha",
                   "--classifier", "nb", "--n-features", "20", "--out", str(out)])
        err = capsys.readouterr().err
        assert rc == 2, err
        assert f"cannot write {out}: No space left on device" in err and "Traceback" not in err
        assert not out.exists()


SWEEP = ["sweep", "--corpus", "synthetic", "--synthetic-size", "1500", "--categories", "top3",
         "--clusterings", "avg,dep", "--n-restarts", "12", "--n-features", "10", "--final-only", "--workers", "2",
         "--sweep-id", "full-disk", "--no-report", "--progress-interval", "0"]


def test_sweep_on_a_filling_disk_stops_and_says_how_to_resume(tmp_path):
    with small_filesystem(tmp_path / "fs", "8m") as fs:
        if fs is None:
            # the sweep runs in worker processes, where a monkeypatched write cannot reach
            pytest.skip("mounting a tmpfs is not permitted here (it needs root with CAP_SYS_ADMIN); the sweep's "
                        "stop on a system failure is covered by the injected-failure tests below")
        reg, out = fs / "runs", tmp_path / "out"
        cmd = [sys.executable, "-m", "hbnlab"] + SWEEP + ["--registry", str(reg), "--out", str(out)]
        p = subprocess.Popen(cmd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = []
        for line in p.stderr:  # the first progress line: cells are queued, none has finished
            lines.append(line)
            if line.startswith("test "):
                break
        fill(fs)
        try:
            rest = p.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            p.kill()
            pytest.fail("the sweep kept waiting on a full disk")
        err = "".join(lines) + rest[1]
        assert p.returncode == 2, err
        assert "sweep full-disk stopped:" in err and system_failure(err), err
        assert "Traceback" not in err
        resume = "hbnlab " + " ".join(SWEEP) + f" --registry {reg} --out {out}"
        assert err.rstrip().endswith(f"then resume with: {resume}"), err
        assert not out.exists()
        # space back: the same command finishes the sweep, every cell once
        os.remove(fs / "filler")
        time.sleep(0.5)
        done = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        with RunRegistry(reg, recover=False) as r:
            cells = [j for j in r.list(group="full-disk") if j.kind == "sweep_cell"]
        assert len(cells) == 9 and {j.state for j in cells} == {"done"}


def test_a_cell_failed_for_a_system_reason_stops_the_phase(tmp_path, monkeypatch):
    """Injected: the first cell to finish fails with ENOSPC; the wait stops instead of going on."""
    from hbnlab.experiments.sweep import run as sweep_run
    from hbnlab.jobs.runner import SystemFailureError

    class Rec:
        id, label, error = 7, "HBN-AVG c0", "RegistryError: cannot write artifact ab12 to /x: No space left on device"

    class FakeRegistry:
        def list(self, ids=None, states=None):
            return [Rec()]

    class FakeRunner:
        registry = FakeRegistry()

        def wait(self, ids, timeout=None, poll=0.2, callback=None):
            callback({"done": 1, "failed": 1, "queued": 4})
            pytest.fail("the wait went on after a system failure")

    with pytest.raises(SystemFailureError, match=r"test cell job 7 \(HBN-AVG c0\) failed: .*No space left"):
        sweep_run._wait_phase(FakeRunner(), [1, 2, 3, 4, 5, 6], "test", None, None)


def test_runner_wait_stops_when_the_runner_thread_cannot_write(tmp_path):
    from hbnlab.jobs import JobSpec, LocalProcessRunner
    from hbnlab.jobs.runner import SystemFailureError

    runner = LocalProcessRunner(tmp_path / "runs", max_workers=1)
    try:
        with runner._lock:  # keep the supervisor from dispatching while the failure is set
            jid = runner.registry.submit(JobSpec("count", {"n": 1}, module="hbnlab.jobs.testing"), backend="other")
            runner.system_error = "run registry x: database or disk is full"
            with pytest.raises(SystemFailureError, match="database or disk is full"):
                runner.wait([jid], timeout=30)
    finally:
        runner.shutdown(wait=False, interrupt=True)


@pytest.mark.parametrize("text, reason", [
    ("OSError: [Errno 122] Disk quota exceeded: '/q'", "Disk quota exceeded"),
    ("run registry /r/registry.sqlite3 while finishing: database or disk is full", "database or disk is full"),
    ("[Errno 30] Read-only file system: '/ro/x'", "Read-only file system"),
    ("ValueError: B must be >= 2", None),
    (None, None),
])
def test_system_failure_classifies_recorded_errors(text, reason):
    assert system_failure(text) == reason


def test_reuters_download_to_a_full_disk_names_the_file(tmp_path, monkeypatch):
    import http.server
    import threading
    from functools import partial

    from hbnlab.corpus import CorpusError, fetch_reuters21578

    www = tmp_path / "www"
    www.mkdir()
    (www / "r.tar.gz").write_bytes(os.urandom(300_000))  # incompressible: fills a 64 KiB disk
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(http.server.SimpleHTTPRequestHandler,
                                                                      directory=str(www)))
    httpd.RequestHandlerClass.log_message = lambda *a: None
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with small_filesystem(tmp_path / "fs", "64k") as fs:
            home = fs or tmp_path / "home"
            if fs is None:
                real_open = open

                class FullFile:
                    def __init__(self, f):
                        self.f = f

                    def __enter__(self):
                        return self

                    def __exit__(self, *a):
                        self.f.close()

                    def write(self, data):
                        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                monkeypatch.setattr("builtins.open", lambda p, m="r", *a, **k: FullFile(real_open(p, m, *a, **k))
                                    if str(p).endswith(".tar.gz") and "w" in m else real_open(p, m, *a, **k))
            url = f"http://127.0.0.1:{httpd.server_address[1]}/r.tar.gz"
            with pytest.raises(CorpusError, match=r"cannot write .*/reuters21578\.tar\.gz: No space left on device"):
                fetch_reuters21578(home, url=url, checksums={"reut2-000.sgm": "0" * 64})
            assert [p.name for p in home.iterdir()] == []  # the temporary folder is gone
    finally:
        httpd.shutdown()
        httpd.server_close()
