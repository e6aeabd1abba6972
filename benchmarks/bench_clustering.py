"""Time HBN structure construction (no EM) for every clustering, and print the thesis's
class-``trade`` trees (figs 4.1-4.3, Table 4.1 parameters).

Usage::

    python benchmarks/bench_clustering.py [--repeat R] [--sizes 30,60,100,200] [--no-reuters]

Structure construction must be fast enough for the workbench to redraw the tree while sliders
move: well under 100 ms for 30 features, about 1 s at most for 200.  Each size is timed on the
Reuters-21578 class ``trade`` (top features by information gain over the 7,770 ModApte training
documents) when ``$HBNLAB_REUTERS_DIR`` is set, else on a synthetic matrix of the same shape and
density (seeded).  Reported: the median and the maximum over ``R`` runs of ``construct_tree``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import scipy.sparse as sp

from hbnlab.clustering import construct_tree
from hbnlab.experiments.provenance import start_run

TABLE_4_1 = {"avg": (7, 0.05), "or": (9, 0.09), "dep": (7, 170.0)}  # thesis Table 4.1


def reuters_trade(max_features: int):
    from hbnlab.corpus import load_reuters21578
    from hbnlab.features import score_terms
    from hbnlab.text import index_corpus

    ic = index_corpus(load_reuters21578(os.environ["HBNLAB_REUTERS_DIR"]))
    y = ic.Y_train[:, ic.categories.index("trade")].astype(np.int64)
    scores = score_terms(ic.X_train, y.astype(bool), "ig")[:, 0]
    order = np.lexsort((np.arange(scores.size), -scores))[:max_features]  # thesis sec. 4.1.2
    names = [ic.vocabulary[c] for c in order]
    return sp.csr_matrix(ic.X_train[:, order]), y, names, scores[order]


def synthetic(n_docs: int, max_features: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n_docs) < 0.05).astype(np.int64)
    df = rng.uniform(0.01, 0.15, max_features)
    lift = rng.uniform(1.0, 6.0, max_features)
    p = np.clip(df[None, :] * np.where(y[:, None] == 1, lift[None, :], 1.0), 0, 1)
    X = sp.csr_matrix((rng.random((n_docs, max_features)) < p).astype(np.float64))
    return X, y, [f"w{k}" for k in range(max_features)], None


def time_construct(X, y, names, clustering, repeat):
    B, alpha = TABLE_4_1[clustering]
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        construct_tree(X, y, B=B, clustering=clustering, alpha=alpha, feature_names=names)
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs), max(runs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--sizes", default="30,60,100,200")
    ap.add_argument("--no-reuters", action="store_true")
    args = ap.parse_args(argv)
    start_run()
    sizes = [int(s) for s in args.sizes.split(",")]
    use_reuters = bool(os.environ.get("HBNLAB_REUTERS_DIR")) and not args.no_reuters
    if use_reuters:
        X_all, y, names_all, scores = reuters_trade(max(sizes))
        source = "Reuters-21578 ModApte training set, class trade, top features by IG"
    else:
        X_all, y, names_all, scores = synthetic(7770, max(sizes))
        source = "synthetic 7770 documents (seed 0)"
    print(f"data: {source}; {X_all.shape[0]} documents")
    print(f"{'features':>8} {'clustering':>10} {'B':>3} {'alpha':>6} {'median ms':>10} {'max ms':>8}")
    for n in sizes:
        X = X_all[:, :n]
        for clustering in ("avg", "or", "dep"):
            med, worst = time_construct(X, y, names_all[:n], clustering, args.repeat)
            B, alpha = TABLE_4_1[clustering]
            print(f"{n:>8} {clustering:>10} {B:>3} {alpha:>6g} {med * 1e3:>10.1f} {worst * 1e3:>8.1f}")
    if use_reuters:
        X = X_all[:, :30]
        print("\n30 features by IG:", ", ".join(f"{w} ({s:.4f})" for w, s in zip(names_all[:30], scores[:30])))
        for clustering, (B, alpha) in TABLE_4_1.items():
            tree = construct_tree(X, y, B=B, clustering=clustering, alpha=alpha, feature_names=names_all[:30],
                                  class_name="tradeTOPIC")
            print(f"\nHBN-{clustering.upper()}  B={B}  alpha={alpha:g}")
            print(tree.to_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
