"""Verbeek Figures 6.1-6.3: data preparation, curve invariants, Reuters shape (slow)."""
from __future__ import annotations

import json
import string

import numpy as np
import pytest

from hbnlab.corpus import Corpus, Document
from hbnlab.experiments.verbeek import (
    select_terms_by_mutual_information,
    single_label_data,
    verbeek_figures,
)
from hbnlab.text import IndexingConfig


def _word(i):
    letters = string.ascii_lowercase
    return "q" + letters[i // 26 % 26] + letters[i % 26] + "x"


def _corpus(seed=0, n_docs=900, n_classes=4, n_words=80):
    """Documents drawn from planted word groups; a few multi-label documents that must be skipped."""
    rng = np.random.default_rng(seed)
    group = np.arange(n_words) % 5
    prof = rng.dirichlet(np.ones(n_classes) * 0.4, size=5)[group]  # P(c | w) shared inside a group
    pwc = prof / prof.sum(0, keepdims=True)
    names = [f"class{c}" for c in "abcdefgh"[:n_classes]]
    docs = []
    for i in range(n_docs):
        c = i % n_classes
        words = rng.choice(n_words, size=rng.integers(8, 30), p=pwc[:, c])
        labels = {names[c]}
        if i % 50 == 7:
            labels.add(names[(c + 1) % n_classes])  # multi-label: not in the single-label subset
        docs.append(Document(id=f"d{i}", text=" ".join(_word(w) for w in words), labels=frozenset(labels),
                             split="test" if i % 5 == 0 else "train"))
    return Corpus("planted", tuple(docs), synthetic=True)


def test_single_label_data_and_term_selection():
    corpus = _corpus()
    data = single_label_data(corpus, n_classes=3, n_terms=50, indexing=IndexingConfig(binary=False, min_df=1,
                                                                                        stopwords="none"))
    assert len(data.classes) == 3 and data.X_train.shape[1] == 50 == len(data.terms)
    n_single_train = sum(1 for d in corpus.documents if d.split == "train" and len(d.labels) == 1
                         and next(iter(d.labels)) in data.classes)
    assert data.X_train.shape[0] == n_single_train == data.y_train.size
    assert set(np.unique(data.y_test)) <= {0, 1, 2}
    # counts, not indicators
    assert data.X_train.max() > 1


def test_mutual_information_selection_matches_loop():
    rng = np.random.default_rng(1)
    X = (rng.random((120, 15)) < 0.3).astype(float) * rng.integers(1, 4, (120, 15))
    y = rng.integers(0, 3, 120)
    X[:, 4] = (y == 1) * 2.0  # a perfectly informative term
    G = []
    for w in range(15):
        present = X[:, w] > 0
        g = 0.0
        for v in (True, False):
            for c in range(3):
                p = np.mean((present == v) & (y == c))
                if p > 0:
                    g += p * np.log2(p / (np.mean(present == v) * np.mean(y == c)))
        G.append(g)
    top = np.sort(np.argsort(-np.array(G), kind="stable")[:5])
    np.testing.assert_array_equal(select_terms_by_mutual_information(X, y, 5), top)
    assert 4 in top


def test_verbeek_figures_frames_and_plots():
    corpus = _corpus(seed=2)
    figs = verbeek_figures(corpus, n_classes=4, n_terms=60, sample_sizes=(3, 15, 60, 1000), fig61_docs_per_class=60,
                           pool_size=20, indexing=IndexingConfig(binary=False, min_df=1, stopwords="none"))
    f61, f62, f63 = figs.accuracy_vs_groups, figs.groups_vs_sample, figs.accuracy_vs_sample
    n = figs.meta["figure_6_1"]["n_words_present"]
    assert f61["n_groups"].tolist() == list(range(n, 0, -1))
    assert f61["accuracy"].between(0, 1).all()
    assert list(f62["docs_per_class"]) == [3, 15, 60, 1000]
    for _, r in f62.iterrows():
        for col in ("n_groups_best", "n_groups_probabilistic", "n_groups_exceptions"):
            assert 1 <= r[col] <= r["n_words_present"]
    assert (f63["accuracy_best"] >= f63[["accuracy_probabilistic", "accuracy_exceptions"]].max(axis=1) - 1e-12).all()
    # a class has ~170 training documents: 1000 per class takes them all
    assert f62["n_train"].iloc[-1] == sum(figs.meta["train_per_class"].values())
    # with plenty of data the planted structure is found: few groups, accuracy near the best
    assert 2 <= f62["n_groups_exceptions"].iloc[-1] <= 10
    assert f63["accuracy_exceptions"].iloc[-1] >= f63["accuracy_best"].iloc[-1] - 0.05
    assert len(figs.fig_6_1.data) == 3 and len(figs.fig_6_2.data) == 4 and len(figs.fig_6_3.data) == 3
    assert figs.fig_6_1.layout.xaxis.type == "log" and figs.fig_6_2.layout.yaxis.type == "log"
    json.dumps(figs.to_dict())


def test_same_seed_same_curves():
    corpus = _corpus(seed=3, n_docs=400)
    kw = dict(n_classes=4, n_terms=40, sample_sizes=(10, 30), fig61_docs_per_class=30, pool_size=10,
              indexing=IndexingConfig(binary=False, min_df=1, stopwords="none"), random_state=5)
    a, b = verbeek_figures(corpus, **kw), verbeek_figures(corpus, **kw)
    assert a.groups_vs_sample.equals(b.groups_vs_sample)
    assert a.accuracy_vs_groups.equals(b.accuracy_vs_groups)


def test_needs_corpus_or_data():
    with pytest.raises(ValueError, match="needs a corpus or prepared data"):
        verbeek_figures()


@pytest.mark.slow
def test_reuters_single_label_figures_shape(reuters_path):
    from hbnlab.corpus import load_reuters21578

    out = verbeek_figures(load_reuters21578(reuters_path), random_state=0).to_dict()
    meta = out["meta"]
    assert meta["classes"][:3] == ["earn", "acq", "crude"] and len(meta["classes"]) == 8
    assert meta["n_terms"] == 1000
    f62, f63 = out["figure_6_2"], out["figure_6_3"]
    # Verbeek's start-up period: one group for the smallest samples
    assert f62[0]["n_groups_exceptions"] == 1
    # afterwards coding exceptions chooses a handful of groups with accuracy within ~10 points of the best
    big = [(a, b) for a, b in zip(f62, f63) if a["docs_per_class"] >= 450]
    assert big and all(2 <= a["n_groups_exceptions"] <= 40 for a, _ in big)
    assert all(b["accuracy_best"] - b["accuracy_exceptions"] < 0.10 for _, b in big)
    # all 1000 words: naive Bayes accuracy on the single-label test set is high (~0.95)
    assert meta["figure_6_1"]["accuracy_all_words"] > 0.9
    json.dumps(out)
