"""The validation stage on any corpus: hold-out folds in ProtocolData, k-fold cross-validation
pooled by fit_unit (oracle: one estimator per fold fitted by hand), the sweep's validation cells
with folds and with categories the split cannot score, and the thesis's rows on an undated corpus."""
from __future__ import annotations

import json

import numpy as np
import pytest

from hbnlab.corpus import Corpus, Document, make_synthetic_corpus, train0_validation_split
from hbnlab.models.catalog import make_classifier
from hbnlab.pipeline.data import prepare
from hbnlab.pipeline.fit import fit_unit


@pytest.fixture(scope="module")
def syn():
    return make_synthetic_corpus(n_documents=600, n_classes=3, n_noise_words=80, random_state=5)


def test_hold_out_folds_are_the_date_split_on_a_dated_corpus(syn):
    data = prepare(syn)
    assert data.n_folds == 1 and data.info["validation"]["method"] == "date"
    train0, _ = train0_validation_split(syn)
    ids0 = {d.id for d in train0}
    np.testing.assert_array_equal(data.train0, [d.id in ids0 for d in data.indexed.train_docs])
    split = data.split("validation")
    Y, docs = data.evaluation("validation")
    np.testing.assert_array_equal(Y, split.Y_eval)
    assert [d.id for d in docs] == [d.id for d in split.eval_docs]


@pytest.mark.parametrize("name", ["NB", "HBN-OR"])
def test_cross_validation_pools_one_fit_per_fold(syn, name):
    data = prepare(syn, cv=3, random_state=1)
    assert data.n_folds == 3 and data.n_splits("validation") == 3 and data.n_splits("test") == 1
    label = data.categories[1]
    j = data.category_index(label)
    params = {"n_restarts": 2} if name.startswith("HBN") else {}
    res = fit_unit(data, label, name, n_features=8, params=params, stage="validation", random_state=4,
                   score="log_odds")
    rows = data.eval_rows("validation")
    assert sorted(rows) == list(range(data.X_train.shape[0]))  # every training document once
    np.testing.assert_array_equal(res.y_eval, data.Y_train[rows, j])
    cols = data.selected_columns(label, 8)
    expected = []
    for k in range(3):
        X_fit, Y_fit, X_eval, _, _ = data.split("validation", k)
        est = make_classifier(name, 8, params, 4)
        est.fit(X_fit, Y_fit[:, j].astype(np.int8), selected_features=cols)
        expected.append(est.decision_function(X_eval))
    np.testing.assert_array_equal(res.scores, np.concatenate(expected))
    assert res.stats["cv_folds"] == 3
    with pytest.raises(ValueError, match="pass fold="):
        data.split("validation")


def _undated_corpus(n_classes=6, per_class=10, n_test=3, seed=0) -> Corpus:
    """Documents listed class by class (as a folder reader lists paths), no dates."""
    rng = np.random.RandomState(seed)
    docs = []
    for c in range(n_classes):
        for split, n in (("train", per_class), ("test", n_test)):
            for i in range(n):
                words = ([f"cls{chr(97 + c)}word{chr(97 + rng.randint(4))}" for _ in range(6)]
                         + [f"noise{chr(97 + rng.randint(26))}" for _ in range(6)])
                docs.append(Document(f"{split}/c{c}/{i}", " ".join(words), frozenset({f"c{c}"}), split))
    return Corpus("undated", tuple(docs))


def test_every_category_of_an_undated_corpus_can_be_tuned():
    corpus = _undated_corpus()
    data = prepare(corpus, n_categories=6)
    assert data.info["validation"]["method"] == "stratified"
    assert data.untunable() == {}
    counts = data.validation_counts()
    assert all(c["fit"][0] >= 1 and c["eval"][0] >= 1 for c in counts.values())


def test_sweep_validation_with_folds_and_an_untunable_category(tmp_path):
    from hbnlab.experiments import sweep as sw
    from hbnlab.jobs import run_inline

    docs = list(_undated_corpus(n_classes=4).documents)
    docs.append(Document("train/lonely/0", "clsawordb lonelyword text", frozenset({"lonely"}), "train"))
    docs.append(Document("test/lonely/0", "clsawordb lonelyword text", frozenset({"lonely"}), "test"))
    corpus = Corpus("undated", tuple(docs))
    cfg = sw.SweepConfig(categories="all", clusterings=("avg",), B=(3,), alpha={"avg": (0.0, 0.1)}, n_features=(5,),
                         n_restarts=2, baselines=(), cv=2)
    data = sw.prepare_sweep_data(corpus, cfg)
    assert data.n_folds == 2
    cell = sw.Cell("validation", "c1", "HBN-AVG", 5, 3, 0.0, 2, 1e-4, 1, data.fingerprint)
    outcome, _ = run_inline(cell.spec("inline", data.input_name), {data.input_name: data.to_shared()})
    assert outcome.state == "done", outcome.error
    assert outcome.result["n_folds"] == 2 and outcome.result["n_eval"] == data.X_train.shape[0]

    from hbnlab.jobs import LocalProcessRunner

    runner = LocalProcessRunner(tmp_path / "runs", max_workers=1, poll_interval=0.05)
    try:
        lines = []
        res = sw.run_sweep(cfg, data, runner, sweep_id="cv", log=lines.append, timeout=120)
    finally:
        runner.shutdown(wait=False, interrupt=True)
    assert res.state == "done", res.errors
    assert set(res.untunable) == {"lonely"} and "1 training document" in res.untunable["lonely"]
    assert any("lonely" in line and "cannot be tuned" in line for line in lines)
    assert {r["category"] for r in res.validation} == {"c0", "c1", "c2", "c3"}
    assert res.choices[("lonely", "avg")]["how"].startswith("global (not tuned: it has 1 training document")
    assert any("lonely" in note for note in res.table["notes"])


def test_reproduce_table_4_10_on_an_undated_folder_corpus(tmp_path, capsys):
    from hbnlab.cli.main import main

    root = tmp_path / "news"
    for d in _undated_corpus(n_classes=5, per_class=8).documents:
        p = root / d.id
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(d.text)
    out = tmp_path / "t.json"
    rc = main(["reproduce", "table-4.10", "--corpus", str(root), "--rows", "NB:10,SVM:10,HBN-OR:10",
               "--n-restarts", "2", "--n-jobs", "1", "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    assert "the thesis's values apply to Reuters-21578's 10 most frequent" in text and "paper" not in text
    result = json.loads(out.read_text())
    assert result["corpus"]["name"] == "news" and result["paper"] is False
    assert result["corpus"]["validation"]["method"] == "stratified"
    assert sorted(result["corpus"]["categories"]) == [f"c{k}" for k in range(5)]
    assert [r["classifier"] for r in result["rows"]] == ["NB", "SVM", "HBN-OR"]
    assert all("paper_micro" not in r for r in result["rows"])
    # the categories option and k-fold tuning
    rc = main(["reproduce", "table-4.10", "--corpus", str(root), "--rows", "SVM:10", "--categories", "c1,c3",
               "--cv", "3", "--n-jobs", "1", "--json", str(out)])
    assert rc == 0
    result = json.loads(out.read_text())
    assert result["corpus"]["categories"] == ["c1", "c3"] and result["corpus"]["validation"]["n_folds"] == 3
    assert main(["reproduce", "table-4.10", "--corpus", str(root), "--categories", "nope"]) == 2
    assert "--categories: ['nope'] is not a category" in capsys.readouterr().err
