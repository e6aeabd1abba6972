"""glibc malloc thresholds in processes started by Dask: each check runs in a fresh interpreter,
since the repair acts once per process and the Dask setting is process-wide."""
from __future__ import annotations

import os
import subprocess
import sys


def test_repair_malloc_trim_acts_only_when_the_variable_is_set():
    code = ("import sys; from hbnlab.jobs.malloc import repair_malloc_trim as r; "
            "print(r(), r(), 'dask' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_TRIM_THRESHOLD_"}
    plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    dasky = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                           env={**env, "MALLOC_TRIM_THRESHOLD_": "65536"})
    assert plain.stdout.split() == ["False", "False", "False"], plain.stderr
    assert dasky.stdout.split() == ["True", "False", "False"], dasky.stderr  # once per process


def test_unset_dask_malloc_trim_in_a_fresh_process():
    code = ("import os, dask; from hbnlab.jobs.malloc import unset_dask_malloc_trim as u; u(); "
            "from distributed.nanny import _get_env_variables as g; "
            "print('MALLOC_TRIM_THRESHOLD_' in g('distributed.nanny.pre-spawn-environ'), "
            "'MALLOC_TRIM_THRESHOLD_' in os.environ, dask.config.get('distributed.comm.timeouts.tcp'))")
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"}  # as an earlier nanny leaves it
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.stdout.split() == ["False", "False", "30s"], out.stderr
