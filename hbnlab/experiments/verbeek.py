"""The data behind Verbeek's Figures 6.1-6.3 (Verbeek 2000, sec. 6.2).

* Figure 6.1: test accuracy of the naive Bayes over word groups against the number of groups
  (one sample of ``fig61_docs_per_class`` documents per class; Verbeek: 450);
* Figure 6.2: number of groups against the sample size (documents per class): words present in
  the sample, the best number on the test set ("cross-validation"), and the numbers chosen by
  MDL with the probabilistic and the exceptions label codes;
* Figure 6.3: test accuracy of those three choices against the sample size.

Verbeek used 8 newsgroups of 20 Newsgroups, a lexicon of the 1000 terms with the highest mutual
information with the labels (his eq. 2.1), stemming and a stop list, 50 test documents per class
and sample sizes 10, 20, ..., 900 per class.  :func:`verbeek_figures` follows that protocol on
any single-label corpus: given an 8-group newsgroup-style corpus it uses its classes; on
Reuters-21578 it uses the ModApte documents carrying exactly one of the 90 categories and the 8
most frequent such classes (on Distribution 1.0: earn, acq, crude, trade, money-fx, interest,
money-supply, ship), testing on the single-label ModApte test documents of those classes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.special import xlogy

from hbnlab.clustering.mdl import mdl_word_groups

__all__ = [
    "DEFAULT_SAMPLE_SIZES",
    "VerbeekData",
    "VerbeekFigures",
    "single_label_data",
    "select_terms_by_mutual_information",
    "verbeek_curves",
    "verbeek_figures",
]

DEFAULT_SAMPLE_SIZES = (10, 20, 30, 50, 75, 100, 150, 200, 300, 450, 600, 900)


@dataclass(frozen=True)
class VerbeekData:
    """Single-label count matrices restricted to the chosen classes and terms."""

    X_train: sp.csr_matrix
    y_train: np.ndarray
    X_test: sp.csr_matrix
    y_test: np.ndarray
    classes: tuple
    terms: tuple
    corpus_name: str = ""


@dataclass
class VerbeekFigures:
    """Data frames and plotly figures behind Verbeek's Figures 6.1-6.3.

    Attributes
    ----------
    accuracy_vs_groups : pandas.DataFrame
        Figure 6.1: ``n_groups``, ``accuracy`` (test) and the code-length curves of that run.
    groups_vs_sample : pandas.DataFrame
        Figure 6.2: per ``docs_per_class``: ``n_train``, ``n_words_present``,
        ``n_groups_best``, ``n_groups_probabilistic``, ``n_groups_exceptions``.
    accuracy_vs_sample : pandas.DataFrame
        Figure 6.3: per ``docs_per_class``: ``accuracy_best``, ``accuracy_probabilistic``,
        ``accuracy_exceptions``.
    fig_6_1, fig_6_2, fig_6_3 : plotly.graph_objects.Figure
    meta : dict
        Corpus, classes, number of terms, chosen groups of the Figure 6.1 run, parameters.
    """

    accuracy_vs_groups: object
    groups_vs_sample: object
    accuracy_vs_sample: object
    fig_6_1: object = None
    fig_6_2: object = None
    fig_6_3: object = None
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Plain JSON-serialisable content (the figures are left out)."""

        def records(df):
            return [{k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()}
                    for r in df.to_dict(orient="records")]

        return {
            "meta": self.meta,
            "figure_6_1": records(self.accuracy_vs_groups),
            "figure_6_2": records(self.groups_vs_sample),
            "figure_6_3": records(self.accuracy_vs_sample),
        }


# ---------------------------------------------------------------------------------- data
def select_terms_by_mutual_information(X, y, n_terms: int) -> np.ndarray:
    """Columns of the ``n_terms`` terms with the highest I(C; W) (Verbeek eq. 2.1).

    W is the presence of the term in a document, C the (single) class; ties by column index.
    """
    Xb = sp.csr_matrix(X, copy=True)
    Xb.data[:] = 1.0
    y = np.asarray(y, dtype=np.int64)
    C = int(y.max()) + 1
    m = y.size
    onehot = sp.csr_matrix((np.ones(m), (np.arange(m), y)), shape=(m, C))
    n1 = np.asarray((Xb.T @ onehot).todense())  # documents of class c containing w
    nc = np.bincount(y, minlength=C).astype(np.float64)
    n0 = nc[None, :] - n1
    # I(C; W) = sum over w-values and classes of p(w, c) log p(w, c) / (p(w) p(c)), in bits
    w1 = n1.sum(1, keepdims=True)
    w0 = n0.sum(1, keepdims=True)
    term = (xlogy(n1, n1).sum(1) + xlogy(n0, n0).sum(1) - xlogy(w1, w1)[:, 0] - xlogy(w0, w0)[:, 0]
            - xlogy(nc, nc).sum() + xlogy(m, m))
    G = term / (m * np.log(2.0))
    order = np.lexsort((np.arange(G.size), -G))
    return np.sort(order[: int(n_terms)])


def single_label_data(corpus, *, n_classes: int = 8, n_terms: int = 1000, indexing=None,
                      test_per_class: int | None = None, random_state=0) -> VerbeekData:
    """Count matrices of the single-label documents of the ``n_classes`` largest classes.

    A document is single-label if exactly one of its labels is a category with training and
    test documents (on Reuters: one of the 90 ModApte categories).  The indexer is fitted on the
    training documents of those classes (default: counts, Porter stemming, SMART stop list, as
    Verbeek's Rainbow preprocessing); the lexicon is then cut to the ``n_terms`` terms with the
    highest mutual information with the class (Verbeek sec. 6.2).
    """
    from hbnlab.text import IndexingConfig, TermIndexer

    cats = set(corpus.categories(min_train=1, min_test=1))
    single = [(d, next(iter(d.labels & cats))) for d in corpus.documents if len(d.labels & cats) == 1]
    counts: dict = {}
    for d, lab in single:
        if d.split == "train":
            counts[lab] = counts.get(lab, 0) + 1
    classes = tuple(sorted(counts, key=lambda c: (-counts[c], c))[: int(n_classes)])
    if len(classes) < 2:
        raise ValueError(f"corpus {corpus.name!r}: fewer than 2 classes with single-label training documents")
    index = {c: i for i, c in enumerate(classes)}
    train = [(d, index[lab]) for d, lab in single if lab in index and d.split == "train"]
    test = [(d, index[lab]) for d, lab in single if lab in index and d.split == "test"]
    if test_per_class is not None:
        rng = np.random.default_rng(random_state)
        keep = []
        ys = np.array([c for _, c in test])
        for c in range(len(classes)):
            idx = np.flatnonzero(ys == c)
            keep.extend(rng.choice(idx, min(int(test_per_class), idx.size), replace=False).tolist())
        test = [test[i] for i in sorted(keep)]
    if not test:
        raise ValueError(f"corpus {corpus.name!r}: no single-label test documents in classes {classes}")
    cfg = indexing if indexing is not None else IndexingConfig(binary=False, stemming="porter", stopwords="smart")
    ix = TermIndexer(cfg)
    Xtr = ix.fit_transform(corpus.texts([d for d, _ in train]))
    Xte = ix.transform(corpus.texts([d for d, _ in test]))
    ytr = np.array([c for _, c in train], dtype=np.int64)
    yte = np.array([c for _, c in test], dtype=np.int64)
    cols = select_terms_by_mutual_information(Xtr, ytr, min(int(n_terms), Xtr.shape[1]))
    vocab = np.asarray(ix.vocabulary_)[cols]
    return VerbeekData(Xtr[:, cols].tocsr(), ytr, Xte[:, cols].tocsr(), yte, classes, tuple(vocab.tolist()),
                       corpus.name)


# ---------------------------------------------------------------------------------- curves
def _sample_per_class(y, n_per_class, rng) -> np.ndarray:
    idx = []
    for c in np.unique(y):  # loop over classes
        members = np.flatnonzero(y == c)
        idx.append(rng.choice(members, min(int(n_per_class), members.size), replace=False))
    return np.sort(np.concatenate(idx))


def _best_index(acc, n_groups) -> int:
    """Position of the highest accuracy; ties go to fewer groups."""
    m = acc.max()
    cand = np.flatnonzero(acc >= m - 1e-12)
    return int(cand[np.argmin(n_groups[cand])])


def verbeek_curves(data: VerbeekData, *, sample_sizes=DEFAULT_SAMPLE_SIZES, fig61_docs_per_class: int = 450,
                   pool_size: int | None = 100, rho: int = 25, random_state=0, progress=None):
    """Compute the three figures' data frames from prepared matrices (see :func:`verbeek_figures`)."""
    import pandas as pd

    rng = np.random.default_rng(random_state)
    # Figure 6.1: one sample, accuracy along the whole merge sequence
    idx = _sample_per_class(data.y_train, fig61_docs_per_class, rng)
    res = mdl_word_groups(data.X_train[idx], data.y_train[idx], pool_size=pool_size, rho=rho,
                          eval_set=(data.X_test, data.y_test))
    f61 = res.to_frame().rename(columns={"eval_accuracy": "accuracy"})
    meta61 = {
        "docs_per_class": int(fig61_docs_per_class),
        "n_train": int(idx.size),
        "n_words_present": int(res.terms.size),
        "n_groups_exceptions": res.best_n_groups("exceptions"),
        "n_groups_probabilistic": res.best_n_groups("probabilistic"),
        "n_groups_best": int(res.n_groups[_best_index(res.eval_accuracy, res.n_groups)]),
        "accuracy_all_words": float(res.eval_accuracy[0]),
    }
    rows62, rows63 = [], []
    sizes = [int(s) for s in sample_sizes]
    for j, s in enumerate(sizes):  # loop over sample sizes
        if progress is not None:
            progress(j / max(len(sizes), 1), f"sample size {s} per class")
        idx = _sample_per_class(data.y_train, s, rng)
        ys = data.y_train[idx]
        if np.unique(ys).size < 2:
            continue
        r = mdl_word_groups(data.X_train[idx], ys, pool_size=pool_size, rho=rho,
                            eval_set=(data.X_test, data.y_test))
        acc = r.eval_accuracy
        ib = _best_index(acc, r.n_groups)
        kp, ke = r.best_n_groups("probabilistic"), r.best_n_groups("exceptions")
        ip = int(np.flatnonzero(r.n_groups == kp)[0])
        ie = int(np.flatnonzero(r.n_groups == ke)[0])
        rows62.append({"docs_per_class": s, "n_train": int(idx.size), "n_words_present": int(r.terms.size),
                       "n_groups_best": int(r.n_groups[ib]), "n_groups_probabilistic": kp,
                       "n_groups_exceptions": ke})
        rows63.append({"docs_per_class": s, "accuracy_best": float(acc[ib]),
                       "accuracy_probabilistic": float(acc[ip]), "accuracy_exceptions": float(acc[ie]),
                       "accuracy_all_words": float(acc[0])})
    if progress is not None:
        progress(1.0, "done")
    return f61, pd.DataFrame(rows62), pd.DataFrame(rows63), meta61


def _figures(f61, f62, f63, meta61):
    import plotly.graph_objects as go

    fig1 = go.Figure()
    fig1.add_trace(go.Scatter(x=f61["n_groups"], y=f61["accuracy"], mode="lines", name="test accuracy"))
    for key, dash in (("n_groups_exceptions", "solid"), ("n_groups_probabilistic", "dot")):
        k = meta61[key]
        acc = float(f61.loc[f61["n_groups"] == k, "accuracy"].iloc[0])
        fig1.add_trace(go.Scatter(x=[k], y=[acc], mode="markers", name=f"MDL ({key.split('_')[-1]}): {k} groups",
                                  marker={"size": 10, "symbol": "diamond" if dash == "solid" else "circle"}))
    fig1.update_layout(title=f"Fig. 6.1: accuracy against number of word groups "
                             f"({meta61['docs_per_class']} documents per class)",
                       xaxis={"type": "log", "title": "number of word groups"},
                       yaxis={"title": "test accuracy", "range": [0, 1]})
    fig2 = go.Figure()
    for col, name, dash in (("n_words_present", "words in sample", "solid"),
                            ("n_groups_best", "best on test set", "solid"),
                            ("n_groups_probabilistic", "MDL, probabilistic code", "dot"),
                            ("n_groups_exceptions", "MDL, coding exceptions", "solid")):
        fig2.add_trace(go.Scatter(x=f62["docs_per_class"], y=f62[col], mode="lines+markers", name=name,
                                  line={"dash": dash}))
    fig2.update_layout(title="Fig. 6.2: number of word groups against sample size",
                       xaxis={"title": "documents per class"}, yaxis={"type": "log", "title": "number of groups"})
    fig3 = go.Figure()
    for col, name, dash in (("accuracy_best", "best on test set", "solid"),
                            ("accuracy_probabilistic", "MDL, probabilistic code", "dot"),
                            ("accuracy_exceptions", "MDL, coding exceptions", "solid")):
        fig3.add_trace(go.Scatter(x=f63["docs_per_class"], y=f63[col], mode="lines+markers", name=name,
                                  line={"dash": dash}))
    fig3.update_layout(title="Fig. 6.3: accuracy against sample size", xaxis={"title": "documents per class"},
                       yaxis={"title": "test accuracy", "range": [0, 1]})
    return fig1, fig2, fig3


def verbeek_figures(corpus=None, *, data: VerbeekData | None = None, n_classes: int = 8, n_terms: int = 1000,
                    sample_sizes=DEFAULT_SAMPLE_SIZES, fig61_docs_per_class: int = 450, pool_size: int | None = 100,
                    rho: int = 25, indexing=None, test_per_class: int | None = None, random_state=0,
                    progress=None) -> VerbeekFigures:
    """Reproduce the data and plots of Verbeek's Figures 6.1-6.3 on a single-label corpus.

    Parameters
    ----------
    corpus : hbnlab.corpus.Corpus, optional
        An 8-group newsgroup-style corpus, or Reuters-21578 (then the single-label ModApte
        documents of the 8 largest classes).  Either ``corpus`` or ``data`` is required.
    data : VerbeekData, optional
        Prepared matrices (skips indexing).
    n_classes, n_terms : int
        Classes kept (8) and lexicon size (1000 terms by mutual information, Verbeek sec. 6.2).
    sample_sizes : sequence of int
        Documents per class of the samples of Figures 6.2-6.3 (Verbeek: 10, 20, ..., 900; a class
        with fewer training documents contributes all of them).
    fig61_docs_per_class : int
        Sample of Figure 6.1 (Verbeek: 450).
    pool_size, rho : see :func:`hbnlab.clustering.mdl.mdl_word_groups`.
    indexing : hbnlab.text.IndexingConfig, optional
        Default: counts, Porter stemming, SMART stop list.
    test_per_class : int or None
        Verbeek tests on 50 documents per class; ``None`` uses the whole test split.
    random_state : int
        Seeds the samples.
    progress : callable(fraction, message), optional

    Returns
    -------
    VerbeekFigures
    """
    if data is None:
        if corpus is None:
            raise ValueError("verbeek_figures needs a corpus or prepared data")
        data = single_label_data(corpus, n_classes=n_classes, n_terms=n_terms, indexing=indexing,
                                 test_per_class=test_per_class, random_state=random_state)
    f61, f62, f63, meta61 = verbeek_curves(data, sample_sizes=sample_sizes, fig61_docs_per_class=fig61_docs_per_class,
                                           pool_size=pool_size, rho=rho, random_state=random_state,
                                           progress=progress)
    fig1, fig2, fig3 = _figures(f61, f62, f63, meta61)
    per_class_train = np.bincount(data.y_train, minlength=len(data.classes)).tolist()
    per_class_test = np.bincount(data.y_test, minlength=len(data.classes)).tolist()
    meta = {
        "corpus": data.corpus_name,
        "classes": list(data.classes),
        "n_terms": len(data.terms),
        "train_per_class": dict(zip(data.classes, per_class_train)),
        "test_per_class": dict(zip(data.classes, per_class_test)),
        "pool_size": pool_size,
        "rho": int(rho),
        "random_state": random_state,
        "figure_6_1": meta61,
    }
    return VerbeekFigures(f61, f62, f63, fig1, fig2, fig3, meta)
