"""Commands for models and reports that leave hbnlab.

    hbnlab train --corpus synthetic|reuters|PATH --class LABEL --classifier hbn-or [--B --alpha
                 --n-features --random-state --n-restarts --param KEY=VALUE --stop-words none|thesis|english|PATH]
                 --out MODEL.hbnlab
    hbnlab export-model MODEL --format hbnlab|bif|xmlbif|net --out FILE
    hbnlab predict --model MODEL --input docs.jsonl --out preds.jsonl [--evidence]
    hbnlab run MANIFEST [--out result.json]
    hbnlab report --experiment MANIFEST|RESULT --out report.html   (also report.csv, report-*.csv, report.md)

Errors are :class:`hbnlab.cli.CLIError` or ``ValueError`` subclasses (model-file, manifest and
corpus errors), printed without a traceback (exit status 2).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from hbnlab.bounds import SEED
from hbnlab.cli.common import (
    CLIError,
    add_corpus_options,
    add_indexing_options,
    check_corpus_arg,
    check_learner_params,
    indexing_from_args,
    parse_param_items,
    strip_parts,
    table_options,
)

__all__ = ["register", "cmd_train", "cmd_export_model", "cmd_predict", "cmd_run", "cmd_report", "evidence_names"]


def _corpus_spec(args):
    from hbnlab.experiments.manifest import CorpusSpec

    check_corpus_arg(args)
    if args.corpus in ("synthetic", "synthetic-hierarchy"):
        return CorpusSpec(args.corpus, seed=args.seed, size=args.synthetic_size)
    if args.corpus == "reuters":
        return CorpusSpec("reuters", path=args.reuters_dir, strip=strip_parts(args))
    return CorpusSpec("path", path=args.corpus, encoding=args.encoding, table=table_options(args),
                      strip=strip_parts(args))


# =========================================================================== train
def cmd_train(args) -> int:
    from hbnlab.corpus.taxonomy import read_taxonomy
    from hbnlab.evaluation import breakeven_point
    from hbnlab.export.model_io import save_model
    from hbnlab.models.catalog import is_tree_learner, learner
    from hbnlab.pipeline.fit import fit_unit
    from hbnlab.pipeline.store import prepare_cached

    try:
        name = learner(args.classifier).name
    except ValueError as e:
        raise CLIError(f"--classifier: {e}") from None
    params = parse_param_items(args.param)
    flags = {}
    for opt, val in (("B", args.B), ("alpha", args.alpha), ("n_restarts", args.n_restarts)):
        if val is None:
            continue
        flags[opt] = f"--{opt.replace('_', '-')}"
        if not is_tree_learner(name):
            raise CLIError(f"{flags[opt]} applies to the hbn-*/hnb-* classifiers, not {args.classifier!r}")
        params[opt] = val
    if args.n_features < 1:
        raise CLIError(f"--n-features must be >= 1, got {args.n_features}")
    SEED.check(args.random_state, name="--random-state")
    # every bound is checked before the corpus is read or anything allocated
    check_learner_params(name, params, n_features=args.n_features, random_state=args.random_state, flags=flags)
    indexing = indexing_from_args(args)  # the model file keeps the stop list's words
    spec = _corpus_spec(args)
    t0 = time.perf_counter()
    corpus = spec.load()
    usable = corpus.categories(min_train=1)
    if args.label not in usable:
        raise CLIError(f"class {args.label!r} has no training documents in corpus {corpus.name!r}; "
                       f"classes: {usable[:30]}")
    taxonomy = read_taxonomy(args.taxonomy, categories=corpus.categories()) if args.taxonomy else None
    data = prepare_cached(corpus, categories=[args.label], require_test=False, taxonomy=taxonomy, indexing=indexing,
                          log=print)
    y = data.Y_train[:, 0]
    if y.min() == y.max():
        raise CLIError(f"class {args.label!r} has {'no' if y.max() == 0 else 'only'} positive training documents")
    # thesis sec. 4.1.2: the n_features terms with the highest information gain for the class
    res = fit_unit(data, args.label, name, n_features=args.n_features, params=params,
                   random_state=args.random_state, score="proba")
    est = res.estimator
    prov = {"command": "train",
            "arguments": {k: v for k, v in vars(args).items() if k != "func" and isinstance(v, (str, int, float, list,
                                                                                              type(None)))},
            "corpus_spec": spec.to_dict(), "classifier": name, "classifier_params": params,
            "n_features": len(res.terms), "random_state": args.random_state, "fit_seconds": round(res.seconds, 4)}
    msg = ""
    y_test = data.Y_test[:, 0]
    if data.X_test.shape[0] and y_test.any():
        be = 100 * breakeven_point(y_test, res.scores)
        prov["test_breakeven"] = round(float(be), 4)
        msg = f"; test breakeven {be:.1f}% on {data.X_test.shape[0]} documents"
    path = save_model(est, args.out, indexing=data.indexed.config, vocabulary=data.vocabulary, corpus=corpus,
                      label=args.label, provenance=prov)
    print(f"trained {name} for {args.label!r} on {corpus.name} ({data.X_train.shape[0]} documents, "
          f"{len(res.terms)} features) in {time.perf_counter() - t0:.1f}s{msg}")
    print(f"wrote {path}")
    return 0


# =========================================================================== export-model
def cmd_export_model(args) -> int:
    from hbnlab.export.bn_formats import export_bn
    from hbnlab.export.model_io import load_model, save_model

    loaded = load_model(args.model)
    fmt = args.format.lower()
    if fmt == "hbnlab":
        path = save_model(loaded, args.out)
    else:
        path = export_bn(loaded, fmt, args.out)
    print(f"wrote {path} ({fmt})")
    return 0


# =========================================================================== predict
def _read_jsonl(path: str) -> tuple[list, list]:
    ids, texts = [], []
    p = Path(path)
    try:
        fh = p.open("r", encoding="utf-8")
    except OSError as e:
        raise CLIError(f"{path}: cannot read ({e.strerror or e})") from None
    with fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                raise CLIError(f"line {n} of {p.name}: not valid JSON ({e})") from None
            if not isinstance(obj, dict):
                raise CLIError(f"line {n} of {p.name}: expected a JSON object with 'text', got {type(obj).__name__}")
            text = obj.get("text")
            if not isinstance(text, str):
                raise CLIError(f"line {n} of {p.name}: field 'text' is missing or not a string")
            title = obj.get("title") or ""
            if not isinstance(title, str):
                raise CLIError(f"line {n} of {p.name}: field 'title' is not a string")
            # title and body as one text (thesis sec. 4.1.2, like Document.full_text)
            texts.append(f"{title}\n{text}" if title else text)
            ids.append(obj.get("id", n))
    return ids, texts


def evidence_names(loaded) -> tuple[str, list]:
    """(class variable, feature variable names) of a loaded model: its exported network's names
    (the same for every learner: the class first, then the selected terms)."""
    from hbnlab.export.bn_formats import BN_LEARNERS, feature_variable_names, model_class_name, network_from_model

    if loaded.learner in BN_LEARNERS:
        net = network_from_model(loaded)
        return net.class_variable, list(net.feature_variables)
    cname = model_class_name(loaded)
    terms = loaded.selected_terms or []
    return cname, feature_variable_names(terms, cname)


def cmd_predict(args) -> int:
    import numpy as np

    from hbnlab.export.atomic import write_text_atomic
    from hbnlab.export.model_io import load_model

    loaded = load_model(args.model)
    if loaded.pipeline is None:
        raise CLIError(f"{args.model}: the model file has no vocabulary / indexing settings, so it cannot "
                       "classify raw text (save it with vocabulary= and indexing=)")
    if not hasattr(loaded.estimator, "selected_features_"):
        raise CLIError(f"{args.model}: {loaded.learner} is a multi-class model; predict handles binary models")
    ids, texts = _read_jsonl(args.input)
    p = loaded.pipeline.predict_proba(texts) if texts else np.zeros(0)
    lines = []
    if args.evidence:
        cname, names = evidence_names(loaded)
        E = loaded.pipeline.evidence(texts) if texts else np.zeros((0, len(names)), dtype=np.int8)
    for i, (doc_id, prob) in enumerate(zip(ids, p)):
        rec = {"id": doc_id, "label": loaded.label, "probability": float(prob)}
        if args.evidence:
            rec["class_variable"] = cname
            rec["evidence"] = {n: int(v) for n, v in zip(names, E[i])}
        lines.append(json.dumps(rec, ensure_ascii=False))
    write_text_atomic(Path(args.out), "\n".join(lines) + ("\n" if lines else ""))
    print(f"wrote {args.out} ({len(lines)} documents)")
    return 0


# =========================================================================== run / report
def _load_experiment(path: str):
    """(ExperimentResult) from a result JSON, or by running a manifest."""
    from hbnlab.experiments.manifest import ExperimentManifest, run_manifest
    from hbnlab.export.report import RESULT_FORMAT, ExperimentResult

    p = Path(path)
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise CLIError(f"{path}: cannot read ({e.strerror or e})") from None
    except ValueError as e:
        raise CLIError(f"{path}: not valid JSON ({e})") from None
    if isinstance(d, dict) and d.get("format") == RESULT_FORMAT:
        return ExperimentResult.load(p)
    manifest = ExperimentManifest.load(p)

    def progress(frac, msg):
        print(f"  [{100 * frac:5.1f}%] {msg}", file=sys.stderr)

    return run_manifest(manifest, progress=progress)


def cmd_run(args) -> int:
    from hbnlab.export.report import breakeven_frame, markdown_table

    result = _load_experiment(args.manifest)
    print(markdown_table(breakeven_frame(result)))
    if args.out:
        result.save(args.out)
        print(f"wrote {args.out}")
    return 0


def cmd_report(args) -> int:
    from hbnlab.export.report import write_report

    result = _load_experiment(args.experiment)
    paths = write_report(result, args.out, include_trees=not args.no_trees)
    for kind, p in paths.items():
        print(f"wrote {p} ({kind})")
    return 0


# =========================================================================== parser
def register(subparsers) -> None:
    """Add ``train``, ``export-model``, ``predict``, ``run`` and ``report`` to the hbnlab parser."""
    t = subparsers.add_parser("train", help="train one binary classifier and save it as an hbnlab model file")
    add_corpus_options(t, default="synthetic")
    add_indexing_options(t)
    t.add_argument("--class", dest="label", required=True, help="the positive class (e.g. trade)")
    t.add_argument("--classifier", default="hbn-or",
                   help="a learner of hbnlab.models.catalog, e.g. hbn-or, hnb-dep, nb, svm, or-eq12, kdb "
                        "(an unknown name lists them all)")
    t.add_argument("--B", type=int, default=None, help="branching factor (hbn-*/hnb-*; default thesis Table 4.1)")
    t.add_argument("--alpha", type=float, default=None, help="clustering threshold (hbn-*/hnb-*)")
    t.add_argument("--n-features", type=int, default=30, help="terms selected by information gain (default 30)")
    t.add_argument("--random-state", type=int, default=0)
    t.add_argument("--n-restarts", type=int, default=None, help="EM restarts (hbn-*/hnb-*; default 64)")
    t.add_argument("--param", action="append", metavar="KEY=VALUE", help="another hyper-parameter (JSON value)")
    t.add_argument("--taxonomy", default=None, metavar="FILE",
                   help="hier-nb: the categories' tree, one 'parent<TAB>child' per line (default: dotted names)")
    t.add_argument("--out", required=True, help="model file to write (.hbnlab)")
    t.set_defaults(func=cmd_train)

    e = subparsers.add_parser("export-model", help="convert a model file: hbnlab, BIF, XMLBIF or HUGIN .net")
    e.add_argument("model", help="an .hbnlab model file")
    e.add_argument("--format", required=True, choices=["hbnlab", "bif", "xmlbif", "net"])
    e.add_argument("--out", required=True)
    e.set_defaults(func=cmd_export_model)

    p = subparsers.add_parser("predict", help="P(class | document) for the documents of a JSONL file")
    p.add_argument("--model", required=True, help="an .hbnlab model file")
    p.add_argument("--input", required=True, help="JSONL: one object per line with 'text' (and 'id', 'title')")
    p.add_argument("--out", required=True, help="JSONL output: id, label, probability (+ evidence)")
    p.add_argument("--evidence", action="store_true",
                   help="also write the observed value of every feature variable, keyed by its exported name")
    p.set_defaults(func=cmd_predict)

    r = subparsers.add_parser("run", help="run an experiment manifest (JSON) and print its breakeven table")
    r.add_argument("manifest")
    r.add_argument("--out", default=None, help="write the experiment result (JSON)")
    r.set_defaults(func=cmd_run)

    rp = subparsers.add_parser("report", help="HTML report (+ CSV, Markdown) of an experiment manifest or result")
    rp.add_argument("--experiment", required=True, help="a manifest (run first) or a result JSON from 'hbnlab run'")
    rp.add_argument("--out", required=True, help="report.html; report.csv, report-*.csv and report.md go beside it")
    rp.add_argument("--no-trees", action="store_true", help="do not draw the learned trees")
    rp.set_defaults(func=cmd_report)
