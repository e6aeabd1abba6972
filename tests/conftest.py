"""Shared fixtures.  Tests that need Reuters-21578 read ``HBNLAB_REUTERS_DIR`` and FAIL (not skip)
when it is missing, so CI can never silently drop them."""
from __future__ import annotations

import os
from pathlib import Path

import pytest


def reuters_dir() -> Path:
    value = os.environ.get("HBNLAB_REUTERS_DIR")
    if not value:
        pytest.fail("HBNLAB_REUTERS_DIR is not set; it must point at Reuters-21578 Distribution 1.0")
    path = Path(value)
    if not (path / "reut2-000.sgm").is_file():
        pytest.fail(f"HBNLAB_REUTERS_DIR={value} does not hold reut2-000.sgm")
    return path


@pytest.fixture(scope="session")
def reuters_path() -> Path:
    return reuters_dir()


@pytest.fixture(scope="session")
def reuters_corpus(reuters_path):
    from hbnlab.corpus import load_reuters21578

    return load_reuters21578(reuters_path)


@pytest.fixture
def folder_corpus(tmp_path):
    """A small generated folder-per-class corpus (``tests/corpus_fixtures.py``): 4 classes x 8
    documents, train/ and test/ folders, files in utf-8, latin-1, cp1252 and utf-16."""
    from corpus_fixtures import make_folder_corpus

    return make_folder_corpus(tmp_path / "fixture", n_classes=4, docs_per_class=8)
