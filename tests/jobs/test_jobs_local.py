"""LocalProcessRunner: jobs in worker processes, visible from other processes, cancellable,
surviving crashes of the task, of the worker and of the owning app process."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

import numpy as np
import pytest
from jobs_helpers import child_env, run_python, shutdown_within, start_python, wait_until

from hbnlab.jobs import JobSpec, LocalProcessRunner, RunnerError, RunRegistry, get_runner, run_inline
from hbnlab.jobs.registry import pid_alive

T = "hbnlab.jobs.testing"


def count(group, n=3, delay=0.0, **params):
    return JobSpec("count", {"n": n, "delay": delay, **params}, group=group, module=T,
                   label=f"count {n}")


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    r = LocalProcessRunner(tmp_path_factory.mktemp("local") / "runs", max_workers=2,
                           cancel_grace=1.0)
    yield r
    r.shutdown(wait=True)


def running_with_progress(reg, jid, step=1):
    rec = reg.get(jid)
    return rec if rec.state == "running" and rec.progress and rec.progress["step"] >= step else None


OBSERVER = """
    import json, sys, time
    from hbnlab.jobs import RunRegistry
    reg = RunRegistry(sys.argv[1], recover=False)
    jid = int(sys.argv[2])
    seen, states = [], set()
    deadline = time.time() + 30
    while time.time() < deadline:
        rec = reg.get(jid)
        states.add(rec.state)
        if rec.progress:
            seen.append(rec.progress["step"])
        if rec.state == "done":
            break
        time.sleep(0.02)
    print(json.dumps({"seen": seen, "states": sorted(states), "total": (rec.result or {}).get("total"),
                      "artifact": rec.artifacts.get("summary.json")}))
"""


def test_submit_complete_and_progress_visible_from_another_process(runner):
    jid = runner.submit(count("visible", n=30, delay=0.05))
    observer = run_python(OBSERVER, runner.registry.path, jid, timeout=300)
    seen = json.loads(observer.stdout)
    assert seen["states"] == ["done", "queued", "running"] or seen["states"] == ["done", "running"]
    assert seen["total"] == sum(range(30))
    assert len(set(seen["seen"])) >= 3 and seen["seen"] == sorted(seen["seen"])
    rec = runner.registry.get(jid)
    assert rec.worker_pid != os.getpid() and rec.worker_pid in runner.worker_pids
    assert runner.registry.read_artifact(seen["artifact"]) == \
        b'{"n": 30, "random_state": null, "total": 435}'
    assert runner.registry.traces(jid)["total"][-1] == (29, 435.0)
    assert [e.message for e in runner.registry.logs(jid)][-2:] == [
        "counted 30 steps", "done: result of attempt 1 recorded"]


def test_cancel_stops_the_running_task(runner):
    """The task itself stops on the cancel (its latency: benchmarks/bench_responsiveness.py)."""
    reg = runner.registry
    jid = runner.submit(count("cancel", n=2000, delay=0.01))
    wait_until(lambda: running_with_progress(reg, jid), what="the job to run")
    assert runner.cancel(jid) == [jid]
    rec = wait_until(lambda: (r := reg.get(jid)).state != "running" and r, interval=0.01,
                     what="the cancel")
    assert rec.state == "cancelled" and rec.result["stopped"] is True
    assert rec.error is None or "killed" not in rec.error
    assert rec.result["steps"] < 2000


def test_task_ignoring_cancel_is_killed_after_the_grace(runner):
    reg = runner.registry
    jid = runner.submit(count("hang", n=2000, delay=0.01, hang=True))
    rec = wait_until(lambda: running_with_progress(reg, jid), what="the job to run")
    runner.cancel(jid)
    rec = wait_until(lambda: (r := reg.get(jid)).state != "running" and r, what="the kill")
    assert rec.state == "cancelled" and rec.result is None  # killed, not stopped by the task
    assert rec.error.startswith("the task did not stop within 1 s of the cancel request; "
                                f"worker process {rec.progress['pid']} was killed")
    assert not pid_alive(rec.progress["pid"])
    logs = reg.logs(jid)
    asked = next(e.time for e in logs if e.message == "cancel requested")
    assert logs[-1].time - asked >= 1.0  # the grace was given before the kill
    follow = runner.submit(count("hang", n=2))  # the pool replaces the killed worker
    assert runner.wait([follow], timeout=300)[0].result["total"] == 1


def test_shutdown_wait_ends_at_its_timeout(tmp_path):
    """A job that outlasts ``shutdown(wait=True, timeout=...)`` is stopped and marked interrupted;
    shutdown returns instead of waiting for it."""
    r = LocalProcessRunner(tmp_path / "runs", max_workers=1)
    jid = r.submit(count("deadline", n=3000, delay=0.01, hang=True))
    rec = wait_until(lambda: running_with_progress(r.registry, jid), what="the job to run")
    assert shutdown_within(r) == []
    after = r.registry.get(jid)
    assert after.state == "interrupted"
    assert r.registry.logs(jid)[-1].message.endswith("shut down after a 0.5 s wait")
    assert not pid_alive(rec.progress["pid"])


def test_crash_fails_with_the_error_text(runner):
    jid = runner.submit(count("crash", n=5, crash_at=3))
    rec = runner.wait([jid], timeout=300)[0]
    assert rec.state == "failed"
    assert rec.error == "RuntimeError: count crashed at step 3 as requested"
    assert rec.result is None and rec.progress["step"] == 3
    assert any("Traceback" in e.message for e in runner.registry.logs(jid))


def test_wait_reports_counts_and_times_out(runner):
    seen = []
    jid = runner.submit(count("wait", n=40, delay=0.01))
    with pytest.raises(TimeoutError, match=rf"jobs \[{jid}\] still active after 0.05 s"):
        runner.wait([jid], timeout=0.05)
    recs = runner.wait(group="wait", timeout=300, callback=seen.append)
    assert [r.id for r in recs] == [jid] and recs[0].state == "done"
    assert seen[-1]["done"] == 1 and sum(seen[0].values()) == 1
    from hbnlab.jobs import RegistryError

    with pytest.raises(RegistryError, match=r"jobs \[123456\] are not in"):
        runner.wait([jid, 123456])
    with pytest.raises(RunnerError, match="wait needs job_ids or a group"):
        runner.wait()


def test_unknown_task_or_input_is_refused_at_submit(runner):
    from hbnlab.jobs import TaskError

    with pytest.raises(TaskError, match="unknown task kind 'no_such_task'"):
        runner.submit(JobSpec("no_such_task", module=T))
    with pytest.raises(RunnerError, match=r"needs shared input\(s\) \['nothing'\]; call runner.share"):
        runner.submit(JobSpec("score_shared", {"input": "nothing"}, inputs=("nothing",)))
    with pytest.raises(RunnerError, match="max_workers must be an int >= 1, got 0"):
        LocalProcessRunner(runner.registry, max_workers=0)
    with pytest.raises(RunnerError, match="backend must be one of"):
        get_runner(runner.registry, backend="ray")


def test_shared_input_is_shipped_once_per_worker(runner):
    X = np.random.default_rng(0).standard_normal((50, 6))
    before = runner.transfers
    runner.share("matrix", {"X": X})
    specs = [JobSpec("score_shared", {"input": "matrix"}, inputs=("matrix",), random_state=s,
                     group="shared") for s in range(8)]
    recs = runner.wait(runner.submit_many(specs), timeout=300)
    for spec, rec in zip(specs, recs):
        expected, _ = run_inline(spec, shared={"matrix": {"X": X}})
        assert rec.state == "done" and rec.result == expected.result
    assert 1 <= runner.transfers - before <= runner.max_workers
    # a new value under the same name is shipped again, once per worker that needs it
    runner.share("matrix", {"X": X * 2})
    before = runner.transfers
    [rec] = runner.wait([runner.submit(specs[0])], timeout=300)
    assert rec.result["mean"] == pytest.approx(2 * recs[0].result["mean"])
    assert runner.transfers - before == 1


def test_two_groups_see_only_their_own_jobs(runner):
    reg = runner.registry
    ids = {}

    def session(name, long):
        specs = [count(name, n=3) for _ in range(3)] + ([count(name, n=3000, delay=0.01)] if long else [])
        ids[name] = runner.submit_many(specs)

    threads = [threading.Thread(target=session, args=("sess-A", True)),
               threading.Thread(target=session, args=("sess-B", False))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    runner.wait(ids["sess-A"][:3], timeout=300)
    wait_until(lambda: running_with_progress(reg, ids["sess-A"][-1]), what="A's long job")
    assert runner.cancel(group="sess-A") == [ids["sess-A"][-1]]
    runner.wait(group="sess-A", timeout=300)
    recs_b = runner.wait(group="sess-B", timeout=300)
    assert [r.id for r in reg.list(group="sess-A")] == ids["sess-A"]
    assert [r.id for r in recs_b] == ids["sess-B"]
    assert [r.state for r in recs_b] == ["done"] * 3
    assert reg.get(ids["sess-A"][-1]).state == "cancelled"


def test_worker_death_fails_the_job_or_is_retried(tmp_path):
    with LocalProcessRunner(tmp_path, max_workers=1, retries=1) as r:
        once = r.submit(count("die", n=4, die_at=1, die_attempts=[1]))
        always = r.submit(count("die", n=4, die_at=1))
        rec_once, rec_always = r.wait([once, always], timeout=300)
    assert (rec_once.state, rec_once.attempt, rec_once.result["total"]) == ("done", 2, 6)
    assert any(e.message.startswith("queued again: worker process") and "exit code -9" in e.message
               for e in r.registry.logs(once))
    assert rec_always.state == "failed" and rec_always.attempt == 2
    assert rec_always.error.endswith("died (exit code -9) while running the job")


APP = """
    import json, sys, time
    from hbnlab.jobs import JobSpec, LocalProcessRunner
    T = "hbnlab.jobs.testing"
    runner = LocalProcessRunner(sys.argv[1], max_workers=1)
    quick = runner.submit(JobSpec("count", {"n": 2}, group="app", module=T))
    runner.wait([quick], timeout=300)
    longs = runner.submit_many([JobSpec("count", {"n": 20, "delay": 0.05}, group="app", module=T)
                                for _ in range(3)])
    while True:
        rec = runner.registry.get(longs[0])
        if rec.progress and rec.progress["step"] >= 2:
            break
        time.sleep(0.02)
    print(json.dumps({"quick": quick, "longs": longs, "worker": rec.worker_pid}), flush=True)
    time.sleep(120)
"""


def start_app(store):
    app = start_python(APP, store, start_new_session=True)
    line = app.stdout.readline()
    assert line, app.stderr.read()
    return app, json.loads(line)


def test_app_killed_mid_job_then_restarted(tmp_path):
    store = tmp_path / "runs"
    app, info = start_app(store)
    os.killpg(app.pid, signal.SIGKILL)  # the app and its worker die together (a reboot)
    app.wait()
    wait_until(lambda: not pid_alive(info["worker"]), what="the worker to die")
    reg = RunRegistry(store)  # the restarted app opens the registry
    quick, (first, *rest) = reg.get(info["quick"]), info["longs"]
    assert (quick.state, quick.result["total"]) == ("done", 1)  # finished results intact
    assert reg.get(first).state == "interrupted"
    assert f"interrupted: worker process {info['worker']}" in reg.logs(first)[-1].message
    assert [reg.get(j).state for j in rest] == ["queued", "queued"]
    with LocalProcessRunner(reg, max_workers=2) as runner:
        assert runner.resume(group="app") == [first]
        recs = runner.wait(info["longs"], timeout=300)  # queued ones are picked up too
    assert [r.state for r in recs] == ["done"] * 3
    assert [r.attempt for r in recs] == [2, 1, 1]
    assert all(r.result["total"] == sum(range(20)) for r in recs)
    assert reg.get(info["quick"]).result["total"] == 1 and reg.integrity_check() == "ok"


def test_worker_outlives_a_killed_app_and_records_its_job(tmp_path):
    store = tmp_path / "runs"
    app, info = start_app(store)
    os.kill(app.pid, signal.SIGKILL)  # only the app process (Streamlit crashed)
    app.wait()
    reg = RunRegistry(store)
    assert reg.get(info["longs"][0]).state == "running"  # its worker is alive: not orphaned
    rec = wait_until(lambda: (r := reg.get(info["longs"][0])).state == "done" and r, what="the job")
    assert rec.result["total"] == sum(range(20)) and rec.attempt == 1
    wait_until(lambda: not pid_alive(info["worker"]), what="the worker to exit")
    assert [reg.get(j).state for j in info["longs"][1:]] == ["queued", "queued"]


def test_shutdown_with_interrupt_then_resume(tmp_path):
    runner = LocalProcessRunner(tmp_path, max_workers=1)
    jid = runner.submit(count("stop", n=100, delay=0.01))
    wait_until(lambda: running_with_progress(runner.registry, jid), what="the job")
    runner.shutdown(interrupt=True)  # what the app's exit hook does
    rec = runner.registry.get(jid)
    assert rec.state == "interrupted" and rec.result is None and not pid_alive(rec.worker_pid)
    with pytest.raises(RunnerError, match="is shut down"):
        runner.submit(count("stop"))
    with LocalProcessRunner(tmp_path, max_workers=1) as again:
        assert again.resume(jid) == [jid]
        rec = again.wait([jid], timeout=300)[0]
    assert (rec.state, rec.attempt, rec.result["total"]) == ("done", 2, sum(range(100)))


def test_worker_daemon_serves_the_queue(tmp_path):
    store = tmp_path / "runs"
    RunRegistry(store)
    daemon = subprocess.Popen([sys.executable, "-m", "hbnlab.jobs.worker", "--registry", str(store),
                               "--workers", "1"], stdout=subprocess.PIPE, text=True, env=child_env())
    try:
        assert "serving" in daemon.stdout.readline()
        client = LocalProcessRunner(store, start=False)  # submit-only
        quick = client.submit(count("daemon", n=4))
        rec = client.wait([quick], timeout=300)[0]
        assert rec.result["total"] == 6 and rec.worker_pid not in (os.getpid(), daemon.pid)
        slow = client.submit(count("daemon", n=2000, delay=0.01))
        wait_until(lambda: running_with_progress(client.registry, slow), what="the slow job")
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(15) == 0
        assert client.registry.get(slow).state == "interrupted"
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()


def test_core_job_modules_import_neither_streamlit_nor_dask():
    out = run_python("""
        import sys
        import hbnlab.jobs, hbnlab.jobs.local, hbnlab.jobs.worker, hbnlab.jobs.testing
        from hbnlab.jobs import LocalProcessRunner
        print(sorted(m for m in ("streamlit", "distributed", "dask") if m in sys.modules))
        import hbnlab.jobs.dask_runner
        print("streamlit" in sys.modules)
    """)
    assert out.stdout.split("\n")[:2] == ["[]", "False"], out.stderr


def test_job_errors_are_hbnlab_errors_and_their_builtin_kind():
    from hbnlab._validation import HbnlabError
    from hbnlab.jobs import JobNotFound, RegistryError, SpecError, TaskError

    for cls, builtin in [(RegistryError, RuntimeError), (JobNotFound, RuntimeError), (RunnerError, RuntimeError),
                         (SpecError, ValueError), (TaskError, LookupError)]:
        assert issubclass(cls, HbnlabError) and issubclass(cls, builtin), cls


def test_the_runner_base_class_owns_its_loop(store):
    """A subclass that gives only share, shutdown and _step gets submit, the shared-input
    check and the runner thread's loop from the base class."""
    from hbnlab.jobs import Runner

    class Stepper(Runner):
        backend = "stepper"

        def __init__(self, registry):
            super().__init__(registry, poll_interval=0.01)
            self.steps = 0
            self._thread = threading.Thread(target=self._step_loop, args=("stepper",),
                                            kwargs={"final_step": False}, daemon=True)
            self._thread.start()

        def share(self, name, value):
            with self._lock:
                self._shared[name] = value

        def shutdown(self, wait=True, *, interrupt=False):
            self._closed = True
            self._stop_event.set()
            self._wake()
            self._thread.join()

        def _step(self):
            self.steps += 1

    with Stepper(store) as stepper:
        wait_until(lambda: stepper.steps >= 3, what="three passes of the loop")
        spec = JobSpec("count", {"n": 1}, module="hbnlab.jobs.testing", inputs=("x",))
        with pytest.raises(RunnerError, match=r"shared input\(s\) \['x'\]"):
            stepper.submit(spec)
        stepper.share("x", 1)
        job = stepper.submit(spec)
        assert stepper.registry.get(job).backend == "stepper"
    assert not stepper._thread.is_alive()

    class NoStep(Runner):
        def share(self, name, value):
            pass

        def shutdown(self, wait=True, *, interrupt=False):
            pass

    with pytest.raises(TypeError, match="_step"):
        NoStep(store)


def test_full_disk_during_a_job_fails_it_cleanly(tmp_path, monkeypatch):
    """The worker's own code path (execute_job), run in this process so that the write of the
    task's artifact can be made to fail with ENOSPC."""
    import errno

    from hbnlab.jobs.worker import execute_job

    reg = RunRegistry(tmp_path)
    jid = reg.submit(count("disk", n=3))
    [claim] = reg.claim("local", worker_pid=os.getpid(), worker="test")

    def full_disk(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    outcome = execute_job(reg, claim, poll_interval=0.05)
    monkeypatch.undo()
    rec = reg.get(jid)
    assert outcome.state == rec.state == "failed"
    assert rec.error.startswith("RegistryError: cannot write artifact ")
    assert rec.error.endswith(f"to {reg.artifacts_dir}: No space left on device")
    assert rec.artifacts == {} and os.listdir(reg.artifacts_dir) == []
    assert reg.integrity_check() == "ok"
