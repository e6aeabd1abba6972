"""One set of declared bounds (hbnlab.bounds), checked before anything is allocated by the estimator,
the command line, the experiment config (the workbench and the URL) and the synthetic generator."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hbnlab import bounds
from hbnlab.bounds import BoundsError
from hbnlab.cli import main
from hbnlab.models.hbn import HierarchicalBNClassifier, HierarchicalNBClassifier
from hbnlab.pipeline.config import ExperimentConfig

TRAIN = ["train", "--corpus", "synthetic", "--class", "alpha", "--out", "m.hbnlab"]

# the cases of issue 30 item 5: each was an allocation of TiB, an int64 overflow or a RuntimeError
CLI_CASES = [
    (["--param", "hidden_states=8", "--B", "12"],
     "HBN-OR with 8 hidden states at B = 12: a node's table would have 68,719,476,736 rows, more than the "
     "1,048,576 a fit accepts"),
    (["--n-restarts", "1000000000"], "--n-restarts must be an integer in 1..1024, got 1000000000"),
    (["--alpha", "1e308"], "--alpha must be a number in [0, 1e+06], got 1e+308"),
    (["--param", "hidden_states=100"], "hidden_states must be an integer in 2..8, 'auto' or 'auto-holdout', got 100"),
    (["--param", f"hidden_states={10**6}"], "hidden_states must be an integer in 2..8, 'auto' or 'auto-holdout', "
                                             "got 1000000"),
    (["--synthetic-size", "1000000000"], "--synthetic-size must be an integer in 20..200000, got 1000000000"),
    (["--random-state", "-1"], "--random-state must be an integer in 0..2147483647, got -1"),
    (["--classifier", "hnb-or", "--param", "hidden_states=9"], "hidden_states must be an integer in 2..8"),
]


@pytest.mark.parametrize("extra, message", CLI_CASES, ids=[" ".join(e) for e, _ in CLI_CASES])
def test_train_refuses_out_of_bounds_settings_before_reading_the_corpus(extra, message, capsys, tmp_path,
                                                                         monkeypatch):
    from hbnlab.experiments.manifest import CorpusSpec

    def no_corpus(self):
        raise AssertionError("the corpus was read before the settings were checked")

    monkeypatch.setattr(CorpusSpec, "load", no_corpus)
    monkeypatch.chdir(tmp_path)
    assert main(TRAIN + extra) == 2
    err = capsys.readouterr().err
    assert err.startswith("hbnlab: error: ") and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "m.hbnlab").exists()


def test_tree_and_reproduce_check_their_bounds_before_reading_the_corpus(capsys, monkeypatch):
    import hbnlab.cli.reproduce as cli_reproduce

    monkeypatch.setattr(cli_reproduce, "corpus_from_args", lambda *a, **k: pytest.fail("corpus read"))
    monkeypatch.setattr(cli_reproduce, "_protocol_data", lambda *a, **k: pytest.fail("corpus read"))
    assert main(["tree", "--corpus", "synthetic", "--class", "alpha", "--alpha", "inf"]) == 2
    assert "--alpha must be a number in [0, 1e+06], got inf" in capsys.readouterr().err
    assert main(["reproduce", "table-4.10", "--corpus", "synthetic", "--n-restarts", "5000"]) == 2
    assert "--n-restarts must be an integer in 1..1024, got 5000" in capsys.readouterr().err
    assert main(["reproduce", "table-4.10", "--corpus", "synthetic", "--param", "hidden_states=8", "--param",
                 "B=12"]) == 2
    assert "with 8 hidden states at B = 12: a node's table would have" in capsys.readouterr().err
    assert main(["reproduce", "table-4.10", "--corpus", "synthetic", "--param", "alpha=1e308"]) == 2
    assert "--param alpha must be a number in [0, 1e+06], got 1e+308" in capsys.readouterr().err
    import hbnlab.cli.sweep as cli_sweep

    monkeypatch.setattr(cli_sweep, "corpus_from_args", lambda *a, **k: pytest.fail("corpus read"))
    assert main(["sweep", "--corpus", "synthetic", "--n-restarts", "1000000000"]) == 2
    assert "--n-restarts must be an integer in 1..1024, got 1000000000" in capsys.readouterr().err


def test_sweep_config_shares_the_bounds():
    from hbnlab.experiments.sweep import SweepConfig, SweepError

    with pytest.raises(SweepError, match=r"n_restarts must be an integer in 1\.\.1024, got 1000000000"):
        SweepConfig(n_restarts=10**9)
    with pytest.raises(SweepError, match=r"alpha of 'avg' must be a number in \[0, 1e\+06\], got 1e\+308"):
        SweepConfig(clusterings=("avg",), alpha={"avg": [1e308]})


@pytest.fixture(scope="module")
def tiny():
    rng = np.random.default_rng(0)
    X = (rng.random((60, 8)) < 0.3).astype(float)
    y = np.r_[np.ones(20), np.zeros(40)].astype(int)
    return X, y


ESTIMATOR_CASES = [
    (HierarchicalBNClassifier, {"hidden_states": 8, "B": 12}, "with 8 hidden states at B = 12"),
    (HierarchicalBNClassifier, {"n_restarts": 10**9}, r"n_restarts must be an integer in 1\.\.1024, got 1000000000"),
    (HierarchicalBNClassifier, {"alpha": 1e308}, r"alpha must be a number in \[0, 1e\+06\] or None, got 1e\+308"),
    (HierarchicalBNClassifier, {"alpha": float("nan")}, r"alpha must be a number in \[0, 1e\+06\] or None, got nan"),
    (HierarchicalBNClassifier, {"hidden_states": 100}, r"hidden_states must be an integer in 2\.\.8"),
    (HierarchicalBNClassifier, {"hidden_states": 10**6}, r"hidden_states must be an integer in 2\.\.8"),
    (HierarchicalNBClassifier, {"hidden_states": np.int64(10**6)}, r"hidden_states must be an integer in 2\.\.8"),
    (HierarchicalNBClassifier, {"n_restarts": 2000}, r"n_restarts must be an integer in 1\.\.1024, got 2000"),
]


@pytest.mark.parametrize("cls, params, message", ESTIMATOR_CASES, ids=[str(p) for _, p, _ in ESTIMATOR_CASES])
def test_the_estimator_checks_its_bounds_before_it_allocates(cls, params, message, tiny):
    X, y = tiny
    with pytest.raises(ValueError, match=message):
        cls(n_features=None, **params).fit(X, y)


def test_in_bound_settings_still_fit(tiny):
    X, y = tiny
    clf = HierarchicalBNClassifier(n_features=None, B=3, hidden_states=3, n_restarts=2, alpha=0.0,
                                   random_state=0).fit(X, y)
    assert clf.predict_proba(X).shape == (60, 2)
    HierarchicalNBClassifier(n_features=None, B=12, hidden_states=8, n_restarts=1, random_state=0).fit(X, y)


def test_fit_em_and_the_synthetic_generators_refuse_what_they_cannot_hold():
    from hbnlab.bn.em import fit_em
    from hbnlab.corpus import make_synthetic_corpus
    from hbnlab.corpus.synthetic_hierarchy import make_hierarchical_corpus

    with pytest.raises(BoundsError, match="n_restarts must be an integer in 1..1024"):
        fit_em(None, np.zeros((2, 2)), np.zeros(2), n_restarts=10**9)
    with pytest.raises(ValueError, match=r"n_documents must be an integer in 8\.\.200000, got 1000000000"):
        make_synthetic_corpus(n_documents=10**9)
    with pytest.raises(ValueError, match=r"n_documents must be an integer in 18\.\.200000"):
        make_hierarchical_corpus(n_documents=10**9)


def test_the_config_and_the_url_share_the_bounds():
    for name, bound in (("n_restarts", bounds.N_RESTARTS), ("random_state", bounds.SEED),
                        ("synthetic_seed", bounds.SEED), ("min_df", bounds.MIN_DF),
                        ("synthetic_size", bounds.SYNTHETIC_SIZE), ("n_features", bounds.N_FEATURES)):
        ExperimentConfig(**{name: bound.hi})
        with pytest.raises(ValueError, match=f"{name} must be an integer in {bound.lo}..{bound.hi}"):
            ExperimentConfig(**{name: bound.hi + 1})
        cfg, problems = ExperimentConfig.from_query({name: str(bound.hi + 1)})
        assert getattr(cfg, name) == getattr(ExperimentConfig(), name)
        assert problems == [f"URL parameter {name}={str(bound.hi + 1)!r} ignored: {name} must be an integer in "
                            f"{bound.lo}..{bound.hi}, got {bound.hi + 1}"]


def test_bound_membership_refuses_bools_non_integers_and_non_finite_values():
    assert 3 in bounds.HIDDEN_STATES and np.int64(3) in bounds.HIDDEN_STATES
    assert True not in bounds.HIDDEN_STATES and 3.0 not in bounds.HIDDEN_STATES and "3" not in bounds.HIDDEN_STATES
    assert 0.5 in bounds.ALPHA and np.float32(0.5) in bounds.ALPHA
    assert float("inf") not in bounds.ALPHA and float("nan") not in bounds.ALPHA and -0.1 not in bounds.ALPHA
    assert bounds.hbn_table_rows(20, 2) == bounds.MAX_TABLE_ROWS
    bounds.check_table_rows(20, 2)
    with pytest.raises(BoundsError, match="an HBN at B = 21: a node would have 21 parents, more than the 20"):
        bounds.check_table_rows(21, 2)
    with pytest.raises(BoundsError, match="an HBN with 3 hidden states at B = 13"):
        bounds.check_table_rows(13, 3)


# issue 37 item 4: a 400-digit integer was an OverflowError of math.isfinite, not a BoundsError
HUGE = 10**400


def test_a_huge_integer_is_refused_naming_the_parameter_not_an_overflow():
    for bound in (bounds.N_RESTARTS, bounds.ALPHA, bounds.SEED, bounds.HIDDEN_STATES):
        assert HUGE not in bound and -HUGE not in bound
        with pytest.raises(BoundsError, match=f"^{bound.name} must be .*, got an integer of 401 digits$"):
            bound.check(HUGE)
    with pytest.raises(BoundsError, match="n_restarts must be an integer in 1..1024, got an integer of 401 digits"):
        bounds.validate_params({"n_restarts": HUGE}, {"n_restarts": [bounds.N_RESTARTS]})
    # past the 4300 digits int() and repr() take: still the parameter's name, not "Exceeds the limit"
    with pytest.raises(BoundsError, match="n_restarts must be an integer in 1..1024, got an integer of 5001 digits"):
        bounds.N_RESTARTS.check(10**5000)
    assert 10**300 in bounds.Bound("big", 0, math.inf)  # an integer has no infinity: finite however long


@pytest.mark.parametrize("params, name", [({"n_restarts": HUGE}, "n_restarts"), ({"alpha": HUGE}, "alpha"),
                                          ({"random_state": HUGE}, "random_state"),
                                          ({"hidden_states": HUGE}, "hidden_states")])
def test_the_estimator_refuses_a_huge_integer_with_a_bounds_error(params, name, tiny):
    X, y = tiny
    with pytest.raises(BoundsError, match=f"{name} must be .*got an integer of 401 digits"):
        HierarchicalBNClassifier(n_features=None, **params).fit(X, y)


@pytest.mark.parametrize("flag", ["--n-restarts", "--random-state", "--alpha"])
def test_the_command_line_refuses_a_huge_integer_in_one_line(flag, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(TRAIN + [flag, "9" * 400]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hbnlab: error: {flag} must be ") and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1


def test_the_url_refuses_a_huge_integer_and_keeps_the_default():
    for name in ("n_restarts", "random_state", "min_df", "synthetic_size"):
        cfg, problems = ExperimentConfig.from_query({name: "9" * 400})
        assert getattr(cfg, name) == getattr(ExperimentConfig(), name)
        assert len(problems) == 1 and problems[0].startswith(f"URL parameter {name}=") \
            and f"{name} must be an integer in" in problems[0], problems


# issue 37 item 5: k ** B was computed before it was compared (B = 10**12 ran for minutes, 10**8 ended in
# "Exceeds the limit (4300 digits) for integer string conversion")
@pytest.mark.parametrize("B", [21, 10**8, 10**12, HUGE])
def test_a_huge_branching_factor_is_refused_naming_b_and_the_limit_without_computing_the_table(B):
    shown = f"{B:,}" if B < 10**30 else "an integer of 401 digits"
    with pytest.raises(BoundsError, match=f"B = {shown}: a node would have {shown} parents, more than the "
                                          f"{bounds.MAX_PARENTS} .*MAX_PARENTS"):
        bounds.check_table_rows(B, 2)
    with pytest.raises(BoundsError, match="MAX_PARENTS"):
        bounds.hbn_table_rows(B, 8)
    bounds.check_table_rows(bounds.MAX_PARENTS, 2)


@pytest.mark.parametrize("argv", [TRAIN + ["--B", "1000000000000"],
                                  TRAIN + ["--B", "100000000"],
                                  ["sweep", "--corpus", "synthetic", "--B", "3,1000000000000"]],
                         ids=["train-1e12", "train-1e8", "sweep-3,1e12"])
def test_the_command_line_refuses_a_huge_b_before_reading_the_corpus(argv, capsys, tmp_path, monkeypatch):
    import hbnlab.cli.sweep as cli_sweep
    from hbnlab.experiments.manifest import CorpusSpec

    monkeypatch.setattr(CorpusSpec, "load", lambda self: pytest.fail("the corpus was read"))
    monkeypatch.setattr(cli_sweep, "corpus_from_args", lambda *a, **k: pytest.fail("the corpus was read"))
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("hbnlab: error: ") and len(err.strip().splitlines()) == 1, err
    assert "a node would have" in err and f"more than the {bounds.MAX_PARENTS}" in err and "4300" not in err, err


def test_the_sweep_config_refuses_a_huge_b_of_an_hbn_grid():
    from hbnlab.experiments.sweep import SweepConfig, SweepError

    with pytest.raises((SweepError, BoundsError), match="B = 1,000,000,000,000: a node would have"):
        SweepConfig(B=(3, 10**12))
    SweepConfig(B=(3, 10**12), direction="hnb")  # an HNB's tables have k rows whatever B is


# issue 37 item 6: KDB's k sized a table of 2 ** (k + 1) rows per term with no upper end
def test_kdb_k_has_a_declared_upper_bound():
    from hbnlab.models.kdb import KDependenceBNClassifier

    assert KDependenceBNClassifier._parameter_constraints["k"] == [bounds.KDB_PARENTS]
    assert bounds.KDB_PARENTS.hi < 25 and 5 in bounds.KDB_PARENTS  # Sahami's largest k is 5
    X = np.eye(4, dtype=int)
    with pytest.raises(BoundsError, match=f"k must be an integer in 0..{bounds.KDB_PARENTS.hi}, got 25"):
        KDependenceBNClassifier(k=25).fit(X, [0, 1, 0, 1])


@pytest.mark.parametrize("k", ["25", "40"])
def test_the_command_line_refuses_kdb_k_before_reading_the_corpus(k, capsys, tmp_path, monkeypatch):
    from hbnlab.experiments.manifest import CorpusSpec

    monkeypatch.setattr(CorpusSpec, "load", lambda self: pytest.fail("the corpus was read"))
    monkeypatch.chdir(tmp_path)
    assert main(TRAIN + ["--classifier", "kdb", "--param", f"k={k}"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"hbnlab: error: --param k must be an integer in 0..{bounds.KDB_PARENTS.hi}, got {k}", err
