"""Every docstring example in hbnlab runs and holds: one test per module that has examples (the
modules are found by walking the package, so a new module's examples are run without listing it)."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import hbnlab

#: Modules that run the command line on import (``python -m hbnlab``, ``python -m hbnlab.cli``).
NOT_IMPORTED = {"hbnlab.__main__", "hbnlab.cli.__main__"}


def _modules_with_examples() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(hbnlab.__path__, "hbnlab."):
        if info.name in NOT_IMPORTED:
            continue
        module = importlib.import_module(info.name)
        if doctest.DocTestFinder(exclude_empty=True).find(module) and any(
                t.examples for t in doctest.DocTestFinder().find(module)):
            names.append(info.name)
    return names


MODULES = _modules_with_examples()


def test_the_package_has_examples_to_run():
    assert len(MODULES) >= 30, MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0, f"{name}: {result.failed} of {result.attempted} failed"
