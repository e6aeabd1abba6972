"""The run registry: jobs, their states, progress, logs, traces, results and artifacts on disk.

A store is a directory::

    <store>/registry.sqlite3     SQLite database in WAL mode (plus -wal / -shm files)
    <store>/artifacts/<sha256>   content-addressed artifact files (models, reports)

Many processes read and write it at once (the app's script threads, worker processes, a
second app process): every operation is one short transaction, writers take the lock up front
(``BEGIN IMMEDIATE``) and wait up to ``timeout`` seconds for it (``busy_timeout``).  Each thread
uses its own connection.

Job life cycle::

    queued --claim--> running --finish--> done | failed | cancelled
      |                  |--(owner process gone / heartbeat stale)--> interrupted
      +--cancel--> cancelled
    failed | cancelled | interrupted --retry--> queued     interrupted --resume--> queued

``retry`` and ``resume`` keep the job id and start a new *attempt* (``attempt`` is incremented
when the job is claimed again); the logs and traces of earlier attempts stay, tagged with their
attempt number.  A result is recorded exactly once: :meth:`RunRegistry.finish` only succeeds
for the job's current attempt while it is running, so a late or duplicate result from a retried
task is ignored.

Schema changes are ordered migration functions in :data:`MIGRATIONS`; ``schema_version`` holds
the number applied.  A database newer than this code is refused rather than misread.

The records and states live in :mod:`hbnlab.jobs.records`, the connections and transactions
in :mod:`hbnlab.jobs.sqlite_store`, the schema in :mod:`hbnlab.jobs.schema`, the artifact files
in :mod:`hbnlab.jobs.artifacts` and the check of a worker process's liveness in
:mod:`hbnlab.jobs.processes`; this module re-exports their public names.
"""
from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from hbnlab.jobs.artifacts import ArtifactStore, is_sha256_hex
from hbnlab.jobs.processes import HOSTNAME, pid_alive, process_start_ticks
from hbnlab.jobs.records import (
    ACTIVE_STATES,
    FINISH_STATES,
    STATES,
    TERMINAL_STATES,
    Beat,
    Claim,
    JobNotFound,
    JobRecord,
    LogEntry,
    RegistryError,
    StaleJobError,
)
from hbnlab.jobs.schema import MIGRATIONS, SCHEMA_VERSION
from hbnlab.jobs.spec import JobSpec, SpecError, canonical_json
from hbnlab.jobs.sqlite_store import SQLiteStore

__all__ = [
    "ACTIVE_STATES",
    "Beat",
    "Claim",
    "DB_NAME",
    "HOSTNAME",
    "JobNotFound",
    "JobRecord",
    "LogEntry",
    "MIGRATIONS",
    "RegistryError",
    "StaleJobError",
    "RunRegistry",
    "SCHEMA_VERSION",
    "STATES",
    "TERMINAL_STATES",
    "pid_alive",
    "process_start_ticks",
]

DB_NAME = "registry.sqlite3"


_JOB_COLUMNS = ("id, spec, state, backend, attempt, created, started, finished, heartbeat, "
                "worker_pid, worker_host, worker, cancel_requested, progress, progress_time, "
                "result, error")


def _loads(text):
    return None if text is None else json.loads(text)


# ---------------------------------------------------------------------------- registry
class RunRegistry(SQLiteStore):
    """Durable store of jobs shared by processes and threads.

    Parameters
    ----------
    path : str or Path
        Store directory (created if missing).  The database is ``path/registry.sqlite3`` and
        artifacts live in ``path/artifacts/``.
    timeout : float, default 10.0
        Seconds a writer waits for the database lock (SQLite ``busy_timeout``).
    stale_after : float, default 30.0
        A running job of another host whose heartbeat is older than this is considered
        orphaned (on this host the worker's process is checked directly).
    recover : bool, default True
        On open, mark running jobs whose worker is gone as ``interrupted`` (:meth:`recover`).
    read_only : bool, default False
        Open an existing registry for reading only (``hbnlab sweep --status`` on a read-only
        file system or someone else's registry): nothing is created, migrated or recovered, and
        every write raises :class:`RegistryError`.

    Raises
    ------
    RegistryError
        When the store cannot be created, opened or migrated (read-only directory, full disk,
        newer schema); the message names the path.

    Examples
    --------
    >>> import tempfile
    >>> from hbnlab.jobs import JobSpec, RunRegistry
    >>> reg = RunRegistry(tempfile.mkdtemp())
    >>> job_id = reg.submit(JobSpec("count", {"n": 2}, group="demo"))
    >>> reg.get(job_id).state
    'queued'
    """

    def __init__(self, path, *, timeout: float = 10.0, stale_after: float = 30.0,
                 recover: bool = True, read_only: bool = False):
        path = Path(path).expanduser().absolute()
        super().__init__(path, path / DB_NAME, timeout, read_only)
        self.artifacts_dir = self.path / "artifacts"
        self.stale_after = float(stale_after)
        self._artifacts = ArtifactStore(self.artifacts_dir)
        if read_only:
            version = self.schema_version()
            if version != SCHEMA_VERSION:
                raise RegistryError(f"run registry {self.db_path} has schema version {version}; this hbnlab "
                                    f"reads version {SCHEMA_VERSION} read-only (open it writable to migrate)")
            return
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            self.artifacts_dir.mkdir(exist_ok=True)
        except OSError as exc:
            raise RegistryError(
                f"cannot create or open the run registry directory {self.path}: "
                f"{exc.strerror or exc}"
            ) from exc
        self._migrate()
        if recover:
            self.recover()

    # ------------------------------------------------------------------ pickling
    def __getstate__(self):
        return {"path": str(self.path), "timeout": self.timeout, "stale_after": self.stale_after,
                "read_only": self.read_only}

    def __setstate__(self, state):
        path = Path(state["path"])
        super().__init__(path, path / DB_NAME, state["timeout"], state.get("read_only", False))
        self.artifacts_dir = self.path / "artifacts"
        self.stale_after = state["stale_after"]
        self._artifacts = ArtifactStore(self.artifacts_dir)

    def __repr__(self):
        return f"RunRegistry({str(self.path)!r})"

    # ------------------------------------------------------------------ submit and read
    def submit(self, spec: JobSpec, *, backend: str = "local") -> int:
        """Queue a job; return its id."""
        return self.submit_many([spec], backend=backend)[0]

    def submit_many(self, specs: Iterable[JobSpec], *, backend: str = "local") -> list[int]:
        """Queue several jobs in one transaction; return their ids in order."""
        if not isinstance(backend, str) or not backend:
            raise RegistryError(f"backend must be a non-empty name, got {backend!r}")
        rows = []
        for spec in specs:
            if not isinstance(spec, JobSpec):
                raise TypeError(f"submit needs JobSpec objects, got {type(spec).__name__}")
            rows.append((spec.group, spec.kind, spec.label, spec.to_json(), backend))
        now = time.time()
        ids = []
        with self._write("submitting jobs") as con:
            for row in rows:
                cur = con.execute(
                    "INSERT INTO jobs (grp, kind, label, spec, backend, state, attempt, created) "
                    "VALUES (?, ?, ?, ?, ?, 'queued', 0, ?)", (*row, now))
                ids.append(int(cur.lastrowid))
        return ids

    def _record(self, row, artifacts) -> JobRecord:
        (jid, spec, state, backend, attempt, created, started, finished, heartbeat, pid, host,
         worker, cancel, progress, progress_time, result, error) = row
        return JobRecord(
            id=jid, spec=JobSpec.from_json(spec), state=state, backend=backend, attempt=attempt,
            created=created, started=started, finished=finished, heartbeat=heartbeat,
            worker_pid=pid, worker_host=host, worker=worker, cancel_requested=cancel,
            progress=_loads(progress), progress_time=progress_time, result=_loads(result),
            error=error, artifacts=artifacts,
        )

    def get(self, job_id: int) -> JobRecord:
        """The current record of a job; :class:`JobNotFound` if there is none."""
        rows = self._read(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = ?", (int(job_id),))
        if not rows:
            raise JobNotFound(f"no job {job_id} in run registry {self.db_path}")
        arts = dict(self._read("SELECT name, sha256 FROM artifacts WHERE job_id = ? ORDER BY name",
                               (int(job_id),)))
        return self._record(rows[0], arts)

    @staticmethod
    def _where(group=None, states=None, ids=None, backend=None):
        clauses, args = [], []
        if group is not None:
            clauses.append("grp = ?")
            args.append(group)
        if states is not None:
            states = [states] if isinstance(states, str) else list(states)
            bad = [s for s in states if s not in STATES]
            if bad:
                raise RegistryError(f"unknown job state(s) {bad}; states are {list(STATES)}")
            clauses.append(f"state IN ({','.join('?' * len(states))})")
            args.extend(states)
        if ids is not None:
            ids = [int(i) for i in ids]
            clauses.append(f"id IN ({','.join('?' * len(ids))})")
            args.extend(ids)
        if backend is not None:
            clauses.append("backend = ?")
            args.append(backend)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", args

    def list(self, group: str | None = None, states=None, *, ids=None,
             backend: str | None = None, limit: int | None = None,
             newest_first: bool = False) -> list[JobRecord]:
        """Jobs ordered by id (oldest first, or newest first), optionally only one group's, in
        some states, with some ids, of a backend; at most ``limit`` of them."""
        where, args = self._where(group, states, ids, backend)
        order = " ORDER BY id DESC" if newest_first else " ORDER BY id"
        if limit is not None:
            if not isinstance(limit, int) or limit < 0:
                raise RegistryError(f"limit must be an int >= 0 or None, got {limit!r}")
            order += f" LIMIT {limit}"
        con = self._con()
        try:
            con.execute("BEGIN")  # one consistent snapshot for both queries
            try:
                rows = con.execute(f"SELECT {_JOB_COLUMNS} FROM jobs{where}{order}",
                                   args).fetchall()
                arts: dict[int, dict] = {}
                wanted = [r[0] for r in rows]
                for start in range(0, len(wanted), 500):
                    chunk = wanted[start:start + 500]
                    for jid, name, digest in con.execute(
                            f"SELECT job_id, name, sha256 FROM artifacts WHERE job_id IN "
                            f"({','.join('?' * len(chunk))})", chunk):
                        arts.setdefault(jid, {})[name] = digest
            finally:
                con.execute("COMMIT")
        except sqlite3.Error as exc:
            raise self._error(exc, "listing jobs") from exc
        return [self._record(r, arts.get(r[0], {})) for r in rows]

    def counts(self, group: str | None = None, *, ids=None) -> dict[str, int]:
        """Number of jobs per state (every state present, zeros included)."""
        where, args = self._where(group, None, ids)
        out = dict.fromkeys(STATES, 0)
        out.update(dict(self._read(f"SELECT state, COUNT(*) FROM jobs{where} GROUP BY state", args)))
        return out

    def logs(self, job_id: int, attempt: int | None = None) -> list[LogEntry]:
        """Log lines of a job (all attempts, or one), oldest first."""
        sql = "SELECT time, attempt, message FROM logs WHERE job_id = ?"
        args: list = [int(job_id)]
        if attempt is not None:
            sql += " AND attempt = ?"
            args.append(int(attempt))
        return [LogEntry(*r) for r in self._read(sql + " ORDER BY id", args)]

    def traces(self, job_id: int, attempt: int | None = None) -> dict[str, list[tuple[int, float]]]:
        """Named series of ``(step, value)`` points of one attempt (default: the current one)."""
        if attempt is None:
            attempt = self.get(job_id).attempt
        out: dict[str, list] = {}
        for series, step, value in self._read(
                "SELECT series, step, value FROM traces WHERE job_id = ? AND attempt = ? "
                "ORDER BY rowid", (int(job_id), int(attempt))):
            out.setdefault(series, []).append((step, value))
        return out

    # ------------------------------------------------------------------ worker side
    def claim(self, backend: str, *, worker_pid: int, worker: str = "", limit: int = 1,
              accept: Callable[[JobSpec], bool] | None = None,
              worker_host: str | None = None) -> list[Claim]:
        """Atomically move up to ``limit`` queued jobs of ``backend`` to running.

        ``worker_pid`` / ``worker_host`` name the process that keeps the job alive (it writes
        heartbeats); ``accept`` can skip jobs this worker cannot run (e.g. missing shared
        inputs).  Jobs whose stored spec cannot be read are failed on the spot.
        """
        host = HOSTNAME if worker_host is None else worker_host
        start_ticks = process_start_ticks(worker_pid) if host == HOSTNAME else None
        now = time.time()
        claims = []
        with self._write("claiming jobs") as con:
            rows = con.execute(
                "SELECT id, spec FROM jobs WHERE state = 'queued' AND backend = ? ORDER BY id "
                "LIMIT ?", (backend, max(limit, 200) if accept else limit)).fetchall()
            for jid, spec_text in rows:
                if len(claims) >= limit:
                    break
                try:
                    spec = JobSpec.from_json(spec_text)
                except SpecError as exc:
                    con.execute("UPDATE jobs SET state='failed', finished=?, error=? WHERE id=?",
                                (now, f"unreadable job spec: {exc}", jid))
                    continue
                if accept is not None and not accept(spec):
                    continue
                con.execute(
                    "UPDATE jobs SET state='running', attempt=attempt+1, started=?, heartbeat=?, "
                    "finished=NULL, worker_pid=?, worker_host=?, worker=?, worker_start=?, "
                    "cancel_requested=NULL, progress=NULL, progress_time=NULL, result=NULL, "
                    "error=NULL WHERE id=? AND state='queued'",
                    (now, now, worker_pid, host, worker, start_ticks, jid))
                attempt = con.execute("SELECT attempt FROM jobs WHERE id=?", (jid,)).fetchone()[0]
                con.execute("INSERT INTO logs (job_id, attempt, time, message) VALUES (?,?,?,?)",
                            (jid, attempt, now, f"attempt {attempt} started on {worker or backend} "
                                                f"(pid {worker_pid} on {host})"))
                claims.append(Claim(jid, attempt, spec))
        return claims

    def _insert_extras(self, con, job_id, attempt, now, logs=(), traces=()):
        if logs:
            con.executemany("INSERT INTO logs (job_id, attempt, time, message) VALUES (?,?,?,?)",
                            [(job_id, attempt, t if t is not None else now, m) for t, m in logs])
        if traces:
            con.executemany("INSERT INTO traces (job_id, attempt, series, step, value) "
                            "VALUES (?,?,?,?,?)",
                            [(job_id, attempt, s, int(k), float(v)) for s, k, v in traces])

    def poll(self, job_id: int, attempt: int) -> Beat:
        """Read-only check: is ``attempt`` still running this job, and is a cancel requested."""
        rows = self._read("SELECT state, attempt, cancel_requested FROM jobs WHERE id=?",
                          (int(job_id),), "polling a job")
        if not rows or rows[0][0] != "running" or rows[0][1] != attempt:
            return Beat(False, True)
        return Beat(True, rows[0][2] is not None)

    def heartbeat(self, job_id: int, attempt: int, *, progress: dict | None = None,
                  logs: Sequence[tuple[float | None, str]] = (),
                  traces: Sequence[tuple[str, int, float]] = (),
                  worker: str | None = None, started: float | None = None) -> Beat:
        """Refresh a running attempt's heartbeat, store progress / log lines / trace points.

        ``worker`` updates the description of where it runs and ``started`` its start time
        (a Dask task starts when a worker picks it up, not when it is dispatched).  Nothing is
        written when the attempt is no longer the job's running attempt; the answer then says
        ``alive=False`` and the worker should stop.
        """
        now = time.time()
        progress_text = None if progress is None else canonical_json(progress, "progress")
        with self._write("recording a heartbeat") as con:
            row = con.execute("SELECT state, attempt, cancel_requested FROM jobs WHERE id=?",
                              (int(job_id),)).fetchone()
            if row is None or row[0] != "running" or row[1] != attempt:
                return Beat(False, True)
            sets, args = ["heartbeat=?"], [now]
            if progress_text is not None:
                sets += ["progress=?", "progress_time=?"]
                args += [progress_text, now]
            if worker is not None:
                sets.append("worker=?")
                args.append(worker)
            if started is not None:
                sets.append("started=?")
                args.append(float(started))
            con.execute(f"UPDATE jobs SET {', '.join(sets)} WHERE id=?", (*args, int(job_id)))
            self._insert_extras(con, int(job_id), attempt, now, logs, traces)
            return Beat(True, row[2] is not None)

    def heartbeat_many(self, attempts: Mapping[int, int]) -> dict[int, Beat]:
        """Heartbeat several running attempts (``{job_id: attempt}``) in one transaction."""
        now = time.time()
        ids = [int(j) for j in attempts]
        if not ids:
            return {}
        rows: dict[int, tuple] = {}
        with self._write("recording heartbeats") as con:
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                for jid, state, attempt, cancel in con.execute(
                        f"SELECT id, state, attempt, cancel_requested FROM jobs WHERE id IN "
                        f"({','.join('?' * len(chunk))})", chunk):
                    rows[jid] = (state, attempt, cancel)
            alive = [j for j in ids if j in rows and rows[j][0] == "running"
                     and rows[j][1] == attempts[j]]
            for start in range(0, len(alive), 500):
                chunk = alive[start:start + 500]
                con.execute(f"UPDATE jobs SET heartbeat=? WHERE id IN ({','.join('?' * len(chunk))})",
                            (now, *chunk))
        live = set(alive)
        return {j: Beat(True, rows[j][2] is not None) if j in live else Beat(False, True)
                for j in ids}

    def queued_count(self, backend: str | None = None) -> int:
        """Number of queued jobs (of one backend)."""
        where, args = self._where(None, ["queued"], backend=backend)
        return int(self._read(f"SELECT COUNT(*) FROM jobs{where}", args)[0][0])

    def cancel_requests(self, ids: Iterable[int]) -> set[int]:
        """The ids among ``ids`` that are running with a cancel request."""
        ids = [int(i) for i in ids]
        if not ids:
            return set()
        rows = self._read(f"SELECT id FROM jobs WHERE state='running' AND cancel_requested IS NOT "
                          f"NULL AND id IN ({','.join('?' * len(ids))})", ids)
        return {r[0] for r in rows}

    def finish(self, job_id: int, attempt: int, state: str, *, result: dict | None = None,
               error: str | None = None, artifacts: Mapping[str, str] | None = None,
               progress: dict | None = None, logs: Sequence[tuple[float | None, str]] = (),
               traces: Sequence[tuple[str, int, float]] = ()) -> bool:
        """Record the outcome of ``attempt``: exactly once, only while it is the running attempt.

        Returns True if recorded, False if the job is no longer running this attempt (already
        finished, cancelled and retried, interrupted, deleted) -- a duplicate or late result.
        """
        if state not in FINISH_STATES:
            raise RegistryError(f"finish state must be one of {FINISH_STATES}, got {state!r}")
        result_text = None if result is None else canonical_json(result, "result")
        progress_text = None if progress is None else canonical_json(progress, "progress")
        artifacts = dict(artifacts or {})
        for name, digest in artifacts.items():
            if not is_sha256_hex(digest):
                raise RegistryError(f"artifact {name!r} must be a sha256 hex digest, got {digest!r}")
        now = time.time()
        with self._write("recording a result") as con:
            cur = con.execute(
                "UPDATE jobs SET state=?, finished=?, heartbeat=?, result=?, error=?, "
                "progress=COALESCE(?, progress), progress_time=CASE WHEN ? IS NULL THEN "
                "progress_time ELSE ? END WHERE id=? AND attempt=? AND state='running'",
                (state, now, now, result_text, error, progress_text, progress_text, now,
                 int(job_id), int(attempt)))
            if cur.rowcount == 0:
                row = con.execute("SELECT state, attempt FROM jobs WHERE id=?",
                                  (int(job_id),)).fetchone()
                if row is not None:
                    self._insert_extras(con, int(job_id), attempt, now, [(
                        None, f"{state} result of attempt {attempt} ignored: the job is {row[0]} "
                              f"(attempt {row[1]})")])
                return False
            con.execute("DELETE FROM artifacts WHERE job_id=?", (int(job_id),))
            con.executemany("INSERT INTO artifacts (job_id, name, sha256) VALUES (?,?,?)",
                            [(int(job_id), n, d) for n, d in sorted(artifacts.items())])
            self._insert_extras(con, int(job_id), attempt, now, logs, traces)
            message = f"{state}: result of attempt {attempt} recorded"
            if error:
                message += f" ({error.splitlines()[0] if error.strip() else error})"
            self._insert_extras(con, int(job_id), attempt, now, [(None, message)])
        return True

    def _guarded(self, job_id, attempt, new_state, reason, doing) -> bool:
        now = time.time()
        with self._write(doing) as con:
            extra = ", finished=?" if new_state != "queued" else ", finished=NULL, started=NULL"
            args = [new_state] + ([now] if new_state != "queued" else [])
            cur = con.execute(
                f"UPDATE jobs SET state=?{extra} WHERE id=? AND attempt=? AND state='running'",
                (*args, int(job_id), int(attempt)))
            if cur.rowcount:
                self._insert_extras(con, int(job_id), attempt, now, [(None, reason)])
            return bool(cur.rowcount)

    def mark_interrupted(self, job_id: int, attempt: int, reason: str) -> bool:
        """running -> interrupted for this attempt (guarded like :meth:`finish`)."""
        return self._guarded(job_id, attempt, "interrupted", f"interrupted: {reason}",
                             "marking a job interrupted")

    def requeue(self, job_id: int, attempt: int, reason: str) -> bool:
        """running -> queued for this attempt, e.g. to retry after its worker died."""
        return self._guarded(job_id, attempt, "queued", f"queued again: {reason}",
                             "requeueing a job")

    # ------------------------------------------------------------------ control
    def _select_ids(self, con, job_id, group, states):
        if job_id is None and group is None:
            where, args = self._where(None, states)
        elif job_id is not None:
            where, args = self._where(group, states, ids=[job_id])
        else:
            where, args = self._where(group, states)
        return [r[0] for r in con.execute(f"SELECT id FROM jobs{where} ORDER BY id", args)]

    def _need_one(self, job_id, group, what):
        if job_id is None and group is None:
            raise RegistryError(f"{what} needs a job_id or a group")
        if job_id is not None:
            self.get(job_id)  # raises JobNotFound

    @staticmethod
    def _check_expected(con, job_id: int, expect, action: str, *, same_state: bool) -> None:
        """:class:`StaleJobError` when job ``job_id`` is no longer ``expect = (state, attempt)``, the
        record a page showed when ``action`` was pressed (inside the action's write transaction, so
        nothing changes between the check and the action).  ``same_state=False`` (a cancel) accepts
        a queued attempt that has started meanwhile: it is still the run that was shown.  (A retry
        queues the job under its old attempt number, which its next claim raises: a finished job
        retried since is ``queued`` again, a changed state.)"""
        if expect is None:
            return
        shown_state, shown_attempt = expect
        row = con.execute("SELECT state, attempt FROM jobs WHERE id=?", (int(job_id),)).fetchone()
        if row is None:
            raise JobNotFound(f"job {job_id} no longer exists; nothing to {action}")
        state, attempt = row
        same = attempt == int(shown_attempt) and (
            state == shown_state or not same_state and (shown_state, state) == ("queued", "running"))
        if not same:
            raise StaleJobError(f"job {job_id} is now {state} (attempt {attempt}), not {shown_state} (attempt "
                                f"{shown_attempt}) as shown when {action} was pressed; nothing was done -- look "
                                "at it again")

    def request_cancel(self, job_id: int | None = None, *, group: str | None = None,
                       expect: tuple[str, int] | None = None) -> list[int]:
        """Cancel one job or every active job of a group.

        Queued jobs become ``cancelled`` at once; running jobs get a cancel request that their
        worker sees within a second (``ctx.should_stop()``).  Finished jobs are left alone.
        ``expect = (state, attempt)``, the record the cancel was pressed against (one job only):
        :class:`StaleJobError` and nothing cancelled when the job has changed since, other than a
        queued attempt starting (it finished, or another tab retried it).  Returns the ids affected.
        """
        self._need_one(job_id, group, "request_cancel")
        if expect is not None and job_id is None:
            raise RegistryError("request_cancel: expect= needs a job_id")
        now = time.time()
        with self._write("requesting a cancel") as con:
            if job_id is not None:
                self._check_expected(con, job_id, expect, "Cancel", same_state=False)
            queued = self._select_ids(con, job_id, group, ["queued"])
            running = self._select_ids(con, job_id, group, ["running"])
            for jid in queued:
                con.execute("UPDATE jobs SET state='cancelled', finished=?, "
                            "error='cancelled before it started' WHERE id=?", (now, jid))
            for jid in running:
                con.execute("UPDATE jobs SET cancel_requested=COALESCE(cancel_requested, ?) "
                            "WHERE id=?", (now, jid))
            for jid in queued + running:
                attempt = con.execute("SELECT attempt FROM jobs WHERE id=?", (jid,)).fetchone()[0]
                self._insert_extras(con, jid, attempt, now, [(None, "cancel requested")])
        return sorted(queued + running)

    def _requeue_terminal(self, con, jid, now, why, backend=None):
        row = con.execute("SELECT state, attempt, error FROM jobs WHERE id=?", (jid,)).fetchone()
        con.execute(
            "UPDATE jobs SET state='queued', started=NULL, finished=NULL, heartbeat=NULL, "
            "worker_pid=NULL, worker_host=NULL, worker=NULL, cancel_requested=NULL, progress=NULL, "
            "progress_time=NULL, result=NULL, error=NULL, backend=COALESCE(?, backend) WHERE id=?",
            (backend, jid))
        con.execute("DELETE FROM artifacts WHERE job_id=?", (jid,))
        detail = f": {row[2].splitlines()[0]}" if row[2] else ""
        self._insert_extras(con, jid, row[1], now,
                            [(None, f"queued again ({why} after attempt {row[1]}, {row[0]}{detail})")])

    def retry(self, job_id: int, *, backend: str | None = None) -> int:
        """Queue a failed, cancelled or interrupted job again under the same id; the next run
        is attempt ``attempt + 1``.  ``backend`` moves it to another runner kind (default: the
        one it was submitted to).  Returns ``job_id``."""
        now = time.time()
        with self._write("retrying a job") as con:
            row = con.execute("SELECT state FROM jobs WHERE id=?", (int(job_id),)).fetchone()
            if row is None:
                raise JobNotFound(f"no job {job_id} in run registry {self.db_path}")
            if row[0] not in ("failed", "cancelled", "interrupted"):
                raise RegistryError(f"job {job_id} is {row[0]}; only failed, cancelled or "
                                    "interrupted jobs can be retried")
            self._requeue_terminal(con, int(job_id), now, "retry", backend)
        return int(job_id)

    def resume(self, job_id: int | None = None, *, group: str | None = None,
               backend: str | None = None) -> list[int]:
        """Queue interrupted jobs again (one, a group's, or all) under their ids; returns the
        ids.  ``backend`` as in :meth:`retry`."""
        if job_id is not None:
            self.get(job_id)
        now = time.time()
        with self._write("resuming jobs") as con:
            ids = self._select_ids(con, job_id, group, ["interrupted"])
            for jid in ids:
                self._requeue_terminal(con, jid, now, "resume", backend)
        return ids

    def recover(self, stale_after: float | None = None) -> list[int]:
        """Mark running jobs whose worker is gone as ``interrupted``; return their ids.

        * worker on this host: orphaned when its process no longer exists (or is a zombie), or
          its pid now belongs to a process started later (pid reuse).  A live worker keeps its
          job even with an old heartbeat (e.g. after the machine slept).
        * worker on another host (or of unknown pid): orphaned when its heartbeat is older
          than ``stale_after`` seconds.
        """
        stale_after = self.stale_after if stale_after is None else stale_after
        now = time.time()
        rows = self._read("SELECT id, attempt, worker_pid, worker_host, worker_start, heartbeat "
                          "FROM jobs WHERE state='running'", (), "recovering jobs")
        orphans = []
        for jid, attempt, pid, host, start, beat in rows:
            if host == HOSTNAME and pid is not None:
                if not pid_alive(pid):
                    orphans.append((jid, attempt, f"worker process {pid} on {host} is gone"))
                elif start is not None and process_start_ticks(pid) not in (None, start):
                    orphans.append((jid, attempt, f"worker process {pid} on {host} is gone "
                                                  "(its pid now belongs to another process)"))
            elif beat is None or now - beat > stale_after:
                age = "never" if beat is None else f"{now - beat:.0f} s ago"
                orphans.append((jid, attempt, f"last heartbeat {age} (worker pid {pid} on {host})"))
        done = []
        for jid, attempt, reason in orphans:
            if self.mark_interrupted(jid, attempt, reason):
                done.append(jid)
        return done

    def delete(self, job_id: int, *, expect: tuple[str, int] | None = None) -> None:
        """Remove a job that is not running, with its logs, traces and artifact records
        (artifact files are removed by :meth:`prune_artifacts`).  ``expect = (state, attempt)``, the
        record the delete was pressed against: :class:`StaleJobError` and nothing deleted when the
        job has changed since (retried, resumed, finished again -- by another tab or process)."""
        with self._write("deleting a job") as con:
            self._check_expected(con, job_id, expect, "Delete", same_state=True)
            row = con.execute("SELECT state FROM jobs WHERE id=?", (int(job_id),)).fetchone()
            if row is None:
                raise JobNotFound(f"no job {job_id} in run registry {self.db_path}")
            if row[0] == "running":
                raise RegistryError(f"job {job_id} is running; cancel it before deleting it")
            con.execute("DELETE FROM jobs WHERE id=?", (int(job_id),))

    # ------------------------------------------------------------------ artifacts
    def put_artifact(self, data: bytes) -> str:
        """Write ``data`` to ``artifacts/<sha256>`` atomically (temp file, fsync, rename).

        Returns the sha256 hex digest.  An existing file with that name already holds the
        same bytes and is kept.  On an OS error (full disk, read-only) nothing is left behind
        and :class:`RegistryError` names the directory.
        """
        return self._artifacts.put(data)

    def artifact_path(self, digest: str) -> Path:
        """Path of the artifact file with this sha256 digest; :class:`RegistryError` if absent."""
        return self._artifacts.path(digest)

    def read_artifact(self, digest: str, *, verify: bool = True) -> bytes:
        """The bytes of an artifact, checked against its hash."""
        return self._artifacts.read(digest, verify=verify)

    def prune_artifacts(self) -> list[str]:
        """Delete artifact files no job references (and stray temporary files).

        Refused while any job is running, since a running task may have written a file it has
        not yet recorded.  Returns the names removed.
        """
        with self._write("pruning artifacts") as con:
            running = con.execute("SELECT COUNT(*) FROM jobs WHERE state='running'").fetchone()[0]
            if running:
                raise RegistryError(f"{running} job(s) are running; prune artifacts when none are")
            keep = {r[0] for r in con.execute("SELECT DISTINCT sha256 FROM artifacts")}
            removed = self._artifacts.remove_except(keep)
        return sorted(removed)
