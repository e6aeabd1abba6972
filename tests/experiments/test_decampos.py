"""de Campos et al. reproduction: the paper's values, the driver on a small corpus, and the
Reuters-21578 run (slow)."""
from __future__ import annotations

import numpy as np
import pytest

from hbnlab.experiments import decampos as dc

# The paper's tables in their printed layout (de Campos et al., Tables 1-3): measure tables,
# collection blocks, classifier rows NBayes, Rocchio, OR-eq12, OR-eq17 -- transcribed a second
# time, independently of the per-collection layout of ``decampos.PAPER``.
PRINTED = {
    "table1": ("micro", "macro", "av11", [
        [0.73485, 0.26407, 0.84501], [0.47183, 0.42185, 0.84501], [0.66649, 0.55917, 0.81736],
        [0.76555, 0.54370, 0.89725],
        [0.58643, 0.49830, 0.76601], [0.42315, 0.44791, 0.68194], [0.48017, 0.58792, 0.64739],
        [0.53122, 0.56450, 0.72925],
        [0.71778, 0.73629, 0.88834], [0.60940, 0.63875, 0.86583], [0.80732, 0.81333, 0.87889],
        [0.77689, 0.79779, 0.86208]]),
    "table2": ("f1_1_micro", "f1_3_micro", "f1_5_micro", [
        [0.75931, 0.49195, 0.35170], [0.70047, 0.47399, 0.34979], [0.67297, 0.45352, 0.33493],
        [0.75369, 0.51461, 0.36825],
        [0.53553, 0.53979, 0.42718], [0.46064, 0.46313, 0.40912], [0.41676, 0.46329, 0.40292],
        [0.49048, 0.50883, 0.42773],
        [0.80881, 0.48705, 0.33212], [0.77233, 0.48323, 0.33153], [0.81000, 0.47266, 0.32614],
        [0.77858, 0.47284, 0.32695]]),
    "table3": ("f1_1_macro", "f1_3_macro", "f1_5_macro", [
        [0.39148, 0.28935, 0.23116], [0.39148, 0.28935, 0.23116], [0.11263, 0.20092, 0.26404],
        [0.45762, 0.39169, 0.30959],
        [0.40627, 0.47260, 0.40732], [0.45421, 0.50604, 0.44945], [0.19980, 0.42017, 0.45870],
        [0.43602, 0.53615, 0.50103],
        [0.80985, 0.54983, 0.39048], [0.77095, 0.54086, 0.39113], [0.80880, 0.58083, 0.44502],
        [0.78682, 0.59099, 0.44722]]),
}


def test_paper_values_match_the_printed_layout():
    for *measures, rows in PRINTED.values():
        for r, values in enumerate(rows):
            table, clf = 1 + r // 4, dc.CLASSIFIERS[r % 4]
            for m, v in zip(measures, values):
                assert dc.PAPER[table][clf][m] == pytest.approx(100 * v, abs=1e-9), (table, clf, m)


def test_suspect_entries_really_repeat_naive_bayes():
    for m in dc.PAPER_SUSPECT[1]["Rocchio"]:
        assert dc.PAPER[1]["Rocchio"][m] == dc.PAPER[1]["NBayes"][m]


def test_tables_2_and_3_need_a_corpus():
    for table, name in ((2, "Ohsumed"), (3, "20 Newsgroups")):
        with pytest.raises(ValueError) as e:
            dc.reproduce_decampos_table(table=table)
        assert f"table {table} ({name}) needs a corpus" in str(e.value) and "corpus_path" in str(e.value)
    with pytest.raises(ValueError, match="table must be 1"):
        dc.reproduce_decampos_table(table=4)
    with pytest.raises(ValueError, match="unknown classifier"):
        dc.reproduce_decampos_table(table=1, classifiers=["SVM"])


def test_evaluate_scores_hand_example():
    Y = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 1]], dtype=bool)
    S = np.array([[0.9, 0.5, 0.1], [0.2, 0.7, 0.6], [0.3, 0.2, 0.8]])
    r = dc.evaluate_scores(Y, S)
    # every document's true categories are ranked first: Av-11 100, F1@1 micro 2*3/(2*3+0+1)
    assert r["av11"] == pytest.approx(100.0)
    assert r["f1_1_micro"] == pytest.approx(100 * 6 / 7, abs=1e-3)
    # rank thresholds (the default): k = 1 gives TP 3 of 3 assignments, k = 2 TP 4 of 6; at 4: 3 + 1/3
    assert r["micro"] == r["micro_ranks"] == pytest.approx(100 * (3 + (4 - 3) * (4 - 3) / 3) / 4, abs=1e-3)
    assert r["av11_all_docs"] == pytest.approx(100.0)  # every document has a category
    assert set(r) == set(dc.MEASURES) | set(dc.DIAGNOSTICS)
    r0 = dc.evaluate_scores(np.vstack([Y, np.zeros((1, 3), dtype=bool)]), np.vstack([S, [[0.1, 0.2, 0.3]]]))
    assert r0["av11"] == pytest.approx(100.0) and r0["av11_all_docs"] == pytest.approx(75.0)


def test_driver_on_a_synthetic_corpus_with_random_split():
    from dataclasses import replace

    from hbnlab.corpus import make_synthetic_corpus

    corpus = make_synthetic_corpus(n_documents=300, n_classes=3, n_noise_words=60, random_state=1)
    with pytest.raises(ValueError, match="test_fraction must be in"):
        dc.reproduce_decampos_table(3, corpus=corpus.subset([replace(d, split="train") for d in corpus.documents]),
                                    test_fraction=1.5)
    everything_train = corpus.subset([replace(d, split="train") for d in corpus.documents])
    with pytest.raises(ValueError, match="has no test documents"):
        dc.reproduce_decampos_table(2, corpus=everything_train, classifiers=["NBayes"])
    # 20 Newsgroups has no fixed split (de Campos sec. 4): a seeded one with the documented fraction
    res = dc.reproduce_decampos_table(collection="20newsgroups", corpus=everything_train, classifiers=["NBayes"])
    assert res["corpus"]["split"]["kind"] == "seeded"
    assert res["corpus"]["split"]["test_fraction"] == dc.NEWSGROUPS_TEST_FRACTION == 0.4
    assert res["corpus"]["layout"] == "in-memory" and res["corpus"]["collection_key"] == "20newsgroups"
    with pytest.raises(ValueError, match="table=2 .* contradicts collection='20newsgroups'"):
        dc.reproduce_decampos_table(2, collection="20newsgroups", corpus=everything_train)
    with pytest.raises(ValueError, match="collection must be one of reuters, ohsumed, 20newsgroups"):
        dc.reproduce_decampos_table(collection="rcv1", corpus=everything_train)
    res = dc.reproduce_decampos_table(3, corpus=everything_train, test_fraction=0.3, random_state=0,
                                      classifiers=dc.CLASSIFIERS + ("OR-eq11", "OR-eq15"))
    assert [r["classifier"] for r in res["rows"]] == list(dc.CLASSIFIERS) + ["OR-eq11", "OR-eq15"]
    assert res["corpus"]["collection"] == "20 Newsgroups" and res["corpus"]["n_categories"] == 3
    for row in res["rows"]:
        assert row["n_features"] == 0
        for m in dc.MEASURES:
            assert 0.0 <= row[m] <= 100.0
        if row["classifier"] in dc.CLASSIFIERS:
            assert row["paper_micro"] == dc.PAPER[3][row["classifier"]]["micro"]
        else:
            assert "paper_micro" not in row
    # the planted classes are easy: every learner ranks the right class first most of the time
    assert min(r["f1_1_micro"] for r in res["rows"] if r["classifier"] != "OR-eq11") > 60
    text = dc.format_decampos_table(res)
    assert "ours / paper (diff)" in text and "OR-eq17" in text


def test_ohsumed_91_protocol_first_records_with_an_abstract(tmp_path):
    from collection_fixtures import make_ohsumed_medline

    from hbnlab.corpus import CorpusError

    make_ohsumed_medline(tmp_path)
    # 10 records, the third without an abstract: Joachims's selection with 6 + 3 instead of 10,000 + 10,000
    c = dc.load_decampos_ohsumed(tmp_path, n_train=6, n_test=3)
    assert [d.id[-2:] for d in c.train] == ["01", "02", "04", "05", "06", "07"]
    assert [d.id[-2:] for d in c.test] == ["08", "09", "10"]
    assert c.train[3].labels == frozenset()  # no disease category: kept as a negative, as for Reuters
    assert "Joachims 1998" in c.meta["split"] and c.meta["labels"] == "C01-C23"
    with pytest.raises(CorpusError, match="9 records with an abstract; the protocol takes the first 6 .* next 4"):
        dc.load_decampos_ohsumed(tmp_path, n_train=6, n_test=4)
    (tmp_path / "mtrees1991.bin").unlink()
    with pytest.raises(CorpusError, match="needs NLM's MeSH tree file"):
        dc.load_decampos_ohsumed(tmp_path, n_train=6, n_test=3)
    (tmp_path / "ohsumed.91").rename(tmp_path / "ohsumed.90")
    with pytest.raises(CorpusError, match="taken from ohsumed.91, which this folder does not hold"):
        dc.load_decampos_ohsumed(tmp_path)
    assert dc.load_decampos_ohsumed(tmp_path / "nothing-here") is None


@pytest.mark.slow
def test_reuters_table_1(reuters_path):
    res = dc.reproduce_decampos_table(1, reuters_path)
    c = res["corpus"]
    # de Campos sec. 4: 9,603 training and 3,299 test documents, 90 categories
    assert (c["n_train"], c["n_test"], c["n_categories"]) == (9603, 3299, 90)
    assert c["protocol"] == dc.DecamposProtocol().to_dict()
    rows = {r["classifier"]: r for r in res["rows"]}
    # entries that reproduce within 3 points with some margin under the default protocol (measured
    # gaps 0.3 - 2.4 points; benchmarks/decampos_ablation.py shows what moves the others)
    for clf, m in [("NBayes", "micro"), ("NBayes", "f1_1_micro"), ("OR-eq12", "av11"), ("OR-eq12", "f1_1_micro"),
                   ("OR-eq12", "f1_1_macro"), ("OR-eq12", "f1_3_macro"), ("OR-eq17", "av11"),
                   ("OR-eq17", "f1_1_micro"), ("OR-eq17", "f1_1_macro"), ("OR-eq17", "f1_5_micro")]:
        assert abs(rows[clf][m] - rows[clf][f"paper_{m}"]) <= 3.0, (clf, m, rows[clf][m])
    # score thresholds make the micro breakeven of eq. 17 collapse (its scores are not comparable
    # across categories), rank thresholds do not
    assert rows["OR-eq17"]["micro_pooled"] < 45 and rows["OR-eq17"]["micro_thresholds"] < 55
    assert rows["OR-eq17"]["micro"] == rows["OR-eq17"]["micro_ranks"] > 70
