"""The cells of a sweep and the job that computes one.

A cell is one (stage, category, classifier, configuration): an HBN classifier (or a baseline)
trained on training-0 and scored on the validation split, or trained on the whole training set
and scored on the test set (Karčiauskas 2002, secs. 4.1.1 and 4.2.2).  Every cell is one job of
the task ``"sweep_cell"`` (:func:`sweep_cell_task`), registered with :mod:`hbnlab.jobs` when
this module is imported.  Job specs name :data:`TASK_MODULE`, the package
``hbnlab.experiments.sweep``, whose import registers the task in a worker process.

A cell is identified by a key over everything that determines its result (stage, category,
classifier, B, alpha, features, hidden states, EM settings, seed, data fingerprint; the hidden
states enter only when they are not 2, so the key of a binary cell is the one it had before the
sweep had that dimension and registries of earlier sweeps are reused), and its seed is a hash of
the sweep seed, the category and the classifier (:func:`cell_seed`), so the numbers do not
depend on the order in which workers pick cells, nor on the backend.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from hbnlab._validation import Cancelled
from hbnlab.bn.params import ParameterError
from hbnlab.experiments.sweep.config import (
    SWEEP_FORMAT_VERSION,
    SweepConfig,
    SweepError,
    classifier_name,
    states_part,
)
from hbnlab.experiments.sweep.data import SweepData, sweep_categories
from hbnlab.jobs import JobSpec
from hbnlab.jobs.malloc import repair_malloc_trim
from hbnlab.jobs.tasks import JobCancelled, register_task

__all__ = [
    "TASK_MODULE", "CELL_KIND", "Cell", "cell_seed", "plan_validation_cells", "plan_test_cells",
    "sweep_cell_task", "npy_bytes", "npy_load",
]

#: The module a worker imports to find the sweep task (recorded in every job spec).
TASK_MODULE = "hbnlab.experiments.sweep"
CELL_KIND = "sweep_cell"


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
    hidden_states: int | str = 2

    @property
    def config(self) -> tuple:
        """(B, alpha, n_features, hidden_states), as in :meth:`SweepConfig.grid`."""
        return (self.B, self.alpha, self.n_features, self.hidden_states)

    def params(self) -> dict:
        p = {"sweep_format": SWEEP_FORMAT_VERSION, "stage": self.stage, "category": self.category,
             "classifier": self.classifier, "n_features": self.n_features, "B": self.B, "alpha": self.alpha,
             "n_restarts": self.n_restarts, "tol": self.tol, "seed": self.seed, "data": self.data}
        if self.hidden_states != 2:  # binary cells keep their keys from before this setting
            p["hidden_states"] = self.hidden_states
        p["cell"] = hashlib.sha256(json.dumps(p, sort_keys=True).encode()).hexdigest()[:24]
        return p

    @property
    def key(self) -> str:
        return self.params()["cell"]

    @property
    def label(self) -> str:
        conf = "" if self.B is None else f" B={self.B} alpha={self.alpha:g}" + states_part(self.hidden_states)
        return f"{self.stage} {self.category} {self.classifier}{conf} nf={self.n_features}"

    def spec(self, sweep_id: str, input_name: str) -> JobSpec:
        return JobSpec(CELL_KIND, self.params(), label=self.label, group=sweep_id, random_state=self.seed,
                       module=TASK_MODULE, inputs=(input_name,))


def _hbn_cell(config: SweepConfig, data: SweepData, stage, category, clustering, conf) -> Cell:
    B, alpha, nf, states = conf
    name = classifier_name(clustering, config.direction)
    return Cell(stage, category, name, int(nf), int(B), float(alpha), config.n_restarts, config.tol,
                cell_seed(config.random_state, category, name), data.fingerprint, states)


def plan_validation_cells(config: SweepConfig, data: SweepData, skip=()) -> list[Cell]:
    """Every (category, clustering, B, alpha, features, hidden states) cell of the grid on
    training-0 / validation, except for the categories in ``skip`` (those the validation split
    cannot score); the configurations of :meth:`SweepConfig.not_fitted` are not in the grid."""
    if config.final_only:
        return []
    return [_hbn_cell(config, data, "validation", cat, k, conf)
            for k in config.clusterings for cat in sweep_categories(config, data) if cat not in skip
            for conf in config.grid(k)]


def plan_test_cells(config: SweepConfig, data: SweepData, choices: Mapping | None = None) -> list[Cell]:
    """The test cells: per category and clustering the chosen configuration (``choices[(category,
    clustering)]["config"]``; Table 4.1's with ``final_only``), plus the baselines."""
    cells = []
    cats = sweep_categories(config, data)
    for k in config.clusterings:
        for cat in cats:
            conf = config.final_config(k) if config.final_only else choices[(cat, k)]["config"]
            cells.append(_hbn_cell(config, data, "test", cat, k, conf))
    for name in config.baselines:
        for cat in cats:
            cells.append(Cell("test", cat, name, config.n_features[0], None, None, config.n_restarts, config.tol,
                              cell_seed(config.random_state, cat, name), data.fingerprint))
    return cells


_DATA_CACHE: dict = {}
_DATA_LOCK = threading.Lock()


def _cached_data(shared: Mapping) -> SweepData:
    """The :class:`SweepData` of a shared input, one per worker process (by fingerprint), so the
    cells that follow reuse its split matrices."""
    key = shared["fingerprint"]
    with _DATA_LOCK:
        data = _DATA_CACHE.get(key)
        if data is None:
            data = SweepData.from_shared(shared)
            _DATA_CACHE.clear()  # keep one data set per process
            _DATA_CACHE[key] = data
    return data


def _finite_scores(s: np.ndarray) -> np.ndarray:
    # +-inf log-odds (a probability of exactly 0 or 1) keep their order as +-1e300
    s = np.asarray(s, dtype=np.float64)
    return np.nan_to_num(s, nan=0.0, posinf=1e300, neginf=-1e300)


def npy_bytes(a: np.ndarray) -> bytes:
    """``a`` in NumPy's ``.npy`` format (the ``scores.npy`` artifact of a test cell)."""
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(a), allow_pickle=False)
    return buf.getvalue()


def npy_load(b: bytes) -> np.ndarray:
    """The array of :func:`npy_bytes`."""
    return np.load(io.BytesIO(b), allow_pickle=False)


@register_task(CELL_KIND)
def sweep_cell_task(params: dict, ctx) -> dict:
    """Train one classifier of a sweep cell and score it (the ``"sweep_cell"`` job).

    Returns the breakeven of the category on the evaluation split (computed on the posterior
    log-odds, which rank like the posterior but never round to 1.0), its number of positives and
    fit statistics.  Test cells also store the evaluation scores (``scores.npy``) and the learned
    tree (``tree.json``) as artifacts.
    """
    import resource

    from hbnlab.evaluation import breakeven_point
    from hbnlab.pipeline.fit import fit_unit

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
    stage, category = params["stage"], params["category"]
    data = _cached_data(shared)
    nf = int(params["n_features"])
    if nf > data.max_features:
        raise SweepError(f"n_features {nf} exceeds the {data.max_features} terms kept per category")
    y_eval = data.evaluation(stage)[0][:, data.category_index(category)]
    n_splits = data.n_splits(stage)
    states = params.get("hidden_states", 2)
    out = {"cell": params["cell"], "stage": stage, "category": category,
           "classifier": params["classifier"], "B": params["B"], "alpha": params["alpha"], "n_features": nf,
           "n_pos": int(y_eval.sum()), "n_eval": int(y_eval.size),
           "n_pos_fit": min(int(y.sum()) for y in data.fit_labels(category, stage))}
    if params["B"] is not None:
        out["hidden_states"] = states
    if n_splits > 1:
        out["n_folds"] = n_splits
    gap = data.unlearnable(category, stage)
    if gap is not None:
        # no classifier can be trained without a positive (or a negative) to fit on
        out.update(breakeven=None, skipped=f"the {gap[0]} split has {gap[1]} positive document(s)")
        return out
    ctx.progress(message=f"fitting {params['classifier']} for {category}", fraction=0.0)
    hyper = {}
    if params["B"] is not None:
        hyper = {"B": int(params["B"]), "alpha": float(params["alpha"]), "n_restarts": int(params["n_restarts"]),
                 "tol": float(params["tol"]), "hidden_states": states}

    def em_progress(info):
        it, top = info.get("iteration", 0), info.get("max_iter") or 1
        ctx.progress(message=f"EM iteration {it}", iteration=it, n_running=info.get("n_running"),
                     fraction=min(1.0, it / top))

    try:
        fit = fit_unit(data, category, params["classifier"], n_features=nf, params=hyper, stage=stage,
                       random_state=int(params["seed"]), score="log_odds", progress=em_progress,
                       should_stop=ctx.should_stop, class_name=category)
    except Cancelled:
        raise JobCancelled(f"sweep cell {params['cell']} cancelled during EM") from None
    except ParameterError as e:
        # a table above the estimator's limit (a search "auto" / "auto-holdout" at a large B):
        # a validation cell records it as not fitted, as reproduce.three_phase_tuning does
        if stage != "validation":
            raise
        out.update(breakeven=None, skipped=f"not fitted: {e}")
        return out
    scores = _finite_scores(fit.scores)
    be = breakeven_point(y_eval, scores) if y_eval.any() else float("nan")
    out.update(
        breakeven=None if not math.isfinite(be) else float(be),
        fit_seconds=fit.seconds, task_seconds=time.perf_counter() - t_task,
        cpu_seconds=time.process_time() - c_task,
        maxrss_kb=int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss), pid=os.getpid(),
    )
    est = fit.estimators[-1]  # the EM statistics of the last fold
    if hasattr(est, "em_result_"):
        lb = float(est.lower_bound_)
        out.update(n_iter=int(est.n_iter_), converged=bool(est.converged_),
                   lower_bound=lb if math.isfinite(lb) else None)
    if stage == "test":
        out["scores_sha256"] = ctx.save_artifact("scores.npy", npy_bytes(scores))
        if hasattr(est, "tree_"):
            ctx.save_artifact("tree.json", json.dumps(est.tree_.to_dict(), sort_keys=True).encode())
    ctx.progress(message="done", fraction=1.0)
    return out
