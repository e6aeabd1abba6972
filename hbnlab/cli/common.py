"""What every command shares: the user-facing error, corpus options, list parsing, JSON output."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from hbnlab import bounds
from hbnlab._validation import HbnlabError

__all__ = ["CLIError", "NO_CACHE_ENV", "add_corpus_options", "add_validation_options", "validation_kwargs",
           "add_indexing_options", "indexing_from_args",
           "check_corpus_arg", "check_learner_params", "corpus_from_args", "table_options", "TABLE_FLAGS",
           "strip_parts", "STRIP_ALL",
           "parse_list", "parse_categories",
           "parse_param_items", "write_json"]

#: The store's off switch (:data:`hbnlab.pipeline.store.NO_CACHE_ENV`, kept here so that
#: ``hbnlab --help`` does not import the library).
NO_CACHE_ENV = "HBNLAB_NO_CACHE"
#: ``--validation`` choices (:data:`hbnlab.corpus.splits.VALIDATION_METHODS`, kept here so that
#: ``hbnlab --help`` does not import the library).
_VALIDATION_CHOICES = ("auto", "date", "stratified")
#: ``--strip-newsgroup`` without a value: every part (:data:`hbnlab.text.newsgroup.NEWSGROUP_PARTS`, kept
#: here so that ``hbnlab --help`` does not import the library).
STRIP_ALL = "headers,quotes,signature"


#: The table reader's column options: flag, the column read by default, help.  ``--id-column`` and
#: ``--split-column`` read ``id`` / ``split`` when the table has them; ``none`` ignores such a column.
TABLE_FLAGS = (
    ("--text-column", "text", "column of the document text"),
    ("--labels-column", "labels", "column of the labels"),
    ("--id-column", "", "column of the document ids (default: 'id' when the table has one, else the row "
                        "number; 'none': the row number)"),
    ("--split-column", "", "column of the train/test split (default: 'split' when the table has one, else a "
                           "seeded 75/25 split; 'none': ignore it). TRAIN,TEST as --corpus, or a folder "
                           "holding train.csv and test.csv, takes the split from the file names"),
    ("--title-column", "", "column of the document titles (default: none)"),
)


def table_options(args) -> dict:
    """The table reader's keywords the command line set (``--text-column`` ... ``--label-separator``);
    ``none`` for the id or split column means "do not read one"."""
    out = {}
    for flag, _, _ in TABLE_FLAGS:
        key = flag[2:].replace("-", "_")
        value = getattr(args, key, None)
        if value is not None:
            if not value.strip():
                raise CLIError(f"{flag}: expected a column name, got {value!r}")
            out[key] = "" if key in ("id_column", "split_column") and value.strip().lower() == "none" else value
    if getattr(args, "label_sep", None) is not None:
        if args.label_sep == "":
            raise CLIError("--label-separator: expected a separator, got ''")
        out["label_sep"] = args.label_sep
    return out


class CLIError(HbnlabError, ValueError):
    """A user-facing error: printed without a traceback, exit status 2."""


def add_corpus_options(p: argparse.ArgumentParser, *, default: str, seed_flag: str = "--seed",
                       synthetic_size: bool = True) -> None:
    """``--corpus synthetic|reuters|PATH|TRAIN,TEST``, ``--encoding``, ``--reuters-dir``, a table's
    columns (:data:`TABLE_FLAGS`, ``--label-separator``), the synthetic corpus's seed and size."""
    p.add_argument("--corpus", default=default,
                   help="synthetic | synthetic-hierarchy | reuters | PATH (directory, table, zip) | TRAIN,TEST "
                        "(two table files, e.g. train.csv,test.csv: one corpus split by the file names)")
    p.add_argument("--encoding", default="auto", metavar="auto|NAME",
                   help="text encoding of the files of --corpus PATH: auto (default) detects it file by file "
                        "(byte-order mark, UTF-16, UTF-8, cp1252, a detector's guess); a codec name (utf-8, "
                        "latin-1, cp1252, utf-16) reads every file strictly with it")
    p.add_argument("--reuters-dir", default=None, help="Reuters-21578 directory (default $HBNLAB_REUTERS_DIR, "
                                                       "else the verified download cache)")
    p.add_argument("--allow-modified-reuters", action="store_true",
                   help="read a Reuters-21578 copy whose files differ from Distribution 1.0 (SHA-256, counts) "
                        "with a warning instead of an error; sets $HBNLAB_ALLOW_MODIFIED_REUTERS=1 for workers too")
    p.add_argument("--strip-newsgroup", nargs="?", const=STRIP_ALL, default=None, metavar="PARTS",
                   help="remove newsgroup headers (the block up to the first blank line), quoted replies ('>' "
                        "lines, 'In article ... writes:') and signatures (a short part after '-- ') from the texts "
                        "of --corpus reuters|PATH; PARTS: a comma list of headers, quotes, signature (default: all). "
                        "Off by default; the corpus fingerprint records it")
    p.add_argument("--no-cache", action="store_true",
                   help="parse and index the corpus afresh, without the store of prepared corpora in the data home "
                        "(sets $HBNLAB_NO_CACHE=1 for workers too; 'hbnlab cache list|clear' shows and empties it)")
    t = p.add_argument_group("table corpus (CSV, TSV, JSONL, Parquet)")
    for flag, default_name, what in TABLE_FLAGS:
        t.add_argument(flag, default=None, metavar="COLUMN", help=what + (f" (default {default_name!r})"
                                                                           if default_name else ""))
    t.add_argument("--label-separator", "--label-sep", dest="label_sep", default=None, metavar="SEP",
                   help="what separates several labels in one cell (default: the one of , ; | that occurs, "
                        "else white space)")
    p.add_argument(seed_flag, type=int, default=0, help="seed of the synthetic corpus")
    if synthetic_size:
        p.add_argument("--synthetic-size", type=int, default=3000, help="documents of the synthetic corpus")


def add_indexing_options(p: argparse.ArgumentParser) -> None:
    """``--stop-words none|thesis|english|PATH``: the stop list of the indexing."""
    p.add_argument("--stop-words", default=None, metavar="none|thesis|english|PATH",
                   help="stop list of the indexing: thesis (default; the thesis's function words, Table 4.10), "
                        "english (scikit-learn's list), smart (SMART's 570 words), none, or PATH, a UTF-8 file of "
                        "one word per line ('#' comments). Every list removes who/what/where/when/why/how: "
                        "questions may need none")


def indexing_from_args(args):
    """The :class:`hbnlab.text.IndexingConfig` of ``--stop-words`` (the thesis's indexing otherwise); a bad
    name or file is an error naming the option and, for a file, the line."""
    from hbnlab.text import IndexingConfig
    from hbnlab.text.stopwords import StopListError, resolve_stop_words

    value = getattr(args, "stop_words", None)
    if value is None:
        return IndexingConfig()
    try:
        return IndexingConfig(stopwords=resolve_stop_words(value))
    except StopListError as e:
        raise CLIError(f"--stop-words: {e}") from None


def add_validation_options(p: argparse.ArgumentParser) -> None:
    """``--validation auto|date|stratified`` and ``--cv K``: how tuning holds out documents."""
    p.add_argument("--validation", default="auto", choices=_VALIDATION_CHOICES,
                   help="training-0 / validation split: auto = by date when every training document is dated "
                        "(Reuters, the thesis), else stratified (seeded by --random-state/--seed)")
    p.add_argument("--cv", type=int, default=0, metavar="K",
                   help="tune by K-fold cross-validation on the training set instead of one validation split "
                        "(K >= 2; small corpora)")


def validation_kwargs(args, seed: int = 0) -> dict:
    """``prepare()`` keywords of :func:`add_validation_options`; a bad ``--cv`` is a CLIError."""
    cv = int(getattr(args, "cv", 0) or 0)
    if cv == 1 or cv < 0:
        raise CLIError(f"--cv must be 0 (one validation split) or an integer >= 2 (folds), got {cv}")
    return {"validation": getattr(args, "validation", "auto"), "cv": cv or None, "random_state": seed}


def parse_categories(text: str | None, corpus) -> list[str] | None:
    """``--categories``: ``None`` (the command's default), ``"all"`` (every category with a training
    and a test document), ``"topK"`` or a comma list (each must be a category of ``corpus``)."""
    if not text:
        return None
    usable = corpus.categories(min_train=1, min_test=1)
    t = text.strip()
    if t == "all":
        return usable
    if t.startswith("top") and t[3:].isdigit():
        k = int(t[3:])
        if k < 1:
            raise CLIError(f"--categories: topK needs K >= 1, got {text!r}")
        return usable[:k]
    names = parse_list(t, str, "--categories")
    known = set(corpus.categories())
    unknown = [c for c in names if c not in known]
    if unknown:
        raise CLIError(f"--categories: {unknown} {'is not a category' if len(unknown) == 1 else 'are not categories'}"
                       f" of corpus {corpus.name!r} (it has {corpus.categories()[:12]}...)")
    return names


def strip_parts(args) -> tuple:
    """The newsgroup parts of ``--strip-newsgroup`` (none when the flag is absent); an unknown part
    is a CLIError naming the flag."""
    value = getattr(args, "strip_newsgroup", None)
    if value is None:
        return ()
    from hbnlab.text.newsgroup import newsgroup_parts

    try:
        parts = newsgroup_parts(value)
    except ValueError as e:
        raise CLIError(f"--strip-newsgroup: {e}") from None
    if not parts:
        raise CLIError(f"--strip-newsgroup: expected parts (headers, quotes, signature), got {value!r}")
    return parts


def check_corpus_arg(args) -> None:
    """Refuse a ``--corpus`` path that does not exist, a ``--synthetic-size`` outside
    :data:`hbnlab.bounds.SYNTHETIC_SIZE` and ``--strip-newsgroup`` on a generated corpus, naming
    the option."""
    size = getattr(args, "synthetic_size", 3000)
    if args.corpus in ("synthetic", "synthetic-hierarchy") and size not in bounds.SYNTHETIC_SIZE:
        raise CLIError(f"--synthetic-size must be {bounds.SYNTHETIC_SIZE.describe()}, got {size}")
    named = args.corpus in (None, "synthetic", "synthetic-hierarchy", "reuters")
    if not named:
        parts = [args.corpus] if Path(args.corpus).exists() or "," not in args.corpus else args.corpus.split(",")
        for part in parts:
            if not Path(part.strip()).exists():
                raise CLIError(f"--corpus {args.corpus!r}: no such file or directory {part.strip()!r} (use synthetic, "
                               f"reuters, a path, or two table files TRAIN,TEST)")
    given = table_options(args)
    if given and args.corpus in ("synthetic", "synthetic-hierarchy", "reuters"):
        flags = sorted("--" + k.replace("_", "-") for k in given)
        raise CLIError(f"{', '.join(flags)}: for a table corpus (--corpus PATH), not for --corpus {args.corpus}")
    if strip_parts(args) and args.corpus in ("synthetic", "synthetic-hierarchy"):
        raise CLIError(f"--strip-newsgroup: for read texts (--corpus reuters|PATH), not for --corpus {args.corpus}")


def corpus_from_args(args, default: str = "reuters", *, log=None):
    """The corpus that ``--corpus`` (``default`` when not given) / ``--reuters-dir`` / the synthetic
    options name (kept in the data home's store; ``log`` receives the store's messages)."""
    from hbnlab.pipeline.corpus_spec import load_named_corpus

    check_corpus_arg(args)
    seed = args.corpus_seed if hasattr(args, "corpus_seed") else getattr(args, "seed", 0)
    return load_named_corpus(args.corpus or default, reuters_dir=args.reuters_dir, seed=seed,
                             size=getattr(args, "synthetic_size", 3000), encoding=getattr(args, "encoding", "auto"),
                             table=table_options(args), strip=strip_parts(args), log=log)


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


def check_learner_params(name: str, params: dict, *, n_features=30, random_state: int = 0, flags=None):
    """The estimator of learner ``name`` with ``params``, built and checked before any corpus is read:
    an unknown parameter, a value outside the learner's ``_parameter_constraints`` (KDB's ``k``, ...), and
    for the tree learners the bounds of :func:`hbnlab.bounds.check_tree_params`
    (restarts, alpha, hidden states, an HBN's table rows), are a :class:`CLIError` naming the option
    (``flags``: parameter -> the flag that set it; the others are named ``--param KEY``)."""
    from hbnlab._validation import check_branching_factor
    from hbnlab.models.catalog import learner, make_classifier, tree_parts
    from hbnlab.models.hbn import check_hidden_states

    flags = dict(flags or {})
    names = {k: flags.get(k, f"--param {k}") for k in ("B", "alpha", "n_restarts", "hidden_states")}
    try:
        est = make_classifier(name, n_features, params, random_state)
        if learner(name).is_tree:
            B = check_branching_factor(est.B, name=names["B"])
            hs = check_hidden_states(est.hidden_states)
            bounds.check_tree_params(B=B, alpha=est.alpha, n_restarts=est.n_restarts, hidden_states=hs,
                                     direction=tree_parts(name)[0], names=names, what=learner(name).name)
        constraints = getattr(est, "_parameter_constraints", {})  # every learner's table, as fit checks it
        bounds.validate_params(est, constraints, names={k: flags.get(k, f"--param {k}") for k in constraints})
    except (TypeError, ValueError) as e:
        raise CLIError(str(e)) from None
    return est


def parse_param_items(items) -> dict:
    """``--param KEY=VALUE`` items -> a dict; a value is read as JSON (``0``, ``0.5``, ``true``,
    ``[1, 2]``), else kept as a bare string."""
    out = {}
    for item in items or []:
        key, sep, value = str(item).partition("=")
        if not sep or not key.strip():
            raise CLIError(f"--param {item!r}: expected KEY=VALUE")
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value
    return out
