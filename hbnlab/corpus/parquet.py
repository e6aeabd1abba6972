"""Parquet tables read against a cap on what they decode to, not only on the file's size.

A Parquet file is compressed twice over: dictionary and run-length encoding, then a codec
(zstd, snappy ...).  One long string stored once in a dictionary page and referenced by every
row decodes to ``rows x len(string)`` bytes: a file of 1 KB can hold gigabytes of text.  The
size cap of the other readers (``max_bytes``, on the bytes read) therefore says nothing about a
Parquet file's cost, so :func:`parquet_rows` bounds the decoded content itself:

1. **The footer first.**  Before any page is read, the file's metadata is checked: more than
   :data:`MAX_PARQUET_ROWS` rows, or column chunks of the wanted columns whose declared
   uncompressed sizes add up to more than ``max_bytes``, are refused.
2. **Then record batches.**  Only the wanted columns are read, :data:`BATCH_ROWS` rows at a
   time, their strings as dictionary arrays (``read_dictionary``), so a value repeated by a
   dictionary index is held once whatever the number of rows that repeat it.  Each batch's
   decoded size -- the UTF-8 bytes its rows would hold once expanded, summed from the
   dictionary's value lengths and the indices -- is added up before the batch becomes Python
   objects, and the file is refused as soon as the total passes ``max_bytes``.

What stays unbounded here is one page: pyarrow inflates a page to the size its header declares
(at most 2 GiB) before we see it.  The workbench therefore checks uploads in a child process with
a memory limit (:mod:`hbnlab.corpus.isolated`).
"""
from __future__ import annotations

import io
from collections.abc import Iterator, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ._common import format_bytes
from .base import CorpusError

__all__ = ["BATCH_ROWS", "MAX_PARQUET_ROWS", "decoded_bytes", "parquet_rows"]

#: Most rows a Parquet table may declare or hold (RCV1, 804,414 documents, fits).  A row costs
#: a Python dict and its strings however short its cells, so ``max_bytes`` alone does not bound
#: a table of millions of empty rows.
MAX_PARQUET_ROWS = 2_000_000
#: Rows per record batch: the unit whose decoded size is counted before it becomes Python objects.
BATCH_ROWS = 256

_READ_ERRORS = (pa.ArrowException, OSError, ValueError, EOFError)


def decoded_bytes(array) -> int:
    """Bytes of ``array`` once decoded: the UTF-8 / binary bytes of its string values (each
    dictionary-encoded value counted once per row that references it), the buffers of anything
    else.  Computed from lengths and indices, without expanding anything.

    >>> import pyarrow as pa
    >>> decoded_bytes(pa.array(["ab", None, "cde"]))
    5
    >>> decoded_bytes(pa.DictionaryArray.from_arrays(pa.array([0, 0, 0, 1]), pa.array(["xyz", "q"])))
    10
    >>> decoded_bytes(pa.array([["a", "bb"], [], None]))  # values + offsets (4 x int32)
    19
    """
    if isinstance(array, pa.ChunkedArray):
        return sum(decoded_bytes(chunk) for chunk in array.chunks)
    t = array.type
    if pa.types.is_dictionary(t):
        values = array.dictionary
        if _is_bytes(values.type):
            lengths = pc.binary_length(values)
            return int(pc.sum(pc.take(lengths, array.indices)).as_py() or 0)
        return decoded_bytes(pc.take(values, array.indices))  # fixed width: len(array) values at most
    if _is_bytes(t):
        return int(pc.sum(pc.binary_length(array)).as_py() or 0)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        offsets = (len(array) + 1) * (8 if pa.types.is_large_list(t) else 4)
        return offsets + decoded_bytes(array.flatten())
    return array.nbytes


def _is_bytes(t) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) \
        or pa.types.is_large_binary(t)


def _too_large(source: str, what: str, max_bytes: int) -> CorpusError:
    return CorpusError(f"{source}: {what}, over the limit max_bytes={max_bytes} ({format_bytes(max_bytes)}) on "
                       f"the decoded content; refusing a possible Parquet decompression bomb (pass a larger "
                       f"max_bytes= to accept it)")


def _check_footer(meta, wanted: set[str], source: str, max_bytes: int | None) -> None:
    """Refuse on what the footer declares: rows, and uncompressed sizes of the wanted columns."""
    if meta.num_rows > MAX_PARQUET_ROWS:
        raise CorpusError(f"{source}: declares {meta.num_rows} rows, more than the limit MAX_PARQUET_ROWS="
                          f"{MAX_PARQUET_ROWS}")
    if max_bytes is None:
        return
    declared = 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            chunk = group.column(c)
            if chunk.path_in_schema.split(".", 1)[0] in wanted:
                declared += chunk.total_uncompressed_size
    if declared > max_bytes:
        raise _too_large(source, f"its columns {sorted(wanted)} declare {format_bytes(declared)} ({declared} "
                                 f"bytes) uncompressed", max_bytes)


def parquet_rows(data: bytes, source: str, columns: Sequence[str],
                 max_bytes: int | None) -> tuple[list[str], Iterator[tuple[str, dict]]]:
    """The column names of a Parquet file and its rows as ``("row k", {column: value})``.

    Only the ``columns`` the file has are read (rows hold those); the returned names are all
    the file's, for error messages.  Bounded as the module docstring says: the footer is
    checked first, then the batches' decoded size is counted against ``max_bytes`` (``None``:
    no limit on bytes) and their rows against :data:`MAX_PARQUET_ROWS`.

    Raises
    ------
    CorpusError
        Naming ``source``: not a Parquet file, a damaged page, too many rows, a decoded size
        over ``max_bytes`` (naming the cap and the row where it was passed), memory exhausted.
    """
    try:
        meta = pq.ParquetFile(io.BytesIO(data)).metadata
        names = list(meta.schema.to_arrow_schema().names)
    except MemoryError:
        raise CorpusError(f"{source}: ran out of memory reading the Parquet footer") from None
    except _READ_ERRORS as exc:
        raise CorpusError(f"{source}: not a readable Parquet file ({exc})") from None
    wanted = [c for c in dict.fromkeys(columns) if c in names]
    _check_footer(meta, set(wanted), source, max_bytes)
    # string leaves of the wanted columns, read as dictionary arrays (a list column's leaf is
    # 'labels.list.element'); reading a plain-encoded column this way builds its dictionary per batch
    schema = meta.schema
    as_dictionary = [schema.column(i).path for i in range(len(schema))
                     if schema.column(i).physical_type == "BYTE_ARRAY"
                     and schema.column(i).path.split(".", 1)[0] in wanted]
    records: list[tuple[str, dict]] = []
    total = 0
    try:
        pf = pq.ParquetFile(io.BytesIO(data), read_dictionary=as_dictionary)
        for batch in pf.iter_batches(batch_size=BATCH_ROWS, columns=wanted, use_threads=False):
            if len(records) + batch.num_rows > MAX_PARQUET_ROWS:
                raise CorpusError(f"{source}: more than {MAX_PARQUET_ROWS} rows, the limit MAX_PARQUET_ROWS")
            total += sum(decoded_bytes(col) for col in batch.columns)
            if max_bytes is not None and total > max_bytes:
                raise _too_large(source, f"columns {wanted} of rows 1-{len(records) + batch.num_rows} decode to "
                                         f"{format_bytes(total)} ({total} bytes)", max_bytes)
            start = len(records)
            records.extend((f"row {start + k}", r) for k, r in enumerate(batch.to_pylist(), 1))
    except MemoryError:
        raise CorpusError(f"{source}: ran out of memory decoding the Parquet file (at row {len(records) + 1}); "
                          f"its decoded content is too large for this machine") from None
    except CorpusError:
        raise
    except _READ_ERRORS as exc:
        raise CorpusError(f"{source}: not a readable Parquet file ({exc})") from None
    return names, iter(records)
