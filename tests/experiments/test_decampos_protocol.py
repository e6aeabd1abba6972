"""The open choices of de Campos et al.'s protocol (``DecamposProtocol``): each option changes what
it claims, on hand-built inputs, and the CLI flags reach the protocol."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from corpus.corpus_fakes import fake_reuters_records, write_fake_reuters

from hbnlab.cli import main
from hbnlab.evaluation import breakeven_columns, breakeven_point, macro_breakeven, micro_breakeven
from hbnlab.experiments import decampos as dc
from hbnlab.models.multinomial_nb import class_term_counts
from hbnlab.text import TermIndexer

# --------------------------------------------------------------------------- breakeven definitions
# Three documents, three categories.  Category rankings: d0 c0 > c1 > c2, d1 c1 > c0 > c2,
# d2 c0 > c2 > c1.
Y3 = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 0]], dtype=bool)
S3 = np.array([[0.9, 0.8, 0.1], [0.6, 0.7, 0.2], [0.5, 0.3, 0.4]])


def test_breakeven_definitions_on_a_hand_computed_3x3_matrix():
    # score thresholds per category: c0 top-2 {d0, d1} TP 1 -> 1/2; c1 top-1 d0 -> 0; c2 top-1 d2 -> 0
    assert macro_breakeven(Y3, S3, "thresholds") == pytest.approx((0.5 + 0 + 0) / 3)
    assert micro_breakeven(Y3, S3, "thresholds") == pytest.approx((0.5 * 2) / 4)
    # one score threshold over the 9 pairs: .9+ .8- .7+ .6- -> 2 of the top 4
    assert micro_breakeven(Y3, S3, "pooled") == pytest.approx(0.5)
    # rank thresholds: k = 1 assigns 3 pairs, all right; k = 2 assigns 6, still TP 3; at 4: 3/4
    assert micro_breakeven(Y3, S3, "ranks") == pytest.approx(0.75)
    # per category on the ranks: c0 ranks (1, 2, 1) -> {d0, d2} = 1; c1 (2, 1, 3) -> d1 = 1;
    # c2 (3, 3, 2) -> d2 = 0
    assert macro_breakeven(Y3, S3, "ranks") == pytest.approx(2 / 3)
    # per document: d0 top-2 {c0, c1} -> 1/2, d1 -> 1, d2 -> 1
    assert macro_breakeven(Y3, S3, "documents") == pytest.approx(2.5 / 3)
    assert micro_breakeven(Y3, S3, "documents") == pytest.approx((0.5 * 2 + 1 + 1) / 4)
    # nearest cut instead of linear TP: rank cuts at 3 pairs (P 1, R 3/4) and 6 (P 1/2, R 3/4)
    # are equally near; the first gives (1 + 3/4) / 2
    assert micro_breakeven(Y3, S3, "ranks", interpolation="nearest") == pytest.approx(0.875)


def test_evaluate_scores_follows_the_protocol():
    r = dc.evaluate_scores(Y3, S3)
    assert (r["micro"], r["macro"]) == (pytest.approx(75.0), pytest.approx(100 * 2 / 3, abs=1e-3))
    r = dc.evaluate_scores(Y3, S3, dc.DecamposProtocol(micro_bep="thresholds", macro_bep="documents"))
    assert (r["micro"], r["macro"]) == (pytest.approx(25.0), pytest.approx(100 * 2.5 / 3, abs=1e-3))
    assert r["micro_ranks"] == pytest.approx(75.0) and r["macro_thresholds"] == pytest.approx(100 / 6, abs=1e-3)
    assert set(r) == set(dc.MEASURES) | set(dc.DIAGNOSTICS)


def test_av11_per_document_or_per_category():
    Y = np.vstack([Y3, [[0, 0, 0]]])
    S = np.vstack([S3, [[0.3, 0.2, 0.1]]])
    # per document: d0 ranks c0 (+) c1 c2 (+): 6 levels at 1, 5 at 2/3; d1 and d2 their category first
    d0 = (6 + 5 * 2 / 3) / 11
    r = dc.evaluate_scores(Y, S)
    assert r["av11"] == pytest.approx(100 * (d0 + 1 + 1) / 3, abs=1e-3)
    r = dc.evaluate_scores(Y, S, dc.DecamposProtocol(av11="all-documents"))
    assert r["av11"] == pytest.approx(100 * (d0 + 1 + 1 + 0) / 4, abs=1e-3)
    # per category: c0 ranks d0 (+) d1 d2 (+) d3 -> as d0 above; c1 d0 d1 (+): 1/2 at every level;
    # c2 d2 d1 {d0 (+), d3} (a tie, never split): 1/4 at every level
    r = dc.evaluate_scores(Y, S, dc.DecamposProtocol(av11="categories"))
    assert r["av11"] == pytest.approx(100 * (d0 + 1 / 2 + 1 / 4) / 3, abs=1e-3)
    assert r["av11_categories"] == r["av11"]


def _breakeven_loop(y, s, interpolation):
    """Obviously correct: every cut between tie blocks, P and R there."""
    n_pos = int(y.sum())
    if n_pos == 0:
        return np.nan
    cuts = [(0, 0)]
    for t in sorted(set(s), reverse=True):
        above = s >= t
        cuts.append((int(above.sum()), int((y & above).sum())))
    if interpolation == "linear":
        for (ka, ta), (kb, tb) in zip(cuts, cuts[1:]):
            if ka <= n_pos <= kb:
                return (ta + (n_pos - ka) * (tb - ta) / (kb - ka)) / n_pos
    gaps = [(abs(t / k - t / n_pos), (t / k + t / n_pos) / 2) for k, t in cuts[1:]]
    return min(gaps, key=lambda g: g[0])[1]


@pytest.mark.parametrize("interpolation", ["linear", "nearest"])
def test_breakeven_columns_matches_the_loop_with_ties(interpolation):
    rng = np.random.default_rng(3)
    for _ in range(150):
        n, m = rng.integers(1, 10), rng.integers(1, 5)
        Y = rng.random((n, m)) < 0.4
        S = rng.integers(0, 3, (n, m)).astype(float)
        got = breakeven_columns(Y, S, interpolation=interpolation)
        want = [_breakeven_loop(Y[:, j], S[:, j], interpolation) for j in range(m)]
        np.testing.assert_allclose(got, want, equal_nan=True)
        if interpolation == "linear":
            np.testing.assert_allclose(got, [breakeven_point(Y[:, j], S[:, j]) for j in range(m)], equal_nan=True)


def test_rank_micro_breakeven_matches_top_k_assignment_loop():
    rng = np.random.default_rng(0)
    for _ in range(50):
        Y = rng.random((12, 5)) < 0.3
        if not Y.any():
            continue
        S = rng.random((12, 5))
        # TP of "every document gets its top k" for k = 0..m, linear in the k * n assignments
        order = np.argsort(-S, axis=1, kind="stable")
        tp = [0] + [sum(int(Y[i, order[i, :k]].sum()) for i in range(12)) for k in range(1, 6)]
        want = np.interp(Y.sum(), np.arange(6) * 12, tp) / Y.sum()
        assert micro_breakeven(Y, S, "ranks") == pytest.approx(want)
        # a monotone map of all scores keeps every document's ranking
        assert micro_breakeven(Y, np.exp(3 * S) + 1, "ranks") == pytest.approx(want)


# --------------------------------------------------------------------------- counts, presence, totals
# Training: d0 = t0 x2 + t1 in c0; d1 = t0 in c0 and c1; d2 = t1 x3 with no category.
X_TRAIN = sp.csr_matrix(np.array([[2.0, 1.0], [1.0, 0.0], [0.0, 3.0]]))
Y_TRAIN = np.array([[1, 0], [1, 1], [0, 0]], dtype=bool)


def _eq12_score(protocol, x):
    S, _, _ = dc.score_decampos(X_TRAIN, Y_TRAIN, sp.csr_matrix(np.array([x], dtype=float)), ["OR-eq12"],
                                protocol)["OR-eq12"]
    return S[0, 0]


def _logit(p):
    return np.log(p) - np.log1p(-p)


@pytest.mark.parametrize("options, w", [
    # N_00 = 3 occurrences; N_.0 = 2 + 1 + 1 (c0) + 1 (c1) = 4 over classes, 3 over documents
    ({}, (3 + 1) / (4 + 2)),
    ({"term_totals": "documents"}, (3 + 1) / (3 + 2)),
    # documents instead of occurrences: t0 in 2 documents of c0; 2 + 1 over classes, 2 documents
    ({"or_statistics": "presence"}, (2 + 1) / (3 + 2)),
    ({"or_statistics": "presence", "term_totals": "documents"}, (2 + 1) / (2 + 2)),
])
def test_or_gate_weight_of_each_statistic(options, w):
    assert _eq12_score(dc.DecamposProtocol(**options), [1, 0]) == pytest.approx(_logit(w))


def test_or_gate_evidence_counts_replicate_the_term_node():
    w = 4 / 6
    assert _eq12_score(dc.DecamposProtocol(), [2, 0]) == pytest.approx(_logit(1 - (1 - w) ** 2))  # eq. 10
    assert _eq12_score(dc.DecamposProtocol(or_evidence="presence"), [2, 0]) == pytest.approx(_logit(w))  # eq. 9


def test_one_of_n_naive_bayes_normalises_over_the_categories():
    from hbnlab.models.multinomial_nb import MultinomialNBClassifier

    X_test = sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 1.0]]))
    one_of_n = dc.DecamposProtocol(nb_model="one-of-n")
    # two categories, totals over classes and priors 2/3 + 1/3: "not c_0" is c_1, the models agree
    S, _, _ = dc.score_decampos(X_TRAIN, Y_TRAIN, X_test, ["NBayes"], one_of_n)["NBayes"]
    B, _, _ = dc.score_decampos(X_TRAIN, Y_TRAIN, X_test, ["NBayes"])["NBayes"]
    np.testing.assert_allclose(S, B)
    # a third category (d2): eqs. 3-5 by hand, log p(c_i) + sum_k n_jk log p(t_k | c_i), softmax over c_i
    Y = np.hstack([Y_TRAIN, [[False], [False], [True]]])
    S, _, _ = dc.score_decampos(X_TRAIN, Y, X_test, ["NBayes"], one_of_n)["NBayes"]
    nb = MultinomialNBClassifier(totals="classes").fit(X_TRAIN, Y)
    J = X_test.toarray() @ nb.feature_log_prob_.T + np.log(Y.mean(axis=0))[None, :]
    post = np.exp(J) / np.exp(J).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(S, np.log(post / (1 - post)))
    B, _, _ = dc.score_decampos(X_TRAIN, Y, X_test, ["NBayes"])["NBayes"]
    assert not np.allclose(B, S)


def test_class_term_totals_are_sums_over_classes():
    _, N_k, _, N = class_term_counts(X_TRAIN, Y_TRAIN, "classes")
    assert N_k.tolist() == [4.0, 1.0] and N == 5.0
    _, N_k, _, N = class_term_counts(X_TRAIN, Y_TRAIN, "documents")
    assert N_k.tolist() == [3.0, 4.0] and N == 7.0
    with pytest.raises(ValueError, match="totals must be one of"):
        class_term_counts(X_TRAIN, Y_TRAIN, "words")


def test_float64_posterior_ties_where_it_rounds_to_one():
    X_test = sp.csr_matrix(np.array([[60.0, 0.0], [80.0, 0.0]]))
    S, _, _ = dc.score_decampos(X_TRAIN, Y_TRAIN, X_test, ["OR-eq12"], dc.DecamposProtocol())["OR-eq12"]
    assert S[1, 0] > S[0, 0]
    P, _, _ = dc.score_decampos(X_TRAIN, Y_TRAIN, X_test, ["OR-eq12"],
                                dc.DecamposProtocol(scores="probability"))["OR-eq12"]
    assert P[0, 0] == P[1, 0] == 1.0


def test_a_category_without_training_documents_is_ranked_last():
    Y = np.hstack([Y_TRAIN, np.zeros((3, 1), dtype=bool)])
    S, _, _ = dc.score_decampos(X_TRAIN, Y, X_TRAIN, ["NBayes", "OR-eq17"])["NBayes"]
    assert S.shape == (3, 3) and np.all(S[:, 2] < S[:, :2].min())


# --------------------------------------------------------------------------- indexing
def test_indexing_options_reach_the_tokenizer():
    text = "Output rose generously in 1987"
    terms = TermIndexer(dc.decampos_indexing()).tokenize(text)
    assert "1987" not in terms and "gener" in terms and "in" not in terms  # SMART stop list, Porter 1980
    terms = TermIndexer(dc.decampos_indexing(dc.DecamposProtocol(tokens="alphanumeric"))).tokenize(text)
    assert "1987" in terms
    assert "generous" in TermIndexer(dc.decampos_indexing(dc.DecamposProtocol(stemmer="porter2"))).tokenize(text)
    assert "generously" in TermIndexer(dc.decampos_indexing(dc.DecamposProtocol(stemmer="none"))).tokenize(text)
    assert "in" in TermIndexer(dc.decampos_indexing(dc.DecamposProtocol(stoplist="none"))).tokenize(text)


def test_the_smart_list_has_571_entries():
    from importlib import resources

    from hbnlab.text.stopwords import load_stopwords, read_word_list

    words = read_word_list(resources.files("hbnlab.data").joinpath("stopwords_smart.txt").read_text())
    assert len(words) == 571 and len(set(words)) == 570 == len(load_stopwords("smart"))


# --------------------------------------------------------------------------- documents and categories
@pytest.fixture
def fake_reuters(tmp_path):
    return write_fake_reuters(tmp_path / "reuters", fake_reuters_records())


@pytest.mark.parametrize("category_set, unlabeled, categories, n_train, n_test", [
    # ModApte: train 1 2 3 4 5 9, test 10 11 12 13; 4 is "onlytrain" only, 5 has none, 12 "onlytest" only
    ("train-and-test", "keep", ["crude", "grain", "wheat"], 6, 4),
    ("train-and-test", "drop", ["crude", "grain", "wheat"], 4, 3),
    ("train", "drop", ["crude", "grain", "onlytrain", "wheat"], 5, 3),
    ("any", "drop", ["crude", "grain", "onlytest", "onlytrain", "wheat"], 5, 4),
])
def test_category_sets_and_unlabeled_records(fake_reuters, category_set, unlabeled, categories, n_train, n_test):
    c = dc.load_decampos_reuters(fake_reuters, include_unlabeled=unlabeled == "keep", category_set=category_set)
    assert sorted(c.categories()) == categories and c.meta["n_categories"] == len(categories)
    assert (len(c.train), len(c.test)) == (n_train, n_test)
    res = dc.reproduce_decampos_table(1, reuters_dir=fake_reuters, classifiers=["NBayes", "OR-eq17"],
                                      protocol=dc.DecamposProtocol(category_set=category_set, unlabeled=unlabeled))
    assert res["corpus"]["categories"] and sorted(res["corpus"]["categories"]) == categories
    assert (res["corpus"]["n_train"], res["corpus"]["n_test"]) == (n_train, n_test)
    assert res["corpus"]["protocol"]["category_set"] == category_set


def test_protocol_validation_and_round_trip():
    with pytest.raises(ValueError, match=r"micro_bep must be one of \('ranks', "):
        dc.DecamposProtocol(micro_bep="best")
    with pytest.raises(ValueError, match=r"unknown protocol option\(s\) \['porter'\]"):
        dc.DecamposProtocol.from_dict({"porter": True})
    p = dc.DecamposProtocol(stoplist="none", scores="probability")
    assert dc.DecamposProtocol.from_dict(p.to_dict()) == p
    assert p.changes() == {"stoplist": "none", "scores": "probability"}
    assert list(dc.PROTOCOL_OPTIONS) == list(p.to_dict())
    for name, (values, _) in dc.PROTOCOL_OPTIONS.items():
        assert getattr(dc.DecamposProtocol(), name) == values[0]


# --------------------------------------------------------------------------- CLI
def test_cli_flags_reach_the_protocol(tmp_path, monkeypatch, capsys):
    seen = {}

    def fake(**kwargs):
        seen.update(kwargs)
        return {"rows": [], "corpus": {}}

    monkeypatch.setattr(dc, "reproduce_decampos_table", fake)
    argv = ["reproduce", "decampos-table-1", "--corpus", str(tmp_path)]
    flags = {"unlabeled": "drop", "category_set": "any", "stoplist": "thesis", "stemmer": "porter2",
             "tokens": "alphanumeric", "or_evidence": "presence", "or_statistics": "presence",
             "term_totals": "documents", "nb_model": "one-of-n", "scores": "probability", "micro_bep": "pooled",
             "macro_bep": "documents", "bep_interpolation": "nearest", "av11": "categories"}
    assert set(flags) == set(dc.PROTOCOL_OPTIONS)
    for k, v in flags.items():
        argv += ["--" + k.replace("_", "-"), v]
    assert main(argv) == 0
    assert seen["protocol"] == dc.DecamposProtocol(**flags)
    assert main(["reproduce", "decampos-table-1", "--corpus", str(tmp_path)]) == 0
    assert seen["protocol"] == dc.DecamposProtocol()


def test_cli_protocol_flags_refused_elsewhere(capsys):
    assert main(["reproduce", "table-4.10", "--micro-bep", "pooled", "--stoplist", "none"]) == 2
    err = capsys.readouterr().err
    assert "--stoplist, --micro-bep: de Campos protocol options apply to decampos-table-1 only" in err
    with pytest.raises(SystemExit):
        main(["reproduce", "decampos-table-1", "--micro-bep", "best"])


# --------------------------------------------------------------------------- the ablation script
def _ablation_module():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "decampos_ablation.py"
    spec = importlib.util.spec_from_file_location("decampos_ablation", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ablation_changes_one_option_per_run_and_caches(fake_reuters):
    ab = _ablation_module()
    # the cache keys partition the options: none is left out of the key it changes
    parts = ab._DATA + ab._INDEX + ab._MODEL + ab._MEASURE_OPTIONS
    assert sorted(parts) == sorted(dc.PROTOCOL_OPTIONS)
    assert set(ab._MEASURE_OPTIONS) == {"micro_bep", "macro_bep", "bep_interpolation", "av11"}
    runs = ab.variants()
    singles = [(opt, p) for opt, _, p in runs if opt not in ("default", "combination")]
    assert len(singles) == sum(len(v) - 1 for v, _ in dc.PROTOCOL_OPTIONS.values())
    assert all(list(p.changes()) == [opt] for opt, p in singles)
    result = ab.ablation(fake_reuters)
    assert result["runs"][0]["label"] == "default" and result["n_configurations"] == len(runs)
    assert all(v == 0 for c in result["runs"][0]["delta"].values() for v in c.values())
    # the measure options reuse the default's scores: fewer scorings than runs
    assert result["distinct"]["scorings"] < len(runs) and result["distinct"]["corpora"] == 4
    by_label = {r["label"]: r for r in result["runs"]}
    assert by_label["unlabeled=drop"]["corpus"]["n_train"] == 4
    text = ab.markdown(result)
    assert r"| micro\_bep=pooled |" in text and "NBayes micro" in text  # Markdown-escaped
