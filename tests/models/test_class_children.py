"""The HBN / HNB with naive-Bayes children of the class (``tree_terms``): the tree holds the
strongest terms, every other selected term is a child C -> F.

Checked against independent computations: the tree fitted alone on the same columns plus naive-Bayes
log-ratios computed by hand; the thesis's model when the tree holds every term; the exact
decomposition of the explanations; the model file's refusal of damaged tables.
"""
from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from hbnlab.export.model_io import ModelFileError, load_model, model_to_bytes
from hbnlab.features import score_terms
from hbnlab.models.hbn import (
    TREE_TERMS_DEFAULT,
    ClassChildren,
    HierarchicalBNClassifier,
    HierarchicalNBClassifier,
    check_tree_terms,
)

ESTIMATORS = [HierarchicalBNClassifier, HierarchicalNBClassifier]


def planted(n=400, m=14, seed=0):
    """Binary documents whose terms depend on the class with different strengths (term 0 strongest)."""
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 2, n)
    lift = np.linspace(0.45, 0.02, m)
    p = np.where(y[:, None] == 1, 0.25 + lift, 0.25)
    return (rng.rand(n, m) < p).astype(np.int8), y


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_equals_the_tree_alone_plus_hand_computed_naive_bayes_ratios(cls):
    X, y = planted()
    T = 5
    est = cls(B=3, n_features=None, tree_terms=T, n_restarts=4, objective="joint", random_state=0).fit(X, y)
    # the tree's terms are the T best by information gain on the training data, ties by column
    ig = score_terms(X, y.reshape(-1, 1).astype(bool), method="ig")[:, 0]
    order = np.lexsort((np.arange(X.shape[1]), -ig))
    np.testing.assert_array_equal(est.selected_features_, order)
    tree_cols, kid_cols = order[:T], order[T:]
    alone = cls(B=3, n_features=None, tree_terms=None, n_restarts=4, objective="joint",
                random_state=0).fit(X[:, tree_cols], y)
    # N0 = 0.1 frequencies (thesis sec. 1.1.3) written out
    n1, n0 = y.sum(), (1 - y).sum()
    p1 = (X[y == 1][:, kid_cols].sum(0) + 0.1) / (n1 + 0.2)
    p0 = (X[y == 0][:, kid_cols].sum(0) + 0.1) / (n0 + 0.2)
    Xk = X[:, kid_cols]
    ratios = np.where(Xk == 1, np.log(p1 / p0), np.log((1 - p1) / (1 - p0))).sum(1)
    np.testing.assert_allclose(est.decision_function(X), alone.decision_function(X[:, tree_cols]) + ratios,
                               rtol=0, atol=1e-10)
    # the same tree (names differ: F<column> of each input)
    assert (est.tree_.up, est.tree_.kind, est.tree_.feature) == (alone.tree_.up, alone.tree_.kind, alone.tree_.feature)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_a_tree_holding_every_term_is_the_thesis_model(cls):
    """At most ``tree_terms`` selected terms: the same tree, tables and scores as tree_terms=None."""
    X, y = planted(m=8)
    a = cls(B=3, n_features=None, tree_terms=8, n_restarts=3, random_state=1).fit(X, y)
    b = cls(B=3, n_features=None, tree_terms=None, n_restarts=3, random_state=1).fit(X, y)
    assert a.class_children_ is None and b.class_children_ is None
    assert a.tree_ == b.tree_
    np.testing.assert_array_equal(a.selected_features_, b.selected_features_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_the_default_puts_fifty_terms_in_the_tree():
    assert HierarchicalBNClassifier().get_params()["tree_terms"] == TREE_TERMS_DEFAULT == 50
    assert HierarchicalNBClassifier().get_params()["tree_terms"] == 50


@pytest.mark.parametrize("bad", [0, -3, 2.5, "30", True])
def test_bad_tree_terms_is_refused_naming_the_parameter(bad):
    with pytest.raises(ValueError, match="tree_terms"):
        check_tree_terms(bad)
    X, y = planted(m=6)
    with pytest.raises(ValueError, match="tree_terms"):
        HierarchicalBNClassifier(B=3, n_features=None, tree_terms=bad, n_restarts=1).fit(X, y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_explanations_decompose_exactly(cls):
    X, y = planted()
    est = cls(B=3, n_features=None, tree_terms=4, n_restarts=3, random_state=0).fit(X, y)
    e = est.explain(X[:20])
    n_tree = est.tree_.n_nodes
    kids = [i for i in e.contribution_nodes if i >= n_tree]
    assert len(kids) == est.class_children_.n_children == 10
    assert e.node_names[n_tree:] == list(est.class_children_names_)
    Xk = X[:20][:, est.selected_features_[4:]]
    np.testing.assert_array_equal(e.node_marginals[:, n_tree:], Xk)
    # a child's contribution is the log-odds minus the log-odds with its evidence removed: remove it
    # by hand (drop its table) and compare
    cc = est.class_children_
    col = {i: k for k, i in enumerate(e.contribution_nodes)}
    for j in range(cc.n_children):
        keep = np.delete(np.arange(cc.n_children), j)
        without = ClassChildren(cc.p_on[:, keep]).log_odds(Xk[:, keep])
        tree_lo = est.decision_function(X[:20]) - cc.log_odds(Xk)
        np.testing.assert_allclose(e.contributions[:, col[n_tree + j]],
                                   e.log_odds - (tree_lo + without), rtol=0, atol=1e-10)
    if cls is HierarchicalNBClassifier:  # every child of the class sends one factor: additive
        np.testing.assert_allclose(e.prior_log_odds + e.contributions.sum(1), e.log_odds, rtol=0, atol=1e-9)


def _tamper(blob: bytes, edit) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(blob))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename.endswith(".json"):
                doc = json.loads(data)
                if edit(doc):
                    data = json.dumps(doc).encode()
            dst.writestr(info, data)
    return out.getvalue()


def _find_children(doc):
    if isinstance(doc, dict):
        if "class_children_" in doc:
            return doc
        for v in doc.values():
            hit = _find_children(v)
            if hit is not None:
                return hit
    return None


def test_model_file_refuses_damaged_class_children():
    X, y = planted()
    est = HierarchicalBNClassifier(B=3, n_features=None, tree_terms=4, n_restarts=2, random_state=0).fit(X, y)
    blob = model_to_bytes(est)
    np.testing.assert_array_equal(load_model(blob).estimator.decision_function(X), est.decision_function(X))

    def drop_name(doc):
        st = _find_children(doc)
        if st is None:
            return False
        st["class_children_"]["names"] = st["class_children_"]["names"][:-1]
        return True

    def remove_children(doc):
        st = _find_children(doc)
        if st is None:
            return False
        del st["class_children_"]
        return True

    with pytest.raises(ModelFileError, match="class_children_.names"):
        load_model(_tamper(blob, drop_name))
    with pytest.raises(ModelFileError, match="feature leaves"):
        load_model(_tamper(blob, remove_children))


def test_config_maps_zero_to_the_thesis_model_and_checks_bounds():
    from hbnlab.pipeline.config import ExperimentConfig

    cfg = ExperimentConfig()
    assert cfg.tree_terms == 50 and "tree_terms" not in cfg.classifier_params("HBN-OR")
    assert "tree_terms" not in cfg.to_dict()
    assert cfg.replace(tree_terms=0).classifier_params("HBN-OR")["tree_terms"] is None
    assert cfg.replace(tree_terms=20).classifier_params("HNB-AVG")["tree_terms"] == 20
    assert "tree_terms" not in cfg.replace(tree_terms=0).classifier_params("NB")
    with pytest.raises(ValueError, match="tree_terms"):
        cfg.replace(tree_terms=-1)
    parsed, problems = ExperimentConfig.from_query({"tree_terms": "0"})
    assert parsed.tree_terms == 0 and not problems


def test_config_children_select_reaches_the_tree_learners_only():
    from hbnlab.models.catalog import make_classifier
    from hbnlab.pipeline.config import ExperimentConfig

    cfg = ExperimentConfig()
    assert cfg.children_select == "auto" and "children_select" not in cfg.to_dict()
    assert "children_select" not in cfg.classifier_params("HBN-OR")  # the clustering's rule
    assert make_classifier("HBN-OR", 30, cfg.classifier_params("HBN-OR")).get_params()["children_select"] is None
    for rule in ("all", "cv", "cv-max"):
        c = cfg.replace(children_select=rule)
        assert c.classifier_params("HNB-AVG")["children_select"] == rule
        assert "children_select" not in c.classifier_params("NB")
        assert ExperimentConfig.from_dict(c.to_dict()).children_select == rule
    with pytest.raises(ValueError, match="children_select"):
        cfg.replace(children_select="best")
    parsed, problems = ExperimentConfig.from_query({"children_select": "cv-max"})
    assert parsed.children_select == "cv-max" and not problems


def test_dependent_terms_match_scipy_g_tests_summed_over_the_classes():
    """G of each pair = the sum over the classes of scipy's log-likelihood-ratio statistic of the 2x2
    table given that class; a term is kept when some partner's G passes chi2(2) at p = 0.001."""
    from scipy.stats import chi2, chi2_contingency

    from hbnlab.models.hbn import DEPENDENCE_P, dependent_terms

    rng = np.random.RandomState(3)
    n = 600
    y = rng.randint(0, 2, n)
    base = rng.rand(n) < 0.4
    X = np.column_stack([
        base, base ^ (rng.rand(n) < 0.15),           # 0, 1: dependent given the class
        rng.rand(n) < np.where(y == 1, 0.6, 0.2),     # 2: class-related, independent of the others given C
        rng.rand(n) < 0.3,                            # 3: noise
        (rng.rand(n) < 0.5) & base,                   # 4: depends on 0 and 1
    ]).astype(np.int8)
    m = X.shape[1]
    G = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            for c in (0, 1):
                Xc = X[y == c]
                table = np.array([[np.sum((Xc[:, i] == a) & (Xc[:, j] == b)) for b in (0, 1)] for a in (0, 1)])
                if (table.sum(0) > 0).all() and (table.sum(1) > 0).all():
                    G[i, j] += chi2_contingency(table, correction=False, lambda_="log-likelihood")[0]
    want = np.flatnonzero(G.max(1) > chi2.isf(DEPENDENCE_P, 2))
    assert want.tolist() == [0, 1, 4]
    np.testing.assert_array_equal(dependent_terms(X, y), want)
    est = HierarchicalBNClassifier(B=3, n_features=None, tree_terms=4, tree_select="dependent", n_restarts=2,
                                   random_state=0).fit(X, y)
    # the pool is the 4 terms with the highest I(F; C); the tree keeps its dependent ones
    ig = score_terms(X, y.reshape(-1, 1).astype(bool), method="ig")[:, 0]
    pool = np.lexsort((np.arange(m), -ig))[:4]
    tree = pool[dependent_terms(X[:, pool], y)]
    np.testing.assert_array_equal(est.selected_features_[: est.tree_.n_features], tree)
    assert est.class_children_.n_children == m - tree.size
    with pytest.raises(ValueError, match="tree_select"):
        HierarchicalBNClassifier(B=3, n_features=None, tree_terms=2, tree_select="best", n_restarts=1).fit(X, y)


# --------------------------------------------------------------------------- children_select="cv"
def planted_with_noise(seed):
    """Six informative terms (decreasing strength) and 34 terms independent of the class."""
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 2, 400)
    lift = np.r_[np.linspace(0.45, 0.2, 6), np.zeros(34)]
    return (rng.rand(400, 40) < np.where(y[:, None] == 1, 0.25 + lift, 0.25)).astype(np.int8), y


def check_cross_validated_children(rule, seed) -> int:
    """The kept children are the first k by I(F; C): the model is the one fitted with T + k terms.
    k is the candidate with the highest inner breakeven (``"cv-max"``), or the most children within
    one standard error sqrt(b (1 - b) / n_pos) of that breakeven b (``"cv"``); ties keep more."""
    from hbnlab.models.hbn import children_candidates

    X, y = planted_with_noise(seed)
    kw = dict(B=3, tree_terms=5, n_restarts=4, random_state=0)
    est = HierarchicalBNClassifier(n_features=None, children_select=rule, **kw).fit(X, y)
    cv = est.children_cv_
    assert cv["n_children"] == children_candidates(5, 40).tolist() == [0, 5, 15, 35]
    bep = np.asarray(cv["breakeven"])
    se = np.sqrt(bep.max() * (1 - bep.max()) / y.sum()) if rule == "cv" else 0.0
    assert cv["margin"] == pytest.approx(se, rel=1e-12)
    kept = cv["n_children"][np.flatnonzero(bep >= bep.max() - se - 1e-12)[-1]]
    assert len(est.selected_features_) == 5 + kept == len(est.feature_scores_)
    assert (est.class_children_ is None) == (kept == 0)
    assert len(est.class_children_names_) == kept
    same = HierarchicalBNClassifier(n_features=5 + kept, children_select="all", **kw).fit(X, y)
    np.testing.assert_array_equal(est.selected_features_, same.selected_features_)
    np.testing.assert_allclose(est.decision_function(X), same.decision_function(X), rtol=0, atol=1e-12)
    return kept


@pytest.mark.parametrize("rule, seed, kept", [("cv-max", 0, 15), ("cv", 0, 35), ("cv-max", 2, 0), ("cv", 2, 35)])
def test_cross_validated_children_equal_the_model_with_that_many_terms(rule, seed, kept):
    """Seed 0: the best inner breakeven has 15 children, 35 are within one standard error of it;
    seed 2: the best has none, all 35 are within one standard error."""
    assert check_cross_validated_children(rule, seed) == kept


def test_cross_validated_children_survive_the_model_file():
    X, y = planted_with_noise(0)
    est = HierarchicalNBClassifier(B=3, n_features=None, tree_terms=5, n_restarts=3, children_select="cv-max",
                                   random_state=0).fit(X, y)
    assert 0 < est.class_children_.n_children < 35
    back = load_model(model_to_bytes(est)).estimator
    assert back.get_params()["children_select"] == "cv-max"
    np.testing.assert_array_equal(back.decision_function(X), est.decision_function(X))


def test_all_children_are_kept_without_the_option_and_with_too_few_positives():
    X, y = planted_with_noise(2)
    est = HierarchicalBNClassifier(B=3, n_features=None, tree_terms=5, n_restarts=3, random_state=0).fit(X, y)
    assert est.children_cv_ is None and est.class_children_.n_children == 35
    y2 = np.zeros_like(y)
    y2[:2] = 1  # fewer positives than folds: nothing to cross-validate
    est = HierarchicalBNClassifier(B=3, n_features=None, tree_terms=5, n_restarts=3, children_select="cv",
                                   random_state=0).fit(X, y2)
    assert est.children_cv_ is None and est.class_children_.n_children == 35


@pytest.mark.parametrize("bad", ["CV", "", 3])
def test_bad_children_select_is_refused_naming_the_parameter(bad):
    X, y = planted()
    with pytest.raises(ValueError, match="children_select"):
        HierarchicalBNClassifier(B=3, children_select=bad, n_restarts=2).fit(X, y)


def test_em_stopped_by_its_iteration_cap_warns_and_a_converged_fit_does_not():
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    X, y = planted()
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        est = HierarchicalBNClassifier(B=3, n_restarts=2, max_iter=2, tol=0.0, random_state=0).fit(X, y)
    assert not est.converged_ and est.n_iter_ == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = HierarchicalBNClassifier(B=3, n_restarts=2, random_state=0).fit(X, y)
    assert est.converged_


@pytest.mark.parametrize("clustering, rule", [("or", "cv"), ("dep", "cv"), ("avg", "all")])
def test_children_select_default_is_the_clusterings_rule(clustering, rule):
    """None: decision rule 10 of benchmarks/results/hbn_any_corpus.md (OR and DEP cross-validate
    their children, AVG keeps all); a given rule overrides it."""
    X, y = planted_with_noise(0)
    kw = dict(B=3, clustering=clustering, n_features=None, tree_terms=5, n_restarts=2, objective="joint",
              random_state=0)
    est = HierarchicalBNClassifier(**kw)
    assert est.get_params()["children_select"] is None
    est.fit(X, y)
    assert (est.children_cv_ is not None) == (rule == "cv")
    if rule == "cv":
        assert est.children_cv_["margin"] > 0
    assert HierarchicalBNClassifier(**{**kw, "children_select": "all"}).fit(X, y).children_cv_ is None
