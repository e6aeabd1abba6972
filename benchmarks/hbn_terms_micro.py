"""Micro-averaged breakeven of HBN-OR configurations against the number of terms on Reuters'
ten most frequent classes, with Bernoulli naive Bayes on the same terms as the reference.

Usage::

    python benchmarks/hbn_terms_micro.py --stage validation|test [--terms 100,300]
                                         [--configs 'thesis;alpha=0;alpha=0,n_direct=3']
                                         [--json OUT] [--append]

A config is ``thesis`` (HBN-OR at thesis Table 4.1's settings: B = 9, alpha = 0.09, 64 EM
restarts) or comma-separated ``name=value`` changes to it.  ``--stage validation`` fits on
training-0 and scores the validation split (choose settings here); ``--stage test`` fits on the
training set and scores the test set (thesis sec. 4.1.1).  One core; seed 0.  The last line
printed is ``rows=<n>``.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from hbnlab.evaluation.measures import micro_breakeven, per_class_breakeven
from hbnlab.experiments.provenance import log_test_set_run, rows_of, stamp, start_run
from hbnlab.models.hbn import HierarchicalBNClassifier
from hbnlab.models.naive_bayes import BernoulliNBClassifier
from hbnlab.pipeline.corpus_spec import load_named_corpus
from hbnlab.pipeline.data import prepare

BASE = {"B": 9, "alpha": 0.09, "clustering": "or", "n_restarts": 64}


def parse_config(text: str) -> dict:
    if text == "thesis":
        return {}
    out = {}
    for part in text.split(","):
        key, value = part.split("=")
        out[key.strip()] = ast.literal_eval(value.strip())
    return out


def scores(data, split, n_terms, make):
    S = np.zeros(split.Y_eval.shape)
    for j, label in enumerate(data.categories):
        cols = data.selected_columns(label, n_terms)
        clf = make().fit(split.X_fit[:, cols], split.Y_fit[:, j])
        S[:, j] = clf.decision_function(split.X_eval[:, cols])
    return S


#: the committed log of every run that scored a test set
TEST_SET_RUNS = Path(__file__).parent / "results" / "TEST_SET_RUNS.md"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reuters-dir", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    ap.add_argument("--stage", choices=("validation", "test"), required=True)
    ap.add_argument("--terms", default="100,300")
    ap.add_argument("--configs", default="thesis")
    ap.add_argument("--no-nb", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--append", action="store_true")
    args = ap.parse_args(argv)
    prov = start_run()
    data = prepare(load_named_corpus("reuters", reuters_dir=args.reuters_dir, download=False))
    split = data.split(args.stage)
    earlier = json.loads(Path(args.json).read_text()) if args.json and args.append and Path(args.json).exists() else []
    rows = rows_of(earlier)
    if args.stage == "test":
        log_test_set_run(TEST_SET_RUNS, args.json or "(none: printed only)", prov)
    runs = [] if args.no_nb else [("naive Bayes", None)]
    runs += [(c, parse_config(c)) for c in args.configs.split(";")]
    with threadpool_limits(1):
        for n_terms in (int(t) for t in args.terms.split(",")):
            for name, changes in runs:
                c0 = time.process_time()
                if changes is None:
                    S = scores(data, split, n_terms, BernoulliNBClassifier)
                else:
                    params = {**BASE, **changes}
                    S = scores(data, split, n_terms,
                               lambda p=params: HierarchicalBNClassifier(n_features=None, random_state=0, **p))
                row = {"stage": args.stage, "n_terms": n_terms, "config": name,
                       "micro_breakeven": 100 * micro_breakeven(split.Y_eval, S),
                       "per_class": dict(zip(data.categories, (100 * per_class_breakeven(split.Y_eval, S)).tolist())),
                       "cpu_seconds": round(time.process_time() - c0, 1)}
                rows = [r for r in rows if (r["stage"], r["n_terms"], r["config"]) != (args.stage, n_terms, name)]
                rows.append(row)
                print(f"{args.stage:10s} {n_terms:4d} {name:30s} micro {row['micro_breakeven']:5.1f} "
                      f"{row['cpu_seconds']:7.1f}s", flush=True)
                if args.json:
                    Path(args.json).write_text(json.dumps(stamp(rows, prov, earlier=earlier), indent=1))
    print(f"rows={len(rows)}")


if __name__ == "__main__":
    main()
