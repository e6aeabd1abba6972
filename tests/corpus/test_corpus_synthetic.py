"""The synthetic planted-structure corpus: determinism, speed, and recovery of the planted truth."""
from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pytest

from hbnlab.corpus import make_synthetic_corpus, train0_validation_split


@pytest.fixture(scope="module")
def corpus():
    return make_synthetic_corpus(n_documents=6000, random_state=11)


def _binary(corpus, words):
    """Documents x words presence matrix (tokens are whitespace-separated pseudo-words)."""
    index = {w: j for j, w in enumerate(words)}
    X = np.zeros((len(corpus), len(words)), dtype=bool)
    for i, d in enumerate(corpus.documents):
        for w in set(d.text.split()):
            j = index.get(w)
            if j is not None:
                X[i, j] = True
    return X


def test_determinism():
    a = make_synthetic_corpus(random_state=5)
    b = make_synthetic_corpus(random_state=5)
    c = make_synthetic_corpus(random_state=6)
    assert a.fingerprint() == b.fingerprint() and a.meta == b.meta
    assert a.fingerprint() != c.fingerprint()
    # the vocabulary depends on the sizes only
    assert a.meta["planted"]["classes"] == c.meta["planted"]["classes"]
    g = np.random.default_rng(5)
    assert make_synthetic_corpus(random_state=g).fingerprint() == a.fingerprint()


def test_corpus_shape_and_meta():
    c = make_synthetic_corpus()
    assert c.name == "synthetic" and c.synthetic and len(c) == 3000
    assert Counter(d.split for d in c.documents) == {"train": 2100, "test": 900}
    assert c.categories() == ["alpha", "bravo", "charlie", "delta"]
    assert c.categories(min_train=1, min_test=1) == c.categories()
    json.dumps(c.meta)  # JSON-able
    p = c.meta["planted"]
    assert p["parameters"] == {"n_documents": 3000, "n_classes": 4, "n_groups_per_class": 4, "words_per_group": 6,
                               "n_noise_words": 300, "test_fraction": 0.3, "random_state": 0}
    assert len(p["classes"]) == 4 and all(len(k["groups"]) == 4 for k in p["classes"])
    assert all(len(g["words"]) == 6 for k in p["classes"] for g in k["groups"])
    assert abs(sum(k["prior"] for k in p["classes"]) - 1) < 1e-12
    # vocabulary: letters only, unique, readable, group words share their first syllable
    words = [w for k in p["classes"] for g in k["groups"] for w in g["words"]] + p["background_words"]
    assert len(words) == len(set(words)) == 4 * 4 * 6 + 300
    assert all(re.fullmatch(r"[a-z]{4,8}", w) for w in words)
    for k in p["classes"]:
        for g in k["groups"]:
            assert len({w[:2] for w in g["words"]}) == 1
    # time order: ModApte-like, the test set comes later
    train = [d for d in c.documents if d.split == "train"]
    test = [d for d in c.documents if d.split == "test"]
    assert max(d.date for d in train) < min(d.date for d in test)
    t0, val = train0_validation_split(c)
    assert (len(t0), len(val)) == (round(2100 * 5827 / 7769), 2100 - round(2100 * 5827 / 7769))


def test_every_document_has_tokens_and_labels(corpus):
    assert all(d.text.strip() and d.labels and len(d.labels) <= 2 for d in corpus.documents)


def test_multilabel_fraction(corpus):
    # P(second label) = 0.15; 6000 documents -> standard error 0.0046
    frac = np.mean([len(d.labels) == 2 for d in corpus.documents])
    assert abs(frac - corpus.meta["planted"]["p_second_label"]) < 0.02


def test_class_priors_recovered(corpus):
    p = corpus.meta["planted"]
    # Whether a second label is added does not depend on the primary class, so the single-label
    # documents follow the class prior (8 forced documents of 6000 aside).
    single = [next(iter(d.labels)) for d in corpus.documents if len(d.labels) == 1]
    counts = Counter(single)
    for k in p["classes"]:
        assert abs(counts[k["name"]] / len(single) - k["prior"]) < 0.03


def test_word_probabilities_recovered(corpus):
    """P(word | class only) = p_active * p_word + (1 - p_active) * p_inactive (planted parameters)."""
    p = corpus.meta["planted"]
    for k in p["classes"]:
        docs = [i for i, d in enumerate(corpus.documents) if d.labels == frozenset({k["name"]})]
        sub = corpus.subset([corpus.documents[i] for i in docs])
        words = [w for g in k["groups"] for w in g["words"]]
        X = _binary(sub, words)
        expected = [g["p_active"] * q + (1 - g["p_active"]) * p["p_word_given_inactive"]
                    for g in k["groups"] for q in g["p_word_given_active"]]
        se = np.sqrt(np.array(expected) * (1 - np.array(expected)) / len(docs))
        assert np.all(np.abs(X.mean(axis=0) - expected) < 5 * se + 1e-3), k["name"]
        # documents without the class: the group is active with p_active_other only
        others = corpus.subset([d for d in corpus.documents if k["name"] not in d.labels])
        Xo = _binary(others, words)
        p_other = p["p_active_other_class"]
        expected_o = np.array([p_other * q + (1 - p_other) * p["p_word_given_inactive"]
                               for g in k["groups"] for q in g["p_word_given_active"]])
        se_o = np.sqrt(expected_o * (1 - expected_o) / len(others))
        assert np.all(np.abs(Xo.mean(axis=0) - expected_o) < 5 * se_o + 1e-3), k["name"]


def test_planted_groups_are_recoverable(corpus):
    """Given the class, words of one planted group co-occur far more than words of different groups.

    Oracle: with h ~ Bernoulli(q) and words ~ Bernoulli(a_i if h else b), two words of one group
    have covariance q (1 - q) (a_i - b) (a_j - b) and marginals q a_i + (1 - q) b; words of
    different groups are independent given the class.
    """
    p = corpus.meta["planted"]
    b = p["p_word_given_inactive"]
    for k in p["classes"]:
        sub = corpus.subset([d for d in corpus.documents if k["name"] in d.labels])
        groups = k["groups"]
        words = [w for g in groups for w in g["words"]]
        gid = np.repeat(np.arange(len(groups)), [len(g["words"]) for g in groups])
        q = np.repeat([g["p_active"] for g in groups], [len(g["words"]) for g in groups])
        a = np.concatenate([g["p_word_given_active"] for g in groups])
        marg = q * a + (1 - q) * b
        theory = np.where(gid[:, None] == gid[None, :], (q * (1 - q))[:, None] * np.outer(a - b, a - b), 0.0)
        theory /= np.sqrt(np.outer(marg * (1 - marg), marg * (1 - marg)))
        R = np.corrcoef(_binary(sub, words).T.astype(float))
        iu = np.triu_indices(len(words), 1)
        same = gid[iu[0]] == gid[iu[1]]
        within, across = R[iu][same], R[iu][~same]
        # every within-group pair beats every cross-group pair: thresholding recovers the groups
        assert within.min() > np.abs(across).max(), k["name"]
        assert within.mean() > 5 * np.abs(across).mean(), k["name"]
        # and the correlations are the planted ones (standard error of r is about 1 / sqrt(n))
        assert np.abs(R[iu] - theory[iu]).max() < 4.5 / np.sqrt(len(sub)), k["name"]


def test_small_corpora_have_every_class_in_both_splits():
    for n in (8, 10, 13):
        c = make_synthetic_corpus(n_documents=n, n_classes=4, test_fraction=0.5, random_state=n)
        assert set(c.categories(min_train=1, min_test=1)) == set(c.categories())
        assert set(c.categories()) == {"alpha", "bravo", "charlie", "delta"}
    c = make_synthetic_corpus(n_documents=8, n_classes=4, test_fraction=0.0)
    assert {d.split for d in c.documents} == {"train"}


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"n_classes": 1}, r"n_classes must be an integer >= 2, got 1"),
        ({"n_documents": 7, "n_classes": 4}, r"n_documents must be an integer in 8..200000, got 7"),
        ({"words_per_group": 1}, r"words_per_group must be an integer >= 2, got 1"),
        ({"n_groups_per_class": 0}, r"n_groups_per_class must be an integer >= 1, got 0"),
        ({"n_noise_words": 2.5}, r"n_noise_words must be an integer >= 1, got 2\.5"),
        ({"test_fraction": 1.0}, r"test_fraction must be a number in \[0, 1\), got 1\.0"),
        ({"n_documents": 10, "n_classes": 4, "test_fraction": 0.9}, r"leaves 1 training documents for 4 classes"),
    ],
)
def test_bad_parameters(kw, message):
    with pytest.raises(ValueError, match=message):
        make_synthetic_corpus(**kw)


def test_many_classes_and_groups_still_unique():
    c = make_synthetic_corpus(n_documents=200, n_classes=30, n_groups_per_class=3, words_per_group=4,
                              n_noise_words=50)
    p = c.meta["planted"]
    words = [w for k in p["classes"] for g in k["groups"] for w in g["words"]] + p["background_words"]
    assert len(words) == len(set(words))
    assert len({k["name"] for k in p["classes"]}) == 30
