"""One indexed corpus for every frontend: the thesis's protocol applied to any corpus.

Karčiauskas (2002), ch. 4:

* indexing (sec. 4.1.2): a vocabulary from the training documents, binary features
  (:func:`hbnlab.text.index_corpus` with an :class:`~hbnlab.text.IndexingConfig`);
* local feature selection by a score (information gain by default) on the *whole* training set,
  for the validation experiments too (sec. 4.1.2, last sentence);
* the categories: given ones, or the ``n_categories`` most frequent with training and test
  documents (the thesis: the 10 most frequent);
* validation experiments train on training-0 and measure on the validation split, test
  experiments train on the training set and measure on the test set
  (:func:`hbnlab.corpus.train0_validation_split`).

:func:`prepare` builds a :class:`ProtocolData`; the command line's tables, the workbench's jobs and
experiment manifests all read it.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from hbnlab.corpus import CorpusError, train0_validation_split
from hbnlab.features import score_terms, select_global
from hbnlab.text import IndexedCorpus, IndexingConfig, index_corpus

__all__ = ["ProtocolData", "Split", "prepare", "resolve_categories", "STAGES", "SCOPES"]

#: ``"test"``: training set -> test set; ``"validation"``: training-0 -> validation.
STAGES = ("test", "validation")
#: ``"local"``: the best terms of each category (the thesis); ``"global"``: one set for all.
SCOPES = ("local", "global")


class Split(NamedTuple):
    """The matrices of one stage: fit on ``X_fit`` / ``Y_fit``, measure on ``X_eval`` / ``Y_eval``
    (``eval_docs`` are the documents behind the rows of ``X_eval``)."""

    X_fit: sp.csr_matrix
    Y_fit: np.ndarray
    X_eval: sp.csr_matrix
    Y_eval: np.ndarray
    eval_docs: list


@dataclass
class ProtocolData:
    """An indexed corpus with per-category term scores and the training-0 mask.

    ``scores[t, j]`` is the selection score of term ``t`` for category ``j`` on the whole training
    set; ``train0[i]`` says whether training row ``i`` is in training-0 (the rest is the
    validation split).  ``info`` holds the counts the tables print.
    """

    indexed: IndexedCorpus
    scores: np.ndarray
    train0: np.ndarray
    selection: str
    corpus_name: str
    synthetic: bool
    fingerprint: str
    info: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ views
    @property
    def categories(self) -> list[str]:
        return list(self.indexed.categories)

    @property
    def vocabulary(self) -> tuple:
        return self.indexed.vocabulary

    @property
    def X_train(self) -> sp.csr_matrix:
        return self.indexed.X_train

    @property
    def X_test(self) -> sp.csr_matrix:
        return self.indexed.X_test

    @property
    def Y_train(self) -> np.ndarray:
        return self.indexed.Y_train

    @property
    def Y_test(self) -> np.ndarray:
        return self.indexed.Y_test

    def category_index(self, label: str) -> int:
        try:
            return self.categories.index(label)
        except ValueError:
            raise ValueError(f"class {label!r} is not one of the experiment's categories {self.categories}") from None

    def ranked_features(self, j: int) -> np.ndarray:
        """Column indices sorted by decreasing score for category ``j`` (ties by column index)."""
        s = self.scores[:, j]
        return np.lexsort((np.arange(s.size), -s))

    def selected_columns(self, label: str, n_features: int, scope: str = "local") -> np.ndarray:
        """Column indices of the selected terms for ``label``, best first.

        ``scope="local"``: the ``n_features`` best terms for this category (thesis sec. 4.1.2);
        ``"global"``: one set for all categories (:func:`hbnlab.features.select_global`, max).
        """
        n = int(n_features)
        if scope == "global":
            return np.asarray(select_global(self.scores, n, aggregate="max"), dtype=np.int64)
        if scope != "local":
            raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")
        return self.ranked_features(self.category_index(label))[:n].astype(np.int64)

    def split(self, stage: str) -> Split:
        """The matrices of ``"test"`` (training set -> test set) or ``"validation"``
        (training-0 -> validation), thesis sec. 4.1.1."""
        ic = self.indexed
        if stage == "test":
            return Split(ic.X_train, ic.Y_train, ic.X_test, ic.Y_test, list(ic.test_docs))
        if stage == "validation":
            m = self.train0
            docs = [d for d, keep in zip(ic.train_docs, ~m) if keep]
            return Split(ic.X_train[m], ic.Y_train[m], ic.X_train[~m], ic.Y_train[~m], docs)
        raise ValueError(f"stage must be one of {STAGES}, got {stage!r}")

    def without_documents(self) -> ProtocolData:
        """A copy without the document objects: the matrices only, cheap to ship to worker
        processes (``split(stage).eval_docs`` is then empty)."""
        return replace(self, indexed=replace(self.indexed, train_docs=(), test_docs=()))

    def corpus_json(self) -> dict:
        """The corpus part of a result document (counts, categories, fingerprint)."""
        c = self.info
        return {"n_train": c.get("n_train"), "n_test": c.get("n_test"), "n_terms": c.get("n_terms"),
                "n_train0": c.get("n_train0"), "n_validation": c.get("n_validation"),
                "categories": self.categories, "fingerprint": self.fingerprint}


def resolve_categories(corpus, categories=None, n_categories: int = 10, *, require_test: bool = True) -> list[str]:
    """The categories an experiment works on: the given ones (each must have training documents,
    and test documents unless ``require_test`` is false) or the ``n_categories`` most frequent with
    both (thesis: the 10 most frequent)."""
    usable = corpus.categories(min_train=1, min_test=1 if require_test or not categories else 0)
    wanted = list(categories or [])
    if not wanted:
        if not usable:
            raise CorpusError(f"corpus {corpus.name!r}: no category has both training and test documents")
        return usable[: int(n_categories)]
    missing = [c for c in wanted if c not in usable]
    if missing:
        raise CorpusError(
            f"corpus {corpus.name!r}: categor{'y' if len(missing) == 1 else 'ies'} {missing} "
            f"ha{'s' if len(missing) == 1 else 've'} no training{' or no test' if require_test else ''} documents; "
            f"usable: {usable[:20]}"
        )
    return wanted


def prepare(corpus, *, categories=None, n_categories: int = 10, indexing: IndexingConfig | None = None,
            selection: str = "ig", require_test: bool = True, progress=None) -> ProtocolData:
    """Index ``corpus`` the thesis's way, score every term for every category and split
    training-0 / validation (see the module docstring).

    Parameters
    ----------
    corpus : hbnlab.corpus.Corpus
    categories : sequence of str, optional
        Default: the ``n_categories`` most frequent categories with training and test documents.
    n_categories : int, default 10
    indexing : IndexingConfig, optional
        Default: the thesis's indexing.
    selection : str, default "ig"
        A method of :func:`hbnlab.features.score_terms`.
    require_test : bool, default True
        Whether a given category must have test documents (a model trained for use elsewhere
        needs none).
    progress : callable(fraction, message), optional
    """
    cats = resolve_categories(corpus, categories, n_categories, require_test=require_test)
    cfg = indexing or IndexingConfig()
    if progress:
        progress(0.2, "indexing")
    ic = index_corpus(corpus, cfg, categories=cats)
    if ic.X_train.shape[1] == 0:
        raise CorpusError(f"corpus {corpus.name!r}: no term passes the indexing (min_df={cfg.min_df})")
    if progress:
        progress(0.6, "scoring terms")
    scores = np.asarray(score_terms(ic.X_train, ic.Y_train, method=selection), dtype=np.float64)
    train0_docs, _ = train0_validation_split(corpus)
    ids0 = {d.id for d in train0_docs}
    train0 = np.fromiter((d.id in ids0 for d in ic.train_docs), dtype=bool, count=len(ic.train_docs))
    fingerprint = corpus.fingerprint()
    info = {"name": corpus.name, "fingerprint": fingerprint, "n_train": len(ic.train_docs),
            "n_test": len(ic.test_docs), "n_terms": ic.n_terms, "n_train0": int(train0.sum()),
            "n_validation": int((~train0).sum()), "indexing": cfg.to_dict(), "categories": list(cats)}
    if progress:
        progress(1.0, "ready")
    return ProtocolData(ic, scores, train0, selection, corpus.name, bool(corpus.synthetic), fingerprint, info)
