"""Fixtures for the corpus tests."""
from __future__ import annotations

from pathlib import Path

import pytest
from corpus_fakes import fake_reuters_records, write_fake_reuters


@pytest.fixture
def fake_reuters_dir(tmp_path) -> Path:
    """The 22 files of a hand-made Reuters-21578 look-alike (see corpus_fakes.FAKE_RECORDS)."""
    return write_fake_reuters(tmp_path / "reuters", fake_reuters_records())
