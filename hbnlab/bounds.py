"""The declared bounds of hbnlab's numeric settings: one table, read by everyone.

A setting that sizes an allocation (EM restarts, hidden states, a table's rows, a synthetic corpus)
or that a widget of the workbench shows has its range here, once.  The estimators check their
hyper-parameters against it before they allocate, the command line checks its options against it
before it loads a corpus, :class:`hbnlab.pipeline.config.ExperimentConfig` (the workbench and the URL)
refuses what lies outside it, and the workbench's widgets take their ``min_value`` / ``max_value``
from it, so a value the config accepts is a value the widget can show.

Like scikit-learn's ``_parameter_constraints``: a declared table and one check, whose error names the
parameter, the range and the value:

>>> N_RESTARTS.check(64)
64
>>> N_RESTARTS.check(10**9)
Traceback (most recent call last):
...
hbnlab.bounds.BoundsError: n_restarts must be an integer in 1..1024, got 1000000000
>>> N_RESTARTS.check(0, name="--n-restarts")
Traceback (most recent call last):
...
hbnlab.bounds.BoundsError: --n-restarts must be an integer in 1..1024, got 0

Every estimator declares its hyper-parameters in a class attribute ``_parameter_constraints`` (name ->
list of alternatives: a :class:`Bound`, open or closed at either end and without an upper end when
``hi`` is ``math.inf``; a :class:`Choice` of options; ``None``, :data:`BOOLEAN`, :data:`CALLABLE` or
another :class:`Kind`), and :func:`validate_params` checks them all before every ``fit`` (applied by
:class:`hbnlab.models.base.ParameterConstraintsMixin`, never called by hand in a ``fit``); a value
passes when any alternative accepts it:

>>> validate_params({"k": 0}, {"k": [Bound("k", 1, math.inf)]})
Traceback (most recent call last):
...
hbnlab.bounds.BoundsError: k must be an integer >= 1, got 0
>>> validate_params({"weighting": "bm25"}, {"weighting": [Choice(("tf", "tfidf", "logtfidf"))]})
Traceback (most recent call last):
...
hbnlab.bounds.BoundsError: weighting must be one of ('tf', 'tfidf', 'logtfidf'), got 'bm25'
>>> validate_params({"n_features": None, "leak": 0.5}, {"n_features": [Bound("n_features", 1, math.inf), None],
...                                                     "leak": [Bound("leak", 0, 1, integer=False, hi_open=True)]})
>>> validate_params({"n_features": 0}, {"n_features": [Bound("n_features", 1, math.inf), None]})
Traceback (most recent call last):
...
hbnlab.bounds.BoundsError: n_features must be an integer >= 1 or None, got 0

The one bound that joins two settings is an HBN node's table: a node under ``B`` hidden parents of ``k``
states has up to ``k ** B`` rows, enumerated for every pattern in the E-step
(:func:`check_table_rows`).
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from hbnlab._validation import HbnlabError

__all__ = ["Bound", "BoundsError", "Choice", "Kind", "NONE", "BOOLEAN", "CALLABLE", "validate_params",
           "describe_allowed", "N_RESTARTS", "HIDDEN_STATES", "ALPHA", "SEED", "SYNTHETIC_SIZE", "MIN_DF",
           "N_FEATURES", "TREE_TERMS", "SCREEN_ITER", "SCREEN_KEEP", "MAX_WORKERS", "MAX_TABLE_ROWS", "MAX_PARENTS",
           "KDB_PARENTS", "hbn_table_rows", "check_parents", "check_table_rows", "check_tree_params", "shown"]


class BoundsError(HbnlabError, ValueError):
    """A numeric setting outside its declared bounds; the message names the setting."""


#: An integer longer than this is shown by its number of digits (a URL or ``--param`` may carry thousands).
SHOWN_DIGITS = 30


def shown(value) -> str:
    """``repr(value)`` for an error message, but an integer of more than :data:`SHOWN_DIGITS` digits as
    its length: its repr would fill the message, and past 4300 digits ``repr`` itself refuses.

    >>> shown(1024), shown("two"), shown(10**400), shown(-10**5000)
    ('1024', "'two'", 'an integer of 401 digits', 'an integer of 5001 digits')
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        magnitude = abs(int(value))
        if magnitude >= 10**SHOWN_DIGITS:
            digits = int((magnitude.bit_length() - 1) * math.log10(2)) + 1  # exact or one short
            return f"an integer of {digits + (magnitude >= 10**digits)} digits"
    return repr(value)


@dataclass(frozen=True)
class Bound:
    """The range ``lo..hi`` of one setting, integer or real: closed at both ends unless ``lo_open`` /
    ``hi_open``; ``hi = math.inf`` has no upper end (the value must still be finite).

    >>> Bound("C", 0, math.inf, integer=False, lo_open=True).describe()
    'a finite number > 0'
    >>> Bound("held_out", 0, 1, integer=False, lo_open=True, hi_open=True).describe()
    'a number in (0, 1)'
    """

    name: str
    lo: float
    hi: float
    integer: bool = True
    lo_open: bool = False
    hi_open: bool = False

    def __contains__(self, value) -> bool:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return False
        if self.integer and not isinstance(value, numbers.Integral):
            return False
        if not isinstance(value, numbers.Rational) and not math.isfinite(value):
            return False  # an int or a Fraction is finite however long (math.isfinite overflows past 1e308)
        above = value > self.lo if self.lo_open else value >= self.lo
        below = value < self.hi if self.hi_open else value <= self.hi
        return bool(above and below)

    def describe(self) -> str:
        if math.isinf(self.hi):
            kind = "an integer" if self.integer else "a finite number"
            return kind if math.isinf(self.lo) else f"{kind} {'>' if self.lo_open else '>='} {self.lo:g}"
        if self.integer and not (self.lo_open or self.hi_open):
            return f"an integer in {self.lo}..{self.hi}"
        left, right = "(" if self.lo_open else "[", ")" if self.hi_open else "]"
        return f"{'an integer' if self.integer else 'a number'} in {left}{self.lo:g}, {self.hi:g}{right}"

    def check(self, value, *, name: str | None = None):
        """``value`` (as ``int`` or ``float``) when it lies in the range; :class:`BoundsError` naming
        ``name`` (default the bound's) otherwise."""
        if value not in self:
            raise BoundsError(f"{name or self.name} must be {self.describe()}, got {shown(value)}")
        return int(value) if self.integer else float(value)


@dataclass(frozen=True, eq=False)
class Choice:
    """A fixed set of options (strings, ``None``); ``options`` may also be a live mapping (a registry
    of names), read at each check.  A value is accepted when it equals an option of the same type.

    >>> "tf" in Choice(("tf", "tfidf")), 1 in Choice(("1",)), Choice(("fisher",)).describe()
    (True, False, "'fisher'")
    """

    options: tuple | Mapping

    @property
    def values(self) -> tuple:
        return tuple(sorted(self.options)) if isinstance(self.options, Mapping) else tuple(self.options)

    def __contains__(self, value) -> bool:
        return any(isinstance(value, type(o)) and value == o for o in self.values)

    def describe(self) -> str:
        values = self.values
        return repr(values[0]) if len(values) == 1 else f"one of {values!r}"


@dataclass(frozen=True, eq=False)
class Kind:
    """A kind of value described in words: ``test(value)`` decides (:data:`NONE`, :data:`BOOLEAN`,
    :data:`CALLABLE`, an instance of a class)."""

    description: str
    test: Callable

    def __contains__(self, value) -> bool:
        return bool(self.test(value))

    def describe(self) -> str:
        return self.description


#: ``None`` (a bare ``None`` in a list of alternatives means the same).
NONE = Kind("None", lambda v: v is None)
#: ``True`` or ``False`` (numpy's booleans too).
BOOLEAN = Kind("True or False", lambda v: isinstance(v, (bool, np.bool_)))
#: Anything callable (a function, a callback).
CALLABLE = Kind("a callable", callable)


def describe_allowed(allowed) -> str:
    """The alternatives in words, ``"a, b or c"``; beside other alternatives a :class:`Choice` lists
    its options one by one.

    >>> describe_allowed([HIDDEN_STATES, Choice(("auto", "auto-holdout"))])
    "an integer in 2..8, 'auto' or 'auto-holdout'"
    """
    if len(allowed) == 1:
        return (NONE if allowed[0] is None else allowed[0]).describe()
    words = []
    for c in allowed:
        words.extend(map(repr, c.values) if isinstance(c, Choice) else [(NONE if c is None else c).describe()])
    return f"{', '.join(words[:-1])} or {words[-1]}"


def validate_params(params, constraints: Mapping, *, names: Mapping | None = None, owner: str | None = None) -> None:
    """Check every declared parameter of ``params`` (an estimator, read by ``get_params(deep=False)``,
    or a mapping) against its list of alternatives in ``constraints``; a value passes when any
    alternative accepts it.  :class:`BoundsError` names the first parameter that does not (by
    ``names[parameter]`` when given: a command-line flag), what is allowed and the value, after
    ``owner`` and a colon when given (the estimator, as every ``fit`` reports it:
    :class:`hbnlab.models.base.ParameterConstraintsMixin`).  Parameters absent from ``params`` are
    not checked.

    >>> validate_params({"B": 1}, {"B": [Bound("B", 2, math.inf), None]})
    Traceback (most recent call last):
    ...
    hbnlab.bounds.BoundsError: B must be an integer >= 2 or None, got 1
    >>> validate_params({"shrinkage": 1}, {"shrinkage": [BOOLEAN]})
    Traceback (most recent call last):
    ...
    hbnlab.bounds.BoundsError: shrinkage must be True or False, got 1
    >>> validate_params({"tol": -1.0}, {"tol": [Bound("tol", 0, math.inf, integer=False)]}, owner="HBNClassifier")
    Traceback (most recent call last):
    ...
    hbnlab.bounds.BoundsError: HBNClassifier: tol must be a finite number >= 0, got -1.0
    """
    if not isinstance(params, Mapping):
        params = params.get_params(deep=False)
    for name, allowed in constraints.items():
        if name not in params:
            continue
        value = params[name]
        if not any(value in (NONE if c is None else c) for c in allowed):
            raise BoundsError(f"{owner + ': ' if owner else ''}{(names or {}).get(name, name)} must be "
                              f"{describe_allowed(allowed)}, got {shown(value)}")


#: EM restarts of the tree learners (thesis: 64); each restart holds its own tables.
N_RESTARTS = Bound("n_restarts", 1, 1024)
#: States of a hidden node (2, binary, is the thesis's).
HIDDEN_STATES = Bound("hidden_states", 2, 8)
#: A clustering's alpha (AVG and OR below one, DEP about a hundred): finite, so merge costs stay finite.
ALPHA = Bound("alpha", 0.0, 1e6, integer=False)
#: Seeds (``random_state``, a synthetic corpus's seed): what every random generator downstream takes.
SEED = Bound("random_state", 0, 2**31 - 1)
#: Documents of a synthetic corpus.
SYNTHETIC_SIZE = Bound("synthetic_size", 20, 200_000)
#: An indexing's minimum document frequency.
MIN_DF = Bound("min_df", 1, 1000)
#: Selected terms per class.
N_FEATURES = Bound("n_features", 1, 5000)
#: Terms a tree learner's tree holds (0: every selected term).
TREE_TERMS = Bound("tree_terms", 0, 5000)
#: E-steps after which the weaker EM restarts are dropped (0: no screening).
SCREEN_ITER = Bound("screen_iter", 0, 50)
#: Restarts the screening keeps.
SCREEN_KEEP = Bound("screen_keep", 1, 1024)
MAX_WORKERS = Bound("HBNLAB_MAX_WORKERS", 1, 64)
#: Term parents of each term of a KDB (Sahami 1996 reports k = 0..5): a term's table has 2 ** (k + 1) rows
#: per class, and its fit and scoring take 2 ** (k + 1) sparse products; at k = 10 and 5000 terms the
#: counts hold 164 MB, at k = 25 they would ask for 30 GiB.
KDB_PARENTS = Bound("k", 0, 10)

#: The most nodes below one HBN node (its parents in the network).
MAX_PARENTS = 20
#: The most rows of one HBN table (2 ** MAX_PARENTS: the binary tree's bound).
MAX_TABLE_ROWS = 2**MAX_PARENTS


def _parents_of(B) -> str:
    return f"{B:,}" if isinstance(B, numbers.Integral) and abs(int(B)) < 10**SHOWN_DIGITS else shown(B)


def check_parents(B, *, what: str = "an HBN") -> None:
    """Refuse an HBN whose nodes would have more than :data:`MAX_PARENTS` parents (``B``), before
    any ``k ** B`` is computed: at ``B = 10**12`` that power alone would never finish.

    >>> check_parents(10**12)
    Traceback (most recent call last):
    ...
    hbnlab.bounds.BoundsError: an HBN at B = 1,000,000,000,000: a node would have 1,000,000,000,000 parents, \
more than the 20 (MAX_PARENTS) a fit accepts; choose B <= 20
    """
    if B > MAX_PARENTS:
        raise BoundsError(f"{what} at B = {_parents_of(B)}: a node would have {_parents_of(B)} parents, more than "
                          f"the {MAX_PARENTS} (MAX_PARENTS) a fit accepts; choose B <= {MAX_PARENTS}")


def hbn_table_rows(B: int, hidden_states) -> int:
    """Rows of the largest table of an HBN with branching factor ``B`` and hidden nodes of
    ``hidden_states`` states: ``k ** B`` (a node may have B hidden parents); 0 for a search
    (``"auto"`` changes one node at a time, under the fit's own limits).  ``B`` above
    :data:`MAX_PARENTS` is a :class:`BoundsError` (:func:`check_parents`), not a power that never ends."""
    if isinstance(hidden_states, bool) or not isinstance(hidden_states, numbers.Integral):
        return 0
    check_parents(B)
    return int(hidden_states) ** int(B)


def check_table_rows(B: int, hidden_states, *, what: str = "an HBN") -> None:
    """Refuse an HBN whose nodes would have more than :data:`MAX_PARENTS` parents (``B``), or whose
    ``hidden_states``-state nodes under ``B`` parents would have more table rows than
    :data:`MAX_TABLE_ROWS`, naming the settings and the limit.

    >>> check_table_rows(12, 8)
    Traceback (most recent call last):
    ...
    hbnlab.bounds.BoundsError: an HBN with 8 hidden states at B = 12: a node's table would have 68,719,476,736 \
rows, more than the 1,048,576 a fit accepts; choose a smaller B or fewer hidden_states
    """
    check_parents(B, what=what)
    rows = hbn_table_rows(B, hidden_states)
    if rows > MAX_TABLE_ROWS:
        raise BoundsError(f"{what} with {hidden_states} hidden states at B = {B}: a node's table would have {rows:,} "
                          f"rows, more than the {MAX_TABLE_ROWS:,} a fit accepts; choose a smaller B or fewer "
                          "hidden_states")


def env_integer(bound: Bound, default: int) -> int:
    """The integer environment variable ``bound.name`` (``default`` when unset or blank), checked
    against ``bound``: a :class:`BoundsError` naming the variable for text or a value out of range.

    >>> import os; os.environ["HBNLAB_MAX_WORKERS"] = "two"
    >>> env_integer(MAX_WORKERS, 2)
    Traceback (most recent call last):
    ...
    hbnlab.bounds.BoundsError: HBNLAB_MAX_WORKERS must be an integer in 1..64, got 'two'
    >>> del os.environ["HBNLAB_MAX_WORKERS"]; env_integer(MAX_WORKERS, 2)
    2
    """
    import os

    text = os.environ.get(bound.name, "").strip()
    if not text:
        return bound.check(default)
    try:
        value = int(text)
    except ValueError:
        raise BoundsError(f"{bound.name} must be {bound.describe()}, got {text!r}") from None
    return bound.check(value)


def check_tree_params(*, B, alpha, n_restarts, hidden_states, direction: str = "hbn", names=None,
                      what: str = "an HBN") -> None:
    """The bounds of a tree learner's hyper-parameters, checked before anything is allocated:
    ``n_restarts``, ``alpha``, a number of ``hidden_states`` and, for an HBN, its largest table.

    ``names`` maps a parameter to the name the error gives it (a command-line flag), ``what`` names
    the learner; ``B`` is
    checked by :func:`hbnlab._validation.check_branching_factor` and ``hidden_states`` may also be
    a search's name (checked by the estimator)."""
    names = names or {}
    N_RESTARTS.check(n_restarts, name=names.get("n_restarts"))
    ALPHA.check(alpha, name=names.get("alpha"))
    if not isinstance(hidden_states, str):
        HIDDEN_STATES.check(hidden_states, name=names.get("hidden_states"))
    if direction == "hbn":
        check_table_rows(B, hidden_states, what=what)
