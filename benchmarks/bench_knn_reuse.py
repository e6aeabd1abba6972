"""KNN validation tuning with and without the shared neighbour lists (issue 29).

The former route computed the validation x training similarity matrix for every (k, weighting)
point of the catalogue grid and every class; the lists of :func:`hbnlab.models.knn.nearest_neighbours`
are computed once per pair of matrices and shared.  Both routes run in this process on the same
synthetic corpus, the former one by sending every k through the streamed mask route
(``MAX_LISTED_K = 0``, the code the lists replaced); CPU seconds by ``time.process_time``.  The
tuning curves and the test scores of the chosen parameters must agree (printed).

Usage::

    .venv/bin/python benchmarks/bench_knn_reuse.py [--documents 20000] [--classes 4] [--terms all]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from hbnlab.corpus import make_synthetic_corpus
from hbnlab.experiments import thesis
from hbnlab.experiments.provenance import start_run
from hbnlab.models import knn
from hbnlab.models.catalog import learner
from hbnlab.pipeline.data import prepare


def _tune_and_test(data, terms):
    best, curve = thesis.tune_on_validation(data, "KNN", terms)
    row = thesis.run_row(data, "KNN", terms, params=best, keep_models=True)
    return best, curve, row["_scores"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--documents", type=int, default=20_000)
    ap.add_argument("--classes", type=int, default=4)
    ap.add_argument("--terms", default="all", help="'all' or a number of locally selected terms")
    args = ap.parse_args()
    start_run()
    terms = None if args.terms == "all" else int(args.terms)
    t0 = time.process_time()
    data = prepare(make_synthetic_corpus(n_documents=args.documents, n_classes=args.classes, random_state=0),
                   n_categories=args.classes)
    split = data.split("validation")
    grid = learner("KNN").tuning
    print(f"corpus: {args.documents} documents, {len(data.vocabulary)} terms, {args.classes} classes; validation "
          f"{split.X_eval.shape[0]} x training-0 {split.X_fit.shape[0]}; grid {dict(grid)}; terms {args.terms}; "
          f"prepared in {time.process_time() - t0:.1f} s CPU")

    knn.NEIGHBOUR_CACHE.clear()
    t0 = time.process_time()
    new = _tune_and_test(data, terms)
    t_new = time.process_time() - t0
    print(f"new route (shared neighbour lists): {t_new:.2f} s CPU, cache hits {knn.NEIGHBOUR_CACHE.hits}, "
          f"misses {knn.NEIGHBOUR_CACHE.misses}")

    listed_k, knn.MAX_LISTED_K = knn.MAX_LISTED_K, 0  # every k through the former streamed route
    try:
        t0 = time.process_time()
        old = _tune_and_test(data, terms)
        t_old = time.process_time() - t0
    finally:
        knn.MAX_LISTED_K = listed_k
    print(f"old route (similarities per k, weighting and class): {t_old:.2f} s CPU")

    same_choice = old[0] == new[0] and old[1] == new[1]
    diff = float(np.max(np.abs(old[2] - new[2]))) if old[2].size else 0.0
    print(f"chosen {new[0]}; tuning curves identical: {same_choice}; max |test score difference| {diff:.3g}")
    print(f"knn_tuning_cpu_ratio_old_over_new={t_old / t_new:.2f}")


if __name__ == "__main__":
    main()
