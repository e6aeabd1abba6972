"""The data every cell of a sweep reads: :class:`SweepData` and how it is prepared.

Term selection follows Karčiauskas 2002, sec. 4.1.2: information gain on the *whole* training
set, for the validation cells too, computed once by
:func:`hbnlab.pipeline.data.prepare`.  :class:`SweepData` is that
:class:`~hbnlab.pipeline.data.ProtocolData` restricted to the union of the categories' selected
terms (the labels, the training-0 / validation split and the per-category rankings kept), with a
fingerprint that names the exact data the cells saw.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from hbnlab.experiments.sweep.config import SWEEP_FORMAT_VERSION, SweepConfig, SweepError
from hbnlab.pipeline.data import ProtocolData
from hbnlab.text import IndexedCorpus

__all__ = ["SweepData", "resolve_categories", "prepare_sweep_data", "sweep_categories"]


class SweepData(ProtocolData):
    """A :class:`~hbnlab.pipeline.data.ProtocolData` restricted to the terms any category selects.

    ``ranked[j, :nf]`` are the columns (into ``X_train`` / ``X_test``) of the ``nf`` best terms of
    category ``j`` by the whole-training-set scores (thesis sec. 4.1.2), best first; the
    selection scores are these ranks (``scores[ranked[j, r], j] = max_features - r``, 0 for the
    terms category ``j`` does not rank), so :meth:`selected_columns` gives ``ranked[j, :nf]``.
    ``names`` are the kept terms (the vocabulary), ``folds`` the validation folds of the training
    rows (:attr:`ProtocolData.folds`; a boolean training-0 mask is accepted), ``corpus_info`` the
    protocol's counts.  Errors are :class:`SweepError`; :meth:`split` keeps its matrices for the
    cells that follow in the same worker process.
    """

    error = SweepError

    def __init__(self, categories, names, X_train, X_test, Y_train, Y_test, folds, ranked, corpus_info=None,
                 fingerprint: str = ""):
        categories = tuple(str(c) for c in categories)
        names = tuple(str(n) for n in names)
        ranked = np.asarray(ranked, dtype=np.int64)
        if ranked.ndim != 2 or ranked.shape[0] != len(categories) or (ranked.size and ranked.max() >= len(names)):
            raise SweepError(f"ranked: expected ({len(categories)}, max_features) column indices below {len(names)}")
        scores = np.zeros((len(names), len(categories)))
        if ranked.size:
            np.put_along_axis(scores.T, ranked, np.arange(ranked.shape[1], 0, -1, dtype=np.float64)[None, :], axis=1)
        indexed = IndexedCorpus(None, None, names, categories, (), (), sp.csr_matrix(X_train, dtype=np.int8),
                                sp.csr_matrix(X_test, dtype=np.int8), np.asarray(Y_train, dtype=bool),
                                np.asarray(Y_test, dtype=bool))
        info = dict(corpus_info or {})
        super().__init__(indexed, scores, folds, "rank", str(info.get("name", "")), False, "", info)
        self.ranked = ranked
        self._splits: dict = {}
        self.fingerprint = fingerprint or self.compute_fingerprint()

    @property
    def names(self) -> list:
        return list(self.vocabulary)

    @property
    def corpus_info(self) -> dict:
        return self.info

    def _folds_for_hash(self) -> np.ndarray:
        # a hold-out split hashes as the training-0 mask, so its fingerprint is that of a
        # SweepData built before folds existed
        return self.train0 if self.n_folds == 1 else self.folds

    @property
    def max_features(self) -> int:
        return int(self.ranked.shape[1])

    def compute_fingerprint(self) -> str:
        """SHA-256 over every array and name list: identifies the exact data the cells saw."""
        h = hashlib.sha256()
        h.update(json.dumps([SWEEP_FORMAT_VERSION, self.categories, self.names]).encode())
        for a in (self.X_train.indptr, self.X_train.indices, self.X_train.data, self.X_test.indptr,
                  self.X_test.indices, self.X_test.data, self.Y_train, self.Y_test, self._folds_for_hash(),
                  self.ranked):
            a = np.ascontiguousarray(a)
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(a.tobytes())
        return h.hexdigest()

    @property
    def input_name(self) -> str:
        """Name of the shared input holding this data (one per data set, so sweeps on the same
        data share one copy per worker)."""
        return f"sweep-data-{self.fingerprint[:16]}"

    def split(self, stage: str, fold: int | None = None):
        """:meth:`ProtocolData.split`, kept for the next cell of the same data."""
        key = (stage, fold)
        hit = self._splits.get(key)
        if hit is None:
            hit = self._splits[key] = super().split(stage, fold)
        return hit

    def without_documents(self) -> SweepData:
        """Itself: a sweep's data holds no documents."""
        return self

    def to_shared(self) -> dict:
        """Plain dict of arrays (what :meth:`Runner.share` ships to the workers)."""
        return {"format": SWEEP_FORMAT_VERSION, "categories": self.categories, "names": self.names,
                "X_train": self.X_train, "X_test": self.X_test, "Y_train": self.Y_train, "Y_test": self.Y_test,
                "folds": self.folds, "ranked": self.ranked, "fingerprint": self.fingerprint}

    @classmethod
    def from_shared(cls, d: Mapping) -> SweepData:
        return cls(d["categories"], d["names"], d["X_train"], d["X_test"], d["Y_train"], d["Y_test"],
                   d["folds"] if "folds" in d else d["train0"], d["ranked"], {}, d["fingerprint"])

    @classmethod
    def from_protocol(cls, data: ProtocolData, max_features: int) -> SweepData:
        """Restrict a :class:`hbnlab.pipeline.data.ProtocolData` to the union of every
        category's ``max_features`` best terms."""
        if max_features < 1:
            raise SweepError(f"max_features must be >= 1, got {max_features}")
        top = np.stack([data.ranked_features(j)[:max_features] for j in range(len(data.categories))])
        union = np.unique(top)
        ranked = np.searchsorted(union, top)
        binary = lambda X: (sp.csr_matrix(X)[:, union] != 0).astype(np.int8).tocsr()  # noqa: E731
        return cls(list(data.categories), [data.vocabulary[c] for c in union], binary(data.X_train),
                   binary(data.X_test), data.Y_train, data.Y_test, data.folds, ranked, dict(data.info))


def resolve_categories(corpus, categories) -> list[str]:
    """The category list of a ``SweepConfig.categories`` value on ``corpus``."""
    eligible = corpus.categories(min_train=1, min_test=1)
    if isinstance(categories, str):
        if categories == "all":
            return eligible
        return eligible[: int(categories[3:])]
    missing = [c for c in categories if c not in eligible]
    if missing:
        raise SweepError(f"categories {missing} have no training or no test document in corpus "
                         f"{corpus.name!r} (eligible: {eligible[:10]}{'...' if len(eligible) > 10 else ''})")
    return list(categories)


def prepare_sweep_data(corpus, config: SweepConfig, *, indexing=None, progress=None) -> SweepData:
    """Index ``corpus`` the thesis's way (:func:`hbnlab.pipeline.data.prepare`; ``indexing``, an
    :class:`hbnlab.text.IndexingConfig`, for another stop list), score the terms for the sweep's
    categories and keep what the cells need."""
    from hbnlab.pipeline.store import prepare_cached

    cats = resolve_categories(corpus, config.categories)
    pdata = prepare_cached(corpus, categories=cats, validation=config.validation, cv=config.cv or None,
                           random_state=config.random_state, indexing=indexing, progress=progress)
    return SweepData.from_protocol(pdata, max(config.n_features))


def sweep_categories(config: SweepConfig, data: SweepData) -> list[str]:
    """The categories of ``config`` among ``data.categories`` (which are in decreasing training
    frequency): all of them, the first K for "topK", or the listed ones."""
    cats = config.categories
    if cats == "all":
        return list(data.categories)
    if isinstance(cats, str):
        return list(data.categories[: int(cats[3:])])
    missing = [c for c in cats if c not in data.categories]
    if missing:
        raise SweepError(f"categories {missing} are not in the sweep data (it has {data.categories[:10]}"
                         f"{'...' if len(data.categories) > 10 else ''})")
    return list(cats)
