"""Newsgroup stripping on every line-end convention, and in time linear in the message
(issue 37, items 2 and 9).

The signature rule is checked against a slow, obviously-correct version kept here as the
oracle: for every delimiter line, the part after it is measured again from scratch."""
from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st
from test_newsgroup import BODY, MESSAGE, _corpus

import hbnlab.text.newsgroup as ng
from hbnlab.text.newsgroup import (
    SIGNATURE_MAX_CHARS,
    SIGNATURE_MAX_LINES,
    strip_corpus,
    strip_headers,
    strip_newsgroup,
    strip_quotes,
    strip_signature,
)

_EOL = re.compile(r"(\r\n|\r|\n)")


# ---------------------------------------------------------------------------- item 9: line ends
def test_cr_only_and_crlf_messages_lose_the_same_parts_as_lf_ones():
    for eol in ("\r", "\r\n"):
        assert strip_newsgroup(MESSAGE.replace("\n", eol)) == BODY.replace("\n", eol), repr(eol)


def test_a_cr_only_header_block_goes():
    assert strip_headers("From: a@b.c\rSubject: x\r\rBody text.\r") == "Body text.\r"
    assert strip_headers("From: a@b.c\r\nSubject: x\r\n\r\nBody.") == "Body."


def test_each_line_keeps_its_own_line_end():
    assert strip_quotes("a\r\n> q\rb\nc") == "a\r\nb\nc"
    assert strip_signature("Body\r\nmore\r-- \rJoe\n") == "Body\r\nmore"


def test_an_attribution_with_nothing_after_it_is_text():
    """A last line ending in ``wrote:`` introduces no quote: it stays, and the message is not
    emptied (a CR-only message was one line, all of it removed)."""
    for eol in ("\n", "\r", "\r\n"):
        text = eol.join(["The meeting moves to Friday.", "Here is what Anna wrote:"])
        assert strip_quotes(text) == text
        assert strip_newsgroup(text + eol) == text + eol
    assert strip_quotes("Thanks to everyone who wrote:\n\n") == "Thanks to everyone who wrote:\n\n"
    out = strip_corpus(_corpus(["The new rule, as the chair wrote:\r"]))
    assert out.documents[0].text == "The new rule, as the chair wrote:\r"
    assert out.meta["newsgroup_strip"]["empty"] == 0


def test_attributions_before_a_quote_still_go():
    assert strip_quotes("Anna wrote:\n\n> old\nnew") == "\nnew"
    assert strip_quotes("In article <1@x> amy@x (Amy)\rwrites:\r>old\rMine.") == "Mine."


# ---------------------------------------------------------------------------- item 2: the oracle
def _signature_oracle(text: str) -> str:
    """The quadratic rule as documented: the earliest delimiter with text before it and a short
    part after it, the part re-measured for every delimiter."""
    parts = _EOL.split(text)
    lines = parts[0::2]
    starts, at = [], 0
    for k, line in enumerate(lines):
        starts.append(at)
        at += len(line) + (len(parts[2 * k + 1]) if 2 * k + 1 < len(parts) else 0)
    seen_text = False
    for i, line in enumerate(lines):
        delimiter = re.fullmatch(r"-{2,}|-- .*", line.rstrip()) is not None
        tail = [t.strip() for t in lines[i + 1:] if t.strip()]
        short = len(tail) <= SIGNATURE_MAX_LINES and sum(map(len, tail)) <= SIGNATURE_MAX_CHARS
        if delimiter and seen_text and short:
            return text[:starts[i]].rstrip()
        seen_text = seen_text or (bool(line.strip()) and not delimiter)
    return text


_LINE = st.sampled_from(["", " ", "--", "-- ", "-- Joe", "---", "-----", " --", "text", "a longer line of the body",
                         "x" * 120, "Joe Carter", "\t"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_LINE, st.sampled_from(["\n", "\r\n", "\r"])), max_size=40),
       st.integers(0, 1))
def test_signature_stripping_agrees_with_the_slow_oracle(lines, drop_last_end):
    text = "".join(line + eol for line, eol in lines)
    if drop_last_end and lines:
        text = text[:-len(lines[-1][1])]
    assert strip_signature(text) == _signature_oracle(text)


# ---------------------------------------------------------------------------- item 2: linear work
def _line_events(text: str) -> int:
    """Python line events run inside hbnlab.text.newsgroup while stripping ``text``: a count of
    the work done that no machine load changes (no clock)."""
    count = 0
    target = ng.__file__

    def tracer(frame, event, arg):
        nonlocal count
        if frame.f_code.co_filename != target:
            return None
        if event == "line":
            count += 1
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        strip_newsgroup(text)
    finally:
        sys.settrace(old)
    return count


def test_stripping_does_work_linear_in_the_number_of_delimiter_lines():
    """Every ``--`` line of the issue's message made the old code measure the rest of the message
    again (60 KB: 29 s): four times the lines took sixteen times the work.  Now four times."""
    def message(n: int) -> str:
        return "Results follow.\n" + "word\n--\n" * n

    small, large = _line_events(message(100)), _line_events(message(400))
    assert large <= 5 * small, (small, large)
