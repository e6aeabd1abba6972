"""HBN variants against naive Bayes and the linear SVM on any corpus, at 30 / 100 / 300 terms.

Usage::

    python benchmarks/hbn_any_corpus.py --corpus reuters|PATH --stage validation|test
        [--terms 30,100,300] [--clusterings or] [--variants 'thesis;tree_terms=30;alpha=0']
        [--baselines nb,svm200] [--cv K] [--json OUT]

The protocol is the thesis's (Karčiauskas 2002, sec. 4.1): one binary classifier per category of
the corpus's ten largest, the ``n`` best information-gain terms per category, micro-averaged
breakeven.  ``--stage validation`` fits on training-0 and scores the validation split (the only
stage settings are chosen on); ``--stage test`` fits on the training set and scores the test set.

A variant is ``thesis`` (thesis Table 4.1's B and alpha for the clustering, 64 EM restarts, every
selected term in the tree: ``tree_terms=None``) or comma-separated ``name=value`` changes to it,
e.g. ``tree_terms=30`` (the 30 terms with the highest I(F; C) in the tree, the others naive-Bayes
children of the class).  ``default`` is the estimator's defaults with only the clustering set.
Baselines: ``nb`` (Bernoulli naive Bayes, N0 = 0.1, the same terms), ``lr`` (logistic regression,
C = 1, the same terms), ``svmN`` (the linear SVM on
its own ``N`` terms; ``N`` fixed, not the row's).  One core, seed 0.  Each row prints
``<stage> <terms> <row> micro <value> cpu <seconds>``; ``--table`` prints the Markdown table of a
JSON file.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from hbn_terms_micro import parse_config
from scipy.special import expit
from threadpoolctl import threadpool_limits

from hbnlab.evaluation.measures import micro_breakeven, per_class_breakeven
from hbnlab.experiments.provenance import log_test_set_run, rows_of, stamp, start_run
from hbnlab.models.hbn import TABLE_4_1, HierarchicalBNClassifier, HierarchicalNBClassifier
from hbnlab.models.logistic import LogisticRegressionClassifier
from hbnlab.models.naive_bayes import BernoulliNBClassifier
from hbnlab.models.svm import LinearSVMClassifier
from hbnlab.pipeline.corpus_spec import load_named_corpus
from hbnlab.pipeline.data import prepare


def parse_variant(text: str) -> dict | None:
    """``thesis`` -> {} (Table 4.1, all terms in the tree); ``default`` -> None (estimator defaults);
    ``a=1,b=None`` -> {"a": 1, "b": None} (:func:`hbn_terms_micro.parse_config`)."""
    text = text.strip()
    return None if text == "default" else parse_config(text)


def hbn_factory(clustering: str, changes: dict | None):
    """An HBN (or, with ``direction="hnb"`` among the changes, a hierarchical naive Bayes) maker."""
    changes = None if changes is None else dict(changes)
    cls = HierarchicalBNClassifier
    if changes is not None and changes.pop("direction", "hbn") == "hnb":
        cls = HierarchicalNBClassifier
    if changes is None:
        return lambda: cls(clustering=clustering, n_features=None, random_state=0)
    B, alpha = TABLE_4_1[clustering]
    params = {"B": B, "alpha": alpha, "clustering": clustering, "n_restarts": 64, "tree_terms": None, **changes}
    return lambda: cls(n_features=None, random_state=0, **params)


def scores(data, split, n_terms, make):
    S = np.zeros(split.Y_eval.shape)
    for j, label in enumerate(data.categories):
        cols = None if n_terms is None else data.selected_columns(label, n_terms)
        Xf, Xe = (split.X_fit, split.X_eval) if cols is None else (split.X_fit[:, cols], split.X_eval[:, cols])
        clf = make().fit(Xf, split.Y_fit[:, j])
        S[:, j] = clf.decision_function(Xe)
    return S


def stage_scores(data, stage, n_terms, make):
    """Scores of the evaluated documents of ``stage``, the validation folds pooled in
    :meth:`~hbnlab.pipeline.data.ProtocolData.eval_rows` order."""
    return np.vstack([scores(data, data.split(stage, f), n_terms, make) for f in range(data.n_splits(stage))])


def table(rows) -> str:
    terms = sorted({r["n_terms"] for r in rows if r["n_terms"] is not None})
    names = list(dict.fromkeys(r["row"] for r in rows))
    stage = rows[0]["stage"] if rows else ""
    out = [f"| row ({stage}) | " + " | ".join(f"{t} terms" for t in terms) + " |",
           "|---|" + "---|" * len(terms)]
    for name in names:
        cells = []
        for t in terms:
            hit = [r for r in rows if r["row"] == name and r["n_terms"] in (t, None)]
            cells.append(f"{hit[0]['micro_breakeven']:.2f}" if hit else "")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out)


#: the committed log of every run that scored a test set
TEST_SET_RUNS = Path(__file__).parent / "results" / "TEST_SET_RUNS.md"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="reuters")
    ap.add_argument("--reuters-dir", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    ap.add_argument("--stage", choices=("validation", "test"))
    ap.add_argument("--terms", default="30,100,300")
    ap.add_argument("--clusterings", default="or")
    ap.add_argument("--variants", default="thesis;tree_terms=30")
    ap.add_argument("--baselines", default="nb")
    ap.add_argument("--cv", type=int, default=0, help="K > 1: K-fold stratified cross-validation of the training "
                                                         "set instead of training-0 / validation")
    ap.add_argument("--fold-seed", type=int, default=0, help="seeds the stratified folds (a new round: new folds)")
    ap.add_argument("--cpu-reference", default="thesis",
                    help="the variant every HBN row's CPU is divided by (default thesis)")
    ap.add_argument("--json")
    ap.add_argument("--table", help="print the Markdown table of this JSON file and stop")
    args = ap.parse_args(argv)
    prov = start_run()
    if args.table:
        rows = rows_of(json.loads(Path(args.table).read_text()))
        print(table(rows))
        for line in cpu_ratios(rows, args.cpu_reference):
            print(line)
        return
    if args.stage is None:
        ap.error("--stage is required")
    data = prepare(load_named_corpus(args.corpus, reuters_dir=args.reuters_dir, download=False),
                   cv=args.cv if args.cv > 1 else None, random_state=args.fold_seed)
    Y_eval = data.evaluation(args.stage)[0]
    stage = args.stage if args.cv <= 1 or args.stage == "test" else f"cv{args.cv}"
    if args.cv > 1 and args.fold_seed:
        stage += f"-seed{args.fold_seed}"
    earlier = json.loads(Path(args.json).read_text()) if args.json and Path(args.json).exists() else []
    rows = rows_of(earlier)
    if args.stage == "test":
        log_test_set_run(TEST_SET_RUNS, args.json or "(none: printed only)", prov)
    runs = []
    for b in filter(None, args.baselines.split(",")):
        if b == "nb":
            runs.append(("NB", None, BernoulliNBClassifier))
        elif b == "lr":
            runs.append(("LR", None, LogisticRegressionClassifier))
        elif b.startswith("svm"):
            n = int(b[3:])
            runs.append((f"SVM({n})", n, lambda n=n: LinearSVMClassifier(n_features=n)))
        else:
            ap.error(f"unknown baseline {b!r} (nb, lr, svmN)")
    for c in args.clusterings.split(","):
        for v in args.variants.split(";"):
            runs.append((f"HBN-{c.upper()} {v.strip()}", "hbn", hbn_factory(c, parse_variant(v))))
    with threadpool_limits(1):
        for n_terms in (int(t) for t in args.terms.split(",")):
            for name, kind, make in runs:
                if isinstance(kind, int):  # a baseline with its own number of terms: once
                    if any(r["row"] == name and r["stage"] == stage for r in rows):
                        continue
                    cols_terms, key_terms = None, None
                else:
                    cols_terms, key_terms = n_terms, n_terms
                c0 = time.process_time()
                S = stage_scores(data, args.stage, cols_terms, make)
                row = {"corpus": args.corpus, "stage": stage, "n_terms": key_terms, "row": name,
                       "micro_breakeven": round(100 * micro_breakeven(Y_eval, S), 4),
                       "per_class": dict(zip(data.categories,
                                             np.round(100 * per_class_breakeven(Y_eval, S), 4).tolist())),
                       "cpu_seconds": round(time.process_time() - c0, 2),
                       # scores whose class probability is exactly 0 or 1 in double precision
                       "certain": int(np.sum(expit(np.abs(S)) == 1.0)), "n_scores": int(S.size)}
                rows = [r for r in rows if (r["stage"], r["n_terms"], r["row"]) != (stage, key_terms, name)]
                rows.append(row)
                print(f"{stage} {key_terms} {name} micro {row['micro_breakeven']:.2f} "
                      f"cpu {row['cpu_seconds']:.1f}", flush=True)
                if args.json:
                    Path(args.json).write_text(json.dumps(stamp(rows, prov, earlier=earlier), indent=1))
    print(table([r for r in rows if r["stage"] == stage]))
    for line in cpu_ratios([r for r in rows if r["stage"] == stage], args.cpu_reference):
        print(line)


def cpu_ratios(rows, reference: str = "thesis") -> list[str]:
    """``cpu_ratio <row>/<reference row> at <n> terms = <x>`` for every HBN row beside the
    ``reference`` variant's row of its clustering at the same terms (``--cpu-reference``; the thesis's
    model by default)."""
    out = []
    for r in rows:
        name = r["row"]
        if not name.startswith("HBN-") or name.endswith(" " + reference):
            continue
        ref = [q for q in rows if q["row"] == name.split()[0] + " " + reference and q["n_terms"] == r["n_terms"]]
        if ref and ref[0]["cpu_seconds"] > 0:
            out.append(f"cpu_ratio {name} / {ref[0]['row']} at {r['n_terms']} terms = "
                       f"{r['cpu_seconds'] / ref[0]['cpu_seconds']:.2f}")
    return out


if __name__ == "__main__":
    main()
