"""The job table and the live progress line of background jobs, and the tuning grid's cells."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from hbnlab.models.catalog import CLUSTERINGS
from hbnlab.pipeline.config import STRUCTURE_ALGORITHMS, ExperimentConfig, clustering_of


def _fmt_seconds(s) -> str:
    if s is None or not np.isfinite(s):
        return ""
    s = float(s)
    return f"{s:.0f}s" if s < 90 else f"{s / 60:.1f}min"


def progress_text(progress: dict | None) -> str:
    """One line: unit i of n, class and learner, restart, iteration, log-likelihood."""
    if not progress:
        return ""
    p = progress
    parts = []
    if "cell" in p:
        parts.append(f"cell {p['cell']}/{p.get('cells', '?')} (B={p.get('B')}, alpha={p.get('alpha')})")
    if "unit" in p:
        parts.append(f"unit {p['unit']}/{p.get('units', '?')}: {p.get('classifier', '')} · {p.get('class', '')}")
    if "restart" in p:
        parts.append(f"restart {p['restart']} of {p.get('restarts', '?')}")
    elif "running" in p:
        conv = f", {p['converged']} converged" if "converged" in p else ""
        parts.append(f"{p['running']} of {p.get('restarts', '?')} EM restarts running{conv}")
    if "iteration" in p:
        parts.append(f"iteration {p['iteration']}")
    if "loglik" in p:
        parts.append(f"log-lik {p['loglik']:.2f}")
    if not parts and p.get("message"):
        parts.append(str(p["message"]))
    return " · ".join(parts)


def run_settings(params: dict, classifiers=None) -> str:
    """What tells two runs apart in a picker: the terms per class and, for the tree learners among
    ``classifiers`` (default the job's), B and alpha -- ``"30 terms · B 7, α 170"``; one B / alpha per
    clustering when several are trained (``"30 terms · OR B 9, α 0.09; DEP B 7, α 170"``), "per
    class" for what a tuning job chose class by class.  ``params``: a train job's parameters or
    result (``config``, ``classifiers``, ``class_settings``); ``""`` when its config cannot be read.

    >>> run_settings({"config": {"n_features": 30, "B_dep": 7, "alpha_dep": 170.0}}, ["HBN-DEP"])
    '30 terms · B 7, α 170'
    >>> run_settings({"config": {"n_features": 30}, "class_settings": {"earn": {"n_features": 50}}}, ["NB"])
    'terms per class'
    """
    try:
        cfg = ExperimentConfig.from_dict(params["config"])
    except (KeyError, TypeError, ValueError):
        return ""
    own = [v for v in (params.get("class_settings") or {}).values() if isinstance(v, dict)]
    names = [str(n).upper() for n in (classifiers or params.get("classifiers") or cfg.classifiers)]
    parts = ["terms per class" if any("n_features" in v for v in own) else f"{cfg.n_features} terms"]
    trees = sorted({clustering_of(n) for n in names if n in STRUCTURE_ALGORITHMS}, key=CLUSTERINGS.index)
    if trees and any("B" in v or "alpha" in v for v in own):
        parts.append("B and α per class")
    elif trees:
        each = []
        for c in trees:
            B, alpha = cfg.structure_params(f"HBN-{c.upper()}")
            each.append(("" if len(trees) == 1 else f"{c.upper()} ") + f"B {B}, α {alpha:g}")
        parts.append("; ".join(each))
    return " · ".join(parts)


def empty_jobs_text(kind: str | None, counts: dict) -> str:
    """What an empty job list says: what it lists, and where the jobs of other kinds are.
    ``counts``: the number of jobs of each kind.

    >>> empty_jobs_text("tune", {"train": 2})
    'No tuning sweeps yet; 2 training jobs are on Training.'
    >>> empty_jobs_text("tune", {}), empty_jobs_text(None, {})
    ('No tuning sweeps yet.', 'No jobs yet.')
    """
    if kind is None:
        return "No jobs yet."
    what = {"tune": "tuning sweeps", "train": "training jobs"}.get(kind, f"{kind} jobs")
    others = [(n, {"train": ("training job", "Training"), "tune": ("tuning sweep", "Tuning")}.get(k, (f"{k} job", "")))
              for k, n in counts.items() if k != kind and n]
    where = "; ".join(f"{n} {noun}{'s are' if n != 1 else ' is'}" + (f" on {page}" if page else "")
                      for n, (noun, page) in others)
    return f"No {what} yet" + (f"; {where}." if where else ".")


def jobs_frame(records, now: float | None = None) -> pd.DataFrame:
    """The job table: id, kind, what, state, progress, elapsed, remaining, attempt."""
    now = time.time() if now is None else now
    rows = []
    for r in records:
        prog = r.progress or {}
        frac = prog.get("fraction")
        if r.state == "done":
            frac = 1.0
        if r.state in ("running", "queued") or not r.error:
            detail = progress_text(prog) if r.state != "done" else ""
        else:
            detail = r.error.strip().splitlines()[-1]
        rows.append({
            "id": r.id, "kind": r.kind, "what": r.label, "state": r.state,
            "progress": float(frac) if isinstance(frac, (int, float)) else 0.0,
            "detail": detail,
            "elapsed": _fmt_seconds(r.elapsed(now)),
            "remaining": _fmt_seconds(r.eta(now)) if r.state == "running" else "",
            "attempt": r.attempt,
        })
    return pd.DataFrame(rows, columns=["id", "kind", "state", "progress", "elapsed", "remaining", "detail", "what",
                                       "attempt"])


def per_class_tuning_frame(result: dict) -> pd.DataFrame:
    """Each class's own best cell (terms, B, alpha, validation breakeven) beside its breakeven in
    the best common cell; empty for a job from before per-class choices were recorded."""
    own = result.get("best_per_class") or {}
    common = result.get("best", {}).get("per_class", {})
    states = any("hidden_states" in v for v in own.values())
    rows = [{"class": c, "terms": v["n_features"], "hidden states": str(v.get("hidden_states", 2)), "B": v["B"],
             "alpha": v["alpha"], "breakeven": v["breakeven"], "best common cell": common.get(c),
             "gain": round(v["breakeven"] - common[c], 2) if c in common else None}
            for c, v in own.items()]
    columns = ["class", "terms", *(["hidden states"] if states else []), "B", "alpha", "breakeven",
               "best common cell", "gain"]
    return pd.DataFrame(rows, columns=columns)


def tuning_frame(result: dict) -> pd.DataFrame:
    cells = pd.DataFrame(result.get("cells", []))
    if cells.empty:
        return cells
    if "hidden_states" not in cells:
        cells["hidden_states"] = 2      # jobs from before the hidden states were a dimension: binary
    cells["hidden_states"] = cells["hidden_states"].astype(str)
    cols = ["n_features", "hidden_states", "B", "alpha", "micro", "macro"]
    cols += [c for c in ("vs_best_low", "vs_best_high", "tied_with_best") if c in cells]
    return cells[cols].sort_values(["n_features", "hidden_states", "B", "alpha"], kind="stable")
