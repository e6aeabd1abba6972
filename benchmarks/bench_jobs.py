"""Runner benchmark: scaling of the local pool, local pool vs Dask, per-task overhead, peak
memory per worker, and a paper estimate of a full tuning grid on many workers.

Usage::

    python benchmarks/bench_sweep.py [--tasks 12] [--size 300] [--reps 400] [--trivial 40]
                                     [--grid 90x3x4x6] [--estimate-workers 100]
                                     [--task MODULE:KIND --params JSON] [--json OUT]

What runs: ``--tasks`` copies of a CPU-bound job (by default the built-in ``spin`` task of
:mod:`hbnlab.jobs.testing`, a stand-in for one EM fit; or any registered task given with
``--task`` / ``--params``, e.g. the workbench's training task once its parameters are known)
with seeds 0..tasks-1, on

1. the local pool with 1 and with 2 worker processes  -> scaling ratio T1 / T2;
2. the local pool and a Dask LocalCluster, 2 single-threaded worker processes each
   -> overhead ratio T_dask / T_local (results must be identical);
3. ``--trivial`` near-empty jobs on both backends -> per-task overhead (worker-seconds per job).

Peak memory per worker is the largest ``ru_maxrss`` any job reported from that process (the
``spin`` task reports it; other tasks are measured only if they return ``maxrss_kb``).

Paper estimate: a grid of ``--grid`` independent jobs (default 90 categories x 3 clusterings x
4 branching factors x 6 alphas, the thesis's tuning protocol of sec. 4.2.1 extended to every
ModApte category) on ``--estimate-workers`` workers, each job costing the measured mean CPU
seconds plus the measured Dask per-task overhead, with equal-length jobs packed in waves:
``ceil(G / W) * (c + o)``.  It ignores data shipping (done once per worker) and stragglers.

BLAS threads are pinned to 1 so that "2 workers" means 2 cores.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

from hbnlab.experiments.provenance import stamp, start_run  # noqa: E402
from hbnlab.jobs import DaskRunner, JobSpec, LocalProcessRunner  # noqa: E402


def specs_for(args, group: str) -> list[JobSpec]:
    module, kind = args.task.split(":")
    params = json.loads(args.params) if args.params else {"size": args.size, "reps": args.reps}
    return [JobSpec(kind, params, group=group, module=module, random_state=seed,
                    label=f"{kind} seed {seed}") for seed in range(args.tasks)]


def trivial_specs(n: int, group: str) -> list[JobSpec]:
    return [JobSpec("count", {"n": 1, "artifact": False}, group=group,
                    module="hbnlab.jobs.testing") for _ in range(n)]


def timed_batch(runner, specs, timeout=3600.0):
    """Submit ``specs`` and wait; return (wall seconds, records).  The clock starts at submit,
    after the runner (and its cluster) exists and its workers are warm."""
    t0 = time.perf_counter()
    ids = runner.submit_many(specs)
    records = runner.wait(ids, timeout=timeout, poll=0.02)
    wall = time.perf_counter() - t0
    bad = [(r.id, r.state, r.error) for r in records if r.state != "done"]
    if bad:
        raise SystemExit(f"jobs did not finish: {bad[:3]}")
    return wall, records


def warm(runner, n_workers: int) -> None:
    """Start every worker process (spawn and imports are not per-task costs)."""
    timed_batch(runner, [JobSpec("spin", {"size": 10, "reps": 1}, group="warm",  # imports numpy
                                 module="hbnlab.jobs.testing") for _ in range(n_workers)]
                + [JobSpec("count", {"n": 2, "delay": 0.2, "artifact": False}, group="warm",
                           module="hbnlab.jobs.testing") for _ in range(n_workers)])


def peak_memory(records) -> dict:
    peaks: dict = {}
    for r in records:
        rss = (r.result or {}).get("maxrss_kb")
        pid = (r.result or {}).get("pid", r.worker)
        if rss is not None:
            peaks[pid] = max(peaks.get(pid, 0), rss)
    return peaks


def run(args) -> dict:
    out: dict = {"tasks": args.tasks, "task": args.task, "cores": os.cpu_count(),
                 "load_average_before": os.getloadavg()[0],
                 "params": args.params or {"size": args.size, "reps": args.reps}}
    with tempfile.TemporaryDirectory(prefix="hbnlab-bench-") as tmp:
        local_walls, local_records = {}, None
        for n_workers in (1, 2):
            with LocalProcessRunner(os.path.join(tmp, f"local{n_workers}"), max_workers=n_workers,
                                    poll_interval=0.02) as runner:
                warm(runner, n_workers)
                wall, records = timed_batch(runner, specs_for(args, "bench"))
                local_walls[n_workers] = wall
                if n_workers == 2:
                    local_records = records
                    trivial_wall, _ = timed_batch(runner, trivial_specs(args.trivial, "trivial"))
                    out["local_overhead_s"] = trivial_wall * n_workers / args.trivial
        dask = DaskRunner(os.path.join(tmp, "dask"), n_workers=2, threads_per_worker=1,
                          poll_interval=0.02)
        try:
            warm(dask, 2)
            dask_wall, dask_records = timed_batch(dask, specs_for(args, "bench"))
            trivial_wall, _ = timed_batch(dask, trivial_specs(args.trivial, "trivial"))
            out["dask_overhead_s"] = trivial_wall * 2 / args.trivial
        finally:
            dask.shutdown()
    same = [r.result.get("checksum", r.result) for r in local_records] == \
        [r.result.get("checksum", r.result) for r in dask_records]
    cpu = [r.result["cpu_seconds"] for r in local_records if "cpu_seconds" in (r.result or {})]
    out.update({
        "local_1_worker_s": local_walls[1], "local_2_workers_s": local_walls[2],
        "scaling_ratio_T1_over_T2": local_walls[1] / local_walls[2],
        "dask_2_workers_s": dask_wall, "overhead_ratio_dask_over_local": dask_wall / local_walls[2],
        "identical_results": same,
        "mean_task_cpu_s": statistics.fmean(cpu) if cpu else local_walls[1] / args.tasks,
        "peak_rss_mb_per_worker_local": {str(k): v / 1024 for k, v in peak_memory(local_records).items()},
        "peak_rss_mb_per_worker_dask": {str(k): v / 1024 for k, v in peak_memory(dask_records).items()},
    })
    out["load_average_after"] = os.getloadavg()[0]
    grid = math.prod(int(g) for g in args.grid.split("x"))
    c, o, w = out["mean_task_cpu_s"], out["dask_overhead_s"], args.estimate_workers
    out["estimate"] = {"grid": args.grid, "jobs": grid, "workers": w,
                       "seconds": math.ceil(grid / w) * (c + o),
                       "formula": "ceil(jobs / workers) * (mean task CPU s + Dask per-task overhead s)"}
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=12)
    parser.add_argument("--size", type=int, default=300, help="spin: matrix size")
    parser.add_argument("--reps", type=int, default=400, help="spin: matrix products per job")
    parser.add_argument("--trivial", type=int, default=40, help="near-empty jobs for the overhead")
    parser.add_argument("--task", default="hbnlab.jobs.testing:spin", help="MODULE:KIND")
    parser.add_argument("--params", default=None, help="JSON parameters of --task")
    parser.add_argument("--grid", default="90x3x4x6", help="grid shape for the paper estimate")
    parser.add_argument("--estimate-workers", type=int, default=100)
    parser.add_argument("--json", default=None, help="also write the numbers to this file")
    args = parser.parse_args(argv)
    prov = start_run()
    out = run(args)
    print(f"{args.tasks} x {args.task} {out['params']}  (mean CPU {out['mean_task_cpu_s']:.3f} s per job)")
    print(f"machine              : {out['cores']} cores, 1-min load average "
          f"{out['load_average_before']:.1f} before / {out['load_average_after']:.1f} after "
          "(other processes distort the ratios)")
    print(f"local pool, 1 worker : {out['local_1_worker_s']:7.2f} s")
    print(f"local pool, 2 workers: {out['local_2_workers_s']:7.2f} s   scaling T1/T2 = "
          f"{out['scaling_ratio_T1_over_T2']:.2f}")
    print(f"Dask, 2 workers      : {out['dask_2_workers_s']:7.2f} s   overhead T_dask/T_local = "
          f"{out['overhead_ratio_dask_over_local']:.2f}   identical results: {out['identical_results']}")
    print(f"per-task overhead    : local {1000 * out['local_overhead_s']:.1f} ms, "
          f"Dask {1000 * out['dask_overhead_s']:.1f} ms (worker time per near-empty job)")
    for backend in ("local", "dask"):
        peaks = out[f"peak_rss_mb_per_worker_{backend}"]
        if peaks:
            print(f"peak RSS per worker  : {backend}: " +
                  ", ".join(f"{v:.0f} MB" for v in peaks.values()))
    est = out["estimate"]
    print(f"paper estimate       : {est['jobs']} jobs ({est['grid']}) on {est['workers']} workers "
          f"~ {est['seconds']:.0f} s  [{est['formula']}]")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(stamp(out, prov), fh, indent=2)


if __name__ == "__main__":
    main()
