"""Reuters-21578 Distribution 1.0: the ModApte counts of thesis sec. 4.1.1 on the real files.

Needs HBNLAB_REUTERS_DIR (the ``reuters_path`` fixture fails when it is absent).  The expected
numbers and the reasons for the differences from the thesis are explained in the docstring of
``hbnlab/corpus/reuters.py``.
"""
from __future__ import annotations

import re
from collections import Counter

import pytest

from hbnlab.corpus import (
    fetch_reuters21578,
    load_corpus,
    modapte_counts,
    train0_validation_split,
)

pytestmark = pytest.mark.slow

# Thesis sec. 4.1.1: "the 10 most frequent classes ... earn, acq, money-fx, grain, crude, trade,
# interest, ship, wheat, and corn (given in the decreasing class frequency order)".
THESIS_TOP10 = ["earn", "acq", "money-fx", "grain", "crude", "trade", "interest", "ship", "wheat", "corn"]

# (train, test) per category of the ModApte split as published (Yang & Liu 1999; Joachims 1998).
PUBLISHED = {"earn": (2877, 1087), "acq": (1650, 719), "money-fx": (538, 179), "grain": (433, 149),
             "crude": (389, 189), "trade": (369, 117), "interest": (347, 131), "ship": (197, 89),
             "wheat": (212, 71), "corn": (181, 56)}


def test_modapte_counts(reuters_corpus):
    assert modapte_counts(reuters_corpus) == {"train": 7770, "test": 3019, "categories": 90}
    m = reuters_corpus.meta
    assert (m["n_records"], m["n_modapte_train"], m["n_modapte_test"]) == (21578, 9603, 3299)  # README VIII.B
    assert m["dropped"] == {"train": {"no_topics": 1828, "outside_categories": 5},
                            "test": {"no_topics": 280, "outside_categories": 0}}
    assert m["no_letter_ids"] == []          # no test document is empty: not the cause of 3018
    assert len(reuters_corpus.categories()) == 90


def test_per_category_counts_match_the_literature(reuters_corpus):
    tr, te = Counter(), Counter()
    for d in reuters_corpus.documents:
        (tr if d.split == "train" else te).update(d.labels)
    assert {c: (tr[c], te[c]) for c in PUBLISHED} == PUBLISHED
    total = tr + te
    assert [c for c, _ in total.most_common(10)] == THESIS_TOP10


def test_the_extra_training_document(reuters_corpus):
    # The 7770th training document (see the module docstring): NEWID 1199, title only, CSECS attribute.
    d = {d.id: d for d in reuters_corpus.documents}["1199"]
    assert d.split == "train" and d.labels == frozenset({"trade"}) and d.text == "" and d.title


def test_train0_validation(reuters_corpus):
    t0, val = train0_validation_split(reuters_corpus)
    assert (len(t0), len(val)) == (5828, 1942)
    assert max(d.date for d in t0) <= min(d.date for d in val)
    assert "1199" in {d.id for d in t0}


def test_text_is_clean(reuters_corpus):
    control = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
    for d in reuters_corpus.documents:
        assert d.date is not None
        assert d.labels
        for s in (d.title, d.text):
            assert not control.search(s), d.id
            assert "&lt;" not in s and "&amp;" not in s and "&#" not in s, d.id
            assert "<BODY>" not in s and "</TITLE>" not in s, d.id
    docs = {d.id: d for d in reuters_corpus.documents}
    assert docs["1"].title == "BAHIA COCOA REVIEW" and docs["1"].labels == frozenset({"cocoa"})
    assert "\u00fc" in docs["17980"].text   # the one latin-1 byte (0xFC) in ModApte


def test_shipped_checksums_match_and_dispatch(reuters_path, reuters_corpus):
    assert fetch_reuters21578(source_dir=reuters_path) == reuters_path
    assert load_corpus(reuters_path).fingerprint() == reuters_corpus.fingerprint()
