"""RunRegistry: the state machine, exactly-once results, recovery, migrations, artifacts,
concurrency, crash safety and clear errors on read-only or full storage."""
from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jobs_helpers import read_lines_until, run_python, start_python, wait_until

from hbnlab.jobs import JobNotFound, JobSpec, RegistryError, RunRegistry, StaleJobError
from hbnlab.jobs.registry import DB_NAME, HOSTNAME, MIGRATIONS, SCHEMA_VERSION, Beat, JobRecord
from hbnlab.jobs.schema import _migration_1


def spec(i=0, group="g", **params):
    return JobSpec("count", {"i": i, **params}, group=group, label=f"job {i}",
                   module="hbnlab.jobs.testing", random_state=i)


def claim_one(reg, backend="local", pid=None):
    [c] = reg.claim(backend, worker_pid=os.getpid() if pid is None else pid, worker="test")
    return c


# ------------------------------------------------------------------ basics
def test_submit_get_list_counts(store):
    reg = RunRegistry(store)
    a = reg.submit(spec(1, "A"))
    b, c = reg.submit_many([spec(2, "B"), spec(3, "A")])
    assert (a, b, c) == (1, 2, 3)
    rec = reg.get(a)
    assert (rec.state, rec.attempt, rec.group, rec.label, rec.backend) == ("queued", 0, "A", "job 1", "local")
    assert rec.spec == spec(1, "A")
    assert [r.id for r in reg.list(group="A")] == [a, c]
    assert [r.id for r in reg.list(states=["queued"])] == [a, b, c]
    assert reg.list(group="A", states="running") == []
    assert reg.counts("A") == {"queued": 2, "running": 0, "done": 0, "failed": 0,
                               "cancelled": 0, "interrupted": 0}
    with pytest.raises(JobNotFound, match=f"no job 99 in run registry {store / DB_NAME}"):
        reg.get(99)
    with pytest.raises(RegistryError, match=r"unknown job state\(s\) \['runing'\]"):
        reg.list(states=["runing"])
    assert [r.id for r in reg.list(newest_first=True, limit=2)] == [c, b]
    assert reg.counts(ids=[a, b]) == dict(reg.counts(), queued=2)
    with pytest.raises(RegistryError, match="limit must be an int >= 0 or None, got -1"):
        reg.list(limit=-1)
    assert reg.integrity_check() == "ok"
    assert reg._con().execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_claim_finish_exactly_once(store):
    reg = RunRegistry(store)
    jid = reg.submit(spec(1))
    c = claim_one(reg)
    assert (c.job_id, c.attempt, c.spec) == (jid, 1, spec(1))
    assert reg.claim("local", worker_pid=1) == []  # nothing left
    rec = reg.get(jid)
    assert rec.state == "running" and rec.worker_pid == os.getpid() and rec.worker_host == HOSTNAME
    digest = reg.put_artifact(b"model")
    assert reg.finish(jid, 1, "done", result={"x": 1}, artifacts={"model": digest}) is True
    # a duplicate (e.g. a retried Dask task) and a stale attempt are both ignored
    assert reg.finish(jid, 1, "done", result={"x": 2}) is False
    assert reg.finish(jid, 0, "failed", error="late") is False
    rec = reg.get(jid)
    assert (rec.state, rec.result, rec.artifacts) == ("done", {"x": 1}, {"model": digest})
    messages = [e.message for e in reg.logs(jid)]
    assert sum("recorded" in m for m in messages) == 1
    assert sum("ignored" in m for m in messages) == 2
    with pytest.raises(RegistryError, match="finish state must be one of"):
        reg.finish(jid, 1, "queued")
    with pytest.raises(RegistryError, match="artifact 'm' must be a sha256 hex digest, got 'abc'"):
        reg.finish(jid, 1, "done", artifacts={"m": "abc"})


@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["done", "failed", "cancelled"])),
                min_size=1, max_size=8))
@settings(max_examples=25, deadline=None)
def test_only_the_first_finish_of_the_current_attempt_counts(tmp_path_factory, calls):
    reg = RunRegistry(tmp_path_factory.mktemp("reg"))
    jid = reg.submit(spec(0))
    for _ in range(2):  # make the current attempt 2: attempt 1 failed and was retried
        c = claim_one(reg)
        if c.attempt == 1:
            reg.finish(jid, 1, "failed", error="first try")
            reg.retry(jid)
    recorded = [reg.finish(jid, a, s, result={"call": k}) for k, (a, s) in enumerate(calls)]
    expected_first = next((k for k, (a, _) in enumerate(calls) if a == 2), None)
    assert recorded == [k == expected_first for k in range(len(calls))]
    rec = reg.get(jid)
    if expected_first is None:
        assert rec.state == "running"
    else:
        assert rec.state == calls[expected_first][1] and rec.result == {"call": expected_first}


def test_heartbeat_progress_logs_traces_and_guard(store):
    reg = RunRegistry(store)
    jid = reg.submit(spec(1))
    c = claim_one(reg)
    beat = reg.heartbeat(jid, 1, progress={"step": 3}, logs=[(None, "hello")],
                         traces=[("ll", 0, -5.0), ("ll", 1, -4.0)])
    assert (beat.alive, beat.cancel) == (True, False)
    rec = reg.get(jid)
    assert rec.progress == {"step": 3} and rec.progress_time is not None
    assert reg.traces(jid) == {"ll": [(0, -5.0), (1, -4.0)]}
    assert reg.poll(jid, 1) == beat
    assert reg.request_cancel(jid) == [jid]
    assert reg.poll(jid, 1).cancel and reg.heartbeat(jid, 1).cancel
    assert reg.heartbeat(jid, 2).alive is False  # another attempt: nothing written
    assert reg.heartbeat_many({jid: 1})[jid].cancel
    other = reg.submit(spec(2))
    claim_one(reg)
    with reg._write("ageing") as con:
        con.execute("UPDATE jobs SET heartbeat = 0")
    beats = reg.heartbeat_many({jid: 1, other: 1, 999: 1})
    assert beats == {jid: Beat(True, True), other: Beat(True, False), 999: Beat(False, True)}
    assert reg.get(other).heartbeat > 0 and reg.heartbeat_many({other: 7})[other].alive is False
    assert reg.heartbeat_many({}) == {}
    reg.finish(jid, c.attempt, "cancelled")
    assert reg.heartbeat(jid, 1) .alive is False
    assert "hello" in [e.message for e in reg.logs(jid)]


def test_cancel_is_per_job_or_per_group(store):
    reg = RunRegistry(store)
    a1, a2, b1 = reg.submit_many([spec(1, "A"), spec(2, "A"), spec(3, "B")])
    claim_one(reg)  # a1 running
    assert reg.request_cancel(group="A") == [a1, a2]
    assert reg.get(a2).state == "cancelled" and reg.get(a2).error == "cancelled before it started"
    assert reg.get(a1).state == "running" and reg.get(a1).cancel_requested is not None
    assert reg.get(b1).state == "queued" and reg.get(b1).cancel_requested is None
    assert reg.request_cancel(group="nobody") == []
    with pytest.raises(RegistryError, match="request_cancel needs a job_id or a group"):
        reg.request_cancel()
    with pytest.raises(JobNotFound):
        reg.request_cancel(42)


def test_retry_resume_and_delete(store):
    reg = RunRegistry(store)
    jid = reg.submit(spec(1))
    claim_one(reg)
    reg.finish(jid, 1, "failed", error="ValueError: bad\ntraceback...")
    assert reg.retry(jid) == jid
    rec = reg.get(jid)
    assert (rec.state, rec.attempt, rec.error, rec.result) == ("queued", 1, None, None)
    c = claim_one(reg)
    assert c.attempt == 2
    assert reg.mark_interrupted(jid, 2, "test") is True
    assert reg.get(jid).state == "interrupted"
    assert reg.resume(group="g") == [jid]
    claim_one(reg)
    reg.finish(jid, 3, "done", result={"ok": True})
    with pytest.raises(RegistryError, match="job 1 is done; only failed, cancelled or interrupted"):
        reg.retry(jid)
    assert [e.attempt for e in reg.logs(jid)].count(1) >= 2  # attempt 1's lines kept
    messages = [e.message for e in reg.logs(jid)]
    assert "queued again (retry after attempt 1, failed: ValueError: bad)" in messages
    # retry can move a job to another backend
    j2 = reg.submit(spec(2), backend="dask")
    [c2] = reg.claim("dask", worker_pid=os.getpid())
    reg.finish(j2, c2.attempt, "cancelled")
    reg.retry(j2, backend="local")
    assert reg.get(j2).backend == "local"
    assert claim_one(reg).job_id == j2
    # delete
    running = reg.submit(spec(3))
    claim_one(reg)
    with pytest.raises(RegistryError, match=f"job {running} is running; cancel it"):
        reg.delete(running)
    reg.delete(jid)
    with pytest.raises(JobNotFound):
        reg.get(jid)
    assert reg.logs(jid) == [] and reg.traces(jid, attempt=3) == {}


def test_requeue_puts_a_running_attempt_back(store):
    reg = RunRegistry(store)
    jid = reg.submit(spec(1))
    claim_one(reg)
    assert reg.requeue(jid, 1, "worker died") is True
    assert reg.requeue(jid, 1, "again") is False
    assert reg.get(jid).state == "queued"
    assert claim_one(reg).attempt == 2


def test_claim_accept_filter_and_backend(store):
    reg = RunRegistry(store)
    a = reg.submit(JobSpec("score_shared", {"input": "X"}, inputs=("X",)))
    b = reg.submit(spec(2))
    d = reg.submit(spec(3), backend="dask")
    got = reg.claim("local", worker_pid=1, limit=5, accept=lambda s: not s.inputs)
    assert [c.job_id for c in got] == [b]
    assert reg.get(a).state == "queued" and reg.get(d).state == "queued"
    assert reg.queued_count("local") == 1 and reg.queued_count("dask") == 1


# ------------------------------------------------------------------ recovery
def test_recover_marks_orphans_interrupted(store):
    reg = RunRegistry(store, stale_after=30)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    j_dead, j_alive, j_remote, j_remote_stale, j_slept = reg.submit_many([spec(i) for i in range(5)])
    claim_one(reg, pid=dead.pid)
    claim_one(reg, pid=os.getpid())
    reg.claim("local", worker_pid=dead.pid, worker_host="some-other-host")
    reg.claim("local", worker_pid=os.getpid(), worker_host="some-other-host")
    claim_one(reg, pid=os.getpid())
    with reg._write("ageing heartbeats") as con:
        con.execute("UPDATE jobs SET heartbeat = heartbeat - 100 WHERE id IN (?, ?)",
                    (j_remote_stale, j_slept))
    assert reg.recover() == [j_dead, j_remote_stale]
    assert reg.get(j_alive).state == "running"
    # another host's pid is not ours to judge, only its heartbeat (still fresh) ...
    assert reg.get(j_remote).state == "running"
    # ... while a live local worker keeps its job even when its heartbeat is old (the machine
    # slept): its process is checked directly
    assert reg.get(j_slept).state == "running"
    msgs = [e.message for e in reg.logs(j_dead)]
    assert f"interrupted: worker process {dead.pid} on {HOSTNAME} is gone" in msgs
    assert any("last heartbeat 100 s ago (worker pid" in e.message for e in reg.logs(j_remote_stale))
    assert reg.recover(stale_after=-1) == [j_remote]
    # opening a registry recovers too
    j6 = reg.submit(spec(6))
    claim_one(reg, pid=dead.pid)
    assert RunRegistry(store).get(j6).state == "interrupted"


def test_recover_detects_a_reused_pid(store):
    from hbnlab.jobs.registry import process_start_ticks

    reg = RunRegistry(store)
    jid = reg.submit(spec(1))
    claim_one(reg, pid=os.getpid())
    later = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        wait_until(lambda: process_start_ticks(later.pid) is not None, what="the process")
        # pretend the claiming worker died and the kernel gave its pid to `later`: same pid
        # column, but the stored start time is that of the original process
        with reg._write("faking pid reuse") as con:
            con.execute("UPDATE jobs SET worker_pid = ?, worker_start = ? WHERE id = ?",
                        (later.pid, process_start_ticks(later.pid) - 1, jid))
        assert reg.recover() == [jid]
        assert "(its pid now belongs to another process)" in reg.logs(jid)[-1].message
    finally:
        later.kill()
        later.wait()


def test_zombie_process_counts_as_dead(store):
    from hbnlab.jobs.registry import pid_alive

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    wait_until(lambda: open(f"/proc/{child.pid}/stat").read().split(") ")[1][0] == "Z",
               what="the child to become a zombie")
    assert pid_alive(child.pid) is False
    child.wait()
    assert pid_alive(os.getpid()) is True and pid_alive(0) is False


# ------------------------------------------------------------------ records
def test_elapsed_and_eta_golden():
    rec = JobRecord(id=1, spec=spec(0), state="running", backend="local", attempt=1,
                    created=90.0, started=100.0, finished=None, heartbeat=None, worker_pid=None,
                    worker_host=None, worker=None, cancel_requested=None,
                    progress={"fraction": 0.25}, progress_time=None, result=None, error=None)
    assert rec.elapsed(now=110.0) == 10.0
    assert rec.eta(now=110.0) == 30.0  # 10 s for a quarter: 30 s for the other three
    assert json.loads(json.dumps(rec.to_dict()))["progress"] == {"fraction": 0.25}


# ------------------------------------------------------------------ migrations
def test_migrations_from_empty_and_from_v1(tmp_path):
    fresh = RunRegistry(tmp_path / "fresh")
    assert fresh.schema_version() == SCHEMA_VERSION == len(MIGRATIONS) == 3
    old = tmp_path / "old"
    old.mkdir()
    con = sqlite3.connect(old / DB_NAME)
    con.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    con.execute("INSERT INTO schema_version VALUES (1)")
    _migration_1(con)
    con.execute("INSERT INTO jobs (grp, kind, label, spec, backend, state, attempt, created, result) "
                "VALUES ('g', 'count', 'old', ?, 'local', 'done', 1, 1.0, '{\"total\": 3}')",
                (spec(0).to_json(),))
    con.commit()
    con.close()
    reg = RunRegistry(old)
    assert reg.schema_version() == 3
    rec = reg.get(1)
    assert (rec.state, rec.result, rec.artifacts, rec.progress_time) == ("done", {"total": 3}, {}, None)
    assert reg.traces(1) == {}


def test_newer_schema_is_refused(tmp_path):
    reg = RunRegistry(tmp_path)
    with reg._write("faking a future schema") as con:
        con.execute("UPDATE schema_version SET version = 99")
    reg.close()
    with pytest.raises(RegistryError, match="has schema version 99, newer than this hbnlab supports"):
        RunRegistry(tmp_path)


def test_concurrent_openers_migrate_once(tmp_path):
    code = """
        import sys
        from hbnlab.jobs import RunRegistry
        RunRegistry(sys.argv[1]).submit_many([])
        print(RunRegistry(sys.argv[1]).schema_version())
    """
    procs = [start_python(code, tmp_path) for _ in range(4)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [o[0].strip() for o in outs] == ["3"] * 4, outs
    assert RunRegistry(tmp_path).integrity_check() == "ok"


# ------------------------------------------------------------------ artifacts
def test_artifacts_are_content_addressed(store):
    reg = RunRegistry(store)
    data = b"\x00model bytes\xff" * 100
    digest = reg.put_artifact(data)
    assert digest == hashlib.sha256(data).hexdigest()
    assert reg.put_artifact(data) == digest
    assert reg.artifact_path(digest) == store / "artifacts" / digest
    assert reg.read_artifact(digest) == data
    assert sorted(os.listdir(store / "artifacts")) == [digest]
    with pytest.raises(RegistryError, match="artifact hash must be 64 lowercase hex digits, got 'xyz'"):
        reg.artifact_path("xyz")
    with pytest.raises(RegistryError, match=f"artifact {'0' * 64} not found in"):
        reg.artifact_path("0" * 64)
    (store / "artifacts" / digest).write_bytes(b"tampered")
    with pytest.raises(RegistryError, match="is corrupt"):
        reg.read_artifact(digest)


def test_artifact_write_failure_leaves_nothing(store, monkeypatch):
    reg = RunRegistry(store)

    def full_disk(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(RegistryError, match=f"cannot write artifact .* to {store / 'artifacts'}: "
                                            "No space left on device"):
        reg.put_artifact(b"x" * 1000)
    assert os.listdir(store / "artifacts") == []


def test_prune_artifacts(store):
    reg = RunRegistry(store)
    keep = reg.put_artifact(b"keep")
    drop = reg.put_artifact(b"drop")
    (store / "artifacts" / ".tmp-stray").write_bytes(b"partial")
    jid = reg.submit(spec(1))
    claim_one(reg)
    with pytest.raises(RegistryError, match=r"1 job\(s\) are running"):
        reg.prune_artifacts()
    reg.finish(jid, 1, "done", artifacts={"m": keep})
    assert reg.prune_artifacts() == sorted([drop, ".tmp-stray"])
    assert os.listdir(store / "artifacts") == [keep]


# ------------------------------------------------------------------ bad storage
def test_full_database_gives_registry_error_and_stays_sound(store):
    reg = RunRegistry(store)
    first = reg.submit(spec(1))
    con = reg._con()
    pages = con.execute("PRAGMA page_count").fetchone()[0]
    con.execute(f"PRAGMA max_page_count = {pages}")  # the disk is now "full"
    big = [spec(i, blob="x" * 5000) for i in range(50)]
    with pytest.raises(RegistryError, match=rf"run registry {store / DB_NAME} while submitting jobs: "
                                            r"database or disk is full; the disk holding .* is full"):
        reg.submit_many(big)
    assert reg.integrity_check() == "ok"
    assert [r.id for r in reg.list()] == [first]  # the failed transaction left no trace
    con.execute("PRAGMA max_page_count = 1073741823")
    assert len(reg.submit_many(big)) == 50


def _open_read_only(path):
    """Open a registry in a directory this process cannot write.  Root ignores permissions, so
    as root the child drops to user ``nobody`` after importing (the interpreter lives under a
    private home directory)."""
    code = """
        import os, sys
        from hbnlab.jobs import RunRegistry, RegistryError
        if os.geteuid() == 0:
            os.setgid(65534)
            os.setuid(65534)
        try:
            RunRegistry(sys.argv[1])
        except RegistryError as exc:
            print("RegistryError:", exc)
        else:
            print("opened")
    """
    return run_python(code, path)


@pytest.fixture
def open_dir():
    """A directory every user can reach (pytest's tmp_path is private to its owner)."""
    import shutil
    import tempfile

    path = tempfile.mkdtemp(prefix="hbnlab-ro-")
    os.chmod(path, 0o755)
    yield __import__("pathlib").Path(path)
    for root, dirs, _ in os.walk(path):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
    shutil.rmtree(path)


def test_read_only_registry_gives_a_clear_error(open_dir):
    store = open_dir / "ro"
    reg = RunRegistry(store)
    jid = reg.submit(spec(1))
    reg.close()
    os.chmod(store, 0o555)
    os.chmod(store / DB_NAME, 0o444)
    try:
        out = _open_read_only(store)
        assert out.stdout.startswith("RegistryError: run registry "), (out.stdout, out.stderr)
        assert str(store) in out.stdout and "writable" in out.stdout
        out = _open_read_only(store / "new")
        assert out.stdout.startswith("RegistryError: cannot create or open the run registry "
                                     f"directory {store / 'new'}: Permission denied"), out
    finally:
        os.chmod(store, 0o755)
        os.chmod(store / DB_NAME, 0o644)
    reg = RunRegistry(store)
    assert reg.integrity_check() == "ok" and reg.get(jid).state == "queued"


# ------------------------------------------------------------------ concurrency and crashes
def test_threads_share_one_registry(store):
    reg = RunRegistry(store)
    ids, errors = [], []

    def work(t):
        try:
            for i in range(20):
                ids.append(reg.submit(spec(i, f"t{t}")))
                reg.list(group=f"t{t}")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(set(ids)) == 120
    assert all(len(reg.list(group=f"t{t}")) == 20 for t in range(6))


WRITER = """
    import os, sys, time
    from hbnlab.jobs import JobSpec, RunRegistry
    reg = RunRegistry(sys.argv[1], recover=False)
    tag = sys.argv[2]
    n = int(sys.argv[3])
    for i in range(n):
        jid = reg.submit(JobSpec("count", {"i": i, "pad": "p" * 2000}, group=tag))
        [c] = reg.claim("local", worker_pid=os.getpid(), accept=lambda s: s.group == tag)
        for k in range(3):
            reg.heartbeat(c.job_id, c.attempt, progress={"k": k}, logs=[(None, f"k={k}")],
                          traces=[("ll", k, -float(k))])
        data = (tag + str(i)).encode() * 500
        digest = reg.put_artifact(data)
        reg.finish(c.job_id, c.attempt, "done", result={"i": i, "tag": tag}, artifacts={"m": digest})
        print(f"wrote {i}", flush=True)  # the test kills this writer after the record it waits for
    print("finished", flush=True)
"""


def test_two_writer_processes_at_once(store):
    RunRegistry(store)
    procs = [start_python(WRITER, store, tag, 40) for tag in ("p", "q")]
    outs = [p.communicate(timeout=300) for p in procs]  # a failsafe: each writer ends by itself
    assert all(o[0].split()[-1:] == ["finished"] and o[0].count("wrote ") == 40 for o in outs), outs
    reg = RunRegistry(store)
    for tag in ("p", "q"):
        recs = reg.list(group=tag)
        assert len(recs) == 40 and all(r.state == "done" for r in recs)
        assert sorted(r.result["i"] for r in recs) == list(range(40))
    assert reg.integrity_check() == "ok"


def test_writer_killed_between_writes_leaves_a_sound_registry(store):
    """Each writer is killed as soon as it says it has finished its n-th record (not after an amount of
    time, which a loaded machine spends on starting the interpreter): the kill lands in the middle of the
    next record's submit, claim, heartbeats, artifact or finish."""
    RunRegistry(store)
    written = {}
    for n in (2, 4, 7):
        proc = start_python(WRITER, store, f"w{n}", 10_000)
        try:
            read_lines_until(proc, n, prefix="wrote ", what=f"writer w{n} finishing {n} records")
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        written[f"w{n}"] = n
    reg = RunRegistry(store)  # opening recovers the killed writers' running jobs
    assert reg.integrity_check() == "ok"
    recs = reg.list()
    assert {r.state for r in recs} <= {"done", "interrupted", "queued"}
    for tag, n in written.items():  # every record a writer said it wrote is there, done
        done = sorted(r.result["i"] for r in reg.list(group=tag) if r.state == "done")
        assert done[:n] == list(range(n)), (tag, done)
    for r in recs:
        if r.state == "done":  # a result and its artifact arrive together and intact
            assert r.result["i"] == r.spec.params["i"] and set(r.artifacts) == {"m"}
            assert reg.read_artifact(r.artifacts["m"]) == (r.result["tag"] + str(r.result["i"])).encode() * 500
        else:
            assert r.result is None and r.artifacts == {}
    for name in os.listdir(store / "artifacts"):  # a killed write may leave a .tmp- file, but
        if not name.startswith(".tmp-"):          # every visible artifact is complete
            assert hashlib.sha256((store / "artifacts" / name).read_bytes()).hexdigest() == name


def test_connections_of_finished_threads_are_closed(store):
    """Streamlit runs each script rerun in a new thread: one connection per thread must not
    accumulate open files."""
    reg = RunRegistry(store)
    jid = reg.submit(spec(1))

    def open_files():
        return len(os.listdir("/proc/self/fd"))

    def rerun():
        assert reg.get(jid).state == "queued"

    for _ in range(5):  # warm up
        t = threading.Thread(target=rerun)
        t.start()
        t.join()
    before = open_files()
    for _ in range(100):
        t = threading.Thread(target=rerun)
        t.start()
        t.join()
    assert open_files() - before < 5
    reg.close()
    assert len(reg._all_connections) == 0


# ------------------------------------------------------------------ stale actions (issue 37 item 12)
def _run_once(reg, jid, outcome):
    c = claim_one(reg)
    assert c.job_id == jid
    reg.finish(jid, c.attempt, outcome, error="boom" if outcome == "failed" else None)
    return reg.get(jid)


def test_a_delete_pressed_against_a_stale_record_is_refused(store):
    """Tab A shows job 1 failed (attempt 1); tab B retries it and it finishes; tab A's Delete, pressed
    against what it showed, deletes nothing -- also when the new attempt failed again (same state)."""
    reg = RunRegistry(store)
    jid = reg.submit(spec(1))
    shown = _run_once(reg, jid, "failed")
    assert (shown.state, shown.attempt) == ("failed", 1)
    reg.retry(jid)
    assert _run_once(reg, jid, "done").attempt == 2
    with pytest.raises(StaleJobError, match=r"job 1 is now done \(attempt 2\), not failed \(attempt 1\) as shown "
                                            r"when Delete was pressed; nothing was done"):
        reg.delete(jid, expect=("failed", 1))
    assert reg.get(jid).state == "done"
    jid2 = reg.submit(spec(2))
    _run_once(reg, jid2, "failed")
    reg.retry(jid2)
    _run_once(reg, jid2, "failed")
    with pytest.raises(StaleJobError, match=r"now failed \(attempt 2\), not failed \(attempt 1\)"):
        reg.delete(jid2, expect=("failed", 1))
    reg.delete(jid, expect=("done", 2))  # the record as it is: deleted
    with pytest.raises(JobNotFound):
        reg.get(jid)
    with pytest.raises(JobNotFound, match="no longer exists; nothing to Delete"):
        reg.delete(jid, expect=("done", 2))


def test_a_cancel_pressed_against_a_stale_record_is_refused(store):
    reg = RunRegistry(store)
    jid = reg.submit(spec(1))
    claim_one(reg)  # queued -> running, same attempt: still the run that was shown
    assert reg.request_cancel(jid, expect=("queued", 1)) == [jid]
    reg.finish(jid, 1, "cancelled")
    reg.retry(jid)  # another tab ran it again
    with pytest.raises(StaleJobError, match=r"job 1 is now queued \(attempt 1\), not running \(attempt 1\) as "
                                            r"shown when Cancel was pressed"):
        reg.request_cancel(jid, expect=("running", 1))
    assert reg.get(jid).state == "queued" and reg.get(jid).cancel_requested is None
    with pytest.raises(RegistryError, match="expect= needs a job_id"):
        reg.request_cancel(group="g", expect=("queued", 2))
