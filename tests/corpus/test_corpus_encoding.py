"""Decoding of corpus files: each rule of ``encoding="auto"`` (hbnlab.corpus.encoding), a named
codec's errors, and the encoding report every reader puts in ``Corpus.meta``."""
from __future__ import annotations

import codecs
import json

import pytest
from corpus_fixtures import corpus_files, make_folder_corpus, make_zip_corpus, zip_bytes

from hbnlab.corpus import CorpusError, load_corpus, load_upload, read_20newsgroups, read_folder_per_class
from hbnlab.corpus.encoding import decode_text, encoding_summary, plausible_cp1252

TEXT = "Müller's café serves crème brûlée to the naïve señor"
RUSSIAN = ("Съешь же ещё этих мягких французских булок, да выпей чаю. Широкая электрификация южных "
           "губерний даст мощный толчок подъёму сельского хозяйства.")


# ----------------------------------------------------------------------------- the auto rules
@pytest.mark.parametrize("mark, codec, name", [
    (codecs.BOM_UTF8, "utf-8", "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16"),
    (codecs.BOM_UTF32_LE, "utf-32-le", "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "utf-32"),
])
def test_a_byte_order_mark_decides_and_is_dropped(mark, codec, name):
    d = decode_text(mark + TEXT.encode(codec), "f.txt")
    assert (d.text, d.encoding, d.replaced) == (TEXT, name, False)


def test_a_marked_file_with_a_broken_last_character_is_replaced_not_guessed():
    data = "€ price".encode("utf-16") + b"\x00"          # odd length: a truncated code unit
    d = decode_text(data, "f.txt")
    assert d.encoding == "utf-16" and d.replaced and d.text.startswith("€ price")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_without_a_mark_are_found_by_their_nul_bytes(codec):
    d = decode_text(TEXT.encode(codec), "f.txt")
    assert (d.text, d.encoding, d.replaced) == (TEXT, codec, False)


def test_utf16_pattern_needs_mostly_latin_text():
    # Greek in UTF-16-LE: no NUL byte at all, so rule 2 does not apply; the file is not valid
    # UTF-8 either, so it reaches the later rules (and is not mistaken for UTF-16-LE)
    data = "αβγδεζ".encode("utf-16-le")
    assert b"\x00" not in data
    assert decode_text(data, "f.txt").encoding != "utf-16-le"


def test_strict_utf8_comes_before_every_8bit_guess():
    d = decode_text(TEXT.encode("utf-8"), "f.txt")
    assert (d.text, d.encoding, d.replaced) == (TEXT, "utf-8", False)
    assert decode_text(b"plain ascii", "f.txt").encoding == "utf-8"


@pytest.mark.parametrize("codec", ["latin-1", "cp1252"])
def test_latin1_and_cp1252_text_reads_as_cp1252(codec):
    text = TEXT + (" — “quoted” 5 €" if codec == "cp1252" else "")
    d = decode_text(text.encode(codec), "f.txt")
    assert (d.text, d.encoding, d.replaced) == (text, "cp1252", False)


MESSAGE = (b"From: someone@site.edu\nSubject: Re: engines\n\nI think the caf\xe9 on the corner has the best "
           b"engines in town, and the price is fair.\n") * 3


@pytest.mark.parametrize("stray, codec", [(b"\x1b[1m", "cp1252"), (b"\x07", "cp1252"), (b"\x81", "latin-1"),
                                          (b"\x9d\x90", "latin-1")])
def test_a_western_text_with_one_stray_byte_is_not_sent_to_the_detector(stray, codec, monkeypatch):
    from hbnlab.corpus import encoding

    def no_detector(data):
        raise AssertionError("the detector was asked")

    monkeypatch.setattr(encoding, "_guess", no_detector)
    d = decode_text(MESSAGE + stray + b" end\n", "f.txt")
    assert d.encoding == codec and not d.replaced
    assert d.text == (MESSAGE + stray + b" end\n").decode(codec)
    assert "café" in d.text


def test_plausible_cp1252_rule():
    western = TEXT.encode("cp1252")
    assert plausible_cp1252(western.decode("cp1252"), western)
    cyrillic = RUSSIAN.encode("cp1251")   # decodes as cp1252, but almost every letter is non-ASCII
    assert not plausible_cp1252(cyrillic.decode("cp1252"), cyrillic)
    control = b"text with bells \x07\x07 in it and enough letters to count"   # 2 controls in 55 characters
    assert not plausible_cp1252(control.decode("cp1252"), control)
    assert plausible_cp1252(MESSAGE.decode("cp1252") + "\x07", MESSAGE + b"\x07")   # 1 in 340
    typographic = "“Quoted” text — with a dash… and 5 € in enough letters".encode("cp1252")
    assert plausible_cp1252(typographic.decode("cp1252"), typographic)
    boxes = ("menu " + "\u2554\u2550\u2550\u2557 \u2551 item \u2551 " * 6).encode("cp437")  # box drawing
    assert not plausible_cp1252(boxes.decode("cp1252"), boxes)
    short = "été".encode("cp1252")        # under 20 letters: only the control-character test applies
    assert plausible_cp1252(short.decode("cp1252"), short)


@pytest.mark.parametrize("codec", ["cp1251", "koi8-r"])
def test_the_detector_reads_what_cp1252_would_garble(codec):
    d = decode_text(RUSSIAN.encode(codec), "f.txt")
    assert (d.text, d.encoding, d.replaced) == (RUSSIAN, codec, False)


def test_undetectable_bytes_fall_back_to_cp1252_with_replacement_characters(monkeypatch):
    from hbnlab.corpus import encoding

    monkeypatch.setattr(encoding, "_guess", lambda data: None)      # the detector has no answer
    d = decode_text(b"caf\xe9 \x81 bytes \x8d", "f.txt")           # 0x81, 0x8D: undefined in cp1252
    assert d.encoding == "cp1252" and d.replaced
    assert d.text == "café \ufffd bytes \ufffd"


# ----------------------------------------------------------------------------- a named codec
def test_a_named_codec_decodes_strictly_and_names_file_line_and_offset():
    data = "first line\nsecond: café".encode("latin-1")
    assert decode_text(data, "f.txt", "latin-1").text == "first line\nsecond: café"
    with pytest.raises(CorpusError) as exc:
        decode_text(data, "dir/f.txt", "utf-8")
    e = exc.value
    offset = data.index(b"\xe9")
    assert f"line 2 of dir/f.txt: cannot decode as UTF-8 at byte offset {offset}" in str(e)
    assert "the file looks like cp1252" in str(e)
    assert (e.parameter, e.suggestion) == ("encoding", "auto")


def test_named_utf8_drops_a_mark():
    assert decode_text(codecs.BOM_UTF8 + b"abc", "f.txt", "utf-8").text == "abc"


def test_a_utf16_file_read_with_another_codec_says_it_looks_like_utf16():
    for data, looks in (("text,labels\ncafé,a\n".encode("utf-16"), "UTF-16 (it starts with the byte-order mark ff fe)"),
                        ("text,labels\ncafé,a\n".encode("utf-16-le"), "UTF-16-LE (NUL bytes at alternate positions)")):
        for wrong in ("utf-8", "latin-1", "cp1252"):
            with pytest.raises(CorpusError) as exc:
                decode_text(data, "t.csv", wrong)
            assert f"t.csv: the file looks like {looks}, not {wrong!r}" in str(exc.value)
        assert decode_text(data, "t.csv", "utf-16" if data[:2] == codecs.BOM_UTF16_LE else "utf-16-le").text \
            == "text,labels\ncafé,a\n"


def test_a_utf8_file_read_as_utf16_says_it_looks_like_utf8():
    for data, evidence in ((TEXT.encode("utf-8"), "no byte-order mark, no NUL bytes, valid UTF-8"),
                           (codecs.BOM_UTF8 + TEXT.encode("utf-8"), "it starts with the byte-order mark ef bb bf")):
        for wrong in ("utf-16", "utf-32-le"):
            with pytest.raises(CorpusError, match=rf"t\.csv: the file looks like UTF-8 \({evidence}\), not '{wrong}'"):
                decode_text(data, "t.csv", wrong)
    # CJK in UTF-16 without a mark has no NUL byte either, but is not valid UTF-8: decoded as asked
    cjk = "漢字かな交じり文".encode("utf-16-le")
    assert decode_text(cjk, "t.csv", "utf-16-le").text == "漢字かな交じり文"


def test_corpus_error_advice_for_each_frontend():
    with pytest.raises(CorpusError) as exc:
        decode_text(b"caf\xe9", "f.txt", "utf-8")
    e = exc.value
    assert str(e).endswith("; pass encoding='auto'")
    assert e.advise("rerun with {option} {suggestion}").endswith("; rerun with --encoding auto")
    plain = CorpusError("f.txt: no documents")
    assert str(plain) == "f.txt: no documents" and plain.advise("rerun with {option}") == "f.txt: no documents"


def test_corpus_error_keeps_its_advice_through_pickle():
    import pickle

    e = pickle.loads(pickle.dumps(CorpusError("f.txt: bad", "encoding", "auto")))
    assert (e.message, e.parameter, e.suggestion) == ("f.txt: bad", "encoding", "auto")


# ----------------------------------------------------------------------------- readers and meta
def _check_against(corpus, gen):
    got = {d.id: d for d in corpus.documents}
    assert set(got) == set(gen.documents)
    for doc_id, want in gen.documents.items():
        d = got[doc_id]
        assert (d.text, d.labels, d.split) == (want["text"], want["labels"], want["split"]), doc_id


def test_folder_fixture_reads_every_encoding(folder_corpus):
    c = read_folder_per_class(folder_corpus.root)
    _check_against(c, folder_corpus)
    # latin-1 and cp1252 files are both reported as cp1252 (the module docstring's rule 4)
    written = folder_corpus.encoding_counts()
    assert c.meta["encodings"] == {"cp1252": written["latin-1"] + written["cp1252"], "utf-8": written["utf-8"],
                                   "utf-16": written["utf-16"]}
    assert c.meta["replaced_files"] == []
    json.dumps(c.meta)
    assert encoding_summary(c.meta)[0] == (f"encodings: {len(folder_corpus.files)} files -- cp1252 16, utf-16 8, "
                                           f"utf-8 8")


def test_folder_fixture_multi_label_copies_become_one_document(tmp_path):
    gen = make_folder_corpus(tmp_path / "ml", n_classes=5, docs_per_class=6, multi_label=True)
    c = read_folder_per_class(gen.root)
    _check_against(c, gen)
    multi = {d.id for d in c.documents if len(d.labels) > 1}
    assert multi and len(c.documents) < len(gen.files)
    assert c.meta["merged_copies"] == {i: gen.documents[i]["paths"][1:] for i in sorted(multi)}


def test_same_name_different_text_stays_two_documents(tmp_path):
    for cls, text in (("a", "alpha words"), ("b", "beta words")):
        (tmp_path / cls).mkdir()
        (tmp_path / cls / "1.txt").write_text(text)
    c = read_folder_per_class(tmp_path)
    assert sorted((d.id, tuple(d.labels)) for d in c.documents) == [("a/1.txt", ("a",)), ("b/1.txt", ("b",))]


def test_an_explicit_codec_applies_to_every_file_and_names_the_bad_one(folder_corpus):
    with pytest.raises(CorpusError, match=r"fixture/(train|test)/class\d\d/\d+: .*(cannot decode as UTF-8|looks like)"):
        read_folder_per_class(folder_corpus.root, encoding="utf-8")


def test_a_replaced_file_is_listed_in_the_meta(tmp_path, monkeypatch):
    from hbnlab.corpus import encoding

    monkeypatch.setattr(encoding, "_guess", lambda data: None)
    for cls, data in (("a", b"fine words"), ("b", b"odd \x81 byte words")):
        (tmp_path / "train" / cls).mkdir(parents=True)
        (tmp_path / "train" / cls / "1").write_bytes(data)
    c = read_folder_per_class(tmp_path)
    assert c.meta["replaced_files"] == [{"file": "train/b/1", "encoding": "cp1252", "replaced": 1,
                                         "first": [{"line": 1, "offset": 4, "bytes": "81"}]}]
    assert c.meta["encodings"] == {"cp1252": 1, "utf-8": 1}
    assert "  train/b/1 (cp1252): 1 sequence: line 1, byte offset 4 (81)" in encoding_summary(c.meta)


def test_zip_fixture_upload_and_file_agree(tmp_path):
    gen = make_zip_corpus(tmp_path / "news.zip", n_classes=3, docs_per_class=4)
    a = load_corpus(tmp_path / "news.zip")
    b = load_upload((tmp_path / "news.zip").read_bytes(), "news.zip")
    _check_against(a, gen)
    assert a.fingerprint() == b.fingerprint() and a.meta["encodings"] == b.meta["encodings"]
    assert sum(a.meta["encodings"].values()) == len(gen.files)


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
@pytest.mark.parametrize("codec", ["utf-8", "cp1252", "utf-16", "utf-16-be"])
def test_tables_in_any_encoding(tmp_path, fmt, codec):
    rows = [("Müller café report", "a"), ("naïve señor “quoted” crème", "b"), ("more words here", "a")]
    if fmt == "csv":
        body = "text,labels\n" + "".join(f"{t},{lab}\n" for t, lab in rows)
    else:
        body = "".join(json.dumps({"text": t, "labels": lab}, ensure_ascii=False) + "\n" for t, lab in rows)
    data = body.encode(codec)
    p = tmp_path / f"t.{fmt}"
    p.write_bytes(data)
    c = load_corpus(p, test_fraction=0)
    assert [d.text for d in c.documents] == [t for t, _ in rows]
    want = {"utf-16": "utf-16", "utf-16-be": "utf-16-be", "cp1252": "cp1252", "utf-8": "utf-8"}[codec]
    assert c.meta["encodings"] == {want: 1} and c.meta["replaced_files"] == []
    u = load_upload(data, f"t.{fmt}", test_fraction=0)
    assert u.fingerprint() == c.fingerprint()


def test_collection_readers_take_an_encoding(tmp_path):
    gen = corpus_files(n_classes=2, docs_per_class=4, encodings=("utf-8", "cp1252"))
    root = tmp_path / "20news-bydate"
    for rel, data in gen.files.items():
        split, cls, name = rel.split("/")
        p = root / f"20news-bydate-{split}" / cls / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"Subject: hello\n\n" + data)
    c = read_20newsgroups(root)
    assert c.meta["encodings"] == {"cp1252": 4, "utf-8": 4} and c.meta["replaced_files"] == []
    with pytest.raises(CorpusError, match=r"cannot decode as UTF-8 at byte offset \d+"):
        read_20newsgroups(root, encoding="utf-8")


def test_reuters_is_latin1_and_refuses_another_encoding(fake_reuters_dir):
    c = load_corpus(fake_reuters_dir, encoding="auto")
    assert c.meta["encodings"] == {"latin-1": 22} and c.meta["replaced_files"] == []
    assert load_corpus(fake_reuters_dir, encoding="latin-1").fingerprint() == c.fingerprint()
    with pytest.raises(CorpusError, match=r"Reuters-21578 is read as latin-1 .* encoding 'utf-8' does not apply"):
        load_corpus(fake_reuters_dir, encoding="utf-8")


def test_nothing_in_a_zip_is_dropped_silently():
    gen = corpus_files(n_classes=2, docs_per_class=2)
    data = zip_bytes({**gen.files, "__MACOSX/train/._x": b"\x00", "train/.DS_Store": b"\x00", "README": b"notes"},
                     prefix="")
    c = load_upload(data, "c.zip")
    assert len(c) == len(gen.documents)
    assert [(d["file"], d["reason"].split(" (")[0]) for d in c.meta["ignored_files"]] == [
        ("README", "in the root, not in a class folder"), ("__MACOSX/train/._x", "hidden or system file"),
        ("train/.DS_Store", "hidden or system file")]


RUSSIAN_LINE = "Съешь же ещё этих мягких французских булок, да выпей чаю. Широкая электрификация.\n"


def _russian_file(n_bytes: int) -> bytes:
    line = RUSSIAN_LINE.encode("cp1251")
    return line * (n_bytes // len(line))


def test_a_large_file_is_guessed_from_a_sample_and_decoded_whole():
    from hbnlab.corpus.encoding import GUESS_SAMPLE_BYTES, decode_text, guess_sample

    data = _russian_file(3 * GUESS_SAMPLE_BYTES)
    sample = guess_sample(data)
    assert 0.9 * GUESS_SAMPLE_BYTES < len(sample) <= GUESS_SAMPLE_BYTES
    assert sample.decode("cp1251").count("\n") == sample.count(b"\n")  # whole lines only
    assert set(sample.decode("cp1251").splitlines()) == {RUSSIAN_LINE.rstrip("\n")}
    d = decode_text(data, "big.txt")
    assert d.encoding == "cp1251" and d.replaced == 0 and d.text == data.decode("cp1251")


def test_rule_6_holds_no_more_memory_than_pythons_own_decode_of_the_file():
    """The detector sees a sample and the cp1252 trial text is let go before it runs: the peak of
    decode_text on a 24 MB cp1251 file stays within a quarter of the file of what bytes.decode
    itself takes (three times the file: two bytes a Cyrillic character, the codec's over-allocation);
    it was seven times the file."""
    import tracemalloc

    from hbnlab.corpus.encoding import decode_text

    data = _russian_file(24 * 2**20)
    tracemalloc.start()
    try:
        data.decode("cp1251")
        floor = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        decode_text(data, "big.txt")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= floor + len(data) // 4, (peak / len(data), floor / len(data))


def test_a_byte_the_sample_missed_sends_the_whole_file_to_the_detector(monkeypatch):
    """A byte cp1251 cannot decode (0x98), placed between two pieces of the sample: the sample's
    guess fails on the whole file, so the detector is asked about the whole file (as for a small
    file) and its answer is what the file gets."""
    from charset_normalizer import from_bytes

    from hbnlab.corpus import encoding as E

    data = bytearray(_russian_file(3 * E.GUESS_SAMPLE_BYTES))
    step = len(data) // E.GUESS_PIECES
    at = data.find(b"\n", step + step // 2) - 5
    data[at] = 0x98
    data = bytes(data)
    sample = E.guess_sample(data)
    assert b"\x98" not in sample and from_bytes(sample).best().encoding == "cp1251"
    shown = []
    real = from_bytes
    import charset_normalizer

    monkeypatch.setattr(charset_normalizer, "from_bytes", lambda b: shown.append(len(b)) or real(b))
    d = E.decode_text(data, "big.txt")
    assert shown == [len(sample), len(data)]
    whole = real(data).best()
    want = E._decode_replacing(data, "cp1252") if whole is None else None
    if whole is not None:
        try:
            assert d.text == data.decode(whole.encoding)
        except UnicodeDecodeError:
            want = E._decode_replacing(data, "cp1252")
    if want is not None:
        assert (d.text, d.encoding) == (want.text, want.encoding)
