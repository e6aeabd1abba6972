"""``hbnlab reproduce TARGET`` (the seed papers' tables and figures) and ``hbnlab tree`` (draw the
HBN/HNB tree of one class)."""
from __future__ import annotations

import time
from pathlib import Path

from hbnlab.bounds import N_RESTARTS
from hbnlab.cli.common import (
    CLIError,
    add_corpus_options,
    add_indexing_options,
    add_validation_options,
    check_learner_params,
    corpus_from_args,
    indexing_from_args,
    parse_categories,
    parse_list,
    parse_param_items,
    strip_parts,
    table_options,
    validation_kwargs,
    write_json,
)

__all__ = ["register", "cmd_reproduce", "cmd_tree"]


def _protocol_data(args):
    """The thesis's protocol data on ``--corpus`` (default Reuters-21578 ModApte, downloaded if
    needed) with ``--categories`` and the validation options."""
    from hbnlab.corpus.taxonomy import read_taxonomy
    from hbnlab.experiments import reproduce as rep
    from hbnlab.pipeline.corpus_spec import is_reuters_modapte

    indexing = indexing_from_args(args)
    corpus = corpus_from_args(args, log=print)
    categories = parse_categories(args.categories, corpus)
    if categories is None and not is_reuters_modapte(corpus.name):
        categories = corpus.categories(min_train=1, min_test=1)
    taxonomy = read_taxonomy(args.taxonomy, categories=corpus.categories()) if args.taxonomy else None
    return rep.load_protocol(corpus, categories=categories, log=print, taxonomy=taxonomy, indexing=indexing,
                             **validation_kwargs(args, args.random_state))


def _print_validation_rows(result: dict) -> None:
    for r in result["rows"]:
        extra = f" alpha={r['alpha']:g}" if "alpha" in r else ""
        paper = f"  paper {r['paper_micro']:.1f}  diff {r['micro'] - r['paper_micro']:+.1f}" \
            if r.get("paper_micro") is not None else ""
        print(f"{r['classifier']:<10} {r['n_features']:>4} features{extra}: validation micro "
              f"{r['micro']:.1f}{paper}")


def _verbeek(args) -> dict:
    from hbnlab.experiments.verbeek import verbeek_figures
    from hbnlab.pipeline.corpus_spec import load_named_corpus

    t0 = time.perf_counter()
    corpus = load_named_corpus(args.corpus or "reuters", reuters_dir=args.reuters_dir, seed=args.random_state,
                               encoding=args.encoding, table=table_options(args), strip=strip_parts(args))
    figs = verbeek_figures(corpus, random_state=args.random_state)
    m = figs.meta
    print(f"Verbeek figures on {m['corpus']}: classes {', '.join(m['classes'])}; {m['n_terms']} terms")
    f = m["figure_6_1"]
    print(f"Fig. 6.1 ({f['docs_per_class']} docs/class, {f['n_words_present']} words): MDL chooses "
          f"{f['n_groups_exceptions']} groups (exceptions), {f['n_groups_probabilistic']} (probabilistic); "
          f"best on test {f['n_groups_best']}; all-words accuracy {f['accuracy_all_words']:.3f}")
    print("Figs. 6.2-6.3: docs/class  words  best  prob  exc   acc_best  acc_prob  acc_exc")
    for r2, r3 in zip(figs.groups_vs_sample.to_dict("records"), figs.accuracy_vs_sample.to_dict("records")):
        print(f"  {r2['docs_per_class']:>10} {r2['n_words_present']:>6} {r2['n_groups_best']:>5} "
              f"{r2['n_groups_probabilistic']:>5} {r2['n_groups_exceptions']:>4}   {r3['accuracy_best']:.3f}     "
              f"{r3['accuracy_probabilistic']:.3f}     {r3['accuracy_exceptions']:.3f}")
    out = figs.to_dict()
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def _decampos_table(target: str, collection: str | None) -> int:
    """The collection number of ``decampos-table-N [--collection NAME]``: table 1 takes any
    ``--collection`` (default reuters); ``decampos-table-2`` / ``-3`` are the Ohsumed / 20 Newsgroups
    aliases and refuse another one."""
    from hbnlab.experiments.decampos import COLLECTION_KEYS, COLLECTIONS

    table = int(target.rsplit("-", 1)[1])
    if collection is None:
        return table
    if table != 1 and COLLECTION_KEYS[collection] != table:
        raise CLIError(f"--collection {collection} contradicts {target} ({COLLECTIONS[table]}); use "
                       f"decampos-table-1 --collection {collection}")
    return COLLECTION_KEYS[collection]


def _protocol_from_args(args):
    """The :class:`DecamposProtocol` of the ``--<option>`` flags given (the others at their defaults)."""
    from hbnlab.experiments.decampos import PROTOCOL_OPTIONS, DecamposProtocol

    given = {k: getattr(args, k) for k in PROTOCOL_OPTIONS if getattr(args, k, None) is not None}
    return DecamposProtocol(**given), given


def cmd_reproduce(args) -> int:
    from hbnlab.experiments import reproduce as rep
    from hbnlab.experiments import thesis
    from hbnlab.experiments.decampos import format_decampos_table, reproduce_decampos_table
    from hbnlab.pipeline.corpus_spec import resolve_reuters_dir

    target = args.target.lower()
    if target not in rep.TARGETS:
        raise CLIError(f"unknown target {args.target!r}; expected one of {', '.join(rep.TARGETS)}")
    if args.n_restarts is not None:
        N_RESTARTS.check(args.n_restarts, name="--n-restarts")
    if args.collection is not None and not target.startswith("decampos-table-"):
        raise CLIError(f"--collection applies to decampos-table-1 only, not to {target}")
    protocol, given = _protocol_from_args(args)
    if given and not target.startswith("decampos-table-"):
        flags = ", ".join("--" + k.replace("_", "-") for k in given)
        raise CLIError(f"{flags}: de Campos protocol options apply to decampos-table-1 only, not to {target}")
    if args.stop_words is not None and (target.startswith("decampos-table-") or target == "verbeek-figures"):
        how = "--stoplist (de Campos et al.'s protocol option)" if target.startswith("decampos") else \
            "Verbeek's SMART list"
        raise CLIError(f"--stop-words applies to the thesis's tables (table-4.x), not to {target}: it uses {how}")
    if args.thesis and not target.startswith("table-4."):
        raise CLIError(f"--thesis applies to the thesis's tables (table-4.x), not to {target}")
    if target == "table-4.10":
        try:
            rows = rep.parse_rows(args.rows) if args.rows else None
        except ValueError as e:
            raise CLIError(f"--rows: {e}") from None
        settings = parse_param_items(args.param)
        try:  # refused before the corpus is read
            given = rep.table_4_10_rows_settings(rows, settings, extra_rows=args.extra_rows,
                                                 thesis_model=args.thesis)
        except ValueError as e:
            raise CLIError(f"--param: {e}") from None
        for (name, _), params in given.items():  # the bounds of every row, before the corpus too
            check_learner_params(name, params, n_features=None)
        B_grid = None
        if args.tune_B:
            if not args.tune:
                raise CLIError("--tune-B needs --tune")
            try:
                B_grid = rep.check_B_grid(parse_list(args.tune_B, int, "--tune-B"))
            except ValueError as e:
                raise CLIError(f"--tune-B: {e}") from None
        k_grid = None
        if args.tune_k:
            if not args.tune:
                raise CLIError("--tune-k needs --tune")
            from hbnlab.models.hbn import parse_hidden_states

            items = parse_list(args.tune_k, str, "--tune-k")
            try:
                k_grid = rep.check_k_grid([parse_hidden_states(t) for t in items])
            except ValueError as e:
                raise CLIError(f"--tune-k: {e}") from None
        data = _protocol_data(args)
        result = rep.table_4_10(data, rows=rows, extra_rows=args.extra_rows, tune=args.tune,
                                n_restarts=args.n_restarts, n_jobs=args.n_jobs, random_state=args.random_state,
                                settings=settings, tune_B_grid=B_grid, tune_k_grid=k_grid,
                                thesis_model=args.thesis, log=print)
        print()
        if result.get("paper"):
            print("Table 4.10: breakeven (%) on the ModApte test set, 10 most frequent classes")
        else:
            print(f"The rows of Table 4.10: breakeven (%) on the test set of {data.corpus_name}, "
                  f"{len(data.categories)} classes (the thesis's values apply to Reuters-21578's 10 most frequent "
                  f"classes with the thesis's stop list only)")
        print(thesis.format_table(result))
    elif target in rep.VALIDATION_TARGETS:
        result = rep.validation_table(_protocol_data(args), target, n_restarts=args.n_restarts, n_jobs=args.n_jobs,
                                      random_state=args.random_state, thesis_model=args.thesis, log=print)
        print()
        _print_validation_rows(result)
    elif target.startswith("decampos-table-"):
        if strip_parts(args):
            raise CLIError(f"--strip-newsgroup: {target} reads its collection as de Campos et al. did, "
                           f"with its texts whole")
        table = _decampos_table(target, args.collection)
        corpus_path = None if args.corpus in (None, "reuters") else args.corpus
        if corpus_path is not None and not Path(corpus_path).exists():
            raise CLIError(f"--corpus {corpus_path!r}: no such file or directory")
        reuters_dir = str(resolve_reuters_dir(args.reuters_dir, download=True)) \
            if table == 1 and corpus_path is None else None
        result = reproduce_decampos_table(table=table, reuters_dir=reuters_dir, corpus_path=corpus_path,
                                          protocol=protocol, random_state=args.random_state, log=print,
                                          encoding=args.encoding)
        print(format_decampos_table(result))
    else:
        result = _verbeek(args)
    write_json(args.json, result)
    return 0


def cmd_tree(args) -> int:
    from hbnlab.export.atomic import write_text_atomic
    from hbnlab.export.render import dot_to_svg
    from hbnlab.models.catalog import TREE_LEARNERS, is_tree_learner
    from hbnlab.pipeline.fit import fit_unit
    from hbnlab.pipeline.store import prepare_cached

    name = args.classifier.upper()
    if not is_tree_learner(name):
        raise CLIError(f"--classifier must be one of {[n.lower() for n in TREE_LEARNERS]}")
    params = {k: v for k, v in (("B", args.B), ("alpha", args.alpha)) if v is not None}
    check_learner_params(name, params, n_features=args.n_features, flags={"B": "--B", "alpha": "--alpha"})
    corpus = corpus_from_args(args)
    if args.label not in corpus.categories():
        raise CLIError(f"class {args.label!r} is not a category of corpus {corpus.name!r}")
    data = prepare_cached(corpus, categories=[args.label], require_test=False, indexing=indexing_from_args(args))
    est = fit_unit(data, args.label, name, n_features=args.n_features, params=params,
                   random_state=args.seed).estimator
    if args.format == "text":
        out = est.tree_.to_text()
    elif args.format == "dot":
        out = est.to_dot()
    else:
        out = dot_to_svg(est.to_dot())
    if args.out:
        write_text_atomic(args.out, out)
        print(f"wrote {args.out}")
    else:
        print(out)
    return 0


def _add_protocol_options(parser) -> None:
    """One ``--option`` per open choice of de Campos et al.'s protocol (:data:`PROTOCOL_OPTIONS`)."""
    from hbnlab.experiments.decampos import PROTOCOL_OPTIONS

    g = parser.add_argument_group("decampos-table-1 protocol (default: the reading the paper's text supports)")
    for name, (values, meaning) in PROTOCOL_OPTIONS.items():
        g.add_argument("--" + name.replace("_", "-"), dest=name, default=None, choices=list(values),
                       help=f"{meaning} (default {values[0]})")


def register(sub) -> None:
    """Add ``reproduce`` and ``tree`` to the hbnlab parser."""
    r = sub.add_parser("reproduce", help="reproduce a table or figure of the source papers")
    r.add_argument("target", help="table-4.10 | table-4.2 ... table-4.9 | decampos-table-1 [--collection C] "
                                  "(decampos-table-2/3: ohsumed / 20newsgroups) | verbeek-figures")
    add_corpus_options(r, default=None)
    add_indexing_options(r)
    r.add_argument("--categories", default=None,
                   help="table-4.x: all | topK | comma list (default: Reuters top10; another corpus: every "
                        "category with a training and a test document)")
    add_validation_options(r)
    r.add_argument("--taxonomy", default=None, metavar="FILE",
                   help="table-4.x: the categories' tree for HIER-NB, one 'parent<TAB>child' per line (default: "
                        "the tree of dotted category names such as comp.sys.mac)")
    r.add_argument("--json", default=None, metavar="OUT", help="write the rows as JSON")
    r.add_argument("--n-jobs", type=int, default=2, help="parallel processes (default 2)")
    r.add_argument("--tune", action="store_true", help="table-4.10: tune B and alpha on validation (3 phases)")
    r.add_argument("--tune-B", default=None, metavar="B,B,...",
                   help="table-4.10 --tune: the branching factors of the second phase (default the thesis's "
                        "3,5,7,9; with 100-300 terms the best B can lie above 9, e.g. 3,5,7,9,12,15)")
    r.add_argument("--tune-k", default=None, metavar="K,K,...",
                   help="table-4.10 --tune: a fourth phase, the hidden nodes' number of states with B again from "
                        "the second phase's grid, at the chosen alpha (integers >= 2, auto, auto-holdout; e.g. 2,3; "
                        "ties to the earlier entry)")
    r.add_argument("--extra-rows", action="store_true", help="table-4.10: add the neighbours' learners")
    r.add_argument("--rows", default=None,
                   help="table-4.10: comma list like NB:30,HBN-OR:30,KNN:all (all: every term; "
                        "HIER-NB:30 = 30 terms per node of the taxonomy); HBN-OR:30/100/300 chooses the terms "
                        "per class on validation")
    r.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="table-4.10: a hyper-parameter for every row whose learner has it, e.g. --param alpha=0 "
                        "(JSON value; repeatable)")
    r.add_argument("--thesis", action="store_true",
                   help="table-4.x: the tree rows are the thesis's model (every selected term in the tree, the "
                        "tables by EM alone: objective=joint, tree_terms=null) instead of the product's defaults; "
                        "with it Table 4.10 is the thesis's, number for number")
    r.add_argument("--n-restarts", type=int, default=None, help="EM restarts for HBN rows (default 64)")
    r.add_argument("--random-state", type=int, default=0)
    r.add_argument("--collection", default=None, choices=["reuters", "ohsumed", "20newsgroups"],
                   help="decampos-table-1: the paper's collection to run (default reuters); ohsumed and "
                        "20newsgroups need --corpus PATH (ohsumed-first-20000-docs or ohsumed.91 + mtrees; "
                        "20news-bydate, -18828 or -19997)")
    r.add_late_options(_add_protocol_options)  # reads hbnlab.experiments: only when reproduce is used
    r.set_defaults(func=cmd_reproduce)

    t = sub.add_parser("tree", help="learn and draw an HBN/HNB tree for one class")
    add_corpus_options(t, default="reuters", synthetic_size=False)
    add_indexing_options(t)
    t.add_argument("--class", dest="label", required=True)
    t.add_argument("--classifier", default="hbn-or", help="hbn-avg | hbn-or | hbn-dep | hnb-avg | hnb-or | hnb-dep")
    t.add_argument("--B", type=int, default=None)
    t.add_argument("--alpha", type=float, default=None)
    t.add_argument("--n-features", type=int, default=30)
    t.add_argument("--format", default="text", choices=["text", "dot", "svg"])
    t.add_argument("--out", default=None)
    t.set_defaults(func=cmd_tree)
