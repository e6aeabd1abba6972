"""``python -m hbnlab ...``: the same as ``hbnlab ...``."""
import sys

from hbnlab.cli.main import main

sys.exit(main())
