"""The ``hbnlab`` command line.

    hbnlab corpus-info [--corpus synthetic|reuters|PATH]
    hbnlab reproduce table-4.10 [--reuters-dir DIR] [--json OUT] [--n-jobs N] [--tune] [--extra-rows]
    hbnlab reproduce table-4.2 ... table-4.9
    hbnlab tree --corpus reuters --class trade --classifier hbn-or [--B B --alpha A] --format text|dot|svg
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path


class CLIError(Exception):
    """A user-facing error: printed without a traceback, exit status 2."""


# --------------------------------------------------------------------------- corpus loading
def resolve_reuters_dir(arg: str | None) -> Path:
    value = arg or os.environ.get("HBNLAB_REUTERS_DIR")
    if value:
        return Path(value)
    from hbnlab.corpus import fetch_reuters21578

    return fetch_reuters21578()


def load_corpus_arg(spec: str, reuters_dir: str | None = None, seed: int = 0):
    from hbnlab.corpus import load_corpus, load_reuters21578, make_synthetic_corpus

    if spec == "synthetic":
        return make_synthetic_corpus(random_state=seed)
    if spec == "reuters":
        return load_reuters21578(resolve_reuters_dir(reuters_dir))
    return load_corpus(spec)


# --------------------------------------------------------------------------- commands
def cmd_corpus_info(args) -> int:
    corpus = load_corpus_arg(args.corpus, args.reuters_dir, args.seed)
    s = corpus.summary()
    if args.json:
        print(json.dumps(s, indent=2))
        return 0
    kind = " (synthetic)" if s["synthetic"] else ""
    print(f"corpus {s['name']}{kind}: {s['n_documents']} documents, {s['n_train']} train / {s['n_test']} test, "
          f"{s['n_categories']} categories")
    print(f"{'category':<20}{'train':>8}{'test':>8}")
    for cat, c in s["per_category"].items():
        print(f"{cat:<20}{c['train']:>8}{c['test']:>8}")
    return 0


def _write_json(path: str | None, obj) -> None:
    if not path:
        return
    from hbnlab.export.atomic import write_text_atomic

    def clean(o):
        if isinstance(o, dict):
            return {k: clean(v) for k, v in o.items() if not str(k).startswith("_")}
        if isinstance(o, list):
            return [clean(v) for v in o]
        return o

    write_text_atomic(Path(path), json.dumps(clean(obj), indent=2))
    print(f"wrote {path}")


def cmd_reproduce(args) -> int:
    from hbnlab.experiments import reproduce as rep

    return rep.run_cli(args)


def cmd_tree(args) -> int:
    from hbnlab.experiments import reproduce as rep

    return rep.tree_cli(args)


# --------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hbnlab", description="Hierarchical Bayesian network text classifiers.")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("corpus-info", help="counts per split and category for a corpus")
    c.add_argument("--corpus", default="synthetic", help="synthetic | reuters | PATH (directory, table, zip)")
    c.add_argument("--reuters-dir", default=None)
    c.add_argument("--seed", type=int, default=0, help="seed of the synthetic corpus")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(func=cmd_corpus_info)

    r = sub.add_parser("reproduce", help="reproduce a table or figure of the seed papers")
    r.add_argument("target", help="table-4.10 | table-4.2 ... table-4.9 | decampos-table-1 | verbeek-figures")
    r.add_argument("--reuters-dir", default=None)
    r.add_argument("--json", default=None, metavar="OUT", help="write the rows as JSON")
    r.add_argument("--n-jobs", type=int, default=2, help="parallel processes (default 2)")
    r.add_argument("--tune", action="store_true", help="table-4.10: tune B and alpha on validation (3 phases)")
    r.add_argument("--extra-rows", action="store_true", help="table-4.10: add the neighbours' learners")
    r.add_argument("--rows", default=None, help="table-4.10: comma list like NB:30,HBN-OR:30")
    r.add_argument("--n-restarts", type=int, default=None, help="EM restarts for HBN rows (default 64)")
    r.add_argument("--random-state", type=int, default=0)
    r.add_argument("--corpus", default=None, help="corpus path for targets that accept one")
    r.set_defaults(func=cmd_reproduce)

    t = sub.add_parser("tree", help="learn and draw an HBN/HNB tree for one class")
    t.add_argument("--corpus", default="reuters")
    t.add_argument("--reuters-dir", default=None)
    t.add_argument("--class", dest="label", required=True)
    t.add_argument("--classifier", default="hbn-or", help="hbn-avg | hbn-or | hbn-dep | hnb-avg | hnb-or | hnb-dep")
    t.add_argument("--B", type=int, default=None)
    t.add_argument("--alpha", type=float, default=None)
    t.add_argument("--n-features", type=int, default=30)
    t.add_argument("--format", default="text", choices=["text", "dot", "svg"])
    t.add_argument("--out", default=None)
    t.add_argument("--seed", type=int, default=0)
    t.set_defaults(func=cmd_tree)

    for hook in _command_hooks():
        hook(sub)
    return p


_EXTRA_COMMANDS: list = []

# Modules that add subcommands: each has ``register(subparsers)``.
_COMMAND_MODULES = (
    "hbnlab.commands_export",  # train, export-model, predict, report, run
    "hbnlab.commands_sweep",  # sweep
)


def _command_hooks():
    import importlib

    return [importlib.import_module(m).register for m in _COMMAND_MODULES] + _EXTRA_COMMANDS


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    try:
        rc = args.func(args)
    except CLIError as e:
        print(f"hbnlab: error: {e}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as e:
        # readers raise CorpusError (a ValueError) naming the file and the line or field
        print(f"hbnlab: error: {e}", file=sys.stderr)
        return 2
    if getattr(args, "verbose_time", False):
        print(f"[{time.perf_counter() - t0:.1f}s]")
    return rc or 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
