"""One indexed corpus for every frontend: the thesis's protocol applied to any corpus.

Karčiauskas (2002), ch. 4:

* indexing (sec. 4.1.2): a vocabulary from the training documents, binary features
  (:func:`hbnlab.text.index_corpus` with an :class:`~hbnlab.text.IndexingConfig`);
* local feature selection by a score (information gain by default) on the *whole* training set,
  for the validation experiments too (sec. 4.1.2, last sentence);
* the categories: given ones, or the ``n_categories`` most frequent with training and test
  documents (the thesis: the 10 most frequent);
* validation experiments train on training-0 and measure on the validation split, test
  experiments train on the training set and measure on the test set.  The validation split is the
  thesis's date split when every training document is dated (Reuters), else a seeded stratified
  split, or K stratified folds for cross-validation (:func:`hbnlab.corpus.splits.validation_folds`);
  with K folds a validation experiment fits K times and pools the K folds' scores.

:func:`prepare` builds a :class:`ProtocolData`; the command line's tables, the workbench's jobs and
experiment manifests all read it.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar, NamedTuple

import numpy as np
import scipy.sparse as sp

from hbnlab.corpus import CorpusError
from hbnlab.corpus.splits import fold_counts, untunable_labels, validation_folds
from hbnlab.corpus.taxonomy import Taxonomy, TopicLabels, taxonomy_for_categories
from hbnlab.features import score_terms, select_global
from hbnlab.text import IndexedCorpus, IndexingConfig, index_corpus

__all__ = ["ProtocolData", "Split", "prepare", "training_topics", "resolve_categories", "STAGES", "SCOPES"]

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
    """An indexed corpus with per-category term scores and the validation folds.

    ``scores[t, j]`` is the selection score of term ``t`` for category ``j`` on the whole training
    set; ``folds[i]`` is the validation fold of training row ``i``: ``-1`` = fitted on only
    (training-0), ``k >= 0`` = measured in fold ``k`` and fitted on in the others.  A hold-out split
    has one fold.  ``info`` holds the counts the tables print.  ``topics`` is the training
    documents' membership in every node of the corpus's taxonomy (from a taxonomy file or the
    dotted category names, computed from each document's full label set), ``None`` for a corpus
    without a hierarchy; the learners of a topic hierarchy read it (:meth:`fit_topics`).
    ``error`` is the exception class a bad stage, fold, scope, category or array raises (a
    subclass of ``ValueError`` for a frontend's own error type).
    """

    error: ClassVar[type[ValueError]] = ValueError
    indexed: IndexedCorpus
    scores: np.ndarray
    folds: np.ndarray
    selection: str
    corpus_name: str
    synthetic: bool
    fingerprint: str
    info: dict = field(default_factory=dict)
    topics: TopicLabels | None = None

    def __post_init__(self):
        f = np.asarray(self.folds)
        if f.dtype == bool:  # a training-0 mask: True = training-0, False = validation
            f = np.where(f, -1, 0)
        self.folds = f.astype(np.int64)
        ic = self.indexed
        n, k = ic.X_train.shape[0], len(ic.categories)
        if ic.Y_train.shape != (n, k) or ic.Y_test.shape != (ic.X_test.shape[0], k):
            raise self.error(f"labels: expected ({n}, {k}) and ({ic.X_test.shape[0]}, {k}), "
                             f"got {ic.Y_train.shape} and {ic.Y_test.shape}")
        if self.folds.shape != (n,):
            raise self.error(f"folds: expected {n} entries, got shape {self.folds.shape}")
        if self.topics is not None and self.topics.n_documents != n:
            raise self.error(f"topics: expected {n} documents, "
                             f"got {self.topics.n_documents}")

    # ------------------------------------------------------------------ views
    @property
    def categories(self) -> list[str]:
        return list(self.indexed.categories)

    @property
    def n_folds(self) -> int:
        """Validation folds: 1 for a hold-out split, K for K-fold cross-validation."""
        return int(self.folds.max()) + 1 if self.folds.size and self.folds.max() >= 0 else 0

    @property
    def train0(self) -> np.ndarray:
        """Training rows fitted on in the (first) validation fold: training-0 of a hold-out split."""
        return self.folds != 0

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
            raise self.error(f"class {label!r} is not one of the experiment's categories {self.categories}") from None

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
            raise self.error(f"scope must be one of {SCOPES}, got {scope!r}")
        return self.ranked_features(self.category_index(label))[:n].astype(np.int64)

    def n_splits(self, stage: str) -> int:
        """How many fits one unit of ``stage`` takes: 1 for ``"test"``, the folds for ``"validation"``."""
        if stage not in STAGES:
            raise self.error(f"stage must be one of {STAGES}, got {stage!r}")
        return 1 if stage == "test" else self.n_folds

    def fit_labels(self, label: str, stage: str) -> list[np.ndarray]:
        """The labels of ``label`` on the documents each fit of ``stage`` learns from (the
        ``Y_fit[:, j]`` of every :meth:`split`, without slicing the term matrix)."""
        j = self.category_index(label)
        n_splits = self.n_splits(stage)
        if stage == "test":
            return [self.Y_train[:, j]]
        return [self.Y_train[self.folds != fold, j] for fold in range(n_splits)]

    def unlearnable(self, label: str, stage: str) -> tuple[str, str] | None:
        """``(split, "no" | "only")`` for the first fit of ``stage`` whose documents hold no (or
        only) positive documents of ``label`` -- ``split`` is ``"training"``, ``"training-0"`` or
        ``"fitting part of validation fold k"`` -- else ``None``: every fit can learn ``label``."""
        ys = self.fit_labels(label, stage)
        for fold, y in enumerate(ys):
            if y.min() == y.max():
                where = "training" if stage == "test" else ("training-0" if len(ys) == 1 else
                                                             f"fitting part of validation fold {fold + 1}")
                return where, "no" if y.max() == 0 else "only"
        return None

    def split(self, stage: str, fold: int | None = None) -> Split:
        """The matrices of ``"test"`` (training set -> test set) or of validation fold ``fold``
        (training-0 -> validation for a hold-out split, thesis sec. 4.1.1).

        ``fold`` may be omitted for the test stage and for a hold-out split; with K folds the
        pooled evaluation labels and documents are :meth:`evaluation`.
        """
        ic = self.indexed
        if stage == "test":
            return Split(ic.X_train, ic.Y_train, ic.X_test, ic.Y_test, list(ic.test_docs))
        if stage != "validation":
            raise self.error(f"stage must be one of {STAGES}, got {stage!r}")
        if fold is None:
            if self.n_folds != 1:
                raise self.error(f"the validation stage has {self.n_folds} folds; pass fold= (0..{self.n_folds - 1})")
            fold = 0
        if not 0 <= int(fold) < self.n_folds:
            raise self.error(f"fold must be in 0..{self.n_folds - 1}, got {fold!r}")
        ev = self.folds == int(fold)
        docs = [d for d, keep in zip(ic.train_docs, ev) if keep]
        return Split(ic.X_train[~ev], ic.Y_train[~ev], ic.X_train[ev], ic.Y_train[ev], docs)

    def fit_topics(self, stage: str, fold: int | None = None) -> TopicLabels:
        """The taxonomy membership of the documents :meth:`split` fits on (same stage and fold).

        Raises ``ValueError`` naming the fix when the corpus has no hierarchy.
        """
        if self.topics is None:
            raise self.error(f"corpus {self.corpus_name!r} has no topic hierarchy: its categories "
                             f"{self.categories[:6]}{'...' if len(self.categories) > 6 else ''} have no dotted "
                             f"names (comp.sys.mac -> comp -> comp.sys); name the categories with dots or give "
                             f"a taxonomy file (--taxonomy FILE, one 'parent<TAB>child' per line)")
        if stage == "test":
            return self.topics
        if fold is None:
            fold = 0 if self.n_folds == 1 else None
        if fold is None or not 0 <= int(fold) < self.n_folds:
            raise self.error(f"fold must be in 0..{self.n_folds - 1}, got {fold!r}")
        return self.topics.rows(self.folds != int(fold))

    def eval_rows(self, stage: str) -> np.ndarray:
        """Rows of the evaluated documents in pooled order: the test set, or the training rows of
        validation fold 0, then fold 1, ... (the order :func:`hbnlab.pipeline.fit.fit_unit` pools
        the folds' scores in)."""
        if stage == "test":
            return np.arange(self.indexed.X_test.shape[0])
        self.n_splits(stage)
        rows = np.flatnonzero(self.folds >= 0)
        return rows[np.argsort(self.folds[rows], kind="stable")]

    def evaluation(self, stage: str) -> tuple[np.ndarray, list]:
        """``(Y_eval, eval_docs)`` of ``stage``, pooled over the validation folds."""
        ic = self.indexed
        rows = self.eval_rows(stage)
        if stage == "test":
            return ic.Y_test, list(ic.test_docs)
        docs = [ic.train_docs[i] for i in rows] if ic.train_docs else []
        return ic.Y_train[rows], docs

    def untunable(self, categories=None) -> dict[str, str]:
        """The categories the validation folds cannot score, with the reason
        (:func:`hbnlab.corpus.splits.untunable_labels`); empty when every one can be tuned."""
        cats = self.categories if categories is None else list(categories)
        idx = [self.category_index(c) for c in cats]
        return untunable_labels(self.Y_train[:, idx], self.folds, cats)

    def validation_description(self) -> str:
        """How tuning holds out documents, in one line ("training-0 1575 / validation 525 (by date ...)")."""
        c = self.info
        v = c.get("validation") or {}
        if v.get("method") == "cv":
            return f"{v['n_folds']}-fold stratified cross-validation on the {c['n_train']} training documents"
        how = ("by date, thesis sec. 4.1.1" if v.get("method") == "date"
               else f"stratified, seeded with random_state={v.get('random_state')}")
        return f"training-0 {c['n_train0']} / validation {c['n_validation']} documents ({how})"

    def validation_counts(self) -> dict[str, dict]:
        """Per category: training positives, and positives fitted on / measured per fold."""
        return {c: {"train": int(self.Y_train[:, j].sum()), **fc}
                for j, (c, fc) in enumerate(zip(self.categories, fold_counts(self.Y_train, self.folds)))}

    def without_documents(self) -> ProtocolData:
        """A copy without the document objects: the matrices only, cheap to ship to worker
        processes (``split(stage).eval_docs`` is then empty)."""
        return replace(self, indexed=replace(self.indexed, train_docs=(), test_docs=()))

    def corpus_json(self) -> dict:
        """The corpus part of a result document (where its split came from, counts, categories,
        fingerprint, the indexing -- its stop list -- and the documents it left without a term)."""
        c = self.info
        return {"name": self.corpus_name, "split_source": c.get("split_source"), "n_train": c.get("n_train"),
                "n_test": c.get("n_test"),
                "n_terms": c.get("n_terms"), "n_train0": c.get("n_train0"), "n_validation": c.get("n_validation"),
                "validation": c.get("validation"), "categories": self.categories, "fingerprint": self.fingerprint,
                "indexing": self.indexed.config.to_dict(), "empty_documents": self.indexed.empty_documents()}


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


def training_topics(corpus, train_docs, taxonomy: Taxonomy | None = None):
    """The corpus's taxonomy (``taxonomy``, else the tree of dotted category names, else ``None``)
    and the training documents' membership in its nodes (:class:`TopicLabels`, ``None`` without a
    taxonomy)."""
    tax = taxonomy_for_categories(corpus.categories(), taxonomy)
    return tax, (None if tax is None else TopicLabels.from_label_sets(tax, (d.labels for d in train_docs)))


def prepare(corpus, *, categories=None, n_categories: int = 10, indexing: IndexingConfig | None = None,
            selection: str = "ig", require_test: bool = True, validation: str = "auto", cv: int | None = None,
            random_state=0, taxonomy: Taxonomy | None = None, progress=None,
            index: IndexedCorpus | None = None) -> ProtocolData:
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
    validation : {"auto", "date", "stratified"}, default "auto"
        The hold-out split: the thesis's date split when every training document is dated, else a
        seeded stratified one (:func:`hbnlab.corpus.splits.validation_folds`).
    cv : int, optional
        K >= 2: K-fold cross-validation instead of a hold-out split (small corpora).
    random_state : int, default 0
        Seeds the stratified split or folds.
    taxonomy : Taxonomy, optional
        The categories' tree (:func:`hbnlab.corpus.taxonomy.read_taxonomy`); default: the tree of
        dotted category names, if any.  Sets :attr:`ProtocolData.topics`.
    progress : callable(fraction, message), optional
    index : IndexedCorpus, optional
        ``index_corpus(corpus, indexing)`` computed before (:func:`hbnlab.pipeline.store.term_index`
        keeps one per corpus and indexing): the terms do not depend on the categories, so another
        choice of classes reuses it.  Its indexing must be ``indexing``.
    """
    cats = resolve_categories(corpus, categories, n_categories, require_test=require_test)
    cfg = indexing or IndexingConfig()
    if index is not None:
        if index.config != cfg:
            raise ValueError(f"the given index was built with {index.config}, not {cfg}")
        ic = index.for_categories(corpus, cats)
    else:
        if progress:
            progress(0.2, "indexing")
        ic = index_corpus(corpus, cfg, categories=cats)
    if ic.X_train.shape[1] == 0:
        raise CorpusError(f"corpus {corpus.name!r}: no term passes the indexing (min_df={cfg.min_df})")
    if progress:
        progress(0.6, "scoring terms")
    scores = np.asarray(score_terms(ic.X_train, ic.Y_train, method=selection), dtype=np.float64)

    def folds_of_corpus():
        return validation_folds(corpus, method=validation, cv=cv, random_state=random_state)

    if isinstance(random_state, (int, np.integer)):  # a seed gives the same folds each time: computed once
        fold_of, vinfo = corpus.derived(("validation_folds", validation, cv, int(random_state)), folds_of_corpus)
    else:
        fold_of, vinfo = folds_of_corpus()
    vinfo = dict(vinfo)
    by_id = {d.id: int(f) for d, f in zip(corpus.train, fold_of)}
    folds = np.fromiter((by_id[d.id] for d in ic.train_docs), dtype=np.int64, count=len(ic.train_docs))
    fingerprint = corpus.fingerprint()
    tax, topics = training_topics(corpus, ic.train_docs, taxonomy)
    info = {"name": corpus.name, "fingerprint": fingerprint, "split_source": corpus.split_source,
            "n_train": len(ic.train_docs),
            "n_test": len(ic.test_docs), "n_terms": ic.n_terms, "n_train0": int((folds < 0).sum()),
            "n_validation": int((folds >= 0).sum()), "validation": vinfo, "indexing": cfg.to_dict(),
            "categories": list(cats), "empty_documents": ic.empty_documents()}
    if progress:
        progress(1.0, "ready")
    if tax is not None:
        info["taxonomy"] = {"nodes": len(tax.nodes), "internal": len(tax.internal_nodes) - 1,
                            "source": "file" if taxonomy is not None else "dotted names"}
    return ProtocolData(ic, scores, folds, selection, corpus.name, bool(corpus.synthetic), fingerprint, info,
                        topics)
