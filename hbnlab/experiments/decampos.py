"""Reproduction of de Campos et al.'s experiments (de Campos et al., sec. 4, Tables 1-3).

Protocol (sec. 4): every category of the collection at once, Porter stemming, the SMART stop
list, no term selection; each classifier ranks the categories of every test document.
Measures, in percent: micro and macro precision/recall breakeven, average 11-point precision of
the per-document category rankings (Av-11) and F1@1/3/5 (each document assigned its top 1/3/5
categories), micro and macro.

What the text leaves open is a :class:`DecamposProtocol` (CLI: one flag per field of
:data:`PROTOCOL_OPTIONS`): which ModApte records and categories, the stop list, Porter's variant,
whether numbers are tokens, counts or presence in the OR gate's statistics (eqs. 11-17) and
evidence (eq. 10 vs 9), how ``N_.k`` and ``N`` are totalled, whether the posterior is ranked in
float64, and the breakeven's definition for a category-ranking classifier (threshold on ranks, on
scores per category, on pooled scores or per document; linear or nearest-cut interpolation).  The
defaults, and the passages of the paper that choose them, are in the class docstring;
``benchmarks/decampos_ablation.py`` measures how far each option moves Table 1.

How the paper's tables map onto ``table=`` / ``collection=``
------------------------------------------------------------
The paper's three tables are organised by *measure* (Table 1: breakevens and Av-11; Table 2:
micro F1@k; Table 3: macro F1@k), each with a block per collection (Reuters, Ohsumed,
20 Newsgroups).  hbnlab runs one *collection* at a time: ``collection="reuters"``,
``"ohsumed"`` or ``"20newsgroups"`` (CLI: ``hbnlab reproduce decampos-table-1 --collection
...``); the older ``table=1/2/3`` (CLI targets ``decampos-table-2`` / ``-3``) numbers the same
collections in the paper's order.  Every row carries all nine measures with the paper's values
for that collection from the three tables beside them (``paper_*``).

The collections
---------------
* **Reuters-21578** (shipped as a download): ModApte, the 90 categories with at least one
  training and one test document.  The paper counts 12,902 documents, 9,603 training and 3,299
  test: every ModApte record, including the 1,828 + 280 records without a category (negatives
  for every class).  ``unlabeled="keep"`` (default) keeps them, as the paper did;
  :func:`hbnlab.corpus.load_reuters21578` (the thesis protocol) drops them.  ``category_set``
  chooses the 90 categories or the wider sets (:data:`CATEGORY_SETS`).
* **Ohsumed** (the user's copy, ``corpus_path``): "20000 medical abstracts from the MeSH
  categories (10000 for training and 10000 for testing) of the year 1991, and 23 categories" --
  Joachims (1998)'s subset: the first 20,000 records of 1991 with an abstract, the first 10,000
  for training, and the 23 top-level MeSH disease categories C01 ... C23.  Two layouts are read
  (:func:`load_decampos_ohsumed`): ``ohsumed-first-20000-docs`` (``training/<Cnn>/<id>``,
  ``test/<Cnn>/<id>``; it holds only the documents with at least one of the 23 categories, so
  its counts are below 10,000 / 10,000), and the original ``ohsumed.91`` with NLM's MeSH tree file
  (``mtreesYYYY.bin``) beside it, from which the subset is rebuilt exactly, records without any
  of the 23 categories kept as negatives (as for Reuters).
* **20 Newsgroups** (the user's copy): the paper's has "19997 articles" (``20news-19997``),
  "only the subject and the body of each message" -- :func:`hbnlab.corpus.read_20newsgroups`
  keeps ``Subject`` and the body, quoted replies included, and merges crossposted copies into
  one multi-label document.  "There is no fixed literature split": the folders' split is used
  when there is one (``20news-bydate-train`` / ``-test``), otherwise a seeded random split with
  ``test_fraction`` (default :data:`NEWSGROUPS_TEST_FRACTION` = 0.4, the proportion of the
  by-date split, 7,532 of 18,846) and ``random_state``.  The result records the split used
  (``result["corpus"]["split"]``).

Any other file or folder given as ``corpus_path`` is read by :func:`hbnlab.corpus.load_corpus`
(layout ``"generic"``).

Scores.  Breakevens pool or rank the classifiers' ``decision_function`` values: the posterior
log-odds of naive Bayes and the OR gate (monotone in the posterior, so every ranking equals the
posterior's, except that it does not round to 1.0) and Rocchio's cosine.

References
----------
T. Joachims. Text categorization with support vector machines. ECML 1998.
"""
from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, fields
from functools import lru_cache
from pathlib import Path

import numpy as np

from hbnlab.evaluation import INTERPOLATIONS, MACRO_METHODS, MICRO_METHODS

__all__ = ["reproduce_decampos_table", "format_decampos_table", "load_decampos_reuters", "load_decampos_ohsumed",
           "load_decampos_20newsgroups", "load_decampos_collection", "evaluate_scores",
           "PAPER", "PAPER_CORPORA", "COLLECTIONS", "COLLECTION_KEYS",
           "CLASSIFIERS", "MEASURES", "PAPER_SUSPECT", "NEWSGROUPS_TEST_FRACTION",
           "DecamposProtocol", "PROTOCOL_OPTIONS", "CATEGORY_SETS", "decampos_indexing", "score_decampos",
           "DIAGNOSTICS"]

COLLECTIONS = {1: "Reuters-21578", 2: "Ohsumed", 3: "20 Newsgroups"}
#: ``collection=`` (CLI ``--collection``) -> the paper's collection number.
COLLECTION_KEYS = {"reuters": 1, "ohsumed": 2, "20newsgroups": 3}
#: The documents de Campos et al. (sec. 4) report per collection.
PAPER_CORPORA = {
    1: {"n_train": 9603, "n_test": 3299, "n_categories": 90},
    2: {"n_train": 10000, "n_test": 10000, "n_categories": 23},
    3: {"n_documents": 19997, "n_categories": 20},
}
#: 20 Newsgroups without split folders: the test fraction of the seeded split (the paper gives
#: none; 0.4 is the proportion of the 20news-bydate split).
NEWSGROUPS_TEST_FRACTION = 0.4
CLASSIFIERS = ("NBayes", "Rocchio", "OR-eq12", "OR-eq17")
EXTRA_CLASSIFIERS = ("OR-eq11", "OR-eq15")
MEASURES = ("micro", "macro", "av11", "f1_1_micro", "f1_3_micro", "f1_5_micro",
            "f1_1_macro", "f1_3_macro", "f1_5_macro")


def _row(*values):
    return dict(zip(MEASURES, values))


#: de Campos et al., Tables 1-3, in percent.  Per collection and classifier:
#: Table 1 (micr.BEP, macr.BEP, Av-11), Table 2 (micr.F1@1, @3, @5), Table 3 (macr.F1@1, @3, @5).
PAPER = {
    1: {
        "NBayes":  _row(73.485, 26.407, 84.501, 75.931, 49.195, 35.170, 39.148, 28.935, 23.116),
        "Rocchio": _row(47.183, 42.185, 84.501, 70.047, 47.399, 34.979, 39.148, 28.935, 23.116),
        "OR-eq12": _row(66.649, 55.917, 81.736, 67.297, 45.352, 33.493, 11.263, 20.092, 26.404),
        "OR-eq17": _row(76.555, 54.370, 89.725, 75.369, 51.461, 36.825, 45.762, 39.169, 30.959),
    },
    2: {
        "NBayes":  _row(58.643, 49.830, 76.601, 53.553, 53.979, 42.718, 40.627, 47.260, 40.732),
        "Rocchio": _row(42.315, 44.791, 68.194, 46.064, 46.313, 40.912, 45.421, 50.604, 44.945),
        "OR-eq12": _row(48.017, 58.792, 64.739, 41.676, 46.329, 40.292, 19.980, 42.017, 45.870),
        "OR-eq17": _row(53.122, 56.450, 72.925, 49.048, 50.883, 42.773, 43.602, 53.615, 50.103),
    },
    3: {
        "NBayes":  _row(71.778, 73.629, 88.834, 80.881, 48.705, 33.212, 80.985, 54.983, 39.048),
        "Rocchio": _row(60.940, 63.875, 86.583, 77.233, 48.323, 33.153, 77.095, 54.086, 39.113),
        "OR-eq12": _row(80.732, 81.333, 87.889, 81.000, 47.266, 32.614, 80.880, 58.083, 44.502),
        "OR-eq17": _row(77.689, 79.779, 86.208, 77.858, 47.284, 32.695, 78.682, 59.099, 44.722),
    },
}

#: Entries of the paper that repeat another row digit for digit -- almost certainly copy errors
#: in the published tables, so a gap there says nothing: Reuters Rocchio's Av-11 equals
#: NBayes's (Table 1) and its three macro F1@k equal NBayes's (Table 3).
PAPER_SUSPECT = {1: {"Rocchio": ("av11", "f1_1_macro", "f1_3_macro", "f1_5_macro")}}


# --------------------------------------------------------------------------- the protocol's open choices
#: ModApte categories kept (``category_set``): with at least one training and one test record
#: (the paper's 90), with at least one training record, or with any ModApte record.
CATEGORY_SETS = {"train-and-test": (1, 1), "train": (1, 0), "any": (0, 0)}

#: Every choice the paper's text leaves open (or states in words that admit several readings),
#: ``field -> (values, meaning)``; the first value is the default (:class:`DecamposProtocol`).
#: The CLI flags are ``--field-name`` (underscores as dashes), read from this table.
PROTOCOL_OPTIONS = {
    "unlabeled": (("keep", "drop"),
                  "Reuters: ModApte records without any kept category -- negatives for every category, or dropped"),
    "category_set": (tuple(CATEGORY_SETS),
                     "Reuters: categories with >= 1 training and >= 1 test record (90), >= 1 training record, "
                     "or any ModApte record"),
    "stoplist": (("smart", "sklearn", "thesis", "none"), "stop list (hbnlab.text.stopwords)"),
    "stemmer": (("porter", "porter2", "none"), "Porter (1980), Porter's revised English (Snowball) stemmer, none"),
    "tokens": (("letters", "alphanumeric"), "tokens: runs of letters, or of letters and digits (numbers kept)"),
    "or_evidence": (("counts", "presence"), "OR gate inference: n_jk replicated term nodes (eq. 10) or "
                                            "presence (eq. 9)"),
    "or_statistics": (("counts", "presence"), "OR gate weights (eqs. 11-17): N_ik as word occurrences or as "
                                              "numbers of documents"),
    "term_totals": (("classes", "documents"), "NB and OR gate: N_.k = sum_i N_ik and N = sum_k N_.k (the paper's "
                                              "formula), or occurrences in all training documents"),
    "nb_model": (("binary", "one-of-n"), "naive Bayes: n binary class variables (eq. 6 for the complement), or "
                                         "one class variable with n values (eqs. 3-5, posterior normalised over "
                                         "the categories)"),
    "scores": (("log-odds", "probability"), "NB and OR gate rankings by the posterior log-odds (the exact order "
                                            "of the posterior), or by the float64 posterior (ties where it "
                                            "rounds to 1)"),
    "micro_bep": (("ranks",) + tuple(m for m in MICRO_METHODS if m != "ranks"),
                  "micro breakeven: threshold on the category rank k, on each category's score, one score "
                  "threshold for all pairs, or one per document (hbnlab.evaluation.micro_breakeven)"),
    "macro_bep": (("ranks",) + tuple(m for m in MACRO_METHODS if m != "ranks"),
                  "macro breakeven: mean over categories with rank or score thresholds, or over documents "
                  "(hbnlab.evaluation.macro_breakeven)"),
    "bep_interpolation": (INTERPOLATIONS, "breakeven where no cut reaches P = R: TP interpolated linearly, or "
                                          "(P + R) / 2 at the cut nearest to it"),
    "av11": (("documents", "all-documents", "categories"),
             "Av-11 over the per-document category rankings (documents without a category left out), the same "
             "with those documents scored 0, or over the per-category document rankings"),
}


@dataclass(frozen=True)
class DecamposProtocol:
    """The choices of de Campos et al.'s protocol (sec. 4) that the paper leaves open.

    The defaults are the reading the paper's text supports best:

    * ``unlabeled="keep"``, ``category_set="train-and-test"``: "Reuters-21578 (ModApte split)
      contains 12,902 documents (9603 for training and 3299 for testing) and 90 categories (with
      at least 1 training and 1 test documents)" -- 9,603 / 3,299 are the counts of *every* ModApte
      record, 1,828 / 280 of them without any of the 90 categories, so those are kept; 90 is the
      train-and-test rule.
    * ``stoplist="smart"``, ``stemmer="porter"``: "stemming (Porter's algorithm) and stopword
      removal (SMART's system 571 stopword list)".  hbnlab's SMART list has 571 lines and 570
      distinct words ("would" twice), so it is the 571-entry list itself.  Porter's 1980 algorithm,
      not the later Porter2, is "Porter's algorithm" of a 2000s paper.
    * ``tokens="letters"``: the paper does not say how numbers are tokenised; hbnlab's indexing
      keeps runs of letters, as the thesis (Karčiauskas 2002) does.
    * ``or_evidence="counts"``, ``or_statistics="counts"``: eq. 10 is introduced "in order to
      take into account the number of times a word t_k occurs in a document", and the weights
      need "N_ik ... the number of times each term t_k appears in documents of each class c_i, the
      same required by multinomial naive Bayes".
    * ``term_totals="classes"``: the paper defines ``N_.k = sum_{c_i} N_ik`` (after eq. 6) and
      closes sec. 3.2 with "the set of sufficient statistics necessary to compute the weights are
      N_ik for all t_k, c_i": the totals come from the class-term table, so a document without a
      category adds nothing and a document with two adds twice.  Naive Bayes (eq. 6) uses the
      same totals.
    * ``nb_model="binary"``: sec. 2 describes both naive Bayes models and then gives eq. 6, the
      complement class of the binary decomposition, "a quite common transformation ... especially
      for multilabel problems" -- and Reuters is multi-label.
    * ``scores="log-odds"``: categories are ranked "in decreasing order of probability"; the
      log-odds give exactly that order, where the float64 posterior rounds large ones to 1 and
      ties them (``scores="probability"`` shows how much that would move the figures).
    * ``micro_bep="ranks"``, ``macro_bep="ranks"``: "the classification process will generate an
      ordered list of possible categories, in decreasing order of probability, instead of a
      definite assignment of categories to each document" -- "an instance of the so-called
      category-ranking classifiers" (footnote 3) -- and the breakeven is "the point where
      precision equals recall, by moving a threshold" (footnote 4).  The threshold a category
      ranking offers is the rank ``k`` (assign each document its top ``k`` categories), the same
      assignment the paper's F1@k uses; micro pools the contingency tables of all categories,
      macro averages the per-category breakevens, as "computed in micro-average and
      macro-average" says of BEP and F1 alike.
    * ``av11="documents"``: the 11-point precision of footnote 5 is taken on the "ordered list of
      possible categories" of each document and averaged over the documents; a document without
      a category has no recall levels, so it is left out.
    * ``bep_interpolation="linear"``: footnote 4 asks for the point where P equals R; with rank
      thresholds the assignments grow in steps of a whole collection, and the linear
      interpolation of ``TP`` is the only reading that lands on P = R (it is also the expected
      value when the tied block is put in random order).
    """

    unlabeled: str = "keep"
    category_set: str = "train-and-test"
    stoplist: str = "smart"
    stemmer: str = "porter"
    tokens: str = "letters"
    or_evidence: str = "counts"
    or_statistics: str = "counts"
    term_totals: str = "classes"
    nb_model: str = "binary"
    scores: str = "log-odds"
    micro_bep: str = "ranks"
    macro_bep: str = "ranks"
    bep_interpolation: str = "linear"
    av11: str = "documents"

    def __post_init__(self):
        for f in fields(self):
            values = PROTOCOL_OPTIONS[f.name][0]
            if getattr(self, f.name) not in values:
                raise ValueError(f"{f.name} must be one of {values}, got {getattr(self, f.name)!r}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> DecamposProtocol:
        """Inverse of :meth:`to_dict`; unknown keys are an error naming them."""
        unknown = sorted(set(d) - set(PROTOCOL_OPTIONS))
        if unknown:
            raise ValueError(f"unknown protocol option(s) {unknown}; expected a subset of {list(PROTOCOL_OPTIONS)}")
        return cls(**d)

    def changes(self) -> dict:
        """The options that differ from the default, ``{field: value}``."""
        default = DecamposProtocol()
        return {k: v for k, v in self.to_dict().items() if getattr(default, k) != v}


def decampos_indexing(protocol: DecamposProtocol | None = None):
    """The :class:`hbnlab.text.IndexingConfig` of the protocol: its stop list, stemmer and tokens,
    every term of the training documents ("No term selection was carried out"), counts."""
    from hbnlab.text import IndexingConfig

    p = protocol or DecamposProtocol()
    return IndexingConfig(stopwords=p.stoplist, stemming=None if p.stemmer == "none" else p.stemmer,
                          tokens=p.tokens, min_df=1, binary=False)


# --------------------------------------------------------------------------- data
@lru_cache(maxsize=2)
def _modapte_records(root: str) -> tuple:
    """``(record, split)`` of every ModApte record of Reuters-21578 at ``root``, parsed once."""
    from hbnlab.corpus import CorpusError
    from hbnlab.corpus.reuters import REUTERS_FILES, parse_reuters_sgml

    path = Path(root)
    missing = [f for f in REUTERS_FILES if not (path / f).is_file()]
    if missing:
        raise CorpusError(f"{path}: Reuters-21578 needs reut2-000.sgm ... reut2-021.sgm; missing: "
                          + ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else ""))

    def modapte(attrs):  # README.txt sec. VIII.B
        return attrs.get("TOPICS") == "YES" and attrs.get("LEWISSPLIT") in ("TRAIN", "TEST")

    recs = []
    for name in REUTERS_FILES:
        text = (path / name).read_bytes().decode("latin-1")
        recs.extend((r, "train" if r["attrs"]["LEWISSPLIT"] == "TRAIN" else "test")
                    for r in parse_reuters_sgml(text, source=str(path / name), select=modapte)
                    if modapte(r["attrs"]))
    return tuple(recs)


def load_decampos_reuters(reuters_dir, *, include_unlabeled: bool = True, category_set: str = "train-and-test"):
    """Reuters-21578 ModApte as de Campos et al. use it: 9,603 / 3,299 records, 90 categories.

    Every record with ``TOPICS="YES"`` and ``LEWISSPLIT`` TRAIN/TEST is kept; labels are its
    topics among the categories of ``category_set`` (:data:`CATEGORY_SETS`; default those with at
    least one training and one test record).  With ``include_unlabeled=False`` the records without
    such a label are dropped, which with the default categories gives the thesis's corpus
    (:func:`hbnlab.corpus.load_reuters21578`).  The SGML is parsed once per directory and process.
    """
    from hbnlab.corpus import Corpus, Document

    if category_set not in CATEGORY_SETS:
        raise ValueError(f"category_set must be one of {tuple(CATEGORY_SETS)}, got {category_set!r}")
    root = Path(reuters_dir)
    recs = _modapte_records(str(root.resolve()))
    tr: dict[str, int] = {}
    te: dict[str, int] = {}
    for r, split in recs:
        for t in r["topics"]:
            target = tr if split == "train" else te
            target[t] = target.get(t, 0) + 1
    min_train, min_test = CATEGORY_SETS[category_set]
    keep = {t for t in set(tr) | set(te) if tr.get(t, 0) >= min_train and te.get(t, 0) >= min_test}
    docs = []
    for r, split in recs:
        labels = frozenset(r["topics"]) & keep
        if labels or include_unlabeled:
            docs.append(Document(id=r["newid"], text=r["body"], labels=labels, split=split,
                                 title=r["title"], date=r["date"]))
    docs.sort(key=lambda d: int(d.id))
    meta = {"source": str(root), "layout": "reuters21578-modapte", "split": "ModApte, de Campos et al. sec. 4",
            "n_categories": len(keep), "category_set": category_set,
            "include_unlabeled": bool(include_unlabeled)}
    name = "reuters21578-modapte-decampos" + ("" if category_set == "train-and-test" else f"-{category_set}")
    return Corpus(name, tuple(docs), meta=meta)


def load_decampos_ohsumed(path, *, n_train: int = 10_000, n_test: int = 10_000, mesh_trees=None,
                          encoding: str = "auto"):
    """Ohsumed as de Campos et al. use it (Joachims 1998's subset), from either layout.

    * ``ohsumed-first-20000-docs`` (``training/<Cnn>/<id>``, ``test/<Cnn>/<id>``): read as it is
      (:func:`hbnlab.corpus.read_ohsumed`); the split and the categories are the folders'.
    * ``ohsumed.91`` (the file, or a folder holding it) with a MeSH tree file beside it or as
      ``mesh_trees``: the first ``n_train`` records with an abstract are the training set, the next
      ``n_test`` the test set, labelled with their categories among C01 ... C23 (records with none
      of them stay, as negatives).

    ``encoding`` (``"auto"`` or a codec name) goes to the reader.  Returns ``None`` when ``path``
    is in neither layout.

    Raises
    ------
    CorpusError
        ``ohsumed.91`` without a MeSH tree file, or with fewer than ``n_train + n_test`` records
        with an abstract; a folder of other ``ohsumed.NN`` files only.
    """
    from dataclasses import replace

    from hbnlab.corpus import Corpus, CorpusError, detect_collection_layout, read_ohsumed, read_ohsumed_medline

    layout = detect_collection_layout(path)
    if layout == "ohsumed-first-20000-docs":
        return read_ohsumed(path, encoding=encoding)
    if layout != "ohsumed-medline":
        return None
    p = Path(path)
    src = p / "ohsumed.91" if p.is_dir() else p
    if not src.is_file():
        raise CorpusError(f"{p}: Joachims's Ohsumed subset (de Campos et al. sec. 4) is taken from ohsumed.91, "
                          "which this folder does not hold")
    full = read_ohsumed_medline(src, mesh_trees=mesh_trees, encoding=encoding)
    if full.meta["labels"] != "C01-C23":
        raise CorpusError(f"{src}: mapping MeSH headings to the 23 categories C01 ... C23 needs NLM's MeSH tree "
                          "file (mtreesYYYY.bin, lines 'Heading;C14.280') in the same folder, or mesh_trees=")
    with_abstract = [d for d in full.documents if d.text.strip()]
    if len(with_abstract) < n_train + n_test:
        raise CorpusError(f"{src}: {len(with_abstract)} records with an abstract; the protocol takes the first "
                          f"{n_train} for training and the next {n_test} for testing")
    docs = [replace(d, split="train" if i < n_train else "test")
            for i, d in enumerate(with_abstract[:n_train + n_test])]
    meta = {**full.meta, "split": f"the first {n_train} records of {src.name} with an abstract for training, "
                                  f"the next {n_test} for testing (Joachims 1998)"}
    return Corpus(f"ohsumed91-first{n_train + n_test}", tuple(docs), meta=meta)


def load_decampos_20newsgroups(path, *, test_fraction: float = NEWSGROUPS_TEST_FRACTION, random_state: int = 0,
                               encoding: str = "auto"):
    """20 Newsgroups as de Campos et al. use it: subject and body, the folders' split or a seeded one.

    :func:`hbnlab.corpus.read_20newsgroups` reads the folders (crossposts merged); without
    split folders ``round(n * test_fraction)`` documents, drawn by a ``random_state``-seeded
    permutation, form the test set (a group left without training documents gets one back).
    """
    from hbnlab.corpus import read_20newsgroups

    if not 0.0 < float(test_fraction) < 1.0:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    return read_20newsgroups(path, test_fraction=test_fraction, random_state=random_state, encoding=encoding)


def load_decampos_collection(table: int, path, *, include_unlabeled: bool = True,
                             category_set: str = "train-and-test", test_fraction=None, random_state: int = 0,
                             encoding: str = "auto"):
    """The user's copy of collection ``table`` at ``path``, read by the reader of its layout
    (``encoding``: ``"auto"`` or a codec name, for every layout but Reuters-21578's latin-1).

    Returns ``(corpus, layout)``; a path in no layout of that collection is read by
    :func:`hbnlab.corpus.load_corpus` and the layout is ``"generic"``.
    """
    from hbnlab.corpus import detect_collection_layout, load_corpus

    p = Path(path)
    corpus = None
    if table == 1 and detect_collection_layout(p) == "reuters21578":
        corpus = load_decampos_reuters(p, include_unlabeled=include_unlabeled, category_set=category_set)
    elif table == 2:
        corpus = load_decampos_ohsumed(p, encoding=encoding)
    elif table == 3 and p.is_dir() and detect_collection_layout(p) not in ("reuters21578", "ohsumed-medline"):
        fraction = NEWSGROUPS_TEST_FRACTION if test_fraction is None else test_fraction
        corpus = load_decampos_20newsgroups(p, test_fraction=fraction, random_state=random_state,
                                            encoding=encoding)
    if corpus is None:
        return load_corpus(str(p), encoding=encoding), "generic"
    return corpus, corpus.meta["layout"]


def _split_record(meta: dict) -> dict:
    """How a corpus that came with a test set was split, from its reader's ``meta``."""
    split = meta.get("split")
    if split == "seeded":
        return {"kind": "seeded", "test_fraction": meta.get("test_fraction"), "random_state": meta.get("random_state"),
                "description": "round(n * test_fraction) documents of a random_state-seeded permutation to test "
                               "(hbnlab.corpus.read_20newsgroups)"}
    if split == "folders":
        return {"kind": "folders", "folders": meta.get("split_folders", {})}
    return {"kind": "given", "description": str(split) if split is not None else "the corpus's own split"}


def _split_if_needed(corpus, test_fraction, random_state):
    """``(corpus, split record)``: the corpus's own split, or a seeded one when it has no test set."""
    if corpus.test:
        return corpus, _split_record(corpus.meta)
    if test_fraction is None:
        raise ValueError(f"corpus {corpus.name!r} has no test documents; pass test_fraction (e.g. 0.5) "
                         "for a random split (20 Newsgroups has no standard split, de Campos sec. 4)")
    if not 0.0 < float(test_fraction) < 1.0:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    from dataclasses import replace

    rng = np.random.default_rng(random_state)
    is_test = rng.random(len(corpus)) < float(test_fraction)
    docs = [replace(d, split="test" if t else "train") for d, t in zip(corpus.documents, is_test)]
    split = {"kind": "seeded", "test_fraction": float(test_fraction), "random_state": random_state,
             "description": "each document to test with probability test_fraction (numpy default_rng)"}
    return corpus.subset(docs, name=f"{corpus.name}-split{test_fraction:g}-seed{random_state}"), split


def _make(name, protocol, rocchio_beta, rocchio_gamma):
    from hbnlab.models.multinomial_nb import MultinomialNBClassifier
    from hbnlab.models.or_gate import NoisyORClassifier
    from hbnlab.models.rocchio import RocchioClassifier

    if name == "NBayes":
        return MultinomialNBClassifier(alpha=1.0, totals=protocol.term_totals)
    if name == "Rocchio":
        return RocchioClassifier(beta=rocchio_beta, gamma=rocchio_gamma)
    if name.startswith("OR-eq"):
        return NoisyORClassifier(weights=name[3:], counts=protocol.or_evidence == "counts", totals=protocol.term_totals)
    raise ValueError(f"unknown classifier {name!r}; expected one of {CLASSIFIERS + EXTRA_CLASSIFIERS}")


def score_decampos(X_train, Y_train, X_test, classifiers=CLASSIFIERS, protocol: DecamposProtocol | None = None, *,
                   rocchio_beta: float = 16.0, rocchio_gamma: float = 4.0) -> dict:
    """Fit each classifier on ``(X_train, Y_train)`` (term counts) and score ``X_test``.

    The OR gates see the protocol's statistics: with ``or_statistics="presence"`` they are fitted
    on the 0/1 presence matrix, so ``N_ik`` counts documents (eqs. 11-17); ``or_evidence`` is
    their ``counts`` (eq. 10 or eq. 9).  ``nb_model="one-of-n"`` scores naive Bayes by the
    log-odds of the posterior of one class variable (:func:`hbnlab.models.multinomial_nb.one_of_n_log_odds`).
    With ``scores="probability"`` naive Bayes and the OR
    gates report the float64 posterior instead of its log-odds.  A category without a training
    document (``category_set="any"``) cannot be learnt: it is scored below every other category
    of every document.  Returns ``{name: (S, fit_seconds, score_seconds)}``.
    """
    from scipy.special import expit

    from hbnlab.models.multinomial_nb import as_count_matrix, one_of_n_log_odds, presence_pattern
    from hbnlab.models.or_gate import LOG_FLOOR

    p = protocol or DecamposProtocol()
    Y_train = np.asarray(Y_train, dtype=bool)
    learnable = Y_train.any(axis=0)
    out = {}
    for name in classifiers:
        model = _make(name, p, rocchio_beta, rocchio_gamma)
        X_fit = X_train
        if name.startswith("OR-eq") and p.or_statistics == "presence":
            X_fit = presence_pattern(as_count_matrix(X_train))
        ta = time.perf_counter()
        model.fit(X_fit, Y_train[:, learnable])
        tb = time.perf_counter()
        if name == "NBayes" and p.nb_model == "one-of-n":
            S_fit = one_of_n_log_odds(model.joint_log_likelihood(X_test))
            S_fit = np.clip(S_fit, LOG_FLOOR, -LOG_FLOOR)  # a single category: certain
        else:
            S_fit = model.decision_function(X_test)
        if p.scores == "probability" and name != "Rocchio":
            S_fit = expit(S_fit)  # the posterior p(c_i | d) in float64
        S = np.full((S_fit.shape[0], Y_train.shape[1]), float(S_fit.min()) - 1.0 if S_fit.size else 0.0)
        S[:, learnable] = S_fit
        out[name] = (S, tb - ta, time.perf_counter() - tb)
    return out


#: Reported beside the nine measures: every micro and macro breakeven definition (with the
#: protocol's interpolation), Av-11 with the documents without a category scored 0 and Av-11 of
#: the per-category document rankings.
DIAGNOSTICS = tuple(f"micro_{m}" for m in MICRO_METHODS) + tuple(f"macro_{m}" for m in MACRO_METHODS) \
    + ("av11_all_docs", "av11_categories")


def evaluate_scores(Y, S, protocol: DecamposProtocol | None = None) -> dict:
    """The nine measures of de Campos et al. in percent for labels ``Y`` and scores ``S``.

    ``micro`` and ``macro`` are the breakevens the protocol names (``micro_bep``, ``macro_bep``,
    ``bep_interpolation``) and ``av11`` its ``av11``; :data:`DIAGNOSTICS` give the others beside them.
    """
    from hbnlab.evaluation import eleven_point_average_precision, f1_at_k, macro_breakeven, micro_breakeven

    p = protocol or DecamposProtocol()
    interp = p.bep_interpolation
    diag = {f"micro_{m}": micro_breakeven(Y, S, m, interpolation=interp) for m in MICRO_METHODS}
    diag.update({f"macro_{m}": macro_breakeven(Y, S, m, interpolation=interp) for m in MACRO_METHODS})
    per_doc = eleven_point_average_precision(Y, S, per_document=True)
    av11 = {"documents": float(np.nanmean(per_doc)) if np.any(~np.isnan(per_doc)) else float("nan"),
            "all-documents": float(np.nan_to_num(per_doc, nan=0.0).mean()),
            "categories": eleven_point_average_precision(np.asarray(Y).T, np.asarray(S).T)}
    out = {"micro": diag[f"micro_{p.micro_bep}"], "macro": diag[f"macro_{p.macro_bep}"], "av11": av11[p.av11]}
    for k in (1, 3, 5):
        for avg in ("micro", "macro"):
            out[f"f1_{k}_{avg}"] = f1_at_k(Y, S, min(k, Y.shape[1]), average=avg)
    out.update(diag)
    out["av11_all_docs"] = av11["all-documents"]
    out["av11_categories"] = av11["categories"]
    return {key: round(100.0 * float(v), 3) for key, v in out.items()}


# --------------------------------------------------------------------------- the experiment
#: What the collection readers record about their input, copied into the result.
_READER_KEYS = ("source", "n_files", "n_documents", "n_multilabel", "crossposts", "ignored_files", "ignored_records",
                "encodings", "replaced_files", "labels", "mesh_trees", "unknown_headings", "files")

def reproduce_decampos_table(table: int | None = None, reuters_dir=None, *, collection: str | None = None,
                             corpus_path=None, corpus=None, classifiers=CLASSIFIERS,
                             protocol: DecamposProtocol | None = None, rocchio_beta: float = 16.0,
                             rocchio_gamma: float = 4.0, test_fraction=None, random_state: int = 0, log=None,
                             encoding: str = "auto") -> dict:
    """Run de Campos et al.'s comparison on one collection and put the paper's values beside ours.

    Parameters
    ----------
    table : {1, 2, 3}, optional
        The collection, in the paper's order: 1 Reuters-21578, 2 Ohsumed, 3 20 Newsgroups (see
        the module docstring for how the paper's measure tables map onto this).  Default: the
        one ``collection`` names, else 1.
    reuters_dir : path, optional
        Reuters-21578 Distribution 1.0 (table 1 without ``corpus_path``); default
        ``$HBNLAB_REUTERS_DIR``.
    collection : {"reuters", "ohsumed", "20newsgroups"}, optional
        The collection by name (:data:`COLLECTION_KEYS`); must agree with ``table`` if both are given.
    corpus_path : path, optional
        The user's copy of the collection, read by :func:`load_decampos_collection`: the layouts
        of the module docstring, else any format :func:`hbnlab.corpus.load_corpus` reads.
    corpus : hbnlab.corpus.Corpus, optional
        An already loaded corpus (any table; overrides the paths).
    classifiers : sequence of str
        Among ``NBayes``, ``Rocchio``, ``OR-eq11``, ``OR-eq12``, ``OR-eq15``, ``OR-eq17``.
    protocol : DecamposProtocol, optional
        The choices the paper leaves open (:data:`PROTOCOL_OPTIONS`); default the reading its text
        supports best (see :class:`DecamposProtocol`).  ``unlabeled`` and ``category_set`` apply
        to Reuters-21578 ModApte; the others to every collection.
    rocchio_beta, rocchio_gamma : float
        Rocchio's positive / negative centroid weights (the paper does not give them).
    test_fraction : float, optional
        For a corpus without test documents: the fraction drawn at random (with
        ``random_state``) for testing.  20 Newsgroups defaults to :data:`NEWSGROUPS_TEST_FRACTION`;
        the other collections have a split and refuse a corpus without one unless it is given.
    log : callable, optional
        Progress messages (e.g. ``print``).
    encoding : str, default "auto"
        Text encoding of the files at ``corpus_path``: detected file by file, or a codec name.

    Returns
    -------
    dict
        ``{"rows": [...], "corpus": {...}}``; each row has ``classifier``, ``n_features`` (0:
        all terms), the nine measures (percent), ``paper_<measure>`` where the paper has a value,
        ``seconds`` (training + scoring), ``fit_seconds``, ``score_seconds``, and the
        :data:`DIAGNOSTICS`: every micro and macro breakeven definition and ``av11_all_docs`` (Av-11
        with documents without a category scored 0 rather than left out).  ``corpus`` names the
        ``collection`` (and its ``collection_key``), the ``corpus_path``, the ``layout`` read, the
        ``split`` used (``kind`` ``"seeded"`` with ``test_fraction`` and ``random_state``,
        ``"folders"`` or ``"given"``), the counts beside the paper's (``paper_corpus``) and what
        the reader left out (``reader``: ignored files, merged crossposts, ...).
    """
    from hbnlab.text import index_corpus

    log = log or (lambda *_: None)
    protocol = protocol or DecamposProtocol()
    if not isinstance(protocol, DecamposProtocol):
        raise ValueError(f"protocol must be a DecamposProtocol, got {type(protocol).__name__}")
    include_unlabeled = protocol.unlabeled == "keep"
    if collection is not None:
        if collection not in COLLECTION_KEYS:
            raise ValueError(f"collection must be one of {', '.join(COLLECTION_KEYS)}, got {collection!r}")
        if table is not None and table != COLLECTION_KEYS[collection]:
            raise ValueError(f"table={table!r} ({COLLECTIONS.get(table, '?')}) contradicts "
                             f"collection={collection!r}; give one of them")
        table = COLLECTION_KEYS[collection]
    table = 1 if table is None else table
    if table not in COLLECTIONS:
        raise ValueError(f"table must be 1 (Reuters-21578), 2 (Ohsumed) or 3 (20 Newsgroups), got {table!r}")
    unknown = [c for c in classifiers if c not in CLASSIFIERS + EXTRA_CLASSIFIERS]
    if unknown:
        raise ValueError(f"unknown classifier(s) {unknown}; expected names among "
                         f"{CLASSIFIERS + EXTRA_CLASSIFIERS}")
    t0 = time.perf_counter()
    layout = "in-memory"
    if corpus is None:
        if table == 1 and corpus_path is None:
            reuters_dir = reuters_dir or os.environ.get("HBNLAB_REUTERS_DIR")
            if not reuters_dir:
                raise ValueError("table 1 needs Reuters-21578: pass reuters_dir or set HBNLAB_REUTERS_DIR")
            corpus = load_decampos_reuters(reuters_dir, include_unlabeled=include_unlabeled,
                                           category_set=protocol.category_set)
            layout = "reuters21578-modapte"
        elif corpus_path is None:
            raise ValueError(
                f"table {table} ({COLLECTIONS[table]}) needs a corpus hbnlab does not ship: pass "
                f"corpus_path (CLI: --corpus PATH) pointing at your copy of {COLLECTIONS[table]} "
                "(its distributed layout, a folder per class, CSV/JSONL/Parquet table or ZIP)")
        else:
            corpus, layout = load_decampos_collection(table, corpus_path, include_unlabeled=include_unlabeled,
                                                      category_set=protocol.category_set,
                                                      test_fraction=test_fraction, random_state=random_state,
                                                      encoding=encoding)
    if test_fraction is None and table == 3:
        test_fraction = NEWSGROUPS_TEST_FRACTION
    reader_meta = dict(corpus.meta)
    corpus, split = _split_if_needed(corpus, test_fraction, random_state)
    load_s = time.perf_counter() - t0
    cfg = decampos_indexing(protocol)
    categories = None
    if corpus.meta.get("layout") == "reuters21578-modapte":
        categories = corpus.categories(*CATEGORY_SETS[protocol.category_set])
    t1 = time.perf_counter()
    ic = index_corpus(corpus, cfg, categories=categories)
    index_s = time.perf_counter() - t1
    log(f"{COLLECTIONS[table]}: {len(ic.train_docs)} train / {len(ic.test_docs)} test documents, "
        f"{len(ic.categories)} categories, {ic.n_terms} terms  [load {load_s:.1f}s, index {index_s:.1f}s]")
    Y_train, Y_test = ic.Y_train, ic.Y_test
    rows = []
    scores = score_decampos(ic.X_train, Y_train, ic.X_test, classifiers, protocol,
                            rocchio_beta=rocchio_beta, rocchio_gamma=rocchio_gamma)
    for name, (S, fit_s, score_s) in scores.items():
        row = {"classifier": name, "n_features": 0, **evaluate_scores(Y_test, S, protocol)}
        paper = PAPER.get(table, {}).get(name)
        if paper is not None:
            row.update({f"paper_{k}": v for k, v in paper.items()})
        row["seconds"] = round(fit_s + score_s, 3)
        row["fit_seconds"] = round(fit_s, 3)
        row["score_seconds"] = round(score_s, 3)
        log(f"  {name}: micro {row['micro']:.1f} macro {row['macro']:.1f} av11 {row['av11']:.1f}  "
            f"[{row['seconds']:.2f}s]")
        rows.append(row)
    info = {
        "collection": COLLECTIONS[table],
        "collection_key": next(k for k, v in COLLECTION_KEYS.items() if v == table),
        "corpus_path": None if corpus_path is None else str(corpus_path),
        "layout": layout,
        "split": split,
        "split_source": corpus.split_source,
        "name": corpus.name,
        "fingerprint": corpus.fingerprint(),
        "n_train": len(ic.train_docs),
        "n_test": len(ic.test_docs),
        "n_train_unlabeled": int((~Y_train.any(axis=1)).sum()),
        "n_test_unlabeled": int((~Y_test.any(axis=1)).sum()),
        "n_terms": ic.n_terms,
        "n_categories": len(ic.categories),
        "categories": list(ic.categories),
        "indexing": cfg.to_dict(),
        "protocol": protocol.to_dict(),
        "rocchio": {"beta": float(rocchio_beta), "gamma": float(rocchio_gamma)},
        "paper_suspect": {k: list(v) for k, v in PAPER_SUSPECT.get(table, {}).items()},
        "paper_corpus": dict(PAPER_CORPORA[table]),
        "reader": {k: reader_meta[k] for k in _READER_KEYS if k in reader_meta},
    }
    return {"rows": rows, "corpus": info}


def format_decampos_table(result: dict) -> str:
    """Text table: measures as rows, classifiers as columns, 'ours / paper (diff)' cells."""
    rows = result["rows"]
    if not rows:
        return "(no rows)"
    c = result.get("corpus", {})
    width = 26
    head = (f"de Campos et al. -- {c.get('collection', '')}: {c.get('n_train')} train / {c.get('n_test')} "
            f"test documents, {c.get('n_categories')} categories, {c.get('n_terms')} terms (percent)")
    if c.get("protocol"):
        changed = DecamposProtocol.from_dict(c["protocol"]).changes()
        head += "\nprotocol: " + (", ".join(f"{k}={v}" for k, v in changed.items()) if changed
                                  else "the defaults (DecamposProtocol)")
    split = c.get("split") or {}
    if split.get("kind") == "seeded":
        head += (f"\nsplit: seeded, test_fraction {split.get('test_fraction')}, random_state "
                 f"{split.get('random_state')}")
    elif split:
        head += f"\nsplit: {split.get('kind')}" + (f" ({split['description']})" if split.get("description") else "")
    lines = [head, "measure".ljust(12) + "".join(r["classifier"].rjust(width) for r in rows),
             " " * 12 + "".join("ours / paper (diff)".rjust(width) for _ in rows)]
    suspect = c.get("paper_suspect", {})
    for m in MEASURES:
        cells = []
        for r in rows:
            p = r.get(f"paper_{m}")
            if p is None:
                cells.append(f"{r[m]:.1f}".rjust(width))
            else:
                mark = "*" if m in suspect.get(r["classifier"], ()) else ""
                cells.append(f"{r[m]:.1f} / {p:.1f}{mark} ({r[m] - p:+.1f})".rjust(width))
        lines.append(m.ljust(12) + "".join(cells))
    for diag in DIAGNOSTICS:
        if all(diag in r for r in rows):
            lines.append(diag.ljust(12) + "".join(f"{r[diag]:.1f}".rjust(width) for r in rows))
    lines.append("seconds".ljust(12) + "".join(f"{r['seconds']:.2f}".rjust(width) for r in rows))
    if suspect:
        lines.append("* the paper's value repeats another row digit for digit (likely a copy error)")
    return "\n".join(lines)
