"""The docstring examples of hbnlab.text run and hold."""
import doctest

import pytest

import hbnlab.text.indexing
import hbnlab.text.stopwords


@pytest.mark.parametrize("module", [hbnlab.text.indexing, hbnlab.text.stopwords])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
