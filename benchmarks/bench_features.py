"""Speed of indexing, term scoring and evaluation measures, against scikit-learn where it overlaps.

Usage::

    HBNLAB_REUTERS_DIR=/path/to/reuters21578 python benchmarks/bench_features.py

Without ``HBNLAB_REUTERS_DIR`` a random corpus of the same size is used for the scoring and
measure timings (indexing is then skipped).
"""
from __future__ import annotations

import os
import time

import numpy as np
import scipy.sparse as sp

from hbnlab.experiments.provenance import start_run


def timed(label, fn, repeat=3):
    best = min(_once(fn) for _ in range(repeat))
    print(f"{label:<55s} {best:8.3f} s")


def _once(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main():
    from hbnlab.evaluation import eleven_point_average_precision, f1_at_k, macro_breakeven, micro_breakeven
    from hbnlab.features import SCORE_METHODS, score_terms
    from hbnlab.text import TermIndexer

    start_run()
    path = os.environ.get("HBNLAB_REUTERS_DIR")
    if path:
        from sklearn.feature_extraction.text import CountVectorizer

        from hbnlab.corpus import load_reuters21578

        corpus = load_reuters21578(path)
        train, test = corpus.train, corpus.test
        tr, te = corpus.texts(train), corpus.texts(test)
        print(f"Reuters-21578 ModApte: {len(tr)} training, {len(te)} test documents")
        timed("TermIndexer (thesis config) fit_transform + transform",
              lambda: (lambda ix: (ix.fit_transform(tr), ix.transform(te)))(TermIndexer()))
        timed("sklearn CountVectorizer(binary, min_df=2) same texts",
              lambda: (lambda v: (v.fit_transform(tr), v.transform(te)))(
                  CountVectorizer(binary=True, min_df=2, token_pattern=r"[a-z]+")))
        cats = corpus.categories(min_train=1, min_test=1)
        X = TermIndexer().fit_transform(tr)
        Y = corpus.label_matrix(train, cats)
    else:
        rng = np.random.default_rng(0)
        X = sp.random(7769, 15715, density=0.004, random_state=rng, format="csr")
        Y = rng.random((7769, 90)) < 0.02
        print("random corpus: 7769 x 15715, 90 categories")
    for m in SCORE_METHODS:
        timed(f"score_terms(method={m!r}) all terms x {Y.shape[1]} categories", lambda m=m: score_terms(X, Y, m))
    from sklearn.feature_selection import chi2

    timed("sklearn.feature_selection.chi2, one category (x90 for all)", lambda: chi2(X, Y[:, 0]))

    rng = np.random.default_rng(1)
    Yt = rng.random((3019, 90)) < 0.015
    St = rng.random((3019, 90))
    timed("micro_breakeven 3019 x 90", lambda: micro_breakeven(Yt, St))
    timed("macro_breakeven 3019 x 90", lambda: macro_breakeven(Yt, St))
    timed("eleven_point_average_precision 3019 x 90", lambda: eleven_point_average_precision(Yt, St))
    timed("f1_at_k(k=3, macro) 3019 x 90", lambda: f1_at_k(Yt, St, 3, "macro"))


if __name__ == "__main__":
    main()
