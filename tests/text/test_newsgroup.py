"""Newsgroup stripping (hbnlab.text.newsgroup) on hand-written messages."""
from __future__ import annotations

import doctest

import pytest

import hbnlab.text.newsgroup as ng
from hbnlab.corpus import Corpus, Document
from hbnlab.text.newsgroup import (
    SIGNATURE_MAX_LINES,
    newsgroup_parts,
    strip_corpus,
    strip_headers,
    strip_newsgroup,
    strip_quotes,
    strip_signature,
    strip_summary,
)

MESSAGE = """\
From: geb@cadre.dsl.pitt.edu (Gordon Banks)
Subject: Re: Migraine and aspirin
Reply-To: geb@cadre.dsl.pitt.edu
Organization: Univ. of Pittsburgh Computer Science
Lines: 20

In article <1993Apr5.123@news.x.edu> jdoe@x.edu (John Doe)
writes:
>Does aspirin help a migraine?
>> In article <2@y.edu> amy@y.edu wrote:
>> > > It did for me.
|Forwarded line quoted with a bar.
John Doe wrote:
   > an indented quote

Aspirin helps some patients when taken early.
Ask a neurologist about the others.

--
----------------------------------------------------------------------------
Gordon Banks  N3JXP      | "Skepticism is the chastity of the intellect, and
geb@cadre.dsl.pitt.edu   |  it is shameful to surrender it too soon."
----------------------------------------------------------------------------
"""

BODY = "\nAspirin helps some patients when taken early.\nAsk a neurologist about the others."


def test_doctests():
    result = doctest.testmod(ng)
    assert result.attempted > 0 and result.failed == 0


def test_every_part_of_a_full_message_goes_and_the_body_stays():
    out = strip_newsgroup(MESSAGE)
    assert out == BODY
    for word in ("pitt", "gordon", "banks", "doe", "writes", "wrote", "Organization", "Skepticism", ">", "|"):
        assert word.lower() not in out.lower(), word


def test_header_block_is_everything_up_to_the_first_blank_line():
    out = strip_headers(MESSAGE)
    assert out.startswith("In article <1993Apr5.123@news.x.edu>")
    assert "Subject:" not in out and "Lines: 20" not in out
    # a blank line of white space ends the block too
    assert strip_headers("From: a@b.c\nSubject: x\n   \t\nbody") == "body"
    # an mbox "From " line starts a header block
    assert strip_headers("From a@b.c Mon Apr  5 1993\nSubject: x\n\nbody") == "body"


def test_a_message_with_no_blank_line_is_kept_whole():
    text = "From: geb@pitt.edu\nSubject: short\nNo blank line anywhere."
    assert strip_headers(text) == text
    assert strip_newsgroup(text, ["headers"]) == text


def test_text_whose_first_paragraph_is_not_a_header_keeps_it():
    text = "Dear all,\nthe meeting moves.\n\nSee you there."
    assert strip_headers(text) == text
    assert strip_headers("Note that: this is prose\n\nmore") == "Note that: this is prose\n\nmore"


def test_nested_quotes_and_attribution_lines_go():
    text = ("In article <a@b> x@y (X) writes:\n>first level\n>> second level\n> > > third level\n"
            "Someone wrote:\n| bar quote\nMy own reply.\nThe article he writes about is good.")
    assert strip_quotes(text) == "My own reply.\nThe article he writes about is good."


def test_an_attribution_must_end_the_line():
    text = "He writes: the engine is fine.\nShe wrote: no."
    assert strip_quotes(text) == text


def test_signature_after_a_dash_dash_line_goes():
    text = "Thanks for the help.\n-- \nJoe Carter\njc@andrew.cmu.edu\n"
    assert strip_signature(text) == "Thanks for the help."
    assert strip_signature("Thanks.\n-- Joe Carter, CMU") == "Thanks."
    assert strip_signature("Thanks.\r\n--\r\nJoe\r\n") == "Thanks."


def test_a_dash_dash_in_the_body_followed_by_long_text_stays():
    long_part = "\n".join(f"line {i} of a long explanation that belongs to the body" for i in range(20))
    text = f"Here are the results.\n--\n{long_part}\n"
    assert strip_signature(text) == text
    assert strip_newsgroup(text) == text
    # ... but a real signature after it still goes, and the body's delimiter stays
    signed = f"{text}-- \nJoe Carter\n"
    assert strip_signature(signed) == text.rstrip()


def test_signature_limit_is_lines_and_characters():
    at_limit = "body\n--\n" + "\n".join(f"sig {i}" for i in range(SIGNATURE_MAX_LINES))
    assert strip_signature(at_limit) == "body"
    over = at_limit + "\nsig one more"
    assert strip_signature(over) == over
    wide = "body\n--\n" + "x" * 900
    assert strip_signature(wide) == wide


def test_a_delimiter_with_nothing_before_it_is_not_a_signature():
    assert strip_signature("--\nonly this") == "--\nonly this"
    assert strip_signature("\n---\n--\nshort") == "\n---\n--\nshort"


def test_parts_are_removed_only_when_asked():
    only_sig = strip_newsgroup(MESSAGE, ["signature"])
    assert only_sig.startswith("From: geb@") and ">Does aspirin" in only_sig and "Skepticism" not in only_sig
    only_quotes = strip_newsgroup(MESSAGE, "quotes")
    assert "From: geb@" in only_quotes and "Skepticism" in only_quotes and ">Does" not in only_quotes
    assert strip_newsgroup(MESSAGE, ()) is MESSAGE


def test_text_without_newsgroup_parts_comes_back_unchanged_byte_for_byte():
    for text in ("", "one line", "a\r\nb\r\n", "para one\n\npara two\n", "tabs\tand  spaces  \n\n\n"):
        assert strip_newsgroup(text) == text


def test_unknown_parts_are_refused_with_their_name():
    with pytest.raises(ValueError, match="newsgroup part 'adverts' is unknown"):
        strip_newsgroup("x", ["headers", "adverts"])
    assert newsgroup_parts(["FOOTERS", " quotes "]) == ("quotes", "signature")


def _corpus(texts):
    return Corpus("mini", tuple(Document(str(i), t, frozenset({"c"}), "train", title="From: title stays")
                                for i, t in enumerate(texts)), meta={"source": "x"})


def test_strip_corpus_changes_the_texts_records_it_and_keeps_titles():
    raw = _corpus([MESSAGE, "plain text", "From: a@b\n\n> quoted only\n"])
    out = strip_corpus(raw)
    assert [d.text for d in out.documents] == [BODY, "plain text", ""]
    assert [d.title for d in out.documents] == ["From: title stays"] * 3
    assert out.meta == {"source": "x",
                        "newsgroup_strip": {"parts": ["headers", "quotes", "signature"], "changed": 2, "empty": 1}}
    assert raw.meta == {"source": "x"}, "the input corpus is not touched"
    assert strip_summary(out.meta, len(out)) == ("newsgroup stripping applied (headers, quotes, signature): "
                                                 "2 of 3 documents changed, 1 left without text")
    assert strip_corpus(raw, ()) is raw


def test_the_fingerprint_records_stripping_even_where_no_text_changed():
    raw = _corpus(["plain text", "more plain text"])
    out = strip_corpus(raw)
    assert [d.text for d in out.documents] == [d.text for d in raw.documents]
    assert out.fingerprint() != raw.fingerprint()
    assert strip_corpus(raw, ["quotes"]).fingerprint() not in (raw.fingerprint(), out.fingerprint())
