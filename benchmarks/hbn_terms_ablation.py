"""Why HBN gets worse with more terms: an ablation on Reuters training-0 / validation.

Usage::

    python benchmarks/hbn_terms_ablation.py [--reuters-dir DIR] [--classes trade,grain,interest,crude]
                                            [--terms 30,100,300] [--variants thesis,alpha0,...]
                                            [--seed 0] [--json OUT] [--append]

Data: Reuters-21578 ModApte (``$HBNLAB_REUTERS_DIR`` or ``--reuters-dir``) indexed the thesis's
way by :func:`hbnlab.pipeline.data.prepare`; every fit is on training-0 and scored on the
validation split (the thesis's date split, sec. 4.1.1) -- the test set is never touched.  Terms
are the ``n`` best by information gain for the class (sec. 4.1.2).  BLAS runs on one thread.

Every variant is HBN-OR (or, with ``"model": "hnb"``, the hierarchical naive Bayes) at the
thesis's final settings (B = 9, alpha = 0.09, 64 EM restarts, relative tolerance 1e-4 on
log P(c, f), thesis Table 4.1) with one thing changed (see :data:`VARIANTS`).  Reported per
(class, terms, variant): validation and training breakeven, the best restart's log P(c, f)
and log P(c | f), the EM iterations (median over restarts, of the kept restart, and the E-steps
of all restarts together), the tree's shape (depth of the features, hidden nodes, hidden nodes below
hidden nodes, the depth of the 10 best terms) and CPU seconds.

``--json`` writes (or with ``--append`` extends) a list of row dicts; the last line printed is
``rows=<n>``.  ``--table FILE`` prints such a file (or the ``"ablation"`` list of a dict) as a
Markdown table.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from hbnlab.bn.structure import HIDDEN
from hbnlab.evaluation.measures import breakeven_point
from hbnlab.experiments.provenance import rows_of, stamp, start_run
from hbnlab.models.hbn import HierarchicalBNClassifier, HierarchicalNBClassifier
from hbnlab.pipeline.corpus_spec import load_named_corpus
from hbnlab.pipeline.data import prepare

#: HBN-OR at thesis Table 4.1's final settings
BASE = {"B": 9, "alpha": 0.09, "clustering": "or", "n_restarts": 64}

#: name -> changes to BASE; ``alpha_per_term`` scales alpha by 30 / n (the 30-term scale)
VARIANTS = {
    "thesis": {},
    "alpha0": {"alpha": 0.0},
    "alpha_per_term": {"alpha": "scaled"},
    "alpha0.3": {"alpha": 0.3},
    "B5": {"B": 5},
    "B12": {"B": 12},
    "restarts256": {"n_restarts": 256},
    "restarts1024": {"n_restarts": 1024},
    "conditional100": {"criterion": "conditional", "max_iter": 100},
    "absolute": {"stopping": "absolute", "tol": 1e-2, "max_iter": 100},
    "pseudo1": {"pseudo_count": 1.0},
    # the relative rule on log P(c, f) stops when the gain is below tol * |log P(c, f)|, and the
    # fixed feature part of log P(c, f) grows with the terms (40e3 nats at 30 terms, 228e3 at
    # 300 for trade): an absolute 4 nats is the 30-term threshold at every number of terms
    "absolute4": {"stopping": "absolute", "tol": 4.0},
    "alpha0_absolute4": {"alpha": 0.0, "stopping": "absolute", "tol": 4.0},
    "alpha0_direct3": {"alpha": 0.0, "n_direct": 3},
    "alpha0_restarts256": {"alpha": 0.0, "n_restarts": 256},
    # hidden nodes with more than two states (hbnlab.bn.states): k = 3 everywhere, or k in
    # {2, 3, 4} per node by BIC on training-0 ("auto") or by a held-out quarter of it
    "k3": {"hidden_states": 3},
    "auto": {"hidden_states": "auto"},
    "alpha0_k3": {"alpha": 0.0, "hidden_states": 3},
    "alpha0_auto": {"alpha": 0.0, "hidden_states": "auto"},
    "auto_holdout": {"hidden_states": "auto-holdout"},
    "alpha0_auto_holdout": {"alpha": 0.0, "hidden_states": "auto-holdout"},
    "alpha0_k3_absolute4": {"alpha": 0.0, "hidden_states": 3, "stopping": "absolute", "tol": 4.0},
    # cheaper restarts (hbnlab.bn.em): SQUAREM; after 2 E-steps only the 8 best restarts go on;
    # "model": "hnb" fits the hierarchical naive Bayes on the same tree settings
    "squarem": {"acceleration": "squarem"},
    "screen2": {"screen_iter": 2, "screen_keep": 8},
    "screen4": {"screen_iter": 4, "screen_keep": 8},
    "screen2_keep16": {"screen_iter": 2, "screen_keep": 16},
    "squarem_screen2": {"acceleration": "squarem", "screen_iter": 2, "screen_keep": 8},
    "alpha0_squarem": {"alpha": 0.0, "acceleration": "squarem"},
    "alpha0_screen2": {"alpha": 0.0, "screen_iter": 2, "screen_keep": 8},
    "hnb": {"model": "hnb"},
    "hnb_squarem": {"model": "hnb", "acceleration": "squarem"},
    "hnb_screen2": {"model": "hnb", "screen_iter": 2, "screen_keep": 8},
    "hnb_squarem_screen2": {"model": "hnb", "acceleration": "squarem", "screen_iter": 2, "screen_keep": 8},
}


def tree_shape(tree) -> dict:
    feats = tree.feature_nodes()
    depth = {tree.feature[i]: tree.depth(i) for i in feats}
    hidden = tree.hidden_nodes()
    nested_hidden = sum(tree.kind[tree.up[h]] == HIDDEN for h in hidden)
    return {
        "max_depth": max(depth.values()),
        "mean_depth": float(np.mean(list(depth.values()))),
        "top10_depth": [depth[c] for c in range(min(10, len(depth)))],
        "n_hidden": len(hidden),
        "n_hidden_below_hidden": int(nested_hidden),
        "class_feature_children": sum(tree.kind[c] != HIDDEN for c in tree.children(0)),
        "max_hidden_features": max((len(_features_below(tree, h)) for h in hidden), default=0),
    }


def _features_below(tree, i):
    out, stack = [], [i]
    while stack:
        j = stack.pop()
        for c in tree.children(j):
            (stack if tree.kind[c] == HIDDEN else out).append(c)
    return out


def run_one(data, split, category, n_terms, variant, seed):
    params = dict(BASE)
    params.update(VARIANTS[variant])
    model = HierarchicalNBClassifier if params.pop("model", "hbn") == "hnb" else HierarchicalBNClassifier
    if params["alpha"] == "scaled":
        params["alpha"] = BASE["alpha"] * 30.0 / n_terms
    j = data.category_index(category)
    cols = data.selected_columns(category, n_terms)
    X_fit, X_val = split.X_fit[:, cols], split.X_eval[:, cols]
    y_fit, y_val = split.Y_fit[:, j], split.Y_eval[:, j]
    c0 = time.process_time()
    clf = model(n_features=None, random_state=seed, **params).fit(X_fit, y_fit)
    seconds = time.process_time() - c0
    em = clf.em_result_
    best = em.best_restart
    return {
        "class": category, "n_terms": n_terms, "variant": variant,
        "params": {k: v for k, v in params.items()},
        "validation_breakeven": 100 * breakeven_point(y_val, clf.decision_function(X_val)),
        "training_breakeven": 100 * breakeven_point(y_fit, clf.decision_function(X_fit)),
        "log_likelihood": float(em.full_log_likelihood[best]),
        "conditional_log_likelihood": float(em.conditional_log_likelihood[best]),
        "iterations_median": float(np.median(em.n_iter)),
        "iterations_best": int(em.n_iter[best]),
        "restart_iterations": int((em.n_iter + 1).sum()),
        "tree": tree_shape(clf.tree_),
        "hidden_states": [clf.tree_.cardinality(i) for i in clf.tree_.hidden_nodes()],
        "state_search": None if clf.state_selection_ is None else {
            "fits": len(clf.state_selection_),
            "accepted": [(s["node"], s["states"]) for s in clf.state_selection_[1:] if s["accepted"]],
            "best_rejected_gain": max((s["score"] - clf.state_selection_[0]["score"]
                                       for s in clf.state_selection_[1:]), default=None)},
        "cpu_seconds": round(seconds, 1),
    }


def markdown_table(rows) -> str:
    """Rows as a Markdown table: one line per (class, variant), validation (training) breakeven
    and the best restart's log P(c | f) per number of terms."""
    terms = sorted({r["n_terms"] for r in rows})
    keys = []
    for r in rows:
        if (r["class"], r["variant"]) not in keys:
            keys.append((r["class"], r["variant"]))
    by = {(r["class"], r["variant"], r["n_terms"]): r for r in rows}
    head = "| class | variant | " + " | ".join(f"{t} terms: val (train) / log P(c\\|f)" for t in terms) + " |"
    lines = [head, "|" + "---|" * (2 + len(terms))]
    for cls, var in sorted(keys, key=lambda k: (k[0], list(VARIANTS).index(k[1]))):
        cells = []
        for t in terms:
            r = by.get((cls, var, t))
            cells.append("" if r is None else f"{r['validation_breakeven']:.1f} ({r['training_breakeven']:.1f}) / "
                                              f"{r['conditional_log_likelihood']:.0f}")
        lines.append(f"| {cls} | {var} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reuters-dir", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    ap.add_argument("--classes", default="trade,grain,interest,crude")
    ap.add_argument("--terms", default="30,100,300")
    ap.add_argument("--variants", default="thesis")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--append", action="store_true")
    ap.add_argument("--table", help="print the Markdown table of this JSON file and exit")
    args = ap.parse_args(argv)
    prov = start_run()
    if args.table:
        doc = json.loads(Path(args.table).read_text())
        print(markdown_table(doc["ablation"] if isinstance(doc, dict) and "ablation" in doc else rows_of(doc)))
        return
    variants = args.variants.split(",")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise SystemExit(f"unknown variants {unknown}; known: {sorted(VARIANTS)}")
    corpus = load_named_corpus("reuters", reuters_dir=args.reuters_dir, download=False)
    data = prepare(corpus)
    split = data.split("validation")
    earlier = []
    if args.json and args.append and Path(args.json).exists():
        earlier = json.loads(Path(args.json).read_text())
    rows = rows_of(earlier)
    with threadpool_limits(1):
        for category in args.classes.split(","):
            for n_terms in (int(t) for t in args.terms.split(",")):
                for variant in variants:
                    row = run_one(data, split, category, n_terms, variant, args.seed)
                    rows = [r for r in rows if (r["class"], r["n_terms"], r["variant"]) != (category, n_terms, variant)]
                    rows.append(row)
                    print(f"{category:9s} {n_terms:4d} {variant:15s} val {row['validation_breakeven']:5.1f} "
                          f"train {row['training_breakeven']:5.1f} LL {row['log_likelihood']:10.1f} "
                          f"CLL {row['conditional_log_likelihood']:8.1f} it {row['iterations_best']:4d} "
                          f"depth {row['tree']['max_depth']} {row['cpu_seconds']:6.1f}s", flush=True)
                    if args.json:
                        Path(args.json).write_text(json.dumps(stamp(rows, prov, earlier=earlier), indent=1))
    print(f"rows={len(rows)}")


if __name__ == "__main__":
    main()
