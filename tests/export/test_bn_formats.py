"""BIF, XMLBIF and HUGIN .net exports: the files load in pyAgrum and pgmpy, and their exact inference
gives hbnlab's P(class | document)."""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from bn_network_oracle import brute_force_class_posterior
from export_helpers import BN_ROWS
from hypothesis import given, settings
from hypothesis import strategies as st

from hbnlab.export.bn_formats import (
    FORMAT_SUFFIX,
    BNExportError,
    DiscreteNetwork,
    NameAllocator,
    class_variable_name,
    export_bn,
    feature_variable_names,
    network_from_model,
    network_from_tree_parameters,
    sanitize_name,
)
from hbnlab.export.model_io import load_model, model_to_bytes

gum = pytest.importorskip("pyagrum")
N_DOCS = 200
N_PGMPY_DOCS = 6
PGMPY_BIF_ROWS = ("KDB", "HBN-OR", "GREEDY-HNB", "OR-EQ17")


# --------------------------------------------------------------------------- helpers
def evidence_matrix(data, est, n_random=N_DOCS - 40, n_real=40, seed=0):
    """(full term matrix, 0/1 matrix over the selected features): random binary evidence on every
    feature variable plus real test documents of the synthetic corpus."""
    rng = np.random.default_rng(seed)
    sel = est.selected_features_
    X = np.zeros((n_random + n_real, data.X_train.shape[1]))
    X[:n_random][:, sel] = rng.integers(0, 2, (n_random, sel.size))
    X[n_random:] = data.X_test[:n_real].toarray()
    return X, (X[:, sel] > 0).astype(np.int8)


def gum_posteriors(path, net, E) -> np.ndarray:
    bn = gum.loadBN(str(path))
    ie = gum.LazyPropagation(bn)
    out = np.empty(E.shape[0])
    names = list(net.feature_variables)
    for i, row in enumerate(E):  # one exact inference per document
        ie.setEvidence({n: int(v) for n, v in zip(names, row)})
        ie.makeInference()
        out[i] = ie.posterior(net.class_variable)[1]
    return out


def pgmpy_posteriors(path, fmt, net, E) -> np.ndarray:
    from pgmpy.inference import VariableElimination
    from pgmpy.readwrite import BIFReader, NETReader, XMLBIFReader

    reader = {"bif": BIFReader, "xmlbif": XMLBIFReader, "net": NETReader}[fmt]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = reader(str(path)).get_model()
        ve = VariableElimination(model)
        out = []
        for row in E:
            q = ve.query([net.class_variable], evidence={n: str(int(v)) for n, v in zip(net.feature_variables, row)},
                         show_progress=False)
            out.append(q.get_value(**{net.class_variable: "1"}))
    return np.array(out)


def float32_network(net: DiscreteNetwork) -> DiscreteNetwork:
    """The network with every table entry rounded to float32 (what pyAgrum's BIF / .net parsers read)."""
    vs = tuple(dataclasses.replace(v, table=np.asarray(v.table, np.float32).astype(np.float64)) for v in net.variables)
    return dataclasses.replace(net, variables=vs, row_sum_atol=1e-6)


def float32_posteriors(net: DiscreteNetwork, E) -> np.ndarray:
    """P(class = 1 | document) of every row of ``E`` by enumeration on the float32-rounded network
    (what pyAgrum computes from a BIF or .net file)."""
    net32 = float32_network(net)
    return np.array([brute_force_class_posterior(net32, e) for e in net.evidence(E)])


def assert_exports_agree(est, loaded, net, data, tmp_path, pgmpy_formats):
    """The stored model scores as the fitted one, and the network of ``loaded`` gives its posterior by
    enumeration (10 documents), in pyAgrum from every format (XMLBIF keeps float64; BIF and NET are
    compared with the enumeration of their float32 tables) and in pgmpy from ``pgmpy_formats``."""
    X, E = evidence_matrix(data, est, n_random=30, n_real=10)
    want = est.predict_proba(X)[:, 1]
    np.testing.assert_array_equal(loaded.estimator.predict_proba(X)[:, 1], want)
    got = [brute_force_class_posterior(net, e) for e in net.evidence(E[:10])]
    np.testing.assert_allclose(got, want[:10], atol=1e-12, rtol=0)
    path = export_bn(loaded, "xmlbif", tmp_path / "m.bifxml")
    np.testing.assert_allclose(gum_posteriors(path, net, E), want, atol=1e-9, rtol=0)
    want32 = float32_posteriors(net, E[:10])
    for fmt in ("bif", "net"):
        path = export_bn(loaded, fmt, tmp_path / f"m{FORMAT_SUFFIX[fmt]}")
        np.testing.assert_allclose(gum_posteriors(path, net, E[:10]), want32, atol=1e-9, rtol=0)
    for fmt in pgmpy_formats:
        path = export_bn(loaded, fmt, tmp_path / f"p{FORMAT_SUFFIX[fmt]}")
        np.testing.assert_allclose(pgmpy_posteriors(path, fmt, net, E[:4]), want[:4], atol=1e-9, rtol=0)


@pytest.fixture(scope="module")
def bn_models(fitted):
    return {name: fitted[name] for name in BN_ROWS}


# --------------------------------------------------------------------------- names
def test_sanitize_and_allocate_names():
    assert sanitize_name("money-fx") == "money_fx"
    assert sanitize_name("3com") == "_3com"
    assert sanitize_name("") == "_"
    assert sanitize_name("naïve") == "na_ve"
    alloc = NameAllocator()
    assert [alloc(n) for n in ("tradeTOPIC", "table", "Table", "rate", "RATE", "node", "trade", "x-y", "x_y")] == [
        "tradeTOPIC", "table_", "Table__2", "rate", "RATE_2", "node_", "trade", "x_y", "x_y_2"]
    assert class_variable_name("money-fx") == "money_fxTOPIC"
    assert class_variable_name(None) == "classTOPIC"
    assert feature_variable_names(["trade", "moneyTOPIC", "data"], "moneyTOPIC") == ["trade", "moneyTOPIC_2", "data_"]


def test_reserved_and_odd_terms_survive_every_reader(data, tmp_path):
    """A vocabulary of keywords, digits, dashes and case twins: every file still loads and agrees."""
    from hbnlab.models.naive_bayes import BernoulliNBClassifier

    vocab = list(data.vocabulary)
    odd = ["table", "Table", "node", "3com", "money-fx", "potential", "network", "probability"]
    est = BernoulliNBClassifier(n_features=len(odd)).fit(data.X_train, data.Y_train[:, 0].astype(int))
    for k, j in enumerate(est.selected_features_):
        vocab[j] = odd[k]
    net = network_from_model(est, vocabulary=vocab, label="money-fx")
    assert net.class_variable == "money_fxTOPIC"
    assert set(net.feature_variables) == {"table_", "Table__2", "node_", "_3com", "money_fx", "potential_",
                                          "network_", "probability_"}
    X, E = evidence_matrix(data, est, n_random=20, n_real=0)
    want = est.predict_proba(X)[:, 1]
    for fmt in ("bif", "xmlbif", "net"):
        path = export_bn(est, fmt, tmp_path / f"odd{FORMAT_SUFFIX[fmt]}", vocabulary=vocab, label="money-fx")
        assert np.allclose(gum_posteriors(path, net, E), want, atol=1e-6, rtol=0)
        assert np.allclose(pgmpy_posteriors(path, fmt, net, E[:3]), want[:3], atol=1e-9, rtol=0)


# --------------------------------------------------------------------------- golden text
def _tiny_nb():
    """Bernoulli NB with prior (0.75, 0.25) and P(F=1 | c): term a (0.5, 0.375), term b (0.25, 1.0)."""
    from hbnlab.models.naive_bayes import BernoulliNBClassifier

    est = BernoulliNBClassifier()
    est.classes_ = np.array([0, 1])
    est.n_features_in_ = 2
    est.selected_features_ = np.array([0, 1])
    est.feature_scores_ = np.full(2, np.nan)
    p = np.array([[0.5, 0.25], [0.375, 1.0]])
    est.feature_log_prob_ = np.log(p)
    with np.errstate(divide="ignore"):
        est.feature_log_prob_off_ = np.log1p(-p)
    est.class_log_prior_ = np.log(np.array([0.75, 0.25]))
    return est


def test_golden_bif_xmlbif_net_text():
    net = network_from_model(_tiny_nb(), vocabulary=["a", "b"], label="trade")
    bif = net.to_bif()
    assert "network hbnlab_tradeTOPIC {" in bif
    assert "variable tradeTOPIC {\n  type discrete [ 2 ] { 0, 1 };" in bif
    assert "probability ( tradeTOPIC ) {\n  table 0.75, 0.25;\n}" in bif
    assert "probability ( a | tradeTOPIC ) {\n  (0) 0.5, 0.5;\n  (1) 0.625, 0.375;\n}" in bif
    assert "probability ( b | tradeTOPIC ) {\n  (0) 0.75, 0.25;\n  (1) 0.0, 1.0;\n}" in bif
    xml = net.to_xmlbif()
    assert "<DEFINITION>\n  <FOR>b</FOR>\n  <GIVEN>tradeTOPIC</GIVEN>\n  <TABLE>0.75 0.25 0.0 1.0</TABLE>" in xml
    hugin = net.to_net()
    assert 'node a\n{\n    label = "a";\n    states = ("0" "1");\n}' in hugin
    assert "potential ( b | tradeTOPIC )\n{\n    data = (( 0.75 0.25 ) ( 0.0 1.0 ));\n}" in hugin
    # hand computation: P(trade | a=1, b=0) = .25*.375*0 / (...) = 0; P(trade | a=0, b=1)
    p = 0.25 * 0.625 * 1.0 / (0.25 * 0.625 * 1.0 + 0.75 * 0.5 * 0.25)
    assert brute_force_class_posterior(net, {"a": 0, "b": 1}) == pytest.approx(p, abs=1e-15)
    assert brute_force_class_posterior(net, {"a": 1, "b": 0}) == 0.0


def test_hbn_table_layout_matches_the_configuration_index():
    """thesis ch. 2 / TreeParameters: row x = sum_j state(child_j) 2**j; the exported table
    indexed by the listed parents (last child first) must give the same row."""
    from hbnlab.bn.params import TreeParameters
    from hbnlab.bn.structure import TreeStructure

    tree = TreeStructure.from_nested([0, 1, 2])
    rows = np.array([[1 - q, q] for q in np.linspace(0.05, 0.95, 8)])
    p = TreeParameters(tree, [rows, [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]])
    net = network_from_tree_parameters(p, ["f0", "f1", "f2"], "cTOPIC")
    c = net.variable("cTOPIC")
    assert c.parents == ("f2", "f1", "f0")
    for x in range(8):
        s = [(x >> j) & 1 for j in range(3)]  # states of f0, f1, f2
        assert np.array_equal(c.table[s[2], s[1], s[0]], rows[x])
        assert brute_force_class_posterior(net, {"f0": s[0], "f1": s[1], "f2": s[2]}) == pytest.approx(rows[x, 1])


# --------------------------------------------------------------------------- oracle
@pytest.mark.parametrize("name", BN_ROWS)
def test_network_equals_the_model_by_enumeration(name, bn_models, data):
    est = bn_models[name]
    net = network_from_model(est, vocabulary=data.vocabulary, label=data.categories[0])
    assert net.feature_variables == tuple(feature_variable_names(net.feature_terms, net.class_variable))
    X, E = evidence_matrix(data, est, n_random=60, n_real=20)
    want = est.predict_proba(X)[:, 1]
    got = np.array([brute_force_class_posterior(net, e) for e in net.evidence(E)])
    np.testing.assert_allclose(got, want, atol=1e-12, rtol=0)


def _nested_trees(max_leaves=7):
    """Random nested lists over feature columns: hidden nodes have >= 2 nodes below them."""
    def build(draw_order, k, n):
        return draw_order[k:k + n]

    @st.composite
    def strat(draw):
        n = draw(st.integers(2, max_leaves))
        items = list(range(n))
        perm = draw(st.permutations(items))
        nodes = list(perm)
        # repeatedly merge 2-3 random items into a hidden node
        merges = draw(st.integers(0, n - 2))
        for _ in range(merges):
            if len(nodes) < 3:
                break
            k = draw(st.integers(2, min(3, len(nodes) - 1)))
            start = draw(st.integers(0, len(nodes) - k))
            group = nodes[start:start + k]
            nodes = nodes[:start] + [group] + nodes[start + k:]
        return nodes

    return strat()


@settings(max_examples=40, deadline=None)
@given(nested=_nested_trees(), direction=st.sampled_from(["hbn", "hnb"]), seed=st.integers(0, 2**31 - 1))
def test_random_trees_agree_with_hbnlab_inference(nested, direction, seed):
    """Oracle: for random trees and random CPTs, enumeration over the exported network equals
    hbnlab.bn.inference.class_posterior (both arc directions)."""
    from hbnlab.bn.inference import class_posterior
    from hbnlab.bn.params import TreeParameters, cpt_shape
    from hbnlab.bn.structure import TreeStructure

    tree = TreeStructure.from_nested(nested, direction=direction)
    rng = np.random.default_rng(seed)
    cpts = []
    for i in range(tree.n_nodes):
        q = rng.uniform(0.02, 0.98, cpt_shape(tree, i)[:-1])
        cpts.append(np.stack([1 - q, q], axis=-1))
    params = TreeParameters(tree, cpts)
    net = network_from_tree_parameters(params)
    E = rng.integers(0, 2, (8, tree.n_features))
    want = class_posterior(params, E)[:, 1]
    got = [brute_force_class_posterior(net, e) for e in net.evidence(E)]
    np.testing.assert_allclose(got, want, atol=1e-12, rtol=0)


# --------------------------------------------------------------------------- pyAgrum and pgmpy
@pytest.mark.parametrize("name", BN_ROWS)
def test_pyagrum_exact_inference_on_200_documents(name, bn_models, data, tmp_path):
    est = bn_models[name]
    loaded = load_model(model_to_bytes(est, vocabulary=data.vocabulary, label=data.categories[0]))
    net = network_from_model(loaded)
    X, E = evidence_matrix(data, est)
    assert E.shape[0] == N_DOCS
    want = est.predict_proba(X)[:, 1]
    # XMLBIF: pyAgrum reads doubles -> hbnlab's posterior to 1e-9
    path = export_bn(loaded, "xmlbif", tmp_path / "m.bifxml")
    np.testing.assert_allclose(gum_posteriors(path, net, E), want, atol=1e-9, rtol=0)
    # BIF and .net: pyAgrum 3.x parses the numbers as float32 -- the tables it reads are exactly
    # ours rounded to float32, its inference is exact on those, and within 1e-6 of ours
    want32 = float32_posteriors(net, E[:40])
    for fmt in ("bif", "net"):
        path = export_bn(loaded, fmt, tmp_path / f"m{FORMAT_SUFFIX[fmt]}")
        bn = gum.loadBN(str(path))
        for v in net.variables:
            cpt = bn.cpt(v.name)
            assert set(cpt.names) == {v.name, *v.parents}
            ours = np.asarray(v.table, np.float32).astype(np.float64)
            for idx in np.ndindex(*ours.shape[:-1]):  # every parent configuration
                row = np.asarray(cpt[{p: int(s) for p, s in zip(v.parents, idx)}]) if v.parents else \
                    np.asarray(cpt.toarray())
                np.testing.assert_array_equal(row, ours[idx])
        got = gum_posteriors(path, net, E)
        np.testing.assert_allclose(got[:40], want32, atol=1e-9, rtol=0)
        np.testing.assert_allclose(got, want, atol=1e-6, rtol=0)


@pytest.mark.parametrize("name", BN_ROWS)
def test_pgmpy_exact_inference(name, bn_models, data, tmp_path):
    est = bn_models[name]
    net = network_from_model(est, vocabulary=data.vocabulary, label=data.categories[0])
    X, E = evidence_matrix(data, est, n_random=N_PGMPY_DOCS // 2, n_real=N_PGMPY_DOCS // 2, seed=1)
    want = est.predict_proba(X)[:, 1]
    # pgmpy's BIF reader spends ~2 s building its grammar per file: BIF for the structurally distinct
    # networks (several parents, multi-state latents, the noisy-OR chain; NB's BIF is read in
    # test_reserved_and_odd_terms_survive_every_reader), XMLBIF and .net for every learner
    fmts = ("bif", "xmlbif", "net") if name in PGMPY_BIF_ROWS else ("xmlbif", "net")
    for fmt in fmts:
        path = export_bn(est, fmt, tmp_path / f"m{FORMAT_SUFFIX[fmt]}", vocabulary=data.vocabulary,
                         label=data.categories[0])
        np.testing.assert_allclose(pgmpy_posteriors(path, fmt, net, E), want, atol=1e-9, rtol=0)


def test_noisy_or_fitted_on_counts_matches_on_binary_documents(fitted, data, tmp_path):
    """OR-EQ12 (counts=True, de Campos eq. 10) exported as eq. 9: equal where no term repeats."""
    est = fitted["OR-EQ12"]
    assert est.counts
    net = network_from_model(est, vocabulary=data.vocabulary)
    assert "counts=True" in net.properties["note"]
    X, E = evidence_matrix(data, est, n_random=50, n_real=0)  # binary: every count <= 1
    path = export_bn(est, "xmlbif", tmp_path / "or.bifxml", vocabulary=data.vocabulary)
    np.testing.assert_allclose(gum_posteriors(path, net, E), est.predict_proba(X)[:, 1], atol=1e-9, rtol=0)
    # every table of the decomposition has at most four rows (no 2**n expansion)
    assert max(int(np.prod(np.shape(v.table)[:-1])) for v in net.variables) <= 4


def test_noisy_or_without_any_arc_and_with_leak(data):
    from hbnlab.models.or_gate import NoisyORBinaryClassifier

    est = NoisyORBinaryClassifier(weights="eq11", counts=False, leak=0.1, n_features=4)
    est.fit(data.X_train, data.Y_train[:, 1].astype(int))
    net = network_from_model(est)
    X, E = evidence_matrix(data, est, n_random=16, n_real=4)
    got = [brute_force_class_posterior(net, e) for e in net.evidence(E)]
    np.testing.assert_allclose(got, est.predict_proba(X)[:, 1], atol=1e-12, rtol=0)
    est.model_.weights_ = np.zeros_like(est.model_.weights_)
    net0 = network_from_model(est)
    assert net0.variable(net0.class_variable).parents == ()
    assert brute_force_class_posterior(net0, net0.evidence(E[:1])[0]) == pytest.approx(0.1)


# --------------------------------------------------------------------------- errors and files
def test_learners_without_a_network_are_refused(fitted, tmp_path):
    for name in ("SVM", "MNB", "ROCCHIO"):
        with pytest.raises(BNExportError, match="no Bayesian-network form"):
            export_bn(fitted[name], "bif", tmp_path / "x.bif")
    with pytest.raises(ValueError, match="format must be one of"):
        export_bn(fitted["NB"], "dot", tmp_path / "x.dot")
    assert not (tmp_path / "x.bif").exists()


def test_invalid_networks_are_refused():
    from hbnlab.export.bn_formats import BNVariable

    ok = BNVariable("A", ("0", "1"), (), np.array([0.5, 0.5]))
    with pytest.raises(BNExportError, match="identifier"):
        DiscreteNetwork("n", (dataclasses.replace(ok, name="a b"),), "a b", ())
    with pytest.raises(BNExportError, match="not defined before"):
        DiscreteNetwork("n", (BNVariable("B", ("0", "1"), ("A",), np.full((2, 2), 0.5)), ok), "A", ())
    with pytest.raises(BNExportError, match="does not sum to 1"):
        DiscreteNetwork("n", (dataclasses.replace(ok, table=np.array([0.5, 0.6])),), "A", ())
    with pytest.raises(BNExportError, match="shape"):
        DiscreteNetwork("n", (dataclasses.replace(ok, table=np.full((2, 2), 0.5)),), "A", ())


def test_greedy_hnb_latent_states(fitted, data):
    est = fitted["GREEDY-HNB"]
    net = network_from_model(est, vocabulary=data.vocabulary)
    latents = [v for v in net.variables if v.role == "hidden"]
    assert len(latents) == est.model_.n_latents
    for v, k in zip(sorted(latents, key=lambda v: v.name), est.latent_cardinalities_):
        assert v.states == tuple(str(s) for s in range(k))


@pytest.mark.slow
def test_reuters_hbn_or_trade_exports_and_agrees(reuters_corpus, tmp_path):
    """The thesis's set-up (Reuters-21578 ModApte, trade, 30 IG terms, HBN-OR with B=9,
    alpha=0.09; 4 EM restarts to stay quick): the exported network agrees with hbnlab on 200 test
    documents in pyAgrum (XMLBIF) to 1e-9."""
    from hbnlab.features import score_terms
    from hbnlab.models.catalog import make_classifier
    from hbnlab.text import IndexingConfig, index_corpus

    ic = index_corpus(reuters_corpus, IndexingConfig(), categories=["trade"])
    s = score_terms(ic.X_train, ic.Y_train)[:, 0]
    cols = np.lexsort((np.arange(s.size), -s))[:30]
    est = make_classifier("HBN-OR", 30, {"n_restarts": 4}, 0)
    est.set_params(feature_names=[ic.vocabulary[c] for c in cols], class_name="tradeTOPIC")
    est.fit(ic.X_train, ic.Y_train[:, 0].astype(np.int8), selected_features=cols)
    loaded = load_model(model_to_bytes(est, indexing=IndexingConfig(), vocabulary=ic.vocabulary, label="trade"))
    X = ic.X_test[:N_DOCS]
    assert np.array_equal(loaded.predict_proba_texts(reuters_corpus.texts(ic.test_docs[:N_DOCS])),
                          est.predict_proba(X)[:, 1])
    net = network_from_model(loaded)
    assert net.class_variable == "tradeTOPIC" and "trade" in net.feature_variables
    E = (X[:, est.selected_features_] > 0).toarray().astype(np.int8)
    path = export_bn(loaded, "xmlbif", tmp_path / "trade.bifxml")
    np.testing.assert_allclose(gum_posteriors(path, net, E), est.predict_proba(X)[:, 1], atol=1e-9, rtol=0)


# --------------------------------------------------------------------------- k-state hidden nodes
@pytest.fixture(scope="module")
def kstate_models(data):
    from export_helpers import fit_learner

    return {name: fit_learner(data, name, {"n_restarts": 3, "hidden_states": 3}) for name in ("HBN-OR", "HNB-AVG")}


@pytest.mark.parametrize("name", ["HBN-OR", "HNB-AVG"])
def test_three_state_hidden_nodes_round_trip_pyagrum_and_pgmpy(name, kstate_models, data, tmp_path):
    """A tree whose hidden nodes have 3 states: the model file keeps them, the exported variables
    have states "0", "1", "2", and pyAgrum's and pgmpy's exact inference give hbnlab's posterior."""
    est = kstate_models[name]
    hidden = est.tree_.hidden_nodes()
    assert hidden and all(est.tree_.cardinality(i) == 3 for i in hidden)
    loaded = load_model(model_to_bytes(est, vocabulary=data.vocabulary, label=data.categories[0]))
    assert loaded.estimator.tree_ == est.tree_ and loaded.estimator.get_params()["hidden_states"] == 3
    net = network_from_model(loaded)
    roles = {v.name: v for v in net.variables}
    assert sum(len(v.states) == 3 for v in roles.values()) == len(hidden)
    assert_exports_agree(est, loaded, net, data, tmp_path, pgmpy_formats=("bif", "xmlbif", "net"))


def test_binary_tree_model_file_has_no_states_field(fitted, data):
    """Binary trees are written as before (no "states"), so older readers and files agree."""
    import io
    import json
    import zipfile

    raw = model_to_bytes(fitted["HBN-OR"], vocabulary=data.vocabulary, label=data.categories[0])
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        docs = [json.loads(zf.read(n)) for n in zf.namelist() if n.endswith(".json")]
    text = json.dumps(docs)
    assert '"up"' in text and '"states"' not in text


# --------------------------------------------------------------------------- naive-Bayes children of the class
@pytest.fixture(scope="module")
def class_children_models(data):
    from export_helpers import fit_learner

    return {name: fit_learner(data, name, {"n_restarts": 3, "tree_terms": 4}) for name in ("HBN-OR", "HNB-AVG")}


@pytest.mark.parametrize("name", ["HBN-OR", "HNB-AVG"])
def test_class_children_round_trip_brute_force_pyagrum_and_pgmpy(name, class_children_models, data, tmp_path):
    """A tree over 4 terms and 6 naive-Bayes children of the class: the model file keeps them, the
    exported network has an arc C -> F for each, and enumeration, pyAgrum and pgmpy give hbnlab's
    posterior on every format."""
    est = class_children_models[name]
    assert est.tree_.n_features == 4 and est.class_children_.n_children == 6
    loaded = load_model(model_to_bytes(est, vocabulary=data.vocabulary, label=data.categories[0]))
    le = loaded.estimator
    assert le.tree_ == est.tree_ and le.get_params()["tree_terms"] == 4
    np.testing.assert_array_equal(le.class_children_.p_on, est.class_children_.p_on)
    assert list(le.selected_features_) == list(est.selected_features_)
    net = network_from_model(loaded)
    kids = [v for v in net.variables if v.parents == (net.class_variable,) and v.role == "feature"]
    assert len(kids) >= 6  # the HNB's own feature leaves under the class count too
    assert [v.name for v in net.variables].index(net.class_variable) < min(
        [v.name for v in net.variables].index(k.name) for k in kids)
    assert_exports_agree(est, loaded, net, data, tmp_path, pgmpy_formats=("xmlbif", "net"))
