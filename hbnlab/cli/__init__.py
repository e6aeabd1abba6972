"""The ``hbnlab`` command line: one module per command group, each parses its options, calls the
library and prints.  :func:`main` is the entry point of ``hbnlab``, ``python -m hbnlab`` and
``python -m hbnlab.cli``.

The command modules import the library inside the command functions, and options whose choices come
from the library are added only when their command is used (:class:`~hbnlab.cli.main.CommandParser`),
so that building the parser (``hbnlab --help``, a mistyped option) does not load scikit-learn,
pandas, scipy.stats and plotly (``tests/cli/test_cli_light_help.py``).  Those imports point down the
layers like any other (``tests/test_architecture.py``)."""
from hbnlab.cli.common import CLIError
from hbnlab.cli.main import build_parser, main

__all__ = ["CLIError", "build_parser", "main"]
