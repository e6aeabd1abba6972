"""Paired comparison of two systems: bootstrap intervals of breakeven differences and McNemar."""
from __future__ import annotations

import numpy as np
import pytest

from hbnlab.evaluation import bootstrap_micro, macro_breakeven, mcnemar, micro_breakeven, paired_bootstrap


def _data(n=400, m=3, seed=0):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, m)) < [0.3, 0.1, 0.05][:m]).astype(int)
    noisy = Y + rng.normal(0, 0.8, size=Y.shape)
    return Y, noisy, rng


def test_identical_systems_differ_by_nothing():
    Y, S, _ = _data()
    t = paired_bootstrap(Y, S, S, categories=["a", "b", "c"], n_boot=50)
    assert list(t.index) == ["a", "b", "c", "micro", "macro"]
    assert np.allclose(t["B - A"], 0) and np.allclose(t[["low", "high"]], 0) and np.allclose(t["p"], 1)


def test_point_values_are_the_library_breakevens():
    Y, S, rng = _data()
    S2 = S + rng.normal(0, 0.5, size=S.shape)
    t = paired_bootstrap(Y, S, S2, n_boot=20)
    assert t.loc["micro", "A"] == pytest.approx(100 * micro_breakeven(Y, S))
    assert t.loc["macro", "B"] == pytest.approx(100 * macro_breakeven(Y, S2))
    assert t.loc["micro", "B - A"] == pytest.approx(t.loc["micro", "B"] - t.loc["micro", "A"])


def test_a_clearly_better_system_is_significant_and_a_reshuffle_is_not():
    Y, S, rng = _data(n=600)
    better = Y + rng.normal(0, 0.2, size=Y.shape)            # much less noise
    t = paired_bootstrap(Y, S, better, n_boot=300, random_state=1)
    assert (t["B - A"] > 0).all() and (t["low"] > 0).all() and (t["p"] < 0.01).all()
    same_quality = Y + rng.normal(0, 0.8, size=Y.shape)     # a second draw of the same noise level
    t2 = paired_bootstrap(Y, S, same_quality, n_boot=300, random_state=1)
    assert t2.loc["micro", "low"] < 0 < t2.loc["micro", "high"] or t2.loc["micro", "p"] > 0.01


def test_seeded_and_checked():
    Y, S, rng = _data(n=100)
    S2 = S[::-1].copy()
    a = paired_bootstrap(Y, S, S2, n_boot=30, random_state=5)
    b = paired_bootstrap(Y, S, S2, n_boot=30, random_state=5)
    assert a.equals(b)
    with pytest.raises(ValueError, match="n_boot"):
        paired_bootstrap(Y, S, S2, n_boot=0)
    with pytest.raises(ValueError, match="shape"):
        paired_bootstrap(Y, S, S2[:5])
    with pytest.raises(ValueError, match="categories"):
        paired_bootstrap(Y, S, S2, categories=["x"])


def test_mcnemar_hand_computed():
    # 10 documents: A is right on documents 0-8, B on 0, 7, 8 and 9; only A is right on 1-6, only B on 9
    y = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
    a = np.array([.9, .9, .9, .9, .9, .1, .1, .1, .1, .9])
    b = np.array([.9, .1, .1, .1, .1, .9, .9, .1, .1, .1])
    t = mcnemar(y[:, None], a[:, None], b[:, None], categories=["c"])
    assert t.loc["c", "only A right"] == 6 and t.loc["c", "only B right"] == 1
    # two-sided exact binomial: P(X <= 1) + P(X >= 6) for X ~ Bin(7, 1/2) = 2 * (1 + 7) / 128
    assert t.loc["c", "p"] == pytest.approx(2 * 8 / 128)
    assert mcnemar(y[:, None], a[:, None], a[:, None])["p"].iloc[0] == 1.0


def test_bootstrap_micro_shares_resamples_and_matches_paired_bootstrap():
    Y, S, rng = _data(n=200)
    S2 = Y + rng.normal(0, 0.3, size=Y.shape)
    boot = bootstrap_micro(Y, [S, S2, S], n_boot=40, random_state=3)
    assert boot.shape == (40, 3)
    np.testing.assert_array_equal(boot[:, 0], boot[:, 2])          # the same resamples for every system
    t = paired_bootstrap(Y, S, S2, n_boot=40, random_state=3)
    d = boot[:, 1] - boot[:, 0]
    assert t.loc["micro", "low"] == pytest.approx(np.quantile(d, 0.025))


def _resampled_by_hand(Y, S, W):
    """Each resample written out (document i repeated W[r, i] times) and scored by the one-class
    breakeven of the measures module."""
    from hbnlab.evaluation.measures import per_class_breakeven

    out = []
    for w in W:
        idx = np.repeat(np.arange(len(w)), w)
        out.append(per_class_breakeven(Y[idx], S[idx]))
    return np.array(out)


@pytest.mark.parametrize("seed", range(6))
def test_resampled_breakevens_equal_each_resample_written_out(seed):
    """Ties (a few score levels), blocks drawn 0 times, classes without positives in a resample and
    positives at every rate: the same numbers to the bit as breakeven on the repeated documents."""
    from hbnlab.evaluation.compare import resampled_breakevens

    rng = np.random.RandomState(seed)
    n, m = rng.randint(3, 200), rng.randint(1, 4)
    Y = (rng.rand(n, m) < [0.02, 0.3, 0.8][:m]).astype(int)
    S = rng.randint(0, rng.randint(1, 9), (n, m)) / 7.0 if seed % 2 else rng.randn(n, m)
    W = np.stack([np.bincount(rng.randint(0, n, n), minlength=n) for _ in range(40)])
    W[0] = 0
    W[0, :2] = 1  # a tiny resample: most blocks drawn 0 times
    B, n_pos = resampled_breakevens(Y, S, W)
    np.testing.assert_array_equal(B, _resampled_by_hand(Y, S, W))
    np.testing.assert_array_equal(n_pos, W @ Y)


def test_the_bootstrap_draws_the_documents_of_the_documented_resamples():
    """paired_bootstrap's resample r is rng.integers(0, n, size=n) of default_rng(random_state), one
    after the other: recomputed here by hand for the micro row."""
    from hbnlab.evaluation.measures import per_class_breakeven

    rng = np.random.RandomState(3)
    Y = (rng.rand(150, 3) < 0.2).astype(int)
    Sa, Sb = rng.randn(150, 3), rng.randint(0, 4, (150, 3)).astype(float)
    t = paired_bootstrap(Y, Sa, Sb, n_boot=200, random_state=5)
    draw = np.random.default_rng(5)
    diffs = []
    for _ in range(200):
        idx = draw.integers(0, 150, size=150)
        pos = Y[idx].sum(0)
        ba, bb = per_class_breakeven(Y[idx], Sa[idx]), per_class_breakeven(Y[idx], Sb[idx])
        ok = ~np.isnan(ba)
        diffs.append(np.sum(bb[ok] * pos[ok]) / pos[ok].sum() - np.sum(ba[ok] * pos[ok]) / pos[ok].sum())
    low, high = np.quantile(diffs, [0.025, 0.975])
    # the same resamples; only the order of the last multiplications differs from the function's
    assert (t.loc["micro", "low"], t.loc["micro", "high"]) == pytest.approx((100 * low, 100 * high), rel=1e-13)
