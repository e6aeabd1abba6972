"""A synthetic corpus whose categories form a two-level taxonomy (Chakrabarti 2003, sec. 5.7).

Every document has one leaf category ``topic.subtopic`` (``alpha.red``, ``alpha.green``, ...,
``bravo.red``, ...; dotted names, so :meth:`hbnlab.corpus.taxonomy.Taxonomy.from_names` gives the
tree), drawn uniformly.  Its words come from three sources:

* the words of its top-level topic (``topic_words`` of them, shared by all the topic's leaves):
  each present with probability ``P_TOPIC_WORD * s``;
* the words of its leaf (``subtopic_words``, few): each present with probability ``P_LEAF_WORD``;
  the words of every other leaf appear with probability ``P_WORD_ELSEWHERE``;
* background words shared by everything, word j (0-based) with probability
  ``min(0.5, 1.2 / (j + 1) ** 0.7) * s`` (Zipf-like, as :mod:`hbnlab.corpus.synthetic`).

``s ~ Uniform(S_MIN, 1)`` is the document's length scale: long documents carry many topic words.
Siblings therefore share most of their vocabulary and differ in a few words, and the number of
topic words varies from document to document.  A flat one-against-the-rest naive Bayes counts
every shared topic word as evidence for each leaf of the topic and ranks a long document of a
sibling above a short document of the leaf; a classifier that first decides the topic and then
the leaf among its siblings, on the words selected for that decision, does not.  Each emitted
word occurs ``1 + Poisson(0.6)`` times, in random order.

``Corpus.meta['planted']`` records the taxonomy, the words and the probabilities.
"""
from __future__ import annotations

import numpy as np

from hbnlab.bounds import SYNTHETIC_SIZE

from .base import Corpus, Document
from .synthetic import (
    EXTRA_COUNT_MEAN,
    NOISE_CAP,
    NOISE_EXPONENT,
    NOISE_SCALE,
    START_DATE,
    STEP,
    _check_int,
    _class_names,
    _vocabulary,
    token_texts,
)

__all__ = ["make_hierarchical_corpus", "SUBTOPIC_NAMES"]

#: Names of the leaves under each topic.
SUBTOPIC_NAMES = ("red", "green", "blue", "amber", "violet", "white", "black", "grey", "cyan", "olive")

P_TOPIC_WORD = 0.5
P_LEAF_WORD = 0.4
P_WORD_ELSEWHERE = 0.01
S_MIN = 0.2


def make_hierarchical_corpus(*, n_documents: int = 2000, n_topics: int = 3, n_subtopics: int = 3,
                             topic_words: int = 40, subtopic_words: int = 5, n_noise_words: int = 300,
                             test_fraction: float = 0.3, random_state=0) -> Corpus:
    """Generate the two-level hierarchical corpus (see the module docstring).

    Parameters
    ----------
    n_documents : int
        Number of documents (>= 2 * number of leaves).
    n_topics, n_subtopics : int
        Top-level topics (>= 2) and leaves per topic (2 .. 10).
    topic_words, subtopic_words : int
        Words of each topic (>= 1) and of each leaf (>= 1).
    n_noise_words : int
        Background vocabulary size (>= 1).
    test_fraction : float
        The last documents in time form the test set (as :func:`make_synthetic_corpus`).
    random_state : int, numpy Generator or None

    Returns
    -------
    Corpus
        ``name='synthetic-hierarchy'``, ``synthetic=True``; every leaf has training and test documents.

    Examples
    --------
    >>> c = make_hierarchical_corpus(n_documents=120, random_state=1)
    >>> sorted(c.categories())[:4]
    ['alpha.blue', 'alpha.green', 'alpha.red', 'bravo.blue']
    >>> c.meta['planted']['taxonomy']['alpha.red']
    'alpha'
    """
    T = _check_int("n_topics", n_topics, 2)
    S = _check_int("n_subtopics", n_subtopics, 2)
    if S > len(SUBTOPIC_NAMES):
        raise ValueError(f"n_subtopics must be <= {len(SUBTOPIC_NAMES)}, got {S}")
    TW = _check_int("topic_words", topic_words, 1)
    LW = _check_int("subtopic_words", subtopic_words, 1)
    M = _check_int("n_noise_words", n_noise_words, 1)
    K = T * S
    N = _check_int("n_documents", n_documents, 2 * K, SYNTHETIC_SIZE.hi)
    if not (isinstance(test_fraction, (int, float)) and 0.0 < float(test_fraction) < 1.0):
        raise ValueError(f"test_fraction must be a number in (0, 1), got {test_fraction!r}")
    n_test = int(round(N * float(test_fraction)))
    if n_test < K or N - n_test < K:
        raise ValueError(f"test_fraction={test_fraction} leaves {N - n_test} training and {n_test} test documents "
                         f"for {K} leaves; every leaf needs one of each")
    rng = np.random.default_rng(random_state)

    topics = _class_names(T)
    leaves = [f"{t}.{SUBTOPIC_NAMES[j]}" for t in topics for j in range(S)]
    groups, noise_words = _vocabulary(T + K, max(TW, LW), M)
    topic_vocab = [g[:TW] for g in groups[:T]]
    leaf_vocab = [g[:LW] for g in groups[T:]]
    noise_p = np.minimum(NOISE_CAP, NOISE_SCALE / np.arange(1, M + 1) ** NOISE_EXPONENT)

    leaf = rng.integers(0, K, size=N)
    leaf[:K] = np.arange(K)
    leaf[N - n_test : N - n_test + K] = np.arange(K)
    topic = leaf // S
    scale = rng.uniform(S_MIN, 1.0, size=N)

    p_topic = np.where(topic[:, None] == np.arange(T)[None, :], P_TOPIC_WORD * scale[:, None], 0.0)  # [N, T]
    p_leaf = np.where(leaf[:, None] == np.arange(K)[None, :], P_LEAF_WORD, P_WORD_ELSEWHERE)           # [N, K]
    topic_present = (rng.random((N, T, TW)) < p_topic[:, :, None]).reshape(N, T * TW)
    leaf_present = (rng.random((N, K, LW)) < p_leaf[:, :, None]).reshape(N, K * LW)
    noise_present = rng.random((N, M)) < noise_p[None, :] * scale[:, None]
    present = np.concatenate([topic_present, leaf_present, noise_present], axis=1)
    empty = ~present.any(axis=1)
    present[empty, T * TW + K * LW] = True  # a document needs at least one token: the commonest word
    counts = present * (1 + rng.poisson(EXTRA_COUNT_MEAN, size=present.shape))

    texts = token_texts(counts, [w for g in topic_vocab for w in g] + [w for g in leaf_vocab for w in g] + noise_words,
                        rng)
    width = max(5, len(str(N)))
    docs = tuple(
        Document(id=f"hier{i + 1:0{width}d}", text=texts[i],
                 labels=frozenset({leaves[leaf[i]]}), split="test" if i >= N - n_test else "train",
                 title="", date=START_DATE + i * STEP)
        for i in range(N)
    )
    params = {"n_documents": N, "n_topics": T, "n_subtopics": S, "topic_words": TW, "subtopic_words": LW,
              "n_noise_words": M, "test_fraction": float(test_fraction),
              "random_state": random_state if random_state is None or isinstance(random_state, int)
              else repr(random_state)}
    truth = {
        "model": "two-level taxonomy: topic words shared by siblings, a few words per leaf",
        "parameters": params,
        "taxonomy": {**{t: "" for t in topics}, **{lf: lf.split(".")[0] for lf in leaves}},
        "topic_words": dict(zip(topics, topic_vocab)),
        "leaf_words": dict(zip(leaves, leaf_vocab)),
        "p_topic_word": P_TOPIC_WORD, "p_leaf_word": P_LEAF_WORD, "p_word_elsewhere": P_WORD_ELSEWHERE,
        "length_scale": f"uniform({S_MIN}, 1) per document, multiplies topic and background word probabilities",
        "background_words": noise_words,
        "p_background_word": [float(x) for x in noise_p],
        "extra_count_poisson_mean": EXTRA_COUNT_MEAN,
    }
    return Corpus("synthetic-hierarchy", docs, synthetic=True, meta={"source": "synthetic", "planted": truth})
