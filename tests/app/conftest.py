"""Fixtures of the workbench tests: a private data home per test and the app's entry point."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """``$HBNLAB_DATA_HOME`` in a temporary directory; the runner made for it is shut down after."""
    home = tmp_path / "home"
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(home))
    yield home
    from hbnlab.app import job_client

    if (home / "runs").exists():
        try:
            job_client.shutdown_jobs(interrupt=True)
        except Exception:  # noqa: BLE001 - a test that never made a runner
            pass


@pytest.fixture
def app(data_home):
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(str(APP), default_timeout=90)


@pytest.fixture
def queue_only(data_home, monkeypatch):
    """Jobs are queued in the registry and never picked up (they stay 'queued')."""
    from hbnlab.app import job_client
    from hbnlab.jobs.registry import RunRegistry

    registry = RunRegistry(data_home / "queue-only")
    monkeypatch.setattr(job_client, "registry", lambda: registry)
    monkeypatch.setattr(job_client, "runner", lambda: registry)
    return job_client
