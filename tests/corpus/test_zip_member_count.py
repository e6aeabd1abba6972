"""A ZIP with too many members is refused from its end record and the fixed headers of its
central directory, before ``zipfile.ZipFile`` builds one object per member (issue 30, item 9)."""
from __future__ import annotations

import io
import struct
import zipfile

import pytest

from hbnlab.corpus import CorpusError, load_upload, read_zip
from hbnlab.corpus import readers as R
from hbnlab.corpus.zipcount import declared_zip_entries

EOCD = b"PK\x05\x06"


def _zip(n: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for i in range(n):
            zf.writestr(f"c{i % 2}/d{i}.txt", f"wheat grain {i}")
    return buf.getvalue()


def _with_total(data: bytes, total: int) -> bytes:
    """``data`` with the total-entries (and this-disk entries) fields of its end record set to ``total``."""
    pos = data.rindex(EOCD)
    return data[:pos + 8] + struct.pack("<HH", total, total) + data[pos + 12:]


def _as_zip64(data: bytes, total: int) -> bytes:
    """``data`` with a ZIP64 end record and locator declaring ``total`` members, and the classic
    end record's fields set to their "see ZIP64" values."""
    pos = data.rindex(EOCD)
    cd_size, cd_offset = struct.unpack_from("<II", data, pos + 12)
    body = data[:pos]
    rec = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, total, total, cd_size, cd_offset)
    loc = struct.pack("<4sIQI", b"PK\x06\x07", 0, len(body), 1)
    end = struct.pack("<4sHHHHIIH", EOCD, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return body + rec + loc + end


def _forbid_zipfile(monkeypatch) -> None:
    """From here on ``zipfile.ZipFile`` fails the test if anything constructs it."""
    def refuse(*a, **k):
        raise AssertionError("zipfile.ZipFile was constructed before the member-count refusal")

    monkeypatch.setattr(zipfile, "ZipFile", refuse)


def test_end_record_count_refused_before_zipfile_parses(tmp_path, monkeypatch):
    monkeypatch.setattr(R, "MAX_ZIP_MEMBERS", 1000)
    path = tmp_path / "many.zip"
    path.write_bytes(_with_total(_zip(3), 65535))
    _forbid_zipfile(monkeypatch)
    with pytest.raises(CorpusError, match=r"many\.zip: the ZIP archive declares 65535 members, more than "
                                          r"the limit 1000"):
        read_zip(path)


def test_zip64_end_record_count_refused(monkeypatch):
    data = _as_zip64(_zip(3), 700_000)
    assert declared_zip_entries(data)[0] == 700_000
    _forbid_zipfile(monkeypatch)
    with pytest.raises(CorpusError, match=r"^upload\.zip: the ZIP archive declares 700000 members, more than "
                                          rf"the limit {R.MAX_ZIP_MEMBERS}"):
        load_upload(data, "upload.zip")


def test_understated_count_does_not_help(monkeypatch):
    """An end record that claims one member over a directory of twelve is refused by the count
    of the directory's records."""
    data = _with_total(_zip(12), 1)
    monkeypatch.setattr(R, "MAX_ZIP_MEMBERS", 10)
    _forbid_zipfile(monkeypatch)
    with pytest.raises(CorpusError, match=r"^up\.zip: the ZIP archive's directory holds more than 10 members"):
        load_upload(data, "up.zip")


def test_archives_within_the_limit_still_load(monkeypatch):
    monkeypatch.setattr(R, "MAX_ZIP_MEMBERS", 12)
    corpus = load_upload(_zip(12), "ok.zip")
    assert len(corpus) == 12
    zip64 = _as_zip64(_zip(12), 12)
    assert declared_zip_entries(zip64)[0] == 12
    assert len(load_upload(zip64, "ok64.zip")) == 12
    assert declared_zip_entries(b"not a zip") is None
