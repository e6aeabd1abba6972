"""Rule 0 (binary data is skipped, never tokenised) and rule 4 (a UTF-8 file with a few stray
bytes stays UTF-8, the bad bytes replaced and located) of hbnlab.corpus.encoding, through the
readers: folder corpora, ZIP uploads and table files."""
from __future__ import annotations

import doctest
import io
import pickle
import struct
import zipfile
import zlib

import numpy as np
import pytest
from corpus_fixtures import zip_bytes
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import hbnlab.corpus.encoding
from hbnlab.corpus import (
    BinaryFileError,
    CorpusError,
    load_upload,
    read_20newsgroups,
    read_folder_per_class,
    read_table,
)
from hbnlab.corpus.encoding import BINARY_REASON, binary_reason, decode_text, encoding_summary, mostly_utf8

RUSSIAN = ("Съешь же ещё этих мягких французских булок, да выпей чаю. Широкая электрификация южных "
           "губерний даст мощный толчок подъёму сельского хозяйства.")
JAPANESE = ("吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所で"
            "ニャーニャー泣いていた事だけは記憶している。")
CHINESE = "天地玄黄，宇宙洪荒。日月盈昃，辰宿列张。寒来暑往，秋收冬藏。闰余成岁，律吕调阳。"
KOREAN = ("동해 물과 백두산이 마르고 닳도록 하느님이 보우하사 우리나라 만세. "
          "무궁화 삼천리 화려 강산 대한 사람 대한으로 길이 보전하세.")
FRENCH = "Müller's café serves crème brûlée to the naïve señor — “quoted” 5 €"


def test_the_docstring_examples_hold():
    result = doctest.testmod(hbnlab.corpus.encoding)
    assert result.attempted > 0 and result.failed == 0


# ----------------------------------------------------------------------------- rule 4: mostly UTF-8
def _tester_csv(n_rows=2000, bad_row=1234):
    """The outside tester's case: a 2,000-row UTF-8 CSV, one cp1252 apostrophe (0x92) in one row."""
    rows = [f"pétrole brut numéro {i} et gaz naturel".encode() for i in range(1, n_rows + 1)]
    rows[bad_row - 1] = b"l" + b"\x92" + "huile de pétrole numéro 1234".encode()
    data = b"text,labels\n" + b"".join(r + (b",energy\n" if i % 2 else b",crude\n") for i, r in enumerate(rows))
    return data, rows


def test_a_utf8_table_with_one_cp1252_apostrophe_stays_utf8_and_lists_the_line(tmp_path):
    data, rows = _tester_csv()
    p = tmp_path / "prices.csv"
    p.write_bytes(data)
    c = read_table(p, test_fraction=0)
    assert c.meta["encodings"] == {"utf-8": 1}
    offset = data.index(b"\x92")
    assert c.meta["replaced_files"] == [{"file": str(p), "encoding": "utf-8", "replaced": 1,
                                         "first": [{"line": 1235, "offset": offset, "bytes": "92"}]}]
    texts = {d.id: d.text for d in c.documents}
    assert texts["1234"] == "l\ufffdhuile de pétrole numéro 1234"        # the row intact around U+FFFD
    assert all(texts[str(i)] == r.decode("utf-8") for i, r in enumerate(rows, 1) if i != 1234)
    assert not any("ﾃ" in t or "Ã" in t for t in texts.values())
    assert f"  {p} (utf-8): 1 sequence: line 1235, byte offset {offset} (92)" in encoding_summary(c.meta)
    # the upload of the same bytes reads the same documents and names the file as uploaded
    u = load_upload(data, "prices.csv", test_fraction=0)
    assert u.fingerprint() == c.fingerprint()
    assert u.meta["replaced_files"][0]["file"] == "prices.csv"


def test_the_bound_of_rule_4_is_5_percent_of_the_non_ascii_bytes():
    valid = "é".encode() * 50                      # 100 non-ASCII bytes, all valid
    filler = b"plain ascii words " * 20                     # ASCII does not count
    assert mostly_utf8(filler + valid + b"\x92" * 5)        # 5 bad of 105 non-ASCII: 4.8 %
    assert not mostly_utf8(filler + valid + b"\x92" * 6)    # 6 bad of 106: 5.7 %
    assert not mostly_utf8(filler)                          # no non-ASCII byte: strict UTF-8's case
    d = decode_text(filler + valid + b"\x92" * 6, "f.txt")
    assert d.encoding != "utf-8"                            # rules 5-7 decide, as before


@pytest.mark.parametrize("text, codec", [
    (FRENCH, "cp1252"), (FRENCH.replace("“", '"').replace("”", '"').replace("€", "E").replace("—", "-"), "latin-1"),
    (RUSSIAN, "cp1251"), (RUSSIAN, "koi8-r"), (RUSSIAN, "cp866"),
    (JAPANESE, "shift_jis"), (JAPANESE, "euc_jp"), (CHINESE, "gbk"), (CHINESE, "gb2312"), (KOREAN, "euc_kr"),
])
def test_legacy_encoded_text_is_never_mostly_utf8_and_decodes_as_before(text, codec):
    for data in (text.encode(codec), text.encode(codec) * 20):
        assert not mostly_utf8(data)
        d = decode_text(data, "f.txt")
        assert d.text == data.decode(codec) and not d.replaced and d.encoding != "utf-8"


_WORDS = ("pétrole", "naïve", "Müller", "prix", "baril", "€", "’", "Ωmega", "漢字", "and", "the", "\n")


@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.sampled_from(_WORDS), min_size=60, max_size=300),
       stray=st.lists(st.integers(0x80, 0xBF), min_size=1, max_size=6), seed=st.integers(0, 2**16))
def test_stray_bytes_become_one_replacement_each_and_nothing_else_changes(words, stray, seed):
    """Metamorphic: inserting k stray continuation bytes (cp1252's 0x80-0x9F marks, latin-1's
    0xA0-0xBF signs) between the characters of a UTF-8 text, within rule 4's bound, gives the
    text back with k U+FFFD at those places, located in order."""
    text = " ".join(words)
    non_ascii = sum(len(ch.encode("utf-8")) for ch in text if ord(ch) > 127)
    assume(len(stray) <= 0.05 * (non_ascii + len(stray)))  # beyond the bound: another rule's case
    rng = np.random.RandomState(seed)
    cuts = sorted(rng.choice(len(text) + 1, size=len(stray), replace=False))
    data, marked, places, prev = b"", "", [], 0
    for cut, b in zip(cuts, stray):
        data += text[prev:cut].encode("utf-8")
        places.append((text.count("\n", 0, cut) + 1, len(data), f"{b:02x}"))
        data += bytes([b])
        marked += text[prev:cut] + "\ufffd"
        prev = cut
    data += text[prev:].encode("utf-8")
    d = decode_text(data, "f.txt")
    assert d.encoding == "utf-8" and d.replaced == len(stray)
    assert d.text == marked + text[prev:]
    assert [tuple(r) for r in d.first_replaced] == places[:3]


# ----------------------------------------------------------------------------- rule 0: binary data
def _zip_member() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("inner.txt", "words inside a nested archive")
    return buf.getvalue()


def _pe() -> bytes:
    header = bytearray(b"MZ" + b"\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + bytes(48))
    header[60:64] = (128).to_bytes(4, "little")
    return bytes(header) + b"This program cannot be run in DOS mode.\r\r\n$" + bytes(128 - 64 - 43) + b"PE\x00\x00" \
        + bytes(200)


_RNG = np.random.RandomState(0)
BINARY = {
    "photo.jpg": (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01" + _RNG.bytes(2000), "a JPEG image"),
    "paper.pdf": (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Length 60 /Filter /FlateDecode >>\nstream\n"
                  + zlib.compress(b"BT /F1 12 Tf (words words words) Tj ET" * 20) + b"\nendstream\nendobj\n",
                  "a PDF document"),
    "prog": (b"\x7fELF\x02\x01\x01\x00" + bytes(8) + b"\x02\x00>\x00" + _RNG.bytes(1000), "an ELF executable"),
    "setup.exe": (_pe(), "a Windows executable"),
    "logo.png": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + _RNG.bytes(500), "a PNG image"),
    "anim.gif": (b"GIF89a\x10\x00\x10\x00" + _RNG.bytes(300), "a GIF image"),
    "inner.zip": (_zip_member(), "a ZIP archive"),
    # NUL-alternating data: random bytes stored in 16 bits (rule 2 reads it as UTF-16-LE),
    # and small counts stored in 16 bits
    "samples.bin": (bytes(b for x in _RNG.bytes(1000) for b in (x, 0)), "C1 control characters"),
    "counts.dat": (struct.pack("<600H", *(i % 40 for i in range(600))), "15 NUL characters (U+0000)"),
    "noise.raw": (_RNG.bytes(4096), "undecodable byte sequences"),         # no magic number at all
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_each_binary_sample_is_named_by_what_gives_it_away(name):
    data, what = BINARY[name]
    reason = binary_reason(data)
    assert reason is not None and what in reason, reason
    with pytest.raises(BinaryFileError) as exc:
        decode_text(data, f"dir/{name}")
    assert str(exc.value) == f"dir/{name}: not a text file: {reason}" and exc.value.file == f"dir/{name}"
    for codec in ("utf-8", "latin-1", "cp1252"):       # a named codec skips it too, never refuses the corpus
        assert binary_reason(data, codec) is not None, codec


@pytest.mark.parametrize("data", [
    FRENCH.encode("utf-8"), FRENCH.encode("cp1252"), FRENCH.encode("utf-16"), FRENCH.encode("utf-16-le"),
    JAPANESE.encode("shift_jis"), JAPANESE.encode("utf-16-le"), CHINESE.encode("utf-16-be"), RUSSIAN.encode("koi8-r"),
    b"From: a@b.c\n\nan old message with a bell \x07 and an \x1b[1mescape\x1b[0m and \x0c a page break\n" * 3,
    b"text words here and there \x81\x00\xff\xfe garbage",     # one stray NUL: damaged text, still text
])
def test_text_is_not_binary(data):
    assert binary_reason(data) is None


def _tree(binary=True) -> dict:
    files = {f"{cls}/{i}.txt": f"{cls} words number {i}, pétrole and café".encode()
             for cls in ("crude", "grain") for i in range(3)}
    if binary:
        for k, (name, (data, _)) in enumerate(sorted(BINARY.items())):
            files[f"{('crude', 'grain')[k % 2]}/{name}"] = data
    return files


def _check_binary_skipped(c, prefix=""):
    texts = _tree(binary=False)
    assert sorted(d.id for d in c.documents) == sorted(texts)
    assert c.meta["encodings"] == {"utf-8": len(texts)}
    skipped = {f["file"]: f["reason"] for f in c.meta["ignored_files"]}
    for k, (name, (_, what)) in enumerate(sorted(BINARY.items())):
        reason = skipped.pop(f"{prefix}{('crude', 'grain')[k % 2]}/{name}")
        assert reason.startswith(BINARY_REASON) and what in reason, (name, reason)
    assert skipped == {}
    lines = encoding_summary(c.meta)
    assert f"{len(BINARY)} files skipped as binary data (not text):" in lines


def test_binary_files_in_a_folder_corpus_are_skipped_and_listed(tmp_path):
    for rel, data in _tree().items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    _check_binary_skipped(read_folder_per_class(tmp_path))
    _check_binary_skipped(read_folder_per_class(tmp_path, encoding="utf-8"))   # a named codec: the same


def test_binary_files_in_a_zip_upload_are_skipped_and_listed():
    c = load_upload(zip_bytes(_tree(), prefix="corpus/"), "corpus.zip")
    _check_binary_skipped(c)


def test_binary_files_among_20_newsgroups_messages_are_skipped(tmp_path):
    root = tmp_path / "20news-18828"
    for group in ("sci.med", "rec.autos"):
        (root / group).mkdir(parents=True)
        (root / group / "1").write_bytes(b"Subject: hello\n\nwords about " + group.encode() + b"\n")
    (root / "sci.med" / "2").write_bytes(BINARY["photo.jpg"][0])
    c = read_20newsgroups(root)
    assert len(c.documents) == 2
    assert [f["file"] for f in c.meta["ignored_files"] if f["reason"].startswith(BINARY_REASON)] == ["sci.med/2"]


@pytest.mark.parametrize("name, fmt", [("paper.pdf", "csv"), ("samples.bin", "jsonl"), ("photo.jpg", "tsv")])
def test_a_binary_table_file_is_refused_naming_it(tmp_path, name, fmt):
    data, what = BINARY[name]
    p = tmp_path / f"data.{fmt}"
    p.write_bytes(data)
    with pytest.raises(BinaryFileError, match=rf"^{p}: not a text file: .*{what}"):
        read_table(p)
    with pytest.raises(CorpusError, match=rf"^data\.{fmt}: not a text file: "):
        load_upload(data, f"data.{fmt}")
    with pytest.raises(CorpusError, match=rf"^u\.zip:data\.{fmt}: not a text file: "):
        load_upload(zip_bytes({f"data.{fmt}": data}), "u.zip")


def test_binary_file_error_survives_pickle():
    e = pickle.loads(pickle.dumps(BinaryFileError("a/b.jpg", "a JPEG image")))
    assert (e.file, e.reason, str(e)) == ("a/b.jpg", "a JPEG image", "a/b.jpg: not a text file: a JPEG image")
