"""Where a results file came from: the commit, the command line, the time and the hbnlab version.

Every script in ``benchmarks/`` that writes a results file records :func:`provenance` in it: a
JSON document under the key ``"provenance"`` (:func:`stamp`), a Markdown or text file as its first
line (:func:`provenance_line`); each prints it first (:func:`start_run`), since its output is
often the results file.  A figure in the README can then be traced to the code and the
command that produced it, and a file relabelled by hand is seen to be one.

The commit is that of the checkout holding this package (``git rev-parse HEAD``), with
``-dirty`` when tracked files differ from it (``git status --porcelain --untracked-files=no``):
the numbers came from code that no commit holds.  Outside a git checkout (an installed wheel)
it is None.

A run that scores a test set appends a row to a committed log (:func:`log_test_set_run`;
``benchmarks/results/TEST_SET_RUNS.md``), so every look at the test documents is on record.

A script that resumes a results file (appends rows to an earlier run's) keeps the earlier runs'
provenance under ``provenance["earlier"]``, oldest first (:func:`stamp` with ``earlier=``).

>>> p = provenance(["benchmarks/x.py", "--stage", "test"], now=_dt.datetime(2026, 11, 28, 12, tzinfo=_dt.timezone.utc))
>>> p["command"], p["time"]
('benchmarks/x.py --stage test', '2026-11-28T12:00:00+00:00')
>>> stamp([{"micro": 87.7}], p)["rows"]
[{'micro': 87.7}]
"""
from __future__ import annotations

import datetime as _dt
import json
import shlex
import subprocess
import sys
from pathlib import Path

import hbnlab

__all__ = ["provenance", "provenance_line", "start_run", "stamp", "rows_of", "git_commit", "log_test_set_run"]

#: the checkout that holds this package (its parent folder), asked for the commit
_CHECKOUT = Path(hbnlab.__file__).resolve().parents[1]
#: seconds a git call may take before the commit is reported unknown
GIT_TIMEOUT = 20.0


def git_commit(repo: Path | str | None = None) -> str | None:
    """``HEAD``'s sha of the checkout ``repo`` (default: the one holding hbnlab), ``+ "-dirty"``
    when tracked files have uncommitted changes; None outside a git checkout or without git."""
    cwd = Path(repo) if repo is not None else _CHECKOUT

    def git(*args) -> str | None:
        try:
            out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return out.stdout if out.returncode == 0 else None

    sha = git("rev-parse", "HEAD")
    if not sha:
        return None
    status = git("status", "--porcelain", "--untracked-files=no")
    return sha.strip() + ("-dirty" if status is None or status.strip() else "")


def provenance(argv=None, *, now: _dt.datetime | None = None, repo=None) -> dict:
    """``{"commit", "command", "time", "hbnlab_version"}`` of this run: :func:`git_commit`, the
    command line (``shlex.join(sys.argv)`` unless ``argv`` is given), the UTC time in ISO 8601 and
    ``hbnlab.__version__``."""
    now = now or _dt.datetime.now(_dt.timezone.utc)
    return {"commit": git_commit(repo), "command": shlex.join(sys.argv if argv is None else argv),
            "time": now.astimezone(_dt.timezone.utc).isoformat(timespec="seconds"),
            "hbnlab_version": hbnlab.__version__}


def provenance_line(prov: dict | None = None) -> str:
    """The provenance as the first line of a Markdown or text results file.

    >>> provenance_line({"commit": "abc", "command": "benchmarks/x.py", "time": "T", "hbnlab_version": "0.6.0"})
    'provenance: commit abc, hbnlab 0.6.0, T, command: benchmarks/x.py'
    """
    p = provenance() if prov is None else prov
    return (f"provenance: commit {p['commit'] or 'unknown (not a git checkout)'}, hbnlab {p['hbnlab_version']}, "
            f"{p['time']}, command: {p['command']}")


def start_run(argv=None, *, json_line: bool = False) -> dict:
    """This run's :func:`provenance`, printed first: a benchmark's output redirected to a results
    file then starts with it (as :func:`provenance_line`, or ``{"provenance": ...}`` with
    ``json_line`` for an output of JSON lines)."""
    prov = provenance(argv)
    print(json.dumps({"provenance": prov}) if json_line else provenance_line(prov), flush=True)
    return prov


def stamp(doc, prov: dict | None = None, *, earlier=None) -> dict:
    """``doc`` with this run's provenance under ``"provenance"``: a dict gains the key, a list of
    rows becomes ``{"provenance": ..., "rows": rows}``.  ``earlier``: the results this run resumed
    (a document or its provenance), whose provenance is kept under ``provenance["earlier"]``."""
    p = dict(provenance() if prov is None else prov)
    if earlier is not None:
        before = earlier.get("provenance") if isinstance(earlier, dict) and "provenance" in earlier else earlier
        if isinstance(before, dict) and "commit" in before:
            p["earlier"] = [*before.get("earlier", []), {k: v for k, v in before.items() if k != "earlier"}]
    body = {"rows": doc} if isinstance(doc, list) else {k: v for k, v in doc.items() if k != "provenance"}
    return {"provenance": p, **body}


def rows_of(doc) -> list:
    """The rows of a results file written by :func:`stamp` (``doc["rows"]``) or before it (a
    plain list)."""
    return doc if isinstance(doc, list) else doc["rows"]


def log_test_set_run(log: Path | str, results: str, prov: dict | None = None) -> None:
    """Append this test-set run to the Markdown table that ends ``log``: its date, commit, command
    and results file (``|`` in the command escaped so the row stays one row)."""
    p = provenance() if prov is None else prov
    command = p["command"].replace("|", "\\|")
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(f"| {p['time'][:10]} | {p['commit'] or 'unknown'} | `{command}` | {results} |\n")
