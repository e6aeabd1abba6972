"""What every command shares: the user-facing error, corpus options, list parsing, JSON output."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from hbnlab._validation import HbnlabError

__all__ = ["CLIError", "add_corpus_options", "check_corpus_arg", "corpus_from_args", "parse_list", "write_json"]


class CLIError(HbnlabError, ValueError):
    """A user-facing error: printed without a traceback, exit status 2."""


def add_corpus_options(p: argparse.ArgumentParser, *, default: str, seed_flag: str = "--seed",
                       synthetic_size: bool = True) -> None:
    """``--corpus synthetic|reuters|PATH``, ``--reuters-dir``, the synthetic corpus's seed and size."""
    p.add_argument("--corpus", default=default, help="synthetic | reuters | PATH (directory, table, zip)")
    p.add_argument("--reuters-dir", default=None, help="Reuters-21578 directory (default $HBNLAB_REUTERS_DIR, "
                                                       "else the verified download cache)")
    p.add_argument(seed_flag, type=int, default=0, help="seed of the synthetic corpus")
    if synthetic_size:
        p.add_argument("--synthetic-size", type=int, default=3000, help="documents of the synthetic corpus")


def check_corpus_arg(args) -> None:
    """Refuse a ``--corpus`` path that does not exist and a too small ``--synthetic-size``, naming the option."""
    size = getattr(args, "synthetic_size", 3000)
    if args.corpus == "synthetic" and size < 8:
        raise CLIError(f"--synthetic-size must be >= 8, got {size}")
    if args.corpus not in ("synthetic", "reuters") and not Path(args.corpus).exists():
        raise CLIError(f"--corpus {args.corpus!r}: no such file or directory (use synthetic, reuters or a path)")


def corpus_from_args(args):
    """The corpus that ``--corpus`` / ``--reuters-dir`` / the synthetic options name."""
    from hbnlab.pipeline.corpus_spec import load_named_corpus

    check_corpus_arg(args)
    seed = args.corpus_seed if hasattr(args, "corpus_seed") else args.seed
    return load_named_corpus(args.corpus, reuters_dir=args.reuters_dir, seed=seed,
                             size=getattr(args, "synthetic_size", 3000))


def parse_list(text: str, cast, what: str) -> list:
    """``"3,5,7"`` -> ``[3, 5, 7]``; the error names the option and the bad item."""
    items = [t.strip() for t in str(text).split(",") if t.strip()]
    if not items:
        raise CLIError(f"{what}: expected a comma-separated list, got {text!r}")
    out = []
    for t in items:
        try:
            out.append(cast(t))
        except ValueError:
            raise CLIError(f"{what}: {t!r} is not a valid {cast.__name__}") from None
    return out


def write_json(path: str | None, obj) -> None:
    """Write ``obj`` as indented JSON (keys starting with ``_`` dropped) and say so; no-op without a path."""
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
