"""Readers for the usual distributed layouts of 20 Newsgroups and OHSUMED.

de Campos et al. (sec. 4) evaluate on Reuters-21578, Ohsumed and 20 Newsgroups; neither of the
last two is shipped with hbnlab.  These readers take a user's copy in the layouts it is usually
found in and return a :class:`~hbnlab.corpus.base.Corpus`.

20 Newsgroups (:func:`read_20newsgroups`)
-----------------------------------------
* ``20news-bydate``: ``20news-bydate-train/<group>/<id>`` and ``20news-bydate-test/<group>/<id>``
  (any folder names ending in ``-train`` / ``_train`` / ``train`` and ``-test`` / ``_test`` /
  ``test``); the split is the folders'.
* ``20news-18828`` and ``20news-19997`` (``20_newsgroups/``): a folder per group, no split.  The
  reader puts every document in 'train' unless ``test_fraction`` asks for a seeded split.

Each file is one Usenet message: headers up to the first blank line, then the body.  Only the
``Subject`` header (as the title) and the body are kept -- de Campos et al.: "only the subject and
the body of each message were used".  The body is kept whole, quoted replies and attribution
lines ("In article <...> x writes:") included: the paper removes nothing else, so neither do we.
A crossposted message of 20news-19997 is stored once per group; copies with the same
``Message-ID`` header (or, without one, the same file name, subject and body) within one split
become **one** document labelled with every group it appears in.  Otherwise a random split could
put the same text on both sides, and a single-label reading would train contradictory labels.
``meta['n_files']`` counts the files read, ``meta['crossposts']`` lists the merged copies.

OHSUMED (:func:`read_ohsumed`, :func:`read_ohsumed_medline`)
-------------------------------------------------------------
* ``ohsumed-first-20000-docs`` (Joachims 1998, as distributed by Moschitti):
  ``training/<C01..C23>/<id>`` and ``test/<C01..C23>/<id>``; a file's first non-empty line is the
  title, the rest the abstract.  The same id in several category folders is **one** document with
  all those categories (its copies must be identical).
* The original OHSUMED files ``ohsumed.87`` ... ``ohsumed.91`` (Hersh et al. 1994): MEDLINE-like
  records, fields ``.I`` (sequence number, on the marker's line), ``.U`` (MEDLINE id, the document
  id), ``.S`` source, ``.M`` MeSH headings, ``.T`` title, ``.P`` publication type, ``.W``
  abstract, ``.A`` authors, each marker on its own line followed by its text.  Labels are the
  MeSH headings (qualifiers ``/..`` and the major-topic star dropped); with NLM's MeSH tree file
  (``mtreesYYYY.bin``, lines ``Heading;TreeNumber``, found beside the data or passed as
  ``mesh_trees``) they are the 23 top-level disease categories ``C01`` ... ``C23`` the headings
  fall under (Joachims 1998's categories).

Rules every reader here keeps: errors are :class:`~hbnlab.corpus.base.CorpusError` naming the
file and the line; a file over ``max_file_bytes`` or a tree over ``max_bytes`` is refused; a file
is either loaded or listed in ``meta['ignored_files']`` as ``{"file", "reason"}`` (a binary file
-- an image, an archive, an executable -- among the messages or abstracts is listed).  Each file is
decoded on its own with ``encoding="auto"`` (:mod:`hbnlab.corpus.encoding`: byte-order mark,
UTF-16 / UTF-32, strict UTF-8, UTF-8 with a few stray bytes replaced, plausible cp1252 -- these
collections predate UTF-8 --, a
detector's guess, else cp1252 with replacement characters) or strictly with a named codec;
``meta['encodings']`` counts the files per codec and ``meta['replaced_files']`` lists those where
undecodable bytes became U+FFFD.

References
----------
T. Joachims. Text categorization with support vector machines. ECML 1998.
W. Hersh, C. Buckley, T. J. Leone, D. Hickam. OHSUMED: an interactive retrieval evaluation and new
large test collection for research. SIGIR 1994.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ._common import DEFAULT_MAX_BYTES, check_size, has_letters, read_regular_file, seeded_split, walk_regular_files
from .base import BinaryFileError, Corpus, CorpusError, Document
from .encoding import AUTO, BINARY_REASON, EncodingTally, decode_text

__all__ = ["read_20newsgroups", "read_ohsumed", "read_ohsumed_medline", "read_mesh_trees",
           "parse_usenet_message", "detect_collection_layout", "OHSUMED_CATEGORIES", "MAX_FILE_BYTES", "MAX_FILES"]

#: A single message or abstract larger than this is refused (the largest 20 Newsgroups message is
#: well under 1 MB); ``max_file_bytes=None`` lifts the limit.
MAX_FILE_BYTES = 5_000_000
#: More files than this under one root is refused (20news-19997 has 19,997).
MAX_FILES = 500_000
#: Joachims 1998's 23 categories: the top level of MeSH's "Diseases" tree.
OHSUMED_CATEGORIES = tuple(f"C{i:02d}" for i in range(1, 24))

_HEADER = re.compile(r"([!-9;-~]+):(.*)")
_MEDLINE_FILE = re.compile(r"ohsumed\.\d\d")
_MEDLINE_FIELDS = (".U", ".S", ".M", ".T", ".P", ".W", ".A")
_MARKER = re.compile(r"\.[A-Z]")


# ---------------------------------------------------------------------------- shared helpers
def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _split_kind(name: str) -> str | None:
    low = name.lower()
    for split, words in (("train", ("train", "training")), ("test", ("test", "testing"))):
        if low in words or any(low.endswith(sep + w) for w in words for sep in "-_"):
            return split
    return None


def _walk(root: Path, max_bytes: int | None, max_file_bytes: int | None, max_files: int = MAX_FILES):
    """``(files, hidden, not_read)``: sorted ``[(relative posix path, Path)]`` of the regular files
    inside ``root``, the relative paths of hidden files / folders (names starting with ``.``) and the
    ``{"file", "reason"}`` of the other entries not read: links leading outside the folder, devices,
    FIFOs, sockets (:func:`~hbnlab.corpus._common.walk_regular_files`)."""
    files, hidden, not_read = walk_regular_files(root, lambda n: n.startswith("."))
    if len(files) > max_files:
        raise CorpusError(f"{root}: more than {max_files} files; a copy of 20 Newsgroups (19,997 files) "
                          "or ohsumed-first-20000-docs holds far fewer")
    total = 0
    for rel, p in files:
        size = p.stat().st_size
        if max_file_bytes is not None and size > max_file_bytes:
            raise CorpusError(f"{root}/{rel}: {size} bytes, over max_file_bytes={max_file_bytes} (one message or "
                              "abstract); pass a larger max_file_bytes= or remove the file")
        total += size
    check_size(total, max_bytes, str(root), " (total of its files)")
    return files, hidden, not_read


def _unwrap(root: Path) -> Path:
    """Descend through folders that hold exactly one visible sub-folder and no visible file."""
    for _ in range(3):
        entries = [e for e in root.iterdir() if not e.name.startswith(".")]
        if (len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink()  # never out of the folder
                and any(c.is_dir() for c in entries[0].iterdir())):
            root = entries[0]
        else:
            break
    return root


def _ignored(rel: str, reason: str) -> dict:
    return {"file": rel, "reason": reason}


# ---------------------------------------------------------------------------- 20 Newsgroups
def parse_usenet_message(text: str, source: str) -> tuple[dict, str]:
    """``(headers, body)`` of one Usenet message.

    Headers run from the first line to the first blank (or whitespace-only) line; a line starting
    with a space or a tab continues the previous header.  ``headers`` maps lower-cased names to
    the first occurrence's value (continuations joined by one space).  A file that starts with a
    blank line has no headers.

    Raises
    ------
    CorpusError
        ``"line N of <source>: ..."`` for a line in the header block that is neither a header, a
        continuation nor the blank line ending the block.

    Examples
    --------
    >>> h, body = parse_usenet_message("Subject: Re: orbits\\n  of moons\\nFrom: a@b\\n\\nText.\\n", "m")
    >>> h["subject"], body
    ('Re: orbits of moons', 'Text.')
    """
    lines = _lines(text)
    headers: dict[str, str] = {}
    last = None
    i = 0
    for i, line in enumerate(lines):
        if not line.strip():
            break
        if line[0] in " \t":
            if last is None:
                raise CorpusError(f"line {i + 1} of {source}: a continuation line (starting with a space or tab) "
                                  "before any header; expected the message to start with 'Name: value'")
            if last[1]:
                headers[last[0]] += " " + line.strip()
            continue
        m = _HEADER.match(line)
        if m is None:
            raise CorpusError(f"line {i + 1} of {source}: expected a header 'Name: value' or the blank line "
                              f"that ends the headers, got {line[:60]!r}")
        name = m.group(1).lower()
        first = name not in headers
        if first:
            headers[name] = m.group(2).strip()
        last = (name, first)
    else:
        i = len(lines)
    body = "\n".join(lines[i + 1:]).strip()
    return headers, body


def read_20newsgroups(path, *, test_fraction: float = 0.0, random_state=0,
                      max_bytes: int | None = DEFAULT_MAX_BYTES, max_file_bytes: int | None = MAX_FILE_BYTES,
                      name: str | None = None, encoding: str | None = AUTO) -> Corpus:
    """Read 20 Newsgroups in the ``20news-bydate``, ``20news-18828`` or ``20news-19997`` layout.

    Parameters
    ----------
    path : path
        The folder holding ``20news-bydate-train`` and ``20news-bydate-test``, or the folder of
        group folders (``20news-18828``, ``20_newsgroups``); wrapper folders holding just one
        folder are descended.
    test_fraction : float, default 0
        Layouts without a split: the fraction of documents a ``random_state``-seeded
        permutation puts in 'test' (:func:`hbnlab.corpus._common.seeded_split`).  Ignored when
        the folders give the split.
    max_bytes, max_file_bytes : int or None
        Limits on the tree's total and on one file.
    name : str, optional
        Corpus name; default the folder's name.
    encoding : str, default "auto"
        ``"auto"`` (each file's codec detected) or a codec name for every file.

    Returns
    -------
    Corpus
        Title = ``Subject``, text = the body, labels = the groups.  ``meta``: ``layout``
        (``"20news-bydate"`` or ``"20news-folder-per-group"``), ``split`` (``"folders"`` or
        ``"seeded"`` with ``test_fraction`` / ``random_state``, or ``"none"``), ``n_files``,
        ``crossposts`` (``{kept id: [merged copies]}``), ``ignored_files``, ``encodings``,
        ``replaced_files``.

    Raises
    ------
    CorpusError
        Naming the file and line: a malformed header block, a file or tree over its size limit,
        a layout with neither group folders nor split folders.
    """
    root = Path(path)
    if not root.is_dir():
        raise CorpusError(f"{root}: not a directory (expected 20news-bydate, 20news-18828 or 20news-19997)")
    top = _unwrap(root)
    files, hidden, not_read = _walk(top, max_bytes, max_file_bytes)
    dirs = sorted({rel.split("/", 1)[0] for rel, _ in files if "/" in rel})
    kinds = {d: _split_kind(d) for d in dirs}
    bydate = any(kinds.values())
    if bydate:
        others = [d for d, k in kinds.items() if k is None]
        trains = [d for d, k in kinds.items() if k == "train"]
        if others or len(trains) != 1 or sum(k == "test" for k in kinds.values()) > 1:
            raise CorpusError(f"{top}: expected one *-train and at most one *-test folder (20news-bydate) or "
                              f"only group folders, found {dirs}")
    if not dirs:
        raise CorpusError(f"{top}: no group folders; expected 20news-bydate-train/<group>/<id> or <group>/<id>")
    depth = 3 if bydate else 2
    ignored = [_ignored(h, "hidden file or folder") for h in hidden] + not_read
    tally = EncodingTally(encoding)
    merged: dict[tuple, int] = {}
    docs: list[Document] = []
    crossposts: dict[str, list[str]] = {}
    for rel, p in files:
        parts = rel.split("/")
        if len(parts) != depth:
            where = "the root" if len(parts) == 1 else ("a split folder" if len(parts) < depth else "a sub-folder")
            ignored.append(_ignored(rel, f"in {where}, not in a group folder"))
            continue
        split = kinds[parts[0]] if bydate else "train"
        group = parts[-2]
        loc = str(p)
        try:
            text = tally.decode(read_regular_file(p, max_file_bytes, loc), loc, rel)
        except BinaryFileError as exc:
            ignored.append(_ignored(rel, BINARY_REASON + exc.reason))
            continue
        headers, body = parse_usenet_message(text, loc)
        subject = headers.get("subject", "")
        if not has_letters(subject + " " + body):
            ignored.append(_ignored(rel, "no letters in the subject or the body"))
            continue
        msgid = headers.get("message-id")
        key = (split, "id", msgid) if msgid else (
            split, "content", parts[-1], hashlib.sha256(f"{subject}\0{body}".encode()).hexdigest())
        if key in merged:
            j = merged[key]
            docs[j] = Document(docs[j].id, docs[j].text, docs[j].labels | {group}, split, docs[j].title)
            crossposts.setdefault(docs[j].id, []).append(rel)
            continue
        merged[key] = len(docs)
        docs.append(Document(id=rel, text=body, labels=frozenset([group]), split=split, title=subject))
    if not docs:
        raise CorpusError(f"{top}: the group folders hold no message with letters in its subject or body")
    if bydate:
        split_meta: dict = {"split": "folders", "split_folders": dict(kinds)}
    elif test_fraction:
        splits = seeded_split([d.labels for d in docs], test_fraction, random_state)
        docs = [Document(d.id, d.text, d.labels, s, d.title) for d, s in zip(docs, splits)]
        split_meta = {"split": "seeded", "test_fraction": float(test_fraction),
                      "random_state": random_state if isinstance(random_state, int) else repr(random_state)}
    else:
        split_meta = {"split": "none"}
    meta = {"source": str(top), "format": "20newsgroups",
            "layout": "20news-bydate" if bydate else "20news-folder-per-group", **split_meta,
            "n_files": len(files), "n_documents": len(docs), "crossposts": crossposts,
            "ignored_files": ignored, **tally.meta()}
    return Corpus(name or top.resolve().name, tuple(docs), meta=meta)


# ---------------------------------------------------------------------------- OHSUMED
def read_mesh_trees(path, *, max_bytes: int | None = DEFAULT_MAX_BYTES) -> dict[str, tuple[str, ...]]:
    """NLM's MeSH tree file (``mtreesYYYY.bin``): ``{heading: (tree numbers, ...)}``.

    Each non-empty line is ``Heading;TreeNumber`` (e.g. ``Heart Diseases;C14.280``); a heading
    may have several lines.

    Raises
    ------
    CorpusError
        ``"line N of <file>: ..."`` for a line without ``;`` or with an empty part.
    """
    p = Path(path)
    if not p.is_file():
        raise CorpusError(f"{p}: MeSH tree file not found (expected NLM's mtreesYYYY.bin, lines 'Heading;C14.280')")
    check_size(p.stat().st_size, max_bytes, str(p))
    text = decode_text(read_regular_file(p, max_bytes), str(p)).text
    out: dict[str, list[str]] = {}
    for n, line in enumerate(_lines(text), 1):
        if not line.strip():
            continue
        heading, sep, number = line.rpartition(";")
        if not sep or not heading.strip() or not number.strip():
            raise CorpusError(f"line {n} of {p}: expected 'Heading;TreeNumber' (e.g. 'Heart Diseases;C14.280'), "
                              f"got {line[:60]!r}")
        out.setdefault(heading.strip().lower(), []).append(number.strip())
    if not out:
        raise CorpusError(f"{p}: the MeSH tree file has no 'Heading;TreeNumber' line")
    return {k: tuple(v) for k, v in out.items()}


def _mesh_headings(value: str) -> list[str]:
    """``"Heart Arrest/*TH; Human; Support, U.S. Gov't, P.H.S."`` -> main headings, in order."""
    out = []
    for item in value.strip().rstrip(".").split(";"):
        heading = item.split("/", 1)[0].replace("*", "").strip()
        if heading and heading not in out:
            out.append(heading)
    return out


def _disease_categories(headings, trees) -> tuple[frozenset, list[str]]:
    """The C01..C23 categories of ``headings`` and the headings the tree file does not know."""
    cats, unknown = set(), []
    for h in headings:
        numbers = trees.get(h.lower())
        if numbers is None:
            unknown.append(h)
            continue
        cats.update(n[:3] for n in numbers if n[:3] in OHSUMED_CATEGORIES)
    return frozenset(cats), unknown


def _parse_medline(text: str, source: str) -> list[dict]:
    """Records of one ``ohsumed.NN`` file: ``{"line", "I", ".U", ".T", ...}`` (field text joined)."""
    records: list[dict] = []
    rec = None
    field = None
    for n, line in enumerate(_lines(text), 1):
        stripped = line.rstrip()
        if stripped.startswith(".I") and (len(stripped) == 2 or stripped[2] in " \t"):
            num = stripped[2:].strip()
            if not num.isdigit():
                raise CorpusError(f"line {n} of {source}: '.I' must be followed by the record's sequence number, "
                                  f"got {line[:40]!r}")
            rec = {"line": n, "I": int(num)}
            records.append(rec)
            field = None
        elif _MARKER.fullmatch(stripped):
            if rec is None:
                raise CorpusError(f"line {n} of {source}: field {stripped} before the first '.I' record marker")
            if stripped not in _MEDLINE_FIELDS:
                raise CorpusError(f"line {n} of {source}: unknown field {stripped!r}; expected one of "
                                  f"{', '.join(('.I',) + _MEDLINE_FIELDS)}")
            if stripped in rec:
                raise CorpusError(f"line {n} of {source}: field {stripped} repeated in the record of line "
                                  f"{rec['line']}")
            field = stripped
            rec[field] = []
        elif stripped:
            if rec is None:
                raise CorpusError(f"line {n} of {source}: text before the first '.I' record marker; expected an "
                                  "OHSUMED file (records '.I 1', '.U', '.S', '.M', '.T', '.P', '.W', '.A')")
            if field is None:
                raise CorpusError(f"line {n} of {source}: text after '.I' without a field marker ('.U', '.T', ...)")
            rec[field].append(stripped)
    for rec in records:
        for f in _MEDLINE_FIELDS:
            if f in rec:
                rec[f] = " ".join(rec[f]).strip()
        if not rec.get(".U"):
            raise CorpusError(f"line {rec['line']} of {source}: record .I {rec['I']} has no '.U' (MEDLINE id)")
    return records


def _find_mesh_trees(folder: Path) -> Path | None:
    found = sorted(p for p in folder.glob("mtrees*") if p.is_file())
    if len(found) > 1:
        raise CorpusError(f"{folder}: several MeSH tree files {[p.name for p in found]}; keep one or pass mesh_trees=")
    return found[0] if found else None


def read_ohsumed_medline(path, *, mesh_trees=None, max_bytes: int | None = DEFAULT_MAX_BYTES,
                         name: str | None = None, encoding: str | None = AUTO) -> Corpus:
    """Read original OHSUMED files (``ohsumed.87`` ... ``ohsumed.91``): one file or a folder of them.

    Parameters
    ----------
    path : path
        An ``ohsumed.NN`` file, or a folder: every ``ohsumed.NN`` in it is read in name order;
        its other files are listed in ``meta['ignored_files']``.
    mesh_trees : path, optional
        NLM's MeSH tree file; default the one ``mtrees*`` file beside the data, if any.  With it
        the labels are the categories ``C01`` ... ``C23``; without it, the MeSH main headings.
    max_bytes : int or None
        Limit on each file (``ohsumed.91`` is about 100 MB).
    encoding : str, default "auto"
        ``"auto"`` (each file's codec detected) or a codec name for every file.

    Returns
    -------
    Corpus
        Documents in file order, id = ``.U``, title = ``.T``, text = ``.W`` (empty without an
        abstract), all in 'train' (the split is the protocol's, see
        :func:`hbnlab.experiments.decampos.load_decampos_ohsumed`).  ``meta``: ``layout``
        ``"ohsumed-medline"``, ``labels`` (``"C01-C23"`` or ``"mesh-headings"``), ``files``
        (``{file: number of records}``), ``mesh_trees``, ``unknown_headings`` (count), ``encodings``,
        ``replaced_files`` and ``ignored_records`` (records without a title or abstract,
        ``{"file", "line", "reason"}``).

    Raises
    ------
    CorpusError
        Naming the file and line: a malformed record, a duplicate ``.U``, a bad tree file.
    """
    p = Path(path)
    ignored: list[dict] = []
    if p.is_dir():
        folder = p
        entries = sorted(e for e in p.iterdir() if e.is_file())
        sources = [e for e in entries if _MEDLINE_FILE.fullmatch(e.name)]
        ignored = [_ignored(e.name, "not an ohsumed.NN file") for e in entries
                   if e not in sources and not e.name.startswith("mtrees")]
        if not sources:
            raise CorpusError(f"{p}: no ohsumed.NN file (ohsumed.87 ... ohsumed.91)")
    elif p.is_file():
        folder, sources = p.parent, [p]
    else:
        raise CorpusError(f"{p}: no such file or directory (expected ohsumed.91 or a folder holding it)")
    tree_path = Path(mesh_trees) if mesh_trees is not None else _find_mesh_trees(folder)
    trees = read_mesh_trees(tree_path, max_bytes=max_bytes) if tree_path is not None else None
    docs: list[Document] = []
    first_seen: dict[str, str] = {}
    counts: dict[str, int] = {}
    ignored_records: list[dict] = []
    unknown: set = set()
    tally = EncodingTally(encoding)
    for src in sources:
        check_size(src.stat().st_size, max_bytes, str(src))
        text = tally.decode(read_regular_file(src, max_bytes), str(src), src.name)
        records = _parse_medline(text, str(src))
        counts[src.name] = len(records)
        for rec in records:
            uid, loc = rec[".U"], f"line {rec['line']} of {src}"
            if uid in first_seen:
                raise CorpusError(f"{loc}: MEDLINE id .U {uid} already used at {first_seen[uid]}")
            first_seen[uid] = loc
            title, abstract = rec.get(".T", ""), rec.get(".W", "")
            if not has_letters(f"{title} {abstract}"):
                ignored_records.append({"file": src.name, "line": rec["line"], "reason": "no title or abstract"})
                continue
            headings = _mesh_headings(rec.get(".M", ""))
            if trees is None:
                labels = frozenset(headings)
            else:
                labels, missing = _disease_categories(headings, trees)
                unknown.update(missing)
            docs.append(Document(id=uid, text=abstract, labels=labels, split="train", title=title))
    meta = {"source": str(p), "format": "ohsumed", "layout": "ohsumed-medline",
            "labels": "C01-C23" if trees is not None else "mesh-headings", "files": counts,
            "mesh_trees": str(tree_path) if tree_path is not None else None, "unknown_headings": len(unknown),
            "split": "none", "ignored_files": ignored, "ignored_records": ignored_records, **tally.meta()}
    return Corpus(name or (p.name if p.is_file() else p.resolve().name), tuple(docs), meta=meta)


def _ohsumed_tree(top: Path, max_bytes, max_file_bytes, name, encoding) -> Corpus:
    files, hidden, not_read = _walk(top, max_bytes, max_file_bytes)
    tally = EncodingTally(encoding)
    ignored = [_ignored(h, "hidden file or folder") for h in hidden] + not_read
    kinds = {d: _split_kind(d) for d in {rel.split("/", 1)[0] for rel, _ in files if "/" in rel}}
    seen: dict[str, dict] = {}
    for rel, p in files:
        parts = rel.split("/")
        if len(parts) != 3 or kinds.get(parts[0]) is None:
            ignored.append(_ignored(rel, "not in training/<category>/ or test/<category>/"))
            continue
        split, cat, doc_id = kinds[parts[0]], parts[1], parts[2]
        try:
            text = tally.decode(read_regular_file(p, max_file_bytes), str(p), rel)
        except BinaryFileError as exc:
            ignored.append(_ignored(rel, BINARY_REASON + exc.reason))
            continue
        lines = [ln.strip() for ln in _lines(text)]
        start = next((i for i, ln in enumerate(lines) if ln), None)
        if start is None or not has_letters(text):
            ignored.append(_ignored(rel, "no letters in the file"))
            continue
        title, body = lines[start], " ".join(ln for ln in lines[start + 1:] if ln)
        prev = seen.get(doc_id)
        if prev is None:
            seen[doc_id] = {"split": split, "title": title, "text": body, "labels": {cat}, "file": str(p)}
            continue
        if prev["split"] != split:
            raise CorpusError(f"{p}: document {doc_id} is in the {split} split but also in the {prev['split']} "
                              f"split ({prev['file']}); a document belongs to one split")
        if (prev["title"], prev["text"]) != (title, body):
            raise CorpusError(f"{p}: document {doc_id} differs from its copy {prev['file']} (the same id in "
                              "several category folders must be the same abstract)")
        prev["labels"].add(cat)
    if not seen:
        raise CorpusError(f"{top}: no document files under training/<category>/ or test/<category>/")
    docs = [Document(id=k, text=v["text"], labels=frozenset(v["labels"]), split=v["split"], title=v["title"])
            for k, v in sorted(seen.items(), key=lambda kv: (kv[1]["split"] != "train", kv[0]))]
    meta = {"source": str(top), "format": "ohsumed", "layout": "ohsumed-first-20000-docs", "labels": "folders",
            "split": "folders", "split_folders": kinds, "n_files": len(files), "n_documents": len(docs),
            "n_multilabel": sum(len(d.labels) > 1 for d in docs), "ignored_files": ignored, **tally.meta()}
    return Corpus(name or top.resolve().name, tuple(docs), meta=meta)


def read_ohsumed(path, *, mesh_trees=None, max_bytes: int | None = DEFAULT_MAX_BYTES,
                 max_file_bytes: int | None = MAX_FILE_BYTES, name: str | None = None,
                 encoding: str | None = AUTO) -> Corpus:
    """Read OHSUMED in either layout: ``ohsumed-first-20000-docs`` or the original ``ohsumed.NN`` files.

    ``training/<category>/<id>`` and ``test/<category>/<id>`` (``train`` / ``testing`` and
    ``*-train`` / ``*-test`` names work too) give the split and the labels; a document id in
    several category folders is one multi-label document.  Anything else is handed to
    :func:`read_ohsumed_medline` (``mesh_trees`` applies there only).

    Raises
    ------
    CorpusError
        Naming the file: a document in both splits, copies of one id that differ, no documents,
        sizes over the limits, or a malformed ``ohsumed.NN`` record (with its line).
    """
    p = Path(path)
    if p.is_dir() and _split_folders(_unwrap(p)):
        return _ohsumed_tree(_unwrap(p), max_bytes, max_file_bytes, name, encoding)
    return read_ohsumed_medline(path, mesh_trees=mesh_trees, max_bytes=max_bytes, name=name, encoding=encoding)


def detect_collection_layout(path) -> str | None:
    """Which layout ``path`` holds, looking only at names (no file is read).

    ``"reuters21578"`` (``reut2-000.sgm``), ``"ohsumed-medline"`` (an ``ohsumed.NN`` file or a
    folder with one), ``"20news-bydate"`` (a train and a test folder named ``20news*``),
    ``"ohsumed-first-20000-docs"`` (other train and test folders: ``training``, ``test``), or
    ``None``.  The split-folder layouts are also found inside wrapper folders (a folder holding
    one folder); ``reut2-000.sgm`` and ``ohsumed.NN`` must be in ``path`` itself.  A folder of
    group folders (``20news-19997``) is indistinguishable from any folder-per-class tree, so it
    gives ``None``.
    """
    p = Path(path)
    if p.is_file():
        return "ohsumed-medline" if _MEDLINE_FILE.fullmatch(p.name) else None
    if not p.is_dir():
        return None
    if (p / "reut2-000.sgm").is_file():
        return "reuters21578"
    if any(_MEDLINE_FILE.fullmatch(e.name) and e.is_file() for e in p.iterdir()):
        return "ohsumed-medline"
    top = _unwrap(p)
    named = _split_folders(top)
    if named:
        return "20news-bydate" if any(n.startswith("20news") for n in named) else "ohsumed-first-20000-docs"
    return None


def _split_folders(top: Path) -> list[str]:
    """Lower-cased names of the split folders of ``top`` when it has a train and a test one, else []."""
    kinds = {e.name.lower(): _split_kind(e.name) for e in top.iterdir() if e.is_dir() and not e.name.startswith(".")}
    if "train" in kinds.values() and "test" in kinds.values():
        return sorted(n for n, k in kinds.items() if k)
    return []
