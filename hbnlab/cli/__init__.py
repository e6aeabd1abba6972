"""The ``hbnlab`` command line: one module per command group, each parses its options, calls the
library and prints.  :func:`main` is the entry point of ``hbnlab``, ``python -m hbnlab`` and
``python -m hbnlab.cli``."""
from hbnlab.cli.common import CLIError
from hbnlab.cli.main import build_parser, main

__all__ = ["CLIError", "build_parser", "main"]
