"""A user's own corpus through the command line with no flag beyond ``--corpus``: a folder per
class (train/ and test/), 20 classes, no dates, files in UTF-8, latin-1, cp1252 and UTF-16 with a
byte-order mark, single- and multi-label (``tests/corpus_fixtures.py``).  ``corpus-info`` reports
the encodings and the tuning split, ``train`` and ``tree`` work on any class, ``reproduce
table-4.10`` runs the thesis's rows on this corpus (tuning on the stratified validation split),
and ``sweep`` has validation cells for every class."""
from __future__ import annotations

import json

import pytest
from corpus_fixtures import make_folder_corpus

from hbnlab.cli import main

N_CLASSES = 20


@pytest.fixture(scope="module", params=["single-label", "multi-label"])
def own_corpus(request, tmp_path_factory):
    multi = request.param == "multi-label"
    root = tmp_path_factory.mktemp("own") / ("news-ml" if multi else "news")
    return make_folder_corpus(root, n_classes=N_CLASSES, docs_per_class=12, multi_label=multi, random_state=3)


def _classes():
    return [f"class{k:02d}" for k in range(N_CLASSES)]


def test_corpus_info_reports_encodings_and_the_tuning_split_per_class(own_corpus, capsys):
    assert main(["corpus-info", "--corpus", str(own_corpus.root)]) == 0
    out = capsys.readouterr().out
    n_files = len(own_corpus.files)
    written = own_corpus.encoding_counts()
    # latin-1 files are read as cp1252 (the two agree on every printable latin-1 character)
    expected = f"encodings: {n_files} files -- cp1252 {written['latin-1'] + written['cp1252']}, " \
               f"utf-16 {written['utf-16']}, utf-8 {written['utf-8']}"
    assert expected in out and "no file needed replacement characters" in out
    assert "tuning split: stratified (seed 0)" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("class")}
    assert sorted(rows) == _classes()
    for cells in rows.values():
        train, test, train0, valid, tunable = int(cells[1]), int(cells[2]), int(cells[3]), int(cells[4]), cells[5]
        assert train0 >= 1 and valid >= 1 and train0 + valid == train and test >= 1, cells
        assert tunable == "yes", cells


def test_train_and_tree_on_a_class(own_corpus, tmp_path, capsys):
    model = tmp_path / "m.hbnlab"
    assert main(["train", "--corpus", str(own_corpus.root), "--class", "class07", "--classifier", "hbn-or",
                 "--n-restarts", "4", "--out", str(model)]) == 0
    assert model.stat().st_size > 0
    assert main(["tree", "--corpus", str(own_corpus.root), "--class", "class07"]) == 0
    assert "class07" in capsys.readouterr().out


def test_reproduce_table_4_10_on_the_corpus_with_only_corpus(own_corpus, tmp_path, capsys):
    out = tmp_path / "t410.json"
    assert main(["reproduce", "table-4.10", "--corpus", str(own_corpus.root), "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["corpus"]["name"] == own_corpus.root.name and res["paper"] is False and res["untunable"] == {}
    assert res["corpus"]["validation"]["method"] == "stratified"
    assert res["corpus"]["categories"] == _classes()
    rows = {f"{r['classifier']} ({r['n_features']})": r for r in res["rows"]}
    assert {"NB (30)", "SVM (30)", "HBN-AVG (30)", "HBN-OR (30)", "HBN-DEP (30)"} <= set(rows)
    for row in rows.values():
        assert set(row["per_class"]) == set(_classes()) and 0 <= row["micro"] <= 100 and "paper" not in row
    text = capsys.readouterr().out
    assert f"the test set of {own_corpus.root.name}, {N_CLASSES} classes" in text
    assert "the thesis's values apply to Reuters-21578's 10 most frequent" in text


def test_sweep_has_validation_cells_for_every_class(own_corpus, tmp_path):
    out = tmp_path / "sweep"
    assert main(["sweep", "--corpus", str(own_corpus.root), "--clusterings", "or", "--B", "3",
                 "--alpha", "0,0.1", "--n-restarts", "2", "--workers", "1", "--local",
                 "--registry", str(tmp_path / "reg"), "--out", str(out), "--no-report"]) == 0
    s = json.loads((out / "sweep.json").read_text())
    assert s["untunable"] == {}
    validated = {c["category"] for c in s["validation"]}
    assert validated == set(_classes())
    assert all(c["n_pos"] >= 1 for c in s["validation"])
    assert {c["category"] for c in s["test"]} == set(_classes())
    assert all(ch["how"] == "per-category" for ch in s["choices"])
