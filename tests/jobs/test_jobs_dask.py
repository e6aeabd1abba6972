"""DaskRunner on a LocalCluster of two worker processes: same numbers as the local pool,
a worker killed mid-batch, cancellation, groups, shutdown and resume."""
from __future__ import annotations

import hashlib
import os
import signal
import threading

import numpy as np
import pytest
from jobs_helpers import shutdown_within, wait_until

from hbnlab.jobs import DaskRunner, JobSpec, LocalProcessRunner, get_runner
from hbnlab.jobs.registry import pid_alive

T = "hbnlab.jobs.testing"


def count(group, n=3, delay=0.0, random_state=None, **params):
    return JobSpec("count", {"n": n, "delay": delay, **params}, group=group, module=T,
                   random_state=random_state)


@pytest.fixture(scope="module")
def dask_runner(tmp_path_factory):
    r = DaskRunner(tmp_path_factory.mktemp("dask") / "runs", n_workers=2, threads_per_worker=1)
    yield r
    r.shutdown(wait=True)


def running_with_progress(reg, jid, step=1):
    rec = reg.get(jid)
    return rec if rec.state == "running" and rec.progress and rec.progress["step"] >= step else None


def test_cluster_shape(dask_runner):
    pids = dask_runner.worker_pids()
    assert len(pids) == 2 and os.getpid() not in pids.values()
    info = dask_runner.client.scheduler_info()
    assert all(w["nthreads"] == 1 for w in info["workers"].values())


def test_small_batch_matches_the_local_pool(dask_runner, tmp_path):
    X = np.random.default_rng(5).standard_normal((40, 7))
    specs = [count("same", n=4 + i, delay=0.01, random_state=i) for i in range(3)] + [
        JobSpec("score_shared", {"input": "corpus"}, inputs=("corpus",), random_state=s, group="same")
        for s in range(3)]
    dask_runner.share("corpus", {"X": X})
    dask_recs = dask_runner.wait(dask_runner.submit_many(specs), timeout=300)
    with LocalProcessRunner(tmp_path, max_workers=2) as local:
        local.share("corpus", {"X": X})
        local_recs = local.wait(local.submit_many(specs), timeout=300)
    assert [r.state for r in dask_recs] == ["done"] * 6
    assert [r.result for r in dask_recs] == [r.result for r in local_recs]
    assert [r.artifacts for r in dask_recs] == [r.artifacts for r in local_recs]
    assert [r.result["total"] for r in dask_recs[:3]] == [6, 10, 15]
    assert all(r.worker.startswith("dask worker tcp://") for r in dask_recs)
    assert dask_runner.registry.traces(dask_recs[0].id) == local.registry.traces(local_recs[0].id)


def test_worker_killed_mid_batch_each_result_recorded_once(dask_runner):
    reg = dask_runner.registry
    ids = dask_runner.submit_many([count("kill", n=20, delay=0.05, random_state=i) for i in range(6)])
    victim = wait_until(lambda: next((r for r in reg.list(ids=ids) if running_with_progress(reg, r.id, 3)),
                                     None), what="a running job")
    pid = victim.progress["pid"]
    os.kill(pid, signal.SIGKILL)
    recs = dask_runner.wait(ids, timeout=300)
    assert not pid_alive(pid)
    assert [r.state for r in recs] == ["done"] * 6
    assert all(r.result["total"] == sum(range(20)) and r.attempt == 1 for r in recs)
    for r in recs:
        messages = [e.message for e in reg.logs(r.id)]
        assert messages.count("done: result of attempt 1 recorded") == 1
        assert not any("ignored" in m for m in messages)
        data = reg.read_artifact(r.artifacts["summary.json"])  # complete, hash-checked
        assert hashlib.sha256(data).hexdigest() == r.result["artifact"]
    killed = [e.message for e in reg.logs(victim.id)]
    assert any("(try 2: the previous worker was lost)" in m for m in killed), killed
    assert not [n for n in os.listdir(reg.artifacts_dir) if n.startswith(".tmp-")]
    wait_until(lambda: len(dask_runner.worker_pids()) == 2, timeout=300, what="the nanny restart")


def test_two_groups_at_once_no_cross_talk(dask_runner):
    reg = dask_runner.registry
    ids = {}

    def session(name, n_long):
        specs = [count(name, n=3) for _ in range(3)] + [count(name, n=2000, delay=0.01)] * n_long
        ids[name] = dask_runner.submit_many(specs)

    threads = [threading.Thread(target=session, args=("dask-A", 1)),
               threading.Thread(target=session, args=("dask-B", 0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    recs_b = dask_runner.wait(group="dask-B", timeout=300)
    dask_runner.wait(ids["dask-A"][:3], timeout=300)
    wait_until(lambda: running_with_progress(reg, ids["dask-A"][-1]), what="A's long job")
    assert dask_runner.cancel(group="dask-A") == [ids["dask-A"][-1]]
    recs_a = dask_runner.wait(group="dask-A", timeout=300)
    assert [r.id for r in recs_a] == ids["dask-A"] and [r.id for r in recs_b] == ids["dask-B"]
    assert [r.state for r in recs_b] == ["done"] * 3
    assert [r.state for r in recs_a] == ["done"] * 3 + ["cancelled"]


def test_cancel_running_and_pending(dask_runner):
    reg = dask_runner.registry
    ids = dask_runner.submit_many([count("dask-cancel", n=3000, delay=0.01) for _ in range(4)])
    wait_until(lambda: sum(bool(running_with_progress(reg, j)) for j in ids) == 2,
               what="two jobs on the two workers")
    started = [j for j in ids if reg.get(j).progress]
    dask_runner.cancel(group="dask-cancel")
    recs = wait_until(lambda: (rs := reg.list(ids=ids)) and all(r.state != "running" for r in rs) and rs,
                      interval=0.01, what="the cancels")
    for r in recs:
        assert r.state == "cancelled"
        if r.id in started:
            assert r.result["stopped"] is True
        else:
            assert r.error == "cancelled before it started"


def test_crash_fails_with_the_error_text(dask_runner):
    jid = dask_runner.submit(count("dask-crash", n=5, crash_at=1))
    rec = dask_runner.wait([jid], timeout=300)[0]
    assert (rec.state, rec.error) == ("failed", "RuntimeError: count crashed at step 1 as requested")
    assert any("Traceback" in e.message for e in dask_runner.registry.logs(jid))


def test_shutdown_interrupts_and_the_local_pool_resumes(dask_runner):
    reg = dask_runner.registry
    second = DaskRunner(reg, client=dask_runner.client)  # e.g. a second app process
    jid = second.submit(count("dask-stop", n=100, delay=0.01))
    wait_until(lambda: running_with_progress(reg, jid), what="the job")
    second.shutdown(interrupt=True)
    assert reg.get(jid).state == "interrupted"
    assert dask_runner.client.status == "running"  # a borrowed client is not closed
    with LocalProcessRunner(reg, max_workers=1) as local:
        assert local.resume(jid) == [jid]
        rec = local.wait([jid], timeout=300)[0]
    assert (rec.state, rec.attempt, rec.backend) == ("done", 2, "local")


def test_shutdown_wait_ends_at_its_timeout(dask_runner):
    """A dispatched job that outlasts ``shutdown(wait=True, timeout=...)`` is cancelled and marked
    interrupted; shutdown returns instead of polling until the job ends."""
    from distributed import Event

    reg = dask_runner.registry
    second = DaskRunner(reg, client=dask_runner.client)
    jid = second.submit(count("dask-deadline", n=3000, delay=0.01))
    wait_until(lambda: running_with_progress(reg, jid), what="the job")
    event_name = second._jobs[jid].event_name
    try:
        assert shutdown_within(second) == []
        assert reg.get(jid).state == "interrupted"
        assert "shut down" in reg.logs(jid)[-1].message
        assert dask_runner.client.status == "running"  # a borrowed client is not closed
    finally:
        Event(event_name, client=dask_runner.client).set()  # the task on the worker stops too
        wait_until(lambda: not dask_runner.client.processing() or
                   not any(dask_runner.client.processing().values()), what="the worker to be free")


def test_get_runner_uses_the_scheduler_from_the_environment(dask_runner, monkeypatch, tmp_path):
    monkeypatch.setenv("HBNLAB_DASK_SCHEDULER", dask_runner.address)
    runner = get_runner(tmp_path, backend="dask")
    try:
        assert runner.address == dask_runner.address and runner._cluster is None
        rec = runner.wait([runner.submit(count("env", n=3))], timeout=300)[0]
        assert rec.result["total"] == 3
    finally:
        runner.shutdown()


def test_cluster_restart_interrupts_jobs_which_resume(dask_runner):
    """Last in this module: restarting the cluster replaces every worker.  Each step waits for what it
    needs -- the jobs' progress in the registry, the new workers registering with the scheduler --
    with deadlines that are failsafes only (a loaded machine takes tens of seconds to start a worker)."""
    reg = dask_runner.registry
    done_before = dask_runner.wait([dask_runner.submit(count("restart", n=3))], timeout=300)[0]
    ids = dask_runner.submit_many([count("restart", n=3000, delay=0.01) for _ in range(3)])
    wait_until(lambda: sum(bool(running_with_progress(reg, j)) for j in ids) == 2, timeout=300,
               what="two jobs running with progress")
    dask_runner.client.restart(wait_for_workers=False)
    recs = wait_until(lambda: (rs := reg.list(ids=ids)) and all(r.state != "running" for r in rs) and rs,
                      timeout=300, what="the restart to interrupt the three jobs")
    assert [r.state for r in recs] == ["interrupted"] * 3
    assert "the Dask cluster dropped the task" in reg.logs(ids[0])[-1].message
    assert reg.get(done_before.id).result == done_before.result  # finished results intact
    # a new worker registering (the scheduler's event, not a sleep) before the jobs are handed out again.
    # One, not two: a worker whose task thread outlives the nanny's 4 s is SIGKILLed by the restart, and
    # under load its nanny may close instead of starting a new one ("Closing Nanny ... nanny-close",
    # distributed 2026.8) -- the resumed jobs then run on the other.
    dask_runner.client.wait_for_workers(n_workers=1, timeout=300)
    assert dask_runner.resume(group="restart") == ids
    try:
        wait_until(lambda: any(running_with_progress(reg, j) for j in ids), timeout=300,
                   what="a resumed job running with progress on a restarted worker")
    except TimeoutError as e:
        seen = [(r.id, r.state, r.attempt, r.progress, [m.message for m in reg.logs(r.id)][-3:])
                for r in reg.list(ids=ids)]
        raise TimeoutError(f"{e}; workers {dask_runner.worker_pids()}, jobs {seen}") from None
    dask_runner.cancel(group="restart")
    recs = dask_runner.wait(ids, timeout=300)
    assert [r.attempt for r in recs] == [2, 2, 2] and {r.state for r in recs} == {"cancelled"}
