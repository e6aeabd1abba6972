"""``hbnlab sweep --hidden-states``: parsing, errors naming the value, the sweep id of binary
sweeps kept, and a small sweep on the synthetic corpus whose files record k."""
from __future__ import annotations

import csv
import io
import json
from types import SimpleNamespace

import pytest

from hbnlab.cli import main
from hbnlab.cli.common import CLIError
from hbnlab.cli.sweep import default_sweep_id, parse_states
from hbnlab.experiments import sweep as sw


def test_parse_states():
    assert parse_states("2") == (2,)
    assert parse_states("2, 3,auto,auto-holdout") == (2, 3, "auto", "auto-holdout")
    with pytest.raises(CLIError, match=r"--hidden-states: 'x' is not a number of states"):
        parse_states("2,x")
    with pytest.raises(CLIError, match="--hidden-states: expected a comma-separated list"):
        parse_states(" , ")


@pytest.mark.parametrize("value, B, message", [
    ("1", "3,5", "hidden_states must be an integer in 2..8, 'auto' or 'auto-holdout', got 1"),
    ("3,3", "3,5", "hidden_states must be a non-empty list of distinct values, got [3, 3]"),
    ("best", "3,5", "--hidden-states: 'best' is not a number of states"),
    ("3", "7,9", "hidden_states [3] with B [7, 9]: every table is above 2 ** 9 rows"),  # 3 ** 7 = 2187
])
def test_bad_hidden_states_are_named(tmp_path, capsys, value, B, message):
    args = ["sweep", "--registry", str(tmp_path), "--corpus", "synthetic", "--hidden-states", value, "--B", B]
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_help_names_the_option(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["sweep", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--hidden-states K,K,..." in out and "auto-holdout" in out


def test_binary_sweeps_keep_their_default_sweep_id():
    data = SimpleNamespace(fingerprint="f" * 64)
    # the ids of an earlier version (before --hidden-states) for the same commands
    assert default_sweep_id(sw.SweepConfig(), data) == "sweep-3efbdbff54"
    assert default_sweep_id(sw.SweepConfig(categories="top2", clusterings=("avg",)), data) == "sweep-06ee2c0d18"
    assert default_sweep_id(sw.SweepConfig(hidden_states=(2, 3)), data) != "sweep-3efbdbff54"


def test_cli_sweep_over_hidden_states_records_k(tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(["sweep", "--corpus", "synthetic", "--synthetic-size", "600", "--categories", "top2",
               "--clusterings", "avg", "--B", "2,4", "--alpha", "0", "--n-features", "5", "--n-restarts", "2",
               "--hidden-states", "2,3", "--baselines", "none", "--workers", "2", "--sweep-id", "k-cli",
               "--registry", str(tmp_path / "runs"), "--out", str(out), "--no-report", "--progress-interval", "0"])
    text = capsys.readouterr()
    assert rc == 0, text.err
    # 2 categories x (B = 2, 4 at k = 2 and B = 2 at k = 3: 3 ** 4 = 81 rows > 2 ** 4)
    assert "hidden states 2, 3, 6 validation + 2 test cells" in text.out
    assert "validation: not fitted (tables above the binary grid's largest): B=4 k=3" in text.out
    s = json.loads((out / "sweep.json").read_text())
    assert s["config"]["hidden_states"] == [2, 3]
    assert s["not_fitted"] == [{"B": 4, "hidden_states": 3,
                                "reason": "a node under 4 parents of 3 states has 81 rows, above 2 ** 4"}]
    assert sorted((v["B"], v["hidden_states"]) for v in s["validation"]) == [(2, 2), (2, 2), (2, 3), (2, 3),
                                                                            (4, 2), (4, 2)]
    for ch in s["choices"]:
        test = next(t for t in s["test"] if t["category"] == ch["category"])
        assert ch["config"] == [test["B"], test["alpha"], test["n_features"], test["hidden_states"]]
    rows = list(csv.DictReader(io.StringIO((out / "cells.csv").read_text())))
    assert sorted(r["hidden_states"] for r in rows if r["stage"] == "validation") == ["2"] * 4 + ["3"] * 2
    md = (out / "table.md").read_text()
    assert "B=4 k=3 (a node under 4 parents of 3 states has 81 rows, above 2 ** 4)" in md
