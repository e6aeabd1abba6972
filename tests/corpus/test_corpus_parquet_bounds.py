"""Parquet tables are bounded by what they decode to (issue 30, item 4: a decompression bomb).

The hostile files are generated here, never committed: a dictionary page holding one long
string that every row references (a file of about 1 KB decoding to gigabytes), and a
plain-encoded table whose footer declares more than the cap.  The peak memory of a refusal is
measured in a child process with ``getrusage`` (all allocators, pyarrow's included), not timed.
"""
from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hbnlab.corpus import CorpusError, load_upload, read_table
from hbnlab.corpus import parquet as P
from hbnlab.corpus import readers as R

BOMB_ROWS = 20_000
BOMB_VALUE = "wheat " * 20_000  # 120 KB, referenced by every row: 2.4 GB decoded


def dictionary_bomb(rows: int = BOMB_ROWS, value: str = BOMB_VALUE, extra: dict | None = None) -> bytes:
    """A Parquet file whose 'text' column is one dictionary value repeated ``rows`` times,
    written without ever expanding it."""
    text = pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()), pa.array([value]))
    buf = io.BytesIO()
    pq.write_table(pa.table({"text": text, "labels": pa.array(["grain"] * rows), **(extra or {})}), buf,
                   compression="zstd", dictionary_pagesize_limit=1 << 26)
    return buf.getvalue()


def _parquet(columns: dict, **kw) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf, **kw)
    return buf.getvalue()


def test_dictionary_bomb_is_small_on_disk_and_huge_decoded():
    data = dictionary_bomb()
    assert len(data) < 10_000
    assert pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0).total_uncompressed_size < 200_000


def test_dictionary_bomb_upload_is_refused_naming_the_file_and_the_cap():
    with pytest.raises(CorpusError) as info:
        load_upload(dictionary_bomb(), "uploads/bomb.parquet", max_bytes=5_000_000)
    msg = str(info.value)
    assert msg.startswith("bomb.parquet: ")
    assert "max_bytes=5000000 (5.0 MB)" in msg and "decompression bomb" in msg
    assert not isinstance(info.value, MemoryError)


def test_dictionary_bomb_on_disk_is_refused_with_the_default_cap(tmp_path):
    path = tmp_path / "bomb.parquet"
    path.write_bytes(dictionary_bomb())
    with pytest.raises(CorpusError, match=rf"{path.name}: columns \['text', 'labels'\] of rows 1-\d+ decode to "
                                          rf".* over the limit max_bytes=200000000 \(200.0 MB\)"):
        read_table(path)


def test_dictionary_bomb_peak_memory_is_bounded_by_the_cap():
    """2.4 GB of decoded text, a cap of 5 MB: the refusal grows the process by far less than
    the decoded size (measured as the change of ru_maxrss in a fresh interpreter)."""
    script = textwrap.dedent(f"""
        import json, resource, sys
        sys.path.insert(0, {str(__import__("pathlib").Path(__file__).parent)!r})
        from test_corpus_parquet_bounds import dictionary_bomb
        from hbnlab.corpus import CorpusError, load_upload
        data = dictionary_bomb()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            load_upload(data, "bomb.parquet", max_bytes=5_000_000)
            outcome = "loaded"
        except CorpusError as exc:
            outcome = "CorpusError: " + str(exc)
        except MemoryError:
            outcome = "MemoryError"
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({{"outcome": outcome, "grew_kib": after - before}}))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["outcome"].startswith("CorpusError: bomb.parquet: "), result
    assert result["grew_kib"] < 100 * 1024, result  # < 100 MB for 2,400 MB decoded


def test_footer_declaring_more_than_the_cap_is_refused_before_any_batch(monkeypatch):
    rows = [f"{k} " + "barley " * 15_000 for k in range(40)]  # distinct values, ~4 MB uncompressed
    data = _parquet({"text": rows, "labels": ["grain"] * 40}, use_dictionary=False, compression="zstd")
    assert len(data) < 100_000

    def no_batch(*a, **k):
        raise AssertionError("a batch was decoded")

    monkeypatch.setattr(P, "decoded_bytes", no_batch)
    with pytest.raises(CorpusError, match=r"^plain\.parquet: its columns \['labels', 'text'\] declare 4\.\d MB "
                                          r"\(\d+ bytes\) uncompressed, over the limit max_bytes=1000000 "):
        load_upload(data, "plain.parquet", max_bytes=1_000_000)


def test_rows_over_the_row_cap_are_refused_from_the_footer(monkeypatch):
    monkeypatch.setattr(P, "MAX_PARQUET_ROWS", 10)
    data = _parquet({"text": ["wheat"] * 11, "labels": ["grain"] * 11})
    with pytest.raises(CorpusError, match=r"^rows\.parquet: declares 11 rows, more than the limit "
                                          r"MAX_PARQUET_ROWS=10"):
        load_upload(data, "rows.parquet")


def test_an_unread_column_does_not_count():
    """Only the columns the reader needs are decoded: a bomb in a column nobody asked for is
    neither read nor counted."""
    blob = pa.DictionaryArray.from_arrays(pa.array([0] * 3, pa.int32()), pa.array(["x" * 3_000_000]))
    data = _parquet({"text": ["wheat prices", "oil output", "corn exports"], "labels": ["grain", "crude", "grain"],
                     "blob": blob}, dictionary_pagesize_limit=1 << 26)
    c = load_upload(data, "extra.parquet", max_bytes=1_000_000, test_fraction=0)
    assert [d.text for d in c.documents] == ["wheat prices", "oil output", "corn exports"]


def test_a_normal_parquet_corpus_loads_across_batches():
    """More rows than one batch; lists of labels, ids, titles and a split column; the rows keep
    their numbers across batches (an error names row 517)."""
    n = 2 * P.BATCH_ROWS + 88
    cols = {"id": [f"d{k}" for k in range(n)], "title": [f"title {k}" for k in range(n)],
            "text": [f"wheat price {k}" if k % 2 else f"oil output {k}" for k in range(n)],
            "labels": [["grain", "wheat"] if k % 2 else ["crude"] for k in range(n)],
            "split": ["test" if k % 4 == 3 else "train" for k in range(n)]}
    c = load_upload(_parquet(cols), "ok.parquet", id_column="id", title_column="title", split_column="split")
    assert len(c) == n
    assert [d.id for d in c.documents] == cols["id"]
    assert c.documents[1].labels == frozenset({"grain", "wheat"}) and c.documents[1].title == "title 1"
    assert sum(d.split == "test" for d in c.documents) == n // 4
    cols["text"][516] = "42"
    with pytest.raises(CorpusError, match=r"^row 517 of ok\.parquet: column 'text' has no letters"):
        load_upload(_parquet(cols), "ok.parquet", id_column="id", split_column="split")


@pytest.mark.parametrize("array", [
    pa.array(["ab", None, "cdé", ""]),
    pa.array([b"\x00\x01", None], pa.large_binary()),
    pa.array([["a", "bb"], [], None, ["ccc"]]),
    pa.array([1, 2, None], pa.int64()),
])
def test_decoded_bytes_of_a_dictionary_equals_that_of_its_expansion(array):
    """Two routes to one answer: counting through a dictionary's indices == counting the
    expanded values."""
    if pa.types.is_list(array.type):
        enc = pa.ListArray.from_arrays(array.offsets, array.values.dictionary_encode(), mask=array.is_null())
    else:
        enc = array.dictionary_encode()
    assert P.decoded_bytes(enc) == P.decoded_bytes(array)
    if pa.types.is_string(array.type):
        assert P.decoded_bytes(array) == sum(len(v.encode()) for v in array.to_pylist() if v is not None)


def _table_bytes(fmt: str) -> bytes:
    if fmt == "parquet":
        return _parquet({"text": ["wheat prices"], "labels": ["grain"]})
    if fmt == "jsonl":
        return b'{"text": "wheat prices", "labels": "grain"}\n'
    sep = "," if fmt == "csv" else "\t"
    return f"text{sep}labels\nwheat prices{sep}grain\n".encode()


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet"])
def test_memory_error_while_parsing_any_table_is_a_corpus_error_naming_the_file(monkeypatch, fmt):
    def exhausted(*a, **k):
        raise MemoryError

    monkeypatch.setattr(R, "_corpus_from_rows", exhausted)
    with pytest.raises(CorpusError, match=rf"^t\.{fmt}: ran out of memory parsing the {fmt} table"):
        load_upload(_table_bytes(fmt), f"t.{fmt}")


def test_memory_error_while_decoding_parquet_names_the_file_and_the_row(monkeypatch):
    def exhausted(*a, **k):
        raise pa.ArrowMemoryError("malloc of size 4294967296 failed")

    monkeypatch.setattr(P, "decoded_bytes", exhausted)
    with pytest.raises(CorpusError, match=r"^t\.parquet: ran out of memory decoding the Parquet file \(at row 1\)"):
        load_upload(_table_bytes("parquet"), "t.parquet")
