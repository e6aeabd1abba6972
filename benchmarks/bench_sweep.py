"""Sweep benchmark: the Reuters sweep at the thesis's final parameters on the local pool with 1
and 2 workers and on Dask, peak memory per worker, and a paper estimate of the full tuning grid.

Usage::

    python benchmarks/bench_sweep.py [--reuters-dir DIR] [--categories all|top10|a,b]
                                     [--clusterings avg,or,dep] [--n-restarts 64] [--n-features 30]
                                     [--workers 1,2] [--no-dask] [--trivial 40]
                                     [--estimate-workers 100] [--json OUT]

What runs (each in a fresh run registry, so nothing is reused; BLAS pinned to one thread, so
"2 workers" means 2 cores):

1. ``hbnlab.experiments.sweep.run_sweep`` with ``final_only=True`` -- one test cell per category
   and clustering with Table 4.1's B and alpha, 30 information-gain terms, 64 EM restarts
   (thesis sec. 4.2) -- on the local pool with each ``--workers`` count -> scaling ratio T1 / T2;
2. the same on a Dask LocalCluster with the largest worker count (processes, one thread each)
   -> overhead ratio T_dask / T_local; the numbers must be identical on every backend;
3. ``--trivial`` near-empty jobs (``hbnlab.jobs.testing`` ``count``) on both backends -> the
   per-task overhead (worker-seconds per job).

The clock starts when the sweep is submitted, after the workers are up (warmed with one tiny
job each), and includes shipping the data to every worker once.  Peak memory per worker is the
largest ``ru_maxrss`` any cell reported from that process.

Paper estimate: the full grid of the thesis's tuning protocol extended to every category --
validation cells for categories x clusterings x B in (3, 5, 7, 9) x the thesis's alpha grids
(Tables 4.2-4.4: 5, 5 and 7 values), then one test cell per category and clustering -- on
``--estimate-workers`` workers.  A validation cell of (category, clustering) is assumed to cost
the measured CPU seconds of its test cell times n_training-0 / n_training (EM and the clustering
are linear in the documents) plus the measured Dask per-task overhead; the two phases are
scheduled longest-task-first on the workers with a barrier between them (the choice needs every
validation result).  It ignores that B and alpha change the cost, and data shipping (once per
worker).

The last line is machine-readable: ``key=value`` pairs.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import heapq  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from hbnlab.experiments import sweep as sw  # noqa: E402
from hbnlab.jobs import DaskRunner, JobSpec, LocalProcessRunner  # noqa: E402
from hbnlab.jobs.malloc import unset_dask_malloc_trim  # noqa: E402


def warm(runner, n_workers: int) -> None:
    """Start every worker process and import the sweep's modules there (not a per-task cost)."""
    specs = [JobSpec("count", {"n": 2, "delay": 0.3, "artifact": False}, group="warm", module="hbnlab.jobs.testing")
             for _ in range(2 * n_workers)]
    ids = runner.submit_many(specs)
    runner.wait(ids, timeout=300, poll=0.05)


def trivial_overhead(runner, n: int, n_workers: int) -> float:
    """Worker-seconds per near-empty job."""
    specs = [JobSpec("count", {"n": 1, "delay": 0.0, "artifact": False}, group="trivial",
                     module="hbnlab.jobs.testing") for _ in range(n)]
    t0 = time.perf_counter()
    ids = runner.submit_many(specs)
    recs = runner.wait(ids, timeout=300, poll=0.01)
    wall = time.perf_counter() - t0
    assert all(r.state == "done" for r in recs)
    return wall * n_workers / n


def timed_sweep(runner, config, data, sweep_id: str):
    t0 = time.perf_counter()
    result = sw.run_sweep(config, data, runner, sweep_id=sweep_id)
    wall = time.perf_counter() - t0
    if result.state != "done":
        raise SystemExit(f"sweep {sweep_id} {result.state}: {result.errors[:3]}")
    return wall, result


def numbers(result) -> list:
    return [(r["classifier"], r["micro"], r["macro"]) for r in result.table["rows"]] + \
        sorted((t["cell"], t["breakeven"]) for t in result.test)


def peak_rss_mb(result) -> dict:
    peaks: dict = {}
    for t in result.test:
        if "maxrss_kb" in t:
            peaks[t["pid"]] = max(peaks.get(t["pid"], 0), t["maxrss_kb"] / 1024)
    return peaks


def lpt_makespan(costs, workers: int) -> float:
    """Longest-processing-time-first list scheduling of independent tasks on identical workers."""
    loads = [0.0] * min(workers, max(1, len(costs)))
    heapq.heapify(loads)
    for c in sorted(costs, reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + c)
    return max(loads) if costs else 0.0


def estimate_full_grid(result, data, config, workers: int, overhead: float) -> dict:
    ratio = float(data.train0.sum()) / data.train0.size
    per_test = {(t["category"], t["classifier"]): t["cpu_seconds"] for t in result.test if "cpu_seconds" in t}
    grid = {k: len(sw.THESIS_B_GRID) * len(sw.THESIS_ALPHA_GRIDS[k]) for k in config.clusterings}
    validation, test = [], []
    for (_cat, clf), cost in per_test.items():
        k = clf.split("-")[1].lower()
        validation += [cost * ratio + overhead] * grid[k]
        test.append(cost + overhead)
    t_val, t_test = lpt_makespan(validation, workers), lpt_makespan(test, workers)
    work = sum(validation) + sum(test)
    return {"validation_cells": len(validation), "test_cells": len(test), "workers": workers,
            "cpu_seconds_total": work, "seconds": t_val + t_test, "seconds_validation": t_val,
            "seconds_test": t_test, "lower_bound_seconds": work / workers,
            "longest_cell_seconds": max(test) if test else 0.0,
            "assumptions": f"validation cell = test-cell CPU x {ratio:.3f} (training-0 / training) + "
                           f"{overhead * 1000:.0f} ms Dask overhead; B, alpha do not change the cost; "
                           "LPT schedule per phase, barrier between phases"}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reuters-dir", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    p.add_argument("--categories", default="all")
    p.add_argument("--clusterings", default="avg,or,dep")
    p.add_argument("--n-restarts", type=int, default=64)
    p.add_argument("--n-features", type=int, default=30)
    p.add_argument("--workers", default="1,2", help="local pool sizes to time (comma list)")
    p.add_argument("--no-dask", action="store_true")
    p.add_argument("--trivial", type=int, default=40, help="near-empty jobs for the per-task overhead")
    p.add_argument("--estimate-workers", type=int, default=100)
    p.add_argument("--json", default=None, help="also write the numbers to this file")
    args = p.parse_args(argv)
    if not args.reuters_dir:
        raise SystemExit("give --reuters-dir or set HBNLAB_REUTERS_DIR")
    from hbnlab.cli.sweep import _categories_arg
    from hbnlab.corpus import load_reuters21578

    config = sw.SweepConfig(categories=_categories_arg(args.categories), clusterings=tuple(args.clusterings.split(",")),
                            n_features=(args.n_features,), n_restarts=args.n_restarts, final_only=True, baselines=())
    t0 = time.perf_counter()
    data = sw.prepare_sweep_data(load_reuters21578(Path(args.reuters_dir)), config)
    out = {"cores": os.cpu_count(), "load_average_before": os.getloadavg()[0], "data_seconds": time.perf_counter() - t0,
           "categories": len(sw.sweep_categories(config, data)), "clusterings": list(config.clusterings),
           "n_restarts": config.n_restarts, "cells": len(sw.plan_test_cells(config, data))}
    print(f"Reuters sweep at Table 4.1's parameters: {out['categories']} categories x {len(config.clusterings)} "
          f"clusterings = {out['cells']} cells, {config.n_restarts} restarts (data {out['data_seconds']:.1f} s)",
          flush=True)
    worker_counts = [int(w) for w in args.workers.split(",")]
    walls, results, peaks = {}, {}, {}
    with tempfile.TemporaryDirectory(prefix="hbnlab-bench-sweep-") as tmp:
        for n in worker_counts:
            with LocalProcessRunner(os.path.join(tmp, f"local{n}"), max_workers=n, poll_interval=0.05) as runner:
                warm(runner, n)
                walls[f"local{n}"], results[f"local{n}"] = timed_sweep(runner, config, data, f"bench-local{n}")
                print(f"local pool, {n} worker(s): {walls[f'local{n}']:8.1f} s", flush=True)
                if n == max(worker_counts):
                    out["local_overhead_s"] = trivial_overhead(runner, args.trivial, n)
        n = max(worker_counts)
        if not args.no_dask:
            unset_dask_malloc_trim()  # as `hbnlab sweep --dask` does (see repair_malloc_trim)
            dask = DaskRunner(os.path.join(tmp, "dask"), n_workers=n, threads_per_worker=1, poll_interval=0.05)
            try:
                warm(dask, n)
                walls["dask"], results["dask"] = timed_sweep(dask, config, data, "bench-dask")
                print(f"Dask LocalCluster, {n} workers: {walls['dask']:8.1f} s", flush=True)
                out["dask_overhead_s"] = trivial_overhead(dask, args.trivial, n)
            finally:
                dask.shutdown(wait=False, interrupt=True)
    first = results[f"local{worker_counts[0]}"]
    ref = numbers(first)
    out["identical_results"] = all(numbers(r) == ref for r in results.values())
    slots = {f"local{n}": n for n in worker_counts}
    slots["dask"] = max(worker_counts)
    busy = {}
    for key, r in results.items():
        peaks[key] = peak_rss_mb(r)
        task = sum(t.get("task_seconds", 0.0) for t in r.test)
        # slot use: how much of the workers' wall time was spent inside cells (dispatch gaps lower
        # it); CPU share: CPU seconds per second inside cells (other processes on the machine lower it)
        busy[key] = {"slot_use": task / (slots[key] * walls[key]),
                     "cpu_share": sum(t.get("cpu_seconds", 0.0) for t in r.test) / task if task else float("nan")}
    cpu = {}
    for clf in config.classifiers:
        vals = [t["cpu_seconds"] for t in first.test if t["classifier"] == clf and "cpu_seconds" in t]
        cpu[clf] = {"mean": statistics.fmean(vals), "median": statistics.median(vals), "max": max(vals),
                    "total": sum(vals)} if vals else {}
    out.update({
        "walls_s": walls, "table": [{k: r[k] for k in ("classifier", "micro", "macro")} for r in first.table["rows"]],
        "cpu_seconds_per_cell": cpu, "worker_use": busy,
        "peak_rss_mb_per_worker": {k: {str(pid): round(v, 1) for pid, v in p.items()} for k, p in peaks.items()},
        "driver_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "load_average_after": os.getloadavg()[0],
    })
    if len(worker_counts) >= 2:
        lo, hi = min(worker_counts), max(worker_counts)
        out["scaling_ratio"] = walls[f"local{lo}"] / walls[f"local{hi}"]
    if "dask" in walls:
        out["overhead_ratio"] = walls["dask"] / walls[f"local{n}"]
    overhead = out.get("dask_overhead_s", out.get("local_overhead_s", 0.0))
    est = estimate_full_grid(first, data, config, args.estimate_workers, overhead)
    out["estimate"] = est

    print()
    print(f"machine        : {out['cores']} cores, 1-min load average {out['load_average_before']:.1f} before / "
          f"{out['load_average_after']:.1f} after (other processes distort the ratios)")
    for key, w in walls.items():
        print(f"{key:<15}: {w:8.1f} s   (workers busy in cells {100 * busy[key]['slot_use']:.0f}% of the time, "
              f"CPU share inside cells {100 * busy[key]['cpu_share']:.0f}%)")
    if "scaling_ratio" in out:
        print(f"scaling        : T{min(worker_counts)} / T{max(worker_counts)} = {out['scaling_ratio']:.2f}")
    if "overhead_ratio" in out:
        print(f"Dask overhead  : T_dask / T_local = {out['overhead_ratio']:.3f}; per-task overhead local "
              f"{1000 * out.get('local_overhead_s', float('nan')):.0f} ms, Dask "
              f"{1000 * out.get('dask_overhead_s', float('nan')):.0f} ms")
    print(f"identical      : {out['identical_results']}")
    for clf, c in cpu.items():
        if c:
            print(f"cell CPU s     : {clf}: mean {c['mean']:.2f}, median {c['median']:.2f}, max {c['max']:.1f}, "
                  f"total {c['total']:.0f}")
    all_peaks = [v for p in peaks.values() for v in p.values()]
    for key, p in peaks.items():
        print(f"peak RSS       : {key}: " + ", ".join(f"{v:.0f} MB" for v in p.values()))
    for row in out["table"]:
        print(f"table          : {row['classifier']}: micro {row['micro']:.1f}, macro {row['macro']:.1f}")
    print(f"paper estimate : {est['validation_cells']} validation + {est['test_cells']} test cells on {est['workers']} "
          f"workers ~ {est['seconds']:.0f} s (validation {est['seconds_validation']:.0f} s + test "
          f"{est['seconds_test']:.0f} s; {est['cpu_seconds_total'] / 3600:.1f} CPU hours; lower bound "
          f"{est['lower_bound_seconds']:.0f} s; longest cell {est['longest_cell_seconds']:.0f} s)")
    print(f"                 [{est['assumptions']}]")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2, default=str))
    print(" ".join([
        f"scaling_ratio={out.get('scaling_ratio', float('nan')):.3f}",
        f"overhead_ratio={out.get('overhead_ratio', float('nan')):.3f}",
        f"peak_rss_mb_per_worker={max(all_peaks) if all_peaks else float('nan'):.0f}",
        f"identical={out['identical_results']}",
        f"estimate_full_grid_cells={est['validation_cells'] + est['test_cells']}",
        f"estimate_workers={est['workers']}",
        f"estimate_seconds={est['seconds']:.0f}",
    ]))


if __name__ == "__main__":
    main()
