"""Reuters SGML parsing, entity decoding, ModApte selection and the time split -- on hand-made
files whose expected results are worked out by hand (see FAKE_RECORDS in conftest.py)."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from corpus_fakes import sgm_record, write_fake_reuters
from hypothesis import given, settings
from hypothesis import strategies as st

from hbnlab.corpus import (
    Corpus,
    CorpusError,
    Document,
    load_corpus,
    load_reuters21578,
    modapte_counts,
    train0_validation_split,
)
from hbnlab.corpus.reuters import REUTERS_FILES, decode_sgml, parse_reuters_date, parse_reuters_sgml


# ------------------------------------------------------------------------- entities
@pytest.mark.parametrize(
    "raw, expected",
    [
        ("&lt;Bank of Boston&gt;", "<Bank of Boston>"),
        ("AT&amp;T", "AT&T"),
        ("&#65;&#x42;&#X43;", "ABC"),
        ("&quot;q&quot; &apos;a&apos;", "\"q\" 'a'"),
        ("&#2;text&#3;", " text "),                      # framing controls -> spaces
        ("M-|&#5;&#30;side", "M-|  side"),
        ("a&#127;b", "a b"),
        ("tab\there\nnew", "tab\there\nnew"),            # tab / newline kept
        ("&unknown; &#xZZ; & alone", "&unknown; &#xZZ; & alone"),
        ("&amp;lt;", "&lt;"),                            # decoded once, not twice
        ("no entities", "no entities"),
    ],
)
def test_decode_sgml_golden(raw, expected):
    assert decode_sgml(raw) == expected


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=50))
@settings(max_examples=200, deadline=None)
def test_decode_sgml_inverts_escaping(s):
    # Escaping & and < the SGML way, then decoding, gives the text back.
    escaped = s.replace("&", "&amp;").replace("<", "&lt;")
    assert decode_sgml(escaped) == s


# ------------------------------------------------------------------------- dates
@pytest.mark.parametrize(
    "raw, expected",
    [
        ("26-FEB-1987 15:01:01.79", datetime(1987, 2, 26, 15, 1, 1, 790000)),
        (" 9-APR-1987 13:32:06.7", datetime(1987, 4, 9, 13, 32, 6, 700000)),
        ("3-MAR-1987  13:04:18.47", datetime(1987, 3, 3, 13, 4, 18, 470000)),
        ("27-MAR-1987 00:03:35.68   F", datetime(1987, 3, 27, 0, 3, 35, 680000)),
        ("9-APR-1987 00:00:00.00    # date added as guesswork ", datetime(1987, 4, 9)),
        ("31-MAR-1987 605:12:19.12", datetime(1987, 3, 31)),   # impossible hour -> midnight
        ("1-JAN-1987 10:00:00", datetime(1987, 1, 1, 10)),
        ("garbage", None),
        ("31-FOO-1987 10:00:00.00", None),
        ("31-FEB-1987 10:00:00.00", None),
    ],
)
def test_parse_reuters_date(raw, expected):
    assert parse_reuters_date(raw) == expected


# ------------------------------------------------------------------------- one file
def test_parse_records_fields():
    text = ('<!DOCTYPE lewis SYSTEM "lewis.dtd">\n'
            + sgm_record("1", ["grain", "wheat"], body="Prices &lt;up&gt; &amp; more")
            + sgm_record("2", ["earn"], text_type="BRIEF", title="SHR UP 5 CTS")
            + sgm_record("3", [], topics_attr="NO", lewis="TEST", text_type="UNPROC", body="TABLE 1 2")
            + sgm_record("4", ["trade"], csecs="540385847"))
    recs = parse_reuters_sgml(text, "x.sgm")
    assert [r["newid"] for r in recs] == ["1", "2", "3", "4"]
    r1, r2, r3, r4 = recs
    assert r1["topics"] == ["grain", "wheat"]
    assert r1["title"] == "WIDGET OUTPUT RISES"
    assert r1["body"] == "Prices <up> & more\n Reuter"
    assert r1["text_type"] == "NORM"
    assert r1["attrs"]["LEWISSPLIT"] == "TRAIN" and r1["attrs"]["OLDID"] == "5001"
    assert (r2["text_type"], r2["title"], r2["body"]) == ("BRIEF", "SHR UP 5 CTS", "")
    assert (r3["text_type"], r3["title"], r3["body"], r3["topics"]) == ("UNPROC", "", "TABLE 1 2", [])
    assert r3["attrs"]["TOPICS"] == "NO"
    # CSECS in front of OLDID/NEWID: attributes are matched by name, not position
    assert r4["newid"] == "4" and r4["attrs"]["CSECS"] == "540385847" and r4["topics"] == ["trade"]


def test_parse_select_skips_field_decoding():
    text = sgm_record("1", ["grain"]) + sgm_record("2", ["crude"], topics_attr="NO")
    recs = parse_reuters_sgml(text, select=lambda a: a["TOPICS"] == "YES")
    assert "topics" in recs[0] and set(recs[1]) == {"attrs", "newid"}


def test_parse_truncated_record_names_line():
    first = sgm_record("1", ["grain"])
    text = first + sgm_record("2", ["grain"])[:-20]
    line = first.count("\n") + 1  # the second record starts right after the first
    with pytest.raises(CorpusError, match=rf"line {line} of t\.sgm: <REUTERS> record without </REUTERS>"):
        parse_reuters_sgml(text, "t.sgm")


def test_parse_record_without_newid():
    text = sgm_record("1", ["grain"]).replace(' NEWID="1"', "")
    with pytest.raises(CorpusError, match=r"line 1 of t\.sgm: .*without a NEWID"):
        parse_reuters_sgml(text, "t.sgm")


# ------------------------------------------------------------------------- ModApte on the fake collection
def test_modapte_selection_golden(fake_reuters_dir):
    c = load_reuters21578(fake_reuters_dir)
    got = {d.id: (d.split, sorted(d.labels)) for d in c.documents}
    assert got == {
        "1": ("train", ["grain", "wheat"]),
        "2": ("train", ["crude"]),
        "3": ("train", ["grain"]),
        "9": ("train", ["crude"]),          # 'onlytrain' removed from its labels
        "10": ("test", ["grain"]),
        "11": ("test", ["crude"]),          # 'onlytest' removed from its labels
        "13": ("test", ["wheat"]),
    }
    assert [d.id for d in c.documents] == ["1", "2", "3", "9", "10", "11", "13"]  # NEWID order
    assert c.name == "reuters21578-modapte" and not c.synthetic
    assert modapte_counts(c) == {"train": 4, "test": 3, "categories": 3}
    m = c.meta
    assert (m["n_records"], m["n_modapte_train"], m["n_modapte_test"]) == (13, 6, 4)
    assert m["dropped"] == {"train": {"no_topics": 1, "outside_categories": 1},
                            "test": {"no_topics": 0, "outside_categories": 1}}
    assert m["n_categories"] == 3 and m["no_letter_ids"] == [] and m["n_title_only"] == {"train": 1, "test": 0}


def test_modapte_text_fields(fake_reuters_dir):
    docs = {d.id: d for d in load_reuters21578(fake_reuters_dir).documents}
    # latin-1 byte 0xFC -> 'ü'; &lt; &gt; &amp; decoded; &#5;&#30; -> spaces; &#3; stripped
    assert docs["2"].text == "Oil <XYZ> & Co said \u00fcber  prices\n Reuter"
    assert docs["2"].title == "WIDGET OUTPUT RISES"
    assert (docs["3"].title, docs["3"].text) == ("GRAIN BRIEF", "")          # BRIEF: title only
    assert (docs["11"].title, docs["11"].text) == ("", "FIGURES 1 2 3")      # UNPROC: whole TEXT
    assert docs["1"].date == datetime(1987, 2, 26, 15, 1, 1, 790000)
    assert docs["10"].date == datetime(1987, 4, 9, 13, 32, 6, 700000)
    assert docs["11"].date == datetime(1987, 4, 9)
    assert docs["13"].date == datetime(1987, 4, 10, 10)
    assert docs["9"].date == datetime(1987, 3, 1, 13, 4, 18, 470000)


def test_modapte_progress_reports_every_file(fake_reuters_dir):
    calls = []
    load_reuters21578(fake_reuters_dir, progress=lambda f, msg: calls.append((f, msg)))
    fracs = [f for f, _ in calls]
    assert fracs == sorted(fracs) and fracs[0] == 0.0 and fracs[-1] == 1.0
    assert len(calls) == len(REUTERS_FILES) + 1
    assert "reut2-000.sgm" in calls[0][1]


def test_missing_files_are_named(fake_reuters_dir):
    (fake_reuters_dir / "reut2-007.sgm").unlink()
    (fake_reuters_dir / "reut2-013.sgm").unlink()
    with pytest.raises(CorpusError, match=r"missing: reut2-007\.sgm, reut2-013\.sgm"):
        load_reuters21578(fake_reuters_dir)


def test_not_a_directory(tmp_path):
    with pytest.raises(CorpusError, match="not a directory"):
        load_reuters21578(tmp_path / "nope")


def test_duplicate_newid_across_files(tmp_path):
    root = write_fake_reuters(tmp_path / "r", {"reut2-000.sgm": [sgm_record("1", ["a"])],
                                               "reut2-003.sgm": [sgm_record("1", ["a"], lewis="TEST")]})
    with pytest.raises(CorpusError, match=r"duplicate NEWID '1' in reut2-000\.sgm and reut2-003\.sgm"):
        load_reuters21578(root, verify=False)


def test_load_corpus_dispatches_to_reuters(fake_reuters_dir):
    assert load_corpus(fake_reuters_dir).fingerprint() == load_reuters21578(fake_reuters_dir).fingerprint()


# ------------------------------------------------------------------------- training-0 / validation
def test_train0_validation_golden(fake_reuters_dir):
    c = load_reuters21578(fake_reuters_dir)
    t0, val = train0_validation_split(c)
    # 4 training docs: round(4 * 5827 / 7769) = 3; in time order 1 (15:01:01), 3 (15:01:30), 2 (15:02), 9 (Mar 1)
    assert [d.id for d in t0] == ["1", "3", "2"]
    assert [d.id for d in val] == ["9"]


def _doc(i, date=None, split="train"):
    return Document(id=str(i), text="word", labels=frozenset({"a"}), split=split, date=date)


def test_train0_ties_by_numeric_id_and_undated_last():
    day = datetime(1987, 3, 1)
    docs = [_doc(10, day), _doc(9, day), _doc(2, None), _doc(100, day - timedelta(1)), _doc(1, None),
            _doc(5, day, split="test"), _doc(3, day + timedelta(1)), _doc(4, day)]
    t0, val = train0_validation_split(Corpus("c", docs))
    order = [d.id for d in t0 + val]
    # numeric ties: 4 < 9 < 10 (not the string order '10' < '4' < '9'); undated last in corpus order
    assert order == ["100", "4", "9", "10", "3", "2", "1"]
    assert len(t0) == round(7 * 5827 / 7769) == 5


def test_train0_non_numeric_ids_tie_by_corpus_order():
    day = datetime(1987, 3, 1)
    docs = [Document(id=i, text="w", labels=frozenset({"a"}), date=day) for i in ["b", "a", "c", "d"]]
    t0, val = train0_validation_split(Corpus("c", docs))
    assert [d.id for d in t0 + val] == ["b", "a", "c", "d"]


def test_train0_sizes_follow_the_thesis_ratio():
    day = datetime(1987, 1, 1)
    docs = [_doc(i, day + timedelta(minutes=i)) for i in range(7769)]
    t0, val = train0_validation_split(Corpus("c", docs))
    assert (len(t0), len(val)) == (5827, 1942)  # thesis sec. 4.1.1


@given(st.lists(st.tuples(st.integers(0, 50), st.booleans()), min_size=1, max_size=60))
@settings(max_examples=100, deadline=None)
def test_train0_is_a_time_split(items):
    base = datetime(1987, 1, 1)
    docs = [_doc(i, base + timedelta(hours=h) if dated else None) for i, (h, dated) in enumerate(items)]
    t0, val = train0_validation_split(Corpus("c", docs))
    assert sorted(d.id for d in t0 + val) == sorted(d.id for d in docs)
    assert len(t0) == round(len(docs) * 5827 / 7769)
    key = lambda d: (d.date is None, d.date or datetime.min)  # noqa: E731
    if t0 and val:
        assert max(key(d) for d in t0) <= min(key(d) for d in val)
