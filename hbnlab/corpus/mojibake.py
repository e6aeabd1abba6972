"""Words that show a text was decoded with the wrong 8-bit code page, and the Windows code page
that reads a file without them.

cp1252 is a plausible reading of Turkish (cp1254), Polish, Czech or Hungarian (cp1250) text, and
of an English table with some Russian rows (cp1251): every byte decodes, most letters are ASCII
and the others are letters too.  Read so, their words give it away -- ``sevkiyatlarýnýn``
(sevkiyatlarının), ``by³o`` (było), ``jelentõsen`` (jelentősen), ``Ýêñïîðò`` (Экспорт) -- in
ways Western European text never does.  :func:`mojibake_words` lists such words:

* a symbol between two letters (``by³o``, ``mo¿na``: Polish ł ż read as ³ ¿);
* three or more letters, none of them ASCII, all Latin (``Ýêñïîðò``: a Cyrillic word); French,
  Spanish or German words mix accented letters with plain ones;
* Latin letters and letters of another script in one word (``cafй``: a Western word read in a
  Cyrillic code page);
* ``ý``, ``þ`` or ``ð`` in a text without Icelandic's ``á í ú æ`` (Turkish ı ş ğ read in cp1252);
* ``õ`` not followed by ``e`` in a text with acute vowels (Hungarian ő beside á é í ó ú:
  ``nõtt``, ``elõtt``; Portuguese writes õ in ``-ões``, ``-õe``, Estonian has no acute vowels).

:func:`better_code_page` tries the other Windows code pages of European scripts on a file whose
cp1252 reading has such words, and returns the one whose reading has the fewest (none at best),
when it decodes the file strictly.  charset_normalizer's answer is not used for this: on the
issue's Turkish table it answered iso8859-16, and among the Windows code pages it prefers cp1252.
"""
from __future__ import annotations

import codecs
import re

__all__ = ["CANDIDATE_CODE_PAGES", "MIN_SUSPECTS", "MIN_SUSPECT_SHARE", "better_code_page", "doubted_words",
           "mojibake_words"]

#: The Windows code pages tried for a file whose cp1252 reading has mojibake words: Central
#: European, Cyrillic, Greek, Turkish, Baltic.
CANDIDATE_CODE_PAGES = ("cp1250", "cp1251", "cp1253", "cp1254", "cp1257")

#: A reading is doubted from this many mojibake words on ...
MIN_SUSPECTS = 3
#: ... making at least this share of its words that hold a non-ASCII letter: one odd word is a
#: name or a typo, not a code page.
MIN_SUSPECT_SHARE = 0.1
#: A candidate replaces cp1252 when its reading has at most this share of cp1252's suspects.
_MAX_LEFT = 0.25

# cp1252's symbols at A1-BF (and x, /), which are not letters: inside a word they are a letter of
# another code page
_SYMBOLS = "¡¢£¤¥¦§¨©«¬®¯°±²³´¶·¸¹»¼½¾¿×÷"
_LETTERS = rf"[^\W\d_{_SYMBOLS}]+"  # \w less digits, _ and the symbols (\w holds ² and ½)
_WORD = re.compile(rf"{_LETTERS}(?:[{_SYMBOLS}]+{_LETTERS})*")
_HAS_SYMBOL = re.compile(rf"[{_SYMBOLS}]")
_ICELANDIC_LETTERS = re.compile("[ýþðÝÞÐ]")
_ICELANDIC_VOWELS = re.compile("[áíúæÁÍÚÆ]")
_LONE_O_TILDE = re.compile("[õÕ](?![eE])")
_ACUTE_VOWELS = re.compile("[áéíóúÁÉÍÓÚ]")
# Latin letters: ASCII, Latin-1 to Latin Extended-B (U+00C0-U+024F), Latin Extended Additional
_LATIN = "A-Za-z\u00c0-\u024f\u1e00-\u1eff"
_ALL_NON_ASCII_LATIN = re.compile("[\u00c0-\u024f\u1e00-\u1eff]{3,}")
_HAS_LATIN = re.compile(f"[{_LATIN}]")
_HAS_OTHER_SCRIPT = re.compile(f"[^{_LATIN}{_SYMBOLS}ªºµ]")


# what a cp1252 or latin-1 reading needs to hold for any word of it to be suspect: ý þ ð õ (or
# ˆ, its only letter outside Latin), a symbol, three non-ASCII letters in a row; each one
# character class, searched at tens of MB/s where the word scan manages a few
_TRIGGERS = (re.compile("[ýþðÝÞÐõÕˆ]"), _HAS_SYMBOL, re.compile("[\u00c0-\u024f]{3}"))


def _suspect(word: str, icelandic_vowels: bool, acute_vowels: bool) -> bool:
    """Does ``word`` (letters, maybe joined by symbols, at least one of them not ASCII) show a
    wrong code page?"""
    return bool(_HAS_SYMBOL.search(word)
                or (acute_vowels and _LONE_O_TILDE.search(word))
                or (not icelandic_vowels and _ICELANDIC_LETTERS.search(word))
                or _ALL_NON_ASCII_LATIN.fullmatch(word)
                or (_HAS_OTHER_SCRIPT.search(word) and _HAS_LATIN.search(word)))


def mojibake_words(text: str) -> list[str]:
    """The distinct words of ``text`` that show a wrong code page (module docstring), in order.

    >>> mojibake_words("Ýêñïîðò ïøåíèöû: le café où l'été dure; by³o, a héten nõtt, informações")
    ['Ýêñïîðò', 'ïøåíèöû', 'by³o', 'nõtt']
    >>> mojibake_words("ihracat sevkiyatlarýnýn çoðu")  # Turkish ı ğ read in cp1252
    ['sevkiyatlarýnýn', 'çoðu']
    >>> mojibake_words("Þórður fór í bæinn, það var gott"), mojibake_words("Põdral maja taga, ½ liitrit")
    ([], [])
    """
    return _scan(text)[0]


def _scan(text: str) -> tuple[list[str], int]:
    """The distinct mojibake words of ``text`` (in order of first occurrence) and the number of
    its distinct words holding a non-ASCII letter; each word is judged once."""
    icelandic_vowels = _ICELANDIC_VOWELS.search(text) is not None
    acute_vowels = _ACUTE_VOWELS.search(text) is not None
    words = dict.fromkeys(w for w in _WORD.findall(text) if not w.isascii())
    return [w for w in words if _suspect(w, icelandic_vowels, acute_vowels)], len(words)


def doubted_words(text: str) -> list[str]:
    """The mojibake words of ``text``, a cp1252 or latin-1 reading, when they are enough to doubt
    its code page (:data:`MIN_SUSPECTS`, :data:`MIN_SUSPECT_SHARE`), else [].

    >>> doubted_words("Le cœur de l'été: où est la forêt? Ça dépend.")
    []
    >>> doubted_words("ihracat sevkiyatlarýnýn çoðu gümrükte; Þeker ithalatý")
    ['sevkiyatlarýnýn', 'çoðu', 'Þeker', 'ithalatý']
    """
    if not any(p.search(text) for p in _TRIGGERS):
        return []
    suspects, n = _scan(text)
    return suspects if len(suspects) >= MIN_SUSPECTS and len(suspects) >= MIN_SUSPECT_SHARE * n else []


def better_code_page(sample: bytes, n_suspects: int) -> str | None:
    """The candidate code page (:data:`CANDIDATE_CODE_PAGES`) whose strict reading of ``sample``
    has the fewest mojibake words, at most a quarter of the ``n_suspects`` of the cp1252
    reading; None when no candidate does so well.  Candidates left with as few words (Turkish
    reads without any in cp1254 and cp1257) are told apart by charset_normalizer's coherence,
    the match of their letters with the letter frequencies of a language."""
    scores = {}
    for codec in CANDIDATE_CODE_PAGES:
        try:
            scores[codec] = len(mojibake_words(sample.decode(codec)))
        except UnicodeDecodeError:
            continue
    if not scores or min(scores.values()) > _MAX_LEFT * n_suspects:
        return None
    tied = [c for c, k in scores.items() if k == min(scores.values())]
    if len(tied) == 1:
        return tied[0]
    # imported here, as in hbnlab.corpus.encoding: loading the detector costs every command's start-up
    from charset_normalizer import from_bytes

    coherence = {_codec_name(m.encoding): m.coherence for m in from_bytes(sample, cp_isolation=tied)}
    return max(tied, key=lambda c: coherence.get(c, -1.0))


def _codec_name(name: str) -> str:
    return codecs.lookup(name).name
