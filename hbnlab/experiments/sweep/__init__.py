"""``hbnlab sweep``: HBN classifiers for every Reuters ModApte category, tuned and tested as jobs.

A sweep is the thesis's tuning protocol (Karčiauskas 2002, sec. 4.2.1) run on many categories
at once as independent background jobs (:mod:`hbnlab.jobs`), on the local process pool or on
Dask: validation cells over a grid of clusterings x B x alpha (x terms x the hidden nodes'
number of states), a choice of configuration per category and clustering, test cells with the
chosen configurations, and a table beside the published values.

* :mod:`~hbnlab.experiments.sweep.config` -- :class:`SweepConfig`, the thesis's grids,
  :class:`SweepError`;
* :mod:`~hbnlab.experiments.sweep.data` -- :class:`SweepData` and :func:`prepare_sweep_data`;
* :mod:`~hbnlab.experiments.sweep.cells` -- :class:`Cell`, planning, seeds and the
  ``"sweep_cell"`` task;
* :mod:`~hbnlab.experiments.sweep.run` -- :func:`run_sweep`, :func:`choose_configs`,
  :func:`cancel_sweep`, :func:`sweep_status`, :func:`sweep_lock`;
* :mod:`~hbnlab.experiments.sweep.tables` -- :class:`SweepResult`, :func:`sweep_table` and the
  files a sweep writes.

Job specs of sweep cells name this package as their task module: importing it registers the
``"sweep_cell"`` task, which is how a worker process finds it.
"""
from hbnlab.experiments.sweep.cells import (
    CELL_KIND,
    TASK_MODULE,
    Cell,
    cell_seed,
    plan_test_cells,
    plan_validation_cells,
    sweep_cell_task,
)
from hbnlab.experiments.sweep.config import (
    CHOOSE_MODES,
    CLUSTERINGS,
    STAGES,
    SWEEP_FORMAT_VERSION,
    THESIS_ALPHA_GRIDS,
    THESIS_B_GRID,
    SweepConfig,
    SweepError,
)
from hbnlab.experiments.sweep.data import SweepData, prepare_sweep_data, resolve_categories, sweep_categories
from hbnlab.experiments.sweep.run import (
    CONTROL_BACKEND,
    CONTROL_KIND,
    cancel_sweep,
    choose_configs,
    run_sweep,
    sweep_lock,
    sweep_status,
)
from hbnlab.experiments.sweep.tables import SweepResult, cells_csv, format_table_markdown, sweep_table, test_scores_csv

__all__ = [
    "CLUSTERINGS", "THESIS_ALPHA_GRIDS", "THESIS_B_GRID", "CHOOSE_MODES", "STAGES", "SWEEP_FORMAT_VERSION",
    "TASK_MODULE", "CELL_KIND", "CONTROL_KIND", "CONTROL_BACKEND",
    "SweepConfig", "SweepData", "SweepError", "SweepResult", "Cell",
    "prepare_sweep_data", "resolve_categories", "sweep_categories", "plan_validation_cells", "plan_test_cells",
    "choose_configs", "run_sweep", "cancel_sweep", "sweep_status", "sweep_lock", "sweep_table", "format_table_markdown",
    "cells_csv", "test_scores_csv", "cell_seed", "sweep_cell_task",
]
