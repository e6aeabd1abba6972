"""Text columns for a terminal: cells measured in the columns a terminal draws them in, not in
code points.

A wide character (CJK, full-width forms) takes two columns, a combining mark (the accent of a
decomposed ``é``) and a zero-width character none; a control character (a tab, a newline, an
escape sequence's ``ESC``) would move the cursor, so :func:`visible` writes it as its escape
(``\\t``, ``\\x1b``).  :func:`cell` pads a cell to a width in those columns and cuts one that is
longer, ending it with ``…``.

>>> display_width("Ökonomie"), display_width("経済"), display_width("e\\u0301")
(8, 4, 1)
>>> cell("経済政策", 6)
'経済… '
>>> cell("trade", 7, right=True)
'  trade'
"""
from __future__ import annotations

import unicodedata

__all__ = ["ELLIPSIS", "display_width", "visible", "cell"]

ELLIPSIS = "…"


def _char_width(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def visible(text: str) -> str:
    """``text`` with its control characters (and the line and paragraph separators) written as
    escapes, so that it stays on one line and moves no cursor."""
    return "".join(ch.encode("unicode_escape").decode("ascii")
                   if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in str(text))


def display_width(text: str) -> int:
    """Columns a terminal takes to draw ``text`` (no control characters: see :func:`visible`)."""
    return sum(_char_width(ch) for ch in text)


def cell(text: str, width: int, *, right: bool = False) -> str:
    """``visible(text)`` padded with spaces to ``width`` columns (on the left with ``right``); a
    longer text is cut to ``width - 1`` columns or fewer and ends with :data:`ELLIPSIS`."""
    text = visible(text)
    if display_width(text) > width:
        out, used = [], 0
        for ch in text:
            w = _char_width(ch)
            if used + w > width - 1:
                break
            out.append(ch)
            used += w
        text = "".join(out) + ELLIPSIS
    pad = " " * max(width - display_width(text), 0)
    return pad + text if right else text + pad
