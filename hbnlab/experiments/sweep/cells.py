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


_SPLIT_CACHE: dict = {}
_SPLIT_LOCK = threading.Lock()


def _cached_splits(shared: Mapping, stage: str):
    """(SweepData, [(X_fit, Y_fit, X_eval, Y_eval) per fold]), cached per worker process by
    fingerprint (one fold for the test stage and for a hold-out validation split)."""
    key = (shared["fingerprint"], stage)
    with _SPLIT_LOCK:
        hit = _SPLIT_CACHE.get(key)
        if hit is None:
            data = SweepData.from_shared(shared)
            hit = (data, [data.split(stage, k) for k in range(data.n_splits(stage))])
            for old in [k for k in _SPLIT_CACHE if k[0] != key[0]]:  # keep one data set per process
                del _SPLIT_CACHE[old]
            _SPLIT_CACHE[key] = hit
    return hit


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
    data, splits = _cached_splits(shared, stage)
    j = data.category_index(params["category"])
    nf = int(params["n_features"])
    if nf > data.max_features:
        raise SweepError(f"n_features {nf} exceeds the {data.max_features} terms kept per category")
    cols = data.ranked[j, :nf]
    y_eval = np.concatenate([sp_[3][:, j] for sp_ in splits])
    n_pos_fit = [int(sp_[1][:, j].sum()) for sp_ in splits]
    states = params.get("hidden_states", 2)
    out = {"cell": params["cell"], "stage": stage, "category": params["category"],
           "classifier": params["classifier"], "B": params["B"], "alpha": params["alpha"], "n_features": nf,
           "n_pos": int(y_eval.sum()), "n_eval": int(y_eval.size), "n_pos_fit": min(n_pos_fit)}
    if params["B"] is not None:
        out["hidden_states"] = states
    if len(splits) > 1:
        out["n_folds"] = len(splits)
    for k, (_, Y_fit, _, _) in enumerate(splits):
        y = Y_fit[:, j]
        if y.min() == y.max():
            # no classifier can be trained without a positive (or a negative) to fit on
            where = ("training" if stage == "test" else "training-0" if len(splits) == 1
                     else f"fitting part of validation fold {k + 1}")
            out.update(breakeven=None, skipped=f"the {where} split has {'no' if y.max() == 0 else 'only'} "
                                               f"positive document(s)")
            return out
    ctx.progress(message=f"fitting {params['classifier']} for {params['category']}", fraction=0.0)
    hyper = {}
    if params["B"] is not None:
        hyper = {"B": int(params["B"]), "alpha": float(params["alpha"]), "n_restarts": int(params["n_restarts"]),
                 "tol": float(params["tol"]), "hidden_states": states}
    pooled, fit_seconds, est = [], 0.0, None
    for X_fit, Y_fit, X_eval, _ in splits:
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
            est.fit(X_fit, Y_fit[:, j].astype(np.int8), selected_features=cols)
        except Cancelled:
            raise JobCancelled(f"sweep cell {params['cell']} cancelled during EM") from None
        except ParameterError as e:
            # a table above the estimator's limit (a search "auto" / "auto-holdout" at a large B):
            # a validation cell records it as not fitted, as reproduce.three_phase_tuning does
            if stage != "validation":
                raise
            out.update(breakeven=None, skipped=f"not fitted: {e}")
            return out
        fit_seconds += time.perf_counter() - t0
        pooled.append(_finite_scores(est.decision_function(X_eval)))
    scores = np.concatenate(pooled)
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
        out["scores_sha256"] = ctx.save_artifact("scores.npy", npy_bytes(scores))
        if hasattr(est, "tree_"):
            ctx.save_artifact("tree.json", json.dumps(est.tree_.to_dict(), sort_keys=True).encode())
    ctx.progress(message="done", fraction=1.0)
    return out
