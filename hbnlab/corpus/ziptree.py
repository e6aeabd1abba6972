"""The members of a ZIP archive read into memory, refusing unsafe, oversized or damaged archives.

:func:`tree_from_zip` is the one place the readers inflate a ZIP (:func:`hbnlab.corpus.readers.read_zip`,
:func:`~hbnlab.corpus.readers.load_upload`).  What it refuses, with a
:class:`~hbnlab.corpus.base.CorpusError` naming the archive and, where there is one, the member:

* more members than the limit -- counted twice: from the end record and the central
  directory's fixed headers before :class:`zipfile.ZipFile` builds an object per member
  (:mod:`hbnlab.corpus.zipcount`), then as what zipfile actually lists, before a member is read;
* absolute names or ``..`` components, symbolic links, encrypted members, duplicate names;
* a total uncompressed size over ``max_bytes``, declared or counted on the bytes actually
  inflated (a header that lies about the sizes does not help a decompression bomb);
* damaged data: a member whose compressed stream, CRC or local header is broken.  Each
  decompressor reports that in its own exception -- ``zlib.error`` (deflate),
  ``lzma.LZMAError``, ``OSError`` / ``EOFError`` (bzip2), ``zipfile.BadZipFile`` (CRC, local
  header) --, none of which is a CorpusError; :data:`MEMBER_READ_ERRORS` lists them.
"""
from __future__ import annotations

import io
import lzma
import stat
import zipfile
import zlib

from hbnlab._validation import ZIP_OPEN_ERRORS

from ._common import check_size
from .base import CorpusError
from .fetch import is_safe_member_name
from .progress import tick
from .zipcount import check_zip_member_count

__all__ = ["MEMBER_READ_ERRORS", "tree_from_zip"]

#: What reading one member of a damaged archive raises: zipfile's own errors (a bad CRC, a local
#: header that disagrees with the directory, an unsupported method), the decompressors'
#: (``zlib.error``, ``lzma.LZMAError``; bz2 raises ``OSError`` and ``EOFError``), and
#: ``ValueError`` (a name in the local header that does not decode).
MEMBER_READ_ERRORS = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, NotImplementedError, OSError, EOFError,
                      RuntimeError, ValueError)

_CHUNK = 1 << 20


def _check_infos(infos: list[zipfile.ZipInfo], source: str, max_members: int, max_bytes: int | None) -> None:
    """Refuse the archive from its listing alone, before any member is read."""
    if len(infos) > max_members:
        raise CorpusError(f"{source}: the ZIP archive lists {len(infos)} members, more than the limit "
                          f"{max_members}; refused before reading them")
    declared = 0
    for info in infos:
        if not is_safe_member_name(info.filename):
            raise CorpusError(f"{source}: member {info.filename!r} has a path escaping the archive root")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise CorpusError(f"{source}: member {info.filename!r} is a symbolic link; links are not allowed")
        if info.flag_bits & 0x1:
            raise CorpusError(f"{source}: member {info.filename!r} is encrypted")
        declared += info.file_size
    if max_bytes is not None:
        check_size(declared, max_bytes, source, " (uncompressed)")


def _member_name(info: zipfile.ZipInfo) -> str:
    rel = info.filename.replace("\\", "/")
    while rel.startswith("./"):
        rel = rel[2:]
    return rel


def tree_from_zip(data: bytes, source: str, max_bytes: int | None, max_members: int) -> dict[str, bytes]:
    """``{member name: bytes}`` of every file in the ZIP archive ``data`` (folders left out;
    ``./`` prefixes and backslashes normalised), or a CorpusError naming ``source`` (module
    docstring).  ``max_bytes`` bounds the total uncompressed size (``None``: no bound),
    ``max_members`` the number of members."""
    check_zip_member_count(data, source, max_members)  # before ZipFile builds one object per member
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except ZIP_OPEN_ERRORS as exc:
        raise CorpusError(f"{source}: not a readable ZIP archive ({exc})") from None
    with zf:
        infos = zf.infolist()
        _check_infos(infos, source, max_members, max_bytes)
        files: dict[str, bytes] = {}
        total = 0
        for n_done, info in enumerate(infos, 1):
            tick("inflating members", n_done, len(infos))
            if info.is_dir():
                continue
            rel = _member_name(info)
            if rel in files:
                raise CorpusError(f"{source}: member {rel!r} appears twice")
            chunks = []
            try:
                with zf.open(info) as f:
                    while chunk := f.read(_CHUNK):
                        total += len(chunk)
                        if max_bytes is not None and total > max_bytes:
                            raise CorpusError(f"{source}: uncompressed content exceeds max_bytes={max_bytes} "
                                              f"(at member {rel!r}); refusing a possible ZIP bomb")
                        chunks.append(chunk)
            except CorpusError:  # a ValueError too: not damaged data
                raise
            except MEMBER_READ_ERRORS as exc:
                raise CorpusError(f"{source}: member {rel!r} cannot be read ({type(exc).__name__}: {exc}); "
                                  f"the archive is damaged") from None
            files[rel] = b"".join(chunks)
    return files
