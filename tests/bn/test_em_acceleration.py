"""SQUAREM acceleration and short-run screening of EM restarts (hbnlab.bn.em): the trial point by
hand, monotone traces, the same stopping rule as plain EM, the same fixed point, planted recovery,
fewer E-steps; screening keeps the best restarts and leaves plain EM untouched when it is off."""
import bn_oracle as O
import numpy as np
import pytest

from hbnlab._validation import Cancelled
from hbnlab.bn import em
from hbnlab.bn import inference as I
from hbnlab.models.hbn import HierarchicalBNClassifier, HierarchicalNBClassifier

_sampled = O.sampled


# ----------------------------------------------------------------------------- the trial point
def test_extrapolation_by_hand():
    t0 = [np.array([[[0.5, 0.5]]]), np.array([[[0.9, 0.1]]])]
    t1 = [t0[0], np.array([[[0.8, 0.2]]])]
    t2 = [t0[0], np.array([[[0.75, 0.25]]])]
    trial, a = em._extrapolate(t0, t1, t2, [1])
    # r = (-0.1, 0.1), v = (0.05, -0.05): a = -|r| / |v| = -2; t0 - 2 a r + a^2 v = (0.7, 0.3)
    assert a.tolist() == pytest.approx([-2.0])
    np.testing.assert_allclose(trial[1], [[[0.7, 0.3]]], atol=1e-15)
    assert trial[0] is t0[0]                  # tables EM does not learn stay as they are
    # a step that would leave the simplex, or shrink a probability below SQUAREM_MIN_RATIO of its
    # value at t2, is halved towards -1: v = (0.01, -0.01), a = -10 gives (-0.1, 1.1);
    # a = -5.5 gives (0.9 - 1.1 + 0.3025, ...) = (0.1025, 0.8975)
    t2 = [t0[0], np.array([[[0.71, 0.29]]])]
    trial, a = em._extrapolate(t0, t1, t2, [1])
    assert a.tolist() == pytest.approx([-5.5])
    np.testing.assert_allclose(trial[1], [[[0.1025, 0.8975]]], rtol=1e-12)
    # with a tight ratio the same step is halved further
    t2 = [t0[0], np.array([[[0.71, 0.29]]])]
    trial, a = em._extrapolate(t0, t1, t2, [1], min_ratio=0.5)
    assert a.tolist() == pytest.approx([-3.25])       # 0.3556 >= 0.355 at -3.25; 0.1025 < 0.355 at -5.5
    # no curvature (v = 0): the plain two-step point t2
    t0, t1, t2 = ([t0[0], np.array([[[p, 1 - p]]])] for p in (0.75, 0.5, 0.25))
    trial, a = em._extrapolate(t0, t1, t2, [1])
    assert a.tolist() == [-1.0]
    np.testing.assert_allclose(trial[1], t2[1], atol=1e-15)


# ----------------------------------------------------------------------------- the loop
@pytest.mark.parametrize("direction", ["hbn", "hnb"])
@pytest.mark.parametrize("states", [2, 3])
def test_squarem_traces_never_decrease_and_the_safeguard_is_exercised(direction, states):
    tree, _, X, y = _sampled(direction, seed=1, n=800, states=states)
    points = []
    res = em.fit_em(tree, X, y, n_restarts=6, random_state=0, stopping="absolute", tol=1e-7, max_iter=300,
                    acceleration="squarem", observer=lambda d: points.append(d["point"]))
    for trace in res.traces:
        assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[:-1])), np.diff(trace).min()
    assert "extrapolated" in points and res.settings["acceleration"] == "squarem"
    assert (res.n_iter <= 300).all()


@pytest.mark.parametrize("stopping", ["absolute", "relative"])
def test_squarem_stops_on_the_gain_of_one_plain_em_step(stopping):
    tree, _, X, y = _sampled("hbn", seed=6, n=1000)
    tol = 1e-3 if stopping == "absolute" else 1e-6
    res = em.fit_em(tree, X, y, n_restarts=5, random_state=0, stopping=stopping, tol=tol, max_iter=2000,
                    acceleration="squarem")
    assert res.converged.all()
    for trace in res.traces:
        # the trace holds (t0, t1) pairs: t1 = M(t0) is one EM step; the rule fires at the last pair only
        assert trace.size % 2 == 0
        step_gain = trace[1::2] - trace[0::2]
        thr = tol if stopping == "absolute" else tol * np.abs(trace[0::2])
        small = step_gain < thr
        assert small[-1] and not small[:-1].any()


@pytest.mark.parametrize("direction, seed", [("hbn", 5), ("hnb", 4)])
def test_squarem_reaches_the_plain_fixed_point_in_fewer_e_steps(direction, seed):
    tree, _, X, y = _sampled(direction, seed=seed, n=1500)
    kw = dict(n_restarts=1, random_state=3, stopping="absolute", tol=1e-8, max_iter=20000)
    plain = em.fit_em(tree, X, y, **kw)
    fast = em.fit_em(tree, X, y, acceleration="squarem", **kw)
    assert plain.converged.all() and fast.converged.all()
    assert fast.log_likelihood == pytest.approx(plain.log_likelihood, abs=1e-5)
    # both stop on a gain below 1e-8 along a flat ridge, not exactly at the fixed point: the
    # tables differ there by up to ~1e-3 and the class posteriors by ~5e-5 on average
    p_plain = I.class_posterior(plain.params, X)[:, 1]
    p_fast = I.class_posterior(fast.params, X)[:, 1]
    assert np.abs(p_plain - p_fast).mean() < 2e-4 and np.abs(p_plain - p_fast).max() < 1e-2
    assert fast.n_iter[0] < plain.n_iter[0] / 2, (fast.n_iter, plain.n_iter)


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_squarem_planted_structure_recovery(direction):
    tree, true, X, y = _sampled(direction, seed=3, n=4000)
    res = em.fit_em(tree, X, y, n_restarts=16, random_state=0, stopping="absolute", tol=1e-5, max_iter=500,
                    acceleration="squarem")
    ll_true = I.log_likelihood(true, X, y)
    assert res.full_log_likelihood[res.best_restart] >= ll_true - 1e-3 * abs(ll_true)
    Xn, _, _ = O.sample(true, 3000, np.random.default_rng(99))
    p_true = I.class_posterior(true, Xn)[:, 1]
    p_fit = I.class_posterior(res.params, Xn)[:, 1]
    assert np.mean(np.abs(p_true - p_fit)) < 0.05


def test_squarem_progress_and_cancellation_keep_consistent_results():
    tree, _, X, y = _sampled("hnb", seed=8, n=500)
    seen = []
    res = em.fit_em(tree, X, y, n_restarts=4, random_state=0, progress=seen.append, acceleration="squarem")
    assert seen[-1]["n_running"] == 0
    assert seen[-1]["best_log_likelihood"] == pytest.approx(res.log_likelihood)
    calls = []
    with pytest.raises(Cancelled) as info:
        em.fit_em(tree, X, y, n_restarts=4, random_state=0, tol=0.0, acceleration="squarem",
                  should_stop=lambda: calls.append(1) or len(calls) >= 3)
    r = info.value.result
    assert r.cancelled
    # the returned parameters are the iterate whose criterion is reported
    best = I.log_likelihood(r.params, X, y)
    assert best == pytest.approx(r.log_likelihood, rel=1e-12)


# ----------------------------------------------------------------------------- screening
@pytest.mark.parametrize("acceleration", [None, "squarem"])
def test_screening_keeps_the_best_restarts_at_the_screen(acceleration):
    tree, _, X, y = _sampled("hnb", seed=2, n=800)
    at = {}

    def observe(d):
        if d["point"] == "em":
            for r, v in zip(d["restarts"].tolist(), d["log_likelihood"].tolist()):
                at.setdefault(d["iteration"], {})[r] = v

    res = em.fit_em(tree, X, y, n_restarts=12, random_state=0, tol=0.0, stopping="absolute", max_iter=40,
                    acceleration=acceleration, screen_iter=3, screen_keep=4, observer=observe)
    cut = res.settings["screened_out"]
    assert len(cut) == 8 and res.settings["screen_keep"] == 4
    kept = sorted(set(range(12)) - set(cut))
    screen_it = min(i for i in at if i >= 3)
    vals = at[screen_it]
    assert min(vals[r] for r in kept) >= max(vals[r] for r in cut)
    assert (res.n_iter[cut] == screen_it).all() and (res.n_iter[kept] > screen_it).all()
    assert not res.converged[cut].any()
    assert res.best_restart in kept


def test_without_screening_nothing_changes_and_wide_screens_cut_nothing():
    tree, _, X, y = _sampled("hbn", seed=5, n=600)
    plain = em.fit_em(tree, X, y, n_restarts=6, random_state=0)
    wide = em.fit_em(tree, X, y, n_restarts=6, random_state=0, screen_iter=2, screen_keep=6)
    assert wide.settings["screened_out"] == [] and "screened_out" not in plain.settings
    for a, b in zip(plain.traces, wide.traces):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(plain.params.cpts[0], wide.params.cpts[0])


def test_bad_options_are_named():
    tree, _, X, y = _sampled("hbn", seed=5, n=100)
    for kw, word in [({"acceleration": "aitken"}, "acceleration"), ({"screen_iter": -1}, "screen_iter"),
                     ({"screen_keep": 0}, "screen_keep"), ({"screen_iter": True}, "screen_iter")]:
        with pytest.raises(ValueError, match=word):
            em.fit_em(tree, X, y, n_restarts=2, **kw)


# ----------------------------------------------------------------------------- estimators
@pytest.mark.parametrize("cls", [HierarchicalBNClassifier, HierarchicalNBClassifier])
def test_estimators_pass_the_options_and_stay_deterministic(cls):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (300, 12))
    y = (X[:, 0] | X[:, 1]) & rng.integers(0, 2, 300)
    kw = dict(B=3, n_features=None, n_restarts=8, random_state=0, acceleration="squarem", screen_iter=2,
              screen_keep=3)
    a = cls(**kw).fit(X, y)
    b = cls(**kw).fit(X, y)
    assert a.em_result_.settings["acceleration"] == "squarem"
    assert len(a.em_result_.settings["screened_out"]) == 5
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_squarem_with_a_pseudo_count_never_lowers_the_map_objective(direction):
    tree, _, X, y = _sampled(direction, seed=2, n=500)
    res = em.fit_em(tree, X, y, n_restarts=4, random_state=0, pseudo_count=0.5, stopping="absolute", tol=1e-8,
                    max_iter=200, acceleration="squarem", sample_weight=np.arange(500) % 3)
    for trace in res.traces:
        assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[:-1]))
    # the reported criterion is the MAP objective of the kept tables
    p = res.params
    learned = [i for i in range(tree.n_nodes) if not (direction == "hbn" and tree.kind[i] == "feature")]
    w = np.arange(500) % 3
    ll = (w * I.log_likelihood(p, X, y, per_document=True)).sum()
    obj = ll + 0.5 * sum(np.log(p.cpt(i)).sum() for i in learned)
    assert obj == pytest.approx(res.log_likelihood, rel=1e-9)
