"""One owner per sweep id: two real processes with one ``--sweep-id`` never submit a cell twice
nor write one folder together; ``--status`` reads a read-only registry."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_sweep_cli import ARGS

from hbnlab.cli import main
from hbnlab.experiments.sweep import CELL_KIND
from hbnlab.export.atomic import atomic_directory, write_text_atomic
from hbnlab.jobs import RunRegistry
from hbnlab.jobs.locks import GroupLockedError, group_lock, group_lock_path

ROOT = Path(__file__).resolve().parents[3]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

_HOLD = """
import sys, time
from hbnlab.jobs.locks import group_lock
with group_lock(sys.argv[1], sys.argv[2]):
    print("held", flush=True)
    time.sleep(float(sys.argv[3]))
"""


def _holder(registry, group, seconds=60.0):
    """A separate process that owns ``group`` until killed (or ``seconds`` pass)."""
    p = subprocess.Popen([sys.executable, "-c", _HOLD, str(registry), group, str(seconds)], env=ENV,
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


def _cell_jobs(registry, group):
    with RunRegistry(registry, recover=False) as reg:
        return [r for r in reg.list(group=group) if r.kind == CELL_KIND]


def test_lock_refuses_another_process_and_is_released_when_it_dies(tmp_path):
    p = _holder(tmp_path, "s/1")
    try:
        with pytest.raises(GroupLockedError, match=rf"job group 's/1' is already running \(pid {p.pid} on "):
            with group_lock(tmp_path, "s/1"):
                pass
        with group_lock(tmp_path, "s/2"):  # another group is free
            pass
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    with group_lock(tmp_path, "s/1") as path:  # the kernel released the dead owner's lock
        assert path == group_lock_path(tmp_path, "s/1") and path.parent.name == "group-locks"
        with group_lock(tmp_path, "s/1"):  # re-entrant in the owning thread
            pass


def test_lock_refuses_another_thread(tmp_path):
    import threading

    errors = []
    with group_lock(tmp_path, "g"):
        t = threading.Thread(target=lambda: errors.append(pytest.raises(GroupLockedError, _enter, tmp_path)))
        t.start()
        t.join()
    assert errors and "another thread of this process" in str(errors[0].value)


def _enter(path):
    with group_lock(path, "g"):
        pass


def test_second_process_with_the_same_sweep_id_is_refused(tmp_path, capsys):
    reg = tmp_path / "runs"
    p = _holder(reg, "cli-sweep")
    try:
        rc = main(ARGS + ["--registry", str(reg), "--out", str(tmp_path / "out")])
    finally:
        p.kill()
        p.wait()
    err = capsys.readouterr().err
    assert rc == 2, err
    assert f"sweep 'cli-sweep' is already running (pid {p.pid} on " in err
    assert "hbnlab sweep --sweep-id cli-sweep --status" in err
    assert _cell_jobs(reg, "cli-sweep") == [] and not (tmp_path / "out").exists()


def test_two_racing_sweep_processes_submit_each_cell_once(tmp_path):
    reg, out = tmp_path / "runs", tmp_path / "out"
    cmd = [sys.executable, "-m", "hbnlab"] + ARGS + ["--registry", str(reg), "--out", str(out), "--no-report"]
    procs = [subprocess.Popen(cmd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [(p.wait(timeout=600), p.stdout.read(), p.stderr.read()) for p in procs]
    codes = sorted(rc for rc, _, _ in results)
    # either the second was refused while the first ran, or it started after and reused every cell
    assert codes in ([0, 0], [0, 2]), results
    for rc, _, err in results:
        if rc == 2:
            assert "is already running" in err and "Traceback" not in err
    jobs = _cell_jobs(reg, "cli-sweep")
    assert len(jobs) == 6 and len({j.spec.params["cell"] for j in jobs}) == 6  # 2 categories x 3 learners
    table = json.loads((out / "table.json").read_text())
    assert [r["classifier"] for r in table["rows"]] == ["HBN-AVG", "HBN-DEP", "NB"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")] == []  # no temp folders left


def _snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_status_reads_a_read_only_registry(tmp_path, capsys):
    reg = tmp_path / "runs"
    assert main(ARGS + ["--registry", str(reg), "--out", str(tmp_path / "out"), "--no-report"]) == 0
    capsys.readouterr()
    mnt = tmp_path / "ro"
    mnt.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mnt)],
                             capture_output=True).returncode == 0
    try:
        target = mnt / "runs" if mounted else reg
        if mounted:
            subprocess.run(["cp", "-a", str(reg), str(target)], check=True)
            subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
            with pytest.raises(OSError):
                (target / "probe").write_text("x")  # really read-only, even for root
        before = _snapshot(target)
        assert main(["sweep", "--registry", str(target), "--sweep-id", "cli-sweep", "--status"]) == 0
        assert "test       6 done" in capsys.readouterr().out
        assert _snapshot(target) == before  # nothing written, not even a lock file
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(mnt)], check=True)


def test_output_folder_is_replaced_whole_or_not_at_all(tmp_path):
    out = tmp_path / "out"
    with atomic_directory(out) as d:
        write_text_atomic(d / "table.json", "old")
        write_text_atomic(d / "extra.txt", "only in the old run")
    with pytest.raises(OSError):
        with atomic_directory(out) as d:
            write_text_atomic(d / "table.json", "new")
            raise OSError(28, "No space left on device")
    assert sorted(p.name for p in out.iterdir()) == ["extra.txt", "table.json"]
    assert (out / "table.json").read_text() == "old"
    with atomic_directory(out) as d:
        write_text_atomic(d / "table.json", "new")
    assert sorted(p.name for p in out.iterdir()) == ["table.json"] and (out / "table.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
