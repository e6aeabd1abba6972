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


def shutdown_within(runner, *, timeout: float = 0.5, deadline: float = 10.0) -> list:
    """Run ``runner.shutdown(wait=True, timeout=timeout)`` in a thread; assert it returned within
    ``deadline`` seconds; the exceptions it raised (none expected) are returned."""
    import threading

    errors = []

    def stop():
        try:
            runner.shutdown(wait=True, timeout=timeout)
        except BaseException as exc:  # noqa: BLE001 - returned to the test
            errors.append(exc)

    th = threading.Thread(target=stop, daemon=True)
    th.start()
    th.join(deadline)
    assert not th.is_alive(), f"shutdown(wait=True, timeout={timeout}) still running after {deadline} s"
    return errors
