"""The bad-input battery shared by every reader.

Each case is a file (name + bytes) that must be refused with a CorpusError whose message names
the file and the line / row / member / field.  Every case runs twice: from disk through
``load_corpus`` and as an upload through ``load_upload``.  A second battery covers folder trees
on disk.
"""
from __future__ import annotations

import io
import re
import stat
import struct
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hbnlab._validation import HbnlabError
from hbnlab.corpus import CorpusError, load_corpus, load_upload, read_folder_per_class


def _zip(entries: dict, symlinks: dict | None = None, compression=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, data in entries.items():
            z.writestr(zipfile.ZipInfo(name), data, compress_type=compression)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, target)
    return buf.getvalue()


def _parquet(columns: dict) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


def _lying_zip() -> bytes:
    """A ZIP whose headers claim 100 bytes for a 1 MB member (a bomb that lies about its size)."""
    data = bytearray(_zip({"big.csv": b"text,labels\n" + b"a" * 1_000_000 + b",x\n"}))
    data[22:26] = struct.pack("<I", 100)            # local file header: uncompressed size
    cd = data.index(b"PK\x01\x02")
    data[cd + 24 : cd + 28] = struct.pack("<I", 100)  # central directory: uncompressed size
    return bytes(data)


UNDECODABLE = "text,labels\nfine words,a\ncaf\xe9 latin,b\n".encode("latin-1")
UNDECODABLE_AT = UNDECODABLE.index(b"\xe9")
BAD_JSONL = b'{"text": "w", "labels": "a"}\n{"text": "\xff", "labels": "a"}\n'
BAD_JSONL_AT = BAD_JSONL.index(b"\xff")
BOMB = _zip({"big.csv": b"text,labels\n" + b"a" * 5_000_000 + b",x\n"})
assert len(BOMB) < 50_000  # small archive, large content

# (case id, file name, bytes, reader keyword arguments, regexes the message must match)
CASES = [
    # ---- CSV / TSV
    ("empty", "empty.csv", b"", {}, [r"empty\.csv: file is empty"]),
    ("blank", "blank.csv", b" \n\n \n", {}, [r"file is empty"]),
    ("header-only", "header.csv", b"text,labels\n", {}, [r"no documents \(the file has a header but no rows\)"]),
    ("missing-column", "nocol.csv", b"body,labels\nsome words,a\n", {},
     [r"no column 'text' for the text; columns found: \['body', 'labels'\]", r"pass text_column='body'"]),
    ("misnamed-column", "misnamed.csv", b"Text,labels\nsome words,a\n", {},
     [r"no column 'text'", r"columns found: \['Text', 'labels'\]", r"did you mean 'Text'\?"]),
    ("wrong-delimiter", "semi.csv", b"text;labels\nwords;a\n", {},
     [r"columns found: \['text;labels'\]", r"separated by another character"]),
    ("missing-labels-column", "nolab.tsv", b"text\tcats\nwords\ta\n", {"labels_column": "labels"},
     [r"no column 'labels' for the labels", r"columns found: \['text', 'cats'\]",
      r"pass labels_column='cats'"]),
    ("duplicate-header", "duphead.csv", b"text,text,labels\nw,w,a\n", {},
     [r"line 1 of .*duphead\.csv: column 'text' appears twice"]),
    ("undecodable", "undec.csv", UNDECODABLE, {"encoding": "utf-8"},
     [rf"line 3 of .*undec\.csv: cannot decode as UTF-8 at byte offset {UNDECODABLE_AT}",
      r"the file looks like cp1252; pass encoding='auto'"]),
    ("utf16-read-as-latin1", "wide.csv", "text,labels\ncafé,a\n".encode("utf-16"), {"encoding": "latin-1"},
     [r"wide\.csv: the file looks like UTF-16 \(it starts with the byte-order mark ff fe\), not 'latin-1'",
      r"pass encoding='auto'"]),
    ("utf16-no-bom-read-as-utf8", "wide2.csv", "text,labels\ncafé,a\n".encode("utf-16-be"), {"encoding": "utf-8"},
     [r"wide2\.csv: the file looks like UTF-16-BE \(NUL bytes at alternate positions\), not 'utf-8'"]),
    ("unknown-encoding", "enc.csv", b"text,labels\nw,a\n", {"encoding": "no-such-codec"},
     [r"enc\.csv: unknown encoding 'no-such-codec'; pass encoding='auto'"]),
    ("no-letters", "digits.csv", b"text,labels\nwords here,a\nwords,b\n123 456 !,a\n", {},
     [r"line 4 of .*digits\.csv: column 'text' has no letters, so the document has no tokens"]),
    ("empty-text", "emptytext.csv", b"text,labels\n,a\nwords,a\n", {},
     [r"line 2 of .*emptytext\.csv: column 'text' is empty"]),
    ("empty-labels", "emptylab.csv", b"text,labels\nwords,a\nmore words, \n", {},
     [r"line 3 of .*emptylab\.csv: column 'labels' is empty"]),
    ("label-only-in-test", "testonly.csv", b"text,labels,split\nw one,a,train\nw two,a;b,test\n",
     {"split_column": "split"},
     [r"line 3 of .*testonly\.csv: label 'b' has no training documents"]),
    ("duplicate-ids", "dupid.csv", b"id,text,labels\nx,w one,a\ny,w two,a\nx,w three,a\n", {"id_column": "id"},
     [r"dupid\.csv: duplicate id 'x' at line 2 and line 4"]),
    ("empty-id", "emptyid.csv", b"id,text,labels\nx,w one,a\n ,w two,a\n", {"id_column": "id"},
     [r"line 3 of .*emptyid\.csv: column 'id' \(the id\) is empty"]),
    ("bad-split-value", "split.csv", b"text,labels,split\nw,a,train\nw,a,dev\n", {"split_column": "split"},
     [r"line 3 of .*split\.csv: column 'split' is 'dev', expected 'train' or 'test'"]),
    ("no-training-docs", "alltest.csv", b"text,labels,split\nw,a,test\n", {"split_column": "split"},
     [r"alltest\.csv: column 'split' marks no document as 'train'"]),
    ("field-count", "fields.csv", b"text,labels\nw,a\nw,a,extra\n", {},
     [r"line 3 of .*fields\.csv: 3 fields, expected 2"]),
    ("quoted-newline-line-numbers", "multi.csv", b'text,labels\n"two\nlines",a\nw,a,extra\n', {},
     [r"line 4 of .*multi\.csv: 3 fields"]),
    ("mixed-separators", "mixsep.csv", b'text,labels\nw one,"a,b"\nw two,c;d\n', {},
     [r"mixsep\.csv: column 'labels' mixes label separators ',' \(line 2\) and ';' \(line 3\)"]),
    ("over-size-limit", "big.csv", b"text,labels\n" + b"words,a\n" * 10, {"max_bytes": 50},
     [r"big\.csv is 0\.0 MB \(92 bytes\), over the limit max_bytes=50"]),
    # ---- JSONL
    ("invalid-json", "bad.jsonl", b'{"text": "w", "labels": ["a"]}\n{"text": "w2", labels}\n', {},
     [r"line 2 of .*bad\.jsonl: invalid JSON \(.* at column \d+\)"]),
    ("json-not-object", "arr.jsonl", b'["w", "a"]\n', {},
     [r"line 1 of .*arr\.jsonl: expected a JSON object, got list"]),
    ("json-missing-field", "miss.jsonl",
     b'{"text": "w", "labels": "a"}\n\n{"text": "w2"}\n', {},
     [r"line 3 of .*miss\.jsonl: no column 'labels' for the labels; columns found: \['text'\]"]),
    ("json-dict-text", "dict.jsonl", b'{"text": {"a": 1}, "labels": "a"}\n', {},
     [r"line 1 of .*dict\.jsonl: column 'text' is a dict, expected text"]),
    ("json-bool-text", "bool.jsonl", b'{"text": true, "labels": "a"}\n', {},
     [r"line 1 of .*bool\.jsonl: column 'text' is a boolean"]),
    ("json-empty-label-list", "nolab.jsonl", b'{"text": "w", "labels": ["a"]}\n{"text": "w", "labels": []}\n', {},
     [r"line 2 of .*nolab\.jsonl: column 'labels' is empty"]),
    ("json-100k-deep", "deep.jsonl",
     b'{"text": "w", "labels": "a"}\n{"text": "w", "labels": "a", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
     {}, [r"line 2 of .*deep\.jsonl: JSON nested deeper than 16 levels"]),
    ("json-deep-value-after-brackets-in-a-string", "deep2.jsonl",
     b'{"text": "' + b"[" * 30 + b'", "labels": "a"}\n'
     b'{"text": "w", "labels": ' + b"[" * 17 + b'"a"' + b"]" * 17 + b"}\n",
     {}, [r"line 2 of .*deep2\.jsonl: JSON nested deeper than 16 levels"]),
    ("json-over-size-limit", "big.jsonl", b'{"text": "words", "labels": "a"}\n' * 10, {"max_bytes": 100},
     [r"big\.jsonl is 0\.0 MB \(330 bytes\), over the limit max_bytes=100"]),
    ("json-undecodable", "u.jsonl", BAD_JSONL, {"encoding": "utf-8"},
     [rf"line 2 of .*u\.jsonl: cannot decode as UTF-8 at byte offset {BAD_JSONL_AT}"]),
    # ---- Parquet
    ("parquet-missing-column", "p.parquet", _parquet({"body": ["w"], "labels": ["a"]}), {},
     [r"p\.parquet: no column 'text' for the text; columns found: \['body', 'labels'\]"]),
    ("parquet-no-letters", "p2.parquet", _parquet({"text": ["words", "42"], "labels": ["a", "a"]}), {},
     [r"row 2 of .*p2\.parquet: column 'text' has no letters"]),
    ("parquet-null-text", "p3.parquet", _parquet({"text": [None, "w"], "labels": ["a", "a"]}), {},
     [r"row 1 of .*p3\.parquet: column 'text' is empty"]),
    ("parquet-garbage", "g.parquet", b"this is not parquet", {}, [r"g\.parquet: not a readable Parquet file"]),
    ("parquet-empty", "e.parquet", b"", {}, [r"e\.parquet: file is empty"]),
    # ---- ZIP
    ("zip-dotdot", "escape.zip", _zip({"../evil.csv": b"text,labels\nw,a\n"}), {},
     [r"escape\.zip: member '\.\./evil\.csv' has a path escaping the archive root"]),
    ("zip-absolute", "abs.zip", _zip({"/etc/evil.csv": b"text,labels\nw,a\n"}), {},
     [r"abs\.zip: member '/etc/evil\.csv' has a path escaping"]),
    ("zip-nested-dotdot", "nest.zip", _zip({"a/../../evil.csv": b"x"}), {}, [r"member 'a/\.\./\.\./evil\.csv'"]),
    ("zip-drive", "drive.zip", _zip({"C:/evil.csv": b"x"}), {}, [r"member 'C:/evil\.csv' has a path escaping"]),
    ("zip-symlink", "link.zip", _zip({"data.csv": b"text,labels\nw,a\n"}, symlinks={"x.csv": "/etc/passwd"}), {},
     [r"link\.zip: member 'x\.csv' is a symbolic link"]),
    ("zip-bomb", "bomb.zip", BOMB, {"max_bytes": 1_000_000},
     [r"bomb\.zip \(uncompressed\) is 5\.0 MB .*max_bytes=1000000"]),
    ("zip-lying-sizes", "lie.zip", _lying_zip(), {"max_bytes": 10_000},
     [r"lie\.zip: member 'big\.csv' cannot be read|exceeds max_bytes"]),
    ("zip-corrupt", "corrupt.zip", b"PK\x03\x04 definitely not a zip", {},
     [r"corrupt\.zip: not a readable ZIP archive"]),
    ("zip-empty", "none.zip", _zip({}), {}, [r"none\.zip: the archive holds no files"]),
    ("zip-two-tables", "two.zip", _zip({"a.csv": b"text,labels\nw,a\n", "b.csv": b"text,labels\nw,a\n"}), {},
     [r"two\.zip: holds several table files \['a\.csv', 'b\.csv'\]"]),
    ("zip-table-error-names-member", "inner.zip", _zip({"data/t.csv": b"text,labels\nw,a\nw,\n"}), {},
     [r"line 3 of .*inner\.zip:data/t\.csv: column 'labels' is empty"]),
    ("zip-tree-undecodable", "tu.zip", _zip({"train/a/1": b"ok words", "train/b/2": b"line one\nbad \xff"}),
     {"encoding": "utf-8"},
     [r"line 2 of .*tu\.zip:train/b/2: cannot decode as UTF-8 at byte offset 13"]),
    ("zip-tree-no-letters", "tl.zip", _zip({"news/train/a/1": b"ok words", "news/train/a/2": b"1234"}), {},
     [r"tl\.zip:news/train/a/2: the document has no letters"]),
    ("zip-tree-test-only-class", "tt.zip", _zip({"train/a/1": b"ok words", "test/z/2": b"more words"}), {},
     [r"file test/z/2 of .*tt\.zip: label 'z' has no training documents"]),
    ("zip-tree-no-classes", "flat.zip", _zip({"a.txt": b"words", "b.txt": b"words"}), {},
     [r"flat\.zip: no class folders"]),
    ("zip-tree-mixed-split", "mix.zip", _zip({"train/a/1": b"w", "other/b/2": b"w"}), {},
     [r"mix\.zip: has split folders \['train'\] and also other folders \['other'\]"]),
    # ---- anything else
    ("unsupported-type", "doc.docx", b"PK\x03\x04", {}, [r"doc\.docx: unsupported file type '\.docx'"]),
]


@pytest.mark.parametrize("route", ["file", "upload"])
@pytest.mark.parametrize("case_id, filename, data, kw, patterns", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_with_a_precise_message(tmp_path, route, case_id, filename, data, kw, patterns):
    if route == "file":
        path = tmp_path / filename
        path.write_bytes(data)
        with pytest.raises(CorpusError) as exc:
            load_corpus(path, **kw)
    else:
        with pytest.raises(CorpusError) as exc:
            load_upload(data, f"uploads/{filename}", **kw)
    msg = str(exc.value)
    assert filename in msg, msg
    for pat in patterns:
        assert re.search(pat, msg), f"{pat!r} not in {msg!r}"
    if route == "upload":
        assert "uploads/" not in msg and str(tmp_path) not in msg   # named by the upload's file name


def test_corpus_error_is_an_hbnlab_error_and_a_value_error():
    assert issubclass(CorpusError, HbnlabError) and issubclass(CorpusError, ValueError)


def test_upload_size_limit_is_checked_before_parsing():
    with pytest.raises(CorpusError, match=r"x\.zip is .*over the limit max_bytes=10"):
        load_upload(b"not even a zip, but too long anyway", "x.zip", max_bytes=10)


def test_bad_parameters_are_value_errors(tmp_path):
    p = tmp_path / "ok.csv"
    p.write_text("text,labels\nwords,a\n")
    with pytest.raises(ValueError, match=r"test_fraction must be a number in \[0, 1\), got 1\.5"):
        load_corpus(p, test_fraction=1.5)
    with pytest.raises(ValueError, match=r"max_bytes must be a positive number of bytes or None, got -1"):
        load_corpus(p, max_bytes=-1)
    with pytest.raises(ValueError, match=r"label_sep must be a non-empty string or None"):
        load_corpus(p, label_sep="")


# ------------------------------------------------------------------------- folder trees on disk
FOLDER_CASES = [
    ("undecodable", {"a/1.txt": b"fine", "b/2.txt": b"ok\nok\n\xfe"}, {"encoding": "utf-8"},
     [r"line 3 of .*/b/2\.txt: cannot decode as UTF-8 at byte offset 6"]),
    ("no-letters", {"a/1.txt": b"fine", "a/2.txt": b"  \n"}, {}, [r"/a/2\.txt: the document is empty"]),
    ("test-only-class", {"train/a/1": b"fine", "test/a/2": b"fine", "test/q/3": b"fine"}, {},
     [r"file test/q/3 of .*: label 'q' has no training documents"]),
    ("no-class-folders", {"README": b"just a file"}, {}, [r": no class folders"]),
    ("test-without-train", {"test/a/1": b"fine"}, {}, [r"has a test folder but no train folder"]),
    ("two-train-folders", {"train/a/1": b"w", "training/a/2": b"w"}, {},
     [r"several train folders \['train', 'training'\]"]),
    ("empty-class-folders", {"a/.hidden": b"w"}, {}, [r"no class folders|hold no document files"]),
    ("too-big", {"a/1.txt": b"x" * 100, "b/2.txt": b"y" * 100}, {"max_bytes": 150},
     [r"\(total of its files\) is 0\.0 MB \(200 bytes\), over the limit max_bytes=150"]),
]


@pytest.mark.parametrize("case_id, tree, kw, patterns", FOLDER_CASES, ids=[c[0] for c in FOLDER_CASES])
def test_bad_folder_is_refused(tmp_path, case_id, tree, kw, patterns):
    root = tmp_path / "corpus"
    root.mkdir()
    for rel, data in tree.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    with pytest.raises(CorpusError) as exc:
        read_folder_per_class(root, **kw)
    msg = str(exc.value)
    assert str(root) in msg, msg
    for pat in patterns:
        assert re.search(pat, msg), f"{pat!r} not in {msg!r}"


def test_folder_not_a_directory(tmp_path):
    with pytest.raises(CorpusError, match=r"nope: not a directory"):
        read_folder_per_class(tmp_path / "nope")
