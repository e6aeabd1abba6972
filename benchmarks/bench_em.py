"""Speed of hbnlab's EM against pgmpy and pyAgrum on the thesis's set-up, and the effect of the
EM stopping rule on breakeven and time.

Usage::

    python benchmarks/bench_em.py [--reuters-dir DIR] [--clusterings avg,or,dep] [--budget 60]
                                  [--no-peers] [--variants] [--variant-classes trade]

Data: Reuters-21578 ModApte training documents (``$HBNLAB_REUTERS_DIR`` or ``--reuters-dir``),
class ``trade``, the 30 terms with the highest information gain (thesis sec. 4.1.2), the tree of
each clustering with B = 7 (alpha from thesis Table 4.1).  Everything runs on one core (BLAS
and pyAgrum limited to one thread).

Reported per clustering
    * hbnlab, the whole classifier for one class as the thesis trains it (tree + EM with 64
      restarts, relative tolerance 1e-4 on log P(c, f)): seconds;
    * hbnlab, one EM run (``n_restarts=1``, several seeds): seconds to convergence, iterations,
      seconds per iteration (median over seeds);
    * pyAgrum ``BNLearner`` EM, one run, the same relative tolerance 1e-4 on the log-likelihood,
      stopped by a time budget (``EMsetMaxTime``) and at most 3 iterations: seconds per
      iteration = elapsed / iterations.  pyAgrum refuses parent configurations absent from the
      data, so it gets a 1e-6 smoothing prior;
    * pgmpy ``ExpectationMaximization``: its E-step enumerates every joint state of the latent
      variables for every distinct data row (2**13 states for the AVG tree), so one iteration
      cannot finish within a budget; it is run for one iteration on the first ``u`` distinct rows
      (``u`` doubled while the budget allows), its initialisation time subtracted, and the time
      scaled to all distinct rows (E- and M-step are both linear in the expanded rows).  pgmpy's
      stopping rule is a tolerance on the parameters, not the log-likelihood; it never gets
      to apply.

The last line is ``speedup_vs_best_peer_per_iteration=<x>``: the smallest, over the clusterings,
ratio of the faster peer's seconds per iteration to hbnlab's seconds per iteration of a single
EM run (no credit for batching the 64 restarts).

``--variants`` fits HBN-AVG (64 restarts) with every stopping rule x criterion and prints test
breakeven (thesis Table 4.10 protocol: train on the ModApte training set, evaluate on the test
set), EM iterations and CPU seconds for each class of ``--variant-classes``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from hbnlab.bn import em
from hbnlab.clustering import construct_tree

TABLE_4_1_ALPHA = {"avg": 0.05, "or": 0.09, "dep": 170.0}   # thesis Table 4.1 (B fixed at 7 here)
B = 7
TOL = 1e-4


# ----------------------------------------------------------------------------- data
def load_data(reuters_dir, n_features=30, category="trade"):
    from hbnlab.corpus import load_reuters21578
    from hbnlab.features import score_terms
    from hbnlab.text import index_corpus

    ic = index_corpus(load_reuters21578(reuters_dir))
    j = ic.categories.index(category)
    y_train = ic.Y_train[:, j].astype(np.int64)
    scores = score_terms(ic.X_train, y_train.astype(bool), "ig")[:, 0]
    cols = np.lexsort((np.arange(scores.size), -scores))[:n_features]   # thesis sec. 4.1.2
    X = sp.csr_matrix(ic.X_train[:, cols])
    X.data[:] = 1
    return ic, X, y_train, [ic.vocabulary[c] for c in cols]


# ----------------------------------------------------------------------------- hbnlab
def bench_hbnlab(X, y, names, clustering, seeds=8):
    t0 = time.perf_counter()
    c0 = time.process_time()
    tree = construct_tree(X, y, B=B, clustering=clustering, alpha=TABLE_4_1_ALPHA[clustering],
                          feature_names=names, class_name="tradeTOPIC")
    res = em.fit_em(tree, X, y, n_restarts=64, tol=TOL, random_state=0)
    whole_wall, whole_cpu = time.perf_counter() - t0, time.process_time() - c0
    single = []
    for s in range(seeds):
        t1 = time.perf_counter()
        r1 = em.fit_em(tree, X, y, n_restarts=1, tol=TOL, random_state=s)
        dt = time.perf_counter() - t1
        single.append((dt, int(r1.n_iter[0]), dt / (r1.n_iter[0] + 1)))   # n_iter M-steps, n_iter + 1 E-steps
    return {
        "tree": tree,
        "whole_wall": whole_wall,
        "whole_cpu": whole_cpu,
        "em_wall": res.total_seconds,
        "restart_iterations": int(res.n_iter.sum()),
        "amortised_per_iteration": res.total_seconds / max(1, int((res.n_iter + 1).sum())),
        "single_seconds": statistics.median(s[0] for s in single),
        "single_iterations": statistics.median(s[1] for s in single),
        "single_per_iteration": statistics.median(s[2] for s in single),
        "n_patterns": res.settings["n_patterns"],
    }


# ----------------------------------------------------------------------------- peers
def _observed_frame(tree, X, y):
    import pandas as pd

    Xd = np.asarray(X.todense()) > 0
    cols = {}
    for i in range(tree.n_nodes):
        if tree.kind[i] == "feature":
            cols[f"n{i}"] = Xd[:, tree.feature[i]].astype(int)
        elif tree.kind[i] == "class":
            cols[f"n{i}"] = np.asarray(y).astype(int)
    return pd.DataFrame(cols)


def bench_pyagrum(tree, X, y, budget):
    import pyagrum as gum

    gum.setNumberOfThreads(1)
    bn = gum.BayesNet()
    ids = {i: bn.add(gum.LabelizedVariable(f"n{i}", f"n{i}", ["0", "1"])) for i in range(tree.n_nodes)}
    for i in range(1, tree.n_nodes):
        bn.addArc(ids[i], ids[tree.up[i]])                # HBN: arcs toward the class
    df = _observed_frame(tree, X, y).astype(str)
    for i in tree.hidden_nodes():
        df[f"n{i}"] = "?"                                 # latent: missing in every row
    path = os.path.join(tempfile.mkdtemp(prefix="bench_em_"), "data.csv")
    df[[f"n{i}" for i in range(tree.n_nodes)]].to_csv(path, index=False)
    learner = gum.BNLearner(path, bn, ["?"])
    learner.useSmoothingPrior(1e-6)
    learner.useEM(TOL)                                   # relative rate on the log-likelihood
    learner.EMsetMaxTime(float(budget))
    learner.EMsetMaxIter(3)
    t0 = time.perf_counter()
    learner.learnParameters(bn.dag())
    elapsed = time.perf_counter() - t0
    n_iter = max(1, int(learner.EMnbrIterations()))
    return {"seconds": elapsed, "iterations": n_iter, "per_iteration": elapsed / n_iter,
            "message": learner.EMStateMessage()}


def bench_pgmpy(tree, X, y, budget):
    import logging

    warnings.filterwarnings("ignore", category=FutureWarning)
    logging.getLogger("pgmpy").setLevel(logging.ERROR)
    from pgmpy.estimators import ExpectationMaximization
    from pgmpy.models import DiscreteBayesianNetwork

    edges = [(f"n{i}", f"n{tree.up[i]}") for i in range(1, tree.n_nodes)]
    latents = {f"n{i}" for i in tree.hidden_nodes()}
    df = _observed_frame(tree, X, y)
    uniq = df.drop_duplicates().reset_index(drop=True)
    n_unique = len(uniq)
    states = {c: [0, 1] for c in df.columns}
    latent_card = dict.fromkeys(sorted(latents), 2)

    def run(u, max_iter):
        model = DiscreteBayesianNetwork(edges, latents=latents)
        est = ExpectationMaximization(model, uniq.iloc[:u], state_names=dict(states))
        t0 = time.perf_counter()
        try:
            est.get_parameters(latent_card=dict(latent_card), max_iter=max_iter, atol=TOL, seed=0,
                               show_progress=False)
        except UnboundLocalError:
            pass                                          # max_iter=0: initialisation only
        return time.perf_counter() - t0

    u, spent, best = 1, 0.0, None
    while u <= n_unique:
        t_init = run(u, 0)
        t_one = run(u, 1)
        spent += t_init + t_one
        best = (u, max(t_one - t_init, 1e-9))
        if spent + 2.5 * (t_init + t_one) > budget or u == n_unique:
            break
        u = min(2 * u, n_unique)
    u, t_iter = best
    return {"rows_timed": u, "n_unique": n_unique, "seconds_for_rows": t_iter,
            "per_iteration": t_iter * n_unique / u, "latent_states": 2 ** len(latents)}


# ----------------------------------------------------------------------------- variants
def bench_variants(ic, classes):
    from hbnlab.evaluation import breakeven_point
    from hbnlab.models.hbn import HierarchicalBNClassifier

    variants = [("relative", "full"), ("relative", "conditional"), ("absolute", "full"),
                ("absolute", "conditional")]
    print("\nEM stopping rule x criterion (HBN-AVG, B=7, alpha=0.05, 30 IG features, 64 restarts, tol 1e-4, "
          "max_iter 1000):")
    print(f"{'class':10s} {'stopping':9s} {'criterion':12s} {'BEP %':>6s} {'CPU s':>8s} {'iter mean':>9s} "
          f"{'iter max':>8s} {'converged':>9s}")
    for c in classes:
        j = ic.categories.index(c)
        ytr, yte = ic.Y_train[:, j].astype(int), ic.Y_test[:, j].astype(int)
        for stopping, criterion in variants:
            t0 = time.process_time()
            m = HierarchicalBNClassifier(random_state=0, stopping=stopping, criterion=criterion, max_iter=1000)
            m.fit(ic.X_train, ytr)
            cpu = time.process_time() - t0
            r = m.em_result_
            bep = 100 * breakeven_point(yte, m.decision_function(ic.X_test))
            print(f"{c:10s} {stopping:9s} {criterion:12s} {bep:6.1f} {cpu:8.2f} {r.n_iter.mean():9.0f} "
                  f"{r.n_iter.max():8d} {r.converged.mean():9.2f}", flush=True)


# ----------------------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reuters-dir", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    ap.add_argument("--clusterings", default="avg,or,dep")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds per peer and clustering")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--variants", action="store_true")
    ap.add_argument("--variant-classes", default="trade")
    args = ap.parse_args(argv)
    if not args.reuters_dir:
        sys.exit("set HBNLAB_REUTERS_DIR or pass --reuters-dir (Reuters-21578 Distribution 1.0)")
    with threadpool_limits(1):
        ic, X, y, names = load_data(args.reuters_dir)
        print(f"Reuters-21578 ModApte training set: {X.shape[0]} documents, class trade: {int(y.sum())} "
              f"positive, 30 IG features, B={B}, tol={TOL} (relative, log P(c, f))")
        ratios = []
        for clustering in args.clusterings.split(","):
            h = bench_hbnlab(X, y, names, clustering)
            tree = h["tree"]
            print(f"\n[{clustering}] tree: {len(tree.hidden_nodes())} hidden nodes, class has "
                  f"{len(tree.children(0))} nodes below it; {h['n_patterns']} distinct (pattern, class) rows")
            print(f"  hbnlab whole classifier (tree + EM, 64 restarts): {h['whole_wall']:.3f} s wall, "
                  f"{h['whole_cpu']:.3f} s CPU ({h['restart_iterations']} restart-iterations, "
                  f"{1e3 * h['amortised_per_iteration']:.2f} ms per restart-iteration amortised)")
            print(f"  hbnlab one EM run: {h['single_seconds']:.4f} s to convergence, "
                  f"{h['single_iterations']:.0f} iterations, {1e3 * h['single_per_iteration']:.3f} ms/iteration "
                  "(median of 8 seeds)")
            if args.no_peers:
                continue
            peers = {}
            try:
                a = bench_pyagrum(tree, X, y, args.budget)
                peers["pyAgrum"] = a["per_iteration"]
                print(f"  pyAgrum EM: {a['iterations']} iteration(s) in {a['seconds']:.1f} s -> "
                      f"{a['per_iteration']:.2f} s/iteration ({a['message']})")
            except Exception as e:  # report and go on: a peer failing is a result too
                print(f"  pyAgrum EM failed: {type(e).__name__}: {e}")
            try:
                p = bench_pgmpy(tree, X, y, args.budget)
                peers["pgmpy"] = p["per_iteration"]
                how = "extrapolated" if p["rows_timed"] < p["n_unique"] else "measured"
                print(f"  pgmpy EM: one iteration on {p['rows_timed']} of {p['n_unique']} distinct rows "
                      f"({p['latent_states']} latent states each) took {p['seconds_for_rows']:.2f} s -> "
                      f"{p['per_iteration']:.1f} s/iteration ({how})")
            except Exception as e:
                print(f"  pgmpy EM failed: {type(e).__name__}: {e}")
            if peers:
                best_name = min(peers, key=peers.get)
                ratio = peers[best_name] / h["single_per_iteration"]
                ratios.append(ratio)
                print(f"  faster peer: {best_name}; speed-up per iteration (one run vs one run): {ratio:.0f}x")
        if args.variants:
            bench_variants(ic, args.variant_classes.split(","))
    if ratios:
        print(f"speedup_vs_best_peer_per_iteration={min(ratios):.1f}")
    else:
        print("speedup_vs_best_peer_per_iteration=nan")


if __name__ == "__main__":
    main()
