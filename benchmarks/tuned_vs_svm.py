"""How far the tuned HBN rows stand from the linear SVM with 30 terms on Reuters' test set, and how
sure that distance is: the paired bootstrap of the breakeven difference.

Usage::

    python benchmarks/tuned_vs_svm.py [--reuters-dir DIR] [--rows FILE,...] [--baseline SVM:30]
                                      [--baseline-from FILE] [--sweep-scores CSV:CLASSIFIER,...]
                                      [--n-boot 2000] [--json OUT]

Each ``--rows`` file is a ``hbnlab reproduce table-4.10 --json`` result whose row was chosen on
validation (the terms per class and the settings it records); by default the reported tuned
HBN-OR, HBN-AVG and HBN-DEP rows of ``benchmarks/results``.  The script fits each row once more on
the training set with the recorded settings, checks that it scores the recorded micro breakeven,
fits the baseline the same way (its settings, e.g. the SVM's C chosen on validation, from the row of
``--baseline-from``, by default the thesis table's ``benchmarks/results/thesis/table-4.10.json``),
and compares the two on the same test documents with
:func:`hbnlab.evaluation.paired_bootstrap` (the documents resampled ``--n-boot`` times, one resample
for both systems; a 95% percentile interval and a two-sided p-value of the difference).  Nothing is
chosen here: the rows and the baseline are fixed before the test set is read.

``--sweep-scores`` adds rows of ``hbnlab sweep`` runs (chosen on validation by the sweep): the
test scores its ``--out`` folder holds (``test_scores.csv``) for one classifier.  Their labels must
be the test labels here, document for document, or the script stops.

The last lines are ``<row>_minus_<baseline>_micro=<d> low=<l> high=<h> p=<p>`` (a sweep's row:
``<classifier>@<its --out folder>``).
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from hbnlab.evaluation import paired_bootstrap
from hbnlab.experiments import thesis
from hbnlab.experiments.provenance import stamp, start_run
from hbnlab.pipeline.corpus_spec import load_named_corpus
from hbnlab.pipeline.data import prepare

RESULTS = Path(__file__).parent / "results"
TABLE = RESULTS / "thesis" / "table-4.10.json"
DEFAULT_ROWS = ",".join(str(RESULTS / f) for f in (
    "terms_per_class_retuned_B15_reuters.json", "terms_per_class_tuned_k_avg_reuters.json",
    "terms_per_class_tuned_k_dep_reuters.json"))


def recorded_row(path: str) -> dict:
    row = thesis.per_class_terms_row(json.loads(Path(path).read_text()), path)
    if row.get("stage") != "test":
        raise SystemExit(f"{path}: its row with terms chosen per class was scored on {row.get('stage')!r}, not test")
    return row


def sweep_scores(path: str, classifier: str, categories, Y):
    """(documents, categories) test scores of ``classifier`` from a sweep's ``test_scores.csv``,
    the columns in the order of ``categories``; stops unless its labels are ``Y``."""
    table = pd.read_csv(path)
    if classifier not in table.columns:
        raise SystemExit(f"{path}: no column {classifier!r}; it has {list(table.columns[3:])}")
    missing = sorted(set(categories) - set(table["category"]))
    if missing:
        raise SystemExit(f"{path}: no scores for {missing}")
    wide = table.pivot(index="document", columns="category")
    labels = wide["label"][list(categories)].to_numpy()
    if labels.shape != Y.shape or not np.array_equal(labels, Y):
        raise SystemExit(f"{path}: its test labels are not this test split's, document for document")
    return wide[classifier][list(categories)].to_numpy(dtype=float)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reuters-dir", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    ap.add_argument("--rows", default=DEFAULT_ROWS)
    ap.add_argument("--baseline", default="SVM:30")
    ap.add_argument("--baseline-from", default=str(TABLE))
    ap.add_argument("--sweep-scores", default="",
                    help="comma list of SWEEP_OUT/test_scores.csv:CLASSIFIER (rows tuned by hbnlab sweep)")
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    prov = start_run()
    base_name, base_terms = args.baseline.split(":")
    recorded = [r for r in json.loads(Path(args.baseline_from).read_text())["rows"]
                if r["classifier"] == base_name and r["n_features"] == int(base_terms)]
    if not recorded:
        raise SystemExit(f"{args.baseline_from}: no row {args.baseline}")
    data = prepare(load_named_corpus("reuters", reuters_dir=args.reuters_dir, download=False))
    Y = data.evaluation("test")[0]
    out = {"baseline": args.baseline, "baseline_params": recorded[0]["params"], "n_boot": args.n_boot, "rows": []}
    with threadpool_limits(1):
        base = thesis.run_row(data, base_name, int(base_terms), params=recorded[0]["params"], stage="test",
                              keep_models=True, paper=False)
        if base["micro"] != recorded[0]["micro"]:
            raise SystemExit(f"{args.baseline} scores {base['micro']} micro now, {args.baseline_from} records "
                             f"{recorded[0]['micro']}")
        print(f"{args.baseline} {recorded[0]['params']}: test micro {base['micro']:.2f} macro {base['macro']:.2f}",
              flush=True)
        summary = []
        rows = []
        for path in [p for p in args.rows.split(",") if p]:
            rec = recorded_row(path)
            name, params = rec["classifier"], rec["params"]
            row = thesis.run_row(data, name, rec["n_features_per_class"], params=params, stage="test",
                                 keep_models=True)
            if row["micro"] != rec["micro"]:
                raise SystemExit(f"{path}: {name} scores {row['micro']} micro now, the file records {rec['micro']}")
            rows.append((Path(path).name, name, name, params, row["_scores"]))
        for spec in [p for p in args.sweep_scores.split(",") if p]:
            path, _, name = spec.rpartition(":")
            shown = f"{Path(path).parent.name}/{Path(path).name}"
            rows.append((shown, name, f"{name}@{Path(path).parent.name}", "tuned by hbnlab sweep",
                         sweep_scores(path, name, data.categories, Y)))
        for shown, name, label, params, S in rows:
            boot = paired_bootstrap(Y, base["_scores"], S, categories=data.categories,
                                    n_boot=args.n_boot, random_state=0)
            print(f"\n{name} {params} (from {shown}), B = {name} and A = {args.baseline}:")
            print(boot.round(3).to_string())
            out["rows"].append({"file": shown, "classifier": name, "params": params,
                                "bootstrap": json.loads(boot.to_json(orient="index"))})
            mic = boot.loc["micro"]
            summary.append(f"{label}_minus_{base_name}{base_terms}_micro={mic['B - A']:.2f} low={mic['low']:.2f} "
                           f"high={mic['high']:.2f} p={mic['p']:.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps(stamp(out, prov), indent=1))
    print()
    print("\n".join(summary))


if __name__ == "__main__":
    main()
