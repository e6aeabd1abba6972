"""Task registry, task outcomes and the throttled context, run in-process (run_inline)."""
from __future__ import annotations

import time

import numpy as np
import pytest

import hbnlab.jobs.testing  # noqa: F401  (registers the built-in tasks)
from hbnlab._validation import Cancelled, HbnlabError
from hbnlab.jobs import JobCancelled, JobSpec, TaskError, register_task, run_inline
from hbnlab.jobs.tasks import TASKS, InlineTaskContext, TaskContext, resolve_spec, resolve_task, run_task


@pytest.fixture
def scratch_tasks():
    before = dict(TASKS)
    yield
    TASKS.clear()
    TASKS.update(before)


def test_count_golden_result_and_outputs():
    outcome, ctx = run_inline(JobSpec("count", {"n": 5, "delay": 0}, random_state=4))
    assert outcome.state == "done" and outcome.error is None
    assert outcome.result["total"] == 0 + 1 + 2 + 3 + 4
    assert ctx.traces["total"] == [(0, 0.0), (1, 1.0), (2, 3.0), (3, 6.0), (4, 10.0)]
    assert ctx.messages == ["counted 5 steps"]
    digest = outcome.result["artifact"]
    assert ctx.artifacts == {"summary.json": digest}
    assert ctx.blobs[digest] == b'{"n": 5, "random_state": 4, "total": 10}'


def test_progress_is_throttled_but_the_last_value_is_delivered():
    outcome, ctx = run_inline(JobSpec("count", {"n": 200, "delay": 0}))
    assert outcome.state == "done"
    # 200 calls within far less than a second: the throttle lets through only a few ...
    assert 1 <= len(ctx.progress_history) < 20
    # ... and the final value still arrives (flush at the end)
    assert ctx.progress_history[-1]["step"] == 200
    assert ctx.progress_history[-1]["fraction"] == 1.0


def test_progress_rate_is_at_most_five_per_second():
    spec = JobSpec("count", {"n": 1})
    ctx = InlineTaskContext(spec)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 1.0:
        ctx.progress(step=1)
        time.sleep(0.005)
    assert len(ctx.progress_history) <= 6


def test_crash_gives_failed_with_the_error_text_and_traceback():
    outcome, _ = run_inline(JobSpec("count", {"n": 5, "delay": 0, "crash_at": 2}))
    assert outcome.state == "failed"
    assert outcome.error == "RuntimeError: count crashed at step 2 as requested"
    assert "testing.py" in outcome.traceback and "as requested" in outcome.traceback


def test_should_stop_cancels_with_partial_result():
    spec = JobSpec("count", {"n": 5, "delay": 0})
    ctx = InlineTaskContext(spec)
    ctx.stop.set()
    outcome = run_task(spec, ctx)
    assert outcome.state == "cancelled"
    assert outcome.result == {"total": 0, "n": 5, "steps": 0, "stopped": True}


def test_hang_ignores_should_stop():
    spec = JobSpec("count", {"n": 3, "delay": 0, "hang": True})
    ctx = InlineTaskContext(spec)
    ctx.stop.set()
    outcome = run_task(spec, ctx)
    assert outcome.result["steps"] == 3 and outcome.state == "cancelled"


def test_bad_results_and_job_cancelled(scratch_tasks):
    @register_task("t_returns_list")
    def returns_list(params, ctx):
        return [1]

    @register_task("t_returns_set")
    def returns_set(params, ctx):
        return {"x": {1}}

    @register_task("t_raises_cancel")
    def raises_cancel(params, ctx):
        raise JobCancelled("stopped by the task")

    out, _ = run_inline(JobSpec("t_returns_list"))
    assert out.state == "failed" and out.error == "TypeError: task 't_returns_list' must return a dict, got list"
    out, _ = run_inline(JobSpec("t_returns_set"))
    assert out.state == "failed" and "result of task 't_returns_set'['x'] must be JSON data" in out.error
    out, _ = run_inline(JobSpec("t_raises_cancel"))
    assert (out.state, out.error) == ("cancelled", "stopped by the task")


def test_any_cancelled_ends_a_task_cancelled_and_other_errors_fail_it(scratch_tasks):
    class StoppedInsideAFit(Cancelled):
        pass

    @register_task("t_raises_cancelled")
    def raises_cancelled(params, ctx):
        raise StoppedInsideAFit("EM stopped at iteration 3")

    @register_task("t_raises_runtime")
    def raises_runtime(params, ctx):
        raise RuntimeError("EM was cancelled by should_stop()")  # not a Cancelled: a failure

    assert issubclass(JobCancelled, Cancelled) and issubclass(JobCancelled, HbnlabError)
    out, _ = run_inline(JobSpec("t_raises_cancelled"))
    assert (out.state, out.error, out.result) == ("cancelled", "EM stopped at iteration 3", None)
    out, _ = run_inline(JobSpec("t_raises_runtime"))
    assert out.state == "failed" and out.error == "RuntimeError: EM was cancelled by should_stop()"


def test_registry_lookup_errors(scratch_tasks):
    with pytest.raises(TaskError, match="unknown task kind 'nope': module 'hbnlab.jobs.testing' "
                                        "registers no such task"):
        resolve_task("nope", "hbnlab.jobs.testing")
    with pytest.raises(TaskError, match="cannot import task module 'hbnlab.no_such_module' for task 'x'"):
        resolve_task("x", "hbnlab.no_such_module")
    outcome, _ = run_inline(JobSpec("nope"))
    assert outcome.state == "failed" and "unknown task kind 'nope'" in outcome.error

    def other(params, ctx):
        return {}

    with pytest.raises(TaskError, match="task name 'count' is already registered by "
                                        "hbnlab.jobs.testing.count"):
        register_task("count")(other)
    with pytest.raises(TaskError, match="task name must be a non-empty str, got ''"):
        register_task("")


def test_resolve_spec_fills_module_and_refuses_main(scratch_tasks):
    assert resolve_spec(JobSpec("count")).module == "hbnlab.jobs.testing"
    spec = JobSpec("count", module="hbnlab.jobs.testing")
    assert resolve_spec(spec) is spec

    def in_main(params, ctx):
        return {}

    in_main.__module__ = "__main__"
    register_task("t_in_main")(in_main)
    with pytest.raises(TaskError, match="registered in __main__, which worker processes cannot import"):
        resolve_spec(JobSpec("t_in_main"))


def test_score_shared_matches_a_direct_numpy_oracle():
    X = np.arange(24.0).reshape(6, 4) - 7.0
    outcome, _ = run_inline(JobSpec("score_shared", {"input": "d"}, random_state=11, inputs=("d",)),
                            shared={"d": {"X": X}})
    w = np.random.default_rng(11).standard_normal(4)
    assert outcome.result == {"mean": float((X @ w).mean()), "max": float((X @ w).max()),
                              "argmax": int((X @ w).argmax()), "rows": 6}


def test_context_rejects_bad_artifacts_and_progress():
    ctx = TaskContext(job_id=1, attempt=1, spec=JobSpec("count"))
    with pytest.raises(TypeError, match="artifact 'm' data must be bytes, got str"):
        ctx.save_artifact("m", "text")
    with pytest.raises(ValueError, match="artifact name must be a non-empty str"):
        ctx.save_artifact("", b"x")
    with pytest.raises(ValueError, match=r"progress fields\['x'\] must be JSON data"):
        ctx.progress(x=object())


def test_spin_matches_a_direct_numpy_oracle():
    outcome, ctx = run_inline(JobSpec("spin", {"size": 20, "reps": 5}, random_state=3))
    rng = np.random.default_rng(3)
    a = rng.standard_normal((20, 20)) / np.sqrt(20)
    b = np.eye(20)
    for _ in range(5):
        b = a @ b
        b /= np.abs(b).max()
    assert outcome.state == "done"
    assert outcome.result["checksum"] == float(b.sum()) and outcome.result["reps"] == 5
    assert outcome.result["maxrss_kb"] > 0 and ctx.progress_history[-1]["rep"] == 5
