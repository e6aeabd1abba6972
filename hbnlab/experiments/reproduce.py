"""``hbnlab reproduce ...`` and ``hbnlab tree``: the thesis's tables through the CLI."""
from __future__ import annotations

import json
import time

import numpy as np

from hbnlab.experiments import paper_values as pv
from hbnlab.experiments import thesis

HBN_ROWS = [("HBN-AVG", 30), ("HBN-OR", 30), ("HBN-DEP", 30)]

# alpha grids of the first tuning phase (Tables 4.2-4.4) and the finer third phase
ALPHA_GRIDS = {
    "avg": [0.0, 0.03, 0.06, 0.09, 0.12],
    "or": [0.0, 0.05, 0.10, 0.15, 0.20],
    "dep": [0.0, 50.0, 100.0, 150.0, 200.0, 250.0, 300.0],
}
VALIDATION_TABLES = {
    "table-4.2": ("HBN-AVG", pv.TABLE_4_2), "table-4.3": ("HBN-OR", pv.TABLE_4_3),
    "table-4.4": ("HBN-DEP", pv.TABLE_4_4),
}
HNB_TABLES = {
    "table-4.5": ("avg", pv.TABLE_4_5), "table-4.6": ("or", pv.TABLE_4_6), "table-4.7": ("dep", pv.TABLE_4_7),
}


def _load_data(args, log=print):
    from hbnlab.cli import resolve_reuters_dir
    from hbnlab.corpus import load_reuters21578

    t0 = time.perf_counter()
    corpus = load_reuters21578(resolve_reuters_dir(args.reuters_dir))
    data = thesis.prepare_data(corpus)
    c = data.corpus_info
    log(f"Reuters-21578 ModApte: {c['n_train']} train / {c['n_test']} test documents "
        f"(thesis: 7769 / 3018), {c['n_terms']} terms (thesis: 15715), training-0 {c['n_train0']} / "
        f"validation {c['n_validation']} (thesis: 5827 / 1942)  [{time.perf_counter() - t0:.1f}s]")
    return data


def _hbn_params(args) -> dict:
    return {"n_restarts": args.n_restarts} if args.n_restarts else {}


def three_phase_tuning(data, name: str, *, params=None, n_jobs=1, log=print) -> dict:
    """The thesis's procedure (sec. 4.2.1): alpha at B = 7; B in {3, 5, 7, 9} at the best alpha;
    a finer alpha grid around the best alpha at the best B.  Scored by validation micro breakeven."""
    clustering = thesis.HBN_NAMES[name.upper()][1]
    params = dict(params or {})
    history = []

    def score(B, alpha):
        row = thesis.run_row(data, name, 30, params={**params, "B": B, "alpha": alpha}, stage="validation",
                             n_jobs=n_jobs)
        history.append({"B": B, "alpha": alpha, "micro": row["micro"]})
        log(f"    {name} B={B} alpha={alpha:g}: validation micro {row['micro']:.2f}")
        return row["micro"]

    grid = ALPHA_GRIDS[clustering]
    s1 = {a: score(7, a) for a in grid}
    a1 = max(grid, key=lambda a: (s1[a], -a))
    s2 = {B: (s1[a1] if B == 7 else score(B, a1)) for B in (3, 5, 7, 9)}
    B = max(s2, key=lambda b: (s2[b], -abs(b - 7)))
    step = (grid[1] - grid[0]) / 3
    fine = sorted({round(max(0.0, a1 + k * step), 6) for k in (-2, -1, 0, 1, 2)})
    s3 = {a: (s2[B] if a == a1 else score(B, a)) for a in fine}
    a3 = max(fine, key=lambda a: (s3[a], -a))
    return {"B": B, "alpha": a3, "history": history}


def table_4_10(args, log=print) -> dict:
    data = _load_data(args, log)
    rows = list(thesis.DEFAULT_TABLE_4_10_ROWS) + HBN_ROWS
    if args.rows:
        rows = []
        for item in args.rows.split(","):
            n, _, f = item.partition(":")
            rows.append((n.strip(), int(f or 30)))
    if args.extra_rows:
        from hbnlab.models.registry import EXTRA_ROWS

        rows += [(n, 30) for n in EXTRA_ROWS]
    row_params = {}
    tuning = {}
    for name, nf in rows:
        if name.upper() in thesis.HBN_NAMES:
            p = _hbn_params(args)
            if args.tune and name.upper().startswith("HBN"):
                log(f"  tuning {name} on training-0 / validation ...")
                t = three_phase_tuning(data, name, params=p, n_jobs=args.n_jobs, log=log)
                tuning[name] = t
                p.update(B=t["B"], alpha=t["alpha"])
            row_params[(name, nf)] = p
    result = thesis.reproduce_table_4_10(data, rows, n_jobs=args.n_jobs, random_state=args.random_state,
                                         row_params=row_params, log=log)
    if tuning:
        result["tuning"] = tuning
    return result


def validation_table(args, target, log=print) -> dict:
    data = _load_data(args, log)
    p = _hbn_params(args)
    rows = []
    if target in VALIDATION_TABLES:
        name, paper = VALIDATION_TABLES[target]
        for alpha, (p30, p60) in paper.items():
            for nf, pval in ((30, p30), (60, p60)):
                r = thesis.run_row(data, name, nf, params={**p, "B": 7, "alpha": alpha}, stage="validation",
                                   n_jobs=args.n_jobs, random_state=args.random_state)
                r["alpha"], r["paper_micro"] = alpha, pval
                log(f"  {name} alpha={alpha:g} {nf} features: {r['micro']:.1f} (paper {pval:.1f})")
                rows.append(r)
    elif target in HNB_TABLES:
        clustering, paper = HNB_TABLES[target]
        for alpha, (p_hnb, p_hbn) in paper.items():
            for name, pval in ((f"HNB-{clustering.upper()}", p_hnb), (f"HBN-{clustering.upper()}", p_hbn)):
                r = thesis.run_row(data, name, 30, params={**p, "B": 7, "alpha": alpha}, stage="validation",
                                   n_jobs=args.n_jobs, random_state=args.random_state)
                r["alpha"], r["paper_micro"] = alpha, pval
                log(f"  {name} alpha={alpha:g}: {r['micro']:.1f} (paper {pval:.1f})")
                rows.append(r)
    elif target == "table-4.8":
        return thesis.sweep_features(data, "NB", [30, 60, 100, 200, 300, 400, 500], n_jobs=args.n_jobs,
                                     paper=pv.TABLE_4_8, log=log)
    elif target == "table-4.9":
        C, curve = thesis.tune_svm_C(data, 30, n_jobs=args.n_jobs)
        log(f"  SVM C tuned at 30 features: {C} ({curve})")
        res = thesis.sweep_features(data, "SVM", [30, 60, 100, 200, 300, 400, 500], params={"C": C},
                                    n_jobs=args.n_jobs, paper=pv.TABLE_4_9, log=log)
        res["C"] = C
        return res
    return {"rows": rows, "corpus": thesis._corpus_json(data)}


def run_cli(args) -> int:
    from hbnlab.cli import CLIError, _write_json

    target = args.target.lower()
    if target == "table-4.10":
        result = table_4_10(args)
        print()
        print("Table 4.10: breakeven (%) on the ModApte test set, 10 most frequent classes")
        print(thesis.format_table(result))
    elif target in VALIDATION_TABLES or target in HNB_TABLES or target in ("table-4.8", "table-4.9"):
        result = validation_table(args, target)
        print()
        for r in result["rows"]:
            extra = f" alpha={r['alpha']:g}" if "alpha" in r else ""
            paper = f"  paper {r['paper_micro']:.1f}  diff {r['micro'] - r['paper_micro']:+.1f}" \
                if r.get("paper_micro") is not None else ""
            print(f"{r['classifier']:<10} {r['n_features']:>4} features{extra}: validation micro "
                  f"{r['micro']:.1f}{paper}")
    elif target.startswith("decampos-table-"):
        from hbnlab.experiments.decampos import format_decampos_table, reproduce_decampos_table

        from hbnlab.cli import resolve_reuters_dir
        table = int(target.rsplit("-", 1)[1])
        result = reproduce_decampos_table(table=table, reuters_dir=str(resolve_reuters_dir(args.reuters_dir))
                                          if table == 1 else None, corpus_path=args.corpus)
        print(format_decampos_table(result))
    elif target == "verbeek-figures":
        from hbnlab.experiments.verbeek import verbeek_figures_cli

        result = verbeek_figures_cli(args)
    else:
        raise CLIError(f"unknown target {args.target!r}; expected table-4.2 ... table-4.10, "
                       "decampos-table-1/2/3 or verbeek-figures")
    _write_json(args.json, result)
    return 0


def tree_cli(args) -> int:
    from hbnlab.cli import CLIError, load_corpus_arg
    from hbnlab.features import score_terms
    from hbnlab.text import IndexingConfig, TermIndexer

    name = args.classifier.upper()
    if name not in thesis.HBN_NAMES:
        raise CLIError(f"--classifier must be one of {sorted(n.lower() for n in thesis.HBN_NAMES)}")
    corpus = load_corpus_arg(args.corpus, args.reuters_dir, args.seed)
    if args.label not in corpus.categories():
        raise CLIError(f"class {args.label!r} is not a category of corpus {corpus.name!r}")
    indexer = TermIndexer(IndexingConfig())
    X = indexer.fit_transform(corpus.texts(corpus.train))
    y = corpus.label_matrix(corpus.train, [args.label])[:, 0].astype(np.int8)
    s = score_terms(X, y.reshape(-1, 1).astype(bool), "ig")[:, 0]
    cols = np.lexsort((np.arange(s.size), -s))[: args.n_features]
    params = {}
    if args.B is not None:
        params["B"] = args.B
    if args.alpha is not None:
        params["alpha"] = args.alpha
    est = thesis.make_classifier(name, args.n_features, params, args.seed)
    est.set_params(feature_names=[indexer.vocabulary_[c] for c in cols], class_name=f"{args.label}TOPIC")
    est.fit(X, y, selected_features=cols)
    if args.format == "text":
        out = est.tree_.to_text()
    elif args.format == "dot":
        out = est.to_dot()
    else:
        from hbnlab.export.render import dot_to_svg

        out = dot_to_svg(est.to_dot())
    if args.out:
        from hbnlab.export.atomic import write_text_atomic

        write_text_atomic(args.out, out)
        print(f"wrote {args.out}")
    else:
        print(out)
    return 0


__all__ = ["run_cli", "tree_cli", "three_phase_tuning", "json"]
