"""The thesis's experimental protocol on Reuters-21578 ModApte (seed 000 ch. 4).

* Indexing (sec. 4.1.2): lowercase, maximal letter runs, function words removed, no stemming,
  terms occurring in one training document dropped, binary features; vocabulary from the
  training set.
* Local feature selection by information gain on the *whole* training set, for the validation
  experiments too (sec. 4.1.2, last sentence).
* The 10 most frequent categories; one binary classifier per category.
* Validation experiments (Tables 4.2-4.9): train on training-0, measure on the validation split.
  Test experiments (Table 4.10): train on the training set, measure on the test set.
* Measures: per-class precision/recall breakeven, micro-averaged (all decisions of the 10 classes
  pooled, scores are probabilities) and macro-averaged, in percent.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed

from hbnlab.experiments import paper_values as pv

STAGES = ("test", "validation")


@dataclass
class ProtocolData:
    """Indexed data of one protocol run (kept in memory; cheap to ship to worker processes)."""

    categories: list
    vocabulary: list
    X_train: sp.csr_matrix
    X_test: sp.csr_matrix
    Y_train: np.ndarray
    Y_test: np.ndarray
    train0: np.ndarray  # bool mask over training rows: training-0 split
    scores: np.ndarray  # (n_terms, n_categories) selection scores on the whole training set
    corpus_info: dict = field(default_factory=dict)

    def ranked_features(self, j: int) -> np.ndarray:
        """Column indices sorted by decreasing score for category j (ties by index)."""
        s = self.scores[:, j]
        return np.lexsort((np.arange(s.size), -s))

    def split(self, stage: str):
        """(X_fit, Y_fit, X_eval, Y_eval) for 'test' (train -> test) or 'validation'
        (training-0 -> validation)."""
        if stage == "test":
            return self.X_train, self.Y_train, self.X_test, self.Y_test
        if stage == "validation":
            m = self.train0
            return self.X_train[m], self.Y_train[m], self.X_train[~m], self.Y_train[~m]
        raise ValueError(f"stage must be one of {STAGES}, got {stage!r}")


def prepare_data(corpus, *, n_categories: int = 10, categories=None, indexing=None,
                 selection: str = "ig", progress=None) -> ProtocolData:
    """Index a corpus the thesis's way and score terms for the ``n_categories`` most frequent
    training categories (or the given ``categories``)."""
    from hbnlab.corpus import train0_validation_split
    from hbnlab.features import score_terms
    from hbnlab.text import IndexingConfig, TermIndexer

    cfg = indexing or IndexingConfig()
    train, test = corpus.train, corpus.test
    if categories is None:
        categories = corpus.categories(min_train=1, min_test=1)[:n_categories]
    if progress:
        progress(0.1, "indexing")
    indexer = TermIndexer(cfg)
    X_train = indexer.fit_transform(corpus.texts(train))
    X_test = indexer.transform(corpus.texts(test))
    Y_train = corpus.label_matrix(train, categories)
    Y_test = corpus.label_matrix(test, categories)
    train0_docs, _ = train0_validation_split(corpus)
    ids0 = {d.id for d in train0_docs}
    train0 = np.array([d.id in ids0 for d in train], dtype=bool)
    if progress:
        progress(0.6, "scoring terms")
    scores = score_terms(X_train, Y_train, method=selection)
    info = {
        "name": corpus.name,
        "fingerprint": corpus.fingerprint(),
        "n_train": len(train),
        "n_test": len(test),
        "n_train0": int(train0.sum()),
        "n_validation": int((~train0).sum()),
        "n_terms": len(indexer.vocabulary_),
        "indexing": cfg.to_dict(),
        "categories": list(categories),
    }
    return ProtocolData(list(categories), list(indexer.vocabulary_), X_train, X_test, Y_train, Y_test,
                        train0, scores, info)


# --------------------------------------------------------------------------- classifiers
HBN_NAMES = {"HBN-AVG": ("hbn", "avg"), "HBN-OR": ("hbn", "or"), "HBN-DEP": ("hbn", "dep"),
             "HNB-AVG": ("hnb", "avg"), "HNB-OR": ("hnb", "or"), "HNB-DEP": ("hnb", "dep")}


def make_classifier(name: str, n_features: int, params: dict | None = None, random_state: int = 0):
    """A fresh binary estimator for a Table 4.10 row name (``NB``, ``SVM``, ``HBN-OR``, ...)."""
    params = dict(params or {})
    key = name.upper()
    if key == "NB":
        from hbnlab.models.naive_bayes import BernoulliNBClassifier

        return BernoulliNBClassifier(N0=params.get("N0", 0.1), n_features=n_features)
    if key == "SVM":
        from hbnlab.models.svm import LinearSVMClassifier

        return LinearSVMClassifier(C=params.get("C", 1.0), n_features=n_features, random_state=random_state)
    if key in HBN_NAMES:
        from hbnlab.models.hbn import HierarchicalBNClassifier, HierarchicalNBClassifier

        direction, clustering = HBN_NAMES[key]
        B, alpha = pv.TABLE_4_1["HBN-" + clustering.upper()]
        cls = HierarchicalBNClassifier if direction == "hbn" else HierarchicalNBClassifier
        kw = {k: v for k, v in params.items() if k not in ("B", "alpha")}
        return cls(B=int(params.get("B", B)), alpha=float(params.get("alpha", alpha)), clustering=clustering,
                   n_features=n_features, random_state=random_state, **kw)
    from hbnlab.models.registry import make_extra_classifier

    return make_extra_classifier(name, n_features, params, random_state)


def name_nodes(est, feature_names=None, class_name=None):
    """Give a learner that draws a network (``feature_names`` / ``class_name`` parameters) the
    names of its selected terms and of its class node; other learners are left as they are."""
    supported = est.get_params()
    extra = {}
    if feature_names is not None and "feature_names" in supported:
        extra["feature_names"] = list(feature_names)
    if class_name is not None and "class_name" in supported:
        extra["class_name"] = class_name
    if extra:
        est.set_params(**extra)
    return est


def _fit_score(name, n_features, params, random_state, X_fit, y_fit, X_eval, cols, names):
    est = name_nodes(make_classifier(name, n_features, params, random_state), names)
    t0 = time.perf_counter()
    est.fit(X_fit, y_fit, selected_features=cols)
    # rank by the log-odds: the same order as P(c=1 | d), without the ties that rounding the
    # probability to 1.0 creates once |log-odds| > ~37; comparable across classes too
    z = est.decision_function(X_eval)
    return z, time.perf_counter() - t0, est


def run_row(data: ProtocolData, name: str, n_features: int, *, params: dict | None = None,
            stage: str = "test", random_state: int = 0, n_jobs: int = 1, keep_models: bool = False,
            category_indices=None) -> dict:
    """Train and score one classifier on every category; breakeven per class, micro, macro."""
    from hbnlab.evaluation import breakeven_point, macro_breakeven, micro_breakeven

    X_fit, Y_fit, X_eval, Y_eval = data.split(stage)
    js = list(range(len(data.categories))) if category_indices is None else list(category_indices)
    tasks = []
    for j in js:
        cols = data.ranked_features(j)[:n_features] if n_features else None
        names = [data.vocabulary[c] for c in cols] if cols is not None else None
        tasks.append(delayed(_fit_score)(name, n_features, params, random_state, X_fit,
                                         Y_fit[:, j].astype(np.int8), X_eval, cols, names))
    t0 = time.perf_counter()
    out = Parallel(n_jobs=n_jobs)(tasks)
    seconds = time.perf_counter() - t0
    S = np.column_stack([o[0] for o in out])
    Y = Y_eval[:, js]
    per_class = {data.categories[j]: 100 * breakeven_point(Y[:, k], S[:, k]) for k, j in enumerate(js)}
    row = {
        "classifier": name,
        "n_features": int(n_features or 0),
        "params": dict(params or {}),
        "stage": stage,
        "per_class": {k: round(v, 2) for k, v in per_class.items()},
        "micro": round(100 * micro_breakeven(Y, S), 2),
        "macro": round(100 * macro_breakeven(Y, S), 2),
        "seconds": round(seconds, 3),
        "fit_seconds_per_class": {data.categories[j]: round(o[1], 3) for j, o in zip(js, out)},
    }
    if stage == "test":
        paper = pv.table_4_10_row(name.upper(), int(n_features or 0))
        if paper is not None:
            row["paper_micro"] = paper["micro"]
            row["paper_macro"] = paper["macro"]
            row["paper_per_class"] = paper["per_class"]
    if keep_models:
        row["_models"] = [o[2] for o in out]
        row["_scores"] = S
    return row


def tune_svm_C(data: ProtocolData, n_features: int, grid=(0.01, 0.03, 0.1, 0.3, 1.0, 3.0), n_jobs: int = 1):
    """Choose the SVM complexity constant by validation micro breakeven (thesis sec. 4.2.1)."""
    results = {}
    for C in grid:
        results[C] = run_row(data, "SVM", n_features, params={"C": C}, stage="validation", n_jobs=n_jobs)["micro"]
    best = max(grid, key=lambda c: (results[c], -c))
    return best, results


DEFAULT_TABLE_4_10_ROWS = [("NB", 30), ("NB", 100), ("SVM", 30), ("SVM", 200)]


def reproduce_table_4_10(data: ProtocolData, rows=None, *, n_jobs: int = 1, tune_svm: bool = True,
                         random_state: int = 0, row_params: dict | None = None, log=print) -> dict:
    """Run the rows of Table 4.10 on the test split.  Returns the JSON document of the CLI."""
    rows = rows or DEFAULT_TABLE_4_10_ROWS
    out_rows = []
    for name, nf in rows:
        params = dict((row_params or {}).get((name, nf), {}))
        if name.upper() == "SVM" and tune_svm and "C" not in params:
            C, curve = tune_svm_C(data, nf, n_jobs=n_jobs)
            params["C"] = C
            log(f"  SVM ({nf}): C tuned on validation -> {C} (micro by C: {curve})")
        row = run_row(data, name, nf, params=params, stage="test", n_jobs=n_jobs, random_state=random_state)
        log(f"  {name} ({nf}): micro {row['micro']:.1f} macro {row['macro']:.1f}  [{row['seconds']:.1f}s]")
        out_rows.append(row)
    return {"rows": out_rows, "corpus": _corpus_json(data)}


def sweep_features(data: ProtocolData, name: str, feature_counts, *, params=None, n_jobs: int = 1,
                   paper: dict | None = None, log=print) -> dict:
    """Validation micro breakeven against the number of features (Tables 4.8 and 4.9)."""
    rows = []
    for nf in feature_counts:
        row = run_row(data, name, nf, params=params, stage="validation", n_jobs=n_jobs)
        if paper and nf in paper:
            row["paper_micro"] = paper[nf]
        log(f"  {name} ({nf}): validation micro {row['micro']:.1f}" +
            (f"  paper {paper[nf]:.1f}" if paper and nf in paper else ""))
        rows.append(row)
    return {"rows": rows, "corpus": _corpus_json(data)}


def _corpus_json(data: ProtocolData) -> dict:
    c = data.corpus_info
    return {"n_train": c.get("n_train"), "n_test": c.get("n_test"), "n_terms": c.get("n_terms"),
            "n_train0": c.get("n_train0"), "n_validation": c.get("n_validation"),
            "categories": data.categories, "fingerprint": c.get("fingerprint")}


def format_table(result: dict, *, per_class: bool = True) -> str:
    """A text table shaped like Table 4.10: classes as rows, classifiers as columns, ours and the
    thesis's value (and the difference) in each cell."""
    rows = [r for r in result["rows"]]
    if not rows:
        return "(no rows)"
    heads = [f"{r['classifier']} ({r['n_features']})" if r["n_features"] else r["classifier"] for r in rows]
    width = max(22, max(len(h) for h in heads) + 2)
    lines = ["class".ljust(10) + "".join(h.rjust(width) for h in heads),
             " " * 10 + "".join("ours / paper (diff)".rjust(width) for _ in heads)]

    def cell(ours, paper):
        if paper is None:
            return f"{ours:.1f}".rjust(width)
        return f"{ours:.1f} / {paper:.1f} ({ours - paper:+.1f})".rjust(width)

    if per_class:
        for c in rows[0]["per_class"]:
            lines.append(c.ljust(10) + "".join(
                cell(r["per_class"].get(c, float("nan")), (r.get("paper_per_class") or {}).get(c)) for r in rows))
    lines.append("micro".ljust(10) + "".join(cell(r["micro"], r.get("paper_micro")) for r in rows))
    if any("macro" in r for r in rows):
        lines.append("macro".ljust(10) + "".join(cell(r["macro"], r.get("paper_macro")) for r in rows))
    lines.append("seconds".ljust(10) + "".join(f"{r['seconds']:.1f}".rjust(width) for r in rows))
    return "\n".join(lines)
