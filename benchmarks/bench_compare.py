"""The Compare page's paired bootstrap: every resample at once against one resample at a time.

Usage::

    python benchmarks/bench_compare.py [--docs 20000] [--classes 20] [--resamples 1000] [--rate 0.05]

Two synthetic score matrices (Gaussian scores, a tenth of them rounded to make ties) over ``--docs``
documents and ``--classes`` classes with positives at ``--rate``.  ``paired_bootstrap`` (each class
sorted once, the resamples' multiplicities cumulated over the top of the ranking:
:func:`hbnlab.evaluation.compare.resampled_breakevens`) is timed against the loop it replaced, which
draws the same resamples and sorts every resample of every class (``per_class_breakeven`` on the
repeated documents); both give the same numbers (checked here).  One core, CPU seconds; prints
``cpu_loop``, ``cpu_vectorised`` and ``speedup_vs_loop``.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from hbnlab.evaluation.compare import paired_bootstrap
from hbnlab.evaluation.measures import per_class_breakeven
from hbnlab.experiments.provenance import start_run


def loop_micro_differences(Y, S_a, S_b, n_boot, random_state=0):
    """The micro-breakeven differences of the former implementation (one sort per resample and class)."""
    rng = np.random.default_rng(random_state)
    n = Y.shape[0]
    out = np.empty(n_boot)
    for r in range(n_boot):
        idx = rng.integers(0, n, size=n)
        Yr = Y[idx]
        pos = Yr.sum(axis=0).astype(np.float64)
        a, b = per_class_breakeven(Yr, S_a[idx]), per_class_breakeven(Yr, S_b[idx])
        ok = ~np.isnan(a)
        out[r] = (float(np.sum(b[ok] * pos[ok]) / pos[ok].sum()) - float(np.sum(a[ok] * pos[ok]) / pos[ok].sum()))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=20000)
    ap.add_argument("--classes", type=int, default=20)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--rate", type=float, default=0.05)
    args = ap.parse_args(argv)
    start_run()
    rng = np.random.RandomState(0)
    n, m = args.docs, args.classes
    Y = (rng.rand(n, m) < args.rate).astype(int)
    S_a = rng.randn(n, m) + Y
    S_b = S_a + 0.5 * rng.randn(n, m)
    S_a[: n // 10] = np.round(S_a[: n // 10], 1)
    with threadpool_limits(1):
        c0 = time.process_time()
        table = paired_bootstrap(Y, S_a, S_b, n_boot=args.resamples, random_state=0)
        fast = time.process_time() - c0
        c0 = time.process_time()
        d = loop_micro_differences(Y, S_a, S_b, args.resamples, random_state=0)
        slow = time.process_time() - c0
    low, high = np.quantile(d, [0.025, 0.975])
    same = np.allclose([table.loc["micro", "low"], table.loc["micro", "high"]], [100 * low, 100 * high],
                       rtol=1e-12, atol=0)
    print(f"# {n} documents x {m} classes, positives {args.rate:g}, {args.resamples} resamples, one core")
    print(f"same_interval {same}")
    print(f"cpu_loop {slow:.2f}")
    print(f"cpu_vectorised {fast:.2f}")
    print(f"speedup_vs_loop {slow / fast:.1f}")


if __name__ == "__main__":
    main()
