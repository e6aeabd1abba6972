"""The store of prepared corpora (:mod:`hbnlab.pipeline.store`): cold against warm, on Reuters.

Usage::

    HBNLAB_REUTERS_DIR=/path/to/reuters21578 python benchmarks/bench_corpus_cache.py [--reps 3] [--json OUT]

Every measurement starts from a fresh data home (a temporary folder), so "cold" parses and
indexes Reuters-21578 and fills the store, and "warm" reads what the cold run stored:

1. in this process: ``load_named_corpus("reuters")`` + ``prepare_cached`` (the thesis's settings);
2. the command line, as new processes: ``hbnlab corpus-info --corpus reuters`` and
   ``hbnlab reproduce table-4.10 --rows NB:30`` (wall time of the whole process, imports
   included; ``--no-cache`` as the reference);
3. a workbench training job (NB for "earn" on Reuters) in a fresh worker process each time (the
   worker is started and warmed with a small synthetic training job first, so its spawn and
   imports are not counted): from the job's start to its first progress naming a unit, i.e. the data is ready.
   Progress is written at most every 0.2 s (``TaskContext.progress_interval``), so the page-visible
   figure has that granularity; the worker's own load + prepare seconds come from its log.

Prints each figure (median of ``--reps``) and the cold / warm ratios.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hbnlab.experiments.provenance import stamp, start_run

ROOT = Path(__file__).resolve().parents[1]


def _env(home: str, **extra) -> dict:
    env = dict(os.environ, HBNLAB_DATA_HOME=home, PYTHONPATH=str(ROOT), **extra)
    env.pop("HBNLAB_NO_CACHE", None)
    return env


def in_process(reps: int) -> dict:
    code = ("import time, sys; from hbnlab.pipeline.corpus_spec import load_named_corpus; "
            "from hbnlab.pipeline.store import prepare_cached; t = time.perf_counter(); "
            "c = load_named_corpus('reuters'); t1 = time.perf_counter(); prepare_cached(c); "
            "print(t1 - t, time.perf_counter() - t1)")
    out = {"cold": [], "warm": []}
    for _ in range(reps):
        with tempfile.TemporaryDirectory() as home:
            for phase in ("cold", "warm"):
                r = subprocess.run([sys.executable, "-c", code], env=_env(home), capture_output=True, text=True,
                                   check=True)
                load, prep = map(float, r.stdout.split())
                out[phase].append({"load": load, "prepare": prep, "total": load + prep})
    return {p: {k: statistics.median(x[k] for x in v) for k in ("load", "prepare", "total")} for p, v in out.items()}


def cli(argv: list[str], reps: int) -> dict:
    out = {"no-cache": [], "cold": [], "warm": []}
    for _ in range(reps):
        with tempfile.TemporaryDirectory() as home:
            for phase in ("no-cache", "cold", "warm"):
                cmd = [sys.executable, "-m", "hbnlab", *argv] + (["--no-cache"] if phase == "no-cache" else [])
                t0 = time.perf_counter()
                subprocess.run(cmd, env=_env(home), capture_output=True, check=True)
                out[phase].append(time.perf_counter() - t0)
    return {p: statistics.median(v) for p, v in out.items()}


def _first_unit_seconds(registry, runner, spec) -> tuple[float, float]:
    """(page-visible seconds from the job's start to its first progress naming a unit,
    the worker's load + prepare seconds from the store's log lines)."""
    jid = runner.submit(spec)
    seen = None
    deadline = time.time() + 600
    while time.time() < deadline:
        rec = registry.get(jid)
        if rec.progress and "unit" in rec.progress and rec.started:
            seen = rec.progress_time - rec.started
            break
        if rec.state in ("failed", "cancelled"):
            raise SystemExit(f"job {jid} {rec.state}: {rec.error}")
        time.sleep(0.005)
    runner.wait([jid], timeout=600, poll=0.05)
    worker = sum(float(m) for e in registry.logs(jid) for m in re.findall(r"in (\d+\.\d+)s", e.message)
                 if e.message.startswith("cache:"))
    return seen, worker


def worker_job(reps: int) -> dict:
    from hbnlab.jobs import JobSpec, get_runner
    from hbnlab.jobs.registry import RunRegistry
    from hbnlab.pipeline.config import ExperimentConfig

    cfg = ExperimentConfig(corpus="reuters", classifiers=("NB",), categories=("earn",), n_features=30)
    spec = JobSpec("train", {"config": cfg.to_dict(), "classes": ["earn"], "classifiers": ["NB"]},
                   group="bench", module="hbnlab.pipeline.tasks")
    tiny = ExperimentConfig(synthetic_size=100, classifiers=("NB",), n_categories=2, n_features=5)
    warmup = JobSpec("train", {"config": tiny.to_dict()}, group="warm", module="hbnlab.pipeline.tasks")
    out = {"cold": [], "warm": []}
    old = os.environ.get("HBNLAB_DATA_HOME")
    try:
        for _ in range(reps):
            with tempfile.TemporaryDirectory() as home:
                os.environ["HBNLAB_DATA_HOME"] = home
                for phase in ("cold", "warm"):
                    registry = RunRegistry(Path(home) / "runs")
                    runner = get_runner(registry, backend="local", max_workers=1)
                    try:
                        runner.wait([runner.submit(warmup)], timeout=120, poll=0.02)
                        out[phase].append(_first_unit_seconds(registry, runner, spec))
                    finally:
                        runner.shutdown()
    finally:
        if old is None:
            os.environ.pop("HBNLAB_DATA_HOME", None)
        else:
            os.environ["HBNLAB_DATA_HOME"] = old
    return {p: {"first_progress": statistics.median(x[0] for x in v),
                "worker_prepare": statistics.median(x[1] for x in v)} for p, v in out.items()}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    prov = start_run()
    if not os.environ.get("HBNLAB_REUTERS_DIR"):
        raise SystemExit("set HBNLAB_REUTERS_DIR to the Reuters-21578 directory")
    res = {"in_process": in_process(args.reps)}
    p = res["in_process"]
    print(f"load + prepare in a process: cold {p['cold']['total']:.2f} s (load {p['cold']['load']:.2f}, prepare "
          f"{p['cold']['prepare']:.2f}), warm {p['warm']['total']:.2f} s (load {p['warm']['load']:.2f}, prepare "
          f"{p['warm']['prepare']:.2f}); ratio {p['cold']['total'] / p['warm']['total']:.1f}x")
    for name, argv_ in (("corpus-info", ["corpus-info", "--corpus", "reuters"]),
                        ("reproduce NB:30", ["reproduce", "table-4.10", "--rows", "NB:30"])):
        c = res[name] = cli(argv_, args.reps)
        print(f"hbnlab {' '.join(argv_)}: --no-cache {c['no-cache']:.2f} s, cold {c['cold']:.2f} s, warm "
              f"{c['warm']:.2f} s; cold / warm {c['cold'] / c['warm']:.2f}x, saved {c['cold'] - c['warm']:.2f} s")
    w = res["worker"] = worker_job(args.reps)
    cold, warm = w["cold"], w["warm"]
    print(f"train job in a fresh worker, start -> first unit progress: cold {cold['first_progress']:.2f} s, warm "
          f"{warm['first_progress']:.2f} s (ratio {cold['first_progress'] / warm['first_progress']:.1f}x); "
          f"the worker's load + prepare: cold {cold['worker_prepare']:.2f} s, warm {warm['worker_prepare']:.2f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(stamp(res, prov), indent=2))
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
