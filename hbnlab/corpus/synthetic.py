"""The embedded default corpus: documents drawn from a known hierarchical model.

The generator is a hierarchical naive Bayes model (thesis sec. 2.3, fig. 2.3: class -> hidden
variables -> features) with planted word groups, so a structure learner can be checked against
the truth:

* each document has a primary class ``c ~ Categorical(prior)`` with ``prior_k`` proportional
  to ``1 / sqrt(k + 1)`` (mildly unbalanced, like Reuters only tamer).  With probability
  ``p_second_label`` it also gets a second class, uniform over the other classes
  (multi-label);
* every class ``k`` owns ``n_groups_per_class`` word groups of ``words_per_group`` words.  Each
  group has a latent binary variable ``h``: ``P(h = 1) = p_active[k, g]`` in a document
  labelled ``k`` (from 0.8 down to 0.45 over the groups), else ``p_active_other`` (0.02);
* an active group emits each of its words with its own probability ``p_word_given_active``
  (0.85 down to 0.55 over the group's words); an inactive group emits each with
  ``p_word_given_inactive`` (0.01);
* every document also draws background words, word ``j`` (0-based rank) with probability
  ``min(0.5, 1.2 / (j + 1) ** 0.7)`` (Zipf-like);
* each emitted word occurs ``1 + Poisson(0.6)`` times, in random order.

Given the class, the words of one group are strongly correlated and the words of different groups
are independent; that is the structure the HBN / HNB clustering algorithms (thesis ch. 3) should
recover.  Words are pronounceable letters-only pseudo-words ending in a/o/u (no stop word, no
stemming collision), and the words of one group share their first syllable, so a learned tree
reads well in the UI: ``kamiro kasude kavopa ...`` clustered together means group recovered.
The vocabulary depends only on the sizes, not on ``random_state``.

``Corpus.meta['planted']`` records the whole truth (classes, groups, all probabilities,
background words, parameters) as JSON-able data.
"""
from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np

from hbnlab.bounds import SYNTHETIC_SIZE

from .base import Corpus, Document

_CLASS_NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
                "juliett", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
                "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu")
_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"
_FINAL_VOWELS = "aou"
_VOCAB_SEED = 20020601  # fixed: the vocabulary is a function of the sizes only

# Model constants (recorded in meta['planted']).
P_SECOND_LABEL = 0.15
P_ACTIVE_OTHER = 0.02
P_WORD_INACTIVE = 0.01
EXTRA_COUNT_MEAN = 0.6
NOISE_SCALE, NOISE_EXPONENT, NOISE_CAP = 1.2, 0.7, 0.5
START_DATE = datetime(1987, 2, 26, 9, 0)
STEP = timedelta(minutes=20)


def _class_names(n: int) -> list[str]:
    if n <= len(_CLASS_NAMES):
        return list(_CLASS_NAMES[:n])
    return [f"{_CLASS_NAMES[k % 26]}{k // 26 + 1}" for k in range(n)]


def _vocabulary(n_groups_total: int, words_per_group: int, n_noise: int) -> tuple[list[list[str]], list[str]]:
    """Planted group words (sharing a first syllable per group) and background words."""
    rng = np.random.default_rng(_VOCAB_SEED)
    syllables = [c + v for c in _CONSONANTS for v in _VOWELS]
    finals = [c + v for c in _CONSONANTS for v in _FINAL_VOWELS]
    # Group prefixes: one syllable while there are enough, else two.
    if n_groups_total <= len(syllables) - 10:
        prefixes = [syllables[i] for i in rng.permutation(len(syllables))[:n_groups_total]]
    else:
        pool = [a + b for a in syllables for b in syllables]
        prefixes = [pool[i] for i in rng.permutation(len(pool))[:n_groups_total]]
    used: set[str] = set()
    groups = []
    for prefix in prefixes:
        words = []
        while len(words) < words_per_group:
            w = prefix + syllables[rng.integers(len(syllables))] + finals[rng.integers(len(finals))]
            if w not in used:
                used.add(w)
                words.append(w)
        groups.append(words)
    noise = []
    while len(noise) < n_noise:
        w = (syllables[rng.integers(len(syllables))] + syllables[rng.integers(len(syllables))]
             + finals[rng.integers(len(finals))])
        if w not in used and not any(w.startswith(p) for p in prefixes):
            used.add(w)
            noise.append(w)
    return groups, noise


def _check_int(name: str, value, minimum: int, maximum: int | None = None) -> int:
    if (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum
            or (maximum is not None and value > maximum)):
        rng = f">= {minimum}" if maximum is None else f"in {minimum}..{maximum}"
        raise ValueError(f"{name} must be an integer {rng}, got {value!r}")
    return int(value)


def token_texts(counts: np.ndarray, vocabulary: list, rng: np.random.Generator) -> list[str]:
    """One text per row of ``counts`` (documents x words): each word repeated its count, the
    document's tokens in random order (one draw from ``rng``), joined by spaces."""
    vocab = np.array(vocabulary)
    rows, cols = np.nonzero(counts)
    reps = counts[rows, cols]
    tok_doc = np.repeat(rows, reps)
    tok_word = np.repeat(cols, reps)
    order = np.lexsort((rng.random(tok_doc.size), tok_doc))
    words = vocab[tok_word[order]].tolist()
    bounds = np.searchsorted(tok_doc[order], np.arange(counts.shape[0] + 1)).tolist()
    return [" ".join(words[bounds[i] : bounds[i + 1]]) for i in range(counts.shape[0])]


def make_synthetic_corpus(*, n_documents: int = 3000, n_classes: int = 4, n_groups_per_class: int = 4,
                          words_per_group: int = 6, n_noise_words: int = 300, test_fraction: float = 0.3,
                          random_state=0) -> Corpus:
    """Generate the synthetic corpus with planted word groups (see the module docstring).

    Parameters
    ----------
    n_documents : int
        Number of documents (>= 2 * n_classes).
    n_classes : int
        Number of classes (>= 2); named ``alpha``, ``bravo``, ...
    n_groups_per_class : int
        Planted word groups (latent binary variables) per class.
    words_per_group : int
        Words per group (>= 2).
    n_noise_words : int
        Background vocabulary size (>= 1).
    test_fraction : float
        The last ``round(n_documents * test_fraction)`` documents in time form the test set
        (documents are dated 20 minutes apart from 1987-02-26, so, as in ModApte, the test set
        comes after the training set).
    random_state : int, numpy Generator or None
        Seed of every random draw.  The same seed gives the same corpus.

    Returns
    -------
    Corpus
        ``name='synthetic'``, ``synthetic=True``, ids ``syn00001`` ...;
        ``meta['planted']`` holds the true model.  To guarantee that every class has training
        and test documents, the first ``n_classes`` documents get primary classes
        ``0 .. n_classes - 1``, and so do the first ``n_classes`` test documents.

    Examples
    --------
    >>> c = make_synthetic_corpus(n_documents=200, random_state=1)
    >>> len(c), c.synthetic, c.categories()[:2]
    (200, True, ['alpha', 'bravo'])
    >>> words = lambda corpus: corpus.meta['planted']['classes'][0]['groups'][0]['words'][:2]
    >>> words(c) == words(make_synthetic_corpus(n_documents=50, random_state=7))
    True
    """
    K = _check_int("n_classes", n_classes, 2)
    G = _check_int("n_groups_per_class", n_groups_per_class, 1)
    W = _check_int("words_per_group", words_per_group, 2)
    M = _check_int("n_noise_words", n_noise_words, 1)
    N = _check_int("n_documents", n_documents, 2 * K, SYNTHETIC_SIZE.hi)
    if not (isinstance(test_fraction, (int, float)) and 0.0 <= float(test_fraction) < 1.0):
        raise ValueError(f"test_fraction must be a number in [0, 1), got {test_fraction!r}")
    n_test = int(round(N * float(test_fraction)))
    if N - n_test < K:
        raise ValueError(f"test_fraction={test_fraction} leaves {N - n_test} training documents for "
                         f"{K} classes; every class needs one")
    rng = np.random.default_rng(random_state)

    names = _class_names(K)
    prior = 1.0 / np.sqrt(np.arange(1, K + 1))
    prior /= prior.sum()
    p_active = np.tile(np.linspace(0.8, 0.45, G), (K, 1))                # [K, G]
    p_word = np.tile(np.linspace(0.85, 0.55, W), (K, G, 1))             # [K, G, W]
    groups, noise_words = _vocabulary(K * G, W, M)
    noise_p = np.minimum(NOISE_CAP, NOISE_SCALE / np.arange(1, M + 1) ** NOISE_EXPONENT)

    # ---- labels: primary class, optional second class (uniform over the others)
    primary = rng.choice(K, size=N, p=prior)
    primary[:K] = np.arange(K)
    if n_test >= K:
        primary[N - n_test : N - n_test + K] = np.arange(K)
    second = (primary + 1 + rng.integers(0, K - 1, size=N)) % K
    has_second = rng.random(N) < P_SECOND_LABEL
    Y = np.zeros((N, K), dtype=bool)
    Y[np.arange(N), primary] = True
    Y[has_second, second[has_second]] = True

    # ---- latent group variables h[d, k, g] and word emissions, all vectorized
    p_h = np.where(Y[:, :, None], p_active[None, :, :], P_ACTIVE_OTHER)         # [N, K, G]
    H = rng.random((N, K, G)) < p_h
    p_w = np.where(H[:, :, :, None], p_word[None], P_WORD_INACTIVE)             # [N, K, G, W]
    planted = (rng.random(p_w.shape) < p_w).reshape(N, K * G * W)
    background = rng.random((N, M)) < noise_p[None, :]
    present = np.concatenate([planted, background], axis=1)
    empty = ~present.any(axis=1)
    present[empty, K * G * W] = True  # a document needs at least one token: its commonest word
    counts = present * (1 + rng.poisson(EXTRA_COUNT_MEAN, size=present.shape))

    texts = token_texts(counts, [w for g in groups for w in g] + noise_words, rng)

    width = max(5, len(str(N)))
    label_sets = [frozenset(names[k] for k, y in enumerate(row) if y) for row in Y.tolist()]
    docs = tuple(
        Document(id=f"syn{i + 1:0{width}d}", text=texts[i], labels=label_sets[i],
                 split="test" if i >= N - n_test else "train", title="", date=START_DATE + i * STEP)
        for i in range(N)
    )
    params = {"n_documents": N, "n_classes": K, "n_groups_per_class": G, "words_per_group": W,
              "n_noise_words": M, "test_fraction": float(test_fraction),
              "random_state": random_state if random_state is None or isinstance(random_state, int)
              else repr(random_state)}
    truth = {
        "model": "hierarchical naive Bayes: class -> latent binary group variables -> words",
        "parameters": params,
        "classes": [
            {
                "name": names[k],
                "prior": float(prior[k]),
                "groups": [
                    {"words": groups[k * G + g], "p_active": float(p_active[k, g]),
                     "p_word_given_active": [float(x) for x in p_word[k, g]]}
                    for g in range(G)
                ],
            }
            for k in range(K)
        ],
        "p_active_other_class": P_ACTIVE_OTHER,
        "p_word_given_inactive": P_WORD_INACTIVE,
        "p_second_label": P_SECOND_LABEL,
        "second_label": "uniform over the other classes",
        "background_words": noise_words,
        "p_background_word": [float(x) for x in noise_p],
        "extra_count_poisson_mean": EXTRA_COUNT_MEAN,
        "forced_primary_classes": "documents 1..n_classes and the first n_classes test documents",
    }
    return Corpus("synthetic", docs, synthetic=True, meta={"source": "synthetic", "planted": truth})
