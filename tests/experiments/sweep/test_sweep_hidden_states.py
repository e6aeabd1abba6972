"""The hidden nodes' number of states as a sweep dimension: configuration, the too-large-table
rule, cell keys of binary sweeps kept, the choice (hand-computed golden values), the task, and
sweeps on the local pool that resume a binary sweep and test the chosen k."""
from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from hbnlab.bn.structure import HIDDEN
from hbnlab.experiments import sweep as sw
from hbnlab.jobs import run_inline


def hidden_node_states(tree: dict) -> set:
    """The numbers of states of the hidden nodes of a tree dict (``"states"`` only when not binary)."""
    states = tree.get("states", [2] * len(tree["kind"]))
    return {s for s, kind in zip(states, tree["kind"]) if kind == HIDDEN}


# --------------------------------------------------------------------------- configuration
@pytest.mark.parametrize("states, fragment", [
    ((1,), "got 1"),
    (("best",), "got 'best'"),
    ((True,), "got True"),
    ((2.5,), "got 2.5"),
    ((2, 2), r"distinct values, got \[2, 2\]"),
    ((), "non-empty"),
])
def test_hidden_states_errors_name_the_bad_value(states, fragment):
    with pytest.raises(sw.SweepError, match=f"hidden_states.*{fragment}"):
        sw.SweepConfig(hidden_states=states)


def test_hidden_states_round_trip_and_old_dicts_load_binary():
    cfg = sw.SweepConfig(hidden_states=(2, 3, "auto-holdout"))
    assert cfg.hidden_states == (2, 3, "auto-holdout") and cfg.to_dict()["hidden_states"] == [2, 3, "auto-holdout"]
    assert sw.SweepConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    assert sw.SweepConfig(hidden_states=3).hidden_states == (3,)
    assert sw.SweepConfig(hidden_states="auto").hidden_states == ("auto",)
    # the dict an earlier version wrote to sweep.json, without the key
    old = {"categories": "top2", "clusterings": ["avg"], "B": [3, 5], "alpha": {"avg": [0.0, 0.1]},
           "n_features": [30], "choose": "per-category", "n_restarts": 64, "tol": 0.0001, "final_only": False,
           "direction": "hbn", "baselines": ["NB"], "random_state": 0, "validation": "auto", "cv": 0}
    loaded = sw.SweepConfig.from_dict(old)
    assert loaded.hidden_states == (2,)
    assert loaded == sw.SweepConfig(categories="top2", clusterings=("avg",), B=(3, 5), alpha={"avg": (0.0, 0.1)})
    assert loaded.grid("avg") == [(3, 0.0, 30, 2), (3, 0.1, 30, 2), (5, 0.0, 30, 2), (5, 0.1, 30, 2)]


def test_the_grid_has_k_and_leaves_out_tables_above_the_binary_grids_largest():
    cfg = sw.SweepConfig(clusterings=("avg", "or"), hidden_states=(2, 3, "auto"))
    # 3 ** 7 = 2187 and 3 ** 9 = 19683 rows are above 2 ** 9 = 512; 3 ** 5 = 243 is not; a search is never left out
    assert cfg.not_fitted() == {(7, 3): "a node under 7 parents of 3 states has 2187 rows, above 2 ** 9",
                                (9, 3): "a node under 9 parents of 3 states has 19683 rows, above 2 ** 9"}
    alphas = sw.THESIS_ALPHA_GRIDS["avg"]
    assert cfg.grid("avg") == ([(b, a, 30, 2) for b in (3, 5, 7, 9) for a in alphas]
                               + [(b, a, 30, 3) for b in (3, 5) for a in alphas]
                               + [(b, a, 30, "auto") for b in (3, 5, 7, 9) for a in alphas])
    # 90 categories x (4 + 2 + 4) (B, k) pairs x (5 + 5) alphas
    assert cfg.n_validation_cells(90) == 90 * 10 * 10
    # the same rule and words as the fourth phase of reproduce.three_phase_tuning
    from hbnlab.models.hbn import oversized_hidden_states

    assert oversized_hidden_states(3, 7, 9) == cfg.not_fitted()[(7, 3)]
    # the hierarchical naive Bayes has k-row tables: nothing is left out
    hnb = sw.SweepConfig(clusterings=("avg",), hidden_states=(2, 3), direction="hnb")
    assert hnb.not_fitted() == {} and len(hnb.grid("avg")) == 2 * 4 * len(alphas)


def test_a_grid_without_a_fittable_configuration_is_refused():
    with pytest.raises(sw.SweepError, match=r"hidden_states \[3\] with B \[9\]: every table is above 2 \*\* 9"):
        sw.SweepConfig(B=(9,), hidden_states=(3,))
    # Table 4.1's settings (final_only) do not use the B grid: the first k is tested
    final = sw.SweepConfig(B=(9,), hidden_states=(3,), final_only=True)
    assert final.final_config("or") == (9, 0.09, 30, 3) and final.n_validation_cells(90) == 0


# --------------------------------------------------------------------------- cells
def test_binary_cell_keys_are_the_keys_of_earlier_versions():
    a = sw.Cell("validation", "earn", "HBN-AVG", 30, 3, 0.1, 64, 1e-4, 7, "f" * 64)
    nb = sw.Cell("test", "earn", "NB", 30, None, None, 64, 1e-4, 7, "f" * 64)
    # literals computed by the sweep before it had the hidden_states dimension
    assert a.key == "cc43c92a541de8e5e1cc9a68" and nb.key == "30fc57adf65d8e6d9e453327"
    # ... which hashed these params, without a hidden_states entry
    old = {"sweep_format": 1, "stage": "validation", "category": "earn", "classifier": "HBN-AVG", "n_features": 30,
           "B": 3, "alpha": 0.1, "n_restarts": 64, "tol": 1e-4, "seed": 7, "data": "f" * 64}
    assert a.key == hashlib.sha256(json.dumps(old, sort_keys=True).encode()).hexdigest()[:24]
    assert "hidden_states" not in a.params() and a.label == "validation earn HBN-AVG B=3 alpha=0.1 nf=30"
    three = sw.Cell(**{**a.__dict__, "hidden_states": 3})
    assert three.key != a.key and three.params()["hidden_states"] == 3 and three.config == (3, 0.1, 30, 3)
    assert three.label == "validation earn HBN-AVG B=3 alpha=0.1 k=3 nf=30"
    assert sw.Cell(**{**a.__dict__, "hidden_states": "auto"}).key not in {a.key, three.key}


def test_choose_and_plan_carry_k_golden(syn_data):
    cfg = sw.SweepConfig(categories="top2", clusterings=("avg",), B=(3, 5), alpha={"avg": (0.0,)}, n_features=(5,),
                         hidden_states=(2, 3), baselines=())
    grid = cfg.grid("avg")
    assert grid == [(3, 0.0, 5, 2), (5, 0.0, 5, 2), (3, 0.0, 5, 3)]  # 3 ** 5 = 243 rows > 2 ** 5: left out
    a, b = syn_data.categories[:2]
    table = {a: ([0.80, 0.85, 0.90], 100), b: ([0.60, 0.50, 0.40], 10)}
    val = {(c, "avg", conf): (bes[i], n) for c, (bes, n) in table.items() for i, conf in enumerate(grid)}
    ch = sw.choose_configs(cfg, [a, b], val)
    assert ch[(a, "avg")]["config"] == (3, 0.0, 5, 3) and ch[(b, "avg")]["config"] == (3, 0.0, 5, 2)
    # micro: (80 + 6) / 110, (85 + 5) / 110, (90 + 4) / 110 -> k = 3 globally
    assert ch[(a, "avg")]["global_validation_micro"] == pytest.approx(94 / 110)
    glob = sw.choose_configs(sw.SweepConfig(**{**cfg.to_dict(), "choose": "global"}), [a, b], val)
    assert {v["config"] for v in glob.values()} == {(3, 0.0, 5, 3)}
    # a tie goes to the earlier number of states
    tie = {**val, (a, "avg", (3, 0.0, 5, 2)): (0.90, 100)}
    assert sw.choose_configs(cfg, [a, b], tie)[(a, "avg")]["config"] == (3, 0.0, 5, 2)
    test = sw.plan_test_cells(cfg, syn_data, ch)
    assert [(c.category, c.B, c.hidden_states) for c in test] == [(a, 3, 3), (b, 3, 2)]
    assert [c.hidden_states for c in sw.plan_validation_cells(cfg, syn_data)] == [2, 2, 3] * 2


def _run_cell(cell, data):
    return run_inline(cell.spec("inline", data.input_name), {data.input_name: data.to_shared()})


def test_cell_task_fits_the_cells_number_of_states(syn_protocol, syn_data):
    """Oracle: the estimator fitted directly with hidden_states=3 gives the cell's breakeven and tree."""
    from hbnlab.evaluation import breakeven_point
    from hbnlab.models.catalog import make_classifier

    cat, name = "bravo", "HBN-AVG"
    seed = sw.cell_seed(0, cat, name)
    cell = sw.Cell("test", cat, name, 6, 2, 0.0, 2, 1e-4, seed, syn_data.fingerprint, 3)
    outcome, ctx = _run_cell(cell, syn_data)
    assert outcome.state == "done", outcome.error
    assert outcome.result["hidden_states"] == 3
    j = syn_protocol.categories.index(cat)
    X_fit, Y_fit, X_eval, Y_eval, _ = syn_protocol.split("test")
    est = make_classifier(name, 6, {"B": 2, "alpha": 0.0, "n_restarts": 2, "tol": 1e-4, "hidden_states": 3},
                          random_state=seed)
    est.fit(X_fit, Y_fit[:, j].astype(np.int8), selected_features=syn_protocol.ranked_features(j)[:6])
    assert outcome.result["breakeven"] == breakeven_point(Y_eval[:, j], est.decision_function(X_eval))
    tree = json.loads(ctx.blobs[ctx.artifacts["tree.json"]])
    direct = est.tree_.to_dict()
    assert all(tree[k] == direct[k] for k in ("up", "kind", "states")) and hidden_node_states(tree) == {3}


def test_a_table_the_estimator_refuses_is_recorded_in_validation(syn_data, monkeypatch):
    from hbnlab.bn.params import ParameterError
    from hbnlab.models.hbn import HierarchicalBNClassifier

    def refuse(self, X, y):
        raise ParameterError("node 0 ('c'): its parents have 2097152 configurations; at most 1048576")

    monkeypatch.setattr(HierarchicalBNClassifier, "_fit_selected", refuse)
    cell = sw.Cell("validation", "bravo", "HBN-AVG", 6, 2, 0.0, 2, 1e-4, 1, syn_data.fingerprint, "auto")
    outcome, _ = _run_cell(cell, syn_data)
    assert outcome.state == "done", outcome.error
    assert outcome.result["breakeven"] is None
    assert outcome.result["skipped"] == ("not fitted: node 0 ('c'): its parents have 2097152 configurations; "
                                         "at most 1048576")
    # a test cell must have scores: there the refusal fails the job, naming the table
    outcome, _ = _run_cell(sw.Cell(**{**cell.__dict__, "stage": "test"}), syn_data)
    assert outcome.state == "failed" and "2097152 configurations" in outcome.error


# --------------------------------------------------------------------------- sweeps on the local pool
BINARY = dict(categories="all", clusterings=("avg",), B=(2, 4), alpha={"avg": (0.0,)}, n_features=(6,),
              n_restarts=2, baselines=(), random_state=0)


def _run(runner, data, config):
    return sw.run_sweep(config, data, runner, sweep_id="k-sweep", timeout=180)


def test_sweep_over_k_resumes_a_binary_sweep_and_tests_the_chosen_k(local_runner, syn_data):
    binary = _run(local_runner, syn_data, sw.SweepConfig(**BINARY))
    assert binary.state == "done", binary.errors
    assert binary.job_stats["validation"]["submitted"] == 3 * 2

    logged = []
    config = sw.SweepConfig(**BINARY, hidden_states=(2, 3))
    result = sw.run_sweep(config, syn_data, local_runner, sweep_id="k-sweep", timeout=180, log=logged.append)
    assert result.state == "done", result.errors
    # the binary cells are the earlier sweep's; only k = 3 at B = 2 is new (3 ** 4 = 81 rows > 2 ** 4)
    assert result.job_stats["validation"] == {"reused": 6, "retried": 0, "submitted": 3, "waiting": 0}
    assert result.not_fitted() == [{"B": 4, "hidden_states": 3,
                                    "reason": "a node under 4 parents of 3 states has 81 rows, above 2 ** 4"}]
    assert any("not fitted" in line and "B=4 k=3" in line for line in logged)
    three = [v for v in result.validation if v.get("hidden_states") == 3]
    assert [(v["B"], v["category"]) for v in three] == [(2, c) for c in syn_data.categories]
    assert all(np.isfinite(v["breakeven"]) for v in three)
    # brute force: every choice is the best validation breakeven over (B, k), ties to the earlier grid entry
    for (cat, _), ch in result.choices.items():
        rows = [v for v in result.validation if v["category"] == cat]
        best = max(rows, key=lambda v: v["breakeven"])
        assert ch["how"] == "per-category" and ch["validation_breakeven"] == best["breakeven"]
        assert len(ch["config"]) == 4
    # every test cell is fitted with its category's chosen configuration, k included
    for t in result.test:
        ch = result.choices[(t["category"], "avg")]["config"]
        assert (t["B"], t["alpha"], t["n_features"], t["hidden_states"]) == ch
        assert hidden_node_states(result.trees["HBN-AVG"][t["category"]]) == {t["hidden_states"]}
    assert json.loads(json.dumps(result.to_dict()))["config"]["hidden_states"] == [2, 3]

    # only k = 3: every validation cell is reused, every test cell fits three-state hidden nodes
    only3 = _run(local_runner, syn_data, sw.SweepConfig(**BINARY, hidden_states=(3,)))
    assert only3.state == "done", only3.errors
    assert only3.job_stats["validation"] == {"reused": 3, "retried": 0, "submitted": 0, "waiting": 0}
    assert {v["config"] for v in only3.choices.values()} == {(2, 0.0, 6, 3)}
    assert {c: hidden_node_states(t) for c, t in only3.trees["HBN-AVG"].items()} == {
        c: {3} for c in syn_data.categories}
    assert [t["hidden_states"] for t in only3.test] == [3, 3, 3]
    # the table shows k (not for binary nodes) and says what was not fitted
    assert list(only3.table["rows"][0]["configs"]) == ["B=2 alpha=0 k=3 nf=6"]
    assert all("k=" not in key for key in binary.table["rows"][0]["configs"])
    md = sw.format_table_markdown(only3.table)
    assert "B=2 alpha=0 k=3 nf=6" in md and "B=4 k=3 (a node under 4 parents of 3 states has 81 rows" in md
    assert "hidden_states" in sw.cells_csv(only3.test).splitlines()[0].split(",")
