"""The data every cell of a sweep reads: :class:`SweepData` and how it is prepared.

Term selection follows Karčiauskas 2002, sec. 4.1.2: information gain on the *whole* training
set, for the validation cells too, computed once by
:func:`hbnlab.pipeline.data.prepare`.  :class:`SweepData` keeps the term matrices
restricted to the union of the categories' selected terms, the labels, the training-0 /
validation split and the per-category rankings, with a fingerprint that names the exact data
the cells saw.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from hbnlab.experiments.sweep.config import STAGES, SWEEP_FORMAT_VERSION, SweepConfig, SweepError

__all__ = ["SweepData", "resolve_categories", "prepare_sweep_data", "sweep_categories"]


@dataclass
class SweepData:
    """The arrays every cell needs, restricted to the terms any category selects.

    ``ranked[j, :nf]`` are the columns (into ``X_train`` / ``X_test``) of the ``nf`` best terms of
    category ``j`` by the whole-training-set scores (thesis sec. 4.1.2), best first.  ``folds`` are
    the validation folds of the training rows (:attr:`hbnlab.pipeline.data.ProtocolData.folds`:
    ``-1`` training-0, ``k >= 0`` measured in fold ``k``); a boolean training-0 mask is accepted.
    """

    categories: list
    names: list
    X_train: sp.csr_matrix
    X_test: sp.csr_matrix
    Y_train: np.ndarray
    Y_test: np.ndarray
    folds: np.ndarray
    ranked: np.ndarray
    corpus_info: dict = field(default_factory=dict)
    fingerprint: str = ""

    def __post_init__(self):
        self.categories = [str(c) for c in self.categories]
        self.names = [str(n) for n in self.names]
        self.X_train = sp.csr_matrix(self.X_train, dtype=np.int8)
        self.X_test = sp.csr_matrix(self.X_test, dtype=np.int8)
        self.Y_train = np.asarray(self.Y_train, dtype=bool)
        self.Y_test = np.asarray(self.Y_test, dtype=bool)
        f = np.asarray(self.folds)
        self.folds = (np.where(f, -1, 0) if f.dtype == bool else f).astype(np.int64)
        self.ranked = np.asarray(self.ranked, dtype=np.int64)
        k = len(self.categories)
        if self.Y_train.shape != (self.X_train.shape[0], k) or self.Y_test.shape != (self.X_test.shape[0], k):
            raise SweepError(f"labels: expected ({self.X_train.shape[0]}, {k}) and ({self.X_test.shape[0]}, {k}), "
                             f"got {self.Y_train.shape} and {self.Y_test.shape}")
        if self.folds.shape != (self.X_train.shape[0],):
            raise SweepError(f"folds: expected {self.X_train.shape[0]} entries, got shape {self.folds.shape}")
        r = self.ranked
        if r.ndim != 2 or r.shape[0] != k or (r.size and r.max() >= len(self.names)):
            raise SweepError(f"ranked: expected ({k}, max_features) column indices below {len(self.names)}")
        if not self.fingerprint:
            self.fingerprint = self.compute_fingerprint()

    @property
    def train0(self) -> np.ndarray:
        """Training rows fitted on in the first validation fold (training-0 of a hold-out split)."""
        return self.folds != 0

    @property
    def n_folds(self) -> int:
        return int(self.folds.max()) + 1 if self.folds.size and self.folds.max() >= 0 else 0

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

    def category_index(self, category: str) -> int:
        try:
            return self.categories.index(category)
        except ValueError:
            raise SweepError(f"category {category!r} is not in the sweep data "
                             f"({len(self.categories)} categories: {self.categories[:5]}...)") from None

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
    def from_protocol(cls, data, max_features: int) -> SweepData:
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

    def n_splits(self, stage: str) -> int:
        """Fits per cell: 1 for ``"test"``, the validation folds for ``"validation"``."""
        if stage not in STAGES:
            raise SweepError(f"stage must be one of {STAGES}, got {stage!r}")
        return 1 if stage == "test" else self.n_folds

    def split(self, stage: str, fold: int = 0):
        """(X_fit, Y_fit, X_eval, Y_eval): training -> test, or validation fold ``fold``
        (training-0 -> validation for a hold-out split)."""
        if stage == "test":
            return self.X_train, self.Y_train, self.X_test, self.Y_test
        if stage == "validation":
            if not 0 <= fold < self.n_folds:
                raise SweepError(f"fold must be in 0..{self.n_folds - 1}, got {fold!r}")
            ev = self.folds == fold
            return self.X_train[~ev], self.Y_train[~ev], self.X_train[ev], self.Y_train[ev]
        raise SweepError(f"stage must be one of {STAGES}, got {stage!r}")


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


def prepare_sweep_data(corpus, config: SweepConfig, *, progress=None) -> SweepData:
    """Index ``corpus`` the thesis's way (:func:`hbnlab.pipeline.data.prepare`), score
    the terms for the sweep's categories and keep what the cells need."""
    from hbnlab.pipeline.store import prepare_cached

    cats = resolve_categories(corpus, config.categories)
    pdata = prepare_cached(corpus, categories=cats, validation=config.validation, cv=config.cv or None,
                           random_state=config.random_state, progress=progress)
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
