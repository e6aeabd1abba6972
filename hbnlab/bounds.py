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

The one bound that joins two settings is an HBN node's table: a node under ``B`` hidden parents of ``k``
states has up to ``k ** B`` rows, enumerated for every pattern in the E-step
(:func:`check_table_rows`).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from hbnlab._validation import HbnlabError

__all__ = ["Bound", "BoundsError", "N_RESTARTS", "HIDDEN_STATES", "ALPHA", "SEED", "SYNTHETIC_SIZE", "MIN_DF",
           "N_FEATURES", "TREE_TERMS", "SCREEN_ITER", "SCREEN_KEEP", "MAX_WORKERS", "MAX_TABLE_ROWS", "MAX_PARENTS",
           "hbn_table_rows", "check_table_rows", "check_tree_params"]


class BoundsError(HbnlabError, ValueError):
    """A numeric setting outside its declared bounds; the message names the setting."""


@dataclass(frozen=True)
class Bound:
    """The closed range ``lo..hi`` of one setting, integer or real."""

    name: str
    lo: float
    hi: float
    integer: bool = True

    def __contains__(self, value) -> bool:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return False
        if self.integer and not isinstance(value, numbers.Integral):
            return False
        return math.isfinite(value) and self.lo <= value <= self.hi

    def describe(self) -> str:
        return f"an integer in {self.lo}..{self.hi}" if self.integer else f"a number in [{self.lo:g}, {self.hi:g}]"

    def check(self, value, *, name: str | None = None):
        """``value`` (as ``int`` or ``float``) when it lies in the range; :class:`BoundsError` naming
        ``name`` (default the bound's) otherwise."""
        if value not in self:
            raise BoundsError(f"{name or self.name} must be {self.describe()}, got {value!r}")
        return int(value) if self.integer else float(value)


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

#: The most nodes below one HBN node (its parents in the network).
MAX_PARENTS = 20
#: The most rows of one HBN table (2 ** MAX_PARENTS: the binary tree's bound).
MAX_TABLE_ROWS = 2**MAX_PARENTS


def hbn_table_rows(B: int, hidden_states) -> int:
    """Rows of the largest table of an HBN with branching factor ``B`` and hidden nodes of
    ``hidden_states`` states: ``k ** B`` (a node may have B hidden parents); 0 for a search
    (``"auto"`` changes one node at a time, under the fit's own limits)."""
    if isinstance(hidden_states, bool) or not isinstance(hidden_states, numbers.Integral):
        return 0
    return int(hidden_states) ** int(B)


def check_table_rows(B: int, hidden_states, *, what: str = "an HBN") -> None:
    """Refuse an HBN whose ``hidden_states``-state nodes under ``B`` parents would have more table rows
    than :data:`MAX_TABLE_ROWS`, naming both settings.

    >>> check_table_rows(12, 8)
    Traceback (most recent call last):
    ...
    hbnlab.bounds.BoundsError: an HBN with 8 hidden states at B = 12: a node's table would have 68,719,476,736 \
rows, more than the 1,048,576 a fit accepts; choose a smaller B or fewer hidden_states
    """
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
