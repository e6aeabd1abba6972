"""Responsiveness of the runners and the workbench, measured outside the test suite.

Usage::

    python benchmarks/bench_responsiveness.py [--repeats 3] [--skip dask,app,sweep] [--out FILE]

The tests check what happens (a cancelled task stops by itself, a task that ignores the cancel is
killed after the grace, the tree is redrawn); how fast it happens depends on the machine's load,
so the figures are measured here, each against its target:

* ``cancel_latency_local``: a running ``count`` task of :mod:`hbnlab.jobs.testing` on the local
  pool, from ``runner.cancel`` to the ``cancelled`` record; target 1 s;
* ``grace_kill_local``: the same for a task that ignores the cancel (``hang=True``) on a pool with
  ``cancel_grace=1``: its process is killed after the grace; target 1 s (the grace) to 3 s;
* ``cancel_latency_dask``: as the local one, on a Dask LocalCluster of one worker; target 1 s;
* ``structure_redraw``: the Structure page's tree after one step of the B slider, synthetic
  corpus, through ``streamlit.testing.v1.AppTest``; target 1.5 s (on Reuters, in a browser:
  ``benchmarks/bench_workbench_pages.py``);
* ``cancel_latency_app``: an HBN-DEP training job (EM in a worker) cancelled from the Training
  page's job table, from the click to the ``cancelled`` record; target 2 s;
* ``cancel_latency_sweep``: a sweep cancelled while EM runs in its cells, until ``run_sweep``
  returns; target 10 s.

Each figure is printed as ``NAME_s MEDIAN`` and ``NAME_max_s MAX`` over ``--repeats`` runs, then
``NAME / TARGET = RATIO`` (median over target).  Every wait has a deadline.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from hbnlab.experiments.provenance import provenance_line, start_run

ROOT = Path(__file__).resolve().parents[1]
T = "hbnlab.jobs.testing"


def until(predicate, timeout: float, what: str, interval: float = 0.01):
    """``predicate()``'s first true value, polled every ``interval`` s for at most ``timeout`` s."""
    from hbnlab.jobs.testing import wait_until

    return wait_until(predicate, timeout, interval, what)


def count(group: str, n: int, **params):
    from hbnlab.jobs import JobSpec

    return JobSpec("count", {"n": n, "delay": 0.01, **params}, group=group, module=T)


def _cancel_once(runner, group: str, **params) -> float:
    """Seconds from ``runner.cancel`` of a running ``count`` job to its record leaving ``running``."""
    reg = runner.registry
    jid = runner.submit(count(group, n=100_000, **params))
    until(lambda: (r := reg.get(jid)).state == "running" and r.progress, 60, "the job to run")
    t0 = time.monotonic()
    runner.cancel(jid)
    rec = until(lambda: (r := reg.get(jid)).state != "running" and r, 30, "the cancel")
    elapsed = time.monotonic() - t0
    if rec.state != "cancelled":
        raise RuntimeError(f"job {jid} ended {rec.state}: {rec.error}")
    return elapsed


def local_runner_figures(workdir: Path, repeats: int) -> dict[str, list[float]]:
    from hbnlab.jobs import LocalProcessRunner

    runner = LocalProcessRunner(workdir / "local", max_workers=1, cancel_grace=1.0)
    try:
        cancel = [_cancel_once(runner, "cancel") for _ in range(repeats)]
        grace = [_cancel_once(runner, "hang", hang=True) for _ in range(repeats)]
    finally:
        runner.shutdown(wait=False, interrupt=True, timeout=10)
    return {"cancel_latency_local": cancel, "grace_kill_local": grace}


def dask_figures(workdir: Path, repeats: int) -> dict[str, list[float]]:
    from hbnlab.jobs import DaskRunner

    runner = DaskRunner(workdir / "dask", n_workers=1, threads_per_worker=1)
    try:
        return {"cancel_latency_dask": [_cancel_once(runner, "cancel") for _ in range(repeats)]}
    finally:
        runner.shutdown(wait=False, interrupt=True, timeout=30)


def app_figures(workdir: Path, repeats: int) -> dict[str, list[float]]:
    os.environ["HBNLAB_DATA_HOME"] = str(workdir / "home")
    from streamlit.testing.v1 import AppTest

    from hbnlab.app import services

    def ok(at):
        if at.exception:
            raise RuntimeError([e.value for e in at.exception])

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.run()
    at.button(key="start_synthetic").click().run()
    ok(at)
    at.switch_page("pages/structure.py").run()
    ok(at)
    redraw = []
    for value in [3, 4, 5, 6, 7][:repeats]:
        t0 = time.perf_counter()
        at.slider(key="B_or").set_value(value).run()
        redraw.append(time.perf_counter() - t0)
        ok(at)
    cancel = []
    try:
        at.switch_page("pages/training.py").run()
        for _ in range(repeats):
            before = {r.id for r in services.list_jobs()}
            at.multiselect(key="t_classifiers").set_value(["HBN-DEP"])
            at.number_input(key="t_restarts").set_value(256)
            at.button(key="FormSubmitter:train_form-Train").click().run()
            ok(at)
            jid = until(lambda b=before: [r.id for r in services.list_jobs() if r.id not in b], 30, "the job")[0]
            until(lambda j=jid: "iteration" in (services.get_job(j).progress or {}), 120, "EM to run", 0.05)
            at.run()
            at.selectbox(key="train_jobs_job").set_value(jid).run()  # the Cancel button follows the choice
            t0 = time.monotonic()
            at.button(key="train_jobs_cancel").click().run()
            rec = until(lambda j=jid: (r := services.get_job(j)).state not in ("queued", "running") and r, 30,
                        "the cancel")
            cancel.append(time.monotonic() - t0)
            if rec.state != "cancelled":
                raise RuntimeError(f"job {jid} ended {rec.state}: {rec.error}")
    finally:
        services.shutdown_jobs(interrupt=True)
    return {"structure_redraw": redraw, "cancel_latency_app": cancel}


def sweep_figures(workdir: Path, repeats: int) -> dict[str, list[float]]:
    from hbnlab.corpus import make_synthetic_corpus
    from hbnlab.experiments import sweep as sw
    from hbnlab.jobs import LocalProcessRunner
    from hbnlab.pipeline.data import prepare

    corpus = make_synthetic_corpus(n_documents=900, n_classes=3, n_noise_words=120, random_state=3)
    data = sw.SweepData.from_protocol(prepare(corpus, categories=corpus.categories(min_train=1, min_test=1)), 6)
    slow = sw.SweepConfig(categories=("alpha", "bravo"), clusterings=("avg",), B=(2,), alpha={"avg": (0.0, 0.05)},
                          n_features=(6,), n_restarts=64, tol=1e-9, baselines=())
    runner = LocalProcessRunner(workdir / "sweep", max_workers=2, poll_interval=0.05)
    reg = runner.registry
    out = []
    try:
        for i in range(repeats):
            sweep_id = f"slow{i}"
            th = threading.Thread(target=sw.run_sweep, args=(slow, data, runner),
                                  kwargs={"sweep_id": sweep_id, "timeout": 120}, daemon=True)
            th.start()
            until(lambda g=sweep_id: any(r.progress and r.progress.get("iteration", 0) >= 2
                                         for r in reg.list(group=g, states=["running"])),
                  60, "EM in a cell", 0.05)
            t0 = time.monotonic()
            sw.cancel_sweep(reg, sweep_id)
            th.join(60)
            if th.is_alive():
                raise TimeoutError(f"sweep {sweep_id} still running 60 s after its cancel")
            out.append(time.monotonic() - t0)
    finally:
        runner.shutdown(wait=False, interrupt=True, timeout=10)
    return {"cancel_latency_sweep": out}


TARGETS = {  # name -> (target seconds, how the target is named)
    "cancel_latency_local": (1.0, "1s target"),
    "grace_kill_local": (1.0, "1s grace"),
    "cancel_latency_dask": (1.0, "1s target"),
    "structure_redraw": (1.5, "1.5s target"),
    "cancel_latency_app": (2.0, "2s target"),
    "cancel_latency_sweep": (10.0, "10s target"),
}
GROUPS = {"local": local_runner_figures, "dask": dask_figures, "app": app_figures, "sweep": sweep_figures}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="measurements of each figure (default 3)")
    parser.add_argument("--skip", default="", help=f"comma-separated groups to skip, of {sorted(GROUPS)}")
    parser.add_argument("--out", type=Path, default=None, help="also write the output to this file")
    args = parser.parse_args(argv)
    prov = start_run()
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    if skip - set(GROUPS):
        parser.error(f"unknown groups {sorted(skip - set(GROUPS))}; known: {sorted(GROUPS)}")
    lines = [f"# bench_responsiveness: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}, "
             f"{args.repeats} repeats, python {sys.version.split()[0]}"]
    print(lines[0], flush=True)
    with tempfile.TemporaryDirectory(prefix="hbnlab-bench-resp-") as tmp:
        for group, measure in GROUPS.items():
            if group in skip:
                continue
            for name, values in measure(Path(tmp), args.repeats).items():
                target, label = TARGETS[name]
                median = statistics.median(values)
                block = [f"{name}_s {median:.2f}", f"{name}_max_s {max(values):.2f}",
                         f"{name} / {label} = {median / target:.2f}"]
                print("\n".join(block), flush=True)
                lines += block
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join([provenance_line(prov), *lines]) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
