"""Validation splits for corpora with and without dates: iterative stratification (hand-computed
cases, properties over seeds and label shapes), k-fold folds, the date split kept for dated
corpora, and the detection of labels a split cannot score."""
from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import pytest

from hbnlab.corpus import Corpus, Document, train0_validation_split
from hbnlab.corpus.splits import (
    VALIDATION_FRACTION,
    fold_counts,
    iterative_stratification,
    untunable_labels,
    validation_folds,
)


def _random_labels(seed: int, n: int, n_labels: int, multi: bool) -> np.ndarray:
    rng = np.random.RandomState(seed)
    sizes = np.maximum(1, (rng.zipf(1.6, n_labels) * 2).clip(max=n // 3))
    Y = np.zeros((n, n_labels), dtype=bool)
    for j, s in enumerate(sizes):
        Y[rng.choice(n, size=int(s), replace=False), j] = True
    if not multi:  # keep one label per row: the first one, and give unlabelled rows a random label
        first = np.where(Y.any(axis=1), Y.argmax(axis=1), rng.randint(0, n_labels, n))
        Y = np.zeros_like(Y)
        Y[np.arange(n), first] = True
    return Y


def test_two_documents_of_a_label_go_one_to_each_side():
    # hand-computed: label 0 has rows 0 and 1; the plain algorithm sends both to the larger part
    # (wants 1.5 vs 0.5, then 0.5 vs 0.5 tie -> the part wanting more rows); the repair moves one
    Y = np.zeros((8, 2), dtype=bool)
    Y[:2, 0] = True
    Y[2:, 1] = True
    for seed in range(20):
        parts = iterative_stratification(Y, [0.75, 0.25], seed)
        assert sorted(parts[:2]) == [0, 1]


def test_single_label_shares_follow_the_proportions():
    rng = np.random.RandomState(0)
    y = rng.randint(0, 20, 4000)
    Y = np.zeros((4000, 20), dtype=bool)
    Y[np.arange(4000), y] = True
    parts = iterative_stratification(Y, [0.75, 0.25], 0)
    per_label = Y[parts == 1].sum(axis=0)
    expected = Y.sum(axis=0) * 0.25
    assert np.all(np.abs(per_label - expected) <= 1.0)  # within one document of the exact share
    assert abs((parts == 1).sum() - 1000) <= 10  # each of the 20 labels rounds its share once


@pytest.mark.parametrize("multi", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_every_label_with_two_documents_is_on_both_sides(seed, multi):
    Y = _random_labels(seed, 300, 25, multi)
    parts = iterative_stratification(Y, [1 - VALIDATION_FRACTION, VALIDATION_FRACTION], seed)
    counts = np.stack([Y[parts == k].sum(axis=0) for k in (0, 1)])
    assert np.all(counts[:, Y.sum(axis=0) >= 2] >= 1)
    assert untunable_labels(Y, np.where(parts == 1, 0, -1), [str(j) for j in range(25)]) == {
        str(j): untunable_labels(Y[:, [j]], np.where(parts == 1, 0, -1), [str(j)])[str(j)]
        for j in np.flatnonzero(Y.sum(axis=0) < 2)}


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("seed", range(6))
def test_k_folds_spread_each_label_over_at_least_two_folds(k, seed):
    Y = _random_labels(seed, 240, 15, multi=True)
    folds = iterative_stratification(Y, [1.0] * k, seed)
    assert set(np.unique(folds)) == set(range(k))
    sizes = np.bincount(folds, minlength=k)
    assert sizes.max() - sizes.min() <= max(2, 240 // 20)
    for j in np.flatnonzero(Y.sum(axis=0) >= 2):
        assert len(set(folds[Y[:, j]])) >= 2, j
    # every fold's fitting part holds a positive of every label with >= 2 documents
    for c, n in zip(fold_counts(Y, folds), Y.sum(axis=0)):
        if n >= 2:
            assert min(c["fit"]) >= 1


def test_stratification_is_seeded():
    Y = _random_labels(1, 200, 10, multi=True)
    a = iterative_stratification(Y, [0.75, 0.25], 7)
    np.testing.assert_array_equal(a, iterative_stratification(Y, [0.75, 0.25], 7))
    assert not np.array_equal(a, iterative_stratification(Y, [0.75, 0.25], 8))


def test_bad_arguments_name_the_parameter():
    Y = np.ones((4, 1), dtype=bool)
    with pytest.raises(ValueError, match="proportions"):
        iterative_stratification(Y, [1.0], 0)
    with pytest.raises(ValueError, match="2-d"):
        iterative_stratification(np.ones(4, dtype=bool), [1, 1], 0)


def _corpus(dated: bool, n_classes: int = 20, per_class: int = 12) -> Corpus:
    """Documents in class order, as a folder-per-class reader lists them (paths sorted)."""
    docs, t0 = [], datetime(1987, 3, 1)
    for c in range(n_classes):
        for i in range(per_class):
            k = c * per_class + i
            docs.append(Document(f"c{c:02d}/{i}", f"word{c} text", frozenset({f"c{c:02d}"}), "train",
                                 date=t0 + timedelta(hours=(k * 7919) % 1000) if dated else None))
    docs.append(Document("t/0", "word0 text", frozenset({"c00"}), "test"))
    return Corpus("fixture", tuple(docs))


def test_undated_corpus_gets_a_stratified_split_with_every_class_on_both_sides():
    corpus = _corpus(dated=False)
    # the date split on an undated corpus cuts by path: whole classes land on one side
    _, val = train0_validation_split(corpus)
    assert len({next(iter(d.labels)) for d in val}) < 10
    folds, info = validation_folds(corpus, random_state=0)
    assert info["method"] == "stratified"
    train = corpus.train
    for c in {f"c{k:02d}" for k in range(20)}:
        sides = {int(f >= 0) for d, f in zip(train, folds) if c in d.labels}
        assert sides == {0, 1}, c
    assert abs((folds >= 0).sum() - round(len(train) * VALIDATION_FRACTION)) <= 20


def test_dated_corpus_keeps_the_thesis_date_split():
    corpus = _corpus(dated=True)
    folds, info = validation_folds(corpus)
    assert info["method"] == "date"
    _, val = train0_validation_split(corpus)
    ids = {d.id for d in val}
    assert [d.id for d, f in zip(corpus.train, folds) if f == 0] == [d.id for d in corpus.train if d.id in ids]
    stratified, info = validation_folds(corpus, method="stratified", random_state=3)
    assert info["method"] == "stratified" and not np.array_equal(stratified, folds)


def test_cv_folds_and_errors():
    corpus = _corpus(dated=True, n_classes=4, per_class=6)
    folds, info = validation_folds(corpus, cv=3, random_state=0)
    assert info == {"method": "cv", "n_folds": 3, "random_state": 0}
    assert sorted(np.bincount(folds)) == [8, 8, 8]
    with pytest.raises(ValueError, match="cv must be an integer >= 2"):
        validation_folds(corpus, cv=1)
    with pytest.raises(ValueError, match="at least 500 training documents"):
        validation_folds(corpus, cv=500)
    with pytest.raises(ValueError, match="validation method"):
        validation_folds(corpus, method="time")


def test_untunable_labels_say_why():
    Y = np.zeros((10, 4), dtype=bool)
    Y[0, 0] = True                     # one document
    Y[[1, 2], 1] = True                # both in validation
    Y[[3, 4, 5], 2] = True             # fine
    Y[:, 3] = True                     # no negative
    folds = np.array([-1, 0, 0, -1, 0, -1, -1, -1, 0, -1])
    bad = untunable_labels(Y, folds, ["one", "allval", "ok", "everything"])
    assert bad["one"].startswith("it has 1 training document; tuning needs at least 2")
    assert bad["allval"].startswith("no positive in training-0")
    assert bad["everything"] == "no negative document to fit on"
    assert "ok" not in bad
