"""Helpers shared by the job tests (imported as a top-level module by pytest's rootdir path)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from hbnlab.jobs.testing import wait_until  # noqa: F401 - the tests import it from here

ROOT = Path(__file__).resolve().parents[2]


def child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def run_python(code: str, *args, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter; return the completed process (text output)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=child_env(),
                          **kwargs)


def start_python(code: str, *args, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=child_env(), **kwargs)


