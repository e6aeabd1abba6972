"""Reuters-21578 Distribution 1.0: a fast SGML reader and the ModApte split of the thesis.

The collection is 22 files ``reut2-000.sgm`` ... ``reut2-021.sgm`` (latin-1, 21,578
``<REUTERS>`` records).  :func:`load_reuters21578` returns the ModApte split exactly as thesis
sec. 4.1.1 describes it:

1. keep the records with ``TOPICS="YES"`` and ``LEWISSPLIT`` ``"TRAIN"`` (-> split 'train') or
   ``"TEST"`` (-> 'test'); drop ``NOT-USED`` and every ``TOPICS="NO"`` / ``"BYPASS"`` record
   (README.txt sec. VIII.B: 9,603 training and 3,299 test records);
2. labels are the ``<D>`` entries of ``<TOPICS>``;
3. keep the categories with at least one training and one test document ("following Yang and
   Liu [YL99]": 90 categories);
4. drop the documents that carry none of those 90 categories.

What this reader gets, and why it differs from the published counts
--------------------------------------------------------------------
9,603 / 3,299 ModApte records; 1,828 training and 280 test records have no TOPICS category;
5 more training records have only categories outside the 90 (``inventories``: NEWIDs 4808,
4811, 8114; ``stg``: 12096; ``wool``: 12502).  Result: **7,770 training and 3,019 test
documents, 90 categories.**  The common figures are 7,769 / 3,019 (Yang & Liu 1999, the
"ApteMod" corpus NLTK ships); the thesis reports 7,769 / 3,018.  What we checked:

* Training, 7,770 vs 7,769.  Nothing in the data marks one of our training documents as
  invalid.  The odd one out is NEWID 1199 (topic ``trade``, ``TEXT TYPE="BRIEF"`` so title only,
  date with a double space): it is the only ModApte training record whose ``<REUTERS>`` tag has
  an extra ``CSECS`` attribute in front of ``OLDID``/``NEWID``.  A reader that matches the tag's
  attributes in their usual fixed order skips exactly this record and gets 7,769.  We cannot
  confirm this offline (that would need the ApteMod id list), so it is the most likely
  explanation, not a proven one.  This reader matches attributes by name and keeps the record,
  because README.txt defines ModApte by the attribute values alone.
* Test, 3,019 vs the thesis's 3,018.  We found no cause in the data: every one of the 3,019
  test documents has letters in TITLE + BODY (``meta['no_letter_ids']`` is empty), none is
  dropped by the 90-category filter, and none has duplicate or truncated markup.  The only
  irregular test records are NEWID 17980 (the one ModApte document with a non-ASCII byte, 0xFC,
  which a strict ASCII/UTF-8 reader rejects), NEWID 15785 (a one-digit fraction of a second in
  ``<DATE>``) and NEWID 19918 (topic ``trade`` listed twice).  Any of these could have tripped
  the thesis's own pipeline, but we cannot tell which; the README asks that none of the test
  documents be screened out, so we keep all 3,019.
* Training-0 / validation: :func:`train0_validation_split` takes
  ``round(7770 * 5827 / 7769) = 5828`` training-0 documents and **1,942** validation documents.
  The validation set has the thesis's size.  The one extra training-0 document fits the NEWID
  1199 explanation: that record is dated 3 March 1987, well before the boundary (26 March).

``benchmarks/reuters_counts.py`` prints these figures and ``tests/corpus/test_reuters.py``
(slow) asserts them.

Text.  ``Document.title`` is ``<TITLE>``, ``Document.text`` is ``<BODY>``; for
``TYPE="UNPROC"`` records (no TITLE / BODY markup) ``text`` is the whole ``<TEXT>`` content.
SGML character references are decoded (``&#3;`` -> U+0003, ``&lt;`` -> ``<``, ``&amp;`` ->
``&``) and control characters other than tab / newline then become spaces; leading and
trailing white space is stripped.  ``Document.date`` comes from ``<DATE>``
(``26-FEB-1987 15:01:01.79``; trailing junk ignored; one record, NEWID 17192, has the
impossible time ``605:12:19.12`` and gets midnight of its day).

The training-0 / validation split (thesis sec. 4.1.1: 5,827 / 1,942 "according to the time of
documents") is :func:`train0_validation_split`.

Verification.  Every read checks the 22 files against the SHA-256 list shipped in
``hbnlab/data/reuters21578.sha256`` and the parsed collection against the counts of
Distribution 1.0 (:data:`REUTERS_RECORDS_PER_FILE`, :data:`REUTERS_MODAPTE_COUNTS`).  A damaged,
empty or foreign file (random bytes, UTF-16, another collection) is a :class:`CorpusError` that
names it: without the check such a file parses to zero records and the corpus silently loses a
twenty-second of its documents.  A deliberately modified copy loads with ``verify=False``, the
CLI option ``--allow-modified-reuters`` or ``HBNLAB_ALLOW_MODIFIED_REUTERS=1``; each difference
is then a warning.  Hashing the 28 MB already read costs about 40 ms, a small part of the
parse, so the digests are not cached.
"""
from __future__ import annotations

import hashlib
import os
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path

from ._common import has_letters
from .base import Corpus, CorpusError, Document
from .fetch import shipped_checksums

#: ``Corpus.name`` of Reuters-21578 ModApte (the thesis's reference values apply to it).
REUTERS_NAME = "reuters21578-modapte"

#: The 22 files of Distribution 1.0.
REUTERS_FILES = tuple(f"reut2-{i:03d}.sgm" for i in range(22))

#: ``<REUTERS>`` records per file of Distribution 1.0 (README.txt sec. VI: 1,000 each, 578 in the last).
REUTERS_RECORDS_PER_FILE = {name: 1000 for name in REUTERS_FILES[:-1]} | {REUTERS_FILES[-1]: 578}

#: What :func:`load_reuters21578` gets from Distribution 1.0 (see the module docstring).
REUTERS_MODAPTE_COUNTS = {"n_records": 21578, "n_modapte_train": 9603, "n_modapte_test": 3299,
                          "train": 7770, "test": 3019, "n_categories": 90}

#: Environment variable that, set to ``1``, makes ``verify=None`` accept modified copies.
ALLOW_MODIFIED_ENV = "HBNLAB_ALLOW_MODIFIED_REUTERS"

#: Thesis sec. 4.1.1: the training set of 7769 documents is split by time into 5827 / 1942.
THESIS_TRAIN0 = 5827
THESIS_TRAIN = 7769

_ATTR = re.compile(r'([A-Za-z]+)="([^"]*)"')
_D = re.compile(r"<D>(.*?)</D>", re.S)
_TAG = re.compile(r"<[^<>]*>")
_ENTITY = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z]+);")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_DATE_VALUE = re.compile(
    r"\s*(\d{1,2})-([A-Za-z]{3})-(\d{4})\s+(\d{1,3}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6}))?"
)
_MONTHS = {m: i + 1 for i, m in enumerate(
    ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"])}
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


def _entity(m: re.Match) -> str:
    name = m.group(1)
    if name[0] == "#":
        try:
            code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
            return chr(code)
        except (ValueError, OverflowError):
            return m.group(0)
    return _NAMED.get(name, m.group(0))


def decode_sgml(text: str) -> str:
    """Decode SGML character references and blank out control characters.

    ``&#N;`` / ``&#xH;`` become the character, ``&lt; &gt; &amp; &quot; &apos;`` their
    characters (the DTD declares ``lt`` and ``amp``); unknown references are left as written.
    Control characters other than tab and newline (the collection uses ``&#1; &#2; &#3; &#5;
    &#22; &#30; &#31; &#127;`` as wire-service framing) become spaces.

    Examples
    --------
    >>> decode_sgml("&lt;Bank of Boston&gt; &amp; Co&#3;")
    '<Bank of Boston> & Co '
    """
    if "&" in text:
        text = _ENTITY.sub(_entity, text)
    return _CONTROL.sub(" ", text)


def parse_reuters_date(value: str) -> datetime | None:
    """Parse a ``<DATE>`` value such as ``26-FEB-1987 15:01:01.79`` (trailing junk ignored).

    An impossible time of day (hour > 23 etc.) yields midnight of the day; an unparseable value
    yields ``None``.
    """
    m = _DATE_VALUE.match(value)
    if m is None:
        return None
    day, mon, year, hh, mm, ss, frac = m.groups()
    month = _MONTHS.get(mon.upper())
    if month is None:
        return None
    micro = int((frac or "0").ljust(6, "0")[:6])
    try:
        return datetime(int(year), month, int(day), int(hh), int(mm), int(ss), micro)
    except ValueError:
        try:
            return datetime(int(year), month, int(day))
        except ValueError:
            return None


def _between(s: str, open_tag: str, close_tag: str, start: int = 0) -> str | None:
    """Content between the first ``open_tag`` at/after ``start`` and the next ``close_tag``."""
    i = s.find(open_tag, start)
    if i < 0:
        return None
    i += len(open_tag)
    j = s.find(close_tag, i)
    return s[i:] if j < 0 else s[i:j]


def parse_reuters_sgml(text: str, source: str = "<string>",
                       select: Callable[[dict], bool] | None = None) -> list[dict]:
    """Parse every ``<REUTERS>`` record of one SGML file (already decoded from latin-1).

    Parameters
    ----------
    text : str
        The file's content.
    source : str
        Name used in error messages.
    select : callable, optional
        ``select(attrs) -> bool`` on the REUTERS tag's attributes; records it rejects are returned
        with only ``attrs`` and ``newid`` (their fields are not decoded -- this is what keeps
        :func:`load_reuters21578` fast).

    Returns
    -------
    list of dict
        One per record, in file order, with keys ``attrs`` (dict of the REUTERS tag's
        attributes), ``newid`` (str), ``topics`` (list of str), ``date`` (datetime or None),
        ``text_type`` ('NORM', 'BRIEF', 'UNPROC'), ``title`` and ``body`` (decoded str).

    Raises
    ------
    CorpusError
        A record without ``NEWID`` or a truncated record, naming the file and line.
    """
    records = []
    pos = 0
    while True:
        start = text.find("<REUTERS", pos)
        if start < 0:
            break
        head_end = text.find(">", start)
        end = text.find("</REUTERS>", start)
        if head_end < 0 or end < 0:
            line = text.count("\n", 0, start) + 1
            raise CorpusError(f"line {line} of {source}: <REUTERS> record without </REUTERS>; "
                              f"the file is truncated or malformed")
        pos = end + len("</REUTERS>")
        attrs = dict(_ATTR.findall(text, start, head_end))
        newid = attrs.get("NEWID")
        if not newid:
            line = text.count("\n", 0, start) + 1
            raise CorpusError(f"line {line} of {source}: <REUTERS> record without a NEWID attribute")
        if select is not None and not select(attrs):
            records.append({"attrs": attrs, "newid": newid})
            continue
        inner = text[head_end + 1 : end]
        date = _between(inner, "<DATE>", "</DATE>")
        topics_block = _between(inner, "<TOPICS>", "</TOPICS>") or ""
        topics = [decode_sgml(t).strip() for t in _D.findall(topics_block)]
        title = body = ""
        text_type = "NORM"
        t0 = inner.find("<TEXT")
        if t0 >= 0:
            t1 = inner.find(">", t0)
            text_type = dict(_ATTR.findall(inner, t0, t1)).get("TYPE", "NORM")
            t2 = inner.find("</TEXT>", t1)
            block = inner[t1 + 1 :] if t2 < 0 else inner[t1 + 1 : t2]
            ti = _between(block, "<TITLE>", "</TITLE>")
            bo = _between(block, "<BODY>", "</BODY>")
            if ti is not None:
                title = decode_sgml(ti).strip()
            if bo is not None:
                body = decode_sgml(bo).strip()
            elif text_type == "UNPROC":
                # No TITLE/BODY markup: the whole TEXT content is the document.
                body = decode_sgml(_TAG.sub(" ", block)).strip()
        records.append({
            "attrs": attrs,
            "newid": newid,
            "topics": [t for t in topics if t],
            "date": parse_reuters_date(decode_sgml(date)) if date is not None else None,
            "text_type": text_type,
            "title": title,
            "body": body,
        })
    return records


def _is_modapte(attrs: dict) -> bool:
    # README.txt sec. VIII.B: ModApte = TOPICS="YES" and LEWISSPLIT in {TRAIN, TEST}
    return attrs.get("TOPICS") == "YES" and attrs.get("LEWISSPLIT") in ("TRAIN", "TEST")


def _modapte(records: Iterable[dict], source: str) -> tuple[list[Document], dict]:
    """ModApte split + 90-category filter (thesis sec. 4.1.1); returns documents and statistics."""
    cand = []
    stats = {"n_records": 0, "n_modapte_train": 0, "n_modapte_test": 0}
    seen: dict[str, str] = {}
    for r in records:
        stats["n_records"] += 1
        a = r["attrs"]
        if r["newid"] in seen:
            raise CorpusError(f"{source}: duplicate NEWID {r['newid']!r} in {seen[r['newid']]} and {r['_file']}")
        seen[r["newid"]] = r["_file"]
        if a.get("TOPICS") != "YES":
            continue
        lewis = a.get("LEWISSPLIT")
        if lewis == "TRAIN":
            split = "train"
        elif lewis == "TEST":
            split = "test"
        else:
            continue
        stats[f"n_modapte_{split}"] += 1
        cand.append((r, split))
    tr: set = set()
    te: set = set()
    for r, split in cand:
        (tr if split == "train" else te).update(r["topics"])
    keep = tr & te
    docs = []
    dropped = {"train": {"no_topics": 0, "outside_categories": 0}, "test": {"no_topics": 0, "outside_categories": 0}}
    for r, split in cand:
        labels = frozenset(r["topics"]) & keep
        if not labels:
            dropped[split]["no_topics" if not r["topics"] else "outside_categories"] += 1
            continue
        docs.append(Document(id=r["newid"], text=r["body"], labels=labels, split=split,
                             title=r["title"], date=r["date"]))
    docs.sort(key=lambda d: int(d.id))
    stats["dropped"] = dropped
    stats["n_categories"] = len(keep)
    stats["no_letter_ids"] = [d.id for d in docs if not has_letters(d.full_text)]
    stats["n_title_only"] = {s: sum(d.split == s and not d.text for d in docs) for s in ("train", "test")}
    return docs, stats


def resolve_verify(verify: bool | None) -> bool:
    """``verify`` as given, or when ``None``: True unless ``$HBNLAB_ALLOW_MODIFIED_REUTERS`` is ``1``."""
    if verify is None:
        return os.environ.get(ALLOW_MODIFIED_ENV, "").strip() not in ("1", "true", "yes")
    return bool(verify)


_ALLOW_HINT = (f"to read a modified copy anyway pass verify=False, the CLI option --allow-modified-reuters "
               f"or set {ALLOW_MODIFIED_ENV}=1")


def _describe_foreign(data: bytes) -> str:
    """Why a file whose SHA-256 differs is not (or no longer) a Reuters-21578 SGML file."""
    if not data:
        return "the file is empty"
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or max(data[0:200:2].count(0), data[1:200:2].count(0)) > 50:
        return "the file is UTF-16 text, not the latin-1 SGML of Distribution 1.0"
    if b"<REUTERS" not in data:
        return "the file holds no <REUTERS> record (not Reuters-21578 SGML)"
    return "the file is damaged or modified"


def _differences(problems: list[str], source: str, verify: bool) -> None:
    """Raise (``verify``) or warn about the differences from Distribution 1.0 (the first three named)."""
    if not problems:
        return
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    listed = "; ".join(problems[:3]) + more
    if verify:
        raise CorpusError(f"{source}: not Reuters-21578 Distribution 1.0: {listed}; {_ALLOW_HINT}")
    warnings.warn(f"{source}: reading a modified Reuters-21578 copy: {listed}", UserWarning, stacklevel=5)


def _check_files(files: Mapping[str, bytes], source: str, verify: bool) -> None:
    sums = shipped_checksums()
    problems = []
    for name in REUTERS_FILES:
        data = files[name]
        if hashlib.sha256(data).hexdigest() != sums[name]:
            problems.append(f"{name}: SHA-256 differs from the shipped list, {_describe_foreign(data)} "
                            f"({len(data):,} bytes)")
    _differences(problems, source, verify)


def _check_counts(per_file: dict[str, int], stats: dict, docs: list[Document], source: str, verify: bool) -> None:
    got = {**{k: stats[k] for k in ("n_records", "n_modapte_train", "n_modapte_test", "n_categories")},
           "train": sum(d.split == "train" for d in docs), "test": sum(d.split == "test" for d in docs)}
    problems = [f"{k} = {got[k]}, expected {v}" for k, v in REUTERS_MODAPTE_COUNTS.items() if got[k] != v]
    problems += [f"{name}: {per_file[name]} <REUTERS> records, expected {n}"
                 for name, n in REUTERS_RECORDS_PER_FILE.items() if per_file[name] != n]
    _differences(problems, source, verify)


def _read_reuters_files(files: Mapping[str, bytes], source: str,
                        progress: Callable[[float, str], None] | None, verify: bool | None = None) -> Corpus:
    """Parse the 22 files (``{name: bytes}``), check them (:func:`resolve_verify`), apply ModApte."""
    missing = [f for f in REUTERS_FILES if f not in files]
    if missing:
        raise CorpusError(
            f"{source}: Reuters-21578 needs all 22 files reut2-000.sgm ... reut2-021.sgm; missing: "
            + ", ".join(missing)
        )
    verify = resolve_verify(verify)
    _check_files(files, source, verify)
    records: list[dict] = []
    per_file: dict[str, int] = {}
    for k, name in enumerate(REUTERS_FILES):
        if progress is not None:
            progress(k / len(REUTERS_FILES), f"parsing {name}")
        recs = parse_reuters_sgml(files[name].decode("latin-1"), source=f"{source}/{name}", select=_is_modapte)
        for r in recs:
            r["_file"] = name
        records.extend(recs)
        per_file[name] = len(recs)
    docs, stats = _modapte(records, source)
    _check_counts(per_file, stats, docs, source, verify)
    if progress is not None:
        progress(1.0, f"{len(docs)} ModApte documents")
    meta = {
        "source": source,
        "format": "reuters21578-sgml",
        "split": "ModApte (thesis sec. 4.1.1)",
        **stats,
        "encodings": {"latin-1": len(REUTERS_FILES)},  # the distribution's SGML files are latin-1
        "replaced_files": [],
    }
    return Corpus(REUTERS_NAME, tuple(docs), synthetic=False, meta=meta)


def load_reuters21578(path, *, progress: Callable[[float, str], None] | None = None,
                      verify: bool | None = None) -> Corpus:
    """Read Reuters-21578 Distribution 1.0 and return its ModApte split (thesis sec. 4.1.1).

    Parameters
    ----------
    path : str or path-like
        The directory that holds ``reut2-000.sgm`` ... ``reut2-021.sgm`` (e.g. the result of
        :func:`hbnlab.corpus.fetch_reuters21578`).
    progress : callable, optional
        Called as ``progress(fraction, message)`` with ``fraction`` in [0, 1] as files are parsed.
    verify : bool, optional
        True: a file whose SHA-256 is not the shipped one, or a collection whose record or ModApte
        counts differ from Distribution 1.0, is a CorpusError.  False: a modified copy loads and
        each difference is a warning.  None (default): True unless ``$HBNLAB_ALLOW_MODIFIED_REUTERS``
        is ``1`` (the CLI's ``--allow-modified-reuters`` sets it).

    Returns
    -------
    Corpus
        Name ``"reuters21578-modapte"``; ids are NEWIDs (strings) in increasing numeric order;
        ``meta`` holds the drop statistics (``n_modapte_train``, ``dropped``,
        ``no_letter_ids`` ...).  On Distribution 1.0: 7,770 training and 3,019 test documents
        over 90 categories (the literature says 7,769 / 3,019 and the thesis 7,769 / 3,018:
        see the module docstring).

    Raises
    ------
    CorpusError
        A missing directory or file (named), a malformed SGML file (named with the line), or with
        ``verify`` a damaged, empty or foreign file (named, with what is wrong).
    """
    root = Path(path)
    if not root.is_dir():
        raise CorpusError(f"{root}: not a directory (expected the Reuters-21578 folder holding reut2-*.sgm)")
    files = {}
    for name in REUTERS_FILES:
        p = root / name
        if p.is_file():
            files[name] = p.read_bytes()
    return _read_reuters_files(files, str(root), progress, verify)


def modapte_counts(corpus: Corpus) -> dict:
    """``{'train': n, 'test': n, 'categories': n}`` for any corpus (7769 / 3019 / 90 on Reuters).

    ``categories`` counts the labels with at least one training and one test document.
    """
    return {
        "train": sum(d.split == "train" for d in corpus.documents),
        "test": sum(d.split == "test" for d in corpus.documents),
        "categories": len(corpus.categories(min_train=1, min_test=1)),
    }


def train0_validation_split(corpus: Corpus) -> tuple[list[Document], list[Document]]:
    """Split the training documents by time into training-0 and validation (thesis sec. 4.1.1).

    The training documents are sorted by date (documents without a date go last, in corpus
    order), ties broken by id -- numerically when every id is an integer, as Reuters NEWIDs
    are, otherwise by corpus order -- and the first ``round(n_train * 5827 / 7769)`` of them form
    training-0, the rest validation.  The ratio is the thesis's 5,827 / 7,769, so the split
    has the thesis's proportions on any corpus.  On a 7,769-document ModApte training set this is
    exactly 5,827 / 1,942.  On this reader's 7,770 documents it is 5,828 / 1,942: the thesis's
    validation size plus one training-0 document (see the module docstring).

    Returns
    -------
    (train0, validation) : tuple of two lists of Document
        Both in time order.
    """
    train = [(k, d) for k, d in enumerate(corpus.documents) if d.split == "train"]
    numeric = all(d.id.isdigit() for _, d in train)

    def key(item):
        k, d = item
        if d.date is None:  # undated documents go last, in corpus order
            return (True, datetime.min, k)
        return (False, d.date, int(d.id) if numeric else k)

    ordered = [d for _, d in sorted(train, key=key)]
    n0 = int(round(len(ordered) * THESIS_TRAIN0 / THESIS_TRAIN))
    return ordered[:n0], ordered[n0:]
