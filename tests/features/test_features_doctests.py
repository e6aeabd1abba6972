"""The docstring examples of hbnlab.features run and hold."""
import doctest

import pytest

import hbnlab.features.scoring
import hbnlab.features.selection


@pytest.mark.parametrize("module", [hbnlab.features.scoring, hbnlab.features.selection])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
