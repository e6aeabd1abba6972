"""Stop lists shipped with hbnlab, and a stop list read from a file.

* ``"thesis"`` -- English function words (articles, determiners, pronouns, prepositions,
  conjunctions, auxiliary and modal verbs, plus the pieces of contractions the letter-run
  tokenizer splits off).  The thesis removes "function words (i.e. topic-neutral words such as
  articles, prepositions)" (Karčiauskas 2002, secs 1.3, 4.1.2) without printing its list; this one is
  composed from the closed word classes of English grammar (see the file's header).  The default:
  Table 4.10 is computed with it.
* ``"english"`` -- scikit-learn's ``ENGLISH_STOP_WORDS`` (the Glasgow IR group's list, 318 words),
  read from the installed scikit-learn: the list ``CountVectorizer(stop_words="english")`` removes, so
  an analyst's scikit-learn baseline and hbnlab index the same terms.  (The SMART list shipped in
  ``hbnlab/data`` is longer, 570 words, and removes content words too, e.g. "available", "example",
  "changes", "best"; it stays available as ``"smart"`` for de Campos et al.'s protocol.)
* ``"smart"`` -- the SMART system's 571-line English stop list used by de Campos et al.
  (sec. 4).
* ``"sklearn"`` -- the same list as ``"english"`` under the name de Campos's protocol option uses.
* ``"none"`` -- the empty list.  Every list removes who / what / where / when / why / how: a corpus
  of questions may need ``"none"`` (or its own list).

Any other list is a UTF-8 text file of one word per line (:func:`read_stop_list`); the workbench and
the command line resolve a name or a path with :func:`resolve_stop_words` and carry the file's words
(not its path) in configs, manifests and model files, so a model classifies the same text anywhere.

The two lists hbnlab ships are text files in ``hbnlab/data/`` (one word per line, ``#``
comments), read with :mod:`importlib.resources`.
"""
from __future__ import annotations

import os
from functools import cache
from importlib import resources
from pathlib import Path

from hbnlab._validation import HbnlabError

#: The named stop lists, the default first.  Every frontend offers these (and a file).
STOPLIST_NAMES = ("thesis", "english", "smart", "sklearn", "none")
#: What each name is, in a few words (the workbench's and the command line's help).
STOPLIST_DESCRIPTIONS = {
    "thesis": "the thesis's function words (default; Table 4.10)",
    "english": "scikit-learn's English list (318 words)",
    "smart": "the SMART system's list (570 words, de Campos et al.)",
    "sklearn": "scikit-learn's English list (as 'english')",
    "none": "no stop words",
}


class StopListError(HbnlabError, ValueError):
    """A stop-list file could not be read; the message names the file and the line."""


def read_word_list(text: str) -> list[str]:
    """Words of a one-word-per-line list: blank lines and ``#`` comment lines are skipped."""
    out = []
    for line in text.splitlines():
        w = line.strip()
        if w and not w.startswith("#"):
            out.append(w)
    return out


@cache
def load_stopwords(name: str) -> frozenset:
    """The named stop list as a frozenset of lower-case words.

    Parameters
    ----------
    name : {"thesis", "english", "smart", "sklearn", "none"}

    Returns
    -------
    frozenset of str

    Examples
    --------
    >>> len(load_stopwords("smart"))  # 571 lines, "would" twice
    570
    >>> "the" in load_stopwords("thesis")
    True
    """
    if name == "none":
        return frozenset()
    if name in ("english", "sklearn"):
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        return frozenset(w.lower() for w in ENGLISH_STOP_WORDS)
    if name in ("thesis", "smart"):
        text = resources.files("hbnlab").joinpath("data").joinpath(f"stopwords_{name}.txt").read_text(encoding="utf-8")
        return frozenset(w.lower() for w in read_word_list(text))
    raise ValueError(f"stop list must be one of {STOPLIST_NAMES} or a tuple of words, got {name!r}")


def read_stop_list(path) -> tuple[str, ...]:
    """The words of a stop-list file (:func:`parse_stop_list` of its bytes).

    Raises
    ------
    StopListError
        Naming the file (and the line): the file is missing or unreadable, or its text is not a
        stop list.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
    ...     _ = f.write(chr(10).join(["# my list", "The", "", "of", "the"]))
    >>> read_stop_list(f.name)
    ('the', 'of')
    >>> os.unlink(f.name)
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise StopListError(f"stop list {str(p)!r}: cannot read it ({e.strerror or e})") from None
    return parse_stop_list(raw, str(p))


def parse_stop_list(raw: bytes, source: str) -> tuple[str, ...]:
    """The words of a stop list's bytes: UTF-8 text (a byte-order mark is allowed), one word per
    line, blank lines and lines starting with ``#`` skipped, words lower-cased, first occurrence kept.
    ``source`` (a file name) names the list in errors.

    Raises
    ------
    StopListError
        Naming ``source`` and the line: a line is not UTF-8, a line holds more than one word, or
        there is no word at all (``"none"`` is the empty list).
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    words, seen = [], set()
    for number, line in enumerate(raw.split(b"\n"), start=1):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as e:
            raise StopListError(f"stop list {source!r}, line {number}: not UTF-8 text (byte 0x{line[e.start]:02x} "
                                f"at column {e.start + 1}); save the file as UTF-8") from None
        w = text.strip()
        if not w or w.startswith("#"):
            continue
        if len(w.split()) > 1:
            raise StopListError(f"stop list {source!r}, line {number}: expected one word per line, got {w!r}")
        w = w.lower()
        if w not in seen:
            seen.add(w)
            words.append(w)
    if not words:
        raise StopListError(f"stop list {source!r}: no words (one word per line; for no stop words use 'none')")
    return tuple(words)


def resolve_stop_words(value) -> str | tuple[str, ...]:
    """A stop-list choice as :class:`hbnlab.text.IndexingConfig` takes it: a name of
    :data:`STOPLIST_NAMES` stays a name, a path becomes the file's words (:func:`read_stop_list`),
    a sequence of words stays the words.

    Raises
    ------
    StopListError
        For a string that is neither a name nor an existing file, naming both.
    """
    if isinstance(value, (tuple, list)):
        return tuple(str(w) for w in value)
    text = os.fspath(value) if isinstance(value, os.PathLike) else str(value)
    if text in STOPLIST_NAMES:
        return text
    if not Path(text).is_file():
        raise StopListError(f"{text!r} is neither a stop list ({', '.join(STOPLIST_NAMES)}) "
                            f"nor a file of one word per line")
    return read_stop_list(text)


def describe_stop_words(stopwords) -> str:
    """A stop-list setting in a few words: a name, or "N words of the analyst's own list".

    >>> describe_stop_words("thesis"), describe_stop_words(("a", "b"))
    ('thesis', 'own list of 2 words')
    """
    if isinstance(stopwords, str):
        return stopwords
    return f"own list of {len(stopwords)} words"
