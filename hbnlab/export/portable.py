"""Paths inside the data home, written relative to it in files that leave hbnlab.

Model files and reports record settings and provenance (an upload's stored path, the Reuters
cache, ...).  Those paths begin with the data home (``$HBNLAB_DATA_HOME``, else
``~/.cache/hbnlab``), which names the machine's user and folders; :func:`strip_data_home`
rewrites them relative to it (``<data home>/uploads/ab12/c.csv`` -> ``uploads/ab12/c.csv``, the
data home itself -> ``.``) in every string of a JSON-like value.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

#: Characters that continue a path component: a data home followed by one of them is another folder.
_PATH_CHAR = r"[\w.~-]"


def _home_forms() -> list[str]:
    """The spellings of the data home as given, absolute and resolved (longest first)."""
    from hbnlab.corpus.fetch import default_data_home

    home = default_data_home()
    forms = {str(home), str(home.absolute())}
    try:
        forms.add(str(home.resolve()))
    except (OSError, RuntimeError):
        pass
    forms = {f.rstrip("/" + os.sep) for f in forms}
    return sorted((f for f in forms if len(f) > 1 and Path(f).is_absolute()), key=len, reverse=True)


def data_home_pattern() -> re.Pattern | None:
    """A regular expression of the data home's spellings followed by a separator or by the end of
    the path; None when the data home has no absolute spelling worth hiding (``/``)."""
    forms = _home_forms()
    if not forms:
        return None
    alternatives = "|".join(re.escape(f) for f in forms)
    return re.compile(rf"(?:{alternatives})(?:([/\\]+)|(?!{_PATH_CHAR}))")


def strip_data_home(value, pattern: re.Pattern | None = None):
    """``value`` (str, or dicts / lists / tuples of them, other values kept) with every path in the
    data home written relative to it; dict keys too.  A copy: ``value`` is not changed."""
    if pattern is None:
        pattern = data_home_pattern()
        if pattern is None:
            return value
    if isinstance(value, str):
        return pattern.sub(lambda m: "" if m.group(1) else ".", value)
    if isinstance(value, dict):
        return {strip_data_home(k, pattern): strip_data_home(v, pattern) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_data_home(v, pattern) for v in value]
    if isinstance(value, tuple):
        return tuple(strip_data_home(v, pattern) for v in value)
    return value


__all__ = ["strip_data_home", "data_home_pattern"]
