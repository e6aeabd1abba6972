"""The docstring examples of hbnlab.evaluation run and hold."""
import doctest

import hbnlab.evaluation.measures


def test_doctests():
    result = doctest.testmod(hbnlab.evaluation.measures)
    assert result.attempted > 0 and result.failed == 0
