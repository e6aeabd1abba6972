"""Decoding the bytes of a corpus file: one named codec, or ``encoding="auto"`` detection per file.

``encoding="auto"`` (the default of every reader) decides each file on its own, so a folder of
18,000 UTF-8 files and 73 latin-1 ones loads without any option.  The first rule that applies
decides:

1. **Byte-order mark.**  ``EF BB BF`` -> ``utf-8-sig``; ``FF FE 00 00`` / ``00 00 FE FF`` ->
   ``utf-32``; ``FF FE`` / ``FE FF`` -> ``utf-16`` (UTF-32 is tested first: its little-endian
   mark starts with UTF-16's).  The mark is dropped.  Bytes the marked codec cannot decode
   become U+FFFD and the file is recorded as replaced (a mark is strong evidence; a truncated
   last character should not send the file to a guess).
2. **UTF-16 / UTF-32 without a mark.**  Only when the file holds a NUL byte (text in any 8-bit
   code page or UTF-8 has none): ``utf-32-le`` / ``utf-32-be`` when the length is a multiple
   of 4 and the two high bytes of every 4-byte unit are NUL; else ``utf-16-le`` /
   ``utf-16-be`` when the length is even, at least 30 % of the high bytes of the 2-byte units
   are NUL (characters U+0000-U+00FF, i.e. Latin script) and at most 5 % of the low bytes are.
   The codec must decode the file strictly, otherwise the next rules apply.
3. **Strict UTF-8** (``utf-8``; ASCII is reported as UTF-8).  This is the path of nearly every
   file and costs one ``bytes.decode``.
4. **cp1252, if the result is plausible** (:func:`plausible_cp1252`): the strict decode
   succeeds (cp1252 leaves five bytes undefined), at most 1 % of the characters are control
   characters (other than tab, line and page breaks: a stray escape or bell in an old e-mail
   is tolerated, binary data is not), and, for a text of at least 20 letters, at most 30 % of
   its letters non-ASCII and at most 5 % of its characters odd symbols (non-ASCII, neither
   letters nor cp1252's typographic marks ``€ … – — ‘ ’ “ ” • ™`` and the like, nor a no-break
   space: ``¤ ¦ ¨ ± ¼ ×`` ...).  Western European text has far fewer non-ASCII letters (French
   about 4 %, German 2 %, Icelandic under 20 %); Cyrillic, Greek or Hebrew text in its own
   8-bit code page read as cp1252 has almost only non-ASCII letters, and box-drawing or other
   symbol-heavy code pages read as cp1252 turn into odd symbols.  cp1252 agrees with latin-1 on
   every printable latin-1 character, so latin-1 files are reported as cp1252.
   **latin-1, if plausible by the same test**, for the files cp1252 cannot decode (one of its
   five undefined bytes, which latin-1 reads as a C1 control character and counts as one).
5. **charset_normalizer's best guess** (``charset_normalizer.from_bytes(...).best()``), for
   files rules 1-4 reject (e.g. cp1251 Russian, Shift-JIS).  A mostly-ASCII file with one odd
   byte never gets here: the detector is unreliable on those (it answers cp775 or mac-latin2).
6. **Fallback**: cp1252 with ``errors="replace"``; the file is recorded as replaced when a
   byte became U+FFFD.

A named codec (``encoding="latin-1"``) decodes every file strictly with that codec; ``utf-8``
drops a leading byte-order mark.  An undecodable byte raises :class:`CorpusError` naming the
file, the line and the byte offset, and so does a file that looks like UTF-16 / UTF-32 (rules 1
and 2) read with another codec -- latin-1 would otherwise turn it into text full of NULs -- or a
UTF-8 file (its mark, or no NUL byte and valid UTF-8) read as UTF-16 / UTF-32.  Those
errors carry ``parameter="encoding"``, ``suggestion="auto"`` for each frontend's advice.
"""
from __future__ import annotations

import codecs
import re
from typing import NamedTuple

from .base import CorpusError

__all__ = ["AUTO", "DecodedText", "EncodingTally", "decode_text", "plausible_cp1252", "encoding_summary",
           "check_encoding"]

AUTO = "auto"

_BOMS = (  # UTF-32 first: its little-endian mark starts with UTF-16's
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_BOM_FIRST_BYTES = frozenset(mark[0] for mark, _ in _BOMS)
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_ASCII_LETTERS = bytes(range(65, 91)) + bytes(range(97, 123))
# what cp1252 puts at 0x80-0x9F (its typographic marks) and the no-break space: not odd
_CP1252_MARKS = frozenset(bytes(range(0x80, 0xA0)).decode("cp1252", errors="ignore") + "\xa0")
# thresholds of rule 4 (module docstring)
_MAX_CONTROL = 0.01
_MIN_LETTERS = 20
_MAX_NON_ASCII_LETTERS = 0.30
_MAX_ODD_SYMBOLS = 0.05
# thresholds of rule 2
_MIN_HIGH_NUL = 0.30
_MAX_LOW_NUL = 0.05


class DecodedText(NamedTuple):
    """A decoded file: its ``text``, the codec that produced it, and whether undecodable bytes
    were replaced by U+FFFD."""

    text: str
    encoding: str
    replaced: bool = False


def check_encoding(encoding: str | None, source: str = "encoding") -> str:
    """``"auto"`` (also for ``None``) or a codec name Python knows; else a CorpusError."""
    if encoding is None or encoding == AUTO:
        return AUTO
    if not isinstance(encoding, str) or not encoding.strip():
        raise CorpusError(f"{source}: encoding must be 'auto' or a codec name, got {encoding!r}", "encoding", AUTO)
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise CorpusError(f"{source}: unknown encoding {encoding!r}", "encoding", AUTO) from None
    return encoding


def _bom(data: bytes) -> str | None:
    """Rule 1: the codec whose byte-order mark starts ``data`` (it drops the mark), else None."""
    if not data or data[0] not in _BOM_FIRST_BYTES:
        return None
    for mark, codec in _BOMS:
        if data.startswith(mark):
            return codec
    return None


def _utf16_32_pattern(data: bytes) -> str | None:
    """Rule 2: the codec of a UTF-16 / UTF-32 file without a byte-order mark, else None."""
    if b"\x00" not in data:
        return None
    n = len(data)
    if n >= 4 and n % 4 == 0:
        units = n // 4
        if data[2::4].count(0) == units and data[3::4].count(0) == units:
            return "utf-32-le"
        if data[0::4].count(0) == units and data[1::4].count(0) == units:
            return "utf-32-be"
    if n >= 2 and n % 2 == 0:
        pairs = n // 2
        even, odd = data[0::2].count(0), data[1::2].count(0)
        if odd >= _MIN_HIGH_NUL * pairs and even <= _MAX_LOW_NUL * pairs:
            return "utf-16-le"
        if even >= _MIN_HIGH_NUL * pairs and odd <= _MAX_LOW_NUL * pairs:
            return "utf-16-be"
    return None


def plausible_cp1252(text: str, data: bytes) -> bool:
    """Rule 4 of the module docstring: does ``text`` (``data`` decoded as cp1252 or latin-1) read
    as Western European text?"""
    if len(_CONTROL.findall(text)) > _MAX_CONTROL * len(text):
        return False
    non_ascii = _NON_ASCII.findall(text)
    ascii_letters = len(data) - len(data.translate(None, _ASCII_LETTERS))
    other_letters = sum(c.isalpha() for c in non_ascii)
    odd = sum(not c.isalpha() and c not in _CP1252_MARKS for c in non_ascii)
    letters = ascii_letters + other_letters
    if letters < _MIN_LETTERS:
        return True
    return other_letters <= _MAX_NON_ASCII_LETTERS * letters and odd <= _MAX_ODD_SYMBOLS * len(text)


def _guess(data: bytes) -> DecodedText | None:
    """Rule 5: charset_normalizer's best guess, decoded strictly, or None."""
    # imported here: only files that are neither UTF-8 nor plausible cp1252 need it, and
    # loading the detector costs start-up time of every command and of the workbench
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        return None
    try:
        return DecodedText(data.decode(best.encoding), codecs.lookup(best.encoding).name)
    except (LookupError, UnicodeDecodeError):
        return None


def _detect(data: bytes) -> DecodedText:
    """Rules 1-6 of the module docstring."""
    bom = _bom(data)
    if bom is not None:
        try:
            return DecodedText(data.decode(bom), bom)
        except UnicodeDecodeError:
            return DecodedText(data.decode(bom, errors="replace"), bom, True)
    pattern = _utf16_32_pattern(data)
    if pattern is not None:
        try:
            return DecodedText(data.decode(pattern), pattern)
        except UnicodeDecodeError:
            pass
    try:
        return DecodedText(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    try:
        text, codec = data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        text, codec = data.decode("latin-1"), "latin-1"
    if plausible_cp1252(text, data):
        return DecodedText(text, codec)
    guessed = _guess(data)
    if guessed is not None:
        return guessed
    text = data.decode("cp1252", errors="replace")
    return DecodedText(text, "cp1252", "\ufffd" in text)


def _looks_like(data: bytes) -> str | None:
    """'UTF-16' / 'UTF-32' with the evidence, when rules 1-2 see one of them, else None."""
    bom = _bom(data)
    if bom is not None and bom != "utf-8-sig":
        return f"{bom.upper()} (it starts with the byte-order mark {data[:4 if bom == 'utf-32' else 2].hex(' ')})"
    pattern = _utf16_32_pattern(data)
    if pattern is not None:
        return f"{pattern.upper()} (NUL bytes at alternate positions)"
    return None


def _looks_like_utf8(data: bytes) -> str | None:
    """'UTF-8' with the evidence, for a file named as UTF-16 / UTF-32 that has neither their
    byte-order mark nor their NUL pattern and is valid UTF-8 (or starts with UTF-8's mark)."""
    bom = _bom(data)
    if bom is not None:
        return "UTF-8 (it starts with the byte-order mark ef bb bf)" if bom == "utf-8-sig" else None
    if not data or _utf16_32_pattern(data) is not None:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return "UTF-8 (no byte-order mark, no NUL bytes, valid UTF-8)"


def decode_text(data: bytes, source: str, encoding: str | None = AUTO) -> DecodedText:
    """Decode one file's bytes (rules in the module docstring).

    Parameters
    ----------
    data : bytes
    source : str
        The file as messages name it (a path, ``upload.zip:train/a/1``).
    encoding : str, default "auto"
        ``"auto"`` (or ``None``): detect; any other value: a codec name, decoded strictly.

    Returns
    -------
    DecodedText
        ``text``, ``encoding`` (the codec used: ``utf-8``, ``utf-8-sig``, ``utf-16``,
        ``utf-16-le``, ``cp1252``, charset_normalizer's name, or the given name) and
        ``replaced``.

    Raises
    ------
    CorpusError
        With a named codec only: an unknown codec, a file that looks like UTF-16 / UTF-32 read
        with another codec, or an undecodable byte (its line and byte offset).

    Examples
    --------
    >>> decode_text("café".encode("utf-8"), "a.txt")
    DecodedText(text='café', encoding='utf-8', replaced=False)
    >>> decode_text("café".encode("latin-1"), "a.txt")
    DecodedText(text='café', encoding='cp1252', replaced=False)
    >>> decode_text("café".encode("utf-16"), "a.txt").encoding
    'utf-16'
    """
    enc = check_encoding(encoding, source)
    if enc == AUTO:
        return _detect(data)
    codec = codecs.lookup(enc).name
    looks = _looks_like(data) if not codec.startswith(("utf-16", "utf-32")) else _looks_like_utf8(data)
    if looks is not None:
        raise CorpusError(f"{source}: the file looks like {looks}, not {encoding!r}", "encoding", AUTO)
    try:
        return DecodedText(data.decode("utf-8-sig" if codec == "utf-8" else enc), enc)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.start + 4].hex(" ")
        shown = "UTF-8" if codec == "utf-8" else repr(encoding)
        guess = _detect(data)
        raise CorpusError(
            f"line {line} of {source}: cannot decode as {shown} at byte offset {exc.start} "
            f"(bytes {bad}: {exc.reason}); the file looks like {guess.encoding}", "encoding", AUTO
        ) from None


class EncodingTally:
    """Decode the files of one corpus and count what was used: ``meta['encodings']``
    (``{codec: number of files}``) and ``meta['replaced_files']`` (files where undecodable bytes
    became U+FFFD)."""

    def __init__(self, encoding: str | None = AUTO):
        self.encoding = encoding  # checked by decode_text, whose errors name the file
        self.encodings: dict[str, int] = {}
        self.replaced_files: list[str] = []

    def decode(self, data: bytes, source: str, name: str | None = None) -> str:
        """The text of one file (``name`` is how ``replaced_files`` lists it; default ``source``)."""
        d = decode_text(data, source, self.encoding)
        self.encodings[d.encoding] = self.encodings.get(d.encoding, 0) + 1
        if d.replaced:
            self.replaced_files.append(source if name is None else name)
        return d.text

    def meta(self) -> dict:
        return {"encodings": dict(sorted(self.encodings.items(), key=lambda kv: (-kv[1], kv[0]))),
                "replaced_files": list(self.replaced_files)}


def encoding_summary(meta: dict) -> list[str]:
    """The encoding report of a corpus's ``meta`` as lines of text (empty when the reader
    recorded none, e.g. for the synthetic corpus)."""
    encs = meta.get("encodings")
    if not encs:
        return []
    n = sum(encs.values())
    lines = [f"encodings: {n} file{'s' if n != 1 else ''} -- "
             + ", ".join(f"{k} {v}" for k, v in encs.items())]
    replaced = meta.get("replaced_files") or []
    if replaced:
        lines.append(f"{len(replaced)} file{'s' if len(replaced) != 1 else ''} needed replacement characters "
                     f"(U+FFFD) for undecodable bytes:")
        lines += [f"  {f}" for f in replaced]
    else:
        lines.append("no file needed replacement characters")
    return lines
