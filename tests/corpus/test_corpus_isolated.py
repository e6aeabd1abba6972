"""Uploads are checked in a child process with a memory limit and a deadline (issue 30, item 4):
a file that blows up the reader ends that child, with a CorpusError naming the file, and the
calling process (the Streamlit server) does not grow."""
from __future__ import annotations

import io
import resource

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_corpus_parquet_bounds import dictionary_bomb

from hbnlab.corpus import CorpusError
from hbnlab.corpus.isolated import check_upload


def _parquet(columns: dict) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


def test_a_good_upload_gives_its_document_count():
    assert check_upload(_parquet({"text": ["wheat prices", "oil output"], "labels": ["grain", "crude"]}),
                        "ok.parquet", {"test_fraction": 0}) == 2
    assert check_upload(b"text,labels\nwheat prices,grain\n", "C:\\Users\\me\\ok.csv", {"test_fraction": 0}) == 1


def test_the_readers_error_comes_back_as_raised():
    with pytest.raises(CorpusError, match=r"^m\.csv: no column 'text'"):
        check_upload(b"body,labels\nwheat,grain\n", "m.csv")
    with pytest.raises(CorpusError, match=r"^e\.csv: file is empty"):
        check_upload(b"\n", "e.csv")
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['bogus'\]"):
        check_upload(b"text,labels\nwheat,grain\n", "m.csv", {"bogus": 1})


def test_an_uncapped_bomb_ends_the_child_not_the_caller():
    """With max_bytes=None the reader's own cap is off: the 2.4 GB of the dictionary bomb meets
    the child's 512 MiB address-space limit, and the caller gets a CorpusError naming the file
    while its own peak memory does not move."""
    data = dictionary_bomb()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(CorpusError, match=r"^bomb\.parquet: ") as info:
        check_upload(data, "bomb.parquet", {"max_bytes": None}, memory_bytes=512 * 2**20)
    assert "memory" in str(info.value)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50 * 1024  # KiB


def test_a_child_past_its_deadline_is_refused_naming_the_file():
    with pytest.raises(CorpusError, match=r"^slow\.csv: reading it took more than 0\.01 s; refused"):
        check_upload(b"text,labels\nwheat prices,grain\n", "slow.csv", timeout=0.01)
