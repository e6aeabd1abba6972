"""Helpers shared by the workbench tests."""
from __future__ import annotations

import time


def wait_for_jobs(timeout: float = 120.0, ids=None):
    """Block until every workbench job (or the given ids) is finished; return the records."""
    from hbnlab.app import services

    deadline = time.monotonic() + timeout
    while True:
        recs = [r for r in services.list_jobs() if ids is None or r.id in ids]
        if recs and all(r.state not in ("queued", "running") for r in recs):
            return recs
        if time.monotonic() > deadline:
            raise TimeoutError(f"jobs still active after {timeout}s: {[(r.id, r.state) for r in recs]}")
        time.sleep(0.2)


def no_exceptions(at) -> None:
    assert not at.exception, [e.value for e in at.exception]


def frame_with(at, *columns, index=False):
    """The first st.dataframe whose columns (or index name, with ``index=True``) include these
    names (AppTest does not expose keys of read-only data frames)."""
    for df in at.dataframe:
        value = df.value
        names = [value.index.name] if index else list(value.columns)
        if all(c in names for c in columns):
            return value
    raise AssertionError(f"no data frame with {columns}; have {[list(d.value.columns) for d in at.dataframe]}")
