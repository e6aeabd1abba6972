"""The examples in the export modules' docstrings run."""
import doctest

import pytest

import hbnlab.export.bn_formats
import hbnlab.export.escape
import hbnlab.export.model_io.container
import hbnlab.export.report


@pytest.mark.parametrize("module", [hbnlab.export.model_io.container, hbnlab.export.bn_formats, hbnlab.export.report,
                                    hbnlab.export.escape])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
