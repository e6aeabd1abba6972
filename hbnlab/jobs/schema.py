"""The run registry's SQLite schema as ordered migrations.

Migration ``i`` (1-based) brings the schema to version ``i``; the table ``schema_version`` holds
the number applied.  :class:`hbnlab.jobs.registry.RunRegistry` applies the missing ones when it
opens a store and refuses a database newer than :data:`SCHEMA_VERSION`.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]


def _migration_1(con: sqlite3.Connection) -> None:
    """Jobs and their logs."""
    con.execute(
        """CREATE TABLE jobs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            grp TEXT NOT NULL,
            kind TEXT NOT NULL,
            label TEXT NOT NULL,
            spec TEXT NOT NULL,
            backend TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN
                ('queued','running','done','failed','cancelled','interrupted')),
            attempt INTEGER NOT NULL DEFAULT 0,
            created REAL NOT NULL,
            started REAL,
            finished REAL,
            heartbeat REAL,
            worker_pid INTEGER,
            worker_host TEXT,
            worker TEXT,
            cancel_requested REAL,
            progress TEXT,
            result TEXT,
            error TEXT
        )"""
    )
    con.execute("CREATE INDEX jobs_grp_state ON jobs (grp, state)")
    con.execute("CREATE INDEX jobs_state_backend ON jobs (state, backend)")
    con.execute(
        """CREATE TABLE logs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
            attempt INTEGER NOT NULL,
            time REAL NOT NULL,
            message TEXT NOT NULL
        )"""
    )
    con.execute("CREATE INDEX logs_job ON logs (job_id, id)")


def _migration_2(con: sqlite3.Connection) -> None:
    """Artifacts of a job's recorded attempt, metric traces, progress timestamps."""
    con.execute(
        """CREATE TABLE artifacts (
            job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            PRIMARY KEY (job_id, name)
        )"""
    )
    con.execute("CREATE INDEX artifacts_sha ON artifacts (sha256)")
    con.execute(
        """CREATE TABLE traces (
            job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
            attempt INTEGER NOT NULL,
            series TEXT NOT NULL,
            step INTEGER NOT NULL,
            value REAL NOT NULL
        )"""
    )
    con.execute("CREATE INDEX traces_job ON traces (job_id, attempt, series)")
    con.execute("ALTER TABLE jobs ADD COLUMN progress_time REAL")


def _migration_3(con: sqlite3.Connection) -> None:
    """The worker process's start time (clock ticks since boot), so a reused pid is told apart
    from the process that claimed the job."""
    con.execute("ALTER TABLE jobs ADD COLUMN worker_start INTEGER")


#: Ordered schema migrations; migration ``i`` (1-based) brings the schema to version ``i``.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _migration_1, _migration_2, _migration_3)
SCHEMA_VERSION = len(MIGRATIONS)
