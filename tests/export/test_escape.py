"""Escaping of corpus data for Markdown, Plotly and CSV (:mod:`hbnlab.export.escape`)."""
import re

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from hbnlab.export.escape import WORD_JOINER, csv_cell, csv_safe_frame, md_escape, plotly_text

HOSTILE = ["![b](http://127.0.0.1:8999/x.png)", "a@b.com", "www.example.com http://x.y",
            "<img src=x onerror=alert(1)>", "=cmd|' /C calc'!A0", "**bold**",
           "a|b", "[link](javascript:alert(1))", ":red[x]", "$x^2$", "- item", "# head", "`code`",
           "www.example.com", "1. first", "&lt;b&gt;"]
_ESCAPE = re.compile(r"\\(.)")


def _unescape(s: str) -> str:
    return _ESCAPE.sub(r"\1", s.replace(WORD_JOINER, ""))


def _unescaped_specials(s: str) -> list[str]:
    """Markdown syntax characters of ``s`` not preceded by a backslash escape."""
    out, k = [], 0
    while k < len(s):
        if s[k] == "\\":
            k += 2
            continue
        if s[k] in "\\`*_{}[]()<>#!|~$:&.":
            out.append(s[k])
        k += 1
    return out


def test_md_escape_golden():
    assert md_escape("![b](http://h/x.png)") == "\\!\\[b\\]\\(http\u2060\\://h/x\\.png\\)"
    assert md_escape("www.a.com a@b.c") == "www\u2060\\.a\\.com a@\u2060b\\.c"
    assert md_escape("a|b") == r"a\|b"
    assert md_escape("**bold**") == r"\*\*bold\*\*"
    assert md_escape("- item") == r"\- item"
    assert md_escape("a-b+c=d") == "a-b+c=d"
    assert md_escape("two\nlines\r\n") == "two lines "
    assert md_escape("earn") == "earn"


@given(st.text() | st.sampled_from(HOSTILE))
def test_md_escape_is_literal(text):
    escaped = md_escape(text)
    assert _unescaped_specials(escaped) == []
    assert not re.match(r"[-+=]", escaped)
    plain = escaped.replace("\\", "")
    assert not re.search(r"(?i)(https?:|www\.)", plain)
    assert all(plain[k + 1:k + 2] == WORD_JOINER for k, c in enumerate(plain) if c == "@")
    assert _unescape(escaped) == re.sub(r"[\r\n\u2028\u2029]+", " ", text).replace(WORD_JOINER, "")


def test_plotly_text():
    assert plotly_text("<b>x</b> & <a href='j'>") == "&lt;b&gt;x&lt;/b&gt; &amp; &lt;a href='j'&gt;"
    assert plotly_text(12) == "12"


@given(st.text())
def test_plotly_text_has_no_tags(text):
    out = plotly_text(text)
    assert "<" not in out and ">" not in out
    assert out.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") == text


def test_csv_cell():
    for bad in ("=1+1", "+1+1", "-1+1", "@SUM(A1)", "\tx", "\rx", "=cmd|' /C calc'!A0"):
        assert csv_cell(bad) == "'" + bad
    for ok in ("earn", "a=b", "", "-0.5", "+3", "1e-3", "-.5"):
        assert csv_cell(ok) == ok
    for num in (-3, -0.5, np.float64(-1.0), None):
        assert csv_cell(num) is num


def test_csv_safe_frame():
    df = pd.DataFrame({"=class": ["=HYPERLINK(\"x\")", "earn"], "score": [-1.5, 2.0], "n": [-1, 2]},
                      index=pd.Index(["@a", "b"], name="-id"))
    out = csv_safe_frame(df)
    assert list(out.columns) == ["'=class", "score", "n"]
    assert list(out.index) == ["'@a", "b"] and out.index.name == "'-id"
    assert out.iloc[:, 0].tolist() == ["'=HYPERLINK(\"x\")", "earn"]
    assert out["score"].tolist() == [-1.5, 2.0] and out["n"].dtype == df["n"].dtype
    assert df.iloc[0, 0] == "=HYPERLINK(\"x\")"  # the input is not changed


def test_report_csv_and_markdown_tables_neutralise_corpus_names():
    import csv
    import io

    from hbnlab.experiments.sweep import cells_csv
    from hbnlab.export.report import markdown_table, table_csv

    df = pd.DataFrame({"NB": [91.25, -3.0]}, index=pd.Index(["=cmd|' /C calc'!A0", "a|b"], name="class"))
    rows = list(csv.reader(io.StringIO(table_csv(df))))
    assert rows[1] == ["'=cmd|' /C calc'!A0", "91.2500"] and rows[2] == ["a|b", "-3.0000"]
    md = markdown_table(df)
    assert md.splitlines()[2] == r"| \=cmd\|' /C calc'\!A0 | 91.2 |"
    assert all(line.count(" | ") == 1 for line in md.splitlines())  # "a|b" stays one cell
    cells = list(csv.DictReader(io.StringIO(cells_csv([{"stage": "test", "category": "@SUM(A1)", "B": -1}]))))
    assert cells[0]["category"] == "'@SUM(A1)" and cells[0]["B"] == "-1"


def test_sweep_markdown_table_escapes_names():
    from hbnlab.experiments.sweep import format_table_markdown

    row = {"classifier": "NB", "n_features": 30, "micro": 80.0, "macro": 70.0, "micro_pooled": 79.0,
           "configs": {"B=7 a|b": 2, "![x](http://h/x.png)": 1}}
    md = format_table_markdown({"n_categories": 2, "corpus": "**c**", "rows": [row], "n_restarts": 1})
    heading, _, head, _, body = md.splitlines()[:5]
    assert "\\*\\*c\\*\\*" in heading and "**c**" not in heading
    assert body.replace("\\|", "").count("|") == head.count("|")  # "a|b" stays in one cell
    assert "![x](" not in body and "\\!\\[x\\]" in body
