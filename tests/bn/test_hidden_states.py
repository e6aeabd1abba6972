"""Hidden nodes with more than two states: structure, tables, kernels against brute-force
enumeration, EM, the BIC choice of k, and the binary path unchanged to the last bit."""
from __future__ import annotations

import json
from pathlib import Path

import bn_oracle as O
import numpy as np
import pytest

from hbnlab.bn import em
from hbnlab.bn import inference as I
from hbnlab.bn.params import ParameterError, TreeParameters, config_index, cpt_shape
from hbnlab.bn.states import bic_score, select_hidden_states
from hbnlab.bn.structure import StructureError, TreeStructure

GOLDEN = Path(__file__).parent / "data" / "binary_path_golden.json"


def _tree(direction, states=(3, 4, 2)):
    t = TreeStructure.from_nested([[0, 1, [2, 3]], 4, [5, 6]], direction=direction)
    return t.with_states(dict(zip(t.hidden_nodes(), states)))


def _wide_tree(direction, states):
    """The class has 3 or 4 hidden children (HBN kernel mode "generic-split") and a feature."""
    nested = [[0, 1], [2, 3], [4, 5], 6] if len(states) == 3 else [[0, 1], [2, 3], [4, 5], [6, 7], 8]
    t = TreeStructure.from_nested(nested, direction=direction)
    return t.with_states(dict(zip(t.hidden_nodes(), states)))


# --------------------------------------------------------------------------- structure and tables
def test_states_default_validation_and_dict_round_trip():
    t = TreeStructure.from_nested([[0, 1], 2])
    assert t.states == (2, 2, 2, 2, 2) and t.is_binary and "states" not in t.to_dict()
    t3 = t.with_states(3)                     # breadth-first: node 1 is the hidden node
    assert t3.states == (2, 3, 2, 2, 2) and not t3.is_binary
    assert TreeStructure.from_dict(t3.to_dict()) == t3
    assert t3.with_direction("hnb").states == t3.states
    assert "hidden1 *3" in t3.to_text() and "hidden1 *\n" in t.to_text() + "\n"
    with pytest.raises(StructureError, match="feature node 3 .* must be binary"):
        t.with_states({3: 3})
    with pytest.raises(StructureError, match="class node 0 .* must be binary"):
        t.with_states({0: 3})
    with pytest.raises(StructureError, match="has 1 states, expected >= 2"):
        t.with_states({1: 1})
    with pytest.raises(StructureError, match="states has 2 entries"):
        TreeStructure(t.up, t.kind, t.feature, t.names, states=(2, 2))


def test_table_shapes_mixed_radix_and_free_parameters():
    t = _tree("hbn")
    h1, h2, h3 = t.hidden_nodes()        # [[0, 1, h3], 4, h2] with 3, 4 and 2 states
    assert [t.names[i] for i in (h1, h2, h3)] == ["hidden1", "hidden2", "hidden3"]
    # class: children (h1, F4, h2) -> 3 * 2 * 4 rows; h1: children (F0, F1, h3) -> 2 * 2 * 2 rows
    assert cpt_shape(t, 0) == (24, 2)
    assert cpt_shape(t, h1) == (8, 3) and cpt_shape(t, h2) == (4, 4) and cpt_shape(t, h3) == (4, 2)
    assert int(config_index([2, 1, 3], radices=[3, 2, 4])) == 2 + 1 * 3 + 3 * 6
    assert int(config_index([1, 0, 1])) == int(config_index([1, 0, 1], radices=[2, 2, 2])) == 5
    u = TreeParameters.uniform(t)
    assert np.allclose(u.cpt(h2), 0.25)
    assert u.n_free_parameters() == 24 * 1 + 8 * 2 + 4 * 3 + 4 * 1 + 7 * 1
    tn = t.with_direction("hnb")
    assert cpt_shape(tn, h1) == (2, 3) and cpt_shape(tn, h2) == (2, 4) and cpt_shape(tn, h3) == (3, 2)
    assert cpt_shape(tn, 0) == (2,) and cpt_shape(tn, tn.children(h2)[0]) == (4, 2)
    with pytest.raises(ParameterError, match=r"expected \(8, 3\)"):
        u.replace(h1, np.full((8, 2), 0.5))


# --------------------------------------------------------------------------- kernels vs enumeration
@pytest.mark.parametrize("direction", ["hbn", "hnb"])
@pytest.mark.parametrize("make, states", [(_tree, (3, 4, 2)), (_tree, (3, 3, 3)), (_tree, (2, 2, 4)),
                                          (_wide_tree, (3, 2, 4)), (_wide_tree, (3, 3, 2, 3))])
def test_kernels_equal_brute_force_enumeration(direction, make, states):
    rng = np.random.default_rng(sum(states) + (direction == "hnb"))
    t = make(direction, states)
    if direction == "hbn" and make is _wide_tree:
        from hbnlab.bn.kernels import TreePlan

        assert TreePlan(t, np.zeros((1, t.n_features), bool)).nodes[0].mode == "generic-split"
    p = O.random_params(t, rng)
    X = rng.integers(0, 2, (40, t.n_features))
    y = rng.integers(0, 2, 40)
    want = np.array([O.class_posterior(p, x) for x in X])
    np.testing.assert_allclose(I.class_posterior(p, X), want, atol=1e-12, rtol=0)
    # node posteriors without and with the class
    for c in (None, y):
        got = I.node_distributions(p, X, c)
        for d in range(0, 40, 7):
            ref = O.node_distributions(p, X[d], None if c is None else c[d])
            for i in range(t.n_nodes):
                np.testing.assert_allclose(got[i][d], ref[i], atol=1e-12, rtol=0)
    pri = I.prior_distributions(p)
    for a, b in zip(pri, O.prior_distributions(p)):
        np.testing.assert_allclose(a, b, atol=1e-12, rtol=0)
    # E-step: expected counts and both log-likelihoods
    data = em.EMData.from_documents(t, X, y)
    st = em.e_step(data, [c[None] for c in p.cpts])
    oc = O.expected_counts(p, X, y)
    for i, N in st.counts.items():
        np.testing.assert_allclose(N[0], oc[i], atol=1e-10, rtol=0)
    assert st.log_likelihood[0] == pytest.approx(O.log_likelihood(p, X, y), abs=1e-9)
    assert st.conditional_log_likelihood[0] == pytest.approx(O.log_likelihood(p, X, y, True), abs=1e-9)
    # subtree contributions: LO(all) - LO(all but the features under the node), by enumeration
    contrib, nodes = I.subtree_contributions(p, X[:6])
    lo = lambda pc: np.log(pc[1]) - np.log(pc[0])  # noqa: E731
    for d in range(6):
        for col, j in enumerate(nodes):
            cols = [t.feature[f] for f in range(t.n_nodes) if t.kind[f] == "feature" and _under(t, f, j)]
            ref = lo(want[d]) - lo(O.class_posterior_partial(p, X[d], cols))
            assert contrib[d, col] == pytest.approx(ref, abs=1e-10)


def _under(t, f, j):
    while f != 0:
        if f == j:
            return True
        f = t.up[f]
    return False


@pytest.mark.parametrize("direction", ["hbn", "hnb"])
def test_em_log_likelihood_never_decreases_with_three_states(direction):
    rng = np.random.default_rng(5)
    t = _tree(direction, (3, 3, 3))
    X, y, _ = O.sample(O.random_params(t, rng), 500, rng)
    res = em.fit_em(t, X, y, n_restarts=6, max_iter=40, tol=0.0, stopping="absolute", random_state=0)
    assert min(len(tr) for tr in res.traces) > 5
    for tr in res.traces:
        assert np.all(np.diff(tr) >= -1e-9 * np.abs(tr[:-1]))
    assert res.params.cpt(t.hidden_nodes()[0]).shape[-1] == 3


def test_initial_tables_and_m_step_for_k_states():
    t = _tree("hbn", (3, 4, 2))
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (50, 7))
    data = em.EMData.from_documents(t, X, rng.integers(0, 2, 50))
    cpts = em.initial_parameters(data, 5, random_state=0)
    for i in t.hidden_nodes():
        assert cpts[i].shape == (5, *cpt_shape(t, i))
        np.testing.assert_allclose(cpts[i].sum(axis=-1), 1.0)
    stats = em.SufficientStatistics({t.hidden_nodes()[1]: np.zeros((1, 4, 4))}, np.zeros(1), np.zeros(1))
    new = em.m_step(stats, [c[:1] for c in cpts])
    np.testing.assert_array_equal(new[t.hidden_nodes()[1]], 0.25)


# --------------------------------------------------------------------------- the binary path
def test_binary_path_matches_stored_outputs():
    """Outputs of the binary code before k-state hidden nodes existed (tests/bn/data): the same
    trees, and the same log-likelihoods and class log-odds up to rounding.  The stored run's
    E-step carried the downward messages per pattern; the E-step now sums them over sub-patterns
    first (a different order of the same additions), which moves the last bit of some values
    (2e-16 on these log-odds); the two passes are compared directly in tests/bn/test_em.py."""
    from hbnlab.models.hbn import HierarchicalBNClassifier, HierarchicalNBClassifier

    golden = json.loads(GOLDEN.read_text())
    rng = np.random.RandomState(3)
    y = rng.randint(0, 2, 400)
    Z = rng.randint(0, 3, 400)
    P = np.where(y[:, None] == 1, 0.6, 0.2) * (0.6 + 0.3 * Z[:, None]) / 1.2
    X = (rng.rand(400, 12) < P).astype(int)
    for name, cls, kw in (("hbn_or", HierarchicalBNClassifier, dict(clustering="or", B=4, objective="joint")),
                          ("hbn_avg", HierarchicalBNClassifier, dict(clustering="avg", B=3, objective="joint")),
                          ("hnb_avg", HierarchicalNBClassifier, dict(clustering="avg", B=3, objective="joint"))):
        clf = cls(n_features=None, n_restarts=6, random_state=0, **kw).fit(X[:300], y[:300])
        g = golden[name]
        assert clf.tree_.to_dict() == g["tree"]
        assert clf.lower_bound_ == pytest.approx(g["lower_bound"], rel=1e-13, abs=0)
        np.testing.assert_allclose(clf.decision_function(X[300:]), g["decision"], rtol=1e-13, atol=1e-13)


# --------------------------------------------------------------------------- planted recovery
def _planted_hbn(k):
    """C <- (H, F3), H <- (F0, F1, F2): H is a near-deterministic function of its features into k
    groups, and the groups' P(C = 1 | F3) points (0.9, 0.1), (0.1, 0.9), (0.9, 0.9) are not on one
    line, so two states cannot express three of them."""
    t = TreeStructure.from_nested([[0, 1, 2], 3]).with_states(k)
    group = np.array([0, 1, 2, 0, 1, 2, 0, 1]) % k
    H = np.full((8, k), 0.05 / (k - 1))
    H[np.arange(8), group] = 0.95
    pc1 = {0: (0.9, 0.1), 1: (0.1, 0.9), 2: (0.9, 0.9)}
    C = np.zeros((2 * k, 2))
    for h in range(k):
        for f3 in range(2):
            C[h + k * f3] = [1 - pc1[h][f3], pc1[h][f3]]
    return TreeParameters(t, [C, H, [0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]])


def _planted_hnb(k):
    """C -> H -> F0..F4 and C -> F5: k feature profiles of H."""
    t = TreeStructure.from_nested([[0, 1, 2, 3, 4], 5], direction="hnb").with_states(k)
    prof = np.array([[0.9, 0.9, 0.1, 0.1, 0.5], [0.1, 0.1, 0.9, 0.9, 0.5], [0.1, 0.9, 0.1, 0.9, 0.9]])[:k]
    cp = [np.array([[0.8, 0.2], [0.3, 0.7]])]
    H = np.full((2, k), 1.0 / k)
    H[0, 0] += 0.2
    H[0, 1:] -= 0.2 / (k - 1)
    tables = [np.array([0.6, 0.4]), H] + [np.stack([1 - prof[:, j], prof[:, j]], axis=1) for j in range(5)] + cp
    # node order of from_nested: class, hidden1, F5, F0..F4 (breadth first)
    order = {n: i for i, n in enumerate(t.names)}
    cpts = [None] * t.n_nodes
    cpts[0], cpts[order["hidden1"]], cpts[order["F5"]] = tables[0], tables[1], cp[0]
    for j in range(5):
        cpts[order[f"F{j}"]] = tables[2 + j]
    return TreeParameters(t, cpts)


@pytest.mark.parametrize("make", [_planted_hbn, _planted_hnb])
def test_planted_three_state_node_is_recovered_and_bic_picks_k(make):
    rng = np.random.default_rng(11)
    truth = make(3)
    X, y, _ = O.sample(truth, 6000, rng)
    Xtr, ytr, Xte, yte = X[:3000], y[:3000], X[3000:], y[3000:]
    tree2 = truth.tree.with_states(2)
    held = {}
    for k in (2, 3):
        res = em.fit_em(tree2.with_states(k), Xtr, ytr, n_restarts=16, random_state=0,
                        stopping="absolute", tol=1e-3)
        held[k] = I.log_likelihood(res.params, Xte, yte)
    assert held[3] > held[2] + 20
    sel = select_hidden_states(tree2, Xtr, ytr, n_restarts=16, random_state=0, stopping="absolute", tol=1e-3)
    assert sel.hidden_states == {1: 3}
    assert bic_score(sel.result, 3000) > sel.steps[0]["score"]
    # a binary planted tree: BIC keeps two states
    Xb, yb, _ = O.sample(make(2), 3000, rng)
    sel2 = select_hidden_states(tree2, Xb, yb, n_restarts=16, random_state=0, stopping="absolute", tol=1e-3)
    assert sel2.hidden_states == {1: 2}
    assert sel2.steps[1]["states"] == 3 and not sel2.steps[1]["accepted"]


def test_select_hidden_states_rejects_bad_candidates():
    t = TreeStructure.from_nested([[0, 1], 2])
    with pytest.raises(ValueError, match="candidates must be integers >= 2"):
        select_hidden_states(t, np.zeros((4, 3)), [0, 1, 0, 1], candidates=(1, 2))


@pytest.mark.parametrize("make", [_planted_hbn])
def test_holdout_criterion_picks_three_states_on_the_planted_tree(make):
    """HBN only: the held-out score is log P(c | f), and the planted hierarchical naive Bayes's
    third state mostly explains the features (its held-out log P(c | f) gains ~1 nat)."""
    rng = np.random.default_rng(12)
    X, y, _ = O.sample(make(3), 3000, rng)
    tree2 = make(3).tree.with_states(2)
    sel = select_hidden_states(tree2, X, y, score="holdout", n_restarts=16, random_state=0,
                               stopping="absolute", tol=1e-3)
    # no penalty: 4 states can express the 3 groups as well, and the held-out noise may prefer them
    assert sel.hidden_states[1] >= 3
    assert sel.steps[1]["states"] == 3 and sel.steps[1]["score"] > sel.steps[0]["score"] + 20
    with pytest.raises(ValueError, match="score must be one of"):
        select_hidden_states(tree2, X, y, score="aic")
