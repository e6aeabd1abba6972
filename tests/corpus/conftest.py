"""Fixtures for the corpus tests."""
from __future__ import annotations

from pathlib import Path

import pytest
from corpus_fakes import fake_reuters_records, write_fake_reuters


@pytest.fixture
def allow_modified_reuters(monkeypatch):
    """Let the Reuters reader accept copies that are not Distribution 1.0 (with a warning)."""
    monkeypatch.setenv("HBNLAB_ALLOW_MODIFIED_REUTERS", "1")


@pytest.fixture
def fake_reuters_dir(tmp_path, allow_modified_reuters) -> Path:
    """The 22 files of a hand-made Reuters-21578 look-alike (see corpus_fakes.FAKE_RECORDS), and the
    switch that lets the reader accept it."""
    return write_fake_reuters(tmp_path / "reuters", fake_reuters_records())
