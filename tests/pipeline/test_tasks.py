"""The shared pipeline and the workbench's background tasks, run in-process."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from hbnlab.jobs.spec import JobSpec
from hbnlab.jobs.tasks import InlineTaskContext
from hbnlab.jobs.tasks import run_task as _run_task
from hbnlab.pipeline import tasks as T
from hbnlab.pipeline.config import ExperimentConfig
from hbnlab.pipeline.corpus_spec import corpus_from_spec
from hbnlab.pipeline.data import resolve_categories

SMALL = ExperimentConfig(synthetic_size=600, n_features=10, n_restarts=3, classifiers=("NB", "SVM"))


@pytest.fixture(scope="module")
def small_data():
    return T.prepare_experiment(SMALL)


def run_task(spec, ctx):
    """hbnlab.jobs.tasks.run_task plus the final flush of throttled progress (as runners do)."""
    out = _run_task(spec, ctx)
    ctx.flush()
    return out


def _spec(kind, params):
    return JobSpec(kind, params, group="test", random_state=0, module="hbnlab.pipeline.tasks")


def test_core_modules_do_not_import_streamlit():
    code = ("import sys, hbnlab.pipeline.tasks, hbnlab.pipeline.config, hbnlab.app.views, hbnlab.app.charts; "
            "print('streamlit' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_prepare_experiment_agrees_with_an_independent_recomputation(small_data):
    """Two routes to the same data: the workbench's config and the thesis's steps done by hand."""
    from hbnlab.corpus import train0_validation_split
    from hbnlab.features import score_terms
    from hbnlab.text import IndexingConfig, TermIndexer

    corpus = corpus_from_spec(SMALL.corpus_spec())
    indexer = TermIndexer(IndexingConfig())
    X_train = indexer.fit_transform(corpus.texts(corpus.train))
    X_test = indexer.transform(corpus.texts(corpus.test))
    Y_train = corpus.label_matrix(corpus.train, small_data.categories)
    ids0 = {d.id for d in train0_validation_split(corpus)[0]}
    assert list(indexer.vocabulary_) == list(small_data.vocabulary)
    assert (X_train != small_data.X_train).nnz == 0
    assert (X_test != small_data.X_test).nnz == 0
    np.testing.assert_allclose(score_terms(X_train, Y_train, method="ig"), small_data.scores)
    np.testing.assert_array_equal([d.id in ids0 for d in corpus.train], small_data.train0)
    np.testing.assert_array_equal(corpus.label_matrix(corpus.test, small_data.categories), small_data.Y_test)


def test_selected_columns_local_is_the_top_of_each_class(small_data):
    for j, c in enumerate(small_data.categories):
        cols = small_data.selected_columns(c, 7, "local")
        s = small_data.scores[:, j]
        assert len(cols) == 7 and len(set(cols.tolist())) == 7
        # every selected score is >= every unselected score (ties broken by index)
        rest = np.setdiff1d(np.arange(s.size), cols)
        assert s[cols].min() >= s[rest].max()
        assert np.all(np.diff(s[cols]) <= 0)
    from hbnlab.features import select_global

    g = small_data.selected_columns(small_data.categories[0], 7, "global")
    np.testing.assert_array_equal(g, select_global(small_data.scores, 7, aggregate="max"))
    with pytest.raises(ValueError, match=r"scope must be one of \('local', 'global'\), got 'both'"):
        small_data.selected_columns(small_data.categories[0], 7, "both")


def test_split_validation_is_training0_to_validation(small_data):
    X_fit, Y_fit, X_eval, Y_eval, docs = small_data.split("validation")
    assert X_fit.shape[0] == small_data.train0.sum() and X_eval.shape[0] == (~small_data.train0).sum()
    assert len(docs) == X_eval.shape[0] and all(d.split == "train" for d in docs)
    with pytest.raises(ValueError, match=r"stage must be one of \('test', 'validation'\), got 'dev'"):
        small_data.split("dev")


def test_corpus_and_category_errors_are_readable(tmp_path, small_data):
    from hbnlab.corpus import CorpusError
    from hbnlab.pipeline.corpus_spec import data_home

    with pytest.raises(CorpusError, match="the stored upload is missing"):
        corpus_from_spec({"corpus": "upload", "upload_path": str(data_home() / "uploads" / "gone.csv")})
    with pytest.raises(ValueError, match="'corpus' must be 'synthetic', 'reuters' or 'upload', got 'ftp'"):
        corpus_from_spec({"corpus": "ftp"})
    corpus = corpus_from_spec(SMALL.corpus_spec())
    with pytest.raises(CorpusError, match=r"categor.*\['earn'\]"):
        resolve_categories(corpus, ["alpha", "earn"])
    assert resolve_categories(corpus, n_categories=2) == corpus.categories(1, 1)[:2]
    with pytest.raises(ValueError, match="class 'zulu' is not one of"):
        small_data.category_index("zulu")


def test_model_files_round_trip_and_refuse_pickles(small_data):
    import pickle

    from hbnlab.export import ModelFileError, load_model

    label = small_data.categories[0]
    for name in ("NB", "HBN-OR"):
        est, scores, info = T.fit_config_unit(small_data, label, name, SMALL)
        data = T.store_model(est, {"class": label, "classifier": name}, indexing=small_data.indexed.config,
                             vocabulary=small_data.vocabulary)
        est2, meta = T.load_model(data)
        assert meta == {"class": label, "classifier": name}
        np.testing.assert_allclose(est2.predict_proba(small_data.indexed.X_test)[:, 1], scores)
        # the file classifies raw text on its own (indexing + vocabulary inside)
        texts = [d.full_text for d in small_data.indexed.test_docs[:20]]
        np.testing.assert_allclose(load_model(data).predict_proba_texts(texts), scores[:20])
    with pytest.raises(ModelFileError, match="pickle"):
        T.load_model(pickle.dumps({"estimator": est}))
    assert 0.0 <= info["breakeven"] <= 1.0


def test_train_task_results_match_an_independent_recomputation(small_data, tmp_path):
    from hbnlab.evaluation import breakeven_point

    classes = small_data.categories[:2]
    params = {"config": SMALL.to_dict(), "classes": classes, "classifiers": ["NB", "SVM"],
              "checkpoint_dir": str(tmp_path / "ckpt")}
    spec = _spec("train", params)
    ctx = InlineTaskContext(spec)
    outcome = run_task(spec, ctx)
    assert outcome.state == "done", outcome.error
    res = outcome.result
    assert [(u["class"], u["classifier"]) for u in res["units"]] == [(c, n) for c in classes for n in ("NB", "SVM")]
    S, ids, columns = T.scores_from_bytes(ctx.blobs[res["scores"]])
    assert ids == [d.id for d in small_data.indexed.test_docs]
    assert columns == [f"{c}|{n}" for c in classes for n in ("NB", "SVM")]
    for k, u in enumerate(res["units"]):
        est, meta = T.load_model(ctx.blobs[u["model"]])
        assert meta["class"] == u["class"] and meta["synthetic"] is True
        # the stored model reproduces the stored scores (second route: the test matrix)
        np.testing.assert_allclose(est.predict_proba(small_data.indexed.X_test)[:, 1], S[:, k])
        j = small_data.category_index(u["class"])
        assert u["breakeven"] == pytest.approx(breakeven_point(small_data.indexed.Y_test[:, j], S[:, k]))
    assert not (tmp_path / "ckpt").exists(), "the checkpoint is removed once the job is done"
    fractions = [p["fraction"] for p in ctx.progress_history if "fraction" in p]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    json.dumps(res)  # JSON-able


class _StopAfter(InlineTaskContext):
    """Requests a cancel once ``n`` models were stored (an interruption between units)."""

    def __init__(self, spec, n):
        super().__init__(spec)
        self.n = n

    def _store_artifact(self, name, data):
        digest = super()._store_artifact(name, data)
        if sum(k.startswith("model:") for k in self.artifacts) + name.startswith("model:") >= self.n:
            self.stop.set()
        return digest


def test_resumed_train_job_reuses_finished_units(small_data, tmp_path):
    classes = small_data.categories[:2]
    params = {"config": SMALL.to_dict(), "classes": classes, "classifiers": ["NB"],
              "checkpoint_dir": str(tmp_path / "ckpt")}
    spec = _spec("train", params)
    first = _StopAfter(spec, 1)
    out1 = run_task(spec, first)
    assert out1.state == "cancelled"
    assert len(list((tmp_path / "ckpt").glob("*.json"))) == 1
    second = InlineTaskContext(spec)
    out2 = run_task(spec, second)
    assert out2.state == "done", out2.error
    assert out2.result["resumed_units"] == 1
    assert any("reused from the interrupted attempt" in m for m in second.messages)
    fresh = InlineTaskContext(_spec("train", {**params, "checkpoint_dir": str(tmp_path / "other")}))
    out3 = run_task(fresh.spec, fresh)
    S2 = T.scores_from_bytes(second.blobs[out2.result["scores"]])[0]
    S3 = T.scores_from_bytes(fresh.blobs[out3.result["scores"]])[0]
    np.testing.assert_array_equal(S2, S3)
    for u2, u3 in zip(out2.result["units"], out3.result["units"]):  # the reused model is the same model
        e2, _ = T.load_model(second.blobs[u2["model"]])
        e3, _ = T.load_model(fresh.blobs[u3["model"]])
        np.testing.assert_array_equal(e2.predict_proba(small_data.indexed.X_test),
                                      e3.predict_proba(small_data.indexed.X_test))


def test_train_task_errors_name_the_problem():
    spec = _spec("train", {"config": SMALL.to_dict(), "classes": ["zulu"], "classifiers": ["NB"]})
    out = run_task(spec, InlineTaskContext(spec))
    assert out.state == "failed" and "class 'zulu' is not one of" in out.error
    spec = _spec("train", {"classes": ["alpha"]})
    out = run_task(spec, InlineTaskContext(spec))
    assert out.state == "failed" and "missing ['config']" in out.error


def test_em_progress_fields_and_live_trace():
    spec = _spec("train", {})
    ctx = InlineTaskContext(spec)
    ctx.progress_interval = 0.0
    prog = T._Progress(ctx, ["HBN-OR"] * 4, [1.0] * 4)
    prog.start_unit(1, "alpha", "HBN-OR", done=1)
    prog.em_callback({"iteration": 10, "max_iter": 100, "n_restarts": 8, "n_running": 6, "running": [0, 1],
                      "n_converged": 2, "log_likelihood": [-5.0, -4.0], "best_log_likelihood": -4.0})
    last = ctx.progress_history[-1]
    assert last["unit"] == 2 and last["units"] == 4 and last["class"] == "alpha" and last["classifier"] == "HBN-OR"
    assert last["iteration"] == 10 and last["restarts"] == 8 and last["running"] == 6 and last["loglik"] == -4.0
    # 1 unit done + max(10/100 iterations, 2/8 restarts converged) of the second, over 4 units
    assert last["fraction"] == pytest.approx((1 + 0.25) / 4)
    assert ctx.traces == {"alpha|HBN-OR": [(10, -4.0)]}
    from hbnlab.app.views import progress_text

    assert progress_text(last) == ("unit 2/4: HBN-OR · alpha · 6 of 8 EM restarts running, 2 converged · "
                                   "iteration 10 · log-lik -4.00")


def test_progress_weighs_units_by_cost_and_estimates_from_measured_units(monkeypatch):
    """A slow tree unit followed by quick naive Bayes units: the fraction counts cost, not units, and
    once a unit of a learner has finished, its measured time predicts the others of that learner."""
    spec = _spec("train", {})
    ctx = InlineTaskContext(spec)
    ctx.progress_interval = 0.0
    clock = [0.0]
    monkeypatch.setattr(T.time, "monotonic", lambda: clock[0])
    cfg = SMALL.replace(n_restarts=64, n_features=30)
    names = ["HBN-OR", "NB", "HBN-OR", "NB"]
    costs = [T.unit_cost(n, cfg) for n in names]
    assert costs[0] == 64 and costs[1] == 0.5 and T.unit_cost("HBN-DEP", cfg) == 128
    prog = T._Progress(ctx, names, costs)
    prog.start_unit(0, "alpha", "HBN-OR", done=0)
    clock[0] = 60.0
    prog.finish_unit(0)
    prog.start_unit(1, "alpha", "NB", done=1)
    last = ctx.progress_history[-1]
    assert last["fraction"] == pytest.approx(64 / 129, abs=1e-4)     # half the cost, not a quarter of the units
    # the NB units are estimated from the cost rate (60 s per 64), the second HBN-OR from the first's 60 s
    assert last["remaining"] == pytest.approx(0.5 * 60 / 64 + 60 + 0.5 * 60 / 64, abs=0.05)  # rounded to 0.1 s
    clock[0] = 60.5
    prog.finish_unit(1)
    prog.start_unit(2, "bravo", "HBN-OR", done=2)
    clock[0] = 90.0
    prog.emit(0.5)
    # the current unit: the first HBN-OR took 60 s and this one has run 29.5 s; then one NB (0.5 s)
    assert ctx.progress_history[-1]["remaining"] == pytest.approx((60 - 29.5) + 0.5, abs=0.05)


def test_tune_task_cells_match_an_independent_fit(small_data):
    from hbnlab.evaluation import micro_breakeven

    classes = small_data.categories[:2]
    params = {"config": SMALL.to_dict(), "classifier": "HBN-AVG", "B_values": [3, 5], "alpha_values": [0.0, 0.1],
              "n_features_values": [8], "classes": classes}
    spec = _spec("tune", params)
    ctx = InlineTaskContext(spec)
    out = run_task(spec, ctx)
    assert out.state == "done", out.error
    cells = out.result["cells"]
    assert [(c["B"], c["alpha"], c["n_features"]) for c in cells] == [(3, 0.0, 8), (3, 0.1, 8), (5, 0.0, 8),
                                                                      (5, 0.1, 8)]
    best = out.result["best"]
    assert best["micro"] == max(c["micro"] for c in cells)
    # oracle: one cell recomputed by hand on training-0 -> validation
    cell = cells[3]
    cfg = SMALL.replace(B_avg=5, alpha_avg=0.1, n_features=8)
    Y_val = small_data.split("validation").Y_eval
    S = np.column_stack([T.fit_config_unit(small_data, c, "HBN-AVG", cfg, stage="validation")[1] for c in classes])
    Y = Y_val[:, [small_data.category_index(c) for c in classes]]
    assert cell["micro"] == pytest.approx(round(100 * micro_breakeven(Y, S), 2))
    assert any(k.startswith(f"{classes[0]}|HBN-AVG|cell") for k in ctx.traces), "live EM traces per cell"
    bad = _spec("tune", {**params, "classifier": "NB"})
    out = run_task(bad, InlineTaskContext(bad))
    assert out.state == "failed" and "tune: classifier must be one of" in out.error


def test_cancel_stops_em_within_a_unit(small_data):
    """should_stop() fired during EM: the task ends cancelled (EM raises hbnlab's Cancelled)."""
    params = {"config": {**SMALL.to_dict(), "n_restarts": 64}, "classes": small_data.categories[:1],
              "classifiers": ["HBN-DEP"]}
    spec = _spec("train", params)

    class StopInEM(InlineTaskContext):
        def _emit_progress(self, fields):
            super()._emit_progress(fields)
            if fields.get("iteration", 0) >= 2:
                self.stop.set()

    ctx = StopInEM(spec)
    ctx.progress_interval = 0.0
    out = run_task(spec, ctx)
    assert out.state == "cancelled"
    assert max(p.get("iteration", 0) for p in ctx.progress_history) <= 3


def test_prepare_experiment_is_kept_per_process_until_a_source_file_changes(tmp_path, monkeypatch):
    """A worker running job after job on one corpus prepares it once; a changed upload is read again."""
    import os

    home = tmp_path / "home"
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(home))
    up = home / "uploads" / "docs.csv"
    up.parent.mkdir(parents=True)
    rows = [f"w{i % 7} common text number {i},{'a' if i % 2 else 'b'},{'test' if i % 4 == 0 else 'train'}"
            for i in range(80)]
    up.write_text("text,labels,split\n" + "\n".join(rows) + "\n", encoding="utf-8")
    cfg = SMALL.replace(corpus="upload", upload_path=str(up), upload_split_column="split", min_df=1,
                        n_categories=2)
    monkeypatch.setattr(T, "_PREPARED", type(T._PREPARED)())
    first = T.prepare_experiment(cfg)
    assert T.prepare_experiment(cfg.to_dict()) is first            # the same data settings: kept
    assert T.prepare_experiment(cfg.replace(selection="chi2")) is not first
    st = up.stat()
    os.utime(up, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))      # the file changed on disk
    assert T.prepare_experiment(cfg) is not first
    corpus = T.corpus_from_spec(cfg.corpus_spec())
    assert T.prepare_experiment(cfg, corpus=corpus) is not T.prepare_experiment(cfg, corpus=corpus)


def test_a_grid_eta_holds_within_2x_once_a_fifth_is_done(monkeypatch):
    """A tuning grid's units of one learner differ in cost by orders of magnitude (B = 3 to 9 with 2
    and 3 hidden states: tables of 8 to 19,683 rows).  Units taking their cost's time (+-30 %, seeded):
    from the moment a fifth of the job's time has passed, every estimate of the remaining time lies
    within 2x of the truth (the issue's "ETA that does not swing by more than 2x")."""
    spec = _spec("tune", {})
    ctx = InlineTaskContext(spec)
    ctx.progress_interval = 0.0
    clock = [0.0]
    monkeypatch.setattr(T.time, "monotonic", lambda: clock[0])
    cells = [(k, B) for k in (2, 3) for B in (3, 5, 7, 9) for _ in range(2)]   # 2 classes per cell
    costs = [T.unit_cost("HBN-OR", SMALL.replace(B_or=B, hidden_states=k, n_restarts=16)) for k, B in cells]
    rng = np.random.RandomState(0)
    seconds = [0.05 * c * rng.uniform(0.7, 1.3) for c in costs]
    total = sum(seconds)
    prog = T._Progress(ctx, ["HBN-OR"] * len(cells), costs)
    ratios = []
    for i, t in enumerate(seconds):
        prog.start_unit(i, "alpha", "HBN-OR", done=i)
        for within in (0.0, 0.5):
            clock[0] = sum(seconds[:i]) + within * t
            prog.emit(within)
            est = ctx.progress_history[-1].get("remaining")
            if clock[0] >= 0.2 * total and est is not None:
                ratios.append(est / (total - clock[0]))
        clock[0] = sum(seconds[: i + 1])
        prog.finish_unit(i)
    assert ratios and 0.5 <= min(ratios) and max(ratios) <= 2.0, (min(ratios), max(ratios))
