"""Stop lists shipped with hbnlab.

* ``"thesis"`` -- English function words (articles, determiners, pronouns, prepositions,
  conjunctions, auxiliary and modal verbs, plus the pieces of contractions the letter-run
  tokenizer splits off).  The thesis removes "function words (i.e. topic-neutral words such as
  articles, prepositions)" (Karčiauskas 2002, secs 1.3, 4.1.2) without printing its list; this one is
  composed from the closed word classes of English grammar (see the file's header).
* ``"smart"`` -- the SMART system's 571-line English stop list used by de Campos et al.
  (sec. 4).
* ``"sklearn"`` -- scikit-learn's ``ENGLISH_STOP_WORDS`` (the Glasgow IR group list, 318 words),
  read from the installed scikit-learn.
* ``"none"`` -- the empty list.

The two lists hbnlab ships are text files in ``hbnlab/data/`` (one word per line, ``#``
comments), read with :mod:`importlib.resources`.
"""
from __future__ import annotations

from functools import cache
from importlib import resources

STOPLIST_NAMES = ("thesis", "smart", "sklearn", "none")


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
    name : {"thesis", "smart", "sklearn", "none"}

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
    if name == "sklearn":
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        return frozenset(w.lower() for w in ENGLISH_STOP_WORDS)
    if name in ("thesis", "smart"):
        text = resources.files("hbnlab").joinpath("data").joinpath(f"stopwords_{name}.txt").read_text(encoding="utf-8")
        return frozenset(w.lower() for w in read_word_list(text))
    raise ValueError(f"stop list must be one of {STOPLIST_NAMES} or a tuple of words, got {name!r}")
