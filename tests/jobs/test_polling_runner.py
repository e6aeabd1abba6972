"""The runner thread's pass is written once (hbnlab.jobs.runner.PollingRunner) and both backends
use it: collect, cancels, the periodic chore when due, dispatch."""
from __future__ import annotations

import threading
import time

import pytest

from hbnlab.jobs.dask_runner import DaskRunner
from hbnlab.jobs.local import LocalProcessRunner
from hbnlab.jobs.runner import PollingRunner, interrupt_all


class Recorder(PollingRunner):
    """Records the order of the hooks; no thread of its own (the test takes the steps)."""

    backend = "recorder"

    def __init__(self, registry, interval):
        super().__init__(registry)
        self.interval, self.calls = interval, []
        self._thread = threading.Thread(target=lambda: None)

    periodic_interval = property(lambda self: self.interval)

    def share(self, name, value):
        pass

    def shutdown(self, wait=True, *, interrupt=False, timeout=30.0):
        self.calls.append(("shutdown", interrupt))

    def _collect(self):
        self.calls.append("collect")

    def _enforce_cancels(self):
        self.calls.append("cancels")

    def _periodic(self):
        self.calls.append("periodic")

    def _dispatch(self):
        self.calls.append("dispatch")


def test_one_step_is_collect_cancels_periodic_when_due_dispatch(tmp_path):
    r = Recorder(tmp_path, interval=3600.0)
    r._step()
    r._step()
    assert r.calls == ["collect", "cancels", "periodic", "dispatch", "collect", "cancels", "dispatch"]
    r.interval = 0.0
    r.calls.clear()
    r._step()
    assert r.calls == ["collect", "cancels", "periodic", "dispatch"]


@pytest.mark.parametrize("cls, interval", [(LocalProcessRunner, "recover_interval"),
                                           (DaskRunner, "heartbeat_interval")])
def test_both_backends_take_the_shared_step(cls, interval):
    assert issubclass(cls, PollingRunner)
    assert "_step" not in vars(cls) and "_step_loop" not in vars(cls)
    for hook in ("_collect", "_enforce_cancels", "_periodic", "_dispatch", "periodic_interval"):
        assert hook in vars(cls), (cls.__name__, hook)
    assert interval in cls.periodic_interval.fget.__code__.co_names


def test_a_polling_runner_without_its_pieces_cannot_be_made(tmp_path):
    half = type("Half", (PollingRunner,), {"share": lambda self, name, value: None,
                                           "shutdown": lambda self, *args, **kwargs: None})
    with pytest.raises(TypeError, match="_collect"):
        half(tmp_path)


def test_stop_thread_waits_with_a_deadline_and_says_when_it_gave_up(tmp_path, capsys):
    r = Recorder(tmp_path, interval=1.0)
    release = threading.Event()
    r._thread = threading.Thread(target=lambda: release.wait(30), daemon=True)
    r._thread.start()
    t0 = time.monotonic()
    r._stop_thread(0.2, "the test thread")
    assert time.monotonic() - t0 < 10 and r._stop_event.is_set()
    assert "hbnlab.jobs: the test thread did not stop within 0.2 s; closing without it" in capsys.readouterr().err
    release.set()
    r._thread.join(10)
    r._stop_thread(0.2, "the test thread")  # a finished thread: nothing to wait for, nothing said
    assert capsys.readouterr().err == ""


def test_interrupt_all_shuts_every_runner_down_and_ignores_errors(tmp_path):
    class Broken(Recorder):
        def shutdown(self, wait=True, *, interrupt=False, timeout=30.0):
            raise RuntimeError("gone")

    a, b = Recorder(tmp_path, 1.0), Recorder(tmp_path, 1.0)
    interrupt_all([a, Broken(tmp_path, 1.0), b])
    assert a.calls == b.calls == [("shutdown", True)]
