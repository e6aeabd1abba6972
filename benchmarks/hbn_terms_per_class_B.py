"""HBN-OR with the number of terms chosen per class: the branching factor B beyond the thesis's grid.

Usage::

    python benchmarks/hbn_terms_per_class_B.py [--reuters-dir DIR] [--from RESULT.json] [--B 9,12,15]
                                               [--alpha 0] [--restarts 64] [--validation-only]
                                               [--json OUT]

Reads the terms per class of an HBN row from a ``hbnlab reproduce table-4.10 --json`` result (by
default ``benchmarks/results/terms_per_class_tuned_reuters.json``, where they were chosen on
validation), scores HBN-OR at each ``--B`` and number of EM restarts ``--restarts`` (alpha fixed) on
the validation split (fitted on training-0, the thesis's date split), picks the pair with the best
validation micro-breakeven (ties to the smaller B, then to fewer restarts) and scores that one pair
once on the test set (not with ``--validation-only``).  The last line printed is ``test_micro=<x>
test_macro=<y> B=<B> n_restarts=<R>``, with ``--validation-only`` ``validation_micro=<x> B=<B>
n_restarts=<R>``.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from threadpoolctl import threadpool_limits

from hbnlab.experiments import thesis
from hbnlab.pipeline.corpus_spec import load_named_corpus
from hbnlab.pipeline.data import prepare

DEFAULT_FROM = Path(__file__).parent / "results" / "terms_per_class_tuned_reuters.json"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reuters-dir", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    ap.add_argument("--from", dest="source", default=str(DEFAULT_FROM))
    ap.add_argument("--B", default="9,12,15")
    ap.add_argument("--alpha", type=float, default=0.0)
    ap.add_argument("--restarts", default="64")
    ap.add_argument("--validation-only", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    rows = [r for r in json.loads(Path(args.source).read_text())["rows"] if r.get("n_features_per_class")]
    if not rows:
        raise SystemExit(f"{args.source}: no row with terms chosen per class")
    mapping = rows[0]["n_features_per_class"]
    corpus = load_named_corpus("reuters", reuters_dir=args.reuters_dir, download=False)
    data = prepare(corpus)
    js = thesis.tunable_indices(data)
    print(f"terms per class (from {args.source}): {mapping}", flush=True)
    out = {"terms_per_class": mapping, "alpha": args.alpha, "validation": {}}
    with threadpool_limits(1):
        scores = {}
        for B in (int(b) for b in args.B.split(",")):
            for R in (int(n) for n in args.restarts.split(",")):
                r = thesis.run_row(data, "HBN-OR", mapping, params={"B": B, "alpha": args.alpha, "n_restarts": R},
                                   stage="validation", category_indices=js)
                scores[B, R] = r["micro"]
                out["validation"][f"B={B},n_restarts={R}"] = {"micro": r["micro"], "per_class": r["per_class"]}
                print(f"B={B} alpha={args.alpha:g} n_restarts={R} validation micro {r['micro']:.2f}", flush=True)
        best, restarts = max(scores, key=lambda k: (scores[k], -k[0], -k[1]))
        if args.validation_only:
            if args.json:
                Path(args.json).write_text(json.dumps(out, indent=1))
            print(f"validation_micro={scores[best, restarts]:.2f} B={best} n_restarts={restarts}")
            return
        r = thesis.run_row(data, "HBN-OR", mapping, params={"B": best, "alpha": args.alpha, "n_restarts": restarts},
                           stage="test")
    out["test"] = {"B": best, "n_restarts": restarts, "micro": r["micro"], "macro": r["macro"],
                   "per_class": r["per_class"]}
    print("test per class: " + ", ".join(f"{k} {v:.1f}" for k, v in r["per_class"].items()))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    print(f"test_micro={r['micro']:.2f} test_macro={r['macro']:.2f} B={best} n_restarts={restarts}")


if __name__ == "__main__":
    main()
