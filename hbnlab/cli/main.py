"""The ``hbnlab`` command line: the parser, ``corpus-info`` and the error handling of every command.

    hbnlab corpus-info [--corpus synthetic|reuters|PATH] [--encoding auto|NAME] [--strip-newsgroup]
                       [--stop-words none|thesis|english|PATH] [--json]
    hbnlab reproduce table-4.10 | table-4.2 ... table-4.9 | decampos-table-1 | verbeek-figures
    hbnlab tree --corpus reuters --class trade --classifier hbn-or --format text|dot|svg
    hbnlab train | export-model | predict | run | report     (hbnlab.cli.models)
    hbnlab sweep                                             (hbnlab.cli.sweep)
    hbnlab cache list | clear                                (hbnlab.cli.cache)

``hbnlab ...``, ``python -m hbnlab ...`` and ``python -m hbnlab.cli ...`` all run :func:`main`.
An hbnlab error (bad arguments, a corpus or model file that cannot be read) is printed as one
line naming the bad value, exit status 2; an interrupted sweep exits 130.  A corpus error that an
option fixes ends with that option (``rerun with --encoding auto``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from hbnlab._validation import HbnlabError
from hbnlab.cli import cache, models, reproduce, sweep
from hbnlab.cli.common import (
    NO_CACHE_ENV,
    add_corpus_options,
    add_indexing_options,
    add_validation_options,
    corpus_from_args,
    indexing_from_args,
    validation_kwargs,
)

__all__ = ["CommandParser", "build_parser", "main"]


class CommandParser(argparse.ArgumentParser):
    """The parser of one command.  Options whose choices come from the library (the de Campos
    protocol's, from :mod:`hbnlab.experiments.decampos`) are added by a function given to
    :meth:`add_late_options`, which runs when this command is parsed or its help is printed: so
    ``hbnlab --help`` and every other command never import what those options read (pandas and
    scipy.stats, through :mod:`hbnlab.evaluation`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._late_options: list = []

    def add_late_options(self, add) -> None:
        """``add(self)`` adds options to this parser the first time it is used."""
        self._late_options.append(add)

    def _add_late_options(self) -> None:
        while self._late_options:
            self._late_options.pop(0)(self)

    def parse_known_args(self, args=None, namespace=None):
        self._add_late_options()
        return super().parse_known_args(args, namespace)

    def format_help(self):
        self._add_late_options()
        return super().format_help()

    def format_usage(self):
        self._add_late_options()
        return super().format_usage()


def _validation_lines(corpus, args) -> tuple[dict, list[str]]:
    """Per category, the positives each side of the tuning split (or in each fold), and the
    categories the split cannot tune."""
    from hbnlab.corpus.splits import fold_counts, untunable_labels, validation_folds

    kw = validation_kwargs(args, seed=args.random_state)
    folds, info = validation_folds(corpus, method=kw["validation"], cv=kw["cv"], random_state=kw["random_state"])
    cats = corpus.categories()
    train = corpus.train
    Y = [[c in d.labels for c in cats] for d in train]
    counts = dict(zip(cats, fold_counts(Y, folds)))
    bad = untunable_labels(Y, folds, cats)
    n_eval = int((folds >= 0).sum())
    if info["method"] == "cv":
        head = f"tuning split: {info['n_folds']}-fold cross-validation (seed {info['random_state']})"
    elif info["method"] == "date":
        head = f"tuning split: by date (the thesis's), {n_eval} of {len(train)} training documents for validation"
    else:
        head = (f"tuning split: stratified (seed {info['random_state']}), {n_eval} of {len(train)} training "
                "documents for validation")
    return {"info": info, "counts": counts, "untunable": bad}, [head]


#: Columns the category names of ``corpus-info`` may take; a longer name is cut, ending with "…".
MAX_NAME_COLUMNS = 60


def _print_category_table(per_category: dict, split: dict, cv: bool) -> None:
    """One row per category: its documents per split, the tuning split's positives and whether it
    can be tuned.  Every column is as wide as its widest cell, measured in terminal columns (wide
    and combining characters counted as drawn), the names' column at most
    :data:`MAX_NAME_COLUMNS`; a name cut to fit is followed by a note."""
    from hbnlab.cli.columns import cell, display_width, visible

    rows = []
    for cat, c in per_category.items():
        f = split["counts"][cat]
        sides = [",".join(map(str, f["eval"]))] if cv else [str(f["fit"][0]), str(f["eval"][0])]
        why = split["untunable"].get(cat)
        rows.append([cat, str(c["train"]), str(c["test"]), *sides, f"no: {why}" if why else "yes"])
    head = ["category", "train", "test", *(["positives per fold"] if cv else ["train-0", "valid"]), "tunable"]
    widths = [max(display_width(visible(r[k])) for r in [head, *rows]) for k in range(len(head) - 1)]
    widths[0] = min(widths[0], MAX_NAME_COLUMNS)
    for r in [head, *rows]:
        cells = [cell(r[0], widths[0])] + [cell(v, w, right=True) for v, w in zip(r[1:-1], widths[1:])]
        print("  ".join(cells) + "  " + r[-1])
    cut = [cat for cat in per_category if display_width(visible(cat)) > MAX_NAME_COLUMNS]
    if cut:
        print(f"({len(cut)} category name(s) longer than {MAX_NAME_COLUMNS} columns cut, ending with '…'; "
              f"--json prints them whole)")


def _indexing_summary(corpus, cfg) -> dict:
    """The indexing of ``--stop-words`` applied to the corpus: its stop list, the terms it keeps and
    the documents it leaves without a single term (``empty_documents``: train / test counts)."""
    from hbnlab.text import index_corpus

    out = {"stopwords": cfg.to_dict()["stopwords"], "min_df": cfg.min_df}
    if not corpus.train:
        return {**out, "n_terms": 0, "empty_documents": None}
    ic = index_corpus(corpus, cfg, categories=())
    return {**out, "n_terms": ic.n_terms, "empty_documents": ic.empty_documents()}


def _indexing_line(ix: dict, s: dict) -> str:
    from hbnlab.text.stopwords import describe_stop_words

    head = (f"indexing (stop words: {describe_stop_words(ix['stopwords'])}, terms in >= {ix['min_df']} training "
            f"documents)")
    empty = ix["empty_documents"]
    if empty is None:
        return f"{head}: no training documents to build a vocabulary from"
    return (f"{head}: {ix['n_terms']:,} terms; {empty['train']:,} of {s['n_train']:,} training and "
            f"{empty['test']:,} of {s['n_test']:,} test documents have no term left")


def cmd_corpus_info(args) -> int:
    from hbnlab.corpus.encoding import encoding_summary
    from hbnlab.text.newsgroup import strip_summary

    cfg = indexing_from_args(args)
    corpus = corpus_from_args(args, log=None if args.json else print)
    s = corpus.summary()
    split, head = _validation_lines(corpus, args)
    ix = _indexing_summary(corpus, cfg)
    if args.json:
        s.update({k: corpus.meta[k] for k in ("encodings", "replaced_files", "ignored_files", "newsgroup_strip")
                  if k in corpus.meta})
        s["validation"] = split
        s["indexing"] = ix
        print(json.dumps(s, indent=2))
        return 0
    kind = " (synthetic)" if s["synthetic"] else ""
    cv = split["info"]["method"] == "cv"
    print(f"corpus {s['name']}{kind}: {s['n_documents']} documents, {s['n_train']} train / {s['n_test']} test, "
          f"{s['n_categories']} categories")
    print(f"split: {s['split_source']}")
    stripped = strip_summary(corpus.meta, len(corpus))
    if stripped:
        print(stripped)
    print(_indexing_line(ix, s))
    print(head[0])
    _print_category_table(s["per_category"], split, cv)
    for line in encoding_summary(corpus.meta):
        print(line)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hbnlab", description="Hierarchical Bayesian network text classifiers.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=CommandParser)
    c = sub.add_parser("corpus-info", help="counts per split and category for a corpus, and its files' encodings")
    add_corpus_options(c, default="synthetic")
    add_indexing_options(c)
    add_validation_options(c)
    c.add_argument("--random-state", type=int, default=0, help="seed of a stratified tuning split or folds")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(func=cmd_corpus_info)
    reproduce.register(sub)
    models.register(sub)
    sweep.register(sub)
    cache.register(sub)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the command line, for resume hints
    if getattr(args, "allow_modified_reuters", False):
        os.environ["HBNLAB_ALLOW_MODIFIED_REUTERS"] = "1"  # read by the Reuters reader here and in workers
    if getattr(args, "no_cache", False):
        os.environ[NO_CACHE_ENV] = "1"  # read by the store here and in workers
    try:
        return args.func(args) or 0
    except (HbnlabError, ValueError, OSError) as e:
        # every hbnlab error names the file, line, field or option it refers to
        # (hbnlab.corpus is imported only now: ``hbnlab --help`` does not load the library)
        from hbnlab.corpus import CorpusError

        text = e.advise("rerun with {option} {suggestion}") if isinstance(e, CorpusError) else str(e)
        print(f"hbnlab: error: {text}", file=sys.stderr)
        return 2
