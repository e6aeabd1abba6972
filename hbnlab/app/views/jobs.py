"""The job table and the live progress line of background jobs, and the tuning grid's cells."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd


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
