"""Running a sweep as background jobs: the phases, the choice of configurations, cancelling.

A sweep is the thesis's tuning protocol (Karčiauskas 2002, sec. 4.2.1) run on many categories
at once as independent jobs (:mod:`hbnlab.jobs`), on the local process pool or on Dask:

1. **validation** -- for every category x clustering x B x alpha (x number of features x
   hidden nodes' number of states) one cell on training-0 / validation (thesis sec. 4.1.1: the
   training set split by time, 5,827 / 1,942); an HBN whose tables would exceed the binary grid's
   largest is not fitted (:meth:`SweepConfig.not_fitted`);
2. **choice** -- per clustering, the configuration with the best validation breakeven of each
   category (``choose="per-category"``; a category without a validation positive falls back
   to the global choice) or the one with the best validation *micro* breakeven over all the
   categories (``choose="global"``, the thesis's criterion, sec. 4.2);
3. **test** -- the chosen configuration retrained on the whole training set and scored on the
   test set (thesis sec. 4.2.2), one cell per category and clustering;
4. **table** -- :func:`hbnlab.experiments.sweep.tables.sweep_table`.

``final_only=True`` skips 1-2 and tests Table 4.1's final (B, alpha) of each clustering.

The data is shipped to each worker once with ``Runner.share`` -- ``client.scatter(broadcast=True)``
on Dask, one pickled payload per worker process on the local pool -- under a name derived from
its fingerprint; a sweep id is the jobs' group.

Resuming.  Running a sweep id again reuses its finished cells, re-queues failed / cancelled /
interrupted ones under their job ids (the registry's attempt guard records each result exactly
once) and submits only missing ones.  One process owns a sweep id at a time
(:func:`sweep_lock`, a lock file under the registry): a second process started with the same id
is refused with :class:`~hbnlab.jobs.locks.GroupLockedError` instead of submitting the missing
cells a second time.  Cancelling (:func:`cancel_sweep`, from any process)
cancels the group's jobs and leaves a marker record in the registry, so a sweep between two
phases does not start the next.
"""
from __future__ import annotations

import json
import math
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from hbnlab.corpus.splits import untunable_labels
from hbnlab.experiments.sweep.cells import (
    CELL_KIND,
    Cell,
    npy_load,
    plan_test_cells,
    plan_validation_cells,
)
from hbnlab.experiments.sweep.config import STAGES, SweepConfig, SweepError
from hbnlab.experiments.sweep.data import SweepData, sweep_categories
from hbnlab.experiments.sweep.tables import SweepResult, sweep_table
from hbnlab.jobs import JobSpec
from hbnlab.jobs.locks import group_lock
from hbnlab.jobs.records import system_failure
from hbnlab.jobs.runner import SystemFailureError, as_registry

__all__ = ["CONTROL_KIND", "CONTROL_BACKEND", "choose_configs", "run_sweep", "cancel_sweep", "sweep_status",
           "sweep_lock"]

CONTROL_KIND = "sweep_control"
CONTROL_BACKEND = "sweep-control"  # no runner claims jobs of this backend


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


def choose_configs(config: SweepConfig, categories: Sequence[str], validation: Mapping,
                   untunable: Mapping | None = None) -> dict:
    """Choose a configuration per (category, clustering) from validation results.

    Parameters
    ----------
    validation : mapping (category, clustering, (B, alpha, n_features, hidden_states)) -> (breakeven or None, n_pos)
        The categories of ``untunable`` need no entries.
    untunable : mapping category -> reason, optional
        Categories the validation split cannot score (:func:`hbnlab.corpus.splits.untunable_labels`);
        they get the global choice, labelled with the reason.

    Returns
    -------
    dict (category, clustering) -> {"config": (B, alpha, nf, hidden_states), "how": "per-category" | "global" |
    "global (not tuned: <reason>)" | "global (no validation breakeven)", "validation_breakeven": float or None}

    Ties go to the earlier configuration in grid order (smaller features, the earlier number of
    hidden states, smaller B, smaller alpha).  The global choice maximises the micro breakeven
    over the categories (thesis sec. 4.2), among the configurations with a breakeven on every
    category that any configuration scored (one not fitted on such a category is left out).
    """
    out = {}
    untunable = dict(untunable or {})
    tunable = [c for c in categories if c not in untunable]
    for k in config.clusterings:
        grid = config.grid(k)
        micro = []
        # categories some configuration scored: a configuration without a breakeven on one of them
        # (not fitted) would pool fewer categories than the others, so it is left out
        scored = {c for c in tunable if any(validation[(c, k, conf)][0] is not None for conf in grid)}
        for conf in grid:
            vals = [validation[(c, k, conf)] for c in tunable]
            if any(validation[(c, k, conf)][0] is None for c in scored):
                micro.append(float("nan"))
                continue
            micro.append(_micro_macro([v[0] for v in vals], [v[1] for v in vals])[0])
        micro_arr = np.array(micro, dtype=float)
        g = int(np.argmax(np.where(np.isfinite(micro_arr), micro_arr, -np.inf)))
        for c in categories:
            if c in untunable:
                out[(c, k)] = {"config": grid[g], "how": f"global (not tuned: {untunable[c]})",
                               "validation_breakeven": None, "global_validation_micro": micro[g]}
                continue
            best, best_be = None, -np.inf
            if config.choose == "per-category":
                for i, conf in enumerate(grid):
                    be = validation[(c, k, conf)][0]
                    if be is not None and math.isfinite(be) and be > best_be:
                        best, best_be = i, be
            if best is None:
                how = "global" if config.choose == "global" else "global (no validation breakeven)"
                best = g
            else:
                how = "per-category"
            be = validation[(c, k, grid[best])][0]
            out[(c, k)] = {"config": grid[best], "how": how, "validation_breakeven": be,
                           "global_validation_micro": micro[g]}
    return out


_SHARED_BY_RUNNER: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
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


def sweep_lock(registry, sweep_id: str):
    """Context manager: this thread owns ``sweep_id`` (``<registry>/group-locks/<id>.lock``) until
    the block ends; another owner makes it raise :class:`~hbnlab.jobs.locks.GroupLockedError`."""
    registry = as_registry(getattr(registry, "registry", registry))
    return group_lock(registry.path, sweep_id, what="sweep",
                      hint=f"follow it with: hbnlab sweep --sweep-id {sweep_id} --status")


def cancel_sweep(registry, sweep_id: str) -> list[int]:
    """Cancel every queued and running cell of a sweep (from any process) and leave a cancel
    marker in the registry, so a sweep between phases stops too.  Returns the cancelled job ids.

    The marker is a job of kind ``"sweep_control"`` on a backend no runner serves; it is
    cancelled at once, so it never runs.  Running the sweep id again later resumes it.
    """
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
    registry = as_registry(getattr(registry, "registry", registry))
    out = {s: {} for s in STAGES}
    for rec in registry.list(group=sweep_id):
        if rec.kind == CELL_KIND:
            st = out[rec.spec.params["stage"]]
            st[rec.state] = st.get(rec.state, 0) + 1
    return out


def _wait_phase(runner, ids: list, phase: str, progress, timeout):
    """Wait for the phase's jobs; a cell that failed for a system reason (a full disk, a quota, a
    read-only mount) stops the wait at once with :class:`~hbnlab.jobs.runner.SystemFailureError`:
    every other cell would fail the same way, or never start."""
    failed_seen = [0]

    def cb(counts):
        if progress is not None:
            progress(phase, counts, len(ids))
        if counts.get("failed", 0) > failed_seen[0]:
            failed_seen[0] = counts["failed"]
            for rec in runner.registry.list(ids=ids, states=["failed"]):
                if system_failure(rec.error):
                    raise SystemFailureError(f"{phase} cell job {rec.id} ({rec.label}) failed: {rec.error}")
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

    Raises
    ------
    GroupLockedError
        Another process (or thread) runs the same ``sweep_id`` (:func:`sweep_lock`).
    SystemFailureError
        A cell failed, or the runner cannot dispatch, for a system reason (a full disk, a quota,
        a read-only mount); the phase stops, its finished cells are kept for the resume.
    """
    if not isinstance(sweep_id, str) or not sweep_id.strip():
        raise SweepError(f"sweep_id must be a non-empty string, got {sweep_id!r}")
    if max(config.n_features) > data.max_features:
        raise SweepError(f"n_features {max(config.n_features)} exceeds the {data.max_features} terms per category "
                         "kept in the sweep data; prepare it with this config")
    with sweep_lock(runner.registry, sweep_id):
        return _run_sweep(config, data, runner, sweep_id, progress, timeout, log)


def _run_sweep(config, data, runner, sweep_id, progress, timeout, log) -> SweepResult:
    say = log or (lambda msg: None)
    since = time.time()
    t_start = time.perf_counter()
    cats = sweep_categories(config, data)
    cols = [data.category_index(c) for c in cats]
    result = SweepResult(sweep_id, config, "running", _data_info(data), cats, Y_test=data.Y_test[:, cols])
    input_name = _ensure_shared(runner, data)

    choices = {}
    if not config.final_only:
        result.untunable = untunable_labels(data.Y_train[:, cols], data.folds, cats)
        if len(result.untunable) == len(cats):
            raise SweepError("no category can be tuned on this validation split: "
                             + "; ".join(f"{c}: {why}" for c, why in result.untunable.items())
                             + "; run with final_only (Table 4.1's settings) or another split (cv=K)")
        if result.untunable:
            say(f"validation: {len(result.untunable)} categor{'y' if len(result.untunable) == 1 else 'ies'} "
                "cannot be tuned and will get the best configuration over the others: "
                + "; ".join(f"{c} ({why})" for c, why in result.untunable.items()))
        cells = plan_validation_cells(config, data, skip=result.untunable)
        say(f"validation: {len(cells)} cells ({len(cats) - len(result.untunable)} categories x "
            f"{sum(len(config.grid(k)) for k in config.clusterings)} configurations)")
        if config.not_fitted():
            say("validation: not fitted (tables above the binary grid's largest): "
                + "; ".join(f"B={b} k={k}" for b, k in config.not_fitted()))
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
        choices = choose_configs(config, cats, val, result.untunable)
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
        S[:, j] = npy_load(runner.registry.read_artifact(rec.artifacts["scores.npy"]))
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
                n_train0=int((data.folds < 0).sum()), n_validation=int((data.folds >= 0).sum()),
                n_folds=data.n_folds)
    return info
