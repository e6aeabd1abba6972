"""Tiny built-in tasks for testing runners and registries (``module="hbnlab.jobs.testing"``).

``count``
    Counts ``n`` steps with ``delay`` seconds each, reporting ``progress(step, of, fraction,
    pid)`` and a trace, honouring ``should_stop``; on request it raises at step ``crash_at``,
    kills its own process at step ``die_at`` (only in the attempts listed in ``die_attempts``
    when given), or ignores cancellation (``hang``).  Saves an
    artifact (a JSON summary) and returns ``{"total": sum(range(n)), ...}``.
``score_shared``
    Reads the shared input named ``params["input"]`` (a dict with a 2-D array ``"X"``), draws a
    weight vector from ``random_state`` and returns summary numbers: identical on every
    backend for the same inputs and seed.
``spin``
    CPU-bound stand-in for an EM fit (benchmarks): ``reps`` products of ``size`` x ``size``
    matrices drawn from ``random_state``; returns a checksum, the CPU seconds used and the
    process's peak resident memory.

:func:`wait_until` polls a condition with a deadline, for the tests and benchmarks that drive
these tasks.
"""
from __future__ import annotations

import json
import os
import signal
import time

from hbnlab.jobs.tasks import register_task

__all__ = ["count", "score_shared", "spin", "wait_until"]


def wait_until(predicate, timeout: float = 300.0, interval: float = 0.02, what: str = "condition"):
    """``predicate()``'s first true value, polled every ``interval`` s; ``TimeoutError`` naming
    ``what`` after ``timeout`` s.  The deadline is a failsafe against a hang, not a measure of speed:
    a loaded machine (two cores, load 8) takes tens of seconds to start a worker process."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}")


@register_task("count")
def count(params: dict, ctx) -> dict:
    n = int(params.get("n", 10))
    delay = float(params.get("delay", 0.01))
    crash_at = params.get("crash_at")
    die_at = params.get("die_at")
    die_attempts = params.get("die_attempts")
    if die_attempts is not None and ctx.attempt not in die_attempts:
        die_at = None
    hang = bool(params.get("hang", False))
    total = 0
    step = 0
    for step in range(n):
        if not hang and ctx.should_stop():
            ctx.log(f"stopping at step {step} of {n} on request")
            return {"total": total, "n": n, "steps": step, "stopped": True}
        if crash_at is not None and step == crash_at:
            raise RuntimeError(f"count crashed at step {step} as requested")
        if die_at is not None and step == die_at:
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(delay)
        total += step
        ctx.progress(step=step + 1, of=n, fraction=(step + 1) / n, pid=os.getpid(),
                     message=f"step {step + 1} of {n}")
        ctx.trace("total", step, float(total))
    ctx.log(f"counted {n} steps")
    summary = json.dumps({"n": n, "total": total, "random_state": ctx.random_state},
                         sort_keys=True).encode()
    digest = ctx.save_artifact("summary.json", summary) if params.get("artifact", True) else None
    return {"total": total, "n": n, "steps": n, "stopped": False, "artifact": digest}


@register_task("score_shared")
def score_shared(params: dict, ctx) -> dict:
    import numpy as np

    data = ctx.shared[params["input"]]
    X = np.asarray(data["X"], dtype=float)
    rng = np.random.default_rng(ctx.random_state)
    w = rng.standard_normal(X.shape[1])
    scores = X @ w
    ctx.progress(fraction=1.0, rows=int(X.shape[0]))
    return {"mean": float(scores.mean()), "max": float(scores.max()),
            "argmax": int(scores.argmax()), "rows": int(X.shape[0])}


@register_task("spin")
def spin(params: dict, ctx) -> dict:
    import resource

    import numpy as np

    size = int(params.get("size", 200))
    reps = int(params.get("reps", 20))
    rng = np.random.default_rng(ctx.random_state)
    a = rng.standard_normal((size, size)) / np.sqrt(size)
    b = np.eye(size)
    t0 = time.process_time()
    done = 0
    for done in range(1, reps + 1):
        if ctx.should_stop():
            break
        b = a @ b
        b /= np.abs(b).max()
        ctx.progress(rep=done, of=reps, fraction=done / reps)
    return {"checksum": float(b.sum()), "reps": done, "cpu_seconds": time.process_time() - t0,
            "maxrss_kb": int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss),
            "pid": os.getpid()}
