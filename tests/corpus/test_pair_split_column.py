"""A train/test pair whose files also have a ``split`` column: the column must agree with the file
names.  A row saying ``test`` inside ``train.csv`` (or ``train`` inside ``test.csv``) is an error
naming the file, the line and the column -- on disk, in a ZIP upload, in JSONL and Parquet pairs;
``split_column=""`` reads no split column at all."""
from __future__ import annotations

import io
import json
import zipfile
from collections import Counter

import pytest
from split_fixtures import make_rows, write_csv

from hbnlab.corpus import CorpusError, load_corpus, load_upload
from hbnlab.corpus.readers import read_table_pair

HEADER = ("id", "text", "labels", "split")


def _pair(folder, rows, flip=None):
    """``train.csv`` and ``test.csv`` holding a split column; ``flip`` = (file split, index of its row)
    whose split cell is set to the other split."""
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("train", "test"):
        part = [list(r) for r in rows if r[3] == split]
        if flip and flip[0] == split:
            part[flip[1]][3] = "test" if split == "train" else "TRAIN"
        write_csv(folder / f"{split}.csv", HEADER, part)
    return folder


@pytest.fixture
def rows():
    return make_rows()


def test_a_split_column_that_agrees_with_the_file_names_is_read(tmp_path, rows):
    c = load_corpus(_pair(tmp_path / "ok", rows))
    assert Counter(d.split for d in c.documents) == {"train": 20, "test": 20}
    assert {d.id: d.split for d in c.documents} == {r[0]: r[3] for r in rows}
    assert c.split_source == "train/test files"


@pytest.mark.parametrize("flip, file, value", [(("train", 4), "train.csv", "test"),
                                               (("test", 0), "test.csv", "TRAIN")])
def test_a_row_of_the_other_split_names_file_line_and_column(tmp_path, rows, flip, file, value):
    d = _pair(tmp_path / "bad", rows, flip)
    line = flip[1] + 2  # the header is line 1
    want = rf"line {line} of .*{file}: column 'split' is '{value}', but the file is the {flip[0]} file"
    with pytest.raises(CorpusError, match=want):
        load_corpus(d)
    with pytest.raises(CorpusError, match=want):
        read_table_pair(d / "test.csv", d / "train.csv")


def test_the_zip_upload_of_such_a_pair_is_refused_too(tmp_path, rows):
    d = _pair(tmp_path / "z", rows, ("train", 7))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in ("train.csv", "test.csv"):
            zf.write(d / name, f"intent/{name}")
    with pytest.raises(CorpusError, match=r"line 9 of intent\.zip:intent/train\.csv: column 'split' is 'test'"):
        load_upload(buf.getvalue(), "intent.zip")


def test_jsonl_and_parquet_pairs_check_the_column(tmp_path, rows):
    import pandas as pd

    d = tmp_path / "formats"
    d.mkdir()
    recs = [dict(zip(HEADER, r)) for r in rows]
    train = [r for r in recs if r["split"] == "train"]
    test = [r for r in recs if r["split"] == "test"]
    test[3] = {**test[3], "split": "train"}
    (d / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in train))
    (d / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in test))
    with pytest.raises(CorpusError, match=r"line 4 of .*test\.jsonl: column 'split' is 'train'"):
        load_corpus(d)
    q = tmp_path / "pq"
    q.mkdir()
    pd.DataFrame(train).to_parquet(q / "train.parquet")
    pd.DataFrame(test).to_parquet(q / "test.parquet")
    with pytest.raises(CorpusError, match=r"4 of .*test\.parquet: column 'split' is 'train'"):
        load_corpus(q)


def test_a_bad_split_value_in_a_pair_names_the_line(tmp_path, rows):
    d = _pair(tmp_path / "dev", rows)
    body = (d / "train.csv").read_text().splitlines()
    body[3] = body[3].rsplit(",", 1)[0] + ",dev"
    (d / "train.csv").write_text("\n".join(body) + "\n")
    with pytest.raises(CorpusError, match=r"line 4 of .*train\.csv: column 'split' is 'dev', expected 'train' or"):
        load_corpus(d)


def test_an_empty_split_column_option_reads_no_split_column(tmp_path, rows):
    d = _pair(tmp_path / "off", rows, ("train", 2))
    c = load_corpus(d, split_column="")
    assert Counter(x.split for x in c.documents) == {"train": 20, "test": 20}
