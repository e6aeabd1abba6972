"""The SQLite database of a run registry, shared by processes and threads.

Many processes read and write it at once (the app's script threads, worker processes, a second
app process): every operation is one short transaction, writers take the lock up front
(``BEGIN IMMEDIATE``) and wait up to ``timeout`` seconds for it (``busy_timeout``).  Each thread
uses its own connection, in WAL mode.  SQLite errors become
:class:`~hbnlab.jobs.records.RegistryError` naming the database, what was being done and, where
the message says, why (read-only directory, full disk, a lock held too long).  On open the
schema is brought up to date by the migrations of :mod:`hbnlab.jobs.schema`.
"""
from __future__ import annotations

import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from pathlib import Path

from hbnlab.jobs.records import RegistryError
from hbnlab.jobs.schema import MIGRATIONS, SCHEMA_VERSION

__all__ = ["SQLiteStore"]


class _Connection(sqlite3.Connection):
    """A connection that can be weakly referenced (for :meth:`SQLiteStore.close`)."""


class _ThreadConnection:
    """Holds one thread's connection in a ``threading.local`` and closes it when the thread
    ends.  Streamlit runs every script rerun in a new thread; a connection is part of a
    reference cycle (its statement cache), so without this it would stay open until a garbage
    collection, and file handles would pile up."""

    __slots__ = ("con", "pid")

    def __init__(self, con: sqlite3.Connection):
        self.con = con
        self.pid = os.getpid()

    def __del__(self):
        try:
            self.con.close()
        except Exception:
            pass


class SQLiteStore:
    """Connections, transactions and the schema of one SQLite database file.

    :class:`~hbnlab.jobs.registry.RunRegistry` builds on it: ``path`` is the store directory
    (named in error hints), ``db_path`` the database file in it.  Nothing is opened until the
    first query or :meth:`_migrate`.
    """

    def __init__(self, path: Path, db_path: Path, timeout: float, read_only: bool = False):
        self.path = path
        self.db_path = db_path
        self.timeout = float(timeout)
        self.read_only = bool(read_only)
        self._init_connections()

    def _init_connections(self) -> None:
        """No connection yet in any thread (a new or an unpickled store)."""
        self._local = threading.local()
        self._all_connections: weakref.WeakSet[_Connection] = weakref.WeakSet()
        self._conn_lock = threading.Lock()

    def _error(self, exc: BaseException, doing: str = "") -> RegistryError:
        text = str(exc)
        low = text.lower()
        what = f" while {doing}" if doing else ""
        if "readonly" in low or "read-only" in low or "unable to open" in low or "permission" in low:
            hint = f"; check that {self.path} is writable"
        elif "full" in low:
            hint = f"; the disk holding {self.path} is full"
        elif "locked" in low or "busy" in low:
            hint = f"; another process held the lock for more than {self.timeout:g} s"
        else:
            hint = ""
        return RegistryError(f"run registry {self.db_path}{what}: {text}{hint}")

    def _connect_read_only(self) -> sqlite3.Connection:
        """``mode=ro``: reads the WAL too, but needs its ``-shm`` file to exist or be creatable.
        On a read-only file system without it, ``immutable=1`` reads the main file only."""
        if not self.db_path.is_file():
            raise RegistryError(f"run registry {self.db_path} does not exist")
        uri = self.db_path.absolute().as_uri()
        con = None
        for query in ("mode=ro", "immutable=1"):
            try:
                con = sqlite3.connect(f"{uri}?{query}", uri=True, timeout=self.timeout, isolation_level=None,
                                      check_same_thread=False, factory=_Connection)
                con.execute("SELECT count(*) FROM sqlite_master").fetchone()
                break
            except sqlite3.Error as exc:
                if con is not None:
                    con.close()
                    con = None
                if query == "immutable=1":
                    raise self._error(exc, "opening read-only") from exc
        con.execute("PRAGMA query_only = ON")
        with self._conn_lock:
            self._all_connections.add(con)
        return con

    def _connect(self) -> sqlite3.Connection:
        if self.read_only:
            return self._connect_read_only()
        con = None
        try:
            con = sqlite3.connect(str(self.db_path), timeout=self.timeout, isolation_level=None,
                                  check_same_thread=False, factory=_Connection)
            con.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            mode = con.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise sqlite3.OperationalError(f"cannot switch to WAL mode (got {mode!r})")
            con.execute("PRAGMA synchronous = NORMAL")
            con.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            if con is not None:
                con.close()
            raise self._error(exc, "opening") from exc
        with self._conn_lock:
            self._all_connections.add(con)
        return con

    def _con(self) -> sqlite3.Connection:
        holder = getattr(self._local, "holder", None)
        if holder is None or holder.pid != os.getpid():
            holder = self._local.holder = _ThreadConnection(self._connect())
        return holder.con

    @contextmanager
    def _write(self, doing: str):
        """One short write transaction; SQLite errors become :class:`RegistryError`."""
        con = self._con()
        try:
            con.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._error(exc, doing) from exc
        try:
            yield con
            con.execute("COMMIT")
        except BaseException as exc:
            try:
                con.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            if isinstance(exc, sqlite3.Error):
                raise self._error(exc, doing) from exc
            raise

    def _read(self, sql: str, args: Sequence = (), doing: str = "reading") -> list[tuple]:
        try:
            return self._con().execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise self._error(exc, doing) from exc

    def close(self) -> None:
        """Close every connection this object opened (in any thread)."""
        with self._conn_lock:
            cons, self._all_connections = list(self._all_connections), weakref.WeakSet()
        for con in cons:
            try:
                con.close()
            except sqlite3.Error:
                pass
        self._local = threading.local()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ schema
    def schema_version(self) -> int:
        rows = self._read("SELECT name FROM sqlite_master WHERE type='table' AND name='schema_version'")
        if not rows:
            return 0
        return int(self._read("SELECT version FROM schema_version")[0][0])

    def _migrate(self, migrations: Sequence[Callable] = MIGRATIONS) -> None:
        target = len(migrations)
        with self._write("migrating the schema") as con:
            has = con.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name='schema_version'"
            ).fetchall()
            if not has:
                con.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
                con.execute("INSERT INTO schema_version (version) VALUES (0)")
            version = int(con.execute("SELECT version FROM schema_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise RegistryError(
                    f"run registry {self.db_path} has schema version {version}, newer than this "
                    f"hbnlab supports ({SCHEMA_VERSION}); upgrade hbnlab"
                )
            for number in range(version + 1, target + 1):
                migrations[number - 1](con)
                con.execute("UPDATE schema_version SET version = ?", (number,))

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` ("ok" when the database is sound)."""
        return "; ".join(r[0] for r in self._read("PRAGMA integrity_check"))
