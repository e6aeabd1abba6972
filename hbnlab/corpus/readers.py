"""Readers for user data: tables (CSV / TSV / JSONL / Parquet), folder-per-class trees, ZIPs.

Every reader returns a :class:`~hbnlab.corpus.base.Corpus` or raises
:class:`~hbnlab.corpus.base.CorpusError` whose message names the file and the line, row or
field: ``"line 17 of corpus.csv: column 'labels' is empty"``.  Readers build the whole corpus in
memory before returning, so a failure never leaves a half-loaded corpus behind, and uploads
(:func:`load_upload`) are never written to disk.

Rules shared by all readers
---------------------------
* **Text decoding**: ``encoding="auto"`` (default) detects each file's codec -- a byte-order
  mark, UTF-16 / UTF-32 without one, strict UTF-8, UTF-8 with a few stray bytes replaced,
  plausible cp1252, charset_normalizer's guess, else cp1252 with replacement characters
  (:mod:`hbnlab.corpus.encoding`); a codec name
  (``"latin-1"``) decodes strictly, an undecodable byte reported with its byte offset and line.
  ``meta['encodings']`` counts the files per codec, ``meta['replaced_files']`` lists the files
  where undecodable bytes became U+FFFD, with the line and byte offset of the first ones.
* **Binary files are not text**: a file with the magic number of a binary format (JPEG, PNG,
  GIF, PDF, ELF, a Windows executable, a ZIP ...) or holding what text does not (NUL bytes,
  undecodable bytes, control characters of every kind: :mod:`hbnlab.corpus.encoding`) is
  never tokenised.  A folder-per-class tree (on disk or in a ZIP) skips it and lists it in
  ``meta['ignored_files']`` with the reason; a table file that is binary is refused with a
  :class:`~hbnlab.corpus.base.BinaryFileError` naming it.
* **Documents need tokens**: a document whose title + text holds no letter (hence no token in
  the thesis's sense, sec. 4.1.2) is rejected, naming its line / file.
* **Labels**: every document needs at least one label, and every label at least one training
  document.
* **Splits**: a split in the source is used as given: a split column (``split`` when the table
  has one, or the one ``split_column`` names) with values ``train`` / ``test``; a pair of tables
  named ``train.*`` / ``test.*`` (:func:`read_table_pair`, or a folder or ZIP holding exactly
  them; a ``split`` column in them must agree with the file names); ``train/`` and ``test/``
  folders.  :attr:`Corpus.split_source <hbnlab.corpus.base.Corpus.split_source>` says which.
  Otherwise ``round(n * test_fraction)`` documents, drawn by a ``random_state``-seeded
  permutation, form the test set; a label left without training documents gets its first test
  document (in permutation order) moved back to training.
* **Size limit**: ``max_bytes`` (default 200 MB) bounds a file, an upload, a folder's total and a
  ZIP's total uncompressed size and a Parquet table's decoded content (its footer checked
  first, then its record batches: :mod:`hbnlab.corpus.parquet`); ``None`` disables it.  Running
  out of memory while parsing a table is a ``CorpusError`` naming the file.  A JSONL record nested deeper than
  ``MAX_JSONL_DEPTH`` levels is refused, naming its line, before it is parsed.
"""
from __future__ import annotations

import codecs
import csv
import difflib
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from hbnlab._validation import raw_json_depth

from ._common import (
    DEFAULT_MAX_BYTES,
    check_labels_trained,
    check_random_split_args,
    check_size,
    check_unique_ids,
    has_letters,
    read_regular_file,
    seeded_split,
    text_lines,
    walk_regular_files,
)
from .base import BinaryFileError, Corpus, CorpusError, Document, MissingColumnError
from .encoding import AUTO, BINARY_REASON, EncodingTally, check_encoding
from .pairs import merge_train_test, pair_folder_files, pair_roles, row_split, split_of_name
from .parquet import parquet_rows
from .progress import tick
from .reuters import REUTERS_FILES, _read_reuters_files
from .ziptree import tree_from_zip

#: File extensions read as tables, and their format.
TABLE_FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_LABEL_SEPARATORS = (",", ";", "|")
#: The columns of the documented table form ``id,text,labels,split`` that are read when present:
#: a table with a ``split`` column keeps its own split, one with an ``id`` column its own ids.
DEFAULT_ID_COLUMN = "id"
DEFAULT_SPLIT_COLUMN = "split"
_SKIP_NAMES = {"__MACOSX", "Thumbs.db", "desktop.ini"}
MAX_ZIP_MEMBERS = 200_000
#: Nesting depth of one JSONL record (a record is an object of strings and lists: depth 2).
MAX_JSONL_DEPTH = 16
_CSV_FIELD_LIMIT = 2**31 - 1

_TABLE_KW = {"text_column", "labels_column", "label_sep", "id_column", "title_column", "split_column",
             "test_fraction", "random_state", "encoding", "max_bytes", "name"}
_FOLDER_KW = {"test_fraction", "random_state", "encoding", "max_bytes", "name"}


def _json_safe_seed(random_state) -> Any:
    return random_state if random_state is None or isinstance(random_state, int) else repr(random_state)


def _read_file_bytes(path: Path, max_bytes: int | None) -> bytes:
    if not path.exists():
        raise CorpusError(f"{path}: no such file")
    if not path.is_file():
        raise CorpusError(f"{path}: not a file")
    check_size(path.stat().st_size, max_bytes, str(path))
    return read_regular_file(path, max_bytes)


def _table_format(filename: str) -> str:
    ext = PurePosixPath(filename).suffix.lower()
    fmt = TABLE_FORMATS.get(ext)
    if fmt is None:
        raise CorpusError(
            f"{filename}: cannot tell the table format from the extension {ext or '(none)'!r}; "
            f"expected one of {', '.join(sorted(TABLE_FORMATS))}"
        )
    return fmt


# ---------------------------------------------------------------------------- table parsing
def _csv_rows(text: str, source: str, delimiter: str) -> tuple[list[str], Iterator[tuple[str, dict]]]:
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        # Documents are long fields (the default limit is 128 KB); their size is bounded by
        # max_bytes already.  2**31 - 1 fits a C long on every platform.
        csv.field_size_limit(_CSV_FIELD_LIMIT)
    reader = csv.reader(text_lines(text), delimiter=delimiter)
    try:
        header = next(reader)
    except csv.Error as exc:
        raise CorpusError(f"line 1 of {source}: unreadable header ({exc})") from None
    while not header or all(not h.strip() for h in header):
        try:
            header = next(reader)
        except StopIteration:
            raise CorpusError(f"{source}: file is empty (no header line)") from None
    columns = [h.strip() for h in header]
    seen: dict[str, int] = {}
    for k, c in enumerate(columns):
        if c and c in seen:
            raise CorpusError(f"line {reader.line_num} of {source}: column {c!r} appears twice in the header")
        seen[c] = k

    def rows():
        prev = reader.line_num
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise CorpusError(f"line {reader.line_num} of {source}: unreadable row ({exc})") from None
            start, prev = prev + 1, reader.line_num
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # blank line
            if len(row) != len(columns):
                raise CorpusError(
                    f"line {start} of {source}: {len(row)} fields, expected {len(columns)} "
                    f"(the header has columns {columns})"
                )
            yield f"line {start}", dict(zip(columns, row))

    return columns, rows()


def _jsonl_rows(text: str, source: str) -> tuple[list[str], Iterator[tuple[str, dict]]]:
    lines = text.split("\n")
    # the nesting is counted on the raw text, once for the file, before any line is parsed
    deep = raw_json_depth(text.encode("utf-8", "surrogatepass")) > MAX_JSONL_DEPTH
    parsed: list[tuple[str, dict]] = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if deep and raw_json_depth(line.encode("utf-8", "surrogatepass")) > MAX_JSONL_DEPTH:
            raise CorpusError(f"line {lineno} of {source}: JSON nested deeper than {MAX_JSONL_DEPTH} levels "
                              f"(a record is an object of strings and lists of strings)")
        try:
            obj = json.loads(line)
        except RecursionError:
            raise CorpusError(f"line {lineno} of {source}: JSON nested too deeply") from None
        except json.JSONDecodeError as exc:
            raise CorpusError(f"line {lineno} of {source}: invalid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(obj, dict):
            raise CorpusError(f"line {lineno} of {source}: expected a JSON object, got {type(obj).__name__}")
        parsed.append((f"line {lineno}", obj))
    columns = list(parsed[0][1]) if parsed else []
    return columns, iter(parsed)


def _missing_column(col: str, role: str, columns: list[str], source: str, where: str = "",
                    claimed: Sequence[str] = ()) -> MissingColumnError:
    """The error for a column ``col`` (option ``role``) the table lacks; its suggestion is a close
    name, else the only column no other option (``claimed``) uses."""
    hint, match = "", None
    close = difflib.get_close_matches(col.lower(), [c.lower() for c in columns], n=1, cutoff=0.6)
    if close:
        match = next(c for c in columns if c.lower() == close[0])
        hint = f"; did you mean {match!r}?"
    elif len(columns) == 1 and any(d in columns[0] for d in ";\t|"):
        hint = "; the header is one column: is the file separated by another character than the extension says?"
    else:
        free = [c for c in columns if c not in claimed and c not in (DEFAULT_ID_COLUMN, DEFAULT_SPLIT_COLUMN)]
        match = free[0] if len(free) == 1 else None
    prefix = f"{where} of {source}" if where else source
    what = role.removesuffix("_column")
    return MissingColumnError(f"{prefix}: no column {col!r} for the {what}; columns found: {columns}{hint}",
                              column=col, role=role, suggestion=match)


def _optional_column(given: str | None, default: str, columns: Sequence[str]) -> str | None:
    """The id or split column to read: ``given``; ``None`` -> ``default`` when the table has it;
    ``""`` -> none."""
    if given is None:
        return default if default in columns else None
    return given or None


def _cell_str(value, col: str, loc: str, source: str) -> str:
    """A cell as text; None -> ''; numbers -> their decimal form; anything else is an error."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        raise CorpusError(f"{loc} of {source}: column {col!r} is a boolean ({value}), expected text")
    if isinstance(value, (int, float)):
        if isinstance(value, float) and value != value:  # NaN
            return ""
        return str(value)
    raise CorpusError(f"{loc} of {source}: column {col!r} is a {type(value).__name__}, expected text")


def _choose_label_sep(cells: list[tuple[str, str]], source: str, col: str) -> str | None:
    """Auto-detect the label separator (see :func:`read_table`); ``None`` means white space."""
    found: dict[str, str] = {}
    for loc, cell in cells:
        for sep in _LABEL_SEPARATORS:
            if sep in cell and sep not in found:
                found[sep] = loc
    if len(found) > 1:
        (s1, l1), (s2, l2) = list(found.items())[:2]
        raise CorpusError(
            f"{source}: column {col!r} mixes label separators {s1!r} ({l1}) and {s2!r} ({l2}); say which one "
            f"separates labels", "label_sep", s1)
    return next(iter(found), None)


def _split_labels(value, sep: str | None, col: str, loc: str, source: str) -> list[str]:
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            s = _cell_str(v, col, loc, source).strip()
            if s:
                out.append(s)
        return out
    cell = _cell_str(value, col, loc, source)
    parts = cell.split() if sep is None or not sep.strip() else cell.split(sep)
    return [p.strip() for p in parts if p.strip()]


def _corpus_from_rows(columns: list[str], rows: Iterator[tuple[str, dict]], *, source: str, fmt: str,
                      text_column: str, labels_column: str, label_sep: str | None,
                      id_column: str | None, title_column: str | None, split_column: str | None,
                      test_fraction: float, random_state, name: str | None,
                      extra_meta: dict | None = None, pair_split: str | None = None) -> Corpus:
    check_random_split_args(test_fraction)
    if label_sep is not None and (not isinstance(label_sep, str) or label_sep == ""):
        raise ValueError(f"label_sep must be a non-empty string or None (auto), got {label_sep!r}")
    id_column = _optional_column(id_column, DEFAULT_ID_COLUMN, columns)
    split_column = _optional_column(split_column, DEFAULT_SPLIT_COLUMN, columns)
    wanted = [(text_column, "text_column"), (labels_column, "labels_column")]
    wanted += [(c, r) for c, r in ((id_column, "id_column"), (title_column, "title_column"),
                                   (split_column, "split_column")) if c]
    claimed = [c for c, _ in wanted]
    if fmt != "jsonl":  # JSONL records may differ in keys: checked per line below
        for col, role in wanted:
            if col not in columns:
                raise _missing_column(col, role, columns, source, claimed=claimed)
    records = list(rows)
    if not records:
        raise CorpusError(f"{source}: no documents (the file has a header but no rows)"
                          if fmt in ("csv", "tsv") else f"{source}: no documents (the file is empty)")
    if fmt == "jsonl":
        for loc, rec in records:
            for col, role in wanted:
                if col not in rec:
                    raise _missing_column(col, role, list(rec), source, where=loc, claimed=claimed)

    if label_sep is None:
        cells = [(loc, r[labels_column]) for loc, r in records if isinstance(r[labels_column], str)]
        sep = _choose_label_sep(cells, source, labels_column)
    else:
        sep = label_sep

    docs: list[Document] = []
    where: list[str] = []
    for k, (loc, rec) in enumerate(records, 1):
        tick("reading rows", k, len(records))
        text = _cell_str(rec[text_column], text_column, loc, source)
        title = _cell_str(rec[title_column], title_column, loc, source).strip() if title_column else ""
        if not has_letters(text) and not has_letters(title):
            what = "is empty" if not text.strip() else "has no letters"
            raise CorpusError(f"{loc} of {source}: column {text_column!r} {what}, so the document has no "
                              f"tokens (a token is a run of letters)")
        labels = _split_labels(rec[labels_column], sep, labels_column, loc, source)
        if not labels:
            raise CorpusError(f"{loc} of {source}: column {labels_column!r} is empty; every document needs "
                              f"at least one label")
        if id_column is not None:
            doc_id = _cell_str(rec[id_column], id_column, loc, source).strip()
            if not doc_id:
                raise CorpusError(f"{loc} of {source}: column {id_column!r} (the id) is empty")
        else:
            doc_id = str(k)
        split = "train" if split_column is None else row_split(
            _cell_str(rec[split_column], split_column, loc, source), split_column, loc, source, pair_split)
        docs.append(Document(id=doc_id, text=text, labels=frozenset(labels), split=split, title=title))
        where.append(loc)

    check_unique_ids([d.id for d in docs], where, source)
    if split_column is not None and pair_split is None:
        if not any(d.split == "train" for d in docs):
            raise CorpusError(f"{source}: column {split_column!r} marks no document as 'train'")
        check_labels_trained(docs, where, source)
        split_meta: dict = {"split": f"column {split_column!r}"}
    else:  # no split in the source
        splits = seeded_split([d.labels for d in docs], test_fraction, random_state)
        docs = [Document(d.id, d.text, d.labels, s, d.title, d.date) for d, s in zip(docs, splits)]
        split_meta = {"split": "seeded", "test_fraction": float(test_fraction),
                      "random_state": _json_safe_seed(random_state)}
    meta = {"source": source, "format": fmt, "label_sep": "whitespace" if sep is None or not sep.strip() else sep,
            "ids": f"column {id_column!r}" if id_column else "row numbers", **split_meta, **(extra_meta or {})}
    return Corpus(name or PurePosixPath(source.replace("\\", "/")).stem, tuple(docs), synthetic=False, meta=meta)


def _table_from_bytes(data: bytes, source: str, fmt: str, *, text_column: str = "text",
                      labels_column: str = "labels", label_sep: str | None = None,
                      id_column: str | None = None, title_column: str | None = None,
                      split_column: str | None = None, test_fraction: float = 0.25,
                      random_state=0, encoding: str | None = AUTO,
                      max_bytes: int | None = DEFAULT_MAX_BYTES, name: str | None = None,
                      pair_split: str | None = None) -> Corpus:
    check_size(len(data), max_bytes, source)
    tally = EncodingTally(encoding)
    try:
        if fmt == "parquet":
            if not data:
                raise CorpusError(f"{source}: file is empty")
            wanted = [c for c in (text_column, labels_column, title_column,
                                  DEFAULT_ID_COLUMN if id_column is None else id_column,
                                  DEFAULT_SPLIT_COLUMN if split_column is None else split_column) if c]
            columns, rows = parquet_rows(data, source, wanted, max_bytes)
            tally.encodings["utf-8"] = 1  # Parquet stores strings as UTF-8
        else:
            text = tally.decode(data, source)
            if not text.strip():
                raise CorpusError(f"{source}: file is empty")
            if fmt == "jsonl":
                columns, rows = _jsonl_rows(text, source)
            else:
                columns, rows = _csv_rows(text, source, "," if fmt == "csv" else "\t")
        return _corpus_from_rows(columns, rows, source=source, fmt=fmt, text_column=text_column,
                                 labels_column=labels_column, label_sep=label_sep, id_column=id_column,
                                 title_column=title_column, split_column=split_column,
                                 test_fraction=test_fraction, random_state=random_state, name=name,
                                 extra_meta=tally.meta(), pair_split=pair_split)
    except MemoryError:
        raise CorpusError(f"{source}: ran out of memory parsing the {fmt} table; it is too large for this "
                          f"machine (max_bytes={max_bytes} bounds the file, not the memory its rows take)") from None


def read_table(path, *, text_column: str = "text", labels_column: str = "labels",
               label_sep: str | None = None, id_column: str | None = None,
               title_column: str | None = None, split_column: str | None = None,
               test_fraction: float = 0.25, random_state=0, encoding: str | None = AUTO,
               max_bytes: int | None = DEFAULT_MAX_BYTES, name: str | None = None) -> Corpus:
    """Read a table of documents: CSV, TSV, JSON Lines or Parquet (format from the extension).

    Parameters
    ----------
    path : str or path-like
        ``.csv``; ``.tsv`` / ``.tab``; ``.jsonl`` / ``.ndjson`` (one JSON object per line);
        ``.parquet`` / ``.pq``.  CSV and TSV need a header line.
    text_column, labels_column : str
        The document text and its labels.
    label_sep : str, optional
        What separates several labels in one cell.  ``None`` (default) detects it: the one of
        ``,`` ``;`` ``|`` that occurs in some label cell (an error if two of them occur in the
        file), else white space.  A white-space ``label_sep`` (``" "``) splits on runs of white
        space.  Labels are stripped; empty pieces are dropped.  JSONL / Parquet cells that are
        lists are taken as lists of labels.  Labels that contain white space therefore need a
        ``,`` ``;`` ``|`` separator in the file, or an explicit ``label_sep``.
    id_column : str, optional
        Document ids (must be unique).  ``None`` (default): the column ``id`` when the table has
        one, else the 1-based row number; ``""``: the row number.
    title_column : str, optional
        Document titles (the tokenizer reads title and text alike).
    split_column : str, optional
        Values ``train`` / ``test`` (case-insensitive).  ``None`` (default): the column ``split``
        when the table has one (the documented form ``id,text,labels,split`` keeps its own
        split); ``""``: ignore any split column.  Without a split column, a seeded split (see
        the module docstring) with ``test_fraction`` and ``random_state``.
    encoding : str, default "auto"
        Text encoding for CSV / TSV / JSONL: ``"auto"`` detects it (module docstring), a codec
        name (``"latin-1"``) decodes strictly.
    max_bytes : int or None
        Refuse files larger than this (default 200 MB).
    name : str, optional
        Corpus name; default the file stem.

    Returns
    -------
    Corpus

    Raises
    ------
    CorpusError
        Naming the file and the line (CSV / TSV / JSONL) or row (Parquet) and the column: empty
        file, missing column (listing the columns found), undecodable bytes, a row with the
        wrong number of fields, a document without letters, an empty label cell, a bad split
        value, duplicate ids (both lines), a label with no training document.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = p.write_text("text,labels,split\\nwheat prices rose,grain,train\\n"
    ...                  "oil output fell,crude;energy,train\\ncorn exports,grain,test\\n")
    >>> c = read_table(p)
    >>> [(d.id, sorted(d.labels), d.split) for d in c.documents]
    [('1', ['grain'], 'train'), ('2', ['crude', 'energy'], 'train'), ('3', ['grain'], 'test')]
    >>> c.split_source
    "the file's split column"
    """
    p = Path(path)
    fmt = _table_format(p.name)
    data = _read_file_bytes(p, max_bytes)
    return _table_from_bytes(data, str(p), fmt, text_column=text_column, labels_column=labels_column,
                             label_sep=label_sep, id_column=id_column, title_column=title_column,
                             split_column=split_column, test_fraction=test_fraction,
                             random_state=random_state, encoding=encoding, max_bytes=max_bytes, name=name)


# ---------------------------------------------------------------------------- train/test pair
def _corpus_from_pair(tables: Mapping[str, tuple[bytes, str]], source: str, *, split_column: str | None = None,
                      name: str | None = None, **kw) -> Corpus:
    """One corpus from ``{"train": (bytes, file name), "test": (bytes, file name)}``
    (:func:`hbnlab.corpus.pairs.merge_train_test`); a ``split`` column in a file must name the
    file's own split on every row (:func:`hbnlab.corpus.pairs.row_split`), unless
    ``split_column=""`` says to read none."""
    if split_column:
        raise CorpusError(f"{source}: a train/test pair takes its split from the file names; a split column "
                          f"({split_column!r}) does not apply", "split_column", "")
    _reject_kw(kw, _TABLE_KW, "a train/test pair")
    parts = {s: _table_from_bytes(data, file, _table_format(file), split_column=split_column, pair_split=s,
                                  **{**kw, "test_fraction": 0.0}) for s, (data, file) in tables.items()}
    return merge_train_test(parts, source, name or PurePosixPath(source.replace("\\", "/")).name or "corpus")


def read_table_pair(train, test=None, **kw) -> Corpus:
    """Read a corpus published as two tables (``train.csv`` and ``test.csv``, any table format, the
    options of :func:`read_table`): the split comes from the file names (:mod:`hbnlab.corpus.pairs`).

    ``train`` and ``test`` are the two files, in either order, or ``train`` alone is a folder
    holding exactly them.  Ids from an id column must be unique across both files; without one
    they are ``train/<row>`` and ``test/<row>``.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "train.csv").write_text("text,category\\nwheat prices rose,grain\\noil output fell,crude\\n")
    >>> _ = (d / "test.csv").write_text("text,category\\ncorn exports,grain\\n")
    >>> c = read_table_pair(d, labels_column="category")
    >>> [(doc.id, doc.split) for doc in c.documents], c.split_source
    ([('train/1', 'train'), ('train/2', 'train'), ('test/1', 'test')], 'train/test files')
    """
    max_bytes = kw.get("max_bytes", DEFAULT_MAX_BYTES)
    if test is None:
        files = pair_folder_files(Path(train), TABLE_FORMATS, _skipped)
        if files is None:
            raise CorpusError(f"{train}: expected a folder holding exactly two table files, train.* and test.*")
        paths, source = [Path(train) / f for f in files], str(train)
        kw.setdefault("name", Path(train).resolve().name)
    else:
        paths, source = [Path(train), Path(test)], f"{train} + {test}"
        kw.setdefault("name", paths[0].resolve().parent.name or "corpus")
    roles = pair_roles([str(p) for p in paths], source)
    check_size(sum(p.stat().st_size for p in paths if p.is_file()), max_bytes, source, " (total of its files)")
    return _corpus_from_pair({s: (_read_file_bytes(Path(p), max_bytes), p) for s, p in roles.items()}, source, **kw)


# ---------------------------------------------------------------------------- folder per class
_HIDDEN = "hidden or system file (.*, __MACOSX, Thumbs.db, desktop.ini)"


def _ignored(rel: str, reason: str) -> dict:
    return {"file": rel, "reason": reason}


def _skipped(rel: str) -> bool:
    return any(part.startswith(".") or part in _SKIP_NAMES for part in rel.split("/"))


def _corpus_from_tree(files: Mapping[str, bytes], source: str, *, test_fraction: float = 0.0,
                      random_state=0, encoding: str | None = AUTO, name: str | None = None,
                      max_bytes: int | None = DEFAULT_MAX_BYTES, member_prefix: str | None = None,
                      skipped: list[str] | None = None, not_read: Sequence[dict] = ()) -> Corpus:
    """Folder-per-class corpus from ``{relative posix path: bytes}``.

    A file is named ``<source>/<rel>`` in messages, or ``<source>:<member_prefix><rel>`` for ZIP
    members.  ``skipped``: hidden or system files the caller did not read (listed in
    ``meta['ignored_files']`` with those of ``files``); ``not_read``: other entries the caller did
    not read, as ``{"file", "reason"}`` (links leading outside the folder, devices, FIFOs).
    Copies of one document in several class folders (the same path below the class folder, the
    same split and the same text) become one document with all those labels.
    """
    check_random_split_args(test_fraction)
    tally = EncodingTally(encoding)
    hidden = {r for r in files if _skipped(r)}
    rels = sorted(r for r in files if r not in hidden)
    top_dirs = sorted({r.split("/", 1)[0] for r in rels if "/" in r})
    ignored = [_ignored(r, _HIDDEN) for r in sorted(hidden.union(skipped or ()))] + list(not_read)
    ignored += [_ignored(r, "in the root, not in a class folder") for r in rels if "/" not in r]
    if not top_dirs:
        raise CorpusError(f"{source}: no class folders; expected <class>/<document files> or "
                          f"train/<class>/... and test/<class>/...")
    kinds = {d: split_of_name(d) for d in top_dirs}
    split_layout = any(kinds.values())
    if split_layout:
        others = [d for d, k in kinds.items() if k is None]
        if others:
            split_dirs = [d for d, k in kinds.items() if k]
            raise CorpusError(f"{source}: has split folders {split_dirs} and also other folders {others}; "
                              f"expected either <class>/ folders or train/<class>/ and test/<class>/")
        for s in ("train", "test"):
            same = [d for d, k in kinds.items() if k == s]
            if len(same) > 1:
                raise CorpusError(f"{source}: several {s} folders {same}; expected one")
        if "train" not in kinds.values():
            raise CorpusError(f"{source}: has a test folder but no train folder")

    docs: list[Document] = []
    where: list[str] = []
    first_copy: dict[tuple, int] = {}
    copies: dict[str, list[str]] = {}
    for n_done, rel in enumerate(rels, 1):
        tick("decoding files", n_done, len(rels))
        parts = rel.split("/")
        if split_layout:
            if len(parts) < 3:  # a file in the root (already listed) or directly in train/ or test/
                if len(parts) == 2:
                    ignored.append(_ignored(rel, "directly in a split folder, not in a class folder"))
                continue
            split, label, below = kinds[parts[0]], parts[1], "/".join(parts[2:])
        else:
            if len(parts) < 2:
                continue
            split, label, below = "train", parts[0], "/".join(parts[1:])
        loc = f"{source}/{rel}" if member_prefix is None else f"{source}:{member_prefix}{rel}"
        try:
            text = tally.decode(files[rel], loc, rel)
        except BinaryFileError as exc:
            ignored.append(_ignored(rel, BINARY_REASON + exc.reason))
            continue
        if not has_letters(text):
            what = "is empty" if not text.strip() else "has no letters"
            raise CorpusError(f"{loc}: the document {what}, so it has no tokens (a token is a run of letters)")
        key = (split, below, text)
        j = first_copy.get(key)
        if j is not None:
            docs[j] = Document(docs[j].id, text, docs[j].labels | {label}, split)
            copies[docs[j].id].append(rel)
            continue
        first_copy[key] = len(docs)
        copies[rel] = []
        docs.append(Document(id=rel, text=text, labels=frozenset([label]), split=split))
        where.append(f"file {rel}")
    if not docs:
        raise CorpusError(f"{source}: the class folders hold no document files")

    if split_layout:
        check_labels_trained(docs, where, source)
        split_meta: dict = {"split": "folders", "split_folders": {d: k for d, k in kinds.items()}}
        if "test" not in kinds.values() and test_fraction > 0:
            splits = seeded_split([d.labels for d in docs], test_fraction, random_state)
            docs = [Document(d.id, d.text, d.labels, s, d.title, d.date) for d, s in zip(docs, splits)]
            split_meta = {"split": "seeded", "test_fraction": float(test_fraction),
                          "random_state": _json_safe_seed(random_state)}
    else:
        splits = seeded_split([d.labels for d in docs], test_fraction, random_state)
        docs = [Document(d.id, d.text, d.labels, s, d.title, d.date) for d, s in zip(docs, splits)]
        split_meta = {"split": "seeded", "test_fraction": float(test_fraction),
                      "random_state": _json_safe_seed(random_state)}
    ignored.sort(key=lambda d: d["file"])
    meta = {"source": source, "format": "folder-per-class", "ignored_files": ignored, **split_meta,
            "merged_copies": {k: v for k, v in copies.items() if v}, **tally.meta()}
    default_name = PurePosixPath(source.replace("\\", "/")).name or "corpus"
    return Corpus(name or default_name, tuple(docs), synthetic=False, meta=meta)


def _tree_from_dir(root: Path, max_bytes: int | None) -> tuple[dict[str, bytes], list[str], list[dict]]:
    """``{relative posix path: bytes}`` of every regular file inside ``root``
    (:func:`~hbnlab.corpus._common.walk_regular_files`), the relative paths of the hidden or system
    files and folders (``name/``) that were not read, and the other entries not read with their
    reason (links leading outside the folder, devices, FIFOs, sockets).  ``max_bytes`` bounds the
    total of the bytes read, whatever ``stat`` says of them."""
    entries, skipped, not_read = walk_regular_files(root, lambda n: n.startswith(".") or n in _SKIP_NAMES)
    check_size(sum(p.stat().st_size for _, p in entries), max_bytes, str(root), " (total of its files)")
    files, total = {}, 0
    for rel, p in entries:
        left = None if max_bytes is None else max_bytes - total
        files[rel] = read_regular_file(p, left, f"{root}/{rel}")
        total += len(files[rel])
    return files, skipped, not_read


def read_folder_per_class(path, *, test_fraction: float = 0.0, random_state=0,
                          encoding: str | None = AUTO, max_bytes: int | None = DEFAULT_MAX_BYTES,
                          name: str | None = None) -> Corpus:
    """Read a folder-per-class tree (the 20 Newsgroups layout).

    Layouts
    -------
    * ``root/<class>/<files>`` -- every file is a document labelled with its class folder
      (sub-folders below a class folder belong to that class).  All documents go to 'train',
      then a seeded split moves ``round(n * test_fraction)`` of them to 'test' (default 0: none).
    * ``root/train/<class>/<files>`` and ``root/test/<class>/<files>`` -- the split is given.
      Split folders are named ``train`` / ``training`` / ``test`` / ``testing`` or end in
      ``-train`` / ``_train`` / ``-test`` / ``_test`` (``20news-bydate-train``).  Without a test
      folder the seeded split applies to the training folder.

    One label per file; a document's id is its path relative to ``root`` (``train/sci.space/6015``).
    The same file name with the same text in several class folders of one split is one
    multi-label document (id: its first path); ``meta['merged_copies']`` lists the other paths.
    ``encoding`` is ``"auto"`` (each file's codec detected) or a codec name; ``meta['encodings']``
    and ``meta['replaced_files']`` report what was used (module docstring).
    Hidden files and folders (``.DS_Store``), ``__MACOSX``, files directly in ``root`` (a
    README), symbolic links leading outside ``root`` (or to a folder), devices, FIFOs, sockets
    and binary files (an image, a PDF, an executable, a ZIP: the reason starts with
    :data:`~hbnlab.corpus.encoding.BINARY_REASON`) are skipped, and listed in
    ``meta['ignored_files']`` as ``{"file", "reason"}``.

    Raises
    ------
    CorpusError
        Naming the file: undecodable bytes under a named ``encoding`` (with offset and line), a
        document without letters,
        a class present only under ``test/``, a total size over ``max_bytes``, a missing root
        or a root without class folders.
    """
    root = Path(path)
    if not root.is_dir():
        raise CorpusError(f"{root}: not a directory")
    files, skipped, not_read = _tree_from_dir(root, max_bytes)
    return _corpus_from_tree(files, str(root), test_fraction=test_fraction, random_state=random_state,
                             encoding=encoding, name=name or root.resolve().name, max_bytes=max_bytes,
                             skipped=skipped, not_read=not_read)


# ---------------------------------------------------------------------------- ZIP
def _strip_wrapper(files: dict[str, bytes]) -> tuple[dict[str, bytes], str]:
    """Drop a single top-level folder wrapping everything (``corpus/...`` -> ``...``) when what
    remains is still a corpus layout (class folders, a table file or Reuters files)."""
    prefix = ""
    while True:
        rels = [r for r in files if not _skipped(r)]
        tops = {r.split("/", 1)[0] for r in rels}
        if len(tops) != 1 or not all("/" in r for r in rels):
            return files, prefix
        top = next(iter(tops))
        if split_of_name(top) is not None:  # train/ alone is a split folder, not a wrapper
            return files, prefix
        inner = {r.split("/", 1)[1]: b for r, b in files.items() if r.startswith(top + "/") and not _skipped(r)}
        inner_rels = list(inner)
        looks_like_corpus = (any("/" in r for r in inner_rels)
                             or any(PurePosixPath(r).suffix.lower() in TABLE_FORMATS for r in inner_rels)
                             or REUTERS_FILES[0] in inner)
        if not looks_like_corpus:
            return files, prefix
        files, prefix = inner, prefix + top + "/"


def _corpus_from_archive_tree(files: dict[str, bytes], source: str, kw: dict) -> Corpus:
    skipped = sorted(r for r in files if _skipped(r))
    files, prefix = _strip_wrapper(files)
    rels = [r for r in files if not _skipped(r)]
    if not rels:
        raise CorpusError(f"{source}: the archive holds no files")
    if REUTERS_FILES[0] in files:
        kw = _reuters_kw(kw, source)
        _reject_kw(kw, {"progress"}, "a Reuters-21578 archive")
        return _read_reuters_files(files, source, kw.get("progress"))
    flat = [r for r in rels if "/" not in r]
    tables = [r for r in flat if PurePosixPath(r).suffix.lower() in TABLE_FORMATS]
    if tables and len(flat) == len(rels):
        if len(tables) == 2 and {split_of_name(PurePosixPath(t).stem) for t in tables} == {"train", "test"}:
            roles = pair_roles(tables, source)
            kw = dict(kw)
            kw.setdefault("name", PurePosixPath(prefix.rstrip("/") or source).stem or "corpus")
            return _corpus_from_pair({s: (files[m], f"{source}:{prefix}{m}") for s, m in roles.items()}, source,
                                     **kw)
        if len(tables) > 1:
            raise CorpusError(f"{source}: holds several table files {sorted(tables)}; expected one table "
                              f"file, a train/test pair (train.* and test.*) or a folder-per-class tree")
        member = tables[0]
        _reject_kw(kw, _TABLE_KW, "a table")
        kw = dict(kw)
        kw.setdefault("name", PurePosixPath(member).stem)
        return _table_from_bytes(files[member], f"{source}:{prefix}{member}", _table_format(member), **kw)
    _reject_kw(kw, _FOLDER_KW, "a folder-per-class tree")
    kw = dict(kw)
    kw.setdefault("name", PurePosixPath(prefix.rstrip("/") or source).stem or "corpus")
    return _corpus_from_tree(files, source, member_prefix=prefix, skipped=skipped, **kw)


def _reuters_kw(kw: dict, source: str) -> dict:
    """``kw`` without ``encoding``, which must be "auto" or latin-1: Reuters-21578's SGML files
    are latin-1 (:mod:`hbnlab.corpus.reuters`)."""
    kw = dict(kw)
    enc = check_encoding(kw.pop("encoding", AUTO), source)
    if enc != AUTO and codecs.lookup(enc).name != "iso8859-1":
        raise CorpusError(f"{source}: Reuters-21578 is read as latin-1 (its SGML files are); encoding {enc!r} "
                          f"does not apply", "encoding", AUTO)
    return kw


def _reject_kw(kw: dict, allowed: set, what: str) -> None:
    bad = sorted(set(kw) - allowed)
    if bad:
        raise TypeError(f"unexpected keyword argument(s) {bad} for {what}; allowed: {sorted(allowed)}")


def _zip_from_bytes(data: bytes, source: str, kw: dict) -> Corpus:
    max_bytes = kw.get("max_bytes", DEFAULT_MAX_BYTES)
    check_size(len(data), max_bytes, source)
    files = tree_from_zip(data, source, max_bytes, MAX_ZIP_MEMBERS)
    return _corpus_from_archive_tree(files, source, kw)


def read_zip(path, **kw) -> Corpus:
    """Read a ZIP holding one table file, a folder-per-class tree or Reuters-21578's SGML files.

    The archive is read in memory (nothing is written to disk) and checked first: absolute
    paths, ``..`` components, symbolic links, encrypted members and a total uncompressed size
    over ``max_bytes`` (default 200 MB, counted while inflating) raise :class:`CorpusError`.  A
    single top-level folder wrapping everything is looked through.  Keyword arguments go to
    :func:`read_table` or :func:`read_folder_per_class`, depending on the content.
    """
    p = Path(path)
    data = _read_file_bytes(p, kw.get("max_bytes", DEFAULT_MAX_BYTES))
    return _zip_from_bytes(data, str(p), kw)


# ---------------------------------------------------------------------------- dispatch
def load_corpus(path_or_name, **kw) -> Corpus:
    """Load a corpus from a name or a path, choosing the reader from what it is.

    * ``"synthetic"`` -> :func:`make_synthetic_corpus` (``kw`` are its parameters);
    * ``"reuters21578"`` -> :func:`fetch_reuters21578` (``data_home``, ``download_if_missing``,
      ``url``) then :func:`load_reuters21578` (``progress``);
    * two paths ``[train.csv, test.csv]``, or a directory holding exactly two table files named
      ``train.*`` and ``test.*`` -> :func:`read_table_pair` (the split from the file names);
    * a directory with ``reut2-000.sgm`` -> :func:`load_reuters21578`;
    * any other directory -> :func:`read_folder_per_class`;
    * a ``.zip`` file -> :func:`read_zip`;
    * a ``.csv`` / ``.tsv`` / ``.tab`` / ``.jsonl`` / ``.ndjson`` / ``.parquet`` / ``.pq``
      file -> :func:`read_table`.
    """
    if isinstance(path_or_name, (list, tuple)):
        if len(path_or_name) != 2:
            raise CorpusError(f"{list(map(str, path_or_name))}: expected one path, or two table files train.* and "
                              f"test.*")
        return read_table_pair(*path_or_name, **kw)
    if isinstance(path_or_name, str) and path_or_name == "synthetic":
        from .synthetic import make_synthetic_corpus

        kw = dict(kw)
        check_encoding(kw.pop("encoding", AUTO))  # generated text: nothing to decode
        return make_synthetic_corpus(**kw)
    if isinstance(path_or_name, str) and path_or_name == "reuters21578":
        from .fetch import fetch_reuters21578
        from .reuters import load_reuters21578

        kw = _reuters_kw(kw, path_or_name)
        progress = kw.pop("progress", None)
        _reject_kw(kw, {"data_home", "download_if_missing", "url"}, "'reuters21578'")
        return load_reuters21578(fetch_reuters21578(progress=progress, **kw), progress=progress)
    p = Path(path_or_name)
    if not p.exists():
        raise CorpusError(f"{p}: no such file or directory (expected a corpus file, a folder, "
                          f"'synthetic' or 'reuters21578')")
    if p.is_dir():
        if (p / REUTERS_FILES[0]).is_file():
            from .reuters import load_reuters21578

            kw = _reuters_kw(kw, str(p))
            _reject_kw(kw, {"progress"}, "a Reuters-21578 folder")
            return load_reuters21578(p, **kw)
        if pair_folder_files(p, TABLE_FORMATS, _skipped) is not None:
            return read_table_pair(p, **kw)
        columns = sorted(set(kw) & (_TABLE_KW - _FOLDER_KW))
        if columns:
            raise CorpusError(f"{p}: a folder-per-class tree (not a folder holding exactly train.* and test.* "
                              f"tables), which has no columns; the column options {columns} do not apply")
        return read_folder_per_class(p, **kw)
    if p.suffix.lower() == ".zip":
        return read_zip(p, **kw)
    if p.suffix.lower() in TABLE_FORMATS:
        return read_table(p, **kw)
    raise CorpusError(f"{p}: unsupported file type {p.suffix or '(no extension)'!r}; expected .zip or one of "
                      f"{', '.join(sorted(TABLE_FORMATS))}")


def load_upload(data: bytes, filename: str, **kw) -> Corpus:
    """Load an uploaded file (its bytes and its name) -- a table or a ZIP -- for the workbench.

    Only the extension of ``filename`` matters (any folder part is ignored); errors name the
    file as ``filename``.  The bytes are parsed in memory and the corpus is returned only once
    complete: on any error nothing is kept (the upload never half-loads).  ``kw`` are the
    options of :func:`read_table` or :func:`read_folder_per_class` (for a ZIP holding a tree).
    """
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if not isinstance(data, bytes):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    display = PurePosixPath(str(filename).replace("\\", "/")).name or "upload"
    check_size(len(data), kw.get("max_bytes", DEFAULT_MAX_BYTES), display)
    if not data:
        raise CorpusError(f"{display}: file is empty")
    ext = PurePosixPath(display).suffix.lower()
    if ext == ".zip":
        return _zip_from_bytes(data, display, kw)
    if ext in TABLE_FORMATS:
        _reject_kw(kw, _TABLE_KW, "a table")
        return _table_from_bytes(data, display, TABLE_FORMATS[ext], **kw)
    raise CorpusError(f"{display}: unsupported file type {ext or '(no extension)'!r}; expected .zip or one of "
                      f"{', '.join(sorted(TABLE_FORMATS))}")
