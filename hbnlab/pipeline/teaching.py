"""A classroom-sized corpus: sixteen one-line news snippets, eight terms, one class (``trade``).

Small enough that every number of a clustering, an EM run or an inference fits on a screen (the
Learn page of the workbench steps through all three on it), large enough to show what the
algorithms do: two groups of terms that co-occur (*trade, tariff, import, export* in trade news;
*oil, crude, barrel* in energy news), one term shared by both (*deficit*), and documents of the
class that use only some of its words.

The snippets are written for this module (not taken from any collection).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from hbnlab.text.indexing import TermIndexer

#: the terms of the example, in column order
TEACHING_TERMS = ("trade", "tariff", "import", "export", "deficit", "oil", "crude", "barrel")

#: (text, is the document about trade?)
TEACHING_DOCUMENTS = (
    ("Trade talks stall as the tariff on steel imports rises.", 1),
    ("Export growth narrows the trade deficit.", 1),
    ("New tariff rules hit car import and export trade.", 1),
    ("The trade deficit widens on record imports.", 1),
    ("Tariff dispute: both sides threaten export curbs.", 1),
    ("Import quotas and tariff cuts agreed in trade pact.", 1),
    ("Farm export subsidies anger trade partners.", 1),
    ("Oil imports push the trade deficit higher.", 1),
    ("Crude oil rises two dollars a barrel.", 0),
    ("Crude output cut lifts oil prices.", 0),
    ("Barrel prices slip as crude stocks build.", 0),
    ("Oil export revenue falls with crude prices.", 0),
    ("Budget deficit forecast raised by the treasury.", 0),
    ("Central bank holds rates; deficit worries linger.", 0),
    ("Refinery buys crude at a discount per barrel.", 0),
    ("Shares close higher on strong earnings.", 0),
)


@dataclass(frozen=True)
class TeachingExample:
    """The indexed teaching corpus.

    Attributes
    ----------
    texts : tuple of str
    y : ndarray of int, (n_documents,)
        1 for the class ``trade``.
    terms : tuple of str
        Column names of ``X``.
    X : scipy.sparse.csr_matrix, (n_documents, n_terms)
        0/1: the term occurs in the document (lower-cased alphabetic tokens, no stemming, thesis
        sec. 4.1.2; a plural such as "imports" is a different token from "import").
    class_name : str
    """

    texts: tuple
    y: np.ndarray
    terms: tuple
    X: sp.csr_matrix
    class_name: str = "tradeTOPIC"


def teaching_example() -> TeachingExample:
    """The teaching corpus indexed over :data:`TEACHING_TERMS`.

    Examples
    --------
    >>> ex = teaching_example()
    >>> ex.X.shape, int(ex.y.sum())
    ((16, 8), 8)
    """
    texts = tuple(t for t, _ in TEACHING_DOCUMENTS)
    y = np.array([c for _, c in TEACHING_DOCUMENTS], dtype=np.int64)
    X = TermIndexer.from_vocabulary(None, TEACHING_TERMS).transform(texts)
    X = sp.csr_matrix((X > 0).astype(np.float64))
    return TeachingExample(texts, y, TEACHING_TERMS, X)


__all__ = ["TEACHING_DOCUMENTS", "TEACHING_TERMS", "TeachingExample", "teaching_example"]
