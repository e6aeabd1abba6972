"""Sweep benchmark: the Reuters sweep at the thesis's final parameters on the local pool with 1
and 2 workers and on Dask, peak memory per worker, and a paper estimate of the full tuning grid.

Usage::

    python benchmarks/bench_sweep.py [--corpus reuters|synthetic:N|PATH] [--reuters-dir DIR]
                                     [--categories all|top10|a,b] [--clusterings avg,or,dep]
                                     [--n-restarts 64] [--n-features 30]
                                     [--workers 1,2] [--no-dask] [--trivial 40]
                                     [--estimate-workers 100] [--json OUT]
    python benchmarks/bench_sweep.py --dask-scale [--corpus synthetic:100000] [--dask-workers 1,2]
                                     [--categories top10] [--clusterings or] [--B 5,9]
                                     [--alpha 0.05,0.09] [--n-restarts 16] [--machines 8] [--json OUT]

Corpora (``--corpus``): ``reuters`` (``--reuters-dir``), ``synthetic:N`` -- the realistic
synthetic CSV table of N documents of ``benchmarks/bench_scale.py`` (:func:`realistic_corpus`),
written to ``--workdir`` once and read back from there -- or the path of any table file
(:func:`hbnlab.corpus.readers.read_table`).

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

``--dask-scale``: a tuning sweep (validation cells of categories x clusterings x ``--B`` x
``--alpha``, the choice per category, one test cell per category and clustering; no baseline) on
a Dask LocalCluster of each ``--dask-workers`` count (processes, one thread each), the clock
started after the workers are up as above -> ``dask_speedup_2_over_1`` = T(1 worker) / T(2
workers).  The end-to-end time adds the corpus preparation (reading the table, indexing, term
scoring; prepared without the prepared-data store, ``HBNLAB_NO_CACHE=1``), done once in the driver.
From the 1-worker run: the parallel part is the time spent inside cells (their ``task_seconds``),
the serial part is everything else -- the preparation, shipping the data, dispatch and polling
gaps, the choice between the phases, the final table -- so the serial fraction ``s`` is an upper
bound (dispatch is partly per worker).  Estimates for ``--machines`` workers: Amdahl
``1 / (s + (1 - s) / m)``, and the serial part plus a longest-task-first schedule of the measured
cells per phase (the barrier between validation and test, the granularity of the cells).

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
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from hbnlab.experiments import sweep as sw  # noqa: E402
from hbnlab.experiments.provenance import stamp, start_run  # noqa: E402
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


def load_bench_corpus(spec: str, reuters_dir: str | None, workdir: Path):
    """The corpus of ``--corpus``: Reuters-21578, the synthetic table of N documents (generated
    into ``workdir`` when missing) or a table file."""
    if spec == "reuters":
        if not reuters_dir:
            raise SystemExit("give --reuters-dir or set HBNLAB_REUTERS_DIR")
        from hbnlab.corpus import load_reuters21578

        return load_reuters21578(Path(reuters_dir))
    from hbnlab.corpus.readers import read_table

    if spec.startswith("synthetic:"):
        n = int(spec.split(":", 1)[1])
        path = workdir / f"synthetic_{n}.csv"
        if not path.exists():
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from bench_scale import realistic_corpus

            gen = realistic_corpus(n, path)
            print(f"generated {path}: {gen['documents']} documents, {gen['tokens']} tokens", flush=True)
    else:
        path = Path(spec)
    return read_table(path, max_bytes=None)


def cell_seconds(rows, key: str = "task_seconds") -> list[float]:
    return [r[key] for r in rows if r.get(key) is not None]


def amdahl(s: float, m: int) -> float:
    return 1.0 / (s + (1.0 - s) / m)


def dask_scale(args, corpus_spec: str) -> None:
    """The tuning sweep on Dask LocalClusters of each ``--dask-workers`` count; speedup, serial
    fraction and the estimates for ``--machines`` workers (see the module docstring)."""
    os.environ["HBNLAB_NO_CACHE"] = "1"  # the preparation is measured, not read from the store
    from hbnlab.cli.sweep import _categories_arg

    config = sw.SweepConfig(categories=_categories_arg(args.categories or "top10"),
                            clusterings=tuple((args.clusterings or "or").split(",")),
                            B=tuple(int(b) for b in args.B.split(",")),
                            alpha={k: tuple(float(a) for a in args.alpha.split(","))
                                   for k in (args.clusterings or "or").split(",")},
                            n_features=(args.n_features,), n_restarts=args.n_restarts or 16,
                            final_only=False, baselines=())
    out = {"command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]), "cores": os.cpu_count(),
           "load_average_before": os.getloadavg()[0], "corpus": corpus_spec, "config": config.to_dict()}
    t0 = time.perf_counter()
    corpus = load_bench_corpus(corpus_spec, args.reuters_dir, Path(args.workdir))
    out["read_seconds"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    data = sw.prepare_sweep_data(corpus, config)
    out["prepare_seconds"] = time.perf_counter() - t0
    n_docs = len(corpus.documents)
    del corpus
    cats = sw.sweep_categories(config, data)
    n_val = config.n_validation_cells(len(cats))
    n_test = len(sw.plan_test_cells(config, data, {(c, k): {"config": config.grid(k)[0]}
                                                     for c in cats for k in config.clusterings}))
    out.update(documents=n_docs, n_train=int(data.X_train.shape[0]), n_test=int(data.X_test.shape[0]),
               n_train0=int((data.folds < 0).sum()), terms_kept=len(data.names),
               categories=len(cats), validation_cells=n_val, test_cells=n_test)
    print(f"{corpus_spec}: {n_docs} documents ({out['n_train']} training, {out['n_test']} test), read "
          f"{out['read_seconds']:.1f} s, prepared {out['prepare_seconds']:.1f} s; sweep {len(cats)} categories x "
          f"{'/'.join(config.classifiers)} x B {list(config.B)} x alpha {list(config.alpha[config.clusterings[0]])}, "
          f"{config.n_features[0]} terms, {config.n_restarts} restarts: {n_val} validation + {n_test} test cells",
          flush=True)
    counts = [int(w) for w in args.dask_workers.split(",")]
    runs, results = {}, {}
    with tempfile.TemporaryDirectory(prefix="hbnlab-bench-sweep-scale-") as tmp:
        for n in counts:
            unset_dask_malloc_trim()  # as `hbnlab sweep --dask` does (see repair_malloc_trim)
            t_up = time.perf_counter()
            dask = DaskRunner(os.path.join(tmp, f"dask{n}"), n_workers=n, threads_per_worker=1, poll_interval=0.05)
            try:
                warm(dask, n)
                startup = time.perf_counter() - t_up
                load = os.getloadavg()[0]
                wall, result = timed_sweep(dask, config, data, f"bench-dask-scale-{n}")
            finally:
                dask.shutdown(wait=False, interrupt=True)
            tm = result.timings
            val, test = cell_seconds(result.validation), cell_seconds(result.test)
            cpu = sum(cell_seconds(result.validation, "cpu_seconds")) + sum(cell_seconds(result.test, "cpu_seconds"))
            phases = tm["validation_seconds"] + tm["test_seconds"]
            runs[n] = {"workers": n, "startup_seconds": startup, "load_average_at_start": load, "wall_seconds": wall,
                       "validation_seconds": tm["validation_seconds"], "test_seconds": tm["test_seconds"],
                       "before_and_between_phases_seconds": tm["wall_seconds"] - phases,
                       "table_seconds": wall - tm["wall_seconds"],
                       "cells_task_seconds": sum(val) + sum(test), "cells_cpu_seconds": cpu,
                       "validation_task_seconds": val, "test_task_seconds": test,
                       "dispatch_gap_seconds": phases - (sum(val) + sum(test)) / n}
            results[n] = result
            print(f"Dask LocalCluster, {n} worker(s): {wall:7.1f} s  (validation {tm['validation_seconds']:.1f} s, "
                  f"test {tm['test_seconds']:.1f} s; inside cells {sum(val) + sum(test):.1f} worker-s; "
                  f"cluster up in {startup:.1f} s; load average {load:.1f})", flush=True)
    ref = numbers(results[counts[0]])
    out["identical_results"] = all(numbers(r) == ref for r in results.values())
    out["runs"] = {str(n): r for n, r in runs.items()}
    one = runs[min(counts)]
    prep = out["read_seconds"] + out["prepare_seconds"]
    in_sweep = one["wall_seconds"] - one["cells_task_seconds"]
    serial = prep + in_sweep
    total1 = prep + one["wall_seconds"]
    s = serial / total1
    s_sweep = in_sweep / one["wall_seconds"]
    m = args.machines
    cells_m = lpt_makespan(one["validation_task_seconds"], m) + lpt_makespan(one["test_task_seconds"], m)
    lpt = serial + cells_m
    out.update(serial_seconds=serial, serial_in_sweep_seconds=in_sweep, parallel_seconds=one["cells_task_seconds"],
               serial_fraction=s, serial_fraction_sweep_only=s_sweep, machines=m,
               amdahl_speedup=amdahl(s, m), amdahl_speedup_sweep_only=amdahl(s_sweep, m),
               lpt_seconds=lpt, lpt_speedup=total1 / lpt,
               lpt_speedup_sweep_only=one["wall_seconds"] / (in_sweep + cells_m), load_average_after=os.getloadavg()[0])
    if 1 in runs and 2 in runs:
        out["dask_speedup_2_over_1"] = runs[1]["wall_seconds"] / runs[2]["wall_seconds"]
        out["end_to_end_speedup_2_over_1"] = total1 / (prep + runs[2]["wall_seconds"])
        out["amdahl_predicted_2"] = amdahl(s, 2)
        out["amdahl_predicted_2_sweep_only"] = amdahl(s_sweep, 2)

    print()
    print(f"machine        : {out['cores']} cores, 1-min load average {out['load_average_before']:.1f} before / "
          f"{out['load_average_after']:.1f} after")
    for n, r in runs.items():
        print(f"{n} worker(s)    : sweep {r['wall_seconds']:.1f} s = validation {r['validation_seconds']:.1f} + test "
              f"{r['test_seconds']:.1f} + before / between phases {r['before_and_between_phases_seconds']:.2f} + table "
              f"{r['table_seconds']:.2f}; inside cells {r['cells_task_seconds']:.1f} worker-s "
              f"(CPU {r['cells_cpu_seconds']:.1f} s), dispatch gaps {r['dispatch_gap_seconds']:.1f} s per worker")
    print(f"identical      : {out['identical_results']}")
    print(f"serial part    : {serial:.1f} s = read {out['read_seconds']:.1f} + index / score "
          f"{out['prepare_seconds']:.1f} + in the sweep outside cells {in_sweep:.1f} (shipping, dispatch, choice, "
          f"table) of {total1:.1f} s end to end with 1 worker")
    largest = max(one["validation_task_seconds"] + one["test_task_seconds"])
    print(f"parallel part  : {one['cells_task_seconds']:.1f} s inside {len(one['validation_task_seconds'])} + "
          f"{len(one['test_task_seconds'])} cells (largest {largest:.1f} s)")
    print(f"serial fraction: s = {s:.3f} end to end, {s_sweep:.3f} of the sweep alone (data prepared)")
    if "dask_speedup_2_over_1" in out:
        print(f"speedup 2 / 1  : sweep {out['dask_speedup_2_over_1']:.2f} (Amdahl with s = {s_sweep:.3f}: "
              f"{out['amdahl_predicted_2_sweep_only']:.2f}); end to end {out['end_to_end_speedup_2_over_1']:.2f} "
              f"(Amdahl: {out['amdahl_predicted_2']:.2f})")
    print(f"{m} machines     : Amdahl 1 / (s + (1 - s) / {m}) = {out['amdahl_speedup']:.2f} end to end, "
          f"{out['amdahl_speedup_sweep_only']:.2f} for the sweep alone; serial part + longest-task-first per phase "
          f"{lpt:.1f} s -> {out['lpt_speedup']:.2f} end to end, {out['lpt_speedup_sweep_only']:.2f} sweep alone")
    _finish(results[counts[0]].table["rows"], out, args.json)
    print(" ".join([
        f"dask_speedup_2_over_1={out.get('dask_speedup_2_over_1', float('nan')):.3f}",
        f"end_to_end_speedup_2_over_1={out.get('end_to_end_speedup_2_over_1', float('nan')):.3f}",
        f"serial_fraction={s:.4f}", f"serial_fraction_sweep_only={s_sweep:.4f}",
        f"amdahl_speedup_{m}={out['amdahl_speedup']:.2f}",
        f"amdahl_speedup_{m}_sweep_only={out['amdahl_speedup_sweep_only']:.2f}",
        f"lpt_speedup_{m}={out['lpt_speedup']:.2f}", f"lpt_speedup_{m}_sweep_only={out['lpt_speedup_sweep_only']:.2f}",
        f"identical={out['identical_results']}",
    ]))
    print(f"dask_speedup_2_over_1 = {out.get('dask_speedup_2_over_1', float('nan')):.2f}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default="reuters", help="reuters, synthetic:N (bench_scale's generator) or a table file")
    p.add_argument("--reuters-dir", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    p.add_argument("--workdir", default="/tmp/hbnlab_bench_scale", help="where synthetic:N tables are kept")
    p.add_argument("--categories", default=None, help="default all (top10 with --dask-scale)")
    p.add_argument("--clusterings", default=None, help="default avg,or,dep (or with --dask-scale)")
    p.add_argument("--n-restarts", type=int, default=None, help="default 64 (16 with --dask-scale)")
    p.add_argument("--n-features", type=int, default=30)
    p.add_argument("--dask-scale", action="store_true", help="the tuning sweep on Dask with each --dask-workers count")
    p.add_argument("--dask-workers", default="1,2")
    p.add_argument("--B", default="5,9", help="with --dask-scale: the B grid")
    p.add_argument("--alpha", default="0.05,0.09", help="with --dask-scale: the alpha grid")
    p.add_argument("--machines", type=int, default=8, help="with --dask-scale: workers of the estimate")
    p.add_argument("--workers", default="1,2", help="local pool sizes to time (comma list)")
    p.add_argument("--no-dask", action="store_true")
    p.add_argument("--trivial", type=int, default=40, help="near-empty jobs for the per-task overhead")
    p.add_argument("--estimate-workers", type=int, default=100)
    p.add_argument("--json", default=None, help="also write the numbers to this file")
    args = p.parse_args(argv)
    start_run()
    if args.dask_scale:
        dask_scale(args, args.corpus)
        return
    from hbnlab.cli.sweep import _categories_arg

    config = sw.SweepConfig(categories=_categories_arg(args.categories or "all"),
                            clusterings=tuple((args.clusterings or "avg,or,dep").split(",")),
                            n_features=(args.n_features,), n_restarts=args.n_restarts or 64, final_only=True,
                            baselines=())
    t0 = time.perf_counter()
    data = sw.prepare_sweep_data(load_bench_corpus(args.corpus, args.reuters_dir, Path(args.workdir)), config)
    out = {"cores": os.cpu_count(), "load_average_before": os.getloadavg()[0], "data_seconds": time.perf_counter() - t0,
           "categories": len(sw.sweep_categories(config, data)), "clusterings": list(config.clusterings),
           "n_restarts": config.n_restarts, "cells": len(sw.plan_test_cells(config, data))}
    print(f"{args.corpus} sweep at Table 4.1's parameters: {out['categories']} categories x {len(config.clusterings)} "
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
    _print_table(out["table"])
    print(f"paper estimate : {est['validation_cells']} validation + {est['test_cells']} test cells on {est['workers']} "
          f"workers ~ {est['seconds']:.0f} s (validation {est['seconds_validation']:.0f} s + test "
          f"{est['seconds_test']:.0f} s; {est['cpu_seconds_total'] / 3600:.1f} CPU hours; lower bound "
          f"{est['lower_bound_seconds']:.0f} s; longest cell {est['longest_cell_seconds']:.0f} s)")
    print(f"                 [{est['assumptions']}]")
    _finish([], out, args.json)
    print(" ".join([
        f"scaling_ratio={out.get('scaling_ratio', float('nan')):.3f}",
        f"overhead_ratio={out.get('overhead_ratio', float('nan')):.3f}",
        f"peak_rss_mb_per_worker={max(all_peaks) if all_peaks else float('nan'):.0f}",
        f"identical={out['identical_results']}",
        f"estimate_full_grid_cells={est['validation_cells'] + est['test_cells']}",
        f"estimate_workers={est['workers']}",
        f"estimate_seconds={est['seconds']:.0f}",
    ]))


def _print_table(rows) -> None:
    for row in rows:
        print(f"table          : {row['classifier']}: micro {row['micro']:.1f}, macro {row['macro']:.1f}")


def _finish(rows, out: dict, json_path) -> None:
    """Print the table's rows and write ``out`` to ``json_path`` when given."""
    _print_table(rows)
    if json_path:
        Path(json_path).write_text(json.dumps(stamp(out), indent=2, default=str))


if __name__ == "__main__":
    main()
