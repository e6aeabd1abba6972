"""The command line keeps a table's own split (issue 30, item 1): ``corpus-info`` on the
``id,text,labels,split`` form reports the file's counts and says where the split came from; the
published ``text,category`` table is read with ``--labels-column category`` (and refused, naming
that flag, without it); ``--corpus train.csv,test.csv`` and a folder holding the pair are one
corpus; ``hbnlab run``'s result JSON and ``sweep``'s results say where the split came from."""
from __future__ import annotations

import json

import pytest
from split_fixtures import make_rows, write_csv, write_pair

from hbnlab.cli import main


@pytest.fixture(autouse=True)
def data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path / "home"))


@pytest.fixture
def rows():
    return make_rows()


def _info(capsys, *argv):
    assert main(["corpus-info", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_corpus_info_reports_the_files_split_and_its_source(tmp_path, rows, capsys):
    p = write_csv(tmp_path / "t.csv", ["id", "text", "labels", "split"], rows)
    assert main(["corpus-info", "--corpus", str(p)]) == 0
    out = capsys.readouterr().out
    assert "40 documents, 20 train / 20 test" in out
    assert "split: the file's split column" in out
    s = _info(capsys, "--corpus", str(p))
    assert (s["n_train"], s["n_test"], s["split_source"]) == (20, 20, "the file's split column")
    s = _info(capsys, "--corpus", str(p), "--split-column", "none")
    assert (s["n_train"], s["n_test"]) == (30, 10)
    assert s["split_source"] == "seeded 75/25 split (no split in the source)"


def test_named_columns_and_label_separator(tmp_path, rows, capsys):
    multi = [(r[0], r[1], f"{r[2]}/all", r[3]) for r in rows]
    p = write_csv(tmp_path / "m.csv", ["key", "body", "topics", "part"], multi)
    s = _info(capsys, "--corpus", str(p), "--text-column", "body", "--labels-column", "topics",
              "--id-column", "key", "--split-column", "part", "--label-separator", "/")
    assert (s["n_train"], s["n_test"], s["split_source"]) == (20, 20, "the file's split column")
    assert set(s["per_category"]) == {"grain", "crude", "money", "all"}


def test_published_table_is_refused_naming_the_flag_then_read_with_it(tmp_path, rows, capsys):
    p = write_csv(tmp_path / "pub.csv", ["text", "category"], [(r[1], r[2]) for r in rows])
    assert main(["corpus-info", "--corpus", str(p)]) == 2
    err = capsys.readouterr().err
    assert "rerun with --labels-column category" in err and "labels_column" not in err
    s = _info(capsys, "--corpus", str(p), "--labels-column", "category")
    assert s["n_documents"] == 40 and s["split_source"] == "seeded 75/25 split (no split in the source)"


def test_train_test_pair_and_folder(tmp_path, rows, capsys):
    d = write_pair(tmp_path / "intent", rows)
    for corpus in (f"{d / 'train.csv'},{d / 'test.csv'}", str(d)):
        s = _info(capsys, "--corpus", corpus, "--labels-column", "category")
        assert (s["n_train"], s["n_test"], s["split_source"]) == (20, 20, "train/test files")


def test_table_flags_are_refused_for_generated_and_missing_corpora(tmp_path, capsys):
    assert main(["corpus-info", "--corpus", "synthetic", "--labels-column", "x"]) == 2
    assert "--labels-column: for a table corpus" in capsys.readouterr().err
    assert main(["corpus-info", "--corpus", f"{tmp_path}/train.csv,{tmp_path}/test.csv"]) == 2
    assert "no such file or directory" in capsys.readouterr().err


def test_run_result_json_says_where_the_split_came_from(tmp_path, rows, capsys):
    p = write_csv(tmp_path / "t.csv", ["id", "text", "labels", "split"], rows)
    manifest = {"format": "hbnlab-experiment-manifest", "format_version": 1, "name": "own split",
                "corpus": {"kind": "path", "path": str(p)}, "indexing": {"min_df": 1},
                "n_categories": 3, "classifiers": [{"name": "NB"}], "n_features": 5, "stage": "test"}
    m = tmp_path / "m.json"
    m.write_text(json.dumps(manifest))
    out = tmp_path / "r.json"
    assert main(["run", str(m), "--out", str(out)]) == 0
    corpus = json.loads(out.read_text())["corpus"]
    assert corpus["split_source"] == "the file's split column"
    assert (corpus["n_train"], corpus["n_test"]) == (20, 20)


def test_manifest_table_options_round_trip_and_are_checked(tmp_path, rows):
    from hbnlab.experiments.manifest import CorpusSpec, ManifestError

    d = write_pair(tmp_path / "intent", rows)
    spec = CorpusSpec.from_dict({"kind": "path", "path": str(d), "table": {"labels_column": "category"}})
    assert CorpusSpec.from_dict(spec.to_dict()) == spec
    c = spec.load()
    assert c.split_source == "train/test files" and len(c.test) == 20
    with pytest.raises(ManifestError, match="corpus.table.label_column"):
        CorpusSpec.from_dict({"kind": "path", "path": str(d), "table": {"label_column": "category"}})
