"""Changing a default that changes numbers: a release of ``FutureWarning`` first, as scikit-learn does.

scikit-learn changed ``MultinomialNB(force_alpha=False)`` to ``True`` in two steps: in 1.2 the
default became the sentinel ``"warn"``, which behaves as the old value and warns that the default
will change in 1.4; in 1.4 the default became ``True`` and the sentinel went.  Whoever passes a
value explicitly never sees the warning, and a model that was fitted with the old default can be
refitted as it was.  hbnlab does the same with one table:

* :data:`DEFAULT_CHANGES` declares every default being changed -- the estimator, the parameter,
  the old and the new value, the release that switches (one :class:`DefaultChange` each);
* the estimator's ``__init__`` default is :data:`WARN` (the string ``"warn"``, so ``get_params``,
  ``clone`` and a model file keep it like any other value) and its declared constraints accept it
  (:data:`WARN_CHOICE`);
* ``fit`` calls :func:`resolve_default`, which returns the value to use (the old one for
  :data:`WARN`) and warns once per call, naming the estimator, the parameter, both values and the
  release;
* ``CHANGELOG.md`` lists the change under the release that warns and again under the one that
  switches;
* once ``hbnlab.__version__`` reaches the release, :func:`expired_changes` lists the entry
  (``tests/test_deprecation.py`` fails on it): make the new value the plain default, remove the
  entry and the sentinel.

>>> change = DefaultChange("Demo", "rule", old="all", new="cv", version="99.0.0")
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     value = resolve_default("Demo", "rule", WARN, changes=(change,))
>>> value, caught[0].category.__name__
('all', 'FutureWarning')
>>> resolve_default("Demo", "rule", "cv", changes=(change,))  # given explicitly: no warning
'cv'
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

import hbnlab
from hbnlab.bounds import Choice

__all__ = ["WARN", "WARN_CHOICE", "DefaultChange", "DEFAULT_CHANGES", "resolve_default", "expired_changes",
           "version_tuple"]

#: The sentinel default of a parameter whose default is changing: behaves as the old value and warns.
WARN = "warn"


#: Add to a parameter's list in ``_parameter_constraints`` while its default is :data:`WARN`.
WARN_CHOICE = Choice((WARN,))


def version_tuple(version: str) -> tuple[int, ...]:
    """``"0.6.0"`` -> ``(0, 6)``: the leading release numbers without trailing zeros (a suffix
    such as ``.dev1`` or ``rc2`` is ignored), for comparing hbnlab versions.

    >>> version_tuple("0.10.1") > version_tuple("0.9"), version_tuple("1.2.0rc1")
    (True, (1, 2))
    """
    m = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(version))
    if m is None:
        raise ValueError(f"not a version number: {version!r} (expected e.g. '0.6.0')")
    parts = [int(p) for p in m.group(1).split(".")]
    while len(parts) > 1 and parts[-1] == 0:  # 0.6 == 0.6.0
        parts.pop()
    return tuple(parts)


@dataclass(frozen=True)
class DefaultChange:
    """One default being changed: ``estimator``'s ``param`` goes from ``old`` to ``new`` in
    hbnlab ``version``; ``why`` says what the new value changes (a CHANGELOG line)."""

    estimator: str
    param: str
    old: object
    new: object
    version: str
    why: str = ""

    def __post_init__(self):
        version_tuple(self.version)  # a readable version, checked when the table is written
        if self.old == WARN or self.new == WARN:
            raise ValueError(f"{self.estimator}.{self.param}: the old and new defaults cannot be the sentinel {WARN!r}")

    def message(self) -> str:
        why = f" ({self.why})" if self.why else ""
        return (f"{self.estimator}: the default of {self.param} changes from {self.old!r} to {self.new!r} in hbnlab "
                f"{self.version}{why}. Pass {self.param}={self.old!r} to keep today's results, or "
                f"{self.param}={self.new!r} to adopt the new default; either silences this warning.")


#: Every default being changed (empty: no change is in its warning release).
DEFAULT_CHANGES: tuple[DefaultChange, ...] = ()


def resolve_default(estimator: str, param: str, value, *, changes=None, stacklevel: int = 3):
    """The value to use for ``param`` of ``estimator``: ``value`` itself, or, when it is the
    sentinel :data:`WARN`, the old default of the declared change, with a ``FutureWarning`` that
    names the estimator, the parameter, both values and the release.

    ``changes`` replaces :data:`DEFAULT_CHANGES` (tests).  A :data:`WARN` without a declared change
    is a ``ValueError`` naming both (a sentinel left behind after its change was removed)."""
    if not (isinstance(value, str) and value == WARN):
        return value
    table = DEFAULT_CHANGES if changes is None else changes
    for change in table:
        if change.estimator == estimator and change.param == param:
            warnings.warn(change.message(), FutureWarning, stacklevel=stacklevel)
            return change.old
    raise ValueError(f"{estimator}: {param}={WARN!r} but no default change of {param} is declared in "
                     "hbnlab._deprecation.DEFAULT_CHANGES")


def expired_changes(changes=None, version: str | None = None) -> list[DefaultChange]:
    """The declared changes whose release ``version`` (default ``hbnlab.__version__``) has
    reached: their warning cycle is over and the new value should be the plain default."""
    now = version_tuple(hbnlab.__version__ if version is None else version)
    table = DEFAULT_CHANGES if changes is None else changes
    return [c for c in table if version_tuple(c.version) <= now]
