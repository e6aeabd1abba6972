"""What a sweep runs: :class:`SweepConfig`, the thesis's grids and :class:`SweepError`.

The defaults are the tuning protocol of Karčiauskas 2002, sec. 4.2.1: every clustering (AVG / OR /
DEP), B in 3, 5, 7, 9, the first-phase alpha grids of Tables 4.2-4.4, 30 terms per category, binary
hidden nodes and 64 EM restarts.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from hbnlab._validation import HbnlabError, check_branching_factor
from hbnlab.bounds import ALPHA, N_RESTARTS, BoundsError, check_parents
from hbnlab.corpus.splits import VALIDATION_METHODS
from hbnlab.experiments.paper_values import THESIS_ALPHA_GRIDS, THESIS_B_GRID
from hbnlab.models.catalog import CLUSTERINGS, TABLE_4_1, is_tree_learner, learner, tree_learner_name
from hbnlab.models.hbn import check_hidden_states, oversized_hidden_states

__all__ = [
    "SWEEP_FORMAT_VERSION", "CLUSTERINGS", "CHOOSE_MODES", "STAGES", "THESIS_ALPHA_GRIDS", "THESIS_B_GRID",
    "SweepError", "SweepConfig", "classifier_name", "states_part",
]

SWEEP_FORMAT_VERSION = 1
CHOOSE_MODES = ("per-category", "global")
STAGES = ("validation", "test")



class SweepError(HbnlabError, ValueError):
    """A sweep is misconfigured or cannot run; the message names the bad value."""


def classifier_name(clustering: str, direction: str = "hbn") -> str:
    """The row name of a hierarchical classifier: ``"HBN-OR"``, ``"HNB-AVG"``, ..."""
    return tree_learner_name(clustering, direction)


def states_part(hidden_states) -> str:
    """The hidden nodes' number of states in a cell's label or a table's configuration: ``" k=3"``,
    nothing for binary nodes (the labels and tables of binary sweeps read as before)."""
    return "" if hidden_states == 2 else f" k={hidden_states}"


def _distinct_grid(name: str, values: tuple, check) -> tuple:
    """``values`` each passed through ``check`` (its ValueError becomes a SweepError), non-empty and
    without repeats."""
    try:
        checked = tuple(check(v) for v in values)
    except ValueError as exc:
        raise SweepError(str(exc)) from None
    if not checked or len(set(checked)) != len(checked):
        raise SweepError(f"{name} must be a non-empty list of distinct values, got {list(values)}")
    return checked


@dataclass(frozen=True)
class SweepConfig:
    """What a sweep runs.  Frozen; ``to_dict`` / ``from_dict`` for JSON.

    Parameters
    ----------
    categories : "all", "topK" (e.g. "top10") or a sequence of category names
        "all" = every category with a training and a test document (90 on ModApte).
    clusterings : sequence of {"avg", "or", "dep"}
    B : sequence of int
        Branching factors of the grid (thesis: 3, 5, 7, 9).
    alpha : mapping clustering -> sequence of float, optional
        Alpha grid per clustering; default :data:`THESIS_ALPHA_GRIDS`.
    n_features : sequence of int
        Numbers of locally selected terms (thesis: 30).
    hidden_states : sequence of {int >= 2, "auto", "auto-holdout"}
        The hidden nodes' numbers of states (``hidden_states`` of the tree estimators; thesis: 2).
        An HBN whose tables would be larger than the binary grid's largest, an integer k with
        ``k ** B > 2 ** max(B)``, is not fitted (:meth:`not_fitted`; as in the fourth phase of
        :func:`hbnlab.experiments.reproduce.three_phase_tuning`).
    choose : {"per-category", "global"}
    n_restarts, tol : EM restarts and stopping threshold (thesis: 64, 1e-4).
    final_only : bool
        Skip tuning; test Table 4.1's final (B, alpha) per clustering, with the first entries of
        ``n_features`` and ``hidden_states``.
    direction : {"hbn", "hnb"}
        HBN (arcs toward the class) or the hierarchical naive Bayes variant.
    baselines : sequence of str
        Untuned learners tested on the same data beside the HBN rows (names of
        :func:`hbnlab.models.catalog.make_classifier`, e.g. "NB": the thesis's N0 = 0.1
        naive Bayes), each with the first entry of ``n_features``.
    random_state : int
        Sweep seed; every cell's seed is derived from it
        (:func:`hbnlab.experiments.sweep.cells.cell_seed`); it also seeds a stratified validation
        split or folds.
    validation : {"auto", "date", "stratified"}
        The training-0 / validation split of the validation cells
        (:func:`hbnlab.corpus.splits.validation_folds`: the thesis's date split for a dated corpus).
    cv : int
        0: that hold-out split; K >= 2: K-fold cross-validation (each validation cell fits K times
        and pools the folds' scores).
    """

    categories: object = "all"
    clusterings: tuple = CLUSTERINGS
    B: tuple = THESIS_B_GRID
    alpha: Mapping | None = None
    n_features: tuple = (30,)
    hidden_states: tuple = (2,)
    choose: str = "per-category"
    n_restarts: int = 64
    tol: float = 1e-4
    final_only: bool = False
    direction: str = "hbn"
    baselines: tuple = ("NB",)
    random_state: int = 0
    validation: str = "auto"
    cv: int = 0

    def __post_init__(self):
        cats = self.categories
        if isinstance(cats, str):
            if cats != "all" and not (cats.startswith("top") and cats[3:].isdigit() and int(cats[3:]) >= 1):
                raise SweepError(f"categories must be 'all', 'topK' (K >= 1) or a list of names, got {cats!r}")
        else:
            cats = tuple(str(c) for c in cats)
            if not cats:
                raise SweepError("categories: the list of category names is empty")
            if len(set(cats)) != len(cats):
                raise SweepError(f"categories: a category is listed twice in {list(cats)}")
            object.__setattr__(self, "categories", cats)
        clusterings = tuple(str(c).lower() for c in self.clusterings)
        bad = [c for c in clusterings if c not in CLUSTERINGS]
        if bad or not clusterings:
            raise SweepError(f"clusterings must be a non-empty subset of {CLUSTERINGS}, got {list(self.clusterings)}")
        if len(set(clusterings)) != len(clusterings):
            raise SweepError(f"clusterings: a clustering is listed twice in {list(clusterings)}")
        object.__setattr__(self, "clusterings", clusterings)
        object.__setattr__(self, "B", _distinct_grid("B", tuple(self.B), check_branching_factor))
        grids = dict(THESIS_ALPHA_GRIDS)
        if self.alpha is not None:
            unknown = [k for k in self.alpha if k not in CLUSTERINGS]
            if unknown:
                raise SweepError(f"alpha: unknown clustering(s) {unknown}; expected keys from {CLUSTERINGS}")
            grids.update({k: tuple(v) for k, v in self.alpha.items()})
        clean = {}
        for k in clusterings:
            vals = tuple(float(a) for a in grids[k])
            if not vals or len(set(vals)) != len(vals):
                raise SweepError(f"alpha grid of {k!r} must be a non-empty list of distinct values, got {list(vals)}")
            for a in vals:
                if a not in ALPHA:
                    raise SweepError(f"alpha of {k!r} must be {ALPHA.describe()}, got {a!r}")
            clean[k] = vals
        object.__setattr__(self, "alpha", clean)
        nfs = tuple(self.n_features)
        for nf in nfs:
            if isinstance(nf, bool) or not isinstance(nf, (int, np.integer)) or nf < 1:
                raise SweepError(f"n_features must be integers >= 1, got {nf!r}")
        if not nfs or len(set(nfs)) != len(nfs):
            raise SweepError(f"n_features must be a non-empty list of distinct values, got {list(nfs)}")
        object.__setattr__(self, "n_features", tuple(int(n) for n in nfs))
        ks = self.hidden_states
        ks = (ks,) if isinstance(ks, (str, int, np.integer)) else tuple(ks)
        object.__setattr__(self, "hidden_states", _distinct_grid("hidden_states", ks, check_hidden_states))
        if self.choose not in CHOOSE_MODES:
            raise SweepError(f"choose must be one of {CHOOSE_MODES}, got {self.choose!r}")
        if self.n_restarts not in N_RESTARTS:
            raise SweepError(f"n_restarts must be {N_RESTARTS.describe()}, got {self.n_restarts!r}")
        object.__setattr__(self, "n_restarts", int(self.n_restarts))
        if not (isinstance(self.tol, (int, float)) and math.isfinite(self.tol) and self.tol > 0):
            raise SweepError(f"tol must be a finite number > 0, got {self.tol!r}")
        object.__setattr__(self, "tol", float(self.tol))
        if self.direction not in ("hbn", "hnb"):
            raise SweepError(f"direction must be 'hbn' or 'hnb', got {self.direction!r}")
        if self.direction == "hbn":  # before not_fitted() below takes k ** B of every cell
            try:
                check_parents(max(self.B), what="an HBN grid")
            except BoundsError as e:
                raise SweepError(str(e)) from None
        base = tuple(str(b).upper() for b in self.baselines)
        if any(is_tree_learner(b) for b in base):
            raise SweepError(f"baselines are untuned learners; HBN/HNB rows come from clusterings, got {list(base)}")
        topical = [b for b in base if learner(b).needs_topics]
        if topical:
            # the sweep's cells fit on (X, y) alone; a learner of a topic taxonomy needs every node's labels
            raise SweepError(f"baselines {topical} learn over a topic taxonomy, which sweep cells do not carry; "
                             f"run them with hbnlab reproduce table-4.10 --rows {topical[0]}:30")
        object.__setattr__(self, "baselines", base)
        if isinstance(self.random_state, bool) or not isinstance(self.random_state, (int, np.integer)):
            raise SweepError(f"random_state must be an int, got {self.random_state!r}")
        object.__setattr__(self, "random_state", int(self.random_state))
        object.__setattr__(self, "final_only", bool(self.final_only))
        if self.validation not in VALIDATION_METHODS:
            raise SweepError(f"validation must be one of {VALIDATION_METHODS}, got {self.validation!r}")
        cv = self.cv
        if isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or cv < 0 or cv == 1:
            raise SweepError(f"cv must be 0 (a hold-out split) or an integer >= 2 (folds), got {cv!r}")
        object.__setattr__(self, "cv", int(cv))
        if not self.final_only and len(self.not_fitted()) == len(self.B) * len(self.hidden_states):
            raise SweepError(f"hidden_states {list(self.hidden_states)} with B {list(self.B)}: every table is above "
                             f"2 ** {max(self.B)} rows, the binary grid's largest; add 2 or a larger B")

    @property
    def classifiers(self) -> list[str]:
        return [classifier_name(c, self.direction) for c in self.clusterings]

    def not_fitted(self) -> dict:
        """(B, hidden_states) -> why the grid leaves it out
        (:func:`hbnlab.models.hbn.oversized_hidden_states`: an HBN table above ``2 ** max(B)`` rows).
        Empty for the hierarchical naive Bayes, whose tables have ``k`` rows at most."""
        if self.direction != "hbn":
            return {}
        top = max(self.B)
        out = {}
        for k in self.hidden_states:
            for b in self.B:
                why = oversized_hidden_states(k, b, top)
                if why is not None:
                    out[(b, k)] = why
        return out

    def grid(self, clustering: str) -> list[tuple[int, float, int, object]]:
        """The (B, alpha, n_features, hidden_states) configurations of one clustering, in grid
        order (features, then states, then B, then alpha), without those of :meth:`not_fitted`."""
        skip = self.not_fitted()
        return [(b, a, nf, k) for nf in self.n_features for k in self.hidden_states for b in self.B
                if (b, k) not in skip for a in self.alpha[clustering]]

    def final_config(self, clustering: str) -> tuple[int, float, int, object]:
        """Table 4.1's final (B, alpha) of the HBN classifier with this clustering, with the first
        numbers of features and of hidden states."""
        B, alpha = TABLE_4_1[clustering]
        return int(B), float(alpha), self.n_features[0], self.hidden_states[0]

    def n_validation_cells(self, n_categories: int) -> int:
        if self.final_only:
            return 0
        return n_categories * sum(len(self.grid(k)) for k in self.clusterings)

    def to_dict(self) -> dict:
        return {
            "categories": self.categories if isinstance(self.categories, str) else list(self.categories),
            "clusterings": list(self.clusterings), "B": list(self.B),
            "alpha": {k: list(v) for k, v in self.alpha.items()}, "n_features": list(self.n_features),
            "hidden_states": list(self.hidden_states), "choose": self.choose, "n_restarts": self.n_restarts,
            "tol": self.tol, "final_only": self.final_only, "direction": self.direction,
            "baselines": list(self.baselines),
            "random_state": self.random_state, "validation": self.validation, "cv": self.cv,
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> SweepConfig:
        known = {"categories", "clusterings", "B", "alpha", "n_features", "hidden_states", "choose", "n_restarts",
                 "tol", "final_only", "direction", "baselines", "random_state", "validation", "cv"}
        unknown = sorted(set(d) - known)
        if unknown:
            raise SweepError(f"unknown sweep setting(s) {unknown}; known: {sorted(known)}")
        d = dict(d)
        if isinstance(d.get("categories"), list):
            d["categories"] = tuple(d["categories"])
        return cls(**d)
