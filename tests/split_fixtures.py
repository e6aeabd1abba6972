"""Generated tables for the tests of a table's own split (``tests/corpus/test_table_split.py``,
``tests/cli/test_cli_table_split.py``)."""
from __future__ import annotations

import csv

import numpy as np

WORDS = {"grain": "wheat corn harvest bushel silo", "crude": "oil barrel opec refinery pipeline",
         "money": "dollar rate bank yen currency"}


def make_rows(n=40, seed=1):
    """``n`` documents ``(id, text, label, split)``; every other one is a test document (a 50/50
    split, which no seeded 75/25 draw gives)."""
    rng = np.random.default_rng(seed)
    labels = sorted(WORDS)
    rows = []
    for i in range(n):
        lab = labels[i % 3]
        text = " ".join(rng.choice(WORDS[lab].split(), size=6))
        rows.append((f"doc{(7 * i) % 101:03d}", text, lab, "test" if i % 2 else "train"))
    return rows


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def write_pair(folder, rows, header=("text", "category")):
    """``folder/train.csv`` and ``folder/test.csv`` from ``rows`` by their split."""
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("train", "test"):
        part = [r for r in rows if r[3] == split]
        body = [(r[1], r[2]) for r in part] if len(header) == 2 else [(r[0], r[1], r[2]) for r in part]
        write_csv(folder / f"{split}.csv", header, body)
    return folder
