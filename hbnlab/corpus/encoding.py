"""Decoding the bytes of a corpus file: one named codec, or ``encoding="auto"`` detection per file.

``encoding="auto"`` (the default of every reader) decides each file on its own, so a folder of
18,000 UTF-8 files and 73 latin-1 ones loads without any option.  The first rule that applies
decides:

0. **Binary data is not text** (every codec, named or not): a file that starts with the magic
   number of a known binary format (JPEG, PNG, GIF, PDF, ELF, a Windows executable, ZIP --
   docx, xlsx, jar, a ZIP inside the upload --, gzip, 7-Zip, RAR, OLE2 (old Office files),
   SQLite, Mach-O / Java class) raises :class:`~hbnlab.corpus.base.BinaryFileError`, and so does
   a file whose reading by the rules below holds what text does not (:func:`binary_reason`,
   after the rules, so a UTF-16 file is judged by its characters, not by its NUL bytes): NUL
   characters, C1 control characters (U+0080-U+009F) and byte sequences no rule decodes (the
   fallback's replaced ones), at least 3 and together more than 1 % of the characters -- random
   or compressed bytes have 0.4 % NUL and 2 % undecodable, NUL-alternating data (small integers
   stored in 16 bits, which rule 2 reads as UTF-16) far more, a damaged text one or two --; or
   the other control characters (C0 but tab, line and page breaks and escape; DEL) spread over
   at least 8 kinds and more than 5 % of the characters, or over half of them.  Text uses those
   as glyphs (a bell or an escape in an old e-mail; a signature box drawn in ``02``, which a DOS
   newsreader showed as a face), a few kinds again and again; data spreads over all 27.  The
   reason names what was found (``"16 NUL bytes, 80 undecodable byte sequences among its 4096
   characters (2.3 %)"``).  Folder readers skip such a file and list it in
   ``meta['ignored_files']`` with the reason; a table file that is binary is refused.
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
4. **Mostly UTF-8**: the bytes that are not part of a valid UTF-8 sequence are at most 5 % of
   the file's non-ASCII bytes (:func:`mostly_utf8`).  The file is UTF-8 with a few stray bytes
   -- a cp1252 apostrophe (``92``) pasted into a UTF-8 table --: it is decoded as ``utf-8``,
   each undecodable sequence becomes U+FFFD, and the file is recorded as replaced with the line
   and byte offset of its first bad sequences.  Reading the whole file in a legacy code page
   instead would garble every one of its valid characters (``pétrole`` -> ``pﾃｩtrole``).  The
   bound keeps legacy files out, by a wide margin: their non-ASCII bytes rarely happen to form
   valid UTF-8 sequences, so the share of bad bytes among them is high.  Measured on CPython's
   CJK test texts (``Lib/test/cjkencodings``) and on French / Russian / Greek pangrams:

   =====================================================  ==========================
   encoding                                               bad / non-ASCII bytes
   =====================================================  ==========================
   cp1252, latin-1, mac-roman, cp850, iso8859-5           100 %
   cp1251, koi8-r, cp1253, iso8859-7                      96-97 %
   johab, big5, big5hkscs, euc_kr, cp949                  72-87 %
   shift_jis, shift_jisx0213, gb18030, gbk, gb2312, cp866 63-68 %
   euc_jp, euc_jisx0213                                   54-55 %
   =====================================================  ==========================

   5 % is ten times below the lowest of these, and still lets a handful of stray bytes through
   in a file with a few dozen accented letters.  A file mixing UTF-8 and a legacy code page in
   larger shares is beyond any per-file rule and goes on to rules 5-7.
5. **cp1252, if the result is plausible** (:func:`plausible_cp1252`): the strict decode
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
   Turkish (cp1254), Polish or Hungarian (cp1250) text and English with some Russian rows
   (cp1251) pass this test too; their words give them away (``sevkiyatlarýnýn``, ``wzros³y``,
   ``jelentõsen``, ``Ýêñïîðò``: :func:`hbnlab.corpus.mojibake.mojibake_words`).  When at least 3
   words, a tenth of those with a non-ASCII letter, look so (in the detector's sample of a large
   file), the Windows code pages of other European scripts are tried
   (:func:`~hbnlab.corpus.mojibake.better_code_page`), and one whose reading leaves at most a
   quarter of them decodes the file instead.  Either way ``DecodedText.note`` says what was
   doubted, and the readers list it in ``meta['code_page_notes']``.
6. **charset_normalizer's best guess** (``charset_normalizer.from_bytes(...).best()``), for
   files rules 1-5 reject (e.g. cp1251 Russian, Shift-JIS).  A mostly-ASCII file with one odd
   byte never gets here: the detector is unreliable on those (it answers cp775 or mac-latin2).
   The detector's memory grows with its input (six times a 40 MB file, 25 MB for 1 MB), so a file over
   :data:`GUESS_SAMPLE_BYTES` is guessed from :data:`GUESS_PIECES` whole-line pieces spread over
   it; the whole file is then decoded strictly with the guess, and when a byte the sample missed
   does not decode with it, the detector is asked again about the whole file.
7. **Fallback**: cp1252 with ``errors="replace"``; the file is recorded as replaced when a
   byte became U+FFFD.

A named codec (``encoding="latin-1"``) decodes every file strictly with that codec; ``utf-8``
drops a leading byte-order mark.  An undecodable byte raises :class:`CorpusError` naming the
file, the line and the byte offset, and so does a file that looks like UTF-16 / UTF-32 (rules 1
and 2) read with another codec -- latin-1 would otherwise turn it into text full of NULs -- or a
UTF-8 file (its mark, or no NUL byte and valid UTF-8) read as UTF-16 / UTF-32.  Those
errors carry ``parameter="encoding"``, ``suggestion="auto"`` for each frontend's advice.

A replaced file is reported with where its bytes went wrong (:class:`Replacement`: the line,
the byte offset and the bytes of each of the first :data:`MAX_REPORTED` bad sequences), so the
user can open the file at that place.
"""
from __future__ import annotations

import codecs
import re
from collections import Counter
from typing import NamedTuple

import numpy as np

from .base import BinaryFileError, CorpusError
from .mojibake import CANDIDATE_CODE_PAGES, better_code_page, doubted_words

__all__ = ["AUTO", "BINARY_REASON", "GUESS_PIECES", "GUESS_SAMPLE_BYTES", "MAX_REPORTED", "DecodedText",
           "EncodingTally", "Replacement", "binary_reason", "check_encoding", "decode_text", "encoding_summary",
           "guess_sample", "mostly_utf8", "plausible_cp1252", "replacement_places"]

AUTO = "auto"
#: How ``meta['ignored_files']`` starts the reason of a file skipped as binary data (rule 0).
BINARY_REASON = "binary data, not text: "
#: How many bad sequences of a replaced file are located (line, byte offset, bytes).
MAX_REPORTED = 3
#: Rule 6 shows the detector at most this many bytes of a file (:func:`guess_sample`).
GUESS_SAMPLE_BYTES = 1 << 18
#: Pieces of a larger file the sample is made of.
GUESS_PIECES = 64

_BOMS = (  # UTF-32 first: its little-endian mark starts with UTF-16's
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_BOM_FIRST_BYTES = frozenset(mark[0] for mark, _ in _BOMS)
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
# rule 0: what text never holds (NUL, the C1 controls) and the control characters it seldom
# holds (C0 but tab, line and page breaks and escape; DEL), found in one pass
_NOT_TEXT = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
_C1 = frozenset(map(chr, range(0x80, 0xA0)))
# readings in which such a character comes only from a byte 00-08, 0E-1A, 1C-1F or 7F-9F (ASCII
# and one byte a character, or UTF-8, whose C1 sequences end in 80-9F): a file holding none of
# those bytes is text without a scan of its characters (bytes.translate: ten times the regex)
_BYTEWISE = frozenset({"utf-8", "utf-8-sig", "cp1252", "latin-1"})
_PLAIN_BYTES = bytes(b for b in range(256) if not (b <= 0x08 or 0x0E <= b <= 0x1A or 0x1C <= b <= 0x1F or b >= 0x7F)) \
    + bytes(range(0xA0, 0x100))
_ASCII = bytes(range(128))
# what cp1252 puts at 0x80-0x9F (its typographic marks) and the no-break space: not odd
_CP1252_MARKS = frozenset(bytes(range(0x80, 0xA0)).decode("cp1252", errors="ignore") + "\xa0")
# thresholds of rule 0
_MIN_NOT_TEXT = 3
_MAX_NOT_TEXT = 0.01
_MAX_BINARY_CONTROL = 0.05
_MIN_CONTROL_KINDS = 8
_MOSTLY_CONTROL = 0.5
#: The codec of rule 7: the only reading whose replaced bytes are undecodable by every rule.
_FALLBACK = "cp1252"
# thresholds of rule 5
_COUNT_CHUNK = 1 << 22  # bytes counted per bincount: a 32 MB temporary
_MAX_CONTROL = 0.01
_MIN_LETTERS = 20
_MAX_NON_ASCII_LETTERS = 0.30
_MAX_ODD_SYMBOLS = 0.05
# threshold of rule 4
_MAX_BAD_UTF8 = 0.05
# thresholds of rule 2
_MIN_HIGH_NUL = 0.30
_MAX_LOW_NUL = 0.05

#: Magic numbers of binary formats (rule 0): leading bytes, what the file is.
_MAGIC = (
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"\x7fELF", "an ELF executable or library"),
    (b"PK\x03\x04", "a ZIP archive or a ZIP-based file such as docx, xlsx, odt, jar, epub"),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\x1f\x8b", "a gzip file"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an OLE2 file such as an old Word, Excel or PowerPoint document"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\xca\xfe\xba\xbe", "a Java class or a Mach-O universal binary"),
    (b"\xfe\xed\xfa\xce", "a Mach-O executable"),
    (b"\xfe\xed\xfa\xcf", "a Mach-O executable"),
    (b"\xce\xfa\xed\xfe", "a Mach-O executable"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
)


class Replacement(NamedTuple):
    """Where a replaced file went wrong: the ``line`` (1-based, physical lines of the file), the
    byte ``offset`` (0-based) and the undecodable ``bytes`` (hex, at most 8) of one sequence."""

    line: int
    offset: int
    bytes: str

    def __str__(self) -> str:
        return f"line {self.line}, byte offset {self.offset} ({self.bytes})"


class DecodedText(NamedTuple):
    """A decoded file: its ``text``, the codec that produced it, ``replaced``: how many
    undecodable byte sequences became U+FFFD (0: none), ``first_replaced``: where the first
    :data:`MAX_REPORTED` of them are, and ``note``: why the code page is a judgement call (rule
    5's second half), else ``""``."""

    text: str
    encoding: str
    replaced: int = 0
    first_replaced: tuple[Replacement, ...] = ()
    note: str = ""


def _mark_undecodable(exc: UnicodeDecodeError) -> tuple[str, int]:
    # A lone surrogate cannot come out of a strict decode, so the marker cannot be confused
    # with the file's text; it carries the bytes' span, so the handler keeps no state (and
    # is safe in the workbench's threads).
    return f"\ud800{exc.start},{exc.end}\udbff", exc.end


_MARK_HANDLER = "hbnlab.corpus.mark-undecodable"
codecs.register_error(_MARK_HANDLER, _mark_undecodable)
_MARK = re.compile("\ud800(\\d+),(\\d+)\udbff")


def _decode_replacing(data: bytes, codec: str) -> DecodedText:
    """``data`` decoded with ``codec``, each undecodable sequence replaced by U+FFFD, and located."""
    marked = data.decode(codec, _MARK_HANDLER)
    spans = [(m.start(), int(m[1]), int(m[2])) for m in _MARK.finditer(marked)]
    if not spans:
        return DecodedText(marked, codec)
    first = tuple(Replacement(marked.count("\n", 0, pos) + 1, start, data[start:min(end, start + 8)].hex(" "))
                  for pos, start, end in spans[:MAX_REPORTED])
    return DecodedText(_MARK.sub("\ufffd", marked), codec, len(spans), first)


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


def _magic_number(data: bytes) -> str | None:
    """Rule 0's first half: what binary format ``data`` starts with, with the evidence, or None."""
    for magic, what in _MAGIC:
        if data.startswith(magic):
            return f"{what} (it starts with {magic[:8].hex(' ')})"
    if data.startswith(b"MZ") and len(data) >= 64:  # the DOS header points at the PE signature
        pe = int.from_bytes(data[60:64], "little")
        if data[pe:pe + 4] == b"PE\x00\x00":
            return f"a Windows executable or DLL (it starts with 4d 5a and has the PE signature at byte {pe})"
    return None


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _not_text_reason(decoded: DecodedText, data: bytes | None = None) -> str | None:
    """Rule 0's second half: why the reading ``decoded`` is binary data rather than text, naming
    the characters found, or None.

    Text never holds NUL characters or C1 control characters (U+0080-U+009F: what a latin-1 or
    UTF-16 reading makes of bytes no Windows code page defines), and nothing in it is left
    undecodable by every rule (the fallback's replaced sequences; rules 1 and 4 replace stray
    bytes in files they have recognised as text).  A few of them are damage; at least
    :data:`_MIN_NOT_TEXT` making more than 1 % of the characters are data (random or compressed
    bytes: 0.4 % NUL and 2 % undecodable).  The other control characters are text's glyphs too
    -- the faces, suits and arrows a DOS newsreader drew for bytes 01-1F, in a signature box --:
    they count only spread over at least :data:`_MIN_CONTROL_KINDS` kinds and more than 5 % of the
    characters (data of small integers, random bytes: 27 kinds), or over half of them.  ``data``,
    the bytes read, spares the scan of a text that cannot hold any of them.
    """
    if data is not None and decoded.encoding in _BYTEWISE and not data.translate(None, _PLAIN_BYTES):
        return None
    text = decoded.text
    first = _NOT_TEXT.search(text)
    if first is None:
        return None
    found = Counter(m.group() for m in _NOT_TEXT.finditer(text, first.start()))
    n = len(text)
    nul = found.pop("\x00", 0)
    c1 = sum(found.pop(c) for c in _C1.intersection(found))
    undecodable = decoded.replaced if decoded.encoding == _FALLBACK else 0
    strong = nul + c1 + undecodable
    if strong >= _MIN_NOT_TEXT and strong > _MAX_NOT_TEXT * n:
        wide = decoded.encoding.startswith(("utf-16", "utf-32"))
        parts = [_plural(nul, "NUL character (U+0000)", "NUL characters (U+0000)") if wide
                 else _plural(nul, "NUL byte", "NUL bytes"),
                 _plural(c1, "C1 control character (U+0080-U+009F)", "C1 control characters (U+0080-U+009F)"),
                 _plural(undecodable, "undecodable byte sequence", "undecodable byte sequences")]
        named = ", ".join(part for part, k in zip(parts, (nul, c1, undecodable)) if k)
        return f"{named} among its {n} characters ({100 * strong / n:.1f} %); text holds next to none"
    control = sum(found.values())
    if (control > _MAX_BINARY_CONTROL * n and len(found) >= _MIN_CONTROL_KINDS) or control > _MOSTLY_CONTROL * n:
        common = ", ".join(f"U+{ord(c):04X} x{k}" for c, k in found.most_common(3))
        return (f"{control} control characters of {_plural(len(found), 'kind', 'kinds')} ({common}, ...) among "
                f"its {n} characters ({100 * control / n:.0f} %); text that draws with them repeats a few")
    return None


def binary_reason(data: bytes, encoding: str | None = AUTO) -> str | None:
    """Why ``data`` is binary data rather than text (rule 0 of the module docstring), or None.

    Examples
    --------
    >>> binary_reason(b"\\xff\\xd8\\xff\\xe0\\x00\\x10JFIF")
    'a JPEG image (it starts with ff d8 ff)'
    >>> binary_reason(b"\\x00\\x01\\x00\\x02\\x00\\x03\\x00\\x04").split(" among")[0]   # UTF-16-BE integers
    '4 control characters of 4 kinds (U+0001 x1, U+0002 x1, U+0003 x1, ...)'
    >>> binary_reason(bytes(range(256)) * 4)
    '4 NUL bytes, 20 undecodable byte sequences among its 1024 characters (2.3 %); text holds next to none'
    >>> binary_reason(b"Joe Carter \\x02\\x02\\x02\\x02\\x02\\x02 jc@andrew.cmu.edu") is None   # a drawing
    True
    >>> binary_reason("café".encode("utf-16")) is None
    True
    """
    try:
        decode_text(data, "data", encoding)
    except BinaryFileError as exc:
        return exc.reason
    except CorpusError:
        return None
    return None


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


def mostly_utf8(data: bytes) -> bool:
    """Rule 4 of the module docstring: are the bytes outside valid UTF-8 sequences at most 5 %
    of the non-ASCII bytes of ``data``?

    Examples
    --------
    >>> mostly_utf8("pétrole\\n".encode("utf-8") * 100 + b"l\\x92huile")   # 1 bad byte in 201
    True
    >>> mostly_utf8("pétrole\\n".encode("cp1252") * 100)                   # every one bad
    False
    """
    non_ascii = len(data.translate(None, _ASCII))  # the bytes left when the ASCII ones are deleted
    if not non_ascii:
        return False
    # the valid sequences re-encode to their own bytes; what 'ignore' dropped is the bad bytes (an
    # error span never holds an ASCII byte), without a pass of Python's regex over the text
    bad = len(data) - len(data.decode("utf-8", "ignore").encode("utf-8"))
    return bad <= _MAX_BAD_UTF8 * non_ascii


def _byte_counts(data: bytes) -> np.ndarray:
    """How often each of the 256 byte values occurs in ``data`` (counted in chunks: ``bincount``
    widens its input to 8-byte integers)."""
    arr = np.frombuffer(data, dtype=np.uint8)
    counts = np.zeros(256, dtype=np.int64)
    for start in range(0, arr.size, _COUNT_CHUNK):
        counts += np.bincount(arr[start:start + _COUNT_CHUNK], minlength=256)
    return counts


def plausible_cp1252(text: str, data: bytes) -> bool:
    """Rule 5 of the module docstring: does ``text`` (``data`` decoded as cp1252 or latin-1) read
    as Western European text?

    Both code pages give one character per byte, so every count of the rule is a sum over the
    256 byte values of ``data``: the bytes are counted once (numpy), and each value present is
    classified by its character in ``text`` (the character at its first occurrence), instead of
    classifying the characters one by one in Python.

    Examples
    --------
    >>> western = "Le café où l'été dure, près de la forêt.".encode("cp1252")
    >>> plausible_cp1252(western.decode("cp1252"), western)
    True
    >>> russian = "Съешь же ещё этих мягких французских булок".encode("cp1251")
    >>> plausible_cp1252(russian.decode("cp1252"), russian)   # every letter non-ASCII
    False
    """
    if len(text) != len(data):
        raise ValueError(f"text must be data decoded with one character per byte (cp1252 or latin-1), "
                         f"got {len(text)} characters for {len(data)} bytes")
    counts = _byte_counts(data)
    control = other_letters = odd = 0
    for b in map(int, np.flatnonzero(counts)):
        c = text[data.find(b)] if b >= 0x80 else chr(b)  # below 0x80 both code pages are ASCII
        n = int(counts[b])
        if _CONTROL.match(c):
            control += n
        if b >= 0x80:
            if c.isalpha():
                other_letters += n
            elif c not in _CP1252_MARKS:
                odd += n
    if control > _MAX_CONTROL * len(text):
        return False
    ascii_letters = int(counts[65:91].sum() + counts[97:123].sum())
    letters = ascii_letters + other_letters
    if letters < _MIN_LETTERS:
        return True
    return other_letters <= _MAX_NON_ASCII_LETTERS * letters and odd <= _MAX_ODD_SYMBOLS * len(text)


def _boundary(data: bytes, lo: int, hi: int, last: bool) -> int:
    """The position just after the first (``last``: the last) line end in ``data[lo:hi]``, else
    after a space, else -1.  Neither byte is ever part of a character of an 8-bit code page or of
    a multi-byte East Asian one (Shift-JIS, GB18030, Big5, EUC: their trail bytes are >= 0x30)."""
    for b in (b"\n", b" "):
        at = data.rfind(b, lo, hi) if last else data.find(b, lo, hi)
        if at >= 0:
            return at + 1
    return -1


def guess_sample(data: bytes) -> bytes:
    """What rule 6 shows the detector: ``data`` itself up to :data:`GUESS_SAMPLE_BYTES`, else
    :data:`GUESS_PIECES` pieces spread evenly over it, each cut after a line end (or a space, for
    lines longer than a piece), together at most :data:`GUESS_SAMPLE_BYTES`; a file with no such
    place in its pieces is shown whole.

    Examples
    --------
    >>> data = b"".join(b"line %06d\\n" % k for k in range(300_000))   # 3.3 MB
    >>> sample = guess_sample(data)
    >>> len(sample) <= GUESS_SAMPLE_BYTES, sample.startswith(b"line 000000\\n"), sample.endswith(b"\\n")
    (True, True, True)
    >>> all(line.startswith(b"line ") and len(line) == 11 for line in sample.splitlines())
    True
    """
    if len(data) <= GUESS_SAMPLE_BYTES:
        return data
    size, step = GUESS_SAMPLE_BYTES // GUESS_PIECES, len(data) // GUESS_PIECES
    pieces = []
    for k in range(GUESS_PIECES):
        start = _boundary(data, k * step, k * step + size, last=False) if k else 0
        end = _boundary(data, start, start + size, last=True) if start >= 0 else -1
        if end > start:
            pieces.append(data[start:end])
    return b"".join(pieces) or data


def _guess(data: bytes) -> DecodedText | None:
    """Rule 6: charset_normalizer's best guess, decoded strictly, or None."""
    # imported here: only files that are neither UTF-8 nor plausible cp1252 need it, and
    # loading the detector costs start-up time of every command and of the workbench
    from charset_normalizer import from_bytes

    def strictly(best) -> DecodedText | None:
        if best is None:
            return None
        try:
            return DecodedText(data.decode(best.encoding), codecs.lookup(best.encoding).name)
        except (LookupError, UnicodeDecodeError):
            return None

    sample = guess_sample(data)
    decoded = strictly(from_bytes(sample).best())
    if decoded is None and sample is not data:  # the sample's guess does not fit the file: the whole file decides
        decoded = strictly(from_bytes(data).best())
    return decoded


def _western_or_other(data: bytes, text: str, codec: str) -> DecodedText:
    """Rule 5's second half: ``text``, the plausible cp1252 (or latin-1) reading of ``data``,
    unless its words show another code page (:func:`hbnlab.corpus.mojibake.doubted_words`, on
    the detector's sample of a large file) and a Windows code page of another European script
    reads the file without them (:func:`~hbnlab.corpus.mojibake.better_code_page`); either way
    the note says what was doubted."""
    sample = guess_sample(data)
    suspects = doubted_words(text if sample is data else sample.decode(codec))
    if not suspects:
        return DecodedText(text, codec)
    shown = ", ".join(repr(w) for w in suspects[:3])
    other = better_code_page(sample, len(suspects))
    if other is not None:
        try:
            return DecodedText(data.decode(other), other,
                               note=f"read as {other}, not {codec}: as {codec} it held {len(suspects)} words such "
                                    f"as {shown}")
        except UnicodeDecodeError:  # a byte the sample missed
            pass
    return DecodedText(text, codec, note=f"read as {codec}, uncertain: {len(suspects)} words such as {shown} look "
                                         f"like another code page, and none of {', '.join(CANDIDATE_CODE_PAGES)} "
                                         f"reads the file better")


def _detect(data: bytes) -> DecodedText:
    """Rules 1-7 of the module docstring."""
    bom = _bom(data)
    if bom is not None:
        return _decode_replacing(data, bom)
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
    if mostly_utf8(data):
        return _decode_replacing(data, "utf-8")
    try:
        text, codec = data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        text, codec = data.decode("latin-1"), "latin-1"
    if plausible_cp1252(text, data):
        return _western_or_other(data, text, codec)
    del text  # not kept while the detector works: two bytes a character for the cp1252 symbols
    guessed = _guess(data)
    if guessed is not None:
        return guessed
    return _decode_replacing(data, _FALLBACK)


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


def _decode_named(data: bytes, source: str, encoding: str) -> DecodedText:
    """A named codec: strictly, or a CorpusError naming the file, the line and the byte offset."""
    codec = codecs.lookup(encoding).name
    wide = codec.startswith(("utf-16", "utf-32"))
    looks = _looks_like_utf8(data) if wide else _looks_like(data)
    if looks is not None:
        if not wide:  # what the file would be as UTF-16 / UTF-32: binary data is skipped, not refused
            reason = _not_text_reason(_detect(data))
            if reason is not None:
                raise BinaryFileError(source, reason)
        raise CorpusError(f"{source}: the file looks like {looks}, not {encoding!r}", "encoding", AUTO)
    try:
        return DecodedText(data.decode("utf-8-sig" if codec == "utf-8" else encoding), encoding)
    except UnicodeDecodeError as exc:
        guess = _detect(data)  # binary data is judged by its best reading, whatever codec was named
        reason = _not_text_reason(guess)
        if reason is not None:
            raise BinaryFileError(source, reason) from None
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.start + 4].hex(" ")
        shown = "UTF-8" if codec == "utf-8" else repr(encoding)
        raise CorpusError(
            f"line {line} of {source}: cannot decode as {shown} at byte offset {exc.start} "
            f"(bytes {bad}: {exc.reason}); the file looks like {guess.encoding}", "encoding", AUTO
        ) from None


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
        ``utf-16-le``, ``cp1252``, charset_normalizer's name, or the given name),
        ``replaced`` (the number of undecodable sequences that became U+FFFD) and
        ``first_replaced`` (where the first of them are) and ``note`` (why a Windows code
        page other than cp1252 was chosen, or why cp1252 is uncertain; rule 5).

    Raises
    ------
    BinaryFileError
        The file is binary data (rule 0): ``reason`` says why.
    CorpusError
        With a named codec only: an unknown codec, a file that looks like UTF-16 / UTF-32 read
        with another codec, or an undecodable byte (its line and byte offset).

    Examples
    --------
    >>> decode_text("café".encode("utf-8"), "a.txt")
    DecodedText(text='café', encoding='utf-8', replaced=0, first_replaced=(), note='')
    >>> decode_text("café".encode("latin-1"), "a.txt")
    DecodedText(text='café', encoding='cp1252', replaced=0, first_replaced=(), note='')
    >>> decode_text("café".encode("utf-16"), "a.txt").encoding
    'utf-16'
    >>> d = decode_text("pétrole brut\\n".encode("utf-8") * 40 + b"l\\x92huile\\n", "t.csv")
    >>> d.encoding, d.replaced, d.text.endswith("l\\ufffdhuile\\n"), str(d.first_replaced[0])
    ('utf-8', 1, True, 'line 41, byte offset 561 (92)')
    """
    enc = check_encoding(encoding, source)
    magic = _magic_number(data)
    if magic is not None:
        raise BinaryFileError(source, magic)
    decoded = _detect(data) if enc == AUTO else _decode_named(data, source, enc)
    reason = _not_text_reason(decoded, data)
    if reason is not None:
        raise BinaryFileError(source, reason)
    return decoded


class EncodingTally:
    """Decode the files of one corpus and count what was used: ``meta['encodings']``
    (``{codec: number of files}``), ``meta['replaced_files']`` (the files where undecodable
    bytes became U+FFFD: ``{"file", "encoding", "replaced", "first"}``, ``replaced`` the number
    of sequences and ``first`` where the first :data:`MAX_REPORTED` are, as
    ``{"line", "offset", "bytes"}``) and, when some file's code page was a judgement call (rule
    5), ``meta['code_page_notes']`` (``{"file", "encoding", "note"}``).

    A binary file raises :class:`~hbnlab.corpus.base.BinaryFileError` and is not counted; the
    folder readers catch it and list the file in ``meta['ignored_files']``.
    """

    def __init__(self, encoding: str | None = AUTO):
        self.encoding = encoding  # checked by decode_text, whose errors name the file
        self.encodings: dict[str, int] = {}
        self.replaced_files: list[dict] = []
        self.code_page_notes: list[dict] = []

    def decode(self, data: bytes, source: str, name: str | None = None) -> str:
        """The text of one file (``name`` is how ``replaced_files`` lists it; default ``source``)."""
        d = decode_text(data, source, self.encoding)
        self.encodings[d.encoding] = self.encodings.get(d.encoding, 0) + 1
        if d.replaced:
            self.replaced_files.append({"file": source if name is None else name, "encoding": d.encoding,
                                        "replaced": d.replaced, "first": [r._asdict() for r in d.first_replaced]})
        if d.note:
            self.code_page_notes.append({"file": source if name is None else name, "encoding": d.encoding,
                                         "note": d.note})
        return d.text

    def meta(self) -> dict:
        """``encodings`` and ``replaced_files``; ``code_page_notes`` (``{"file", "encoding", "note"}``)
        when a file's code page was a judgement call (rule 5's second half)."""
        meta = {"encodings": dict(sorted(self.encodings.items(), key=lambda kv: (-kv[1], kv[0]))),
                "replaced_files": [dict(r) for r in self.replaced_files]}
        if self.code_page_notes:
            meta["code_page_notes"] = [dict(r) for r in self.code_page_notes]
        return meta


def replacement_places(entry: dict) -> str:
    """Where a ``replaced_files`` entry went wrong, in words: ``"1 sequence: line 1203, byte
    offset 51234 (92)"``."""
    n = int(entry.get("replaced", 0))
    places = "; ".join(str(Replacement(**r)) for r in entry.get("first", []))
    more = f"; ... {n - len(entry.get('first', []))} more" if n > len(entry.get("first", [])) else ""
    return f"{n} sequence{'s' if n != 1 else ''}: {places}{more}" if places else f"{n} sequences"


def encoding_summary(meta: dict) -> list[str]:
    """The encoding report of a corpus's ``meta`` as lines of text (empty when the reader
    recorded none, e.g. for the synthetic corpus), with the files skipped as binary data."""
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
        lines += [f"  {r['file']} ({r['encoding']}): {replacement_places(r)}" for r in replaced]
    else:
        lines.append("no file needed replacement characters")
    notes = meta.get("code_page_notes") or []
    if notes:
        lines.append(f"{len(notes)} file{'s' if len(notes) != 1 else ''} whose code page is a judgement call:")
        lines += [f"  {n['file']}: {n['note']}" for n in notes]
    binary = [f for f in meta.get("ignored_files") or [] if f["reason"].startswith(BINARY_REASON)]
    if binary:
        lines.append(f"{len(binary)} file{'s' if len(binary) != 1 else ''} skipped as binary data (not text):")
        lines += [f"  {f['file']}: {f['reason'][len(BINARY_REASON):]}" for f in binary]
    return lines

