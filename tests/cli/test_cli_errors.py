"""Every way of starting the command line behaves the same on bad input: one line, exit status 2."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hbnlab.cli import main

BAD = [
    (["sweep", "--corpus", "synthetic", "--B", "3,zz"], "--B: 'zz' is not a valid int"),
    (["train", "--class", "alpha", "--classifier", "nb", "--param", "B=3", "--out", "x.hbnlab"],
     "NB: unknown parameter(s) ['B']"),
    (["train", "--class", "alpha", "--classifier", "hbn-zz", "--out", "x.hbnlab"], "unknown classifier 'hbn-zz'"),
    (["tree", "--corpus", "synthetic", "--class", "alpha", "--classifier", "nb"], "--classifier must be one of"),
    (["reproduce", "table-9.9"], "unknown target 'table-9.9'"),
    (["reproduce", "table-4.10", "--corpus", "synthetic", "--tune-B", "3,12"], "--tune-B needs --tune"),
    (["reproduce", "table-4.10", "--corpus", "synthetic", "--tune-k", "2,3"], "--tune-k needs --tune"),
    (["reproduce", "table-4.10", "--corpus", "synthetic", "--tune", "--tune-k", "2,x"],
     "--tune-k: 'x' is not a number of states (an integer in 2..8, auto or auto-holdout)"),
    (["reproduce", "table-4.10", "--corpus", "synthetic", "--tune", "--tune-B", "3,1"],
     "--tune-B: B grid [3, 1]: branching factor B must be an integer >= 2, got 1"),
    (["corpus-info", "--corpus", "no/such/dir"], "no such file or directory"),
]


def _entry_points():
    exe = Path(sys.executable).with_name("hbnlab")
    script = str(exe) if exe.exists() else shutil.which("hbnlab")
    if script is None:
        pytest.fail("the hbnlab console script is not installed (pip install -e .)")
    return {"python -m hbnlab": [sys.executable, "-m", "hbnlab"],
            "python -m hbnlab.cli": [sys.executable, "-m", "hbnlab.cli"], "hbnlab": [script]}


@pytest.mark.parametrize("argv, message", BAD[:2], ids=[a[0] for a, _ in BAD[:2]])
def test_every_entry_point_prints_the_same_one_line_error(argv, message, tmp_path):
    outs = {}
    for name, cmd in _entry_points().items():
        proc = subprocess.run(cmd + argv, capture_output=True, text=True, cwd=tmp_path, timeout=120)
        outs[name] = (proc.returncode, proc.stderr)
    assert len(set(outs.values())) == 1, outs
    rc, err = outs["hbnlab"]
    assert rc == 2 and err.startswith("hbnlab: error: ") and message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, message", BAD, ids=[a[0] for a, _ in BAD])
def test_main_returns_2_with_a_message_naming_the_bad_value(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("hbnlab: error: ") and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.hbnlab").exists(), "nothing is written on a refused command"
