"""The member count of a ZIP archive, read before :class:`zipfile.ZipFile` parses it.

``zipfile.ZipFile`` builds a :class:`zipfile.ZipInfo` for every record of the central
directory when it opens an archive; an upload of a few hundred thousand tiny members costs
seconds and hundreds of megabytes before any limit on the member count can apply.
:func:`check_zip_member_count` reads the count from the End-Of-Central-Directory record (and
its ZIP64 form) that zipfile itself would read (:func:`end_record_offset`), then counts the
central directory's records by their fixed headers (no object per member), and refuses an
archive above the limit.
"""
from __future__ import annotations

import struct

from .base import CorpusError

_EOCD_SIG = b"PK\x05\x06"
_EOCD_SIZE = 22
_ZIP64_LOCATOR_SIG = b"PK\x06\x07"
_ZIP64_LOCATOR_SIZE = 20
_ZIP64_EOCD_SIG = b"PK\x06\x06"
_ZIP64_EOCD_SIZE = 56
_CENTRAL_SIG = b"PK\x01\x02"
_CENTRAL_SIZE = 46
#: zipfile searches the last 64 KiB + 22 bytes for the end record (``_EndRecData``).
_TAIL = _EOCD_SIZE + (1 << 16)


def end_record_offset(data: bytes) -> int | None:
    """Offset of the End-Of-Central-Directory record :mod:`zipfile` reads in ``data``, or None
    where zipfile finds none (and refuses the archive).

    CPython's ``zipfile._EndRecData``, step by step: the record exactly 22 bytes from the end
    when its signature is there and its comment length is 0; otherwise the *last* signature in
    the final 64 KiB + 22 bytes, when 22 bytes follow it -- whatever comment length it states.
    A record whose comment runs past the end of the file is still the one zipfile reads, so
    skipping it for an earlier one (or for none) would count members zipfile does not list and
    miss those it does (issue 37: 250,000 members through a two-byte edit).

    >>> end_record_offset(b"PK\\x05\\x06" + bytes(18))
    0
    >>> end_record_offset(b"PK\\x05\\x06" + bytes(16) + b"\\xff\\xff")  # comment past the end: still it
    0
    >>> end_record_offset(b"no archive here") is None
    True
    """
    n = len(data)
    if n < _EOCD_SIZE:
        return None
    last = n - _EOCD_SIZE
    if data.startswith(_EOCD_SIG, last) and data.endswith(b"\x00\x00"):
        return last
    pos = data.rfind(_EOCD_SIG, max(0, n - _TAIL))
    if pos < 0 or pos + _EOCD_SIZE > n:
        return None
    return pos


def declared_zip_entries(data: bytes) -> tuple[int, int, int] | None:
    """``(total entries, central directory start, central directory end)`` as the end records
    declare them (the ZIP64 record's 64-bit fields when there is one); None without an end record.

    The end record is the one :mod:`zipfile` reads (:func:`end_record_offset`), and the start is
    measured back from it, as :mod:`zipfile` does, so bytes prepended to the archive do not shift
    it."""
    pos = end_record_offset(data)
    if pos is None:
        return None
    _, _, _, total, cd_size, _ = struct.unpack_from("<HHHHII", data, pos + 4)
    cd_end = pos
    loc = pos - _ZIP64_LOCATOR_SIZE
    rec = loc - _ZIP64_EOCD_SIZE
    if rec >= 0 and data[loc:loc + 4] == _ZIP64_LOCATOR_SIG and data[rec:rec + 4] == _ZIP64_EOCD_SIG:
        total64, cd_size64 = struct.unpack_from("<QQ", data, rec + 32)
        total, cd_size, cd_end = total64, cd_size64, rec
    return total, max(0, cd_end - cd_size), cd_end


def check_zip_member_count(data: bytes, source: str, limit: int) -> None:
    """Raise :class:`CorpusError` naming ``source`` and ``limit`` when the archive in ``data``
    holds more than ``limit`` members: by the count its end record declares, or by the records
    of its central directory (a count that understates them does not help).  Bytes without an
    end record pass; :mod:`zipfile` reports them.  What zipfile lists once open is counted
    again by the reader (:func:`hbnlab.corpus.ziptree.tree_from_zip`)."""
    found = declared_zip_entries(data)
    if found is None:
        return
    total, pos, end = found
    if total > limit:
        raise CorpusError(f"{source}: the ZIP archive declares {total} members, more than the limit {limit}; "
                          f"refused before reading its directory")
    count = 0
    while pos + _CENTRAL_SIZE <= end and data[pos:pos + 4] == _CENTRAL_SIG:
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", data, pos + 28)
        pos += _CENTRAL_SIZE + name_len + extra_len + comment_len
        count += 1
        if count > limit:
            raise CorpusError(f"{source}: the ZIP archive's directory holds more than {limit} members, "
                              f"the limit; refused before reading it")


__all__ = ["check_zip_member_count", "declared_zip_entries", "end_record_offset"]
