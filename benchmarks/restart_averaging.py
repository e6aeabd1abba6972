"""Keep the best EM restart, or average the class posterior over several?  The m restarts of highest
log-likelihood as an equal-weight mixture of P(c | f), against the best restart alone, on Reuters
training-0 / validation.

Usage::

    python benchmarks/restart_averaging.py [--reuters-dir DIR] [--from RESULT.json] [--m 1,2,4,8,16,32,64]
                                           [--json OUT]

``--from`` is a ``hbnlab reproduce table-4.10 --json`` result with terms chosen per class (default: the
reported tuned HBN-OR row, ``benchmarks/results/terms_per_class_retuned_B15_reuters.json``); its
classifier and settings are fitted on training-0 for each class as the tuning procedure fits them.
EM is run once more on the fitted tree with the same options and an observer that keeps every
restart's final tables; the run must reproduce the estimator's kept log-likelihood.  The validation
breakeven is then computed for the mixture of the ``m`` best restarts, ``log P(c=1 | f) =
logsumexp_r log P_r(c=1 | f) - log m`` (likewise for c=0).  For an HBN the feature marginals are the
same in every restart, so this is also the class posterior of the mixture of the restarts' joint
distributions.  The test set is not read.

The last line is ``validation_micro m=1:<x> m=2:<y> ...``.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np
from scipy.special import logsumexp
from threadpoolctl import threadpool_limits

from hbnlab._validation import as_binary
from hbnlab.bn import em
from hbnlab.evaluation import breakeven_point, micro_breakeven
from hbnlab.experiments import thesis
from hbnlab.experiments.provenance import stamp, start_run
from hbnlab.pipeline.corpus_spec import load_named_corpus
from hbnlab.pipeline.data import prepare
from hbnlab.pipeline.fit import fit_unit

DEFAULT_FROM = Path(__file__).parent / "results" / "terms_per_class_retuned_B15_reuters.json"


def restart_tables(est, X_fit, y):
    """Every restart's final tables (batched, restarts in index order) and log-likelihoods, by EM
    run again on the fitted tree with the estimator's options."""
    final = {}

    def keep(event):
        for k, r in enumerate(event["restarts"].tolist()):
            if event["stopped"][k]:
                final[r] = [t[k].copy() for t in event["tables"]]

    Xb = as_binary(X_fit[:, est.selected_features_])
    res = em.fit_em(est.tree_, Xb, y, n_restarts=est.n_restarts, tol=est.tol, max_iter=est.max_iter,
                    stopping=est.stopping, criterion=est.criterion, pseudo_count=est.pseudo_count,
                    acceleration=est.acceleration, screen_iter=est.screen_iter, screen_keep=est.screen_keep,
                    random_state=est.random_state, observer=keep)
    if res.log_likelihood != est.lower_bound_:
        raise SystemExit(f"EM run again kept {res.log_likelihood}, the estimator {est.lower_bound_}")
    R = res.n_restarts
    cpts = [np.stack([final[r][i] for r in range(R)]) for i in range(len(final[0]))]
    return cpts, res.full_log_likelihood


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reuters-dir", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    ap.add_argument("--from", dest="source", default=str(DEFAULT_FROM))
    ap.add_argument("--m", default="1,2,4,8,16,32,64")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    prov = start_run()
    row = thesis.per_class_terms_row(json.loads(Path(args.source).read_text()), args.source)
    name, params, mapping = row["classifier"], row["params"], row["n_features_per_class"]
    ms = [int(m) for m in args.m.split(",")]
    data = prepare(load_named_corpus("reuters", reuters_dir=args.reuters_dir, download=False))
    split = data.split("validation", 0)
    print(f"{name} {params}, terms per class from {Path(args.source).name}", flush=True)
    out = {"classifier": name, "params": params, "terms_per_class": mapping, "per_class": {}}
    scores, labels = {m: [] for m in ms}, []
    with threadpool_limits(1):
        for j in thesis.tunable_indices(data):
            label = data.categories[j]
            est = fit_unit(data, label, name, n_features=mapping[label], params=params, stage="validation",
                           score="log_odds").estimator
            y = split.Y_fit[:, j].astype(np.int8)
            cpts, ll = restart_tables(est, split.X_fit, y)
            order = np.lexsort((np.arange(ll.size), -np.where(np.isnan(ll), -np.inf, ll)))
            best = est.params_
            lo = []
            for r in order[:max(ms)].tolist():
                est.params_ = em._as_params(est.tree_, cpts, r)
                lo.append(est.decision_function(split.X_eval))
            est.params_ = best
            lo = np.array(lo)
            l1, l0 = -np.logaddexp(0.0, -lo), -np.logaddexp(0.0, lo)       # log P(c=1|f), log P(c=0|f)
            yv = split.Y_eval[:, j]
            labels.append(yv)
            cells = {}
            for m in ms:
                s = logsumexp(l1[:m], axis=0) - logsumexp(l0[:m], axis=0)
                scores[m].append(s)
                cells[m] = round(100 * breakeven_point(yv, s), 2)
            out["per_class"][label] = cells
            print(f"{label:10s} " + " ".join(f"m={m}:{v:.1f}" for m, v in cells.items()), flush=True)
    Y = np.column_stack(labels)
    micro = {m: round(100 * micro_breakeven(Y, np.column_stack(scores[m])), 2) for m in ms}
    out["validation_micro"] = micro
    if args.json:
        Path(args.json).write_text(json.dumps(stamp(out, prov), indent=1))
    print("validation_micro " + " ".join(f"m={m}:{v:.2f}" for m, v in micro.items()))


if __name__ == "__main__":
    main()
