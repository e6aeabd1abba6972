"""The computations behind the pages: hand-made cases, oracles and two-route agreements."""
from __future__ import annotations

import io
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from hbnlab.app import views as A
from hbnlab.corpus import Corpus, Document
from hbnlab.export.report import markdown_table
from hbnlab.pipeline import tasks as T
from hbnlab.pipeline.config import ExperimentConfig


def _doc(i, text, labels, split="train"):
    return Document(id=str(i), text=text, labels=frozenset(labels), split=split)


@pytest.fixture(scope="module")
def tiny():
    """Six training and four test documents; terms counted by hand below."""
    docs = [
        _doc(1, "apple banana", {"A"}), _doc(2, "apple cherry", {"A"}), _doc(3, "apple banana date", {"A", "B"}),
        _doc(4, "banana cherry", {"B"}), _doc(5, "cherry date", {"B"}), _doc(6, "date elder", {"B"}),
        _doc(7, "apple", {"A"}, "test"), _doc(8, "cherry date", {"B"}, "test"),
        _doc(9, "apple date", {"A", "B"}, "test"),
        _doc(10, "Elder & <banana>!", {"B"}, "test"),
    ]
    return Corpus("tiny", tuple(docs))


@pytest.fixture(scope="module")
def tiny_data(tiny):
    cfg = {"stopwords": "none", "min_df": 1, "selection": "ig", "n_categories": 2}
    return T.prepare_experiment(cfg, corpus=tiny)


def test_corpus_overview_counts_by_hand(tiny):
    ov = A.corpus_overview(tiny)
    assert (ov["n_documents"], ov["n_train"], ov["n_test"], ov["n_categories"]) == (10, 6, 4, 2)
    assert ov["labels_per_document"] == {1: 8, 2: 2}
    classes = ov["classes"].set_index("class")
    assert classes.loc["A"].tolist() == [3, 2] and classes.loc["B"].tolist() == [4, 3]
    assert ov["lengths"]["train"].tolist() == [2, 2, 3, 2, 2, 2]
    assert ov["lengths"]["test"].tolist() == [1, 2, 2, 2]
    assert not ov["synthetic"] and ov["label"] == "tiny"


def test_synthetic_corpora_are_labelled():
    from hbnlab.corpus import make_synthetic_corpus

    ov = A.corpus_overview(make_synthetic_corpus(n_documents=200, random_state=1))
    assert ov["synthetic"] and "SYNTHETIC" in ov["label"]


def test_document_search(tiny):
    assert A.search_documents(tiny, "3")["id"].tolist() == ["3"]  # id match (no text has '3')
    assert A.search_documents(tiny, "CHERRY")["id"].tolist() == ["2", "4", "5", "8"]  # case-insensitive
    assert A.search_documents(tiny, "cherry", split="test")["id"].tolist() == ["8"]
    assert A.search_documents(tiny, "<banana>")["id"].tolist() == ["10"]  # literal, not a regex
    assert A.search_documents(tiny, "a.p")["id"].tolist() == []
    assert len(A.search_documents(tiny, "", limit=3)) == 3


def test_feature_table_counts_by_hand(tiny_data):
    t = A.feature_table(tiny_data, "A", 5, "local").set_index("term")
    # class A training docs: 1, 2, 3; the others: 4, 5, 6
    assert t.loc["apple", ["docs in class", "docs outside"]].tolist() == [3, 0]
    assert t.loc["banana", ["docs in class", "docs outside"]].tolist() == [2, 1]
    assert t.loc["date", ["docs in class", "docs outside"]].tolist() == [1, 2]
    assert t.index[0] == "apple"  # it separates A perfectly: the highest information gain
    from hbnlab.features import score_terms

    j = tiny_data.category_index("A")
    ig = score_terms(tiny_data.indexed.X_train, tiny_data.indexed.Y_train, "ig")[:, j]
    for term, row in t.iterrows():
        assert row["score"] == pytest.approx(ig[tiny_data.vocabulary.index(term)])
    assert t["P(term | class)"].loc["banana"] == pytest.approx(2 / 3)
    over = A.selected_terms_overview(tiny_data, 3)
    assert list(over.columns) == ["B", "A"] and over["A"].iloc[0] == "apple"


def test_selected_terms_overview_of_a_vocabulary_smaller_than_asked_for(tiny_data):
    over = A.selected_terms_overview(tiny_data, 30)
    lengths = {c: len(tiny_data.selected_columns(c, 30, "local")) for c in tiny_data.categories}
    assert len(over) == max(lengths.values()) == len(tiny_data.vocabulary) < 30
    assert list(over.index) == list(range(1, len(over) + 1))
    for c, n in lengths.items():
        assert over[c].iloc[:n].notna().all() and over[c].iloc[n:].isna().all()


def _outputs(S, Y, classes, classifiers, corpus="synthetic", stage="test", n_features=30):
    columns = [f"{c}|{n}" for c in classes for n in classifiers]
    return A.TrainOutputs(1, {"config": {"n_features": n_features}}, np.asarray(S, float),
                          [str(i) for i in range(len(Y))], columns, list(classes), list(classifiers),
                          np.asarray(Y, bool), stage, corpus, corpus == "synthetic", n_features, [])


def _random_outputs(seed=0, n=60, corpus="synthetic", stage="test", classes=("earn", "acq", "trade")):
    rng = np.random.default_rng(seed)
    classes, clfs = list(classes), ["NB", "HBN-OR"]
    Y = rng.random((n, len(classes))) < 0.3
    Y[0] = True
    S = np.column_stack([np.clip(Y[:, j] * 0.5 + rng.random(n) * 0.6, 0, 1) for j in range(len(classes))
                         for _ in clfs])
    return _outputs(S, Y, classes, clfs, corpus=corpus, stage=stage)


def test_breakeven_frame_agrees_with_the_measures():
    from hbnlab.evaluation import breakeven_point, macro_breakeven, micro_breakeven

    out = _random_outputs()
    f = out.breakeven_frame()
    assert list(f.index) == ["earn", "acq", "trade", "micro", "macro"]
    assert list(f.columns) == ["NB", "HBN-OR"]
    for name in out.classifiers:
        S = out.scores_of(name)
        for j, c in enumerate(out.classes):
            assert f.loc[c, name] == pytest.approx(100 * breakeven_point(out.Y[:, j], S[:, j]))
        assert f.loc["micro", name] == pytest.approx(100 * micro_breakeven(out.Y, S))
        assert f.loc["macro", name] == pytest.approx(100 * macro_breakeven(out.Y, S))


def test_thesis_columns_only_on_reuters_modapte_test():
    from hbnlab.experiments import paper_values as pv

    assert not _random_outputs().compare_with_thesis()
    thesis = pv.THESIS_CLASSES
    assert not _random_outputs(corpus="reuters21578-modapte", stage="validation",
                               classes=thesis).compare_with_thesis()
    # the published averages describe the thesis's ten classes: three of them get no thesis column
    assert not _random_outputs(corpus="reuters21578-modapte").compare_with_thesis()
    assert list(_random_outputs(corpus="reuters21578-modapte").breakeven_frame().columns) == ["NB", "HBN-OR"]
    out = _random_outputs(corpus="reuters21578-modapte", classes=thesis)
    f = out.breakeven_frame()
    assert list(f.columns) == ["NB", "thesis NB", "HBN-OR", "thesis HBN-OR"]
    row = pv.table_4_10_row("HBN-OR", 30)
    assert f.loc["trade", "thesis HBN-OR"] == row["per_class"]["trade"]
    assert f.loc["micro", "thesis HBN-OR"] == row["micro"] and f.loc["macro", "thesis NB"] == 71.4


def test_threshold_curve_matches_the_threshold_measure_at_every_threshold():
    from hbnlab.evaluation import precision_recall_f1_at_threshold

    out = _random_outputs(3)
    t, p, r, f1 = out.threshold_curve("acq", "NB")
    y, s = out.y_of("acq"), out.scores_of("NB")[:, 1]
    for k in range(len(t)):  # oracle: the measure evaluated one threshold at a time
        ref = precision_recall_f1_at_threshold(y, s, t[k])
        assert (p[k], r[k], f1[k]) == pytest.approx(ref)
    stats = out.threshold_stats("acq", "NB", 0.5)
    assert stats["assigned"] == int((s >= 0.5).sum()) and stats["positives"] == int(y.sum())
    prec, rec, b = out.pr_curve("acq", "NB")
    assert 0 <= b <= 1 and prec[-1] == 1.0 and rec[-1] == 0.0


def test_ranking_frame_columns():
    out = _random_outputs()
    f = out.ranking_frame()
    assert list(f.columns) == ["micro breakeven", "macro breakeven", "11-pt avg precision", "F1@1 micro",
                               "F1@1 macro", "F1@3 micro", "F1@3 macro"]  # k=5 > 3 classes is left out
    assert ((f >= 0) & (f <= 100)).all().all()
    one = _outputs(np.array([[0.9], [0.1]]), np.array([[1], [0]]), ["a"], ["NB"])
    assert list(one.ranking_frame().columns) == ["micro breakeven", "macro breakeven"]


def test_highlight_html_marks_terms_and_escapes(tiny_data):
    text = "Elder & <banana>! banana"
    spans = tiny_data.indexed.indexer.token_spans(text)
    html = A.highlight_html(text, spans, {"banana": 1.5, "elder": -0.5})
    assert html.count("<mark") == 3
    assert "&amp;" in html and "&lt;" in html and "<banana>" not in html
    assert 'title="banana: +1.500"' in html and 'title="elder: -0.500"' in html
    assert "rgba(231, 76, 60" in html and "rgba(52, 152, 219" in html  # red up, blue down


def test_nb_explanation_is_additive(tiny, tiny_data):
    cfg = {"n_features": 4, "scope": "local"}
    est, _, _ = T.fit_config_unit(tiny_data, "A", "NB", ExperimentConfig().replace(**cfg))
    doc = tiny.test[2]
    ex = A.explain_document(est, tiny_data, doc, label="A", classifier="NB")
    prior = est.class_log_prior_[1] - est.class_log_prior_[0]
    # naive Bayes: log-odds = prior log-odds + sum of the per-term terms (exact)
    assert prior + ex.terms["contribution"].sum() == pytest.approx(ex.log_odds)
    assert ex.probability == pytest.approx(1 / (1 + np.exp(-ex.log_odds)))
    assert ex.true_label and "NB gives P(A | document)" in ex.verdict
    assert ex.tree_dot is None and "term_contributions" in ex.method
    assert set(ex.terms.loc[ex.terms["present"], "term"]) == {"apple", "date"} & set(ex.terms["term"])


def test_flip_explanation_matches_a_loop_oracle(tiny, tiny_data):
    est, _, _ = T.fit_config_unit(tiny_data, "B", "SVM", ExperimentConfig(n_features=4))
    assert not hasattr(est, "term_contributions")
    doc = tiny.test[1]
    ex = A.explain_document(est, tiny_data, doc, label="B", classifier="SVM")
    x = tiny_data.indexed.indexer.transform([doc.full_text]).toarray()
    z = est.decision_function(x)[0]
    for _, row in ex.terms.iterrows():  # oracle: flip one term at a time
        c = tiny_data.vocabulary.index(row["term"])
        x2 = x.copy()
        x2[0, c] = 0.0 if x[0, c] > 0 else 1.0
        assert row["contribution"] == pytest.approx(z - est.decision_function(x2)[0])


def test_jobs_frame_and_progress_text():
    def rec(i, state, progress=None, error=None, started=100.0, finished=None):
        r = SimpleNamespace(id=i, kind="train", label=f"job {i}", state=state, progress=progress, error=error,
                            attempt=1, started=started, finished=finished)
        r.elapsed = lambda now, r=r: None if r.started is None else (r.finished or now) - r.started
        r.eta = lambda now, r=r: 30.0 if r.state == "running" else None
        return r

    df = A.jobs_frame([rec(3, "running", {"unit": 1, "units": 2, "class": "trade", "classifier": "HBN-OR",
                                          "iteration": 4, "loglik": -12.345, "fraction": 0.25}),
                       rec(2, "failed", error="Traceback ...\nValueError: class 'zulu' is not one of"),
                       rec(1, "done", {"fraction": 0.9}, finished=160.0)], now=130.0)
    assert df["state"].tolist() == ["running", "failed", "done"]
    assert df["progress"].tolist() == [0.25, 0.0, 1.0]
    assert df["detail"].iloc[0] == "unit 1/2: HBN-OR · trade · iteration 4 · log-lik -12.35"
    assert df["detail"].iloc[1] == "ValueError: class 'zulu' is not one of"
    assert df["elapsed"].tolist() == ["30s", "30s", "60s"] and df["remaining"].tolist() == ["30s", "", ""]
    assert A.progress_text({"message": "loading corpus"}) == "loading corpus"
    assert A.progress_text(None) == ""


def test_markdown_table_and_exports():
    df = pd.DataFrame({"NB": [91.25, np.nan]}, index=pd.Index(["earn", "micro"], name="class"))
    assert markdown_table(df) == "| class | NB |\n| --- | --- |\n| earn | 91.2 |\n| micro |  |"
    out = _random_outputs()
    files = A.export_tables(out)
    assert set(files) == {"breakeven.csv", "ranking_measures.csv", "models.csv", "test_scores.csv"}
    back = pd.read_csv(io.BytesIO(files["breakeven.csv"]), index_col=0)
    np.testing.assert_allclose(back.values, out.breakeven_frame().values, atol=1e-4)
    scores = pd.read_csv(io.BytesIO(files["test_scores.csv"]))
    assert list(scores.columns[:2]) == ["doc_id", "earn|NB"] and len(scores) == len(out.doc_ids)
    rec = SimpleNamespace(id=1, label="train", created=0.0, finished=1.0)
    md = A.markdown_report(out, rec)
    assert "SYNTHETIC corpus" in md and "## Breakeven (%) per class" in md


def test_tuning_frame_orders_cells():
    res = {"cells": [{"B": 7, "alpha": 0.1, "n_features": 30, "micro": 80.0, "macro": 70.0, "per_class": {}},
                     {"B": 3, "alpha": 0.0, "n_features": 30, "micro": 81.0, "macro": 71.0, "per_class": {}}]}
    f = A.tuning_frame(res)
    # a job from before the hidden states were a dimension reads as binary
    assert f["B"].tolist() == [3, 7] and f["hidden_states"].tolist() == ["2", "2"]
    assert list(f.columns) == ["n_features", "hidden_states", "B", "alpha", "micro", "macro"]
    res["cells"][1]["hidden_states"], res["cells"][0]["hidden_states"] = "auto", 3
    f = A.tuning_frame(res)
    assert f["hidden_states"].tolist() == ["3", "auto"] and f["B"].tolist() == [7, 3]


def test_stable_tree_dot_keeps_the_graph_and_names_nodes_by_what_they_are():
    import re

    from hbnlab.bn.structure import TreeStructure

    tree = TreeStructure.from_nested([[0, 1], 2, [3, [4, 5]]], feature_names=["a", "b", 'say "x"', "d", "e", "f"],
                                     class_name="tradeTOPIC")
    plain, stable = tree.to_dot(), A.stable_tree_dot(tree)
    ids = {0: '"class"'}
    for i in range(1, tree.n_nodes):
        name = tree.names[i].replace('"', '\\"')
        ids[i] = f'"hidden:{name}"' if tree.kind[i] == "hidden" else f'"term:{tree.feature[i]}:{name}"'
    # oracle: substitute the positional ids one by one
    expected = plain
    for i in sorted(ids, reverse=True):  # n10 before n1
        expected = re.sub(rf"\bn{i}\b(?= \[| ->|;)", lambda m, i=i: ids[i], expected)
    assert stable == expected
    assert stable.count("->") == tree.n_nodes - 1 and '"term:2:say \\"x\\""' in stable
    # the same term keeps its id when the tree around it changes
    other = TreeStructure.from_nested([0, 1, [2, 3, 4, 5]], feature_names=["a", "b", 'say "x"', "d", "e", "f"],
                                      class_name="tradeTOPIC")
    assert '"term:0:a" [label="a", shape=box' in A.stable_tree_dot(other)
    assert '"term:0:a" [label="a", shape=box' in stable
    assert A.dot_layout(stable, "LR").count("rankdir=LR") == 1
    with pytest.raises(ValueError, match="direction must be TB, LR, BT or RL, got 'XY'"):
        A.dot_layout(stable, "XY")


def test_experiment_result_reproduces_our_tables():
    """Two routes to the breakeven table: the workbench's and the export report's."""
    from hbnlab.experiments.paper_values import THESIS_CLASSES
    from hbnlab.export.report import breakeven_frame, build_report

    out = _random_outputs(corpus="reuters21578-modapte", classes=THESIS_CLASSES)
    out.units = [{"class": c, "classifier": n, "seconds": 0.5} for c in out.classes for n in out.classifiers]
    traces = {"earn|HBN-OR": [[-10.0, -9.0, -8.5], [-11.0, -9.5]]}
    res = A.experiment_result(out, traces, {})
    ours, theirs = out.breakeven_frame(), breakeven_frame(res)
    for name in out.classifiers:
        np.testing.assert_allclose(theirs[name].to_numpy(), ours[name].to_numpy())
        np.testing.assert_allclose(theirs[f"{name} (thesis)"].to_numpy(), ours[f"thesis {name}"].to_numpy())
    assert res.em_traces == {"HBN-OR": {"earn": traces["earn|HBN-OR"]}}
    html = build_report(res, include_plotlyjs=False, include_trees=False)
    assert 'id="table-breakeven"' in html and "job 1" in html


def test_evidence_summary_separates_absent_terms():
    import pandas as pd

    from hbnlab.app.views.explain import evidence_summary

    terms = pd.DataFrame({"term": ["tariff", "oil", "trade", "wheat"], "present": [True, True, False, False],
                          "contribution": [1.5, -0.4, -2.0, 0.3]})
    text = evidence_summary(terms)
    assert "in the document pushing towards the class: tariff; away from it: oil." in text
    assert "absent from the document whose absence pushes away from the class: trade; towards it: wheat." in text
    only_present = evidence_summary(terms[terms["present"]])
    assert "absent" not in only_present


def test_search_finds_documents_with_every_word_in_any_order():
    from hbnlab.app.views.corpus import query_terms, search_documents
    from hbnlab.corpus import Corpus, Document

    c = Corpus("t", [Document("d1", "Oil prices rose as OPEC cut output", frozenset({"crude"})),
                     Document("d2", "prices of wheat fell", frozenset({"grain"})),
                     Document("d3", "output rose; oil prices steady", frozenset({"crude"}))])
    assert query_terms('oil "prices rose"  x') == ["oil", "prices rose", "x"]
    assert search_documents(c, "prices oil")["id"].tolist() == ["d1", "d3"]
    assert search_documents(c, '"rose oil"')["id"].tolist() == []
    assert search_documents(c, '"prices rose" oil')["id"].tolist() == ["d1"]
    assert search_documents(c, "d2")["id"].tolist() == ["d2"]


def test_compare_refuses_unpaired_jobs():
    from hbnlab.app.views import compare

    a = _random_outputs(seed=0)
    b = _random_outputs(seed=1, n=50)
    b.job_id = 2
    with pytest.raises(ValueError, match="different documents"):
        compare.aligned({1: a, 2: b}, [(1, "NB"), (2, "NB")])
    c = _random_outputs(seed=2, stage="validation")
    c.job_id = 3
    with pytest.raises(ValueError, match="validation split"):
        compare.aligned({1: a, 3: c}, [(1, "NB"), (3, "NB")])
    with pytest.raises(ValueError, match="at least two"):
        compare.aligned({1: a}, [(1, "NB")])
    classes, Y, scores = compare.aligned({1: a}, [(1, "NB"), (1, "HBN-OR")])
    assert classes == a.classes and list(scores) == ["#1 · NB", "#1 · HBN-OR"]
    np.testing.assert_array_equal(scores["#1 · HBN-OR"], a.scores_of("HBN-OR"))


def test_tree_explanation_with_naive_bayes_children_of_the_class(tiny, tiny_data):
    """HNB-AVG with 2 terms in the tree and 2 naive-Bayes children: the children are listed as nodes,
    each term's contribution is its own log-ratio, and the class's children add up to the log-odds."""
    cfg = ExperimentConfig(n_features=4, tree_terms=2, n_restarts=2)
    est, _, _ = T.fit_config_unit(tiny_data, "A", "HNB-AVG", cfg)
    assert est.tree_.n_features == 2 and est.class_children_.n_children == 2
    doc = tiny.test[2]
    ex = A.explain_document(est, tiny_data, doc, label="A", classifier="HNB-AVG")
    kids = ex.nodes[ex.nodes["kind"] == "feature (child of the class)"]
    assert list(kids["node"]) == list(est.class_children_names_)
    x = tiny_data.indexed.indexer.transform([doc.full_text])
    own = est.explain(x)
    n_tree = est.tree_.n_nodes
    col = {i: k for k, i in enumerate(own.contribution_nodes)}
    np.testing.assert_allclose(kids["contribution"].to_numpy(),
                               [own.contributions[0, col[n_tree + j]] for j in range(2)], rtol=0, atol=1e-12)
    terms = ex.terms.set_index("term")["contribution"]
    for name, value in zip(kids["node"], kids["contribution"]):
        assert terms[name] == pytest.approx(value)
    top = [i for i in own.contribution_nodes]
    assert own.prior_log_odds + own.contributions[0, [col[i] for i in top]].sum() == pytest.approx(ex.log_odds)


def test_tree_explanation_says_how_many_children_the_cross_validation_kept(tiny, tiny_data):
    cfg = ExperimentConfig(n_features=4, tree_terms=2, n_restarts=2, children_select="cv-max")
    est, _, _ = T.fit_config_unit(tiny_data, "A", "HBN-OR", cfg)
    cv = est.children_cv_
    assert cv is not None and cv["n_children"] == [0, 2]
    kept = 0 if est.class_children_ is None else est.class_children_.n_children
    ex = A.explain_document(est, tiny_data, tiny.test[2], label="A", classifier="HBN-OR")
    assert f"{kept} of the 2 terms after the tree's were kept as children" in ex.method
    assert f"0: {100 * cv['breakeven'][0]:.1f}, 2: {100 * cv['breakeven'][1]:.1f}" in ex.method
