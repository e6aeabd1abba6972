"""``hbnlab sweep`` end to end on the synthetic corpus (local pool): table files, resume,
status and cancel."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from hbnlab.cli import main
from hbnlab.evaluation import breakeven_point

ARGS = ["sweep", "--corpus", "synthetic", "--synthetic-size", "600", "--categories", "top2",
        "--clusterings", "avg,dep", "--n-restarts", "2", "--n-features", "5", "--final-only", "--workers", "2",
        "--sweep-id", "cli-sweep"]


def test_cli_sweep_writes_the_table_and_resumes(tmp_path, capsys):
    reg, out = tmp_path / "runs", tmp_path / "out"
    rc = main(ARGS + ["--registry", str(reg), "--out", str(out), "--progress-interval", "0"])
    text = capsys.readouterr()
    assert rc == 0, text.err
    assert "test: 0 reused, 0 retried, 6 submitted" in text.out
    assert "test       [" in text.err and "6/6 done" in text.err  # the progress bar
    table = json.loads((out / "table.json").read_text())
    assert [r["classifier"] for r in table["rows"]] == ["HBN-AVG", "HBN-DEP", "NB"]
    assert table["final_only"] and table["n_categories"] == 2
    assert {k for r in table["rows"][:2] for k in r["configs"]} == {"B=7 alpha=0.05 nf=5", "B=7 alpha=170 nf=5"}
    md = (out / "table.md").read_text()
    assert "| HBN-AVG (hbnlab) | 5 |" in md
    assert (out / "report.html").is_file() and (out / "cells.csv").read_text().count("\n") == 1 + 6
    # the test documents' scores: each row's table breakevens computed again from them
    scores = pd.read_csv(out / "test_scores.csv")
    assert list(scores.columns) == ["document", "category", "label", "HBN-AVG", "HBN-DEP", "NB"]
    assert len(scores) == 2 * scores["document"].nunique()
    for row in table["rows"]:
        got = {c: 100 * breakeven_point(g["label"].to_numpy(), g[row["classifier"]].to_numpy())
               for c, g in scores.groupby("category", sort=False)}
        assert got == pytest.approx(table["per_class"][row["classifier"]])
    # the same command again: every cell reused, same numbers
    rc = main(ARGS + ["--registry", str(reg), "--out", str(tmp_path / "again"), "--no-report"])
    text = capsys.readouterr()
    assert rc == 0 and "test: 6 reused, 0 retried, 0 submitted" in text.out
    again = json.loads((tmp_path / "again" / "table.json").read_text())
    assert [r["micro"] for r in again["rows"]] == [r["micro"] for r in table["rows"]]
    assert not (tmp_path / "again" / "report.html").exists()
    # status and cancel
    assert main(["sweep", "--registry", str(reg), "--sweep-id", "cli-sweep", "--status"]) == 0
    assert "test       6 done" in capsys.readouterr().out
    assert main(["sweep", "--registry", str(reg), "--sweep-id", "cli-sweep", "--cancel"]) == 0
    assert "cancel requested for 0 job(s)" in capsys.readouterr().out


def test_cli_sweep_errors_name_the_bad_value(tmp_path, capsys):
    assert main(["sweep", "--registry", str(tmp_path), "--B", "1,3", "--corpus", "synthetic"]) == 2
    assert "B must be an integer >= 2, got 1" in capsys.readouterr().err
    assert main(["sweep", "--registry", str(tmp_path), "--status"]) == 2
    assert "--sweep-id" in capsys.readouterr().err
    assert main(["sweep", "--registry", str(tmp_path), "--clusterings", "avg,xyz"]) == 2
    assert "'xyz'" in capsys.readouterr().err
