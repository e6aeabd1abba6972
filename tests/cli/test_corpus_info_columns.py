"""``hbnlab corpus-info`` keeps its category table aligned whatever the class names: names of 40+
characters, accented letters written with combining marks, wide CJK characters, a control
character; a name longer than the names' column is cut with an ellipsis and a note says so."""
from __future__ import annotations

import csv
import json
import re
import unicodedata

import pytest

from hbnlab.cli.main import MAX_NAME_COLUMNS, main

NAMES = [
    "international-trade-and-tariff-negotiations-between-blocs",  # 57 ASCII characters
    "O\u0308konomie-und-Wa\u0308hrungspolitik-der-Europa\u0308ischen-Union",  # combining diaeresis
    "国際経済政策と為替市場に関する非常に長いカテゴリー名の例です分類",  # 32 wide characters: 64 columns
    "x",
    "tab\there-and-a-rather-long-tail-of-forty-characters",
]


def _width(text: str) -> int:
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _write_corpus(path):
    words = ["wheat", "oil", "yen", "ship", "corn", "bank", "steel", "coffee"]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "text", "labels", "split"])
        for i in range(60):
            k = i % len(NAMES)
            text = f"{words[k]} {words[(i * 3) % len(words)]} market report"
            w.writerow([f"d{i}", text, NAMES[k], "test" if i % 4 == 0 else "train"])
    return path


@pytest.mark.parametrize("cv", [False, True])
def test_columns_align_for_long_unicode_class_names(tmp_path, capsys, cv):
    p = _write_corpus(tmp_path / "long.csv")
    argv = ["corpus-info", "--corpus", str(p), "--label-separator", "|"] + (["--cv", "3"] if cv else [])
    assert main(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(out) if line.startswith("category"))
    table = out[start:start + 1 + len(NAMES)]
    head = table[0]
    name_cols = head.index("train") - 2  # the names' column, in terminal columns
    head_ends = [m.end() for m in re.finditer(r"\S+(?: \S+)*", head[name_cols:head.rindex("tunable")])]
    for line in table[1:]:
        k = next(i for i in range(len(line) + 1) if _width(line[:i]) == name_cols and not unicodedata.combining(
            line[i:i + 1] or "a"))
        rest = line[k:]
        tail = rest.index("  yes") if "  yes" in rest else rest.index("  no: ")
        # every number ends where its header ends, and the last column starts where "tunable" does
        assert [m.end() for m in re.finditer(r"\S+", rest[:tail + 2])] == head_ends, "\n".join(table)
        assert tail + 2 == head.rindex("tunable") - name_cols, "\n".join(table)
    body = "\n".join(table)
    assert NAMES[0] in body and unicodedata.normalize("NFC", NAMES[1]) not in body and NAMES[1] in body
    assert "\t" not in body and "tab\\there" in body  # a control character is shown, not obeyed
    assert _width(NAMES[2]) > MAX_NAME_COLUMNS and NAMES[2] not in body and NAMES[2][:20] in body and "…" in body
    note = out[start + 1 + len(NAMES)]
    assert note.startswith("(1 category name(s) longer than") and "--json" in note


def test_json_keeps_every_name_whole(tmp_path, capsys):
    p = _write_corpus(tmp_path / "long.csv")
    assert main(["corpus-info", "--corpus", str(p), "--label-separator", "|", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert set(s["per_category"]) == set(NAMES)
