"""Issue 38 item 5 on the command line: the table of ``hbnlab reproduce table-4.10`` has an accuracy row
(one-of-n) on a single-label corpus and says n/a on a multi-label one."""
from __future__ import annotations

import csv
import json

import pytest

from hbnlab.cli import main
from hbnlab.experiments.thesis import format_table

WORDS = {"sport": "ball goal team match coach league", "politics": "vote party election law senate minister",
         "business": "market stock price trade profit bank"}


@pytest.fixture(autouse=True)
def data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path / "home"))


@pytest.fixture
def single_label(tmp_path):
    path = tmp_path / "news.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "text", "labels", "split"])
        for c, words in WORDS.items():
            ws = words.split()
            for k in range(8):
                w.writerow([f"{c}{k}", " ".join(ws[(k + i) % 6] for i in range(3)), c, "train" if k < 6 else "test"])
    return str(path)


def test_the_table_has_accuracy_on_a_single_label_corpus(single_label, tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["reproduce", "table-4.10", "--corpus", single_label, "--rows", "NB:5", "--n-jobs", "1",
                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    (row,) = json.loads(out.read_text())["rows"]
    assert row["accuracy"] == 100.0  # every test document is written in its own class's words
    line = [ln for ln in text.splitlines() if ln.startswith("accuracy ")]
    assert line and line[0].split()[-1] == "100.0"
    assert "accuracy: one-of-n (each document given the class with the highest score)" in text
    assert "n/a" not in text


def test_the_table_says_n_a_on_a_multi_label_corpus(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["reproduce", "table-4.10", "--corpus", "synthetic", "--synthetic-size", "600", "--rows", "NB:10",
                 "--n-jobs", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    (row,) = json.loads(out.read_text())["rows"]
    assert row["accuracy"] is None
    assert [ln.split()[-1] for ln in text.splitlines() if ln.startswith("accuracy ")] == ["n/a"]
    assert "n/a: some documents have none or several of the classes" in text


def test_rows_written_before_accuracy_print_as_before():
    row = {"classifier": "NB", "n_features": 30, "per_class": {"a": 80.0}, "micro": 80.0, "macro": 80.0,
           "seconds": 1.0}
    assert "accuracy" not in format_table({"rows": [row]})
