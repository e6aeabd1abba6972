"""Helpers shared by the job tests (imported as a top-level module by pytest's rootdir path)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
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


def read_lines_until(proc: subprocess.Popen, count: int, *, prefix: str, what: str, timeout: float = 300.0) -> list:
    """The first ``count`` lines starting with ``prefix`` of ``proc``'s stdout (a text pipe), read as the
    child writes them: a test that waits for the child to say it has done something, not for an amount of
    time.  ``timeout`` is only a failsafe (a child that hangs or dies); the error names ``what`` and the
    child's stderr so far."""
    import queue
    import threading

    lines: queue.Queue = queue.Queue()

    def relay():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)  # the child closed its stdout (it exited)

    threading.Thread(target=relay, daemon=True).start()
    seen = []
    deadline = time.monotonic() + timeout
    while len(seen) < count:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError(f"{what}: {len(seen)} of {count} {prefix!r} lines after {timeout:g} s") from None
        if line is None:
            raise AssertionError(f"{what}: the child exited after {len(seen)} of {count} {prefix!r} lines "
                                 f"(rc {proc.wait()}): {proc.stderr.read()[-2000:]}")
        if line.startswith(prefix):
            seen.append(line.rstrip("\n"))
    return seen


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
