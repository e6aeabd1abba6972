"""HIER-NB (Chakrabarti 2003, sec. 5.7; McCallum et al. 1998) against the flat learners on the
synthetic hierarchical corpus (:func:`hbnlab.corpus.make_hierarchical_corpus`: 3 topics x 3
leaves, dotted class names).

Each corpus size and seed is indexed the thesis's way (:func:`hbnlab.pipeline.data.prepare`, every
leaf a category) and every row is run on the test split with 30 terms (:func:`run_row`): NB
(Bernoulli, N0 = 0.1), MNB, SVM (C tuned on the validation split over the catalogue's grid), KNN
(k and weighting tuned likewise), HIER-NB (30 terms per internal node) and HIER-NB without
shrinkage (Laplace estimates, alpha = 1: the hierarchy and per-node selection alone), and the two
HIER-NB rows again with every term at every node (where the estimates are sparse, the case
shrinkage was designed for).  The table gives the mean and the range over the seeds of the micro
and macro breakeven.

Usage::

    python benchmarks/hierarchy_vs_flat.py [--seeds 0 1 2 3 4] [--sizes 600 3000]
        [--out benchmarks/results/hierarchy_vs_flat.json]

Writes the JSON and a Markdown table beside it (``.md``).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from hbnlab.corpus import make_hierarchical_corpus
from hbnlab.experiments.provenance import provenance_line, stamp, start_run
from hbnlab.experiments.thesis import run_row, tune_on_validation
from hbnlab.export.report import markdown_table
from hbnlab.pipeline.data import prepare

#: (row label, learner, terms, parameters; "tune" = the catalogue's validation grid)
ROWS = (
    ("NB", "NB", 30, {}),
    ("MNB", "MNB", 30, {}),
    ("SVM (C tuned)", "SVM", 30, "tune"),
    ("KNN (k, weighting tuned)", "KNN", 30, "tune"),
    ("HIER-NB", "HIER-NB", 30, {}),
    ("HIER-NB, no shrinkage", "HIER-NB", 30, {"shrinkage": False}),
    ("HIER-NB, every term", "HIER-NB", None, {}),
    ("HIER-NB, every term, no shrinkage", "HIER-NB", None, {"shrinkage": False}),
)


def run(seeds, sizes) -> dict:
    runs = []
    for size in sizes:
        for seed in seeds:
            corpus = make_hierarchical_corpus(n_documents=size, random_state=seed)
            data = prepare(corpus, categories=corpus.categories(min_train=1, min_test=1), random_state=seed)
            for label, name, n_features, params in ROWS:
                t0 = time.perf_counter()
                chosen = {}
                if params == "tune":
                    chosen, _ = tune_on_validation(data, name, n_features)
                row = run_row(data, name, n_features, params=chosen if params == "tune" else params,
                              random_state=seed)
                runs.append({"size": size, "seed": seed, "row": label, "learner": name, "params": row["params"],
                             "micro": row["micro"], "macro": row["macro"], "per_class": row["per_class"],
                             "seconds": round(time.perf_counter() - t0, 2)})
                print(f"size {size} seed {seed} {label:<26} micro {row['micro']:.1f} macro {row['macro']:.1f}",
                      flush=True)
    return {"corpus": "make_hierarchical_corpus (3 topics x 3 leaves)",
            "seeds": list(seeds), "sizes": list(sizes), "runs": runs}


def summary_table(result: dict) -> str:
    lines = []
    for size in result["sizes"]:
        for label, *_ in ROWS:
            rs = [r for r in result["runs"] if r["size"] == size and r["row"] == label]
            mi = np.array([r["micro"] for r in rs])
            ma = np.array([r["macro"] for r in rs])
            lines.append({"documents": str(size), "learner": label, "micro mean": mi.mean(),
                          "micro range": f"{mi.min():.1f} to {mi.max():.1f}", "macro mean": ma.mean(),
                          "macro range": f"{ma.min():.1f} to {ma.max():.1f}"})
    return markdown_table(pd.DataFrame(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--sizes", type=int, nargs="+", default=[600, 3000])
    ap.add_argument("--out", default="benchmarks/results/hierarchy_vs_flat.json")
    args = ap.parse_args()
    prov = start_run()
    t0 = time.perf_counter()
    result = run(args.seeds, args.sizes)
    result["seconds"] = round(time.perf_counter() - t0, 1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(stamp(result, prov), indent=2))
    md = ("# HIER-NB against flat learners on the synthetic hierarchical corpus\n\n"
          "Breakeven (%) on the test split, 30 terms (per class; per internal node for HIER-NB) unless the row "
          f"says every term, seeds {result['seeds']}; mean and range over the seeds.  "
          "Command: `python benchmarks/hierarchy_vs_flat.py`.\n\n" + summary_table(result) + "\n")
    out.with_suffix(".md").write_text(provenance_line(prov) + "\n\n" + md)
    print(md)
    print(f"wrote {out} and {out.with_suffix('.md')} in {result['seconds']}s")


if __name__ == "__main__":
    main()
