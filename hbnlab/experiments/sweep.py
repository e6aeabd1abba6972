"""``hbnlab sweep``: HBN classifiers for every Reuters ModApte category, tuned and tested as jobs.

A sweep is the thesis's tuning protocol (seed 000 sec. 4.2.1) run on many categories at once as
independent background jobs (:mod:`hbnlab.jobs`), on the local process pool or on Dask:

1. **validation** -- for every category x clustering (AVG / OR / DEP) x B x alpha (x number of
   features) one *cell*: an HBN classifier trained on training-0 and scored on the validation
   split (thesis sec. 4.1.1: the training set split by time, 5,827 / 1,942);
2. **choice** -- per clustering, the configuration with the best validation breakeven of each
   category (``choose="per-category"``; a category without a validation positive falls back
   to the global choice) or the one with the best validation *micro* breakeven over all the
   categories (``choose="global"``, the thesis's criterion, sec. 4.2);
3. **test** -- the chosen configuration retrained on the whole training set and scored on the
   test set (thesis sec. 4.2.2), one cell per category and clustering;
4. **table** -- per clustering micro and macro breakeven over the categories, beside de Campos
   et al.'s 90-category Reuters values of naive Bayes and the noisy-OR gate (seed 001,
   Table 1) and, for the thesis's 10 categories, the thesis's Table 4.10.

``final_only=True`` skips 1-2 and tests Table 4.1's final (B, alpha) of each clustering.

Term selection follows the thesis (sec. 4.1.2): information gain on the *whole* training set,
for the validation cells too, computed once by :func:`hbnlab.experiments.thesis.prepare_data`.

Jobs.  Every cell is one job of the task ``"sweep_cell"`` registered here; a sweep id is the
jobs' group.  The data (:class:`SweepData`: the term matrices restricted to the union of the
categories' selected terms, labels, split, rankings) is shipped to each worker once with
``Runner.share`` -- ``client.scatter(broadcast=True)`` on Dask, one pickled payload per worker
process on the local pool -- under a name derived from its fingerprint, and the task keeps the
splits it derives in a per-process cache keyed by that fingerprint.  Each cell's seed is a hash
of the sweep seed, the category and the classifier, so the numbers do not depend on the order
in which workers pick cells, nor on the backend.

Resuming.  A cell is identified by a key over everything that determines its result (stage,
category, classifier, B, alpha, features, EM settings, seed, data fingerprint).  Running a
sweep id again reuses its finished cells, re-queues failed / cancelled / interrupted ones under
their job ids (the registry's attempt guard records each result exactly once) and submits only
missing ones.  Cancelling (:func:`cancel_sweep`, from any process) cancels the group's jobs and
leaves a marker record in the registry, so a sweep between two phases does not start the next.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from hbnlab.jobs.tasks import JobCancelled, register_task

__all__ = [
    "CLUSTERINGS", "THESIS_ALPHA_GRIDS", "THESIS_B_GRID", "CHOOSE_MODES",
    "SweepConfig", "SweepData", "SweepError", "SweepResult", "Cell",
    "prepare_sweep_data", "plan_validation_cells", "plan_test_cells", "choose_configs",
    "run_sweep", "cancel_sweep", "sweep_status", "sweep_table", "format_table_markdown",
    "cell_seed", "sweep_cell_task", "repair_malloc_trim", "unset_dask_malloc_trim",
]

SWEEP_FORMAT_VERSION = 1
CLUSTERINGS = ("avg", "or", "dep")
CHOOSE_MODES = ("per-category", "global")
STAGES = ("validation", "test")
TASK_MODULE = "hbnlab.experiments.sweep"
CELL_KIND = "sweep_cell"
CONTROL_KIND = "sweep_control"
CONTROL_BACKEND = "sweep-control"  # no runner claims jobs of this backend

#: The thesis's first-phase alpha grids (Tables 4.2-4.4: AVG, OR, DEP with B = 7).
THESIS_ALPHA_GRIDS = {
    "avg": (0.0, 0.03, 0.06, 0.09, 0.12),
    "or": (0.0, 0.05, 0.10, 0.15, 0.20),
    "dep": (0.0, 50.0, 100.0, 150.0, 200.0, 250.0, 300.0),
}
#: The thesis's branching factors (sec. 4.2.1: "values 3, 5, 7, and 9 for B").
THESIS_B_GRID = (3, 5, 7, 9)


class SweepError(ValueError):
    """A sweep is misconfigured or cannot run; the message names the bad value."""


# =========================================================================== configuration
def _classifier_name(clustering: str, direction: str = "hbn") -> str:
    return f"{direction.upper()}-{clustering.upper()}"


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
    choose : {"per-category", "global"}
    n_restarts, tol : EM restarts and stopping threshold (thesis: 64, 1e-4).
    final_only : bool
        Skip tuning; test Table 4.1's final (B, alpha) per clustering.
    direction : {"hbn", "hnb"}
        HBN (arcs toward the class) or the hierarchical naive Bayes variant.
    baselines : sequence of str
        Untuned learners tested on the same data beside the HBN rows (names of
        :func:`hbnlab.experiments.thesis.make_classifier`, e.g. "NB": the thesis's N0 = 0.1
        naive Bayes), each with the first entry of ``n_features``.
    random_state : int
        Sweep seed; every cell's seed is derived from it (:func:`cell_seed`).
    """

    categories: object = "all"
    clusterings: tuple = CLUSTERINGS
    B: tuple = THESIS_B_GRID
    alpha: Mapping | None = None
    n_features: tuple = (30,)
    choose: str = "per-category"
    n_restarts: int = 64
    tol: float = 1e-4
    final_only: bool = False
    direction: str = "hbn"
    baselines: tuple = ("NB",)
    random_state: int = 0

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
        Bs = tuple(self.B)
        for b in Bs:
            if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or b < 2:
                raise SweepError(f"branching factor B must be an integer >= 2, got {b!r}")
        if not Bs or len(set(Bs)) != len(Bs):
            raise SweepError(f"B must be a non-empty list of distinct values, got {list(Bs)}")
        object.__setattr__(self, "B", tuple(int(b) for b in Bs))
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
                if not math.isfinite(a) or a < 0:
                    raise SweepError(f"alpha of {k!r} must be finite and >= 0, got {a!r}")
            clean[k] = vals
        object.__setattr__(self, "alpha", clean)
        nfs = tuple(self.n_features)
        for nf in nfs:
            if isinstance(nf, bool) or not isinstance(nf, (int, np.integer)) or nf < 1:
                raise SweepError(f"n_features must be integers >= 1, got {nf!r}")
        if not nfs or len(set(nfs)) != len(nfs):
            raise SweepError(f"n_features must be a non-empty list of distinct values, got {list(nfs)}")
        object.__setattr__(self, "n_features", tuple(int(n) for n in nfs))
        if self.choose not in CHOOSE_MODES:
            raise SweepError(f"choose must be one of {CHOOSE_MODES}, got {self.choose!r}")
        nr = self.n_restarts
        if isinstance(nr, bool) or not isinstance(nr, (int, np.integer)) or nr < 1:
            raise SweepError(f"n_restarts must be an integer >= 1, got {self.n_restarts!r}")
        object.__setattr__(self, "n_restarts", int(self.n_restarts))
        if not (isinstance(self.tol, (int, float)) and math.isfinite(self.tol) and self.tol > 0):
            raise SweepError(f"tol must be a finite number > 0, got {self.tol!r}")
        object.__setattr__(self, "tol", float(self.tol))
        if self.direction not in ("hbn", "hnb"):
            raise SweepError(f"direction must be 'hbn' or 'hnb', got {self.direction!r}")
        base = tuple(str(b).upper() for b in self.baselines)
        if any(b.startswith(("HBN-", "HNB-")) for b in base):
            raise SweepError(f"baselines are untuned learners; HBN/HNB rows come from clusterings, got {list(base)}")
        object.__setattr__(self, "baselines", base)
        if isinstance(self.random_state, bool) or not isinstance(self.random_state, (int, np.integer)):
            raise SweepError(f"random_state must be an int, got {self.random_state!r}")
        object.__setattr__(self, "random_state", int(self.random_state))
        object.__setattr__(self, "final_only", bool(self.final_only))

    @property
    def classifiers(self) -> list[str]:
        return [_classifier_name(c, self.direction) for c in self.clusterings]

    def grid(self, clustering: str) -> list[tuple[int, float, int]]:
        """The (B, alpha, n_features) configurations of one clustering, in grid order."""
        return [(b, a, nf) for nf in self.n_features for b in self.B for a in self.alpha[clustering]]

    def final_config(self, clustering: str) -> tuple[int, float, int]:
        """Table 4.1's final (B, alpha) of the HBN classifier with this clustering."""
        from hbnlab.experiments.paper_values import TABLE_4_1

        B, alpha = TABLE_4_1["HBN-" + clustering.upper()]
        return int(B), float(alpha), self.n_features[0]

    def n_validation_cells(self, n_categories: int) -> int:
        if self.final_only:
            return 0
        return n_categories * sum(len(self.grid(k)) for k in self.clusterings)

    def to_dict(self) -> dict:
        return {
            "categories": self.categories if isinstance(self.categories, str) else list(self.categories),
            "clusterings": list(self.clusterings), "B": list(self.B),
            "alpha": {k: list(v) for k, v in self.alpha.items()}, "n_features": list(self.n_features),
            "choose": self.choose, "n_restarts": self.n_restarts, "tol": self.tol,
            "final_only": self.final_only, "direction": self.direction, "baselines": list(self.baselines),
            "random_state": self.random_state,
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> "SweepConfig":
        known = {"categories", "clusterings", "B", "alpha", "n_features", "choose", "n_restarts", "tol",
                 "final_only", "direction", "baselines", "random_state"}
        unknown = sorted(set(d) - known)
        if unknown:
            raise SweepError(f"unknown sweep setting(s) {unknown}; known: {sorted(known)}")
        d = dict(d)
        if isinstance(d.get("categories"), list):
            d["categories"] = tuple(d["categories"])
        return cls(**d)


# =========================================================================== data
@dataclass
class SweepData:
    """The arrays every cell needs, restricted to the terms any category selects.

    ``ranked[j, :nf]`` are the columns (into ``X_train`` / ``X_test``) of the ``nf`` best terms of
    category ``j`` by the whole-training-set scores (thesis sec. 4.1.2), best first.
    """

    categories: list
    names: list
    X_train: sp.csr_matrix
    X_test: sp.csr_matrix
    Y_train: np.ndarray
    Y_test: np.ndarray
    train0: np.ndarray
    ranked: np.ndarray
    corpus_info: dict = field(default_factory=dict)
    fingerprint: str = ""

    def __post_init__(self):
        self.categories = [str(c) for c in self.categories]
        self.names = [str(n) for n in self.names]
        self.X_train = sp.csr_matrix(self.X_train, dtype=np.int8)
        self.X_test = sp.csr_matrix(self.X_test, dtype=np.int8)
        self.Y_train = np.asarray(self.Y_train, dtype=bool)
        self.Y_test = np.asarray(self.Y_test, dtype=bool)
        self.train0 = np.asarray(self.train0, dtype=bool)
        self.ranked = np.asarray(self.ranked, dtype=np.int64)
        k = len(self.categories)
        if self.Y_train.shape != (self.X_train.shape[0], k) or self.Y_test.shape != (self.X_test.shape[0], k):
            raise SweepError(f"labels: expected ({self.X_train.shape[0]}, {k}) and ({self.X_test.shape[0]}, {k}), "
                             f"got {self.Y_train.shape} and {self.Y_test.shape}")
        if self.train0.shape != (self.X_train.shape[0],):
            raise SweepError(f"train0: expected {self.X_train.shape[0]} flags, got shape {self.train0.shape}")
        r = self.ranked
        if r.ndim != 2 or r.shape[0] != k or (r.size and r.max() >= len(self.names)):
            raise SweepError(f"ranked: expected ({k}, max_features) column indices below {len(self.names)}")
        if not self.fingerprint:
            self.fingerprint = self.compute_fingerprint()

    @property
    def max_features(self) -> int:
        return int(self.ranked.shape[1])

    def compute_fingerprint(self) -> str:
        """SHA-256 over every array and name list: identifies the exact data the cells saw."""
        h = hashlib.sha256()
        h.update(json.dumps([SWEEP_FORMAT_VERSION, self.categories, self.names]).encode())
        for a in (self.X_train.indptr, self.X_train.indices, self.X_train.data, self.X_test.indptr,
                  self.X_test.indices, self.X_test.data, self.Y_train, self.Y_test, self.train0, self.ranked):
            a = np.ascontiguousarray(a)
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(a.tobytes())
        return h.hexdigest()

    @property
    def input_name(self) -> str:
        """Name of the shared input holding this data (one per data set, so sweeps on the same
        data share one copy per worker)."""
        return f"sweep-data-{self.fingerprint[:16]}"

    def category_index(self, category: str) -> int:
        try:
            return self.categories.index(category)
        except ValueError:
            raise SweepError(f"category {category!r} is not in the sweep data "
                             f"({len(self.categories)} categories: {self.categories[:5]}...)") from None

    def to_shared(self) -> dict:
        """Plain dict of arrays (what :meth:`Runner.share` ships to the workers)."""
        return {"format": SWEEP_FORMAT_VERSION, "categories": self.categories, "names": self.names,
                "X_train": self.X_train, "X_test": self.X_test, "Y_train": self.Y_train, "Y_test": self.Y_test,
                "train0": self.train0, "ranked": self.ranked, "fingerprint": self.fingerprint}

    @classmethod
    def from_shared(cls, d: Mapping) -> "SweepData":
        return cls(d["categories"], d["names"], d["X_train"], d["X_test"], d["Y_train"], d["Y_test"],
                   d["train0"], d["ranked"], {}, d["fingerprint"])

    @classmethod
    def from_protocol(cls, data, max_features: int) -> "SweepData":
        """Restrict a :class:`hbnlab.experiments.thesis.ProtocolData` to the union of every
        category's ``max_features`` best terms."""
        if max_features < 1:
            raise SweepError(f"max_features must be >= 1, got {max_features}")
        top = np.stack([data.ranked_features(j)[:max_features] for j in range(len(data.categories))])
        union = np.unique(top)
        ranked = np.searchsorted(union, top)
        binary = lambda X: (sp.csr_matrix(X)[:, union] != 0).astype(np.int8).tocsr()  # noqa: E731
        return cls(list(data.categories), [data.vocabulary[c] for c in union], binary(data.X_train),
                   binary(data.X_test), data.Y_train, data.Y_test, data.train0, ranked, dict(data.info))

    def split(self, stage: str):
        """(X_fit, Y_fit, X_eval, Y_eval): training-0 -> validation or training -> test."""
        if stage == "test":
            return self.X_train, self.Y_train, self.X_test, self.Y_test
        if stage == "validation":
            m = self.train0
            return self.X_train[m], self.Y_train[m], self.X_train[~m], self.Y_train[~m]
        raise SweepError(f"stage must be one of {STAGES}, got {stage!r}")


def resolve_categories(corpus, categories) -> list[str]:
    """The category list of a ``SweepConfig.categories`` value on ``corpus``."""
    eligible = corpus.categories(min_train=1, min_test=1)
    if isinstance(categories, str):
        if categories == "all":
            return eligible
        return eligible[: int(categories[3:])]
    missing = [c for c in categories if c not in eligible]
    if missing:
        raise SweepError(f"categories {missing} have no training or no test document in corpus "
                         f"{corpus.name!r} (eligible: {eligible[:10]}{'...' if len(eligible) > 10 else ''})")
    return list(categories)


def prepare_sweep_data(corpus, config: SweepConfig, *, progress=None) -> SweepData:
    """Index ``corpus`` the thesis's way (:func:`hbnlab.experiments.thesis.prepare_data`), score
    the terms for the sweep's categories and keep what the cells need."""
    from hbnlab.pipeline.data import prepare

    cats = resolve_categories(corpus, config.categories)
    pdata = prepare(corpus, categories=cats, progress=progress)
    return SweepData.from_protocol(pdata, max(config.n_features))


# =========================================================================== cells
def cell_seed(random_state: int, category: str, classifier: str) -> int:
    """Seed of a cell: a hash of the sweep seed, the category and the classifier.

    The same for every (B, alpha, features, stage) of a category and classifier (common random
    numbers across the grid), and independent of which worker runs the cell when.
    """
    h = hashlib.sha256(f"{int(random_state)}|{category}|{classifier}".encode()).digest()
    return int.from_bytes(h[:4], "little") & 0x7FFFFFFF


@dataclass(frozen=True)
class Cell:
    """One (stage, category, classifier, configuration) of a sweep: one job."""

    stage: str
    category: str
    classifier: str
    n_features: int
    B: int | None = None
    alpha: float | None = None
    n_restarts: int = 64
    tol: float = 1e-4
    seed: int = 0
    data: str = ""

    @property
    def config(self) -> tuple:
        return (self.B, self.alpha, self.n_features)

    def params(self) -> dict:
        p = {"sweep_format": SWEEP_FORMAT_VERSION, "stage": self.stage, "category": self.category,
             "classifier": self.classifier, "n_features": self.n_features, "B": self.B, "alpha": self.alpha,
             "n_restarts": self.n_restarts, "tol": self.tol, "seed": self.seed, "data": self.data}
        p["cell"] = hashlib.sha256(json.dumps(p, sort_keys=True).encode()).hexdigest()[:24]
        return p

    @property
    def key(self) -> str:
        return self.params()["cell"]

    @property
    def label(self) -> str:
        conf = "" if self.B is None else f" B={self.B} alpha={self.alpha:g}"
        return f"{self.stage} {self.category} {self.classifier}{conf} nf={self.n_features}"

    def spec(self, sweep_id: str, input_name: str):
        from hbnlab.jobs import JobSpec

        return JobSpec(CELL_KIND, self.params(), label=self.label, group=sweep_id, random_state=self.seed,
                       module=TASK_MODULE, inputs=(input_name,))


def _hbn_cell(config: SweepConfig, data: SweepData, stage, category, clustering, B, alpha, nf) -> Cell:
    name = _classifier_name(clustering, config.direction)
    return Cell(stage, category, name, int(nf), int(B), float(alpha), config.n_restarts, config.tol,
                cell_seed(config.random_state, category, name), data.fingerprint)


def sweep_categories(config: SweepConfig, data: SweepData) -> list[str]:
    """The categories of ``config`` among ``data.categories`` (which are in decreasing training
    frequency): all of them, the first K for "topK", or the listed ones."""
    cats = config.categories
    if cats == "all":
        return list(data.categories)
    if isinstance(cats, str):
        return list(data.categories[: int(cats[3:])])
    missing = [c for c in cats if c not in data.categories]
    if missing:
        raise SweepError(f"categories {missing} are not in the sweep data (it has {data.categories[:10]}"
                         f"{'...' if len(data.categories) > 10 else ''})")
    return list(cats)


def plan_validation_cells(config: SweepConfig, data: SweepData) -> list[Cell]:
    """Every (category, clustering, B, alpha, features) cell on training-0 / validation."""
    if config.final_only:
        return []
    return [_hbn_cell(config, data, "validation", cat, k, B, a, nf)
            for k in config.clusterings for cat in sweep_categories(config, data) for (B, a, nf) in config.grid(k)]


def plan_test_cells(config: SweepConfig, data: SweepData, choices: Mapping | None = None) -> list[Cell]:
    """The test cells: per category and clustering the chosen configuration (``choices[(category,
    clustering)]["config"]``; Table 4.1's with ``final_only``), plus the baselines."""
    cells = []
    cats = sweep_categories(config, data)
    for k in config.clusterings:
        for cat in cats:
            if config.final_only:
                B, a, nf = config.final_config(k)
            else:
                B, a, nf = choices[(cat, k)]["config"]
            cells.append(_hbn_cell(config, data, "test", cat, k, B, a, nf))
    for name in config.baselines:
        for cat in cats:
            cells.append(Cell("test", cat, name, config.n_features[0], None, None, config.n_restarts, config.tol,
                              cell_seed(config.random_state, cat, name), data.fingerprint))
    return cells


# =========================================================================== the task
_SPLIT_CACHE: dict = {}
_SPLIT_LOCK = threading.Lock()


def _cached_split(shared: Mapping, stage: str):
    """(SweepData, X_fit, Y_fit, X_eval, Y_eval), cached per worker process by fingerprint."""
    key = (shared["fingerprint"], stage)
    with _SPLIT_LOCK:
        hit = _SPLIT_CACHE.get(key)
        if hit is None:
            data = SweepData.from_shared(shared)
            hit = (data, *data.split(stage))
            for old in [k for k in _SPLIT_CACHE if k[0] != key[0]]:  # keep one data set per process
                del _SPLIT_CACHE[old]
            _SPLIT_CACHE[key] = hit
    return hit


def _finite_scores(s: np.ndarray) -> np.ndarray:
    # +-inf log-odds (a probability of exactly 0 or 1) keep their order as +-1e300
    s = np.asarray(s, dtype=np.float64)
    return np.nan_to_num(s, nan=0.0, posinf=1e300, neginf=-1e300)


def _npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(a), allow_pickle=False)
    return buf.getvalue()


def _npy_load(b: bytes) -> np.ndarray:
    return np.load(io.BytesIO(b), allow_pickle=False)


_MALLOC_REPAIRED = False


def repair_malloc_trim() -> bool:
    """Undo the effect of ``MALLOC_TRIM_THRESHOLD_`` in this process (once); True if it acted.

    Dask's nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536``
    (``distributed.nanny.pre-spawn-environ``).  Setting any glibc malloc threshold switches off
    glibc's dynamic mmap threshold, so every temporary array above 128 KiB is mmap-ed, zeroed and
    unmapped again: measured on Reuters class ``acq`` (HBN-AVG, 64 restarts) the EM fit takes
    6.2 s of CPU instead of 2.9 s, in a Dask worker or in a plain process with that variable.
    When the variable is set, this sets the thresholds glibc's dynamic rule would reach (mmap
    threshold 32 MiB, trim threshold twice that, glibc ``malloc.c``); the fit then takes 2.5 s.
    Without the variable (local pool; a LocalCluster started by ``hbnlab sweep``, which unsets
    it) it does nothing.  Not glibc: nothing either.
    """
    global _MALLOC_REPAIRED
    if _MALLOC_REPAIRED or "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        return False
    _MALLOC_REPAIRED = True
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
        mmap = 32 * 1024 * 1024
        return bool(libc.mallopt(m_mmap_threshold, mmap)) and bool(libc.mallopt(m_trim_threshold, 2 * mmap))
    except (OSError, AttributeError):
        return False


@register_task(CELL_KIND)
def sweep_cell_task(params: dict, ctx) -> dict:
    """Train one classifier of a sweep cell and score it (the ``"sweep_cell"`` job).

    Returns the breakeven of the category on the evaluation split (computed on the posterior
    log-odds, which rank like the posterior but never round to 1.0), its number of positives and
    fit statistics.  Test cells also store the evaluation scores (``scores.npy``) and the learned
    tree (``tree.json``) as artifacts.
    """
    import resource

    from hbnlab.bn.em import EMCancelled
    from hbnlab.evaluation import breakeven_point
    from hbnlab.models.catalog import make_classifier

    t_task, c_task = time.perf_counter(), time.process_time()
    if repair_malloc_trim():
        ctx.log(f"process {os.getpid()}: MALLOC_TRIM_THRESHOLD_ is set; malloc thresholds restored")
    name = ctx.spec.inputs[0] if ctx.spec.inputs else None
    shared = ctx.shared.get(name) if name else None
    if shared is None:
        raise SweepError(f"sweep cell {params.get('cell')!r} got no shared data input")
    if shared["fingerprint"] != params["data"]:
        raise SweepError(f"sweep cell {params['cell']!r} expects data {params['data'][:16]}, "
                         f"the worker holds {shared['fingerprint'][:16]}")
    stage = params["stage"]
    data, X_fit, Y_fit, X_eval, Y_eval = _cached_split(shared, stage)
    j = data.category_index(params["category"])
    nf = int(params["n_features"])
    if nf > data.max_features:
        raise SweepError(f"n_features {nf} exceeds the {data.max_features} terms kept per category")
    cols = data.ranked[j, :nf]
    y = Y_fit[:, j].astype(np.int8)
    y_eval = Y_eval[:, j]
    out = {"cell": params["cell"], "stage": stage, "category": params["category"],
           "classifier": params["classifier"], "B": params["B"], "alpha": params["alpha"], "n_features": nf,
           "n_pos": int(y_eval.sum()), "n_eval": int(y_eval.size), "n_pos_fit": int(y.sum())}
    if y.min() == y.max():
        # a category without a positive in training-0: no classifier can be trained
        out.update(breakeven=None, skipped=f"the {'training-0' if stage == 'validation' else 'training'} split "
                                           f"has {'no' if y.max() == 0 else 'only'} positive document(s)")
        return out
    ctx.progress(message=f"fitting {params['classifier']} for {params['category']}", fraction=0.0)
    hyper = {}
    if params["B"] is not None:
        hyper = {"B": int(params["B"]), "alpha": float(params["alpha"]), "n_restarts": int(params["n_restarts"]),
                 "tol": float(params["tol"])}
    est = make_classifier(params["classifier"], nf, hyper, random_state=int(params["seed"]))
    est_params = est.get_params()
    if "feature_names" in est_params:
        est.set_params(feature_names=[data.names[c] for c in cols], class_name=params["category"])
    if "progress" in est_params:
        def em_progress(info):
            it, top = info.get("iteration", 0), info.get("max_iter") or 1
            ctx.progress(message=f"EM iteration {it}", iteration=it, n_running=info.get("n_running"),
                         fraction=min(1.0, it / top))
        est.set_params(progress=em_progress, should_stop=ctx.should_stop)
    t0 = time.perf_counter()
    try:
        est.fit(X_fit, y, selected_features=cols)
    except EMCancelled:
        raise JobCancelled(f"sweep cell {params['cell']} cancelled during EM") from None
    fit_seconds = time.perf_counter() - t0
    scores = _finite_scores(est.decision_function(X_eval))
    be = breakeven_point(y_eval, scores) if y_eval.any() else float("nan")
    out.update(
        breakeven=None if not math.isfinite(be) else float(be),
        fit_seconds=fit_seconds, task_seconds=time.perf_counter() - t_task, cpu_seconds=time.process_time() - c_task,
        maxrss_kb=int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss), pid=os.getpid(),
    )
    if hasattr(est, "em_result_"):
        lb = float(est.lower_bound_)
        out.update(n_iter=int(est.n_iter_), converged=bool(est.converged_),
                   lower_bound=lb if math.isfinite(lb) else None)
    if stage == "test":
        out["scores_sha256"] = ctx.save_artifact("scores.npy", _npy_bytes(scores))
        if hasattr(est, "tree_"):
            ctx.save_artifact("tree.json", json.dumps(est.tree_.to_dict(), sort_keys=True).encode())
    ctx.progress(message="done", fraction=1.0)
    return out


def unset_dask_malloc_trim() -> None:
    """Keep Dask's nanny from setting ``MALLOC_TRIM_THRESHOLD_`` in the workers it starts from
    this process (a LocalCluster); see :func:`repair_malloc_trim`.  Call before creating the
    cluster.  A nanny also leaves the variable in the ``os.environ`` of the process that started
    it, where every later child would inherit it, so an earlier cluster's value is dropped too.
    (For ``dask worker`` processes started from a shell, set
    ``DASK_DISTRIBUTED__NANNY__PRE_SPAWN_ENVIRON__MALLOC_TRIM_THRESHOLD_=None``; otherwise the
    task repairs it.)"""
    import dask
    import distributed  # noqa: F401  (load its config defaults first)

    dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})
    os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)


# =========================================================================== choosing
def _micro_macro(bes: Sequence, n_pos: Sequence) -> tuple[float, float]:
    """Micro (thesis: per-category thresholds, = the breakevens weighted by positives, see
    :func:`hbnlab.evaluation.micro_breakeven`) and macro breakeven from per-category values;
    categories without a positive (None / NaN breakeven) are left out."""
    b = np.array([np.nan if v is None else v for v in bes], dtype=float)
    n = np.asarray(n_pos, dtype=float)
    ok = np.isfinite(b) & (n > 0)
    if not ok.any():
        return float("nan"), float("nan")
    return float(np.sum(b[ok] * n[ok]) / n[ok].sum()), float(np.mean(b[ok]))


def choose_configs(config: SweepConfig, categories: Sequence[str], validation: Mapping) -> dict:
    """Choose a configuration per (category, clustering) from validation results.

    Parameters
    ----------
    validation : mapping (category, clustering, (B, alpha, n_features)) -> (breakeven or None, n_pos)

    Returns
    -------
    dict (category, clustering) -> {"config": (B, alpha, nf), "how": "per-category" | "global" |
    "global (no validation positive)", "validation_breakeven": float or None}

    Ties go to the earlier configuration in grid order (smaller features, B, alpha).  The global
    choice maximises the micro breakeven over the categories (thesis sec. 4.2).
    """
    out = {}
    for k in config.clusterings:
        grid = config.grid(k)
        micro = []
        for conf in grid:
            vals = [validation[(c, k, conf)] for c in categories]
            micro.append(_micro_macro([v[0] for v in vals], [v[1] for v in vals])[0])
        micro_arr = np.array(micro, dtype=float)
        g = int(np.argmax(np.where(np.isfinite(micro_arr), micro_arr, -np.inf)))
        for c in categories:
            best, best_be = None, -np.inf
            if config.choose == "per-category":
                for i, conf in enumerate(grid):
                    be = validation[(c, k, conf)][0]
                    if be is not None and math.isfinite(be) and be > best_be:
                        best, best_be = i, be
            if best is None:
                how = "global" if config.choose == "global" else "global (no validation positive)"
                best = g
            else:
                how = "per-category"
            be = validation[(c, k, grid[best])][0]
            out[(c, k)] = {"config": grid[best], "how": how, "validation_breakeven": be,
                           "global_validation_micro": micro[g]}
    return out


# =========================================================================== running
_SHARED_BY_RUNNER: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_SHARE_LOCK = threading.Lock()


def _ensure_shared(runner, data: SweepData) -> str:
    name = data.input_name
    with _SHARE_LOCK:
        names = _SHARED_BY_RUNNER.setdefault(runner, set())
        if name not in names:
            runner.share(name, data.to_shared())
            names.add(name)
    return name


def _records_by_cell(registry, sweep_id: str) -> dict:
    """cell key -> the latest record of that cell in the group (a done record wins)."""
    out = {}
    for rec in registry.list(group=sweep_id):
        if rec.kind != CELL_KIND:
            continue
        key = rec.spec.params.get("cell")
        old = out.get(key)
        if old is None or (old.state != "done" and (rec.state == "done" or rec.id > old.id)):
            out[key] = rec
    return out


def _ensure_cells(runner, sweep_id: str, cells: Sequence[Cell], input_name: str) -> tuple[dict, dict]:
    """Job ids of ``cells`` in the sweep's group: finished cells are reused, failed / cancelled /
    interrupted ones queued again (same job id, next attempt), missing ones submitted.  Returns
    ``({cell key: job id}, {"reused": n, "retried": n, "submitted": n, "waiting": n})``."""
    registry = runner.registry
    existing = _records_by_cell(registry, sweep_id)
    ids, todo = {}, []
    stats = {"reused": 0, "retried": 0, "submitted": 0, "waiting": 0}
    for cell in cells:
        key = cell.key
        if key in ids:
            continue
        rec = existing.get(key)
        if rec is None:
            todo.append(cell)
            ids[key] = None
            continue
        ids[key] = rec.id
        if rec.state == "done":
            stats["reused"] += 1
        elif rec.state in ("failed", "cancelled", "interrupted"):
            runner.retry(rec.id)
            stats["retried"] += 1
        elif rec.state == "queued" and rec.backend != runner.backend:
            # queued for another kind of runner (an earlier run on the other backend): move it
            registry.request_cancel(rec.id)
            runner.retry(rec.id)
            stats["retried"] += 1
        else:  # queued or running for this backend: wait for it
            stats["waiting"] += 1
    if todo:
        new = runner.submit_many([c.spec(sweep_id, input_name) for c in todo])
        for cell, jid in zip(todo, new):
            ids[cell.key] = jid
        stats["submitted"] = len(new)
    return ids, stats


def cancel_sweep(registry, sweep_id: str) -> list[int]:
    """Cancel every queued and running cell of a sweep (from any process) and leave a cancel
    marker in the registry, so a sweep between phases stops too.  Returns the cancelled job ids.

    The marker is a job of kind ``"sweep_control"`` on a backend no runner serves; it is
    cancelled at once, so it never runs.  Running the sweep id again later resumes it.
    """
    from hbnlab.jobs import JobSpec
    from hbnlab.jobs.runner import as_registry

    registry = as_registry(getattr(registry, "registry", registry))
    ids = registry.request_cancel(group=sweep_id)
    marker = registry.submit(JobSpec(CONTROL_KIND, {"action": "cancel", "time": time.time()},
                                     label=f"cancel request for sweep {sweep_id}", group=sweep_id),
                             backend=CONTROL_BACKEND)
    registry.request_cancel(marker)
    return [i for i in ids if i != marker]


def _cancelled_since(registry, sweep_id: str, since: float) -> bool:
    for rec in registry.list(group=sweep_id, states=["cancelled"]):
        if rec.kind == CONTROL_KIND and rec.created >= since:
            return True
    return False


def sweep_status(registry, sweep_id: str) -> dict:
    """Counts of a sweep's cell jobs per stage and state."""
    from hbnlab.jobs.runner import as_registry

    registry = as_registry(getattr(registry, "registry", registry))
    out = {s: {} for s in STAGES}
    for rec in registry.list(group=sweep_id):
        if rec.kind == CELL_KIND:
            st = out[rec.spec.params["stage"]]
            st[rec.state] = st.get(rec.state, 0) + 1
    return out


@dataclass
class SweepResult:
    """The outcome of :func:`run_sweep`.

    ``state`` is "done", "cancelled" or "failed"; ``table`` (see :func:`sweep_table`) and
    ``test_scores`` exist only when it is "done".
    """

    sweep_id: str
    config: SweepConfig
    state: str
    data_info: dict
    categories: list
    validation: list = field(default_factory=list)  # result dicts of the validation cells
    choices: dict = field(default_factory=dict)
    test: list = field(default_factory=list)  # result dicts of the test cells
    table: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)
    job_stats: dict = field(default_factory=dict)
    test_scores: dict = field(default_factory=dict)  # classifier -> (n_test, n_categories)
    trees: dict = field(default_factory=dict)  # classifier -> category -> tree dict
    Y_test: np.ndarray | None = None

    def to_dict(self) -> dict:
        return {
            "format": "hbnlab-sweep", "format_version": SWEEP_FORMAT_VERSION, "sweep_id": self.sweep_id,
            "state": self.state, "config": self.config.to_dict(), "data": self.data_info,
            "categories": list(self.categories), "table": self.table, "timings": self.timings,
            "errors": list(self.errors), "jobs": self.job_stats,
            "choices": [{"category": c, "clustering": k, **{kk: (list(v) if kk == "config" else v)
                                                          for kk, v in ch.items()}}
                        for (c, k), ch in self.choices.items()],
            "validation": self.validation, "test": self.test,
        }

    def write(self, out_dir, *, report: bool = True, report_trees: int = 10) -> dict:
        """Write ``sweep.json`` (everything), ``table.json`` / ``table.md`` (the table), ``cells.csv``
        (one row per cell) and, when done and ``report``, the HTML report with its CSV / Markdown
        tables (:func:`hbnlab.export.report.write_report`; trees of the ``report_trees`` most
        frequent categories).  Returns ``{kind: Path}``."""
        from hbnlab.export.atomic import write_text_atomic

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {"sweep": write_text_atomic(out / "sweep.json", json.dumps(_plain(self.to_dict()), indent=1))}
        if self.table:
            paths["table_json"] = write_text_atomic(out / "table.json", json.dumps(_plain(self.table), indent=1))
            paths["table_md"] = write_text_atomic(out / "table.md", format_table_markdown(self.table))
        paths["cells_csv"] = write_text_atomic(out / "cells.csv", cells_csv(self.validation + self.test))
        if report and self.state == "done" and self.test_scores:
            try:
                from hbnlab.export import report as rep
            except ImportError:  # pragma: no cover - the report module ships with hbnlab
                rep = None
            if rep is not None:
                result = self.experiment_result(report_trees=report_trees)
                for kind, p in rep.write_report(result, out / "report.html").items():
                    paths[f"report:{kind}"] = p
        return paths

    def experiment_result(self, report_trees: int = 10):
        """The test results as an :class:`hbnlab.export.report.ExperimentResult` (scores are the
        posterior probabilities, ``expit`` of the log-odds)."""
        from scipy.special import expit

        from hbnlab.experiments import paper_values as pv
        from hbnlab.export.report import ExperimentResult

        rows = self.table["rows"]
        names = [f"{r['classifier']} ({r['n_features']})" for r in rows]
        scores = {n: expit(self.test_scores[r["classifier"]]) for n, r in zip(names, rows)}
        timings, trees, paper, specs = {}, {}, {}, {}
        keep = set(self.categories[:report_trees])
        for n, r in zip(names, rows):
            clf = r["classifier"]
            timings[n] = {t["category"]: t.get("fit_seconds", float("nan")) for t in self.test
                          if t["classifier"] == clf and t.get("fit_seconds") is not None}
            tr = {c: t for c, t in self.trees.get(clf, {}).items() if c in keep}
            if tr:
                trees[n] = tr
            ref = pv.table_4_10_row(clf, r["n_features"])
            if ref is not None:  # per class only: the thesis's micro/macro are over 10 classes
                paper[n] = {"per_class": ref["per_class"], "source": "thesis Table 4.10"}
            specs[n] = {"name": clf, "n_features": r["n_features"], "params": r.get("configs", {})}
        return ExperimentResult(
            categories=self.categories, classifiers=names, labels=self.Y_test, scores=scores, stage="test",
            settings={"sweep_id": self.sweep_id, **self.config.to_dict()}, corpus=dict(self.data_info),
            classifier_specs=specs, timings=timings, trees=trees, paper=paper,
            title=f"hbnlab sweep {self.sweep_id}: {len(self.categories)} categories")


def _plain(o):
    if isinstance(o, dict):
        return {str(k): _plain(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_plain(v) for v in o]
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (float, np.floating)):
        return None if not math.isfinite(float(o)) else float(o)
    return o


def cells_csv(rows: Sequence[dict]) -> str:
    import csv

    cols = ["stage", "category", "classifier", "B", "alpha", "n_features", "breakeven", "n_pos", "n_eval",
            "fit_seconds", "n_iter", "converged", "skipped", "job_id", "cell"]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: r.get(k) for k in cols})
    return buf.getvalue()


def _wait_phase(runner, ids: list, phase: str, progress, timeout):
    cb = None
    if progress is not None:
        def cb(counts):
            progress(phase, counts, len(ids))
    return runner.wait(ids, timeout=timeout, poll=0.2, callback=cb)


def _run_phase(runner, sweep_id, cells, input_name, phase, progress, timeout, result: SweepResult,
               since: float) -> dict | None:
    """Submit / reuse the phase's cells, wait; return {cell key: record} or None when the sweep
    did not finish (state and errors set on ``result``)."""
    if _cancelled_since(runner.registry, sweep_id, since):
        result.state = "cancelled"
        return None
    t0 = time.perf_counter()
    ids, stats = _ensure_cells(runner, sweep_id, cells, input_name)
    result.job_stats[phase] = stats
    order = list(ids.values())
    records = _wait_phase(runner, order, phase, progress, timeout)
    result.timings[f"{phase}_seconds"] = time.perf_counter() - t0
    by_id = {r.id: r for r in records}
    bad = [r for r in records if r.state != "done"]
    if bad:
        result.state = "cancelled" if any(r.state == "cancelled" for r in bad) else "failed"
        result.errors = [f"job {r.id} ({r.label}): {r.state}" + (f": {r.error}" if r.error else "")
                         for r in bad[:20]]
        return None
    if _cancelled_since(runner.registry, sweep_id, since):
        result.state = "cancelled"
        return None
    return {key: by_id[jid] for key, jid in ids.items()}


def run_sweep(config: SweepConfig, data: SweepData, runner, *, sweep_id: str,
              progress: Callable[[str, dict, int], None] | None = None, timeout: float | None = None,
              log: Callable[[str], None] | None = None) -> SweepResult:
    """Run (or resume) a sweep on ``runner`` and return its result.

    Parameters
    ----------
    config : SweepConfig
    data : SweepData
        From :func:`prepare_sweep_data`.
    runner : hbnlab.jobs.Runner
        :class:`~hbnlab.jobs.LocalProcessRunner` or :class:`~hbnlab.jobs.DaskRunner`.
    sweep_id : str
        The jobs' group.  Running an id again reuses its finished cells.
    progress : callable, optional
        ``progress(phase, counts_per_state, n_cells)`` after every poll of the registry.
    timeout : float, optional
        Seconds to wait per phase (``TimeoutError`` beyond).
    log : callable, optional
        One line per phase.

    Returns
    -------
    SweepResult
        ``state`` "done" with the table, or "cancelled" / "failed" with ``errors``.
    """
    if not isinstance(sweep_id, str) or not sweep_id.strip():
        raise SweepError(f"sweep_id must be a non-empty string, got {sweep_id!r}")
    say = log or (lambda msg: None)
    since = time.time()
    t_start = time.perf_counter()
    if max(config.n_features) > data.max_features:
        raise SweepError(f"n_features {max(config.n_features)} exceeds the {data.max_features} terms per category "
                         "kept in the sweep data; prepare it with this config")
    cats = sweep_categories(config, data)
    cols = [data.category_index(c) for c in cats]
    result = SweepResult(sweep_id, config, "running", _data_info(data), cats, Y_test=data.Y_test[:, cols])
    input_name = _ensure_shared(runner, data)

    choices = {}
    if not config.final_only:
        cells = plan_validation_cells(config, data)
        say(f"validation: {len(cells)} cells ({len(cats)} categories x "
            f"{sum(len(config.grid(k)) for k in config.clusterings)} configurations)")
        recs = _run_phase(runner, sweep_id, cells, input_name, "validation", progress, timeout, result, since)
        if recs is None:
            return _finish(result, t_start)
        val = {}
        for cell in cells:
            rec = recs[cell.key]
            res = dict(rec.result, job_id=rec.id)
            result.validation.append(res)
            k = cell.classifier.split("-", 1)[1].lower()
            val[(cell.category, k, cell.config)] = (res.get("breakeven"), res["n_pos"])
        choices = choose_configs(config, cats, val)
        result.choices = choices

    cells = plan_test_cells(config, data, choices)
    say(f"test: {len(cells)} cells")
    recs = _run_phase(runner, sweep_id, cells, input_name, "test", progress, timeout, result, since)
    if recs is None:
        return _finish(result, t_start)
    n_test, n_cat = result.Y_test.shape
    for cell in cells:
        rec = recs[cell.key]
        res = dict(rec.result, job_id=rec.id)
        result.test.append(res)
        S = result.test_scores.setdefault(cell.classifier, np.zeros((n_test, n_cat)))
        j = cats.index(cell.category)
        if "scores.npy" not in rec.artifacts:
            raise SweepError(f"test cell job {rec.id} ({rec.label}) has no scores artifact")
        S[:, j] = _npy_load(runner.registry.read_artifact(rec.artifacts["scores.npy"]))
        if "tree.json" in rec.artifacts:
            tree = json.loads(runner.registry.read_artifact(rec.artifacts["tree.json"]))
            result.trees.setdefault(cell.classifier, {})[cell.category] = tree
    result.state = "done"
    _finish(result, t_start)
    result.table = sweep_table(result)
    return result


def _finish(result: SweepResult, t_start: float) -> SweepResult:
    result.timings["wall_seconds"] = time.perf_counter() - t_start
    for stage, rows in (("validation", result.validation), ("test", result.test)):
        fits = [r.get("fit_seconds") for r in rows if r.get("fit_seconds") is not None]
        result.timings[f"{stage}_fit_seconds_total"] = float(sum(fits))
        result.timings[f"{stage}_cpu_seconds_total"] = float(sum(r.get("cpu_seconds") or 0.0 for r in rows))
        result.timings[f"{stage}_cells"] = len(rows)
    return result


def _data_info(data: SweepData) -> dict:
    info = dict(data.corpus_info)
    info.pop("indexing", None)
    info.pop("categories", None)
    info.update(data_fingerprint=data.fingerprint, n_categories=len(data.categories),
                n_terms_kept=len(data.names), n_train=int(data.X_train.shape[0]), n_test=int(data.X_test.shape[0]),
                n_train0=int(data.train0.sum()), n_validation=int((~data.train0).sum()))
    return info


# =========================================================================== the table
def sweep_table(result: SweepResult) -> dict:
    """The sweep's table: per classifier micro / macro breakeven over the categories (percent),
    beside de Campos et al.'s Reuters values (seed 001 Table 1) and, over the thesis's 10
    categories, the thesis's Table 4.10."""
    from hbnlab.evaluation import macro_breakeven, micro_breakeven, per_class_breakeven
    from hbnlab.experiments import paper_values as pv
    from hbnlab.experiments.decampos import PAPER

    Y = result.Y_test
    cats = list(result.categories)
    top10 = [cats.index(c) for c in pv.THESIS_CLASSES if c in cats]
    rows, per_class = [], {}
    for clf in result.config.classifiers + list(result.config.baselines):
        S = result.test_scores[clf]
        cells = [t for t in result.test if t["classifier"] == clf]
        configs = {}
        for t in cells:
            key = "untuned" if t["B"] is None else f"B={t['B']} alpha={t['alpha']:g} nf={t['n_features']}"
            configs[key] = configs.get(key, 0) + 1
        nf = cells[0]["n_features"]
        row = {
            "classifier": clf, "n_features": nf, "n_categories": len(cats),
            "micro": 100 * micro_breakeven(Y, S), "macro": 100 * macro_breakeven(Y, S),
            "micro_pooled": 100 * micro_breakeven(Y, S, method="pooled"),
            "configs": dict(sorted(configs.items(), key=lambda kv: -kv[1])),
            "fit_seconds_total": float(sum(t.get("fit_seconds") or 0.0 for t in cells)),
        }
        if len(top10) == len(pv.THESIS_CLASSES):
            row["top10_micro"] = 100 * micro_breakeven(Y[:, top10], S[:, top10])
            row["top10_macro"] = 100 * macro_breakeven(Y[:, top10], S[:, top10])
            ref = pv.table_4_10_row(clf, nf)
            if ref is not None:
                row["thesis_top10_micro"], row["thesis_top10_macro"] = ref["micro"], ref["macro"]
        rows.append(row)
        per_class[clf] = dict(zip(cats, (100 * per_class_breakeven(Y, S)).tolist()))
    reuters = result.data_info.get("name") == "reuters21578-modapte"
    reference = []
    if reuters:
        for name in ("NBayes", "OR-eq12", "OR-eq17"):
            p = PAPER[1][name]
            reference.append({"classifier": name, "micro": p["micro"], "macro": p["macro"],
                              "source": "de Campos et al., Table 1 (Reuters-21578, 90 categories)"})
    notes = [
        "micro = the thesis's definition (one threshold per category, at its breakeven; contingency "
        "tables summed); micro_pooled = one ranking of all (document, category) pairs.",
        "Scores are the posterior log-odds (same ranking as the posterior, no rounding to 1.0).",
    ]
    if reuters:
        notes.append(
            "Protocols differ: hbnlab follows the thesis (documents with at least one of the categories, "
            "no stemming, the thesis's stop words, 30 information-gain terms per category); de Campos et al. "
            "keep the unlabelled ModApte documents (9,603 / 3,299), use Porter stemming, the SMART stop list "
            "and every term. The NB row is the thesis's Bernoulli naive Bayes (N0 = 0.1) on the sweep's data; "
            "de Campos's NBayes is multinomial.")
    return {
        "sweep_id": result.sweep_id, "corpus": result.data_info.get("name"),
        "n_categories": len(cats), "n_test": int(Y.shape[0]),
        "choose": None if result.config.final_only else result.config.choose,
        "final_only": result.config.final_only, "n_restarts": result.config.n_restarts,
        "rows": rows, "reference": reference, "per_class": per_class,
        "n_positive": dict(zip(cats, Y.sum(axis=0).astype(int).tolist())),
        "timings": dict(result.timings), "notes": notes,
    }


def format_table_markdown(table: Mapping) -> str:
    """The sweep table as GitHub-flavoured Markdown."""
    def f(v):
        return "" if v is None or (isinstance(v, float) and not math.isfinite(v)) else f"{v:.1f}"

    n = table["n_categories"]
    how = "Table 4.1's final B and alpha" if table.get("final_only") else f"tuned on validation ({table.get('choose')})"
    lines = [f"### {n}-category breakeven ({table.get('corpus')}, test split, {how}, "
             f"{table.get('n_restarts')} EM restarts)", "",
             f"| classifier | features | micro BEP | macro BEP | pooled micro BEP | 10-class micro (thesis) "
             f"| 10-class macro (thesis) | configurations |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in table["rows"]:
        conf = "; ".join(f"{k} ({v})" if len(r["configs"]) > 1 else k for k, v in list(r["configs"].items())[:4])
        if len(r["configs"]) > 4:
            conf += f"; ... ({len(r['configs'])} in all)"
        t_mi = f(r.get("top10_micro")) + (f" ({f(r['thesis_top10_micro'])})" if "thesis_top10_micro" in r else "")
        t_ma = f(r.get("top10_macro")) + (f" ({f(r['thesis_top10_macro'])})" if "thesis_top10_macro" in r else "")
        lines.append(f"| {r['classifier']} (hbnlab) | {r['n_features']} | {f(r['micro'])} | {f(r['macro'])} | "
                     f"{f(r['micro_pooled'])} | {t_mi} | {t_ma} | {conf} |")
    for r in table.get("reference", []):
        lines.append(f"| {r['classifier']} (de Campos et al.) | all | {r['micro']:.1f} | {r['macro']:.1f} | | | | "
                     f"published |")
    lines.append("")
    t = table.get("timings", {})
    if t:
        lines.append(f"Wall time {t.get('wall_seconds', float('nan')):.0f} s"
                     + (f" on the {t['backend']}" if t.get("backend") else "")
                     + "; CPU time summed over the cells: validation "
                     f"{t.get('validation_cpu_seconds_total', 0):.0f} s, "
                     f"test {t.get('test_cpu_seconds_total', 0):.0f} s (cells reused from an earlier run count too).")
        lines.append("")
    for note in table.get("notes", []):
        lines.append(f"* {note}")
    return "\n".join(lines) + "\n"
