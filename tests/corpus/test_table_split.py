"""A table's own split and ids are kept (issue 30, item 1): the documented ``id,text,labels,split``
form keeps its split and ids without any option; a published ``text,category`` table is read by
naming its labels column; a ``train.csv`` + ``test.csv`` pair (two paths, a folder or a ZIP holding
exactly them) is one corpus split by the file names; ``Corpus.split_source`` says which."""
from __future__ import annotations

import io
import zipfile
from collections import Counter

import pytest
from split_fixtures import WORDS, make_rows, write_csv, write_pair

from hbnlab.corpus import CorpusError, MissingColumnError, load_corpus, load_upload, read_table
from hbnlab.corpus.readers import read_table_pair


@pytest.fixture
def rows():
    return make_rows()


def test_documented_form_keeps_its_split_and_ids(tmp_path, rows):
    p = write_csv(tmp_path / "t.csv", ["id", "text", "labels", "split"], rows)
    c = read_table(p)
    assert [(d.id, d.split) for d in c.documents] == [(r[0], r[3]) for r in rows]
    assert Counter(d.split for d in c.documents) == {"train": 20, "test": 20}
    assert c.split_source == "the file's split column" and c.summary()["split_source"] == c.split_source
    assert c.meta["ids"] == "column 'id'"
    # the seeded split the file used to get instead: other counts, row-number ids
    seeded = read_table(p, split_column="", id_column="")
    assert Counter(d.split for d in seeded.documents) == {"train": 30, "test": 10}
    assert seeded.split_source == "seeded 75/25 split (no split in the source)"
    assert [d.id for d in seeded.documents] == [str(k) for k in range(1, 41)]


def test_split_column_is_found_in_jsonl_and_parquet_as_well(tmp_path, rows):
    import pandas as pd

    df = pd.DataFrame(rows, columns=["id", "text", "labels", "split"])
    df.to_json(tmp_path / "t.jsonl", orient="records", lines=True)
    df.to_parquet(tmp_path / "t.parquet")
    for name in ("t.jsonl", "t.parquet"):
        c = load_corpus(tmp_path / name)
        assert [(d.id, d.split) for d in c.documents] == [(r[0], r[3]) for r in rows], name


def test_upload_of_the_documented_form_keeps_its_split(tmp_path, rows):
    data = write_csv(tmp_path / "t.csv", ["id", "text", "labels", "split"], rows).read_bytes()
    c = load_upload(data, "t.csv")
    assert Counter(d.split for d in c.documents) == {"train": 20, "test": 20}
    assert c.split_source == "the file's split column"


def test_published_text_category_table_needs_its_labels_column_named(tmp_path, rows):
    p = write_csv(tmp_path / "pub.csv", ["text", "category"], [(r[1], r[2]) for r in rows])
    with pytest.raises(MissingColumnError) as e:
        read_table(p)
    err = e.value
    assert (err.parameter, err.suggestion) == ("labels_column", "category")
    assert "labels_column" not in err.message  # the frontends name their own control
    assert err.advise("rerun with {option} {suggestion}").endswith("rerun with --labels-column category")
    c = read_table(p, labels_column="category")
    assert sorted({lab for d in c.documents for lab in d.labels}) == sorted(WORDS)
    assert c.split_source == "seeded 75/25 split (no split in the source)"


def test_train_test_pair_is_one_corpus_split_by_file_names(tmp_path, rows):
    d = write_pair(tmp_path / "intent", rows)
    for corpus in (read_table_pair(d / "test.csv", d / "train.csv", labels_column="category"),
                   load_corpus([str(d / "train.csv"), str(d / "test.csv")], labels_column="category"),
                   load_corpus(d, labels_column="category")):
        assert Counter(x.split for x in corpus.documents) == {"train": 20, "test": 20}
        assert corpus.split_source == "train/test files"
        assert [x.id for x in corpus.split("test")] == [f"test/{k}" for k in range(1, 21)]
        assert [x.text for x in corpus.split("train")] == [r[1] for r in rows if r[3] == "train"]
    assert load_corpus(d, labels_column="category").name == "intent"


def test_pair_keeps_ids_of_an_id_column_and_refuses_one_id_in_both_files(tmp_path, rows):
    d = write_pair(tmp_path / "ids", rows, header=("id", "text", "labels"))
    c = load_corpus(d)
    assert sorted(x.id for x in c.documents) == sorted(r[0] for r in rows)
    assert {x.id: x.split for x in c.documents} == {r[0]: r[3] for r in rows}
    dup = [(r[0] if r[3] == "train" else rows[0][0], r[1], r[2], r[3]) for r in rows]
    write_pair(tmp_path / "dup", dup, header=("id", "text", "labels"))
    with pytest.raises(CorpusError, match=f"{rows[0][0]}"):
        load_corpus(tmp_path / "dup")


def test_pair_refuses_a_split_column_and_a_label_seen_only_in_test(tmp_path, rows):
    d = write_pair(tmp_path / "p", rows)
    with pytest.raises(CorpusError, match="takes its split from the file names"):
        load_corpus(d, labels_column="category", split_column="split")
    only_test = [r if r[3] == "train" or r[2] != "money" else (r[0], "yen yen rate", "forex", "test") for r in rows]
    write_pair(tmp_path / "q", only_test)
    with pytest.raises(CorpusError, match="forex"):
        load_corpus(tmp_path / "q", labels_column="category")


def test_zip_holding_a_train_test_pair(tmp_path, rows):
    d = write_pair(tmp_path / "z", rows)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in ("train.csv", "test.csv"):
            zf.write(d / name, f"intent/{name}")
    c = load_upload(buf.getvalue(), "intent.zip", labels_column="category")
    assert Counter(x.split for x in c.documents) == {"train": 20, "test": 20}
    assert c.split_source == "train/test files"


def test_a_folder_with_other_files_is_not_a_pair(tmp_path, rows):
    d = write_pair(tmp_path / "f", rows)
    (d / "README.csv").write_text("text,category\nsome words,grain\n")
    with pytest.raises(CorpusError, match="folder-per-class tree .* do not apply"):
        load_corpus(d, labels_column="category")
    with pytest.raises(CorpusError, match="no class folders"):
        load_corpus(d)


def test_bad_split_value_names_the_line(tmp_path, rows):
    bad = [r if i != 3 else (r[0], r[1], r[2], "dev") for i, r in enumerate(rows)]
    p = write_csv(tmp_path / "b.csv", ["id", "text", "labels", "split"], bad)
    with pytest.raises(CorpusError, match=r"line 5 of .*b\.csv: column 'split' is 'dev'"):
        read_table(p)
