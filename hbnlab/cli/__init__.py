"""The ``hbnlab`` command line: one module per command group, each parses its options, calls the
library and prints.  :func:`main` is the entry point of ``hbnlab``, ``python -m hbnlab`` and
``python -m hbnlab.cli``.

The command modules import the library inside the command functions, so that building the parser
(``hbnlab --help``, a mistyped option) does not load scikit-learn, pandas and plotly: 0.25 s instead
of 1.4 s.  Those imports point down the layers like any other (``tests/test_architecture.py``)."""
from hbnlab.cli.common import CLIError
from hbnlab.cli.main import build_parser, main

__all__ = ["CLIError", "build_parser", "main"]
