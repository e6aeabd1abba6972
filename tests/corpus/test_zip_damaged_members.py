"""Damaged ZIP data is a CorpusError naming the archive and the member, never the decompressor's
own exception (issue 37, item 7: ``zlib.error`` and ``lzma.LZMAError`` escaped the readers)."""
from __future__ import annotations

import io
import random
import struct
import zipfile

import pytest

from hbnlab.corpus import CorpusError, load_upload

_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)


def _archive() -> bytes:
    """Eight documents in two class folders, two members per compression method."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for i in range(8):
            text = " ".join(f"wheat grain oil price {i} {k}" for k in range(30))
            zf.writestr(zipfile.ZipInfo(f"c{i % 2}/d{i}.txt"), text.encode(), compress_type=_METHODS[i % 4])
    return buf.getvalue()


def _member_data_offset(data: bytes, name: str) -> int:
    """Where the compressed bytes of member ``name`` start (after its local header)."""
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(name)
    name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
    return info.header_offset + 30 + name_len + extra_len


@pytest.mark.parametrize("member, method", [("c1/d1.txt", "deflate"), ("c1/d3.txt", "lzma"),
                                            ("c0/d2.txt", "bzip2")])
def test_a_damaged_member_is_named(member, method):
    data = bytearray(_archive())
    at = _member_data_offset(bytes(data), member)
    data[at + 8:at + 40] = bytes(range(32))          # the compressed stream's start overwritten
    with pytest.raises(CorpusError, match=rf"^news\.zip: member {member!r} cannot be read \("):
        load_upload(bytes(data), "news.zip")


@pytest.mark.parametrize("seed", range(4))
def test_fuzzed_archives_raise_only_corpus_errors(seed):
    """Seeded byte flips anywhere in a small archive of every compression method: a load either
    succeeds or raises CorpusError (a subclass included); nothing else escapes."""
    base = _archive()
    rng = random.Random(seed)
    refused = 0
    for _ in range(100):
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        try:
            load_upload(bytes(data), "fuzz.zip")
        except CorpusError as exc:
            refused += 1
            assert str(exc).startswith("fuzz.zip"), exc
    assert refused > 0
