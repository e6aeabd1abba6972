"""Hidden nodes with more than two states: what the generic kernel path costs, and the table of
the Reuters rows of ``benchmarks/hbn_terms_ablation.py`` (variants ``k3``, ``auto``,
``auto_holdout``, their ``alpha0_`` forms and ``alpha0_k3_absolute4``) next to the binary rows
(``thesis``, ``alpha0``) of the same class and number of terms.

Usage::

    python benchmarks/hbn_hidden_states.py --cost [--classes trade] [--terms 30,100,300]
    python benchmarks/hbn_hidden_states.py --table benchmarks/results/hbn_terms_ablation.json

``--cost`` builds HBN-OR's tree (thesis Table 4.1: B = 9, alpha = 0.09) on Reuters training-0 and
times one E-step of 64 restarts (CPU seconds, BLAS on one thread, median of 3) on the same binary
tree through the binary fast path and through the generic path (the code used as soon as one
hidden node has more than two states; forced here on the binary tree, so both compute the same
numbers), and on the tree with every hidden node at 3 states.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from hbnlab.experiments.provenance import start_run


def _estep_cpu(tree, X, y, repeat=3):
    """(median CPU seconds of one 64-restart E-step, restarts per chunk)."""
    from hbnlab.bn import em

    d = em.EMData.from_documents(tree, X, y)
    cpts = em.initial_parameters(d, 64, random_state=0)
    out = []
    for _ in range(repeat):
        c0 = time.process_time()
        em.e_step(d, cpts)
        out.append(time.process_time() - c0)
    return float(np.median(out)), d.plan.restart_chunk(64)


def kernel_cost(classes, terms, reuters_dir):
    from hbnlab.bn.structure import TreeStructure
    from hbnlab.clustering import construct_tree
    from hbnlab.pipeline.corpus_spec import load_named_corpus
    from hbnlab.pipeline.data import prepare

    data = prepare(load_named_corpus("reuters", reuters_dir=reuters_dir, download=False))
    split = data.split("validation")
    rows = []
    for category in classes:
        j = data.category_index(category)
        for n in terms:
            X = split.X_fit[:, data.selected_columns(category, n)]
            y = split.Y_fit[:, j]
            tree = construct_tree(X, y, B=9, clustering="or", alpha=0.09, direction="hbn")
            row = {"class": category, "n_terms": n, "n_hidden": len(tree.hidden_nodes())}
            for name, t, generic in (("binary fast path", tree, False), ("binary via generic path", tree, True),
                                     ("k = 3 (generic path)", tree.with_states(3), True)):
                if generic and t.is_binary:
                    # the generic path on the binary tree: same numbers, other code
                    orig = TreeStructure.is_binary
                    TreeStructure.is_binary = property(lambda self: False)
                    try:
                        sec, chunk = _estep_cpu(t, X, y)
                    finally:
                        TreeStructure.is_binary = orig
                else:
                    sec, chunk = _estep_cpu(t, X, y)
                row[name] = round(sec, 3)
                row["chunk " + name] = chunk
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def markdown_table(rows) -> str:
    """One line per (class, variant, terms): validation (training) breakeven, log P(c | f) on
    training-0, the hidden nodes' numbers of states and CPU seconds per fit."""
    order = ["thesis", "k3", "auto", "auto_holdout", "alpha0", "alpha0_k3", "alpha0_auto", "alpha0_auto_holdout",
             "alpha0_k3_absolute4"]
    # the k-state rows and the binary rows (thesis, alpha0) of the same class and terms
    cells = {(r["class"], r["n_terms"]) for r in rows if r["variant"] in order[1:] and r["variant"] != "alpha0"}
    rows = [r for r in rows if r["variant"] in order and (r["class"], r["n_terms"]) in cells]
    rows = sorted(rows, key=lambda r: (r["class"], r["n_terms"], order.index(r["variant"])))
    lines = ["| class | terms | variant | val (train) breakeven | log P(c\\|f) | hidden k: 2/3/4 | CPU s |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        ks = r.get("hidden_states")
        kcount = "all 2" if ks is None else "/".join(str(ks.count(k)) for k in (2, 3, 4))
        lines.append(f"| {r['class']} | {r['n_terms']} | {r['variant']} | {r['validation_breakeven']:.1f} "
                     f"({r['training_breakeven']:.1f}) | {r['conditional_log_likelihood']:.0f} | {kcount} | "
                     f"{r['cpu_seconds']:.1f} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reuters-dir", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    ap.add_argument("--classes", default="trade")
    ap.add_argument("--terms", default="30,100,300")
    ap.add_argument("--cost", action="store_true")
    ap.add_argument("--table")
    args = ap.parse_args(argv)
    start_run(json_line=True)  # --cost prints JSON lines
    if args.table:
        doc = json.loads(Path(args.table).read_text())
        print(markdown_table(doc["ablation"] if isinstance(doc, dict) else doc))
    if args.cost:
        with threadpool_limits(1):
            kernel_cost(args.classes.split(","), [int(t) for t in args.terms.split(",")], args.reuters_dir)


if __name__ == "__main__":
    main()
