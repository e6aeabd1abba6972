"""Sweep building blocks without worker processes: configuration, cells, seeds, the choice of a
configuration (hand-computed golden values), the data restriction, the task run inline, the CLI's
argument parsing and progress bar."""
from __future__ import annotations

import io

import numpy as np
import pytest

from hbnlab._validation import HbnlabError
from hbnlab.experiments import sweep as sw
from hbnlab.experiments.sweep.cells import npy_load
from hbnlab.experiments.sweep.run import _micro_macro
from hbnlab.jobs import JobSpec, run_inline
from hbnlab.pipeline.data import ProtocolData


# --------------------------------------------------------------------------- configuration
@pytest.mark.parametrize("kwargs, fragment", [
    ({"B": (1, 3)}, "got 1"),
    ({"B": ()}, "non-empty"),
    ({"clusterings": ("avg", "foo")}, "'foo'"),
    ({"categories": "top0"}, "'top0'"),
    ({"categories": "most"}, "'most'"),
    ({"categories": ("earn", "earn")}, "twice"),
    ({"alpha": {"avg": (0.1, -0.5)}}, "-0.5"),
    ({"alpha": {"avgg": (0.1,)}}, "avgg"),
    ({"n_features": (0,)}, "got 0"),
    ({"choose": "best"}, "'best'"),
    ({"n_restarts": 0}, "got 0"),
    ({"tol": 0.0}, "got 0.0"),
    ({"direction": "up"}, "'up'"),
    ({"baselines": ("HBN-OR",)}, "HBN-OR"),
    ({"baselines": ("NB", "hier-nb")}, "HIER-NB'] learn over a topic taxonomy"),
])
def test_config_errors_name_the_bad_value(kwargs, fragment):
    with pytest.raises(sw.SweepError, match=fragment.replace("(", r"\(")):
        sw.SweepConfig(**kwargs)


def test_config_defaults_are_the_thesis_protocol_and_round_trip():
    cfg = sw.SweepConfig()
    assert cfg.categories == "all" and cfg.clusterings == ("avg", "or", "dep")
    assert cfg.B == (3, 5, 7, 9) and cfg.n_features == (30,) and cfg.n_restarts == 64 and cfg.tol == 1e-4
    assert cfg.alpha == sw.THESIS_ALPHA_GRIDS
    # 90 categories x 4 B x (5 + 5 + 7) alphas
    assert cfg.n_validation_cells(90) == 90 * 4 * 17
    assert cfg.hidden_states == (2,)
    assert cfg.final_config("or") == (9, 0.09, 30, 2) and cfg.final_config("dep") == (7, 170.0, 30, 2)
    assert sw.SweepConfig.from_dict(cfg.to_dict()) == cfg
    other = sw.SweepConfig(categories=("earn", "acq"), clusterings=("dep",), alpha={"dep": (100, 150)})
    assert sw.SweepConfig.from_dict(other.to_dict()) == other
    assert other.grid("dep") == [(b, a, 30, 2) for b in (3, 5, 7, 9) for a in (100.0, 150.0)]
    with pytest.raises(sw.SweepError, match="colour"):
        sw.SweepConfig.from_dict({**cfg.to_dict(), "colour": 1})


def test_cell_keys_and_seeds():
    cfg = sw.SweepConfig(clusterings=("avg",), B=(3, 5), alpha={"avg": (0.0, 0.1)})
    a = sw.Cell("validation", "earn", "HBN-AVG", 30, 3, 0.1, 64, 1e-4, 7, "f" * 64)
    assert a.key == sw.Cell("validation", "earn", "HBN-AVG", 30, 3, 0.1, 64, 1e-4, 7, "f" * 64).key
    variants = [dict(stage="test"), dict(B=5), dict(alpha=0.0), dict(n_features=60), dict(n_restarts=8),
                dict(seed=8), dict(data="e" * 64), dict(category="acq")]
    keys = {a.key} | {sw.Cell(**{**a.__dict__, **v}).key for v in variants}
    assert len(keys) == len(variants) + 1  # every ingredient changes the key
    # seeds: common random numbers across the grid and the stages, distinct across categories
    s = sw.cell_seed(0, "earn", "HBN-AVG")
    assert s == sw.cell_seed(0, "earn", "HBN-AVG") and 0 <= s < 2 ** 31
    assert len({s, sw.cell_seed(1, "earn", "HBN-AVG"), sw.cell_seed(0, "acq", "HBN-AVG"),
                sw.cell_seed(0, "earn", "HBN-OR")}) == 4
    spec = a.spec("sweep-x", "sweep-data-ffff")
    assert isinstance(spec, JobSpec) and spec.group == "sweep-x" and spec.random_state == 7
    assert spec.inputs == ("sweep-data-ffff",) and spec.module == "hbnlab.experiments.sweep"
    assert JobSpec.from_json(spec.to_json()) == spec
    assert "B=3 alpha=0.1" in spec.label
    del cfg


def test_importing_the_task_module_of_a_cell_spec_registers_the_task():
    """Workers import the module a job spec names, and registries keep that name: a fresh
    interpreter finds the sweep task through 'hbnlab.experiments.sweep'."""
    import subprocess
    import sys

    code = ("from hbnlab.jobs.tasks import resolve_task; "
            "info = resolve_task('sweep_cell', 'hbnlab.experiments.sweep'); "
            "print(info.fn.__name__, info.module)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["sweep_cell_task", "hbnlab.experiments.sweep.cells"], out.stderr
    assert sw.TASK_MODULE == "hbnlab.experiments.sweep" and sw.CELL_KIND == "sweep_cell"
    assert issubclass(sw.SweepError, HbnlabError) and issubclass(sw.SweepError, ValueError)


# --------------------------------------------------------------------------- choice (golden values)
def _golden_validation():
    grid = [(2, 0.0, 5, 2), (2, 0.1, 5, 2), (3, 0.0, 5, 2), (3, 0.1, 5, 2)]
    table = {  # category -> (breakevens per grid entry, positives in validation)
        "a": ([0.80, 0.90, 0.70, 0.90], 100),
        "b": ([0.50, 0.10, 0.95, 0.20], 10),
        "c": ([None] * 4, 0),    # no validation positive
        "d": ([None] * 4, 5),    # no training-0 positive (cell skipped)
    }
    val = {(c, "avg", conf): (bes[i], n) for c, (bes, n) in table.items() for i, conf in enumerate(grid)}
    return grid, val


def test_choose_per_category_with_fallback_golden():
    cfg = sw.SweepConfig(clusterings=("avg",), B=(2, 3), alpha={"avg": (0.0, 0.1)}, n_features=(5,))
    grid, val = _golden_validation()
    assert cfg.grid("avg") == grid
    ch = sw.choose_configs(cfg, ["a", "b", "c", "d"], val)
    # a: 0.90 at (2, 0.1) and (3, 0.1) -> the earlier in grid order; b: 0.95 at (3, 0)
    assert ch[("a", "avg")]["config"] == (2, 0.1, 5, 2) and ch[("a", "avg")]["how"] == "per-category"
    assert ch[("b", "avg")]["config"] == (3, 0.0, 5, 2) and ch[("b", "avg")]["validation_breakeven"] == 0.95
    # hand-computed micro (breakevens weighted by positives, a: 100, b: 10):
    # (80+5)/110, (90+1)/110, (70+9.5)/110, (90+2)/110 -> the last; macro would pick (3, 0) instead
    for c in ("c", "d"):
        assert ch[(c, "avg")]["config"] == (3, 0.1, 5, 2)
        assert ch[(c, "avg")]["how"] == "global (no validation breakeven)"
    assert ch[("a", "avg")]["global_validation_micro"] == pytest.approx(92 / 110)


def test_choose_global_golden():
    cfg = sw.SweepConfig(clusterings=("avg",), B=(2, 3), alpha={"avg": (0.0, 0.1)}, n_features=(5,),
                         choose="global")
    _, val = _golden_validation()
    ch = sw.choose_configs(cfg, ["a", "b", "c", "d"], val)
    assert {v["config"] for v in ch.values()} == {(3, 0.1, 5, 2)}
    assert {v["how"] for v in ch.values()} == {"global"}


@pytest.mark.parametrize("terms, label", [((30, 30), 30), ((30, 100), "per category")])
def test_the_table_names_the_terms_of_a_row_only_when_every_category_shares_them(terms, label):
    # categories with different numbers of terms (a per-category choice) are neither labelled with
    # the first category's number nor compared with the thesis's row of that number
    cats = ["earn", "acq"]
    cfg = sw.SweepConfig(categories=tuple(cats), clusterings=("or",), B=(9,), n_features=(30, 100), baselines=())
    Y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    test = [{"stage": "test", "category": c, "classifier": "HBN-OR", "B": 9, "alpha": 0.0, "n_features": nf,
             "fit_seconds": 1.0} for c, nf in zip(cats, terms)]
    res = sw.SweepResult("s", cfg, "done", {"name": "synthetic"}, cats, test=test,
                         test_scores={"HBN-OR": np.array([[2.0, -1.0], [-1.0, 2.0], [1.0, 1.0], [-2.0, -2.0]])},
                         Y_test=Y)
    row = sw.sweep_table(res)["rows"][0]
    assert row["n_features"] == label
    assert row["micro"] == pytest.approx(100.0)


def test_micro_macro_from_per_category_values_matches_the_evaluation_module():
    from hbnlab.evaluation import macro_breakeven, micro_breakeven, per_class_breakeven

    rng = np.random.default_rng(0)
    Y = rng.random((200, 5)) < [0.3, 0.1, 0.05, 0.2, 0.0]
    S = rng.random((200, 5)) + Y * rng.random((200, 5))
    b = per_class_breakeven(Y, S)
    micro, macro = _micro_macro([None if np.isnan(v) else v for v in b], Y.sum(0))
    assert micro == pytest.approx(micro_breakeven(Y, S)) and macro == pytest.approx(macro_breakeven(Y, S))


# --------------------------------------------------------------------------- data
def test_sweep_data_keeps_the_selected_terms_of_every_category(syn_protocol, syn_data):
    d, p = syn_data, syn_protocol
    assert d.categories == p.categories and d.max_features == 6
    for j in range(len(d.categories)):
        full = p.ranked_features(j)[:6]
        assert [d.names[c] for c in d.ranked[j]] == [p.vocabulary[c] for c in full]
        np.testing.assert_array_equal(d.X_train[:, d.ranked[j]].toarray(), (p.X_train[:, full] != 0).toarray())
        np.testing.assert_array_equal(d.X_test[:, d.ranked[j]].toarray(), (p.X_test[:, full] != 0).toarray())
    assert len(d.names) == len(np.unique(d.ranked))  # only the union of the selections is shipped
    split = d.split("validation")
    assert split.X_fit.shape[0] == d.train0.sum() and split.X_eval.shape[0] == (~d.train0).sum()
    assert d.split("validation") is split  # kept for the next cell of the same worker
    assert isinstance(d, ProtocolData) and d.selected_columns(d.categories[0], 4).tolist() == d.ranked[0, :4].tolist()
    with pytest.raises(sw.SweepError, match="'train'"):
        d.split("train")


def test_fingerprint_identifies_the_data(syn_data):
    d = syn_data
    same = sw.SweepData.from_shared(d.to_shared())
    assert same.fingerprint == d.fingerprint == same.compute_fingerprint()
    Y = d.Y_train.copy()
    Y[0, 0] = ~Y[0, 0]
    flipped = sw.SweepData(d.categories, d.names, d.X_train, d.X_test, Y, d.Y_test, d.train0, d.ranked)
    assert flipped.fingerprint != d.fingerprint and flipped.input_name != d.input_name


def test_resolve_categories(syn_corpus):
    cats = syn_corpus.categories(min_train=1, min_test=1)
    assert sw.resolve_categories(syn_corpus, "all") == cats
    assert sw.resolve_categories(syn_corpus, "top2") == cats[:2]
    assert sw.resolve_categories(syn_corpus, ("charlie", "alpha")) == ["charlie", "alpha"]
    with pytest.raises(sw.SweepError, match="'zulu'"):
        sw.resolve_categories(syn_corpus, ("alpha", "zulu"))


# --------------------------------------------------------------------------- the task, inline
def _run_cell(cell, data, **kw):
    return run_inline(cell.spec("inline", data.input_name), {data.input_name: data.to_shared()}, **kw)


@pytest.mark.parametrize("name, B, alpha", [("HBN-AVG", 3, 0.05), ("HBN-DEP", 2, 100.0), ("NB", None, None)])
@pytest.mark.parametrize("stage", ["validation", "test"])
def test_cell_task_matches_a_direct_fit(syn_protocol, syn_data, name, B, alpha, stage):
    """Oracle: the estimator fitted directly on the full protocol matrices, with the thesis's
    selection (whole training set) and the same seed, gives the same breakeven."""
    from hbnlab.evaluation import breakeven_point
    from hbnlab.models.catalog import make_classifier

    cat = "bravo"
    seed = sw.cell_seed(0, cat, name)
    cell = sw.Cell(stage, cat, name, 6, B, alpha, 3, 1e-4, seed, syn_data.fingerprint)
    outcome, ctx = _run_cell(cell, syn_data)
    assert outcome.state == "done", outcome.error
    j = syn_protocol.categories.index(cat)
    X_fit, Y_fit, X_eval, Y_eval, _ = syn_protocol.split(stage)
    hyper = {} if B is None else {"B": B, "alpha": alpha, "n_restarts": 3, "tol": 1e-4}
    est = make_classifier(name, 6, hyper, random_state=seed)
    est.fit(X_fit, Y_fit[:, j].astype(np.int8), selected_features=syn_protocol.ranked_features(j)[:6])
    expected = breakeven_point(Y_eval[:, j], est.decision_function(X_eval))
    assert outcome.result["breakeven"] == expected
    assert outcome.result["n_pos"] == int(Y_eval[:, j].sum())
    if stage == "test":
        scores = npy_load(ctx.blobs[outcome.result["scores_sha256"]])
        np.testing.assert_array_equal(scores, est.decision_function(X_eval))
        assert ("tree.json" in ctx.artifacts) == (B is not None)
    else:
        assert not ctx.artifacts


@pytest.mark.parametrize("name, B, alpha, states",
                         [("HBN-AVG", 3, 0.05, 2), ("HBN-OR", 2, 0.09, 3), ("NB", None, None, 2)])
@pytest.mark.parametrize("stage, cv", [("test", None), ("validation", None), ("validation", 3)])
def test_cell_scores_are_fit_units(syn_corpus, name, B, alpha, states, stage, cv):
    """A cell fits through :func:`hbnlab.pipeline.fit.fit_unit`: the same settings on the full
    protocol data give bit-identical scores (the test cell's ``scores.npy``), breakeven, timing
    field and EM statistics (of the last fold)."""
    from hbnlab.evaluation import breakeven_point
    from hbnlab.pipeline.data import prepare
    from hbnlab.pipeline.fit import fit_unit

    protocol = prepare(syn_corpus, categories=syn_corpus.categories(min_train=1, min_test=1), cv=cv)
    data = sw.SweepData.from_protocol(protocol, 6)
    cat, seed = "charlie", sw.cell_seed(0, "charlie", name)
    cell = sw.Cell(stage, cat, name, 5, B, alpha, 3, 1e-4, seed, data.fingerprint, states)
    outcome, ctx = _run_cell(cell, data)
    assert outcome.state == "done", outcome.error
    hyper = {} if B is None else {"B": B, "alpha": alpha, "n_restarts": 3, "tol": 1e-4, "hidden_states": states}
    res = fit_unit(protocol, cat, name, n_features=5, params=hyper, stage=stage, random_state=seed, score="log_odds")
    r = outcome.result
    assert r["breakeven"] == breakeven_point(res.y_eval, res.scores)
    assert (r["n_pos"], r["n_eval"], r.get("n_folds", 1)) == (int(res.y_eval.sum()), res.y_eval.size, cv or 1)
    assert isinstance(r["fit_seconds"], float) and len(res.estimators) == (cv or 1)
    if B is not None:
        last = res.estimators[-1]
        assert (r["n_iter"], r["converged"], r["lower_bound"]) == (last.n_iter_, last.converged_, last.lower_bound_)
    if stage == "test":
        np.testing.assert_array_equal(npy_load(ctx.blobs[r["scores_sha256"]]), res.scores)


def test_cell_without_training_positive_is_skipped(syn_data):
    d = syn_data
    Y = d.Y_train.copy()
    Y[d.train0, 1] = False  # no positive of category 1 in training-0
    data = sw.SweepData(d.categories, d.names, d.X_train, d.X_test, Y, d.Y_test, d.train0, d.ranked)
    cell = sw.Cell("validation", data.categories[1], "HBN-AVG", 6, 2, 0.0, 2, 1e-4, 1, data.fingerprint)
    outcome, _ = _run_cell(cell, data)
    assert outcome.state == "done"
    assert outcome.result["breakeven"] is None and "no positive" in outcome.result["skipped"]


def test_cell_refuses_other_data_and_honours_cancel(syn_data):
    cell = sw.Cell("validation", "alpha", "HBN-AVG", 6, 2, 0.0, 64, 1e-9, 1, "0" * 64)
    outcome, _ = _run_cell(cell, syn_data)
    assert outcome.state == "failed" and "expects data 0000000000000000" in outcome.error
    # a cancel request stops EM between iterations: the job ends cancelled
    from hbnlab.jobs.tasks import InlineTaskContext, run_task

    cell = sw.Cell("validation", "alpha", "HBN-AVG", 6, 2, 0.0, 64, 1e-9, 1, syn_data.fingerprint)
    spec = cell.spec("inline", syn_data.input_name)
    ctx = InlineTaskContext(spec, {syn_data.input_name: syn_data.to_shared()})
    ctx.stop.set()
    outcome = run_task(spec, ctx)
    assert outcome.state == "cancelled"


# --------------------------------------------------------------------------- CLI helpers
def test_cli_parsing_helpers():
    from hbnlab.cli.common import CLIError, parse_list
    from hbnlab.cli.sweep import parse_alpha

    assert parse_list("3, 5,7", int, "--B") == [3, 5, 7]
    with pytest.raises(CLIError, match="--B: 'x' is not a valid int"):
        parse_list("3,x", int, "--B")
    assert parse_alpha(None, ["avg"]) is None
    assert parse_alpha(["0.1,0.2"], ["avg", "or"]) == {"avg": [0.1, 0.2], "or": [0.1, 0.2]}
    assert parse_alpha(["dep:100,150", "avg:0"], ["avg", "dep"]) == {"dep": [100.0, 150.0], "avg": [0.0]}
    with pytest.raises(CLIError, match="'tan'"):
        parse_alpha(["tan:0.1"], ["avg"])


def test_terminal_progress_prints_plain_lines():
    from hbnlab.cli.sweep import TerminalProgress

    buf = io.StringIO()
    bar = TerminalProgress(stream=buf, width=10, interval=3600)
    bar("validation", {"done": 0, "running": 2}, 10)
    bar("validation", {"done": 5, "running": 2}, 10)       # throttled: not printed
    bar("validation", {"done": 9, "failed": 1}, 10)        # phase finished: printed
    bar("test", {"done": 3}, 3)
    lines = buf.getvalue().splitlines()
    assert lines[0].startswith("validation [----------] 0/10 done, 2 running")
    assert lines[1].startswith("validation [##########] 9/10 done, 0 running, 1 failed")
    assert lines[2].startswith("test       [##########] 3/3 done") and len(lines) == 3
    assert "left" in bar.line("x", {"done": 1}, 4, 10.0) and "~30 s left" in bar.line("x", {"done": 1}, 4, 10.0)


def test_sweep_categories_and_planned_cells(syn_data):
    d = syn_data
    assert sw.sweep_categories(sw.SweepConfig(categories="top2"), d) == d.categories[:2]
    assert sw.sweep_categories(sw.SweepConfig(categories=("charlie",)), d) == ["charlie"]
    with pytest.raises(sw.SweepError, match="'zulu'"):
        sw.sweep_categories(sw.SweepConfig(categories=("zulu",)), d)
    cfg = sw.SweepConfig(categories="top2", clusterings=("avg", "or"), B=(2, 3),
                         alpha={"avg": (0.0,), "or": (0.1, 0.2)}, n_features=(4, 6), baselines=("NB",))
    val = sw.plan_validation_cells(cfg, d)
    assert len(val) == 2 * (2 * 2 * 1 + 2 * 2 * 2) == len({c.key for c in val})
    assert {c.stage for c in val} == {"validation"} and {c.classifier for c in val} == {"HBN-AVG", "HBN-OR"}
    choices = {(c, k): {"config": (3, cfg.alpha[k][-1], 4, 2)} for c in d.categories[:2] for k in ("avg", "or")}
    test = sw.plan_test_cells(cfg, d, choices)
    assert [(c.category, c.classifier, c.B, c.alpha, c.n_features) for c in test] == [
        (d.categories[0], "HBN-AVG", 3, 0.0, 4), (d.categories[1], "HBN-AVG", 3, 0.0, 4),
        (d.categories[0], "HBN-OR", 3, 0.2, 4), (d.categories[1], "HBN-OR", 3, 0.2, 4),
        (d.categories[0], "NB", None, None, 4), (d.categories[1], "NB", None, None, 4)]
    final = sw.plan_test_cells(sw.SweepConfig(clusterings=("or",), final_only=True, baselines=()), d)
    assert {(c.B, c.alpha, c.n_features, c.hidden_states) for c in final} == {(9, 0.09, 30, 2)}  # Table 4.1


def test_run_sweep_refuses_more_features_than_the_data_keeps(syn_data):
    with pytest.raises(sw.SweepError, match="n_features 30 exceeds the 6 terms"):
        sw.run_sweep(sw.SweepConfig(), syn_data, runner=None, sweep_id="x")
    with pytest.raises(sw.SweepError, match="sweep_id"):
        sw.run_sweep(sw.SweepConfig(n_features=(6,)), syn_data, runner=None, sweep_id=" ")
