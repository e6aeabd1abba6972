"""EM (hbnlab.bn.em): the vectorized E-step against a slow per-document brute force, the M-step
by hand, monotone log-likelihood, planted-structure recovery, determinism, the stopping rules,
progress / cancellation and the zero-count rule."""
import json

import bn_oracle as O
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hbnlab._validation import Cancelled
from hbnlab.bn import em
from hbnlab.bn import hnb_kernels as HK
from hbnlab.bn import inference as I
from hbnlab.bn import kernels as K
from hbnlab.bn.params import TreeParameters
from hbnlab.bn.structure import FEATURE, TreeStructure

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def problems(draw):
    nested = O.nested_from_draw(draw, st)
    tree = TreeStructure.from_nested(nested, direction=draw(st.sampled_from(["hbn", "hnb"])))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    params = O.random_params(tree, rng, draw(st.sampled_from([0.3, 1.0, 4.0])))
    n = draw(st.integers(1, 30))
    X = rng.integers(0, 2, (n, tree.n_features))
    y = rng.integers(0, 2, n)
    return params, X, y


def _batched(params_list):
    return [np.stack([p.cpts[i] for p in params_list]) for i in range(params_list[0].tree.n_nodes)]


# ----------------------------------------------------------------------------- E-step
@SETTINGS
@given(problems())
def test_e_step_counts_equal_per_document_brute_force(prob):
    params, X, y = prob
    data = em.EMData.from_documents(params.tree, X, y)
    stats = em.e_step(data, _batched([params]))
    expect = O.expected_counts(params, X, y)
    tree = params.tree
    for i in range(tree.n_nodes):
        if tree.direction == "hbn" and tree.kind[i] == FEATURE:
            assert i not in stats.counts          # fixed marginals: no statistics
        else:
            np.testing.assert_allclose(stats.counts[i][0], expect[i], atol=1e-9)
    assert stats.log_likelihood[0] == pytest.approx(O.log_likelihood(params, X, y), abs=1e-9)
    assert stats.conditional_log_likelihood[0] == pytest.approx(
        O.log_likelihood(params, X, y, conditional=True), abs=1e-9)


@SETTINGS
@given(problems(), st.integers(1, 5))
def test_batched_restarts_and_chunking_match_single_runs(prob, R):
    params, X, y = prob
    rng = np.random.default_rng(R)
    many = [O.random_params(params.tree, rng) for _ in range(R)]
    data = em.EMData.from_documents(params.tree, X, y)
    batch = em.e_step(data, _batched(many))
    old = K.MAX_BLOCK_ELEMENTS
    try:
        K.MAX_BLOCK_ELEMENTS = 1          # one restart per chunk
        chunked = em.e_step(data, _batched(many))
    finally:
        K.MAX_BLOCK_ELEMENTS = old
    for r, p in enumerate(many):
        single = em.e_step(data, _batched([p]))
        for i, N in single.counts.items():
            np.testing.assert_allclose(batch.counts[i][r], N[0], rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(chunked.counts[i][r], N[0], rtol=1e-12, atol=1e-12)
        assert batch.log_likelihood[r] == pytest.approx(single.log_likelihood[0], rel=1e-12)


@pytest.fixture(params=[True, False], ids=["compiled", "numpy"])
def jit(request, monkeypatch):
    """Both routes of the wide ("split") and narrow ("gather") HBN nodes and of the HNB's hidden
    children: the compiled loops and numpy."""
    monkeypatch.setattr(K, "USE_JIT", request.param)
    return request.param


def test_compiled_wide_node_loops_are_installed():
    # numba is a requirement: the compiled route is the one that runs, not the fallback
    assert K.USE_JIT and K.compiled_kernels().child_terms is not None


def test_hbn_wide_nodes_use_every_kernel_path(jit):
    # nodes with >= 3 hidden children run in "split" mode (with and without feature children),
    # others densely (hidden children only) or by gathering; all must match the brute force
    tree = TreeStructure.from_nested([[[0, 1], [2, 3], [4, 5], 6], 7])
    data = em.EMData.from_documents(tree, np.zeros((1, 8)), [0])
    modes = {nd.mode for nd in data.plan.nodes.values()}
    assert modes == {"split", "gather"}
    tree2 = TreeStructure.from_nested([[[0, 1], [2, 3], [4, 5]]])
    modes2 = {nd.mode for nd in em.EMData.from_documents(tree2, np.zeros((1, 6)), [0]).plan.nodes.values()}
    assert modes2 == {"split", "dense", "gather"}
    tree3 = TreeStructure.from_nested([[[0, 1], [2, 3], 4], 5])   # gather nodes with 0, 1, 2 hidden children
    plan3 = em.EMData.from_documents(tree3, np.zeros((1, 6)), [0]).plan
    assert {(nd.mode, nd.h) for nd in plan3.nodes.values()} == {("gather", 0), ("gather", 1), ("gather", 2)}
    rng = np.random.default_rng(5)
    for t in (tree, tree2, tree3):
        p = O.random_params(t, rng)
        X = rng.integers(0, 2, (40, t.n_features))
        y = rng.integers(0, 2, 40)
        stats = em.e_step(em.EMData.from_documents(t, X, y), _batched([p]))
        expect = O.expected_counts(p, X, y)
        for i, N in stats.counts.items():
            np.testing.assert_allclose(N[0], expect[i], atol=1e-9)


def _deep_tree_data(seed, direction, states):
    """An AVG tree with B = 3 over 40 terms of 600 random documents (depth >= 4, > 200 patterns),
    in ``direction`` with hidden nodes of ``states`` states, and its EM data."""
    from hbnlab.clustering import construct_tree

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 600)
    X = (rng.random((600, 40)) < np.where(y[:, None] == 1, 0.35, 0.15)).astype(int)
    tree = construct_tree(X, y, B=3, clustering="avg", alpha=0.0).with_direction(direction)
    tree = tree if states == 2 else tree.with_states(states)
    data = em.EMData.from_documents(tree, X, y)
    assert max(tree.depth(i) for i in range(tree.n_nodes)) >= 4 and data.plan.P > 200
    return tree, data


@pytest.mark.parametrize("states", [2, 3])
def test_sub_pattern_downward_pass_equals_the_per_pattern_pass(states):
    # the E-step carries count-weighted sums of the downward messages on sub-patterns; the
    # per-pattern pass (the one posteriors need) is an independent route to the same counts.
    # A deep tree (chains of hidden nodes, every kernel mode) on 600 documents, many patterns.
    tree, data = _deep_tree_data(11, "hbn", states)
    cpts = em.initial_parameters(data, 3, random_state=0)
    agg, ll = K.hbn_estep(data.plan, cpts, data.y, data.counts)
    per, ll2 = K.hbn_estep(data.plan, cpts, data.y, data.counts, per_pattern=True)
    np.testing.assert_array_equal(ll, ll2)
    with pytest.raises(ValueError, match="per_pattern"):
        K.hbn_estep(data.plan, cpts, data.y, data.counts, return_posteriors=True, per_pattern=False)
    for i in agg:
        np.testing.assert_allclose(agg[i], per[i], rtol=1e-11, atol=1e-11 * data.counts.sum())
        assert np.allclose(agg[i].sum(axis=(1, 2)), data.counts.sum())


@pytest.mark.parametrize("states", [2, 3])
def test_hnb_sub_pattern_e_step_equals_per_pattern_family_posteriors(states, jit):
    # the HNB E-step sums the downward posteriors over sub-patterns; here the expected counts are
    # rebuilt from the per-pattern posteriors (hnb_downward) and the family formula
    # P(u, c | e) = P(u | e) / m_{c->u}(u) * P(c | u) * lambda_c(c), on a deep tree with many
    # patterns; both routes of the hidden children's downward step (compiled loop, numpy)
    tree, data = _deep_tree_data(12, "hnb", states)
    plan, counts = data.plan, data.counts
    assert min(nd.P_i for nd in plan.nodes.values()) < plan.P / 10
    cpts = em.initial_parameters(data, 3, random_state=0)
    stats, llf, llc = HK.hnb_estep(plan, cpts, data.y, counts)
    _, lam, msg = HK.hnb_upward(plan, cpts)
    onehot = np.eye(2)[data.y.astype(int)]
    post = HK.hnb_downward(plan, cpts, lam, msg, np.broadcast_to(onehot, (3, plan.P, 2)).copy())
    total = counts.sum()
    for u in plan.top_down:
        nd = plan.nodes[u]
        for c in nd.hid_nodes:
            ratio = np.divide(post[u], msg[c], out=np.zeros_like(post[u]), where=msg[c] > 0)
            fam = ratio[..., :, None] * cpts[c][:, None] * lam[c][..., None, :]        # (R, P, n_u, n_c)
            np.testing.assert_allclose(stats[c], np.einsum("p,rpst->rst", counts, fam), rtol=1e-10, atol=1e-10 * total)
        for j, c in enumerate(nd.feat_children):
            x = plan.U[:, nd.feat_cols[j]].astype(float)
            want = np.stack([np.einsum("p,rps->rs", counts * (1 - x), post[u]),
                             np.einsum("p,rps->rs", counts * x, post[u])], axis=-1)
            np.testing.assert_allclose(stats[c], want, rtol=1e-10, atol=1e-10 * total)


@pytest.mark.parametrize("states", [2, 3])
def test_compiled_and_numpy_hnb_upward_passes_agree_with_deterministic_tables(states, monkeypatch):
    # the compiled HNB upward step visits only a sub-pattern's features at 1 and, for a binary
    # node, takes one exponential; numpy forms every feature's log-probability by a matrix
    # product.  Tables with exact zeros and ones give lambdas of 0, equal states and log-messages
    # of -inf (both states impossible), the branches of the binary loop.
    tree, data = _deep_tree_data(13, "hnb", states)
    cpts = em.initial_parameters(data, 4, random_state=2)
    rng = np.random.default_rng(0)
    for c in cpts[1:]:
        c[0] = np.eye(c.shape[-1])[rng.integers(0, c.shape[-1], c.shape[1])]     # restart 0: deterministic
        c[1, : c.shape[1] // 2] = 1.0 / c.shape[-1]                               # restart 1: some uniform rows
    out = {}
    for use_jit in (True, False):
        monkeypatch.setattr(K, "USE_JIT", use_jit)
        out[use_jit] = HK.hnb_upward_sub(data.plan, cpts)
    n_inf = 0
    for compiled, reference in zip(out[True], out[False]):
        assert compiled.keys() == reference.keys()
        for i in reference:
            np.testing.assert_allclose(compiled[i], reference[i], rtol=1e-12, atol=1e-9)
            n_inf += int(np.isneginf(reference[i]).sum())
    assert n_inf > 0                                   # the -inf cases were reached
    assert all(np.isfinite(a).all() for a in out[True][1].values())


# ----------------------------------------------------------------------------- M-step
def test_m_step_by_hand_pseudo_count_and_zero_rows():
    counts = {0: np.array([[[3.0, 1.0], [0.0, 0.0], [0.0, 2.0]]])}
    prev = [np.array([[[0.1, 0.9], [0.2, 0.8], [0.3, 0.7]]]), np.array([[0.4, 0.6]])]
    stats = em.SufficientStatistics(counts, np.zeros(1), np.zeros(1))
    new = em.m_step(stats, prev)
    np.testing.assert_allclose(new[0][0], [[0.75, 0.25], [0.5, 0.5], [0.0, 1.0]])   # empty row: uniform
    np.testing.assert_array_equal(new[1], prev[1])                                     # no statistics: kept
    new = em.m_step(stats, prev, pseudo_count=1.0)
    np.testing.assert_allclose(new[0][0], [[4 / 6, 2 / 6], [0.5, 0.5], [1 / 4, 3 / 4]])


@pytest.mark.parametrize("pseudo_count", [0.0, 0.5])
def test_m_step_normalises_tables_of_one_shape_together_exactly_as_one_by_one(pseudo_count):
    # tables of three shapes (two of them shared by several nodes), empty rows among them: the
    # stacked normalisation gives every table bit for bit what it gives the table alone
    rng = np.random.default_rng(3)
    shapes = {1: (4, 2, 2), 2: (4, 2, 2), 3: (4, 3), 4: (4, 2, 2), 5: (4, 3), 6: (4, 6, 3)}
    counts = {i: rng.integers(0, 4, size=s).astype(float) * rng.random(s) for i, s in shapes.items()}
    counts[2][1, 0] = 0.0
    prev = [rng.random((4, 2))] + [rng.random(s) for s in shapes.values()]
    stats = em.SufficientStatistics(counts, np.zeros(4), np.zeros(4))
    together = em.m_step(stats, prev, pseudo_count)
    assert together[0] is prev[0]                                    # no statistics: kept
    for i in shapes:
        alone = em.m_step(em.SufficientStatistics({i: counts[i]}, np.zeros(4), np.zeros(4)), prev, pseudo_count)
        assert together[i].shape == shapes[i]
        np.testing.assert_array_equal(together[i], alone[i])
    if not pseudo_count:
        np.testing.assert_array_equal(together[2][1, 0], [0.5, 0.5])   # an empty row is uniform

def test_unseen_parent_configuration_gets_uniform_row_and_no_nan():
    # F0 and F1 are never both present in training: class row 3 has zero expected count
    tree = TreeStructure.from_nested([0, 1])
    X = np.array([[0, 0], [1, 0], [0, 1], [1, 0], [0, 0]] * 4)
    y = np.array([0, 1, 1, 1, 0] * 4)
    res = em.fit_em(tree, X, y, n_restarts=2, random_state=0)
    np.testing.assert_allclose(res.params.cpt(0)[3], [0.5, 0.5])
    assert I.class_log_odds(res.params, np.array([[1, 1]]))[0] == 0.0
    assert all(np.all(np.isfinite(t)) for t in res.params.cpts)


# ----------------------------------------------------------------------------- the loop
_sampled = O.sampled


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_log_likelihood_never_decreases(direction):
    tree, _, X, y = _sampled(direction, seed=1, n=800)
    res = em.fit_em(tree, X, y, n_restarts=6, random_state=0, stopping="absolute", tol=1e-7, max_iter=150)
    for trace in res.traces:
        gains = np.diff(trace)
        assert np.all(gains >= -1e-9 * np.abs(trace[:-1])), gains.min()
    if direction == "hbn":
        # for an HBN log P(c | f) differs from log P(c, f) by a constant: monotone as well
        res = em.fit_em(tree, X, y, n_restarts=4, random_state=1, criterion="conditional", tol=1e-7,
                        stopping="absolute", max_iter=100)
        for trace in res.traces:
            assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[:-1]))


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_map_objective_never_decreases_with_pseudo_count(direction):
    # with a pseudo-count a the M-step maximises log L + a * sum log theta (Dirichlet(a + 1))
    tree, _, X, y = _sampled(direction, seed=2, n=500)
    a = 0.5
    data = em.EMData.from_documents(tree, X, y)
    cpts = em.initial_parameters(data, 3, random_state=0, pseudo_count=a)
    learned = [i for i in range(tree.n_nodes) if not (direction == "hbn" and tree.kind[i] == FEATURE)]
    prev = -np.inf
    for _ in range(40):
        stats = em.e_step(data, cpts)
        obj = stats.log_likelihood + a * sum(np.log(cpts[i]).reshape(3, -1).sum(1) for i in learned)
        assert np.all(obj >= prev - 1e-9 * np.abs(obj))
        prev = obj
        cpts = em.m_step(stats, cpts, a)


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_planted_structure_recovery(direction):
    tree, true, X, y = _sampled(direction, seed=3, n=4000)
    res = em.fit_em(tree, X, y, n_restarts=16, random_state=0, stopping="absolute", tol=1e-5, max_iter=500)
    ll_true = I.log_likelihood(true, X, y)
    # EM with restarts reaches at least the likelihood of the generating parameters
    assert res.full_log_likelihood[res.best_restart] >= ll_true - 1e-3 * abs(ll_true)
    # ... and predicts like them on fresh documents
    rng = np.random.default_rng(99)
    Xn, yn, _ = O.sample(true, 3000, rng)
    p_true = I.class_posterior(true, Xn)[:, 1]
    p_fit = I.class_posterior(res.params, Xn)[:, 1]
    assert np.mean(np.abs(p_true - p_fit)) < 0.05
    assert np.mean((p_fit > 0.5) == (p_true > 0.5)) > 0.95
    if direction == "hbn":
        # Proposition 2: the feature marginals are the training frequencies
        for i in tree.feature_nodes():
            assert res.params.cpt(i)[1] == pytest.approx(X[:, tree.feature[i]].mean())


def test_starting_from_the_truth_and_init_argument():
    tree, true, X, y = _sampled("hbn", seed=4, n=2000)
    res = em.fit_em(tree, X, y, n_restarts=1, init=true, max_iter=0)
    assert res.n_iter.tolist() == [0] and res.traces[0].size == 1
    assert res.full_log_likelihood[0] == pytest.approx(I.log_likelihood(res.params, X, y))
    # the hidden and class tables are the given ones (feature marginals are set to frequencies)
    np.testing.assert_allclose(res.params.cpt(0), true.cpt(0))
    assert res.conditional_log_likelihood[0] == pytest.approx(I.log_likelihood(true, X, y, conditional=True))
    with pytest.raises(ValueError, match="not a TreeParameters for this tree"):
        em.fit_em(tree, X, y, n_restarts=1, init=TreeParameters.uniform(TreeStructure.from_nested([0, 1])))


def test_determinism_and_seed_sensitivity():
    tree, _, X, y = _sampled("hnb", seed=5, n=600)
    a = em.fit_em(tree, X, y, n_restarts=4, random_state=7, max_iter=30)
    b = em.fit_em(tree, X, y, n_restarts=4, random_state=7, max_iter=30)
    c = em.fit_em(tree, X, y, n_restarts=4, random_state=8, max_iter=30)
    for ta, tb in zip(a.traces, b.traces):
        np.testing.assert_array_equal(ta, tb)
    for pa, pb in zip(a.params.cpts, b.params.cpts):
        np.testing.assert_array_equal(pa, pb)
    assert any(not np.array_equal(ta[:1], tc[:1]) for ta, tc in zip(a.traces, c.traces))


@pytest.mark.parametrize("stopping", ["absolute", "relative"])
def test_stopping_rule_fires_exactly_at_the_first_small_gain(stopping):
    tree, _, X, y = _sampled("hbn", seed=6, n=1000)
    tol = 1e-3 if stopping == "absolute" else 1e-6
    res = em.fit_em(tree, X, y, n_restarts=5, random_state=0, stopping=stopping, tol=tol, max_iter=2000)
    assert res.converged.all()
    for trace, n in zip(res.traces, res.n_iter):
        assert trace.size == n + 1
        gains = np.diff(trace)
        thr = tol if stopping == "absolute" else tol * np.abs(trace[:-1])
        small = gains < thr
        assert small[-1] and not small[:-1].any()
    # the restarts stop at different iterations: converged ones were frozen while others went on
    assert len(set(res.n_iter.tolist())) > 1
    assert res.seconds.max() <= res.total_seconds + 1e-9
    best = int(np.argmax(res.full_log_likelihood))
    assert res.best_restart == best and res.log_likelihood == res.full_log_likelihood[best]


def test_max_iter_stops_without_convergence():
    tree, _, X, y = _sampled("hnb", seed=7, n=500)
    res = em.fit_em(tree, X, y, n_restarts=3, random_state=0, tol=0.0, stopping="absolute", max_iter=5)
    assert res.n_iter.tolist() == [5, 5, 5] and not res.converged.any()


def test_progress_reports_the_batch_and_should_stop_cancels():
    tree, _, X, y = _sampled("hbn", seed=8, n=500)
    seen = []
    res = em.fit_em(tree, X, y, n_restarts=4, random_state=0, progress=seen.append, max_iter=300)
    assert [s["iteration"] for s in seen] == list(range(len(seen)))
    assert seen[-1]["n_running"] == 0 and seen[0]["n_restarts"] == 4
    running = [s["n_running"] for s in seen]
    assert running == sorted(running, reverse=True)
    assert len(seen) == res.n_iter.max() + 1
    assert seen[-1]["best_log_likelihood"] == pytest.approx(res.log_likelihood)
    json.dumps(seen[-1])

    calls = []

    def stop():
        calls.append(1)
        return len(calls) >= 3

    with pytest.raises(Cancelled) as info:
        em.fit_em(tree, X, y, n_restarts=4, random_state=0, tol=0.0, should_stop=stop)
    r = info.value.result
    assert r.cancelled and max(len(t) for t in r.traces) == 3 and isinstance(r.params, TreeParameters)


def test_sample_weight_equals_duplicated_rows():
    tree, _, X, y = _sampled("hnb", seed=9, n=300)
    w = np.arange(300) % 3
    a = em.fit_em(tree, X, y, n_restarts=2, random_state=0, sample_weight=w, max_iter=20)
    rep = np.repeat(np.arange(300), w)
    b = em.fit_em(tree, X[rep], y[rep], n_restarts=2, random_state=0, max_iter=20)
    for ta, tb in zip(a.traces, b.traces):
        np.testing.assert_allclose(ta, tb, rtol=1e-10)


def test_result_is_json_able_and_bad_options_are_named():
    tree, _, X, y = _sampled("hbn", seed=10, n=200)
    res = em.fit_em(tree, X, y, n_restarts=2, random_state=0, max_iter=5)
    d = json.loads(json.dumps(res.to_dict()))
    assert TreeParameters.from_dict(d["params"]).tree == tree
    assert d["settings"]["n_patterns"] <= 200
    for kw, msg in [
        ({"n_restarts": 0}, "n_restarts must be an integer in 1..1024, got 0"),
        ({"tol": -1}, "tol must be a non-negative number, got -1"),
        ({"max_iter": 2.5}, "max_iter must be a non-negative integer, got 2.5"),
        ({"stopping": "rel"}, "stopping must be one of .*'rel'"),
        ({"criterion": "cll"}, "criterion must be one of .*'cll'"),
        ({"pseudo_count": -0.1}, "pseudo_count must be a non-negative number, got -0.1"),
    ]:
        with pytest.raises(ValueError, match=msg):
            em.fit_em(tree, X, y, **kw)
    with pytest.raises(ValueError, match="y must hold binary labels 0/1"):
        em.fit_em(tree, X, y + 1)
    with pytest.raises(ValueError, match="X has 3 columns, expected 9"):
        em.fit_em(tree, X[:, :3], y)


def test_initial_parameters_follow_the_thesis():
    tree, _, X, y = _sampled("hbn", seed=11, n=400)
    data = em.EMData.from_documents(tree, X, y)
    cpts = em.initial_parameters(data, 5, random_state=0)
    assert np.all(cpts[0] == 0.5)                                    # uniform class table
    for i in tree.feature_nodes():                                   # frequencies
        np.testing.assert_allclose(cpts[i][:, 1], X[:, tree.feature[i]].mean())
    h = tree.hidden_nodes()[0]
    assert np.unique(cpts[h][:, :, 1]).size == cpts[h][:, :, 1].size  # random rows
    hnb = em.EMData.from_documents(tree.with_direction("hnb"), X, y)
    c2 = em.initial_parameters(hnb, 5, random_state=0)
    assert np.all(c2[0] == 0.5)
    f = tree.feature_nodes()[0]
    assert np.unique(c2[f][:, :, 1]).size == 10                      # HNB feature tables random too


def test_collapse_patterns_rebuilds_the_documents():
    rng = np.random.default_rng(12)
    X = rng.integers(0, 2, (500, 11))          # 11 columns: two packed bytes per row
    y = rng.integers(0, 2, 500)
    d = K.collapse_patterns(X, y)
    np.testing.assert_array_equal(d.U[d.inverse], X.astype(bool))
    np.testing.assert_array_equal(d.y[d.inverse], y)
    assert d.counts.sum() == 500 and d.n_documents == 500
    assert len({(tuple(u), c) for u, c in zip(d.U, d.y)}) == d.n_patterns      # distinct rows
    assert d.n_patterns == len({(tuple(r), c) for r, c in zip(X, y)})
    dx = K.collapse_patterns(X)                                                # features only
    assert dx.y is None and dx.n_patterns == len({tuple(r) for r in X})
    with pytest.raises(ValueError, match="sample_weight must be a non-negative"):
        K.collapse_patterns(X, y, sample_weight=-np.ones(500))
    with pytest.raises(ValueError, match="NaN or infinite"):
        K.collapse_patterns(np.full((2, 2), np.nan))


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_fit_em_with_pseudo_count_stops_on_the_map_objective(direction):
    """fit_em's criterion with a pseudo-count is the log posterior, which never decreases: no
    restart is stopped early by a dip of the plain log-likelihood, and the trace is the objective
    recomputed from the returned tables."""
    tree, _, X, y = _sampled(direction, seed=2, n=500)
    a = 0.5
    res = em.fit_em(tree, X, y, n_restarts=4, random_state=0, pseudo_count=a, stopping="absolute", tol=1e-9,
                    max_iter=60)
    for trace in res.traces:
        assert np.all(np.diff(trace) >= -1e-9 * np.abs(np.asarray(trace[:-1])))
    best = res.best_restart
    data = em.EMData.from_documents(tree, X, y)
    cpts = [np.asarray(res.params.cpt(i))[None] for i in range(tree.n_nodes)]
    stats = em.e_step(data, cpts)
    objective = stats.log_likelihood[0] + a * sum(np.log(cpts[i]).sum() for i in stats.counts)
    assert res.log_likelihood == pytest.approx(objective, rel=1e-9)
    assert res.full_log_likelihood[best] == pytest.approx(stats.log_likelihood[0], rel=1e-9)


def test_split_nodes_give_the_same_counts_with_either_group_sizes(jit):
    # a node with an odd number of hidden children can put the larger group on either side (the
    # plan picks the cheaper); both must give the brute-force counts
    tree = TreeStructure.from_nested([[[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], 10], 11])
    rng = np.random.default_rng(9)
    p = O.random_params(tree, rng)
    X = rng.integers(0, 2, (60, tree.n_features))
    y = rng.integers(0, 2, 60)
    expect = O.expected_counts(p, X, y)
    data = em.EMData.from_documents(tree, X, y)
    nd = data.plan.nodes[tree.children(0)[0]]
    assert nd.mode == "split" and nd.h == 5
    base = (data.plan.U[:, nd.feat_cols].astype(np.int64) << nd.feat_pos).sum(axis=1)
    for hL in (2, 3):
        rep = np.unique(nd.inv, return_index=True)[1]
        bases, base_ids = np.unique(base[rep], return_inverse=True)
        nd.split = K._make_split(nd, base_ids.ravel(), bases, hL=hL)
        assert nd.split.hL == hL
        stats = em.e_step(data, _batched([p]))
        for i, N in stats.counts.items():
            np.testing.assert_allclose(N[0], expect[i], atol=1e-9)


def _assert_routes_agree(data, cpts, monkeypatch):
    """The HBN E-step on both routes (compiled, numpy) and both carriers (sub-patterns, per
    pattern) gives the same log-likelihoods (to 1e-13) and counts (to 1e-11)."""
    out = {}
    for use_jit in (True, False):
        monkeypatch.setattr(K, "USE_JIT", use_jit)
        for per_pattern in (False, True):
            out[use_jit, per_pattern] = K.hbn_estep(data.plan, cpts, data.y, data.counts, per_pattern=per_pattern)
    ref_stats, ref_ll = out[False, True]
    for stats, ll in out.values():
        np.testing.assert_allclose(ll, ref_ll, rtol=1e-13)
        for i in ref_stats:
            np.testing.assert_allclose(stats[i], ref_stats[i], rtol=1e-11, atol=1e-11 * data.counts.sum())


@pytest.mark.parametrize("states", [2, 3])
def test_compiled_and_numpy_wide_nodes_agree_on_a_reuters_sized_tree(states, monkeypatch):
    # an OR tree with B = 7 over 60 terms of 1,500 documents: wide nodes with thousands of
    # sub-patterns; both routes, sub-patterns and per pattern, give the same counts
    from hbnlab.clustering import construct_tree

    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 1500)
    X = (rng.random((1500, 60)) < np.where(y[:, None] == 1, 0.3, 0.1)).astype(int)
    tree = construct_tree(X, y, B=7, clustering="or", alpha=0.0)
    tree = tree if states == 2 else tree.with_states(states)
    data = em.EMData.from_documents(tree, X, y)
    wide = [nd for nd in data.plan.nodes.values() if nd.mode.endswith("split")]
    assert wide and max(nd.P_i for nd in wide) > 500
    for nd in wide:
        if nd.mode == "split":
            # sub-patterns come ordered by left key within a block of feature configurations
            assert np.all(np.diff(nd.split.kL) >= 0)
    cpts = em.initial_parameters(data, 3, random_state=1)
    _assert_routes_agree(data, cpts, monkeypatch)


def test_compiled_and_numpy_gather_nodes_agree_on_a_reuters_sized_dep_tree(monkeypatch):
    # a DEP tree over 60 terms of 1,500 documents: narrow nodes with feature children and 0, 1
    # or 2 hidden children (mode "gather") with hundreds of sub-patterns; the compiled loops read
    # their table rows in place, numpy gathers them; both routes, both carriers, the same counts
    from hbnlab.clustering import construct_tree

    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 1500)
    X = (rng.random((1500, 60)) < np.where(y[:, None] == 1, 0.3, 0.1)).astype(int)
    tree = construct_tree(X, y, B=7, clustering="dep", alpha=170.0)
    data = em.EMData.from_documents(tree, X, y)
    gather = [nd for nd in data.plan.nodes.values() if nd.mode == "gather"]
    assert {nd.h for nd in gather} >= {0, 1} and max(nd.P_i for nd in gather if nd.h) > 300
    cpts = em.initial_parameters(data, 3, random_state=2)
    _assert_routes_agree(data, cpts, monkeypatch)


@pytest.mark.parametrize("nested", [
    [[0, 1, 2], [3, [4, 5]], 6, [[7, 8], [9, 10, 11]]],
    list(range(70)),                    # 2**70 configurations at the root: the keys are renumbered on the way
    [list(range(40)), [list(range(40, 75)), 75]],
])
@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_sub_patterns_are_the_distinct_rows_of_the_features_under_each_node(nested, direction):
    from hbnlab.bn.structure import features_under

    tree = TreeStructure.from_nested(nested, direction=direction)
    if direction == "hbn" and max(len(tree.children(i)) for i in range(tree.n_nodes)) > 20:
        tree = tree.with_direction("hnb")               # an HBN table of 2**70 rows cannot exist
    rng = np.random.default_rng(5)
    U = rng.random((400, tree.n_features)) < rng.uniform(0.02, 0.6, tree.n_features)
    # and rows that differ only in their first 6 columns: a key that overflowed would lose them
    low = np.zeros((64, tree.n_features), dtype=bool)
    low[:, :6] = (np.arange(64)[:, None] >> np.arange(6)) & 1
    U = np.unique(np.vstack([U, low]), axis=0)
    plan = K.TreePlan(tree, U)
    for i, nd in plan.nodes.items():
        cols = U[:, features_under(tree, i)]
        # the same partition of the patterns as the distinct rows of all the columns under the node
        _, want = np.unique(cols, axis=0, return_inverse=True)
        pairs = np.unique(np.column_stack([nd.inv, want.ravel()]), axis=0)
        assert len(pairs) == nd.P_i == len(np.unique(want))
        # each sub-pattern's representative holds its columns
        rep = np.array([np.flatnonzero(nd.inv == k)[0] for k in range(nd.P_i)])
        np.testing.assert_array_equal(cols[rep][nd.inv], cols)


def test_a_plan_of_no_patterns_has_no_sub_patterns():
    # the keys of a 70-feature root are renumbered on the way, over an empty set of patterns too
    for nested, direction in (([[0, 1], [2, 3]], "hbn"), (list(range(70)), "hnb")):
        tree = TreeStructure.from_nested(nested, direction=direction)
        plan = K.TreePlan(tree, np.zeros((0, tree.n_features), dtype=bool))
        assert all(nd.P_i == 0 and nd.inv.size == 0 for nd in plan.nodes.values())
