"""Round trips through every reader: a reference corpus written as CSV / TSV / JSONL / Parquet /
ZIP / folders in tmp_path, read back, compared field by field; label separators; seeded splits;
dispatch; uploads."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hbnlab.corpus import (
    CorpusError,
    load_corpus,
    load_upload,
    read_folder_per_class,
    read_table,
    read_zip,
)
from hbnlab.corpus._common import seeded_split

# id, title, text, labels, split -- texts with commas, quotes, tabs, newlines, non-ASCII, emoji
RECORDS = [
    ("d1", "Wheat up", "wheat prices rose, farmers said", ["grain", "wheat"], "train"),
    ("d2", "", 'oil "output" fell\nsharply', ["crude"], "train"),
    ("d3", "Müller", "Zürich bank said\tprofits grew", ["earn"], "train"),
    ("d4", "corn", "corn exports ☃ slowed; analysts see 5% drop", ["grain", "corn"], "train"),
    ("d5", "", "crude stocks rose", ["crude"], "test"),
    ("d6", "Q1", "quarterly earnings beat forecasts", ["earn"], "test"),
    ("d7", "", "wheat and corn harvests", ["grain", "wheat", "corn"], "test"),
]


def _expected(records=RECORDS):
    return [(i, t, x, frozenset(labs), s) for i, t, x, labs, s in records]


def _got(corpus):
    return [(d.id, d.title, d.text, d.labels, d.split) for d in corpus.documents]


def _write_csv(path: Path, delimiter=",", label_sep=";", records=RECORDS, encoding="utf-8"):
    with open(path, "w", newline="", encoding=encoding) as f:
        w = csv.writer(f, delimiter=delimiter)
        w.writerow(["id", "title", "text", "labels", "split"])
        for i, t, x, labs, s in records:
            w.writerow([i, t, x, label_sep.join(labs), s])
    return path


def _write_jsonl(path: Path, records=RECORDS, list_labels=True):
    with open(path, "w", encoding="utf-8") as f:
        for i, t, x, labs, s in records:
            f.write(json.dumps({"id": i, "title": t, "text": x, "labels": labs if list_labels else ",".join(labs),
                                "split": s}, ensure_ascii=False) + "\n")
    return path


def _write_parquet(path: Path, records=RECORDS):
    table = pa.table({"id": [r[0] for r in records], "title": [r[1] for r in records],
                      "text": [r[2] for r in records], "labels": [r[3] for r in records],
                      "split": [r[4] for r in records]})
    pq.write_table(table, path)
    return path


def _write_tree(root: Path, records=RECORDS):
    """Folder-per-class with train/test folders: one file per (document, first label)."""
    for i, _, x, labs, s in records:
        p = root / s / labs[0] / f"{i}.txt"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(x, encoding="utf-8")
    return root


def _zip_dir(root: Path, zpath: Path, prefix=""):
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(root.rglob("*")):
            if p.is_file():
                z.write(p, prefix + p.relative_to(root).as_posix())
    return zpath


KW = dict(id_column="id", title_column="title", split_column="split")


# ------------------------------------------------------------------------- tables
@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "jsonl-str", "parquet"])
def test_table_round_trip(tmp_path, fmt):
    if fmt == "csv":
        path = _write_csv(tmp_path / "c.csv")
    elif fmt == "tsv":
        path = _write_csv(tmp_path / "c.tsv", delimiter="\t", label_sep="|")
    elif fmt == "jsonl":
        path = _write_jsonl(tmp_path / "c.jsonl")
    elif fmt == "jsonl-str":
        path = _write_jsonl(tmp_path / "c.jsonl", list_labels=False)
    else:
        path = _write_parquet(tmp_path / "c.parquet")
    c = read_table(path, **KW)
    assert _got(c) == _expected()
    assert c.name == "c" and not c.synthetic
    assert c.meta["format"] == {"jsonl-str": "jsonl"}.get(fmt, fmt)
    assert c.meta["split"] == "column 'split'"


def test_all_formats_give_the_same_corpus(tmp_path):
    paths = [_write_csv(tmp_path / "a.csv"), _write_csv(tmp_path / "a.tsv", delimiter="\t"),
             _write_jsonl(tmp_path / "a.jsonl"), _write_parquet(tmp_path / "a.parquet")]
    prints = {read_table(p, **KW).fingerprint() for p in paths}
    assert len(prints) == 1


def test_crlf_bom_and_latin1(tmp_path):
    p = tmp_path / "w.csv"
    p.write_bytes("\ufeffid,text,labels\r\nx,\"two\r\nlines\",a\r\ny,more words,b\r\n".encode("utf-8"))
    c = read_table(p, id_column="id", test_fraction=0)
    assert [(d.id, d.text) for d in c.documents] == [("x", "two\r\nlines"), ("y", "more words")]
    p2 = _write_csv(tmp_path / "l.csv", encoding="latin-1",
                    records=[(i, t, x.replace("☃", "*"), labs, sp) for i, t, x, labs, sp in RECORDS])
    with pytest.raises(CorpusError, match="cannot decode as UTF-8"):
        read_table(p2, encoding="utf-8", **KW)
    c2 = read_table(p2, encoding="latin-1", **KW)
    assert c2.documents[2].title == "Müller"
    c3 = read_table(p2, **KW)   # encoding="auto"
    assert c3.fingerprint() == c2.fingerprint() and c3.meta["encodings"] == {"cp1252": 1}


def test_default_ids_are_row_numbers_and_blank_lines_skipped(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("text,labels\nalpha beta,x\n\ngamma,y\n")
    c = read_table(p, test_fraction=0)
    assert [(d.id, d.text, d.split) for d in c.documents] == [("1", "alpha beta", "train"), ("2", "gamma", "train")]


@pytest.mark.parametrize(
    "cells, label_sep, expected",
    [
        (["a,b", "c"], None, [{"a", "b"}, {"c"}]),
        (["a; b", "c"], None, [{"a", "b"}, {"c"}]),
        (["a|b|", "c"], None, [{"a", "b"}, {"c"}]),
        (["a b", " c "], None, [{"a", "b"}, {"c"}]),                    # whitespace fallback
        (["money fx,b", "c"], None, [{"money fx", "b"}, {"c"}]),        # spaces kept inside labels
        (["a b", "c"], "/", [{"a b"}, {"c"}]),
        (["a/b", "c"], "/", [{"a", "b"}, {"c"}]),
        (["a  b", "c"], " ", [{"a", "b"}, {"c"}]),
        (["a,,b", "b"], None, [{"a", "b"}, {"b"}]),                     # empty pieces dropped
    ],
)
def test_label_separator(tmp_path, cells, label_sep, expected):
    p = tmp_path / "l.csv"
    with open(p, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["text", "labels"])
        for k, cell in enumerate(cells):
            w.writerow([f"document number {k}", cell])
    c = read_table(p, label_sep=label_sep, test_fraction=0)
    assert [set(d.labels) for d in c.documents] == expected


def test_seeded_split_is_reproducible(tmp_path):
    recs = [(f"r{k}", "", f"text {k} words", [["a", "b", "c"][k % 3]], "train") for k in range(40)]
    p = _write_csv(tmp_path / "s.csv", records=recs)
    # the file has a split column (all 'train'); split_column="" ignores it
    a = read_table(p, id_column="id", split_column="", test_fraction=0.25, random_state=3)
    b = read_table(p, id_column="id", split_column="", test_fraction=0.25, random_state=3)
    c = read_table(p, id_column="id", split_column="", test_fraction=0.25, random_state=4)
    assert [d.split for d in a.documents] == [d.split for d in b.documents]
    assert [d.split for d in a.documents] != [d.split for d in c.documents]
    assert Counter(d.split for d in a.documents) == {"train": 30, "test": 10}
    assert a.meta["split"] == "seeded" and a.meta["random_state"] == 3 and a.meta["test_fraction"] == 0.25


def test_seeded_split_keeps_a_rare_label_in_training():
    labels = [frozenset({"common"})] * 9 + [frozenset({"rare"})]
    for seed in range(30):
        s = seeded_split(labels, 0.5, seed)
        assert s[9] == "train"                      # the only 'rare' document
        assert (s == "test").sum() in (4, 5)        # 5 drawn, at most one moved back


@given(st.lists(st.sets(st.sampled_from("abcdef"), min_size=1, max_size=3).map(frozenset), min_size=1, max_size=40),
       st.floats(0, 0.9), st.integers(0, 2**16))
@settings(max_examples=150, deadline=None)
def test_seeded_split_properties(label_sets, fraction, seed):
    s = seeded_split(label_sets, fraction, seed)
    assert set(s) <= {"train", "test"} and len(s) == len(label_sets)
    in_train = set().union(*(labs for labs, x in zip(label_sets, s) if x == "train"))
    assert in_train == set().union(*label_sets)                 # every label has a training positive
    assert (s == "test").sum() <= round(len(label_sets) * fraction)
    assert list(seeded_split(label_sets, fraction, seed)) == list(s)


# ------------------------------------------------------------------------- folders
def test_folder_round_trip_with_split_folders(tmp_path):
    root = _write_tree(tmp_path / "news")
    (root / "README").write_text("not a document")
    (root / "train" / "grain" / ".DS_Store").write_bytes(b"\x00\x01")
    (root / "train" / "stray.txt").write_text("not inside a class folder")
    c = read_folder_per_class(root)
    got = {d.id: (d.text, d.labels, d.split) for d in c.documents}
    exp = {f"{s}/{labs[0]}/{i}.txt": (x, frozenset([labs[0]]), s) for i, _, x, labs, s in RECORDS}
    assert got == exp
    assert [d.id for d in c.documents] == sorted(exp)
    assert c.name == "news" and c.meta["ignored_files"] == [
        {"file": "README", "reason": "in the root, not in a class folder"},
        {"file": "train/grain/.DS_Store", "reason": "hidden or system file (.*, __MACOSX, Thumbs.db, desktop.ini)"},
        {"file": "train/stray.txt", "reason": "directly in a split folder, not in a class folder"}]
    assert c.meta["split"] == "folders"


def test_folder_flat_layout_and_seeded_split(tmp_path):
    root = tmp_path / "flat"
    for k in range(12):
        cls = ["sport", "politics", "tech"][k % 3]
        (root / cls).mkdir(parents=True, exist_ok=True)
        (root / cls / f"{k:02d}").write_text(f"story number {k}")
    (root / "tech" / "deeper").mkdir()
    (root / "tech" / "deeper" / "x").write_text("nested file belongs to tech")
    c0 = read_folder_per_class(root)
    assert Counter(d.split for d in c0.documents) == {"train": 13}
    assert {d.id: d.labels for d in c0.documents}["tech/deeper/x"] == frozenset({"tech"})
    c1 = read_folder_per_class(root, test_fraction=0.3, random_state=1)
    assert Counter(d.split for d in c1.documents) == {"train": 9, "test": 4}
    assert c1.fingerprint() == read_folder_per_class(root, test_fraction=0.3, random_state=1).fingerprint()


@pytest.mark.parametrize("train, test", [("train", "test"), ("20news-bydate-train", "20news-bydate-test"),
                                         ("Training", "Testing"), ("my_train", "my_test")])
def test_split_folder_names(tmp_path, train, test):
    for split, d in (("train", train), ("test", test)):
        (tmp_path / d / "c").mkdir(parents=True)
        (tmp_path / d / "c" / "f").write_text(f"{split} words")
    c = read_folder_per_class(tmp_path)
    assert sorted((d.split, d.text) for d in c.documents) == [("test", "test words"), ("train", "train words")]


# ------------------------------------------------------------------------- ZIP
@pytest.mark.parametrize("prefix", ["", "wrapped/", "a/b/"])
def test_zip_with_one_table(tmp_path, prefix):
    (tmp_path / "src").mkdir()
    _write_csv(tmp_path / "src" / "data.csv")
    z = _zip_dir(tmp_path / "src", tmp_path / "c.zip", prefix=prefix)
    c = read_zip(z, **KW)
    assert _got(c) == _expected()
    assert c.name == "data" and c.meta["source"] == f"{z}:{prefix}data.csv"


@pytest.mark.parametrize("prefix", ["", "news/"])
def test_zip_with_a_folder_tree(tmp_path, prefix):
    root = _write_tree(tmp_path / "news")
    z = _zip_dir(root, tmp_path / "n.zip", prefix=prefix)
    from_zip = read_zip(z)
    from_dir = read_folder_per_class(root)
    assert _got(from_zip) == _got(from_dir)
    assert from_zip.fingerprint() == from_dir.fingerprint()


def test_zip_holding_reuters_files(tmp_path, fake_reuters_dir):
    z = _zip_dir(fake_reuters_dir, tmp_path / "r.zip", prefix="reuters21578/")
    from hbnlab.corpus import load_reuters21578

    assert read_zip(z).fingerprint() == load_reuters21578(fake_reuters_dir).fingerprint()


def test_a_zip_entry_of_a_later_zip_version_is_refused_naming_the_file(tmp_path):
    root = _write_tree(tmp_path / "news")
    raw = bytearray(_zip_dir(root, tmp_path / "n.zip").read_bytes())
    at = raw.index(b"PK\x01\x02")          # the first central-directory record: version needed = 6.4
    raw[at + 6:at + 8] = (64).to_bytes(2, "little")
    (tmp_path / "later.zip").write_bytes(bytes(raw))
    with pytest.raises(CorpusError, match=r"later\.zip: not a readable ZIP archive \(zip file version 6\.4\)"):
        read_zip(tmp_path / "later.zip")


def test_zip_table_kwargs_are_checked(tmp_path):
    root = _write_tree(tmp_path / "news")
    z = _zip_dir(root, tmp_path / "n.zip")
    with pytest.raises(TypeError, match="text_column"):
        read_zip(z, text_column="body")


# ------------------------------------------------------------------------- dispatch and uploads
def test_load_corpus_dispatch(tmp_path, fake_reuters_dir):
    csv_path = _write_csv(tmp_path / "a.csv")
    tree = _write_tree(tmp_path / "tree")
    z = _zip_dir(tree, tmp_path / "t.zip")
    assert load_corpus(csv_path, **KW).meta["format"] == "csv"
    assert load_corpus(str(tree)).meta["format"] == "folder-per-class"
    assert load_corpus(z).meta["format"] == "folder-per-class"
    assert load_corpus(fake_reuters_dir).name == "reuters21578-modapte"
    syn = load_corpus("synthetic", n_documents=40, random_state=2)
    assert syn.synthetic and len(syn) == 40
    with pytest.raises(CorpusError, match="no such file or directory"):
        load_corpus(tmp_path / "missing.csv")
    (tmp_path / "x.docx").write_bytes(b"PK")
    with pytest.raises(CorpusError, match=r"x\.docx: unsupported file type '\.docx'"):
        load_corpus(tmp_path / "x.docx")


def test_load_corpus_reuters_by_name_uses_the_cache(tmp_path, fake_reuters_dir):
    # With download_if_missing=False and an empty data_home, the name route must not go online.
    with pytest.raises(CorpusError, match="download_if_missing=False"):
        load_corpus("reuters21578", data_home=tmp_path / "empty", download_if_missing=False)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet", "zip"])
def test_upload_equals_file(tmp_path, fmt):
    writers = {"csv": lambda: _write_csv(tmp_path / "u.csv"),
               "tsv": lambda: _write_csv(tmp_path / "u.tsv", delimiter="\t"),
               "jsonl": lambda: _write_jsonl(tmp_path / "u.jsonl"),
               "parquet": lambda: _write_parquet(tmp_path / "u.parquet")}
    if fmt == "zip":
        (tmp_path / "src").mkdir()
        _write_csv(tmp_path / "src" / "u.csv")
        path = _zip_dir(tmp_path / "src", tmp_path / "u.zip")
    else:
        path = writers[fmt]()
    from_file = load_corpus(path, **KW)
    up = load_upload(path.read_bytes(), f"C:\\Users\\me\\Downloads\\{path.name}", **KW)
    assert _got(up) == _got(from_file) == _expected()
    assert up.meta["source"].startswith(path.name)        # named by the upload, not a temp path


def test_upload_accepts_bytearray_and_rejects_str():
    data = bytearray(b"text,labels\nsome words,a\n")
    assert len(load_upload(data, "x.csv", test_fraction=0)) == 1
    with pytest.raises(TypeError, match="data must be bytes"):
        load_upload("text,labels\n", "x.csv")


def test_core_does_not_import_streamlit():
    code = ("import sys, hbnlab.corpus, hbnlab.corpus.readers, hbnlab.corpus.fetch, hbnlab.corpus.synthetic;"
            "print('streamlit' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_random_state_matches_scikit_learn():
    import numpy as np
    from sklearn.utils import check_random_state as sklearn_check

    from hbnlab.corpus._common import check_random_state

    for seed in (0, 1, 2**31 - 1):
        assert (check_random_state(seed).permutation(30) == sklearn_check(seed).permutation(30)).all()
    g = np.random.default_rng(0)
    assert check_random_state(g) is g
    with pytest.raises(ValueError, match=r"random_state must be None, an int.*got 'seed'"):
        check_random_state("seed")


def test_docstring_examples():
    import doctest

    import hbnlab.corpus.readers
    import hbnlab.corpus.reuters
    import hbnlab.corpus.synthetic

    for module in (hbnlab.corpus.readers, hbnlab.corpus.reuters, hbnlab.corpus.synthetic):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_zip_train_folder_alone_is_not_a_wrapper(tmp_path):
    root = tmp_path / "t"
    for k in range(3):
        (root / "train" / "a").mkdir(parents=True, exist_ok=True)
        (root / "train" / "a" / f"{k}").write_text(f"doc {k} words")
    (root / "train" / "b").mkdir()
    (root / "train" / "b" / "x").write_text("other words")
    c = read_zip(_zip_dir(root, tmp_path / "t.zip", prefix="wrap/"), test_fraction=0.25, random_state=0)
    assert sorted(d.id for d in c.documents) == ["train/a/0", "train/a/1", "train/a/2", "train/b/x"]
    assert Counter(d.split for d in c.documents) == {"train": 3, "test": 1}
