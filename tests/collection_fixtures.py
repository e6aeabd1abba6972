"""Tiny look-alikes of the distributed layouts of 20 Newsgroups and OHSUMED, written by the tests.

No real data: every message and abstract is made up from a few words per category, so the
readers' counts, labels and splits can be checked by hand and the de Campos driver runs in
well under a second.

* :func:`make_20news_bydate` -- ``20news-bydate-train/<group>/<id>`` and ``-test``: 3 groups,
  4 training + 2 test messages each, one more (latin-1) training message and a README in the
  root: 20 files, 19 documents.
* :func:`make_20news_19997` -- ``20_newsgroups/<group>/<id>`` with full headers: 3 groups x 4
  messages plus one message crossposted to ``sci.space`` and ``sci.med`` (same Message-ID,
  different file names and Xref): 14 files, 13 documents.
* :func:`make_ohsumed_first20000` -- ``ohsumed-first-20000-docs/training|test/<Cnn>/<id>``:
  6 training and 4 test documents, two of them in two category folders.
* :func:`make_ohsumed_medline` -- an ``ohsumed.91``-style file and a MeSH tree file.
"""
from __future__ import annotations

from pathlib import Path

GROUP_WORDS = {
    "sci.space": ["orbit", "shuttle", "launch", "rocket", "lunar", "satellite"],
    "rec.autos": ["engine", "dealer", "sedan", "brake", "tire", "mileage"],
    "comp.graphics": ["pixel", "render", "polygon", "shader", "bitmap", "texture"],
}
CATEGORY_WORDS = {
    "C01": ["bacteria", "infection", "sepsis", "antibiotic", "mycosis", "pathogen"],
    "C04": ["tumor", "carcinoma", "neoplasm", "metastasis", "oncology", "malignant"],
    "C14": ["cardiac", "artery", "infarction", "coronary", "heart", "vascular"],
}


def _words(words, i, n=8):
    return " ".join(words[(i + k) % len(words)] for k in range(n))


def _write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def message(subject: str, body: str, **headers) -> str:
    """A Usenet message: ``headers`` (underscores become dashes) and Subject, a blank line, the body."""
    lines = [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()] + [f"Subject: {subject}"]
    return "\n".join(lines) + "\n\n" + body + "\n"


def make_20news_bydate(root: Path) -> Path:
    """``root/20news-bydate-train/<group>/<id>`` and ``root/20news-bydate-test/<group>/<id>``."""
    n = 100
    for g, words in GROUP_WORDS.items():
        for split, count in (("train", 4), ("test", 2)):
            for i in range(count):
                n += 1
                body = (f"{_words(words, i)}\n\nIn article <x{n}@host> someone writes:\n> {_words(words, i + 1, 4)}\n"
                        f"-- \nsignature line")
                _write(root / f"20news-bydate-{split}" / g / str(n),
                       message(f"About {words[i % len(words)]}", body, From=f"user{n}@example.org",
                               Organization="Example University", Lines=5))
    # a latin-1 message (byte 0xe9 is not UTF-8 on its own)
    _write(root / "20news-bydate-train" / "rec.autos" / "999",
           b"From: caf\xe9@example.org\nSubject: caf\xe9 engine\n\nthe caf\xe9 owner sold a sedan with a new engine\n")
    _write(root / "README", "not a message\n")
    return root


def make_20news_19997(root: Path) -> Path:
    """``root/20_newsgroups/<group>/<id>`` with full headers and one crosspost; returns the folder."""
    top = root / "20_newsgroups"
    groups = ["sci.space", "rec.autos", "sci.med"]
    words = {**GROUP_WORDS, "sci.med": ["doctor", "patient", "vaccine", "symptom", "clinic", "dosage"]}
    n = 50000
    for g in groups:
        for i in range(4):
            n += 1
            _write(top / g / str(n), message(
                f"On {words[g][i]}", _words(words[g], i), Xref=f"cantaloupe.srv.cs.cmu.edu {g}:{n}",
                Path="cantaloupe.srv.cs.cmu.edu!news", From=f"u{n}@example.org", Newsgroups=g,
                Message_ID=f"<{n}@example.org>", Date="Mon, 5 Apr 1993 12:00:00 GMT", Lines=1))
    # crossposted to sci.space and sci.med: two files (different article numbers), one Message-ID
    for g, num in (("sci.space", 61000), ("sci.med", 59000)):
        _write(top / g / str(num), message(
            "Space medicine", "astronauts and doctors discuss orbit and patient care",
            Xref="cantaloupe.srv.cs.cmu.edu sci.space:61000 sci.med:59000", Path="cantaloupe!news",
            From="crosser@example.org", Newsgroups="sci.space,sci.med", Message_ID="<cross@example.org>",
            Lines=1))
    return top


def make_ohsumed_first20000(root: Path) -> Path:
    """``root/ohsumed-first-20000-docs/{training,test}/<Cnn>/<id>``; returns the collection folder."""
    top = root / "ohsumed-first-20000-docs"
    docs = {  # id -> (split, categories)
        "0000001": ("training", ["C01"]), "0000002": ("training", ["C01", "C14"]), "0000003": ("training", ["C04"]),
        "0000004": ("training", ["C04"]), "0000005": ("training", ["C14"]), "0000006": ("training", ["C14"]),
        "0010001": ("test", ["C01"]), "0010002": ("test", ["C04", "C14"]), "0010003": ("test", ["C14"]),
        "0010004": ("test", ["C04"]),
    }
    for i, (doc_id, (split, cats)) in enumerate(docs.items()):
        text = f"Title of study {doc_id} on {CATEGORY_WORDS[cats[0]][0]}.\n " + " ".join(
            _words(CATEGORY_WORDS[c], i) for c in cats) + "\n"
        for c in cats:
            _write(top / split / c / doc_id, text)
    return top


MEDLINE_RECORD = """.I {i}
.U
{uid}
.S
Am J Med 9101; 4(6):491-5
.M
{mesh}
.T
{title}
.P
JOURNAL ARTICLE.
{abstract}.A
Doe J; Roe R.
"""

#: (MeSH field, title words, abstract words or None) per record of the ohsumed.91 look-alike.
MEDLINE_RECORDS = [
    ("Heart Diseases/*DI; Human; Male.", "cardiac", "cardiac artery infarction coronary"),
    ("Neoplasms/*TH; Human.", "tumor", "tumor carcinoma neoplasm metastasis"),
    ("Bacterial Infections/*DT; Human.", "infection", None),  # no abstract: left out by the protocol
    ("Myocardial Infarction/*; Bacterial Infections/CO.", "infarction", "heart infarction sepsis artery"),
    ("Human; Support, U.S. Gov't, P.H.S.", "survey", "survey of hospital staff opinions"),
    ("Heart Diseases/*; Neoplasms/*.", "cardiac tumor", "cardiac tumor neoplasm heart"),
    ("Bacterial Infections/*DT.", "sepsis", "sepsis bacteria antibiotic infection"),
    ("Neoplasms/SU.", "carcinoma", "carcinoma tumor malignant oncology"),
    ("Myocardial Infarction/DI.", "coronary", "coronary artery heart vascular"),
    ("Bacterial Infections/PC; Unknown Heading.", "pathogen", "pathogen infection bacteria mycosis"),
]

MESH_TREES = """Heart Diseases;C14.280
Myocardial Infarction;C14.280.647.500
Myocardial Infarction;C14.907.585.500
Neoplasms;C04
Bacterial Infections;C01.252
Human;B01.050.150.900.649.801.400.112.400.400
"""


def make_ohsumed_medline(root: Path, *, name: str = "ohsumed.91", trees: bool = True) -> Path:
    """``root/<name>`` with :data:`MEDLINE_RECORDS` (.U 91000001, ...) and ``root/mtrees1991.bin``."""
    parts = []
    for i, (mesh, title, abstract) in enumerate(MEDLINE_RECORDS, 1):
        w = f".W\n{abstract}.\n" if abstract else ""
        parts.append(MEDLINE_RECORD.format(i=i, uid=91000000 + i, mesh=mesh, title=f"A study of {title}.",
                                           abstract=w))
    _write(root / name, "".join(parts))
    if trees:
        _write(root / "mtrees1991.bin", MESH_TREES)
    return root
