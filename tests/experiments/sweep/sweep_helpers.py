"""Values shared by the sweep tests (imported as a top-level module by pytest's rootdir path,
like ``tests/jobs/jobs_helpers.py``: a test module cannot import ``conftest`` by name when
pytest has loaded the conftest of another test directory under that name)."""
from __future__ import annotations

#: the tiny grid every runner test uses: 3 categories x (2 clusterings x 2 B x 2 alpha) = 24
#: validation cells, 3 x (2 + NB) = 9 test cells
TINY = dict(categories="all", clusterings=("avg", "dep"), B=(2, 3), alpha={"avg": (0.0, 0.05), "dep": (0.0, 100.0)},
            n_features=(6,), n_restarts=3, baselines=("NB",), random_state=0)
