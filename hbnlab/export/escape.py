"""Escaping of corpus data for the places it is shown or written: Markdown, Plotly, CSV.

Corpus data -- document ids, titles, class names, terms, file names -- comes from whoever made the
corpus.  Shown unescaped it becomes markup: ``![x](http://host/p.png)`` in a Streamlit Markdown
element makes the browser fetch that URL, ``<a href=...>`` in a Plotly label becomes a link, and
``=HYPERLINK(...)`` in a CSV cell becomes a formula when the file is opened in a spreadsheet.

* :func:`md_escape` -- text for Markdown (``st.markdown``, ``st.caption``, ``st.warning`` ...,
  Markdown tables and reports): every Markdown-significant character backslash-escaped, line
  breaks folded into spaces.
* :func:`plotly_text` -- text for Plotly labels, tick labels, legend names and hover text (Plotly
  renders a subset of HTML in them): ``&``, ``<`` and ``>`` as entities.
* :func:`csv_cell`, :func:`csv_safe_frame` -- CSV cells neutralised against formula injection
  (OWASP, "CSV Injection"): a string starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
  return gets a leading ``'``; numbers, and strings that are plain decimal numbers, stay as they are.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

__all__ = ["md_escape", "md_table_cell", "plotly_text", "csv_cell", "csv_safe_frame", "FORMULA_PREFIXES",
           "WORD_JOINER"]

#: ASCII punctuation that Markdown (CommonMark, GitHub tables and autolinks, Streamlit's
#: ``:color[...]`` directives and ``$`` math) may read as syntax anywhere in a line; CommonMark
#: lets any ASCII punctuation be backslash-escaped.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#!|~$:&.])")
#: Characters that are syntax only at the start of a line (list items, setext underlines).
_MD_LEADING = re.compile(r"^([-+=])")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029]+")
#: GitHub-flavoured autolinks (``http://...``, ``www.``, ``a@b.c``) are found in the text after
#: escapes are resolved, so no backslash stops them; an invisible word joiner after the scheme,
#: ``www`` or ``@`` breaks the pattern without changing what is seen.
_AUTOLINK = re.compile(r"(?i)(?:https?|ftps?|mailto|xmpp|www)(?=\\[:.])|@")
WORD_JOINER = "\u2060"
#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def md_escape(text) -> str:
    """``text`` as literal Markdown: shown as written, never as a link, image, emphasis or tag.

    Markdown characters are backslash-escaped, line breaks become spaces and a word joiner
    (U+2060, invisible) follows URL schemes, ``www`` and ``@`` so that no autolink is made.

    Examples
    --------
    >>> md_escape("![b](http://127.0.0.1/x.png)")
    '\\\\!\\\\[b\\\\]\\\\(http\\u2060\\\\://127\\\\.0\\\\.0\\\\.1/x\\\\.png\\\\)'
    >>> md_escape("a|b **c**")
    'a\\\\|b \\\\*\\\\*c\\\\*\\\\*'
    """
    text = _MD_SPECIAL.sub(r"\\\1", _LINE_BREAKS.sub(" ", str(text)))
    text = _AUTOLINK.sub(lambda m: m.group(0) + WORD_JOINER, text)
    return _MD_LEADING.sub(r"\\\1", text)


def md_table_cell(text) -> str:
    """A cell of a GitHub-flavoured Markdown table: :func:`md_escape` (``|`` included)."""
    return md_escape(text)


def plotly_text(text) -> str:
    """``text`` for a Plotly label or hover text: the HTML subset Plotly renders is disarmed.

    >>> plotly_text("<img src=x onerror=alert(1)> & <b>")
    '&lt;img src=x onerror=alert(1)&gt; &amp; &lt;b&gt;'
    """
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def csv_cell(value):
    """A CSV cell that a spreadsheet shows as text, never runs as a formula.

    >>> csv_cell("=cmd|' /C calc'!A0"), csv_cell("-0.5"), csv_cell(-3), csv_cell("earn")
    ("'=cmd|' /C calc'!A0", '-0.5', -3, 'earn')
    """
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def _is_text(dtype) -> bool:
    return pd.api.types.is_object_dtype(dtype) or isinstance(dtype, (pd.StringDtype, pd.CategoricalDtype))


def _safe_index(index: pd.Index) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        return pd.MultiIndex.from_tuples([tuple(csv_cell(v) for v in t) for t in index], names=index.names)
    if _is_text(index.dtype):
        return pd.Index([csv_cell(v) for v in index], name=csv_cell(index.name), dtype=object)
    return index.rename(csv_cell(index.name))


def csv_safe_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` with :func:`csv_cell` applied to every text cell, column name and index
    label (numeric columns are left untouched)."""
    out = df.copy()
    for k in range(out.shape[1]):
        s = out.iloc[:, k]
        if _is_text(s.dtype):
            out.isetitem(k, np.asarray([csv_cell(v) for v in s.astype(object)], dtype=object))
    out.columns = _safe_index(out.columns)
    out.index = _safe_index(out.index)
    return out
