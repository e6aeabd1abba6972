"""A sweep killed while it wrote its output folder leaves hidden temporary siblings; the next
write of that folder removes them and nothing of them reaches its results (issue 30, item 9)."""
from __future__ import annotations

import json
import os

from hbnlab.experiments.sweep import SweepConfig, SweepResult
from hbnlab.export.atomic import atomic_directory, remove_stale_siblings

#: A modification time long past (2001), so that no clock reading decides what counts as stale.
OLD = 1_000_000_000


def _leftover(folder, files: dict) -> None:
    folder.mkdir(parents=True)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    os.utime(folder, (OLD, OLD))


def test_a_later_write_removes_what_a_killed_write_left(tmp_path):
    root = tmp_path / "sweeps"
    stale = {"partial_tmp": root / ".s1.hbnlab-k9x_2abc.tmp",      # killed while filling the new folder
             "aside_old": root / ".s1.hbnlab-0q1w2e3r.old",        # killed between the two renames
             "earlier_naming": root / ".s1.a1b2c3d4.tmp"}          # the names before the hbnlab- mark
    _leftover(stale["partial_tmp"], {"sweep.json": '{"sweep_id": "stale", "state": "do'})
    _leftover(stale["aside_old"], {"s1/sweep.json": json.dumps({"sweep_id": "stale"}), "s1/cells.csv": "x\n"})
    _leftover(stale["earlier_naming"], {"cells.csv": "stale\n"})
    kept = [root / ".s1.notes", root / ".s2.hbnlab-k9x_2abc.tmp", root / "s1.a1b2c3d4.tmp"]
    for k in kept:  # not a sibling of s1 named by hbnlab: left alone
        _leftover(k, {"keep.txt": "mine"})
    link = root / ".s1.zzzzzzzz.tmp"
    link.symlink_to(kept[0])

    result = SweepResult(sweep_id="s1", config=SweepConfig(), state="failed", data_info={}, categories=[])
    paths = result.write(root / "s1", report=False)

    assert not any(p.exists() for p in stale.values())
    assert all((k / "keep.txt").read_text() == "mine" for k in kept)
    assert link.is_symlink()  # a link is never followed nor removed
    assert sorted(p.name for p in root.iterdir()) == sorted(["s1", link.name, *(k.name for k in kept)])
    assert sorted(p.name for p in (root / "s1").iterdir()) == ["cells.csv", "sweep.json"]
    assert all(p.parent == root / "s1" for p in paths.values())
    assert json.loads((root / "s1" / "sweep.json").read_text())["sweep_id"] == "s1"


def test_siblings_newer_than_the_cutoff_are_kept(tmp_path):
    out = tmp_path / "out"
    fresh = tmp_path / ".out.hbnlab-abcdefgh.tmp"
    fresh.mkdir()
    os.utime(fresh, (OLD + 10, OLD + 10))
    assert remove_stale_siblings(out, before=OLD) == []
    assert fresh.is_dir()
    with atomic_directory(out) as d:
        (d / "a.txt").write_text("new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
