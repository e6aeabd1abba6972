"""The workbench's own stop lists: a file the analyst uploads, kept in the data home under its content.

A config names such a list ``"own:<16 hex digits>"`` (the first digits of the SHA-256 of its words,
one per line): the name is as short as a URL parameter should be, it holds no server path, and two
uploads of the same words are one list.  The words live in ``<data home>/stoplists/<digits>.txt``;
the indexing (:meth:`hbnlab.pipeline.config.ExperimentConfig.indexing_dict`) reads them there, in
the page and in the job's worker alike, and what it builds -- the indexed data's
:class:`hbnlab.text.IndexingConfig`, hence manifests and model files -- holds the words themselves.
The command line takes the file's path instead (``--stop-words PATH``).
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from hbnlab.corpus.fetch import default_data_home
from hbnlab.export.atomic import write_text_atomic
from hbnlab.text.stopwords import StopListError, parse_stop_list

__all__ = ["OWN_PREFIX", "is_own_stop_list", "store_own_stop_list", "own_stop_list_words", "stop_list_dir"]

OWN_PREFIX = "own:"
_OWN = re.compile(r"own:[0-9a-f]{16}")


def stop_list_dir() -> Path:
    return default_data_home() / "stoplists"


def is_own_stop_list(value) -> bool:
    """Whether ``value`` names an uploaded list (``"own:"`` and 16 hex digits).

    >>> is_own_stop_list("own:0123456789abcdef"), is_own_stop_list("thesis")
    (True, False)
    """
    return isinstance(value, str) and _OWN.fullmatch(value) is not None


def store_own_stop_list(raw: bytes, filename: str) -> str:
    """Check an uploaded stop list (:func:`hbnlab.text.stopwords.parse_stop_list`: errors name the
    file and the line), keep its words in the data home and return its name ``"own:<digits>"``."""
    words = parse_stop_list(raw, filename)
    text = "\n".join(words) + "\n"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    path = stop_list_dir() / f"{digest}.txt"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, text)
    return OWN_PREFIX + digest


def own_stop_list_words(name: str) -> tuple[str, ...]:
    """The words of the uploaded list ``name``; StopListError when the data home does not hold it."""
    if not is_own_stop_list(name):
        raise StopListError(f"stop list {name!r}: expected an uploaded list 'own:' and 16 hex digits")
    path = stop_list_dir() / f"{name[len(OWN_PREFIX):]}.txt"
    try:
        raw = path.read_bytes()
    except OSError:
        raise StopListError(f"stop list {name!r} is not in this data home ({stop_list_dir()}); upload the list "
                            f"again on the Features page") from None
    return parse_stop_list(raw, name)
