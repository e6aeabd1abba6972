"""The foundation pipeline on Reuters-21578, stage by stage, beside scikit-learn doing the same job.

Stages (ours): parse the 22 SGML files (ModApte), index (thesis config), score information gain for
all terms x all 90 categories, then for the 10 most frequent categories select 30 terms, train and
score Bernoulli NB (N0 = 0.1) and the linear SVM.  Peer, in the same run on the same texts and
labels: scikit-learn's ``CountVectorizer`` + ``chi2`` (one call per category, 90 calls) +
``BernoulliNB`` on the 30 best chi2 terms of each of the 10 categories.  Each stage is timed
(best of ``--repeat``), peak memory (max RSS) is reported, and the ratios peer / ours.

Usage::

    HBNLAB_REUTERS_DIR=/path/to/reuters21578 python benchmarks/bench_pipeline.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

from hbnlab.experiments.provenance import start_run


def best_of(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--reuters-dir", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    start_run()
    if not args.reuters_dir:
        sys.exit("set HBNLAB_REUTERS_DIR or pass --reuters-dir")

    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.feature_selection import chi2
    from sklearn.naive_bayes import BernoulliNB

    from hbnlab.corpus import load_reuters21578
    from hbnlab.evaluation import breakeven_point
    from hbnlab.features import score_terms
    from hbnlab.models.naive_bayes import BernoulliNBClassifier
    from hbnlab.models.svm import LinearSVMClassifier
    from hbnlab.text import TermIndexer

    r = args.repeat
    rows = []
    t_parse, corpus = best_of(lambda: load_reuters21578(args.reuters_dir), r)
    rows.append(("parse Reuters SGML (ModApte)", t_parse, None))
    tr, te = corpus.texts(corpus.train), corpus.texts(corpus.test)
    cats = corpus.categories(min_train=1, min_test=1)
    Y = corpus.label_matrix(corpus.train, cats)
    Yt = corpus.label_matrix(corpus.test, cats)

    def ours_index():
        ix = TermIndexer()
        return ix.fit_transform(tr), ix.transform(te)

    def peer_index():
        v = CountVectorizer(binary=True, min_df=2, token_pattern=r"(?u)\b[a-zA-Z]+\b")
        return v.fit_transform(tr), v.transform(te)

    t_ix, (X, Xt) = best_of(ours_index, r)
    p_ix, (Xp, Xpt) = best_of(peer_index, r)
    rows.append(("index train + test", t_ix, p_ix))
    t_sc, S = best_of(lambda: score_terms(X, Y, "ig"), r)
    p_sc, _ = best_of(lambda: [chi2(Xp, Y[:, j]) for j in range(Y.shape[1])], r)
    rows.append((f"score all terms x {len(cats)} categories (IG vs chi2)", t_sc, p_sc))

    top = list(range(10))

    def ours_models(cls, **kw):
        bep = []
        for j in top:
            cols = np.lexsort((np.arange(S.shape[0]), -S[:, j]))[:30]
            m = cls(**kw).fit(X, Y[:, j].astype(int), selected_features=cols)
            bep.append(breakeven_point(Yt[:, j], m.decision_function(Xt)))
        return float(np.mean(bep))

    def peer_nb():
        bep = []
        for j in top:
            s, _ = chi2(Xp, Y[:, j])
            cols = np.argsort(-np.nan_to_num(s))[:30]
            m = BernoulliNB(alpha=0.1).fit(Xp[:, cols], Y[:, j])
            lp = m.predict_log_proba(Xpt[:, cols])
            bep.append(breakeven_point(Yt[:, j], lp[:, 1] - lp[:, 0]))
        return float(np.mean(bep))

    t_nb, m_nb = best_of(lambda: ours_models(BernoulliNBClassifier, N0=0.1), r)
    p_nb, m_pnb = best_of(peer_nb, r)
    rows.append(("NB: select 30, train, score 10 classes", t_nb, p_nb))
    t_svm, m_svm = best_of(lambda: ours_models(LinearSVMClassifier, C=0.3, random_state=0), r)
    rows.append(("SVM: select 30, train, score 10 classes", t_svm, None))

    print(f"Reuters-21578 ModApte: {len(tr)} train / {len(te)} test, {len(cats)} categories, "
          f"{X.shape[1]} terms (peer vocabulary {Xp.shape[1]})")
    print(f"{'stage':<52}{'hbnlab s':>10}{'sklearn s':>11}{'ratio':>8}")
    total_ours = total_peer = 0.0
    for name, ours, peer in rows:
        total_ours += ours
        if peer is not None:
            total_peer += peer
        ratio = f"{peer / ours:7.1f}x" if peer else "       -"
        print(f"{name:<52}{ours:10.3f}{(f'{peer:.3f}' if peer else '-'):>11}{ratio:>8}")
    print(f"macro breakeven over the 10 classes: hbnlab NB {100 * m_nb:.1f}, sklearn chi2+BernoulliNB "
          f"{100 * m_pnb:.1f}, hbnlab SVM {100 * m_svm:.1f}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (max RSS): {peak:.0f} MB")
    common = t_ix + t_sc + t_nb
    print(f"pipeline_speedup_vs_sklearn={(p_ix + p_sc + p_nb) / common:.2f}")


if __name__ == "__main__":
    main()
