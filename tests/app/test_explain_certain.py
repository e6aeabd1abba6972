"""Explain on a model that is certain of a document (issue 38, item 2).

A maximum-likelihood table with an empty cell (``pseudo_count=0``, the default) gives P(c | d) exactly
0 or 1: the log-odds is infinite.  Explain computes in log space from the model's tables, never from
a rounded probability, says in words that the model is certain and which evidence makes it so, and
prints neither ``nan`` nor ``inf`` anywhere (values, tree labels, tables, chart, highlight colours).
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from app_testutil import displayed, no_exceptions, texts, wait_for_jobs

from hbnlab.app.views import explain as A
from hbnlab.bn import inference as I
from hbnlab.corpus import Corpus, Document
from hbnlab.models.hbn import LOG_ODDS_CAP, HierarchicalBNClassifier, HierarchicalNBClassifier
from hbnlab.pipeline import tasks as T
from hbnlab.pipeline.config import ExperimentConfig

#: ``nan`` / ``inf`` as a word (not "information"), in any case.
NAN_OR_INF = re.compile(r"\b(nan|inf|infinity)\b", re.IGNORECASE)


def _certain_data():
    """F0 is the class itself: the HBN's table P(C | F0, ...) has an empty cell for each class."""
    rng = np.random.RandomState(0)
    y = np.r_[np.ones(20), np.zeros(20)].astype(int)
    X = np.column_stack([y, rng.rand(40) < .5, rng.rand(40) < .5, rng.rand(40) < .3]).astype(float)
    return X, y


def _fit(cls):
    X, y = _certain_data()
    return cls(B=2, n_features=None, tree_terms=None, n_restarts=2, objective="joint", random_state=0).fit(X, y), X


def test_a_certain_hbn_has_an_infinite_log_odds_and_contributions_that_are_never_nan():
    est, X = _fit(HierarchicalBNClassifier)
    full, without, nodes = I.subtree_log_odds(est.params_, X[[0, 20]], range(1, est.tree_.n_nodes))
    assert full.tolist() == [np.inf, -np.inf]
    contrib, _ = I.subtree_contributions(est.params_, X[[0, 20]], nodes)
    assert not np.isnan(contrib).any()
    f0 = nodes.index(next(i for i in nodes if est.tree_.names[i] == "F0"))
    # only F0's evidence makes it certain: without it the log-odds is finite; removing any other
    # node's evidence leaves it certain (a change of 0, not inf - inf)
    assert np.isfinite(without[:, f0]).all() and contrib[:, f0].tolist() == [np.inf, -np.inf]
    others = [k for k in range(len(nodes)) if k != f0]
    assert (contrib[:, others] == 0).all() and np.isinf(without[:, others]).all()


def test_log_odds_change_agrees_with_a_plain_difference_wherever_that_is_finite():
    rng = np.random.RandomState(1)
    full, without = rng.randn(50), rng.randn(50, 3)
    np.testing.assert_array_equal(I.log_odds_change(full, without), full[:, None] - without)
    got = I.log_odds_change([np.inf, np.inf, -np.inf, np.nan], [[np.inf], [2.0], [-np.inf], [1.0]])
    assert got[:3, 0].tolist() == [0.0, np.inf, 0.0] and np.isnan(got[3, 0])


@pytest.mark.parametrize("cls", [HierarchicalBNClassifier, HierarchicalNBClassifier])
def test_the_estimators_explanation_is_uncapped_while_its_scores_stay_finite(cls):
    est, X = _fit(cls)
    e = est.explain(X[[0, 20]], nodes="all")
    z = est.decision_function(X[[0, 20]])
    assert np.isfinite(z).all() and np.all(np.abs(z) <= LOG_ODDS_CAP)
    if cls is HierarchicalBNClassifier:
        assert e.log_odds.tolist() == [np.inf, -np.inf] and e.certain.all()
        assert z.tolist() == [LOG_ODDS_CAP, -LOG_ODDS_CAP]
    else:                   # certain up to double precision: finite, far beyond where P rounds to 0 / 1
        np.testing.assert_allclose(e.log_odds, z)
        assert np.all(np.abs(e.log_odds) > A.DOUBLE_CERTAIN_LOG_ODDS)
    assert e.contribution_nodes == list(range(1, est.tree_.n_nodes))
    assert not np.isnan(e.contributions).any() and e.log_odds_without.shape == e.contributions.shape


def test_probability_and_log_odds_texts_never_round_to_a_false_zero_or_say_nan():
    assert A.probability_text(-800.0) == "3.7e-348"                # below the smallest double, from log space
    assert A.probability_text(40.0) == "1 − 4.2e-18"
    assert A.probability_text(np.inf) == "1 exactly" and A.log_odds_text(-np.inf) == "−∞ (certain)"
    assert A.certainty_text(3.0, "earn", []) == ""
    words = A.certainty_text(40.0, "earn", [])
    assert words.startswith("The model gives this class probability 1 up to double precision")
    for z in (np.nan, np.inf, -np.inf, 40.0, -800.0):
        for text in (A.probability_text(z), A.log_odds_text(z), A.certainty_text(z, "earn", ["apple"]),
                     A.change_text(z, 1.0), A.change_text(0.0, z)):
            assert not NAN_OR_INF.search(text), (z, text)


def _doc(i, text, labels, split="train"):
    return Document(id=str(i), text=text, labels=frozenset(labels), split=split)


@pytest.fixture(scope="module")
def certain_data():
    """"apple" is in every A document and no other: the HBN of A is certain of every document."""
    docs = [_doc(i, f"apple {w}", {"A"}) for i, w in enumerate(["kiwi", "plum kiwi", "fig", "plum", "lime fig"])]
    docs += [_doc(10 + i, w, {"B"}) for i, w in enumerate(["kiwi lime", "plum", "fig lime", "kiwi", "plum fig"])]
    docs += [_doc(20, "apple plum", {"A"}, "test"), _doc(21, "kiwi fig", {"B"}, "test")]
    corpus = Corpus("certain", tuple(docs))
    return corpus, T.prepare_experiment({"stopwords": "none", "min_df": 1, "n_categories": 2}, corpus=corpus)


@pytest.mark.parametrize("name", ["HBN-OR", "HBN-AVG", "HNB-OR"])
def test_explain_document_of_a_certain_model_is_finite_and_worded(certain_data, name):
    corpus, data = certain_data
    est, _, _ = T.fit_config_unit(data, "A", name, ExperimentConfig(n_features=5, n_restarts=2, tree_terms=0,
                                                                             objective="joint"))
    certain = 0
    for doc in corpus.documents:
        ex = A.explain_document(est, data, doc, label="A", classifier=name)
        if abs(ex.log_odds) > A.DOUBLE_CERTAIN_LOG_ODDS:
            certain += 1
            assert "apple" in ex.certainty or "up to double precision" in ex.certainty, ex.certainty
        else:
            assert ex.certainty == ""
        shown = [ex.verdict, ex.certainty, ex.probability_text, ex.log_odds_text, ex.tree_dot, ex.text_html,
                 ex.method, ex.nodes.to_string(na_rep=""), ex.terms.to_string(na_rep="")]
        for text in shown:
            assert not NAN_OR_INF.search(text), text
        assert not np.isinf(ex.nodes.select_dtypes("number").to_numpy()).any()
        bars = A.chart_terms(ex.terms)
        assert np.isfinite(bars["contribution"]).all()
        assert len(bars) or ex.certainty, "an empty chart only when the words say why"
        for alpha in re.findall(r"rgba\([^)]*, ([^)]*)\)", ex.text_html):
            assert 0.0 < float(alpha) <= 1.0                      # a colour of the legend, not rgba(..., nan)
        apple = ex.terms.set_index("term").loc["apple"]
        if np.isinf(ex.log_odds):
            assert "makes the model certain" in apple["effect"] and np.isnan(apple["contribution"])
            assert "Δ decides" in ex.tree_dot
            # the deciding term counts as evidence, present (towards the class) or absent (away from it)
            assert ("towards the class: apple" if "A" in doc.labels else "away from the class: apple") in ex.verdict
    assert certain >= 5, "the fixture is meant to make the model certain of the A documents"


def _certain_upload() -> bytes:
    rows = ["id,text,labels,split"]
    for label, words in {"wheat": "wheat grain harvest", "crude": "oil crude barrel"}.items():
        for i in range(10):
            extra = ["alpha", "beta", "gamma"][i % 3]
            rows.append(f"{label}{i},{words} {extra},{label},{'test' if i >= 7 else 'train'}")
    return ("\n".join(rows) + "\n").encode("utf-8")


def test_the_explain_page_of_a_certain_model_says_so_and_shows_no_nan_or_inf(app):
    from hbnlab.app import corpus_data, job_client

    path = corpus_data.store_upload(_certain_upload(), "certain.csv", {"id_column": "id", "split_column": "split"})
    cfg = ExperimentConfig(corpus="upload", upload_path=str(path), upload_id_column="id", upload_split_column="split",
                           n_features=4, min_df=1, stopwords="none", n_restarts=2, tree_terms=0, objective="joint")
    job = job_client.submit_train(cfg, classes=["wheat"], classifiers=["HBN-OR"])
    (rec,) = wait_for_jobs(240, ids={job})
    assert rec.state == "done", rec.error
    app.session_state["hbnlab.config"] = cfg
    app.run()
    app.switch_page("pages/explain.py").run()
    no_exceptions(app)
    words = texts(app, "info")
    assert any("The model is certain" in w or "up to double precision" in w for w in words), words
    shown = [t for kind in ("markdown", "caption", "success", "warning", "info", "error") for t in texts(app, kind)]
    shown += [m.value for m in app.metric] + [m.label for m in app.metric]
    shown += [displayed(df).to_string() for df in app.dataframe if df.proto.arrow_data.styler.display_values]
    shown += [json.dumps(json.loads(c.proto.spec)) for c in app.get("plotly_chart")]
    shown += [c.proto.spec for c in app.get("graphviz_chart")]
    shown += [h.proto.body for h in app.get("html")]
    bad = [t for t in shown if NAN_OR_INF.search(t)]
    assert not bad, bad
    job_client.shutdown_jobs(interrupt=True)
