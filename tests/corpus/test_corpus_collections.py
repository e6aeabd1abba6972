"""Readers of the distributed layouts of 20 Newsgroups and OHSUMED, on tiny look-alikes the tests write
(``tests/collection_fixtures.py``); counts and labels are checked against the fixtures by hand."""
from __future__ import annotations

import pytest
from collection_fixtures import (
    make_20news_19997,
    make_20news_bydate,
    make_ohsumed_first20000,
    make_ohsumed_medline,
    message,
)

from hbnlab.corpus import (
    CorpusError,
    detect_collection_layout,
    read_20newsgroups,
    read_mesh_trees,
    read_ohsumed,
    read_ohsumed_medline,
)
from hbnlab.corpus.collections import parse_usenet_message


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


# ---------------------------------------------------------------------------- Usenet messages
def test_parse_usenet_message_keeps_the_first_subject_and_joins_continuations():
    h, body = parse_usenet_message("From: a@b\nSubject: first\n\tpart two\nSubject: second\n\nBody line\n\n", "m")
    assert h == {"from": "a@b", "subject": "first part two"} and body == "Body line"
    # no headers at all: the file starts with the blank line
    assert parse_usenet_message("\nonly a body\n", "m") == ({}, "only a body")
    # headers and no body; CRLF line ends
    assert parse_usenet_message("Subject: hi\r\nFrom: x\r\n", "m") == ({"subject": "hi", "from": "x"}, "")


@pytest.mark.parametrize("text, line", [("Subject: ok\nnot a header\n\nbody\n", 2),
                                        ("  continued\nSubject: x\n\nbody\n", 1),
                                        ("From: a\nSubject : spaced name\n\nbody\n", 2)])
def test_a_malformed_header_block_names_the_file_and_line(text, line):
    with pytest.raises(CorpusError, match=rf"^line {line} of msg/17: "):
        parse_usenet_message(text, "msg/17")


# ---------------------------------------------------------------------------- 20news-bydate
def test_bydate_counts_labels_split_and_dropped_headers(tmp_path):
    c = read_20newsgroups(make_20news_bydate(tmp_path))
    # 3 groups x (4 train + 2 test) + 1 latin-1 training message; the README is not a message
    assert (len(c), len(c.train), len(c.test)) == (19, 13, 6)
    assert c.meta["layout"] == "20news-bydate" and c.meta["split"] == "folders"
    assert c.meta["n_files"] == 20
    assert c.meta["ignored_files"] == [{"file": "README", "reason": "in the root, not in a group folder"}]
    assert c.meta["encodings"] == {"utf-8": 18, "cp1252": 1} and c.meta["replaced_files"] == []
    for d in c.documents:
        split, group, _ = d.id.split("/")
        assert d.split == {"20news-bydate-train": "train", "20news-bydate-test": "test"}[split]
        assert d.labels == {group}
        # only Subject (the title) and the body: the other headers are gone
        assert "From:" not in d.full_text and "Organization" not in d.full_text and "Lines:" not in d.full_text
    doc = next(d for d in c.documents if d.id == "20news-bydate-train/sci.space/101")
    assert doc.title == "About orbit"
    # the quoted reply and its attribution line are part of the body (the paper removes nothing else)
    assert "In article <x101@host> someone writes:" in doc.text and "> shuttle launch" in doc.text
    latin = next(d for d in c.documents if d.id.endswith("/999"))
    assert latin.title == "café engine" and latin.text.startswith("the café owner")
    assert c.categories() == ["rec.autos", "comp.graphics", "sci.space"]


def test_bydate_inside_a_wrapper_folder_and_hidden_files_are_listed(tmp_path):
    make_20news_bydate(tmp_path / "20news-bydate")
    _write(tmp_path / "20news-bydate" / "20news-bydate-test" / "sci.space" / ".DS_Store", b"\0")
    assert detect_collection_layout(tmp_path) == "20news-bydate"
    c = read_20newsgroups(tmp_path)
    assert len(c) == 19
    assert {"file": "20news-bydate-test/sci.space/.DS_Store", "reason": "hidden file or folder"} in \
        c.meta["ignored_files"]


# ---------------------------------------------------------------------------- 20news-19997 / 18828
def test_19997_merges_a_crosspost_into_one_multilabel_document(tmp_path):
    c = read_20newsgroups(make_20news_19997(tmp_path))
    assert c.meta["layout"] == "20news-folder-per-group" and c.meta["split"] == "none"
    assert (c.meta["n_files"], len(c)) == (14, 13)
    assert c.meta["crossposts"] == {"sci.med/59000": ["sci.space/61000"]}
    multi = [d for d in c.documents if len(d.labels) > 1]
    assert [(d.id, sorted(d.labels)) for d in multi] == [("sci.med/59000", ["sci.med", "sci.space"])]
    assert multi[0].title == "Space medicine"
    for d in c.documents:
        assert not any(h in d.full_text for h in ("Xref", "Newsgroups", "Message-ID", "Path:", "cantaloupe"))
    assert {lab: n["train"] for lab, n in c.summary()["per_category"].items()} == \
        {"sci.space": 5, "sci.med": 5, "rec.autos": 4}


def test_without_message_id_the_same_file_name_and_content_is_one_document(tmp_path):
    # 20news-18828 keeps only From and Subject
    same = message("Cars in space", "a rocket engine for the sedan", From="a@b")
    _write(tmp_path / "rec.autos" / "7", same)
    _write(tmp_path / "sci.space" / "7", same)
    _write(tmp_path / "sci.space" / "8", same)  # another file name: another document
    _write(tmp_path / "rec.autos" / "9", message("Cars", "a different body about brakes", From="c@d"))
    _write(tmp_path / "sci.space" / "9", message("Cars", "yet another body about orbits", From="c@d"))
    c = read_20newsgroups(tmp_path)
    assert sorted((d.id, sorted(d.labels)) for d in c.documents) == [
        ("rec.autos/7", ["rec.autos", "sci.space"]), ("rec.autos/9", ["rec.autos"]),
        ("sci.space/8", ["sci.space"]), ("sci.space/9", ["sci.space"])]


def test_seeded_split_is_reproducible_and_recorded(tmp_path):
    top = make_20news_19997(tmp_path)
    a = read_20newsgroups(top, test_fraction=0.4, random_state=3)
    b = read_20newsgroups(top, test_fraction=0.4, random_state=3)
    assert [d.split for d in a.documents] == [d.split for d in b.documents]
    assert len(a.test) == round(13 * 0.4) == 5
    assert (a.meta["split"], a.meta["test_fraction"], a.meta["random_state"]) == ("seeded", 0.4, 3)
    # every group keeps training documents
    assert set(a.categories(min_train=1)) == {"sci.space", "rec.autos", "sci.med"}
    # the folders' split wins over test_fraction
    bydate = read_20newsgroups(make_20news_bydate(tmp_path / "bd"), test_fraction=0.4)
    assert bydate.meta["split"] == "folders" and len(bydate.test) == 6


def test_20news_files_that_cannot_be_documents(tmp_path):
    top = make_20news_19997(tmp_path)
    _write(top / "sci.med" / "70000", "Subject: 1993\n\n---- 42 ----\n")
    _write(top / "sci.med" / "deep" / "70001", message("nested", "a nested message"))
    c = read_20newsgroups(top)
    assert {"file": "sci.med/70000", "reason": "no letters in the subject or the body"} in c.meta["ignored_files"]
    assert {"file": "sci.med/deep/70001", "reason": "in a sub-folder, not in a group folder"} in c.meta["ignored_files"]
    assert c.meta["n_files"] == 16 and len(c) == 13  # every file is loaded or listed
    _write(top / "sci.med" / "70002", "From: x\nSubject: broken\nthis line is not a header\n\nbody\n")
    with pytest.raises(CorpusError, match=r"line 3 of .*sci\.med/70002: expected a header"):
        read_20newsgroups(top)


def test_20news_size_limits_and_bad_roots_name_the_file(tmp_path):
    top = make_20news_19997(tmp_path)
    with pytest.raises(CorpusError, match=r"rec\.autos/50005: 281 bytes, over max_file_bytes=100"):
        read_20newsgroups(top, max_file_bytes=100)
    with pytest.raises(CorpusError, match=r"20_newsgroups \(total of its files\) is .* over the limit"):
        read_20newsgroups(top, max_bytes=1000)
    with pytest.raises(CorpusError, match="not a directory"):
        read_20newsgroups(tmp_path / "missing")
    mixed = tmp_path / "mixed"
    _write(mixed / "20news-bydate-train" / "a" / "1", message("x", "words here"))
    _write(mixed / "other" / "a" / "2", message("x", "words here"))
    with pytest.raises(CorpusError, match=r"expected one \*-train and at most one \*-test folder"):
        read_20newsgroups(mixed)


# ---------------------------------------------------------------------------- ohsumed-first-20000-docs
def test_ohsumed_first20000_multilabel_documents(tmp_path):
    top = make_ohsumed_first20000(tmp_path)
    assert detect_collection_layout(tmp_path) == "ohsumed-first-20000-docs"
    c = read_ohsumed(tmp_path)
    assert (len(c), len(c.train), len(c.test)) == (10, 6, 4)
    assert c.meta["n_files"] == 12 and c.meta["n_multilabel"] == 2 and c.meta["ignored_files"] == []
    labels = {d.id: sorted(d.labels) for d in c.documents}
    assert labels["0000002"] == ["C01", "C14"] and labels["0010002"] == ["C04", "C14"]
    assert labels["0000001"] == ["C01"]
    d = next(d for d in c.documents if d.id == "0000003")
    assert d.title == "Title of study 0000003 on tumor." and d.text.startswith("neoplasm metastasis")
    # the copies of one document must agree
    _write(top / "training" / "C14" / "0000001", "Another title\nother text\n")
    with pytest.raises(CorpusError, match=r"C14/0000001: document 0000001 differs from its copy .*C01/0000001"):
        read_ohsumed(tmp_path)


def test_ohsumed_first20000_document_in_both_splits_and_stray_files(tmp_path):
    top = make_ohsumed_first20000(tmp_path)
    _write(top / "README.txt", "about the collection")
    c = read_ohsumed(top)
    assert c.meta["ignored_files"] == [{"file": "README.txt",
                                        "reason": "not in training/<category>/ or test/<category>/"}]
    _write(top / "test" / "C04" / "0000004", (top / "training" / "C04" / "0000004").read_text())
    with pytest.raises(CorpusError, match=r"training/C04/0000004: document 0000004 is in the train split but also "
                                          r"in the test split \(.*test/C04/0000004\)"):
        read_ohsumed(top)


# ---------------------------------------------------------------------------- ohsumed.NN (MEDLINE)
def test_medline_records_with_the_mesh_tree_file(tmp_path):
    make_ohsumed_medline(tmp_path)
    assert detect_collection_layout(tmp_path) == "ohsumed-medline"
    assert detect_collection_layout(tmp_path / "ohsumed.91") == "ohsumed-medline"
    c = read_ohsumed(tmp_path)
    assert c.meta["labels"] == "C01-C23" and c.meta["files"] == {"ohsumed.91": 10}
    # Male, "Support, U.S. Gov't, P.H.S." and "Unknown Heading" are not in the tree file
    assert c.meta["unknown_headings"] == 3
    got = {d.id: sorted(d.labels) for d in c.documents}
    assert got == {"91000001": ["C14"], "91000002": ["C04"], "91000003": ["C01"], "91000004": ["C01", "C14"],
                   "91000005": [], "91000006": ["C04", "C14"], "91000007": ["C01"], "91000008": ["C04"],
                   "91000009": ["C14"], "91000010": ["C01"]}
    d = c.documents[0]
    assert d.title == "A study of cardiac." and d.text == "cardiac artery infarction coronary."
    assert "Doe J" not in d.full_text and "JOURNAL ARTICLE" not in d.full_text and "Am J Med" not in d.full_text
    assert c.documents[2].text == ""  # record 3 has no .W


def test_medline_without_trees_gives_the_main_headings(tmp_path):
    make_ohsumed_medline(tmp_path, trees=False)
    c = read_ohsumed_medline(tmp_path / "ohsumed.91")
    assert c.meta["labels"] == "mesh-headings" and c.meta["mesh_trees"] is None
    assert c.documents[0].labels == {"Heart Diseases", "Human", "Male"}
    assert c.documents[4].labels == {"Human", "Support, U.S. Gov't, P.H.S"}


@pytest.mark.parametrize("text, match", [
    (".I 1\n.U\n1\n.X\nfoo\n", r"line 4 of .*ohsumed\.87: unknown field '\.X'"),
    (".I 1\n.T\nTitle\n", r"line 1 of .*ohsumed\.87: record \.I 1 has no '\.U'"),
    ("junk\n.I 1\n", r"line 1 of .*ohsumed\.87: text before the first '\.I'"),
    (".I 1\n.U\n1\n.T\nA\n.T\nB\n", r"line 6 of .*ohsumed\.87: field \.T repeated in the record of line 1"),
    (".I one\n", r"line 1 of .*ohsumed\.87: '\.I' must be followed by the record's sequence number"),
    (".I 1\n.U\n5\n.T\nA\n.I 2\n.U\n5\n.T\nB\n", r"line 6 of .*ohsumed\.87: MEDLINE id \.U 5 already used at "
                                                  r"line 1 of"),
    (".I 1\nloose text\n", r"line 2 of .*ohsumed\.87: text after '\.I' without a field marker"),
])
def test_medline_errors_name_the_file_and_line(tmp_path, text, match):
    _write(tmp_path / "ohsumed.87", text)
    with pytest.raises(CorpusError, match=match):
        read_ohsumed(tmp_path)


def test_medline_records_and_files_left_out_are_listed(tmp_path):
    _write(tmp_path / "ohsumed.88", ".I 1\n.U\n88000001\n.T\nHeart study.\n.I 2\n.U\n88000002\n.M\nHuman.\n")
    _write(tmp_path / "notes.txt", "not data")
    c = read_ohsumed(tmp_path)
    assert [d.id for d in c.documents] == ["88000001"]
    assert c.meta["ignored_records"] == [{"file": "ohsumed.88", "line": 6, "reason": "no title or abstract"}]
    assert c.meta["ignored_files"] == [{"file": "notes.txt", "reason": "not an ohsumed.NN file"}]


def test_mesh_tree_file_errors(tmp_path):
    p = _write(tmp_path / "mtrees.bin", "Heart Diseases;C14.280\nno separator here\n")
    with pytest.raises(CorpusError, match=r"line 2 of .*mtrees\.bin: expected 'Heading;TreeNumber'"):
        read_mesh_trees(p)
    _write(tmp_path / "mtrees.bin", "Heart Diseases;C14.280\nHeart Diseases;C99.1\n")
    assert read_mesh_trees(p) == {"heart diseases": ("C14.280", "C99.1")}
    make_ohsumed_medline(tmp_path)  # now two tree files beside the data
    with pytest.raises(CorpusError, match=r"several MeSH tree files \['mtrees.bin', 'mtrees1991.bin'\]"):
        read_ohsumed(tmp_path)


def test_detect_collection_layout_on_other_paths(tmp_path):
    make_20news_19997(tmp_path)
    assert detect_collection_layout(tmp_path / "20_newsgroups") is None
    assert detect_collection_layout(tmp_path / "nothing") is None
    _write(tmp_path / "r" / "reut2-000.sgm", "<REUTERS>")
    assert detect_collection_layout(tmp_path / "r") == "reuters21578"
