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


# ---------------------------------------------------------------------------- issue 37, item 1
def _with_comment_len(data: bytes, comment_len: int) -> bytes:
    """``data`` with the comment length of its end record set to ``comment_len`` (no comment added)."""
    pos = data.rindex(EOCD)
    return data[:pos + 20] + struct.pack("<H", comment_len) + data[pos + 22:]


def _zipfile_end_record(data: bytes) -> int | None:
    """Where :mod:`zipfile` itself finds the end record (the oracle), or None."""
    rec = zipfile._EndRecData(io.BytesIO(data))
    return None if rec is None else rec[zipfile._ECD_LOCATION]


def test_a_comment_running_past_the_end_does_not_hide_the_members(monkeypatch):
    """The two-byte edit of issue 37: an end record claiming a 65535-byte comment that is not
    there.  zipfile opens the archive anyway (12 members), so the count must see them too."""
    data = _with_comment_len(_zip(12), 0xFFFF)
    assert len(zipfile.ZipFile(io.BytesIO(data)).infolist()) == 12
    assert declared_zip_entries(data)[0] == 12
    monkeypatch.setattr(R, "MAX_ZIP_MEMBERS", 10)
    _forbid_zipfile(monkeypatch)
    with pytest.raises(CorpusError, match=r"^u\.zip: the ZIP archive declares 12 members, more than the limit 10"):
        load_upload(data, "u.zip")


def _tails(seed: int) -> list[bytes]:
    """Archives whose tails are edited the ways that decide which end record counts: comment
    lengths too long, too short or exact; a real comment; a second end record (a decoy) in the
    comment or after it; a signature in the last 22 bytes; bytes before the archive."""
    import random

    rng = random.Random(seed)
    small, big = _zip(3), _zip(12)
    out = [small, big, _with_comment_len(big, 0xFFFF), _with_comment_len(big, 1)]
    decoy = small[small.rindex(EOCD):]
    for _ in range(40):
        base = rng.choice([small, big])
        comment = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
        kind = rng.randrange(5)
        if kind == 0:      # a comment, its length right, too long or too short
            claimed = max(0, len(comment) + rng.choice([0, 0, 5, -3, 1000]))
            out.append(_with_comment_len(base, claimed) + comment)
        elif kind == 1:    # a decoy end record inside the comment
            out.append(_with_comment_len(base, len(comment) + len(decoy)) + comment + decoy)
        elif kind == 2:    # a decoy end record whose comment length runs past the end
            out.append(base + comment + _with_comment_len(decoy, 0xFFFF))
        elif kind == 3:    # a bare signature within the last 22 bytes
            out.append(_with_comment_len(base, len(comment) + 6) + comment + EOCD + b"\0\0")
        else:              # bytes before the archive (a self-extractor's stub)
            out.append(comment + base)
    return out


@pytest.mark.parametrize("seed", range(5))
def test_the_end_record_is_the_one_zipfile_reads(seed):
    """Oracle: CPython's own ``zipfile._EndRecData`` on edited tails; wherever zipfile opens the
    archive, the count is taken from the same end record and equals what zipfile lists."""
    from hbnlab.corpus.zipcount import end_record_offset

    for data in _tails(seed):
        assert end_record_offset(data) == _zipfile_end_record(data)
        try:
            listed = len(zipfile.ZipFile(io.BytesIO(data)).infolist())
        except zipfile.BadZipFile:
            continue
        assert declared_zip_entries(data)[0] == listed


def test_what_zipfile_lists_is_counted_before_any_member_is_read(monkeypatch):
    """The second line of defence: whatever the end record says, the archive is refused when
    zipfile lists more members than the limit, before one is inflated."""
    from hbnlab.corpus import ziptree

    data = _zip(12)
    monkeypatch.setattr(ziptree, "check_zip_member_count", lambda data, source, limit: None)
    monkeypatch.setattr(R, "MAX_ZIP_MEMBERS", 10)
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda *a, **k: pytest.fail("a member was read"))
    with pytest.raises(CorpusError, match=r"^u\.zip: the ZIP archive lists 12 members, more than the limit 10"):
        load_upload(data, "u.zip")
