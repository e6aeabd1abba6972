"""Where the hierarchical naive Bayes's EM starts: 64 random restarts against one restart from
the HBN on the same tree (``HierarchicalNBClassifier(init="hbn")``), on Reuters training-0 /
validation.

Usage::

    python benchmarks/hnb_start.py [--reuters-dir DIR] [--classes earn,acq,...] [--terms 30,100]
                                   [--clusterings avg,or,dep] [--fits hbn,hnb_random,...] [--json OUT]

Data: Reuters-21578 ModApte (``$HBNLAB_REUTERS_DIR`` or ``--reuters-dir``) indexed the thesis's
way by :func:`hbnlab.pipeline.data.prepare`; every model is fitted on training-0 and scored on the
validation split (the thesis's date split, sec. 4.1.1); the test set is never touched.  Terms are
the ``n`` best by information gain for the class; B and alpha are thesis Table 4.1's for the
clustering; EM is the thesis's (64 restarts, relative tolerance 1e-4 on log P(c, f)).  One core.

Per (class, terms, clustering), up to four fits on the same data, timed in CPU seconds side by
side: the HBN; the HNB from 64 random restarts (the thesis's); the HNB started at the HBN (its CPU
includes the HBN's fit); the same with 8 HBN restarts instead of 64 (``hnb_from_hbn8``:
``n_restarts`` of ``init="hbn"`` is the HBN's).  Each reports validation and training breakeven,
the kept restart's log P(c, f) and the restart-iterations (E-steps summed over the restarts).

The summary gives, per (terms, clustering), the mean validation breakeven of each, the summed CPU
over the classes as a ratio to the HBN's and the largest per-class ratio.  Last lines:
``<fit>_over_hbn_cpu_summed_max=`` for each fit but the HBN (largest summed ratio over the (terms,
clustering) cells), then ``validation_from_hbn_minus_random_min=`` and
``validation_from_hbn8_minus_random_min=`` (the smallest difference of mean validation breakeven
to the random restarts', points).
"""
from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict

import numpy as np
from threadpoolctl import threadpool_limits

from hbnlab.evaluation.measures import breakeven_point
from hbnlab.experiments.provenance import stamp, start_run
from hbnlab.models.hbn import HierarchicalBNClassifier, HierarchicalNBClassifier
from hbnlab.pipeline.corpus_spec import load_named_corpus
from hbnlab.pipeline.data import prepare

TOP10 = "earn,acq,money-fx,grain,crude,trade,interest,ship,wheat,corn"
#: the fits: name -> (estimator class, extra parameters)
FITS = {
    "hbn": (HierarchicalBNClassifier, {}),
    "hnb_random": (HierarchicalNBClassifier, {}),
    "hnb_from_hbn": (HierarchicalNBClassifier, {"init": "hbn"}),
    "hnb_from_hbn8": (HierarchicalNBClassifier, {"init": "hbn", "n_restarts": 8}),
}


def fit_row(name, X, y, Xv, yv, clustering, seed):
    cls, extra = FITS[name]
    m = cls(clustering=clustering, n_features=None, random_state=seed, **extra)
    c0 = time.process_time()
    m.fit(X, y)
    cpu = time.process_time() - c0
    r = m.em_result_
    iters = int((r.n_iter + 1).sum())
    if m.start_em_result_ is not None:
        iters += int((m.start_em_result_.n_iter + 1).sum())
    return {"fit": name, "cpu": round(cpu, 3), "r_iters": iters,
            "log_likelihood": round(float(r.full_log_likelihood[r.best_restart]), 2),
            "validation": round(100 * breakeven_point(yv, m.decision_function(Xv)), 2),
            "training": round(100 * breakeven_point(y, m.decision_function(X)), 2)}


def summarise(rows, fits=tuple(FITS)):
    cells = defaultdict(lambda: defaultdict(list))
    for r in rows:
        cells[(r["terms"], r["clustering"])][(r["class"], r["fit"])] = r
    out = []
    for (terms, clustering), cell in sorted(cells.items()):
        classes = sorted({c for c, _ in cell})
        s = {"terms": terms, "clustering": clustering, "classes": len(classes)}
        hbn_cpu = sum(cell[(c, "hbn")]["cpu"] for c in classes)
        for name in fits:
            s[f"{name}_validation"] = round(float(np.mean([cell[(c, name)]["validation"] for c in classes])), 2)
            s[f"{name}_training"] = round(float(np.mean([cell[(c, name)]["training"] for c in classes])), 2)
            if name != "hbn":
                s[f"{name}_cpu_summed_ratio"] = round(sum(cell[(c, name)]["cpu"] for c in classes) / hbn_cpu, 2)
                s[f"{name}_cpu_ratio_max"] = round(max(cell[(c, name)]["cpu"] / cell[(c, "hbn")]["cpu"]
                                                       for c in classes), 2)
        for name in ("hnb_from_hbn", "hnb_from_hbn8"):
            if name in fits and "hnb_random" in fits:
                s[f"ll_{name[4:]}_minus_random_mean"] = round(float(np.mean(
                    [cell[(c, name)]["log_likelihood"] - cell[(c, "hnb_random")]["log_likelihood"]
                     for c in classes])), 1)
        out.append(s)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reuters-dir", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    ap.add_argument("--classes", default=TOP10)
    ap.add_argument("--terms", default="30,100")
    ap.add_argument("--clusterings", default="avg,or,dep")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fits", default=",".join(FITS), help=f"a subset of {','.join(FITS)} (hbn always runs)")
    ap.add_argument("--json", help="write the rows and the summary to this file")
    args = ap.parse_args(argv)
    prov = start_run()
    fits = ["hbn", *(f for f in FITS if f != "hbn" and f in args.fits.split(","))]
    unknown = sorted(set(args.fits.split(",")) - set(FITS))
    if unknown:
        raise SystemExit(f"--fits: unknown fit(s) {unknown}; expected names from {list(FITS)}")
    if not args.reuters_dir:
        raise SystemExit("set HBNLAB_REUTERS_DIR or pass --reuters-dir (Reuters-21578 Distribution 1.0)")
    data = prepare(load_named_corpus("reuters", reuters_dir=args.reuters_dir, download=False))
    split = data.split("validation")
    rows = []
    with threadpool_limits(1):
        HierarchicalNBClassifier(n_features=None, n_restarts=2, random_state=0).fit(
            np.eye(4, dtype=int)[[0, 1, 2, 3] * 3], np.array([0, 1] * 6))         # compiles the loops once
        for c in args.classes.split(","):
            j = data.category_index(c)
            for n in (int(t) for t in args.terms.split(",")):
                cols = data.selected_columns(c, n)
                X, y = split.X_fit[:, cols], split.Y_fit[:, j]
                Xv, yv = split.X_eval[:, cols], split.Y_eval[:, j]
                for clustering in args.clusterings.split(","):
                    for name in fits:
                        row = {"class": c, "terms": n, "clustering": clustering,
                               **fit_row(name, X, y, Xv, yv, clustering, args.seed)}
                        rows.append(row)
                        print(json.dumps(row), flush=True)
    summary = summarise(rows, fits)
    others = fits[1:]
    print("\nterms clust  validation: " + "  ".join(fits) + " | CPU / HBN's, summed (max per class): "
          + "  ".join(others) + " | LL - hnb_random's")
    for s in summary:
        print(f"{s['terms']:5d} {s['clustering']:5s} "
              + " ".join(f"{s[f'{n}_validation']:6.2f}" for n in fits) + " | "
              + " ".join(f"{s[f'{n}_cpu_summed_ratio']:5.2f} ({s[f'{n}_cpu_ratio_max']:.2f})" for n in others) + " | "
              + " ".join(f"{v:7.1f}" for k, v in s.items() if k.startswith("ll_")))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(stamp({"rows": rows, "summary": summary}, prov), f, indent=1)
    for n in others:
        print(f"{n}_over_hbn_cpu_summed_max={max(s[f'{n}_cpu_summed_ratio'] for s in summary):.2f}")
    for n in ("hnb_from_hbn", "hnb_from_hbn8"):
        if n in fits and "hnb_random" in fits:
            print(f"validation_{n[4:]}_minus_random_min="
                  f"{min(s[f'{n}_validation'] - s['hnb_random_validation'] for s in summary):.2f}")


if __name__ == "__main__":
    main()
