"""Binary data is judged by what text never holds -- NUL bytes, C1 control characters, bytes no
code page decodes, control characters of every kind --, and the reason names what was found
(issue 37, item 10: a 680-byte English post whose signature box is drawn in 50 ``\\x02`` bytes
was skipped as "control characters such as NUL")."""
from __future__ import annotations

import io
import re
import struct
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hbnlab.corpus import BinaryFileError, CorpusError, load_upload
from hbnlab.corpus.encoding import BINARY_REASON, binary_reason, decode_text

_BODY = ("From: jc@andrew.cmu.edu (Joe Carter)\nSubject: Re: clutch slipping in third gear\n"
         "Organization: Carnegie Mellon, Pittsburgh, PA\nLines: 14\n\n"
         "The clutch on my car started slipping last week, mostly in third gear\n"
         "when I accelerate uphill.  The dealer says the whole assembly must go,\n"
         "but a friend thinks the cable only needs adjusting.  Has anyone seen\n"
         "this before, and is the cable worth a try first?  The car is a 1987\n"
         "hatchback with about ninety thousand miles on it, driven gently.\n"
         "I would rather not pay for a new clutch if the old one can be saved.\n\n"
         "Thanks in advance for any advice you have!!!\n\n")


def _post(body: str = _BODY, codec: str = "ascii", glyphs: bytes = b"\x02") -> bytes:
    """The issue's post: English text whose signature box is drawn in 50 control bytes (the
    CP437 glyphs a DOS newsreader showed as faces, hearts and arrows)."""
    box = (glyphs * 24)[:24]
    return (body.encode(codec) + box + b"\n" + glyphs[:1] + b" Joe Carter  jc@andrew.cmu.edu " + glyphs[:1]
            + b"\n" + box + b"\n")


def test_the_issue_post_is_680_bytes_with_50_control_bytes():
    post = _post()
    assert (len(post), post.count(b"\x02")) == (680, 50)


@pytest.mark.parametrize("post", [
    _post(), _post(glyphs=b"\x01\x02\x03\x04\x05\x06"),
    _post(_BODY.replace("adjusting", "réglage"), "cp1252"), _post(_BODY.replace("adjusting", "réglage"), "utf-8"),
    _post(_BODY.replace("\n", "\r\n")),
], ids=["stx-box", "card-suits", "cp1252", "utf-8", "crlf"])
def test_a_post_with_a_box_of_control_glyphs_is_text(post):
    assert binary_reason(post) is None
    decoded = decode_text(post, "rec.autos/1")
    assert decoded.encoding in ("utf-8", "cp1252") and "clutch slipping" in decoded.text
    if b"r\xe9glage" in post or "réglage".encode() in post:
        assert "réglage" in decoded.text


def test_the_post_in_a_zip_upload_is_a_document():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("rec.autos/1", _post())
        zf.writestr("sci.med/1", b"Aspirin helps some patients with a migraine.\n")
    corpus = load_upload(buf.getvalue(), "news.zip")
    assert sorted(d.id for d in corpus.documents) == ["rec.autos/1", "sci.med/1"]
    assert not [f for f in corpus.meta["ignored_files"] if f["reason"].startswith(BINARY_REASON)]


def _count(pattern: str, reason: str) -> int:
    m = re.search(rf"(\d+) {pattern}", reason)
    assert m, (pattern, reason)
    return int(m[1])


def test_reasons_name_the_characters_found_with_their_counts():
    rng = np.random.RandomState(0)
    noise = rng.bytes(4096)
    reason = binary_reason(noise)
    assert _count("NUL bytes", reason) == noise.count(0)
    assert "undecodable" in reason and "control characters such as NUL" not in reason

    wide = bytes(b for x in rng.bytes(1000) for b in (x, 0))      # random bytes stored in 16 bits
    reason = binary_reason(wide)
    assert _count(r"C1 control characters \(U\+0080-U\+009F\)", reason) == sum(0x80 <= b < 0xA0 for b in wide[::2])

    counts = struct.pack("<600H", *(i % 40 for i in range(600)))  # small integers stored in 16 bits
    assert _count(r"NUL characters \(U\+0000\)", binary_reason(counts)) == 15


def test_control_characters_alone_are_named_as_such():
    """Data of small integers without a NUL: control characters of every kind, named by kind."""
    data = bytes(range(1, 32)) * 20
    reason = binary_reason(data)
    assert reason is not None and "NUL" not in reason
    assert re.search(r"\d+ control characters of \d+ kinds", reason), reason


def test_a_few_stray_nuls_in_text_are_damage_not_binary():
    text = b"A message with one stray NUL \x00 here, all else readable.\n"
    assert binary_reason(text) is None
    assert binary_reason(text.replace(b"one", b"two \x00")) is None
    long = text + _BODY.encode() * 30 + text + text    # 3 NULs in 20 KB
    assert binary_reason(long) is None


def test_a_named_codec_skips_binary_data_and_still_refuses_text_it_cannot_decode():
    noise = np.random.RandomState(1).bytes(4096)
    for codec in ("utf-8", "cp1252", "latin-1"):
        with pytest.raises(BinaryFileError):
            decode_text(noise, "x.bin", codec)
    russian = ("Съешь же ещё этих мягких французских булок, да выпей чаю. " * 10).encode("cp1251")
    with pytest.raises(CorpusError, match="cannot decode as UTF-8") as exc:
        decode_text(russian, "ru.txt", "utf-8")
    assert not isinstance(exc.value, BinaryFileError)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"text ", "caf\u00e9 ".encode(), "\u2014".encode(), b"\x02", b"\x00", b"\x81",
                                 b"\x92", b"\xe9", b"\x1b", b"\x07", "\u0085".encode(), b"\n"]), max_size=60))
def test_the_byte_shortcut_gives_the_reason_of_the_full_scan(pieces):
    """Oracle: a reading judged from its bytes (no scan when no byte can make a control
    character) and from its characters alone agree."""
    from hbnlab.corpus.encoding import _detect, _not_text_reason

    data = b"".join(pieces)
    decoded = _detect(data)
    assert _not_text_reason(decoded, data) == _not_text_reason(decoded)
