"""Sweeps on real runners: the local process pool and a Dask LocalCluster of two worker
processes give the same numbers; resume reuses finished cells; a whole sweep can be cancelled
(during EM, and between phases) and resumed; two sweeps at once do not see each other."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from sweep_helpers import TINY

from hbnlab.experiments import sweep as sw


def numbers(result: sw.SweepResult) -> dict:
    """Everything a sweep computes, without timings and ids."""
    t = result.table
    return {
        "rows": [{k: r[k] for k in ("classifier", "micro", "macro", "micro_pooled", "configs")} for r in t["rows"]],
        "per_class": t["per_class"],
        "choices": {k: (v["config"], v["how"]) for k, v in result.choices.items()},
        "validation": sorted((v["cell"], v["breakeven"]) for v in result.validation),
        "test": sorted((v["cell"], v["breakeven"]) for v in result.test),
        "scores": {k: v.tolist() for k, v in result.test_scores.items()},
    }


def run(runner, data, sweep_id, config=None, **kw):
    return sw.run_sweep(config or sw.SweepConfig(**TINY), data, runner, sweep_id=sweep_id, timeout=120, **kw)


def check_choices_are_the_validation_maxima(result, config):
    """Brute force over the validation cells: each per-category choice has the best breakeven."""
    best: dict = {}
    for v in result.validation:
        if v["breakeven"] is not None:
            key = (v["category"], v["classifier"].split("-")[1].lower())
            best[key] = max(best.get(key, -1.0), v["breakeven"])
    for key, ch in result.choices.items():
        if key in best:
            assert ch["how"] == "per-category" and ch["validation_breakeven"] == best[key]
        else:
            assert ch["how"].startswith("global")


@pytest.fixture(scope="module")
def local_sweep(local_runner, syn_data):
    """The sweep "same-local" run once on the module's local pool (whichever test asks first): its
    result, its progress phases and the data transfers it made."""
    phases = []
    before = local_runner.transfers
    result = run(local_runner, syn_data, "same-local", progress=lambda ph, counts, n: phases.append((ph, n)))
    return result, phases, local_runner.transfers - before


@pytest.fixture(scope="module")
def dask_sweep(dask_runner, syn_data):
    """The sweep "same-dask" run once on the module's Dask cluster."""
    return run(dask_runner, syn_data, "same-dask")


def test_local_pool_sweep(local_sweep, tiny_config):
    result, phases, transfers = local_sweep
    assert result.state == "done", result.errors
    assert {p for p, _ in phases} == {"validation", "test"}
    assert dict(phases) == {"validation": 24, "test": 9}
    assert len(result.validation) == 24 and len(result.test) == 9
    assert result.job_stats == {"validation": {"reused": 0, "retried": 0, "submitted": 24, "waiting": 0},
                                "test": {"reused": 0, "retried": 0, "submitted": 9, "waiting": 0}}
    check_choices_are_the_validation_maxima(result, tiny_config)
    # the data went to each worker process once, not once per cell
    assert transfers <= 2
    assert len({v["pid"] for v in result.validation + result.test if "pid" in v}) <= 2
    # the table: one row per clustering and the baseline, micro from the per-class breakevens
    t = result.table
    assert [r["classifier"] for r in t["rows"]] == ["HBN-AVG", "HBN-DEP", "NB"]
    for r in t["rows"]:
        be = np.array(list(t["per_class"][r["classifier"]].values()))
        n = np.array(list(t["n_positive"].values()))
        assert r["micro"] == pytest.approx(np.sum(be * n) / n.sum()) and r["macro"] == pytest.approx(be.mean())
        assert 50 < r["micro"] <= 100


def test_dask_gives_the_same_numbers_as_the_local_pool(dask_runner, dask_sweep, local_sweep):
    assert dask_sweep.state == "done", dask_sweep.errors
    assert numbers(dask_sweep) == numbers(local_sweep[0])
    assert all(r.worker.startswith("dask worker") for r in dask_runner.registry.list(group="same-dask"))


def test_rerunning_a_sweep_id_skips_finished_cells(local_runner, dask_runner, syn_data, local_sweep):
    reg = local_runner.registry
    first = local_sweep[0]
    before = {r.id: (r.attempt, r.finished) for r in reg.list(group="same-local")}
    again = run(local_runner, syn_data, "same-local")
    assert again.job_stats["validation"] == {"reused": 24, "retried": 0, "submitted": 0, "waiting": 0}
    assert again.job_stats["test"]["reused"] == 9
    assert {r.id: (r.attempt, r.finished) for r in reg.list(group="same-local")} == before
    assert numbers(again) == numbers(first)
    # the other backend on the same registry reuses them too (a Dask runner on the running cluster)
    from hbnlab.jobs import DaskRunner

    other = DaskRunner(reg, client=dask_runner.client, poll_interval=0.05)
    try:
        moved = run(other, syn_data, "same-local")
    finally:
        other.shutdown(wait=False, interrupt=True)
    assert moved.job_stats["validation"]["reused"] == 24 and moved.job_stats["test"]["reused"] == 9
    assert numbers(moved) == numbers(first)
    assert {r.id: (r.attempt, r.finished) for r in reg.list(group="same-local")} == before


def test_cancel_during_em_stops_the_whole_sweep(local_runner, syn_data):
    slow = sw.SweepConfig(categories=("alpha", "bravo"), clusterings=("avg",), B=(2,), alpha={"avg": (0.0, 0.05)},
                          n_features=(6,), n_restarts=64, tol=1e-9, baselines=())
    reg = local_runner.registry
    box = {}
    th = threading.Thread(target=lambda: box.update(r=run(local_runner, syn_data, "slow", slow)))
    th.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until EM is running in a worker
        if any(r.progress and r.progress.get("iteration", 0) >= 2 for r in reg.list(group="slow", states=["running"])):
            break
        time.sleep(0.05)
    else:
        pytest.fail("no sweep cell started EM within 60 s")
    cancelled = sw.cancel_sweep(reg, "slow")
    th.join(30)
    assert not th.is_alive()
    # EM checks should_stop between iterations: no cell had to be killed after the grace
    assert not [r.error for r in reg.list(group="slow") if r.error and "killed" in r.error]
    result = box["r"]
    assert result.state == "cancelled" and result.errors and not result.test
    assert len(cancelled) == 4
    counts = reg.counts("slow")
    assert counts["queued"] == counts["running"] == 0 and counts["cancelled"] >= 4  # + the marker
    assert sw.sweep_status(reg, "slow")["test"] == {}  # the test phase never started


def test_cancel_then_resume_gives_the_uncancelled_numbers(local_runner, syn_data, local_sweep):
    reg = local_runner.registry
    fired = []

    def cancel_at_first_done(phase, counts, n):
        if counts["done"] >= 1 and not fired:
            fired.append(sw.cancel_sweep(reg, "resumed"))

    first = run(local_runner, syn_data, "resumed", progress=cancel_at_first_done)
    assert first.state == "cancelled"
    done_before = {r.id: r.attempt for r in reg.list(group="resumed", states=["done"])}
    assert 1 <= len(done_before) < 24
    second = run(local_runner, syn_data, "resumed")
    assert second.state == "done", second.errors
    stats = second.job_stats["validation"]
    assert stats["reused"] == len(done_before) and stats["retried"] == 24 - len(done_before)
    assert stats["submitted"] == 0
    after = {r.id: r.attempt for r in reg.list(group="resumed") if r.kind == sw.CELL_KIND}
    assert all(after[i] == a for i, a in done_before.items())  # finished cells were not rerun
    assert len(after) == 24 + 9  # one job per cell: retried under the same ids
    assert numbers(second) == numbers(local_sweep[0])


def test_cancel_between_phases_stops_before_the_test_phase(dask_runner, syn_data):
    reg = dask_runner.registry

    def cancel_when_validation_ends(phase, counts, n):
        if phase == "validation" and counts["done"] == n:
            sw.cancel_sweep(reg, "between")

    result = run(dask_runner, syn_data, "between", progress=cancel_when_validation_ends)
    assert result.state == "cancelled" and len(result.validation) == 0 and not result.test
    assert sw.sweep_status(reg, "between") == {"validation": {"done": 24}, "test": {}}
    # an old cancel marker does not stop a later run of the same id
    assert run(dask_runner, syn_data, "between").state == "done"


def test_two_sweeps_at_once_see_only_their_own_cells(dask_runner, syn_data, dask_sweep):
    reg = dask_runner.registry
    out = {}

    def cancel_c(phase, counts, n):
        if counts["done"] >= 1 and "c" not in out:
            out["c"] = sw.cancel_sweep(reg, "sweep-C")

    ta = threading.Thread(target=lambda: out.update(A=run(dask_runner, syn_data, "sweep-A")))
    tc = threading.Thread(target=lambda: out.update(C=run(dask_runner, syn_data, "sweep-C",
                                                          sw.SweepConfig(**{**TINY, "random_state": 5}),
                                                          progress=cancel_c)))
    ta.start(), tc.start()
    ta.join(120), tc.join(120)
    a, c = out["A"], out["C"]
    assert a.state == "done" and c.state == "cancelled"
    # A recomputed everything under its own id and got the numbers of the earlier runs
    assert a.job_stats["validation"]["submitted"] == 24
    assert numbers(a) == numbers(dask_sweep)
    ids_a = {r.id for r in reg.list(group="sweep-A")}
    ids_c = {r.id for r in reg.list(group="sweep-C")}
    assert not ids_a & ids_c
    assert {v["job_id"] for v in a.validation + a.test} <= ids_a
    assert all(i not in ids_a for i in out["c"])  # C's cancel touched none of A's jobs
