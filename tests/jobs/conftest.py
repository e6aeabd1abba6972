"""Fixtures for the job tests."""
from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def store(tmp_path) -> Path:
    return tmp_path / "runs"
