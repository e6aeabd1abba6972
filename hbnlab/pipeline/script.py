"""A finished training job as a Python script that rebuilds it with the library (no Streamlit here).

:func:`job_script` writes the script the Export page offers ("what I just did, as code"): the job's
settings as literals, then the calls the workbench's worker makes for a "train" job --
:func:`hbnlab.pipeline.tasks.prepare_experiment` (the corpus read with the job's options, indexed
with its stop list, stemming and minimum document frequency, the terms scored) and
:func:`hbnlab.pipeline.tasks.fit_config_unit` for every class and learner (its terms, its settings,
its seed) -- and it prints the breakeven table (per class, micro and macro;
:func:`hbnlab.export.report.breakeven_by_classifier`, :func:`hbnlab.export.report.markdown_table`)
the job's Evaluation page and report show.

The script holds no path of the server that trained the job (:func:`shareable_config`): an upload is
read from the path given on the command line (the upload's name is the default), Reuters-21578 from
``--reuters-dir`` or the download cache, and an uploaded stop list travels as its words.
"""
from __future__ import annotations

import pprint
import re
from pathlib import PurePath

from hbnlab import __version__
from hbnlab.models.catalog import CLUSTERINGS
from hbnlab.pipeline.config import STRUCTURE_ALGORITHMS, ExperimentConfig, clustering_of
from hbnlab.pipeline.stop_lists import is_own_stop_list, own_stop_list_words

__all__ = ["job_script", "shareable_config", "class_overrides"]

#: Config fields that hold a path of the machine that ran the job.
SERVER_PATH_FIELDS = ("upload_path", "reuters_dir")


def shareable_config(config: dict) -> dict:
    """A job's config (``ExperimentConfig.to_dict()``) without the server's paths: a stored upload's
    path becomes the upload's file name, a Reuters directory is left out (``""``: the reader's
    ``$HBNLAB_REUTERS_DIR`` or download cache).

    >>> shareable_config({"corpus": "upload", "upload_path": "/srv/hbn/uploads/0123456789abcdef/bank.csv"})
    {'corpus': 'upload', 'upload_path': 'bank.csv'}
    """
    out = dict(config)
    if out.get("upload_path"):
        out["upload_path"] = PurePath(str(out["upload_path"]).replace("\\", "/")).name
    if out.get("reuters_dir"):
        out["reuters_dir"] = ""
    return out


def class_overrides(class_settings: dict | None, classifiers) -> dict:
    """Per class, the config fields its own settings (a tuning job's best cell: ``n_features``,
    ``B``, ``alpha``, ``hidden_states``) replace: ``B`` / ``alpha`` those of the clusterings of the
    tree learners in ``classifiers``.  A learner without a tree reads none of ``B_*``, ``alpha_*``
    and ``hidden_states``, so one config per class gives every unit the settings the train task's
    ``_unit_config`` gives it.

    >>> class_overrides({"earn": {"n_features": 50, "B": 5, "alpha": 0.1}}, ["NB", "HBN-OR"])
    {'earn': {'n_features': 50, 'B_or': 5, 'alpha_or': 0.1}}
    """
    trees = sorted({clustering_of(n) for n in classifiers if str(n).upper() in STRUCTURE_ALGORITHMS},
                   key=CLUSTERINGS.index)
    out = {}
    for label, own in (class_settings or {}).items():
        fields = {}
        if "n_features" in own:
            fields["n_features"] = int(own["n_features"])
        for c in trees:
            if "B" in own:
                fields[f"B_{c}"] = int(own["B"])
            if "alpha" in own:
                fields[f"alpha_{c}"] = float(own["alpha"])
        if trees and "hidden_states" in own:
            fields["hidden_states"] = own["hidden_states"]
        if fields:
            out[str(label)] = fields
    return out


def _literal(value) -> str:
    """A Python literal of JSON-like data, a dict one key a line."""
    if isinstance(value, dict) and value:
        items = "".join(f"    {k!r}: {pprint.pformat(v, width=96, sort_dicts=False)},\n" for k, v in value.items())
        return "{\n" + items + "}"
    return pprint.pformat(value, width=100, sort_dicts=False)


def job_script(config: ExperimentConfig | dict, *, classes=(), classifiers=None, stage: str = "test",
               class_settings: dict | None = None, job_id: int | None = None,
               file_name: str = "hbnlab-job.py") -> str:
    """The Python source of a script that rebuilds a training job and prints its breakeven table.

    Parameters
    ----------
    config : ExperimentConfig or dict
        The job's config (``result["config"]`` of a "train" job).
    classes : sequence of str
        The classes it trained; empty: the config's (its ``categories`` or the ``n_categories`` most
        frequent).
    classifiers : sequence of str, optional
        The learners it trained (default: the config's).
    stage : {"test", "validation"}
    class_settings : dict, optional
        Class -> its own ``n_features`` / ``B`` / ``alpha`` / ``hidden_states`` (:func:`class_overrides`).
    job_id : int, optional
        Named in the script's docstring.
    file_name : str, default "hbnlab-job.py"
        The script's file name, in its "Run:" line.

    Returns
    -------
    str
        The script: it runs with ``python script.py [CORPUS]`` where hbnlab is installed and prints
        the table as Markdown (:func:`hbnlab.export.report.markdown_table`), progress on stderr.
    """
    cfg = config if isinstance(config, ExperimentConfig) else ExperimentConfig.from_dict(config)
    classifiers = [str(c).upper() for c in (classifiers or cfg.classifiers)]
    if stage not in ("test", "validation"):
        raise ValueError(f"stage must be 'test' or 'validation', got {stage!r}")
    settings = cfg.relevant_dict(classifiers)
    for key in SERVER_PATH_FIELDS:
        settings.pop(key, None)
    own_words = own_stop_list_words(cfg.stopwords) if is_own_stop_list(cfg.stopwords) else None
    if own_words is not None:
        settings.pop("stopwords")
    upload_name = shareable_config({"upload_path": cfg.upload_path})["upload_path"] if cfg.corpus == "upload" else ""
    job = f"job #{int(job_id)}" if job_id is not None else "a job"
    evaluated = "test set" if stage == "test" else "validation split (training-0 -> validation)"
    shown = upload_name if re.fullmatch(r"[\w.\-]+", upload_name) else "CORPUS"  # safe in the docstring
    run = f"python {file_name}" + {"upload": f" {shown}", "reuters": " [--reuters-dir DIR]",
                                   "synthetic": ""}[cfg.corpus]
    lines = [
        "#!/usr/bin/env python3",
        f'"""{job.capitalize()} of the hbnlab workbench, rebuilt with the library (written by hbnlab {__version__}).',
        "",
        "The same functions the workbench's worker ran: hbnlab.pipeline.tasks.prepare_experiment reads the",
        "corpus with the job's options, indexes it (stop list, stemming, minimum document frequency) and",
        "scores the terms; hbnlab.pipeline.tasks.fit_config_unit selects each class's terms and fits each",
        f"learner with the job's settings and seed, scored on the {evaluated}.  The table printed is the",
        "job's: breakeven (%) per class with micro and macro rows.",
        "",
        f"Run:  {run}",
        '"""',
        "import argparse",
        "import sys",
        "",
        "import numpy as np",
        "",
        "from hbnlab.export.report import breakeven_by_classifier, markdown_table",
        "from hbnlab.pipeline.config import ExperimentConfig",
    ]
    if cfg.corpus in ("upload", "reuters"):
        lines.append("from hbnlab.pipeline.corpus_spec import load_named_corpus")
    if own_words is not None:
        lines.append("from hbnlab.pipeline.stop_lists import store_own_stop_list")
    lines += [
        "from hbnlab.pipeline.tasks import fit_config_unit, prepare_experiment",
        "",
        "# The job's settings (ExperimentConfig.to_dict(), the fields that shaped this run; no server path).",
        f"CONFIG = {_literal(settings)}",
        f"CLASSES = {_literal(list(classes))}  # empty: the config's classes",
        f"CLASSIFIERS = {_literal(classifiers)}",
        f"STAGE = {stage!r}",
        "# Classes trained with their own settings (a tuning job's best cells): config fields replaced.",
        f"CLASS_SETTINGS = {_literal(class_overrides(class_settings, classifiers))}",
    ]
    if cfg.corpus == "upload":
        lines += [f"UPLOAD_NAME = {upload_name!r}  # the file the job read"]
    if own_words is not None:
        lines += ["# The uploaded stop list the job indexed with, one word a line.",
                  f"STOP_WORDS = {_literal(list(own_words))}"]
    lines += ["", "", "def main(argv=None):",
              "    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])"]
    if cfg.corpus == "upload":
        lines += ['    parser.add_argument("corpus", nargs="?", default=UPLOAD_NAME,',
                  '                        help=f"path of the uploaded corpus file (default: {UPLOAD_NAME})")']
    if cfg.corpus == "reuters":
        lines += ['    parser.add_argument("--reuters-dir", default=None, help="the folder of the reut2-*.sgm files '
                  '(default: $HBNLAB_REUTERS_DIR or the download cache, downloaded when missing)")']
    lines += ["    args = parser.parse_args(argv)", "    settings = dict(CONFIG)"]
    if own_words is not None:
        lines += ['    words = "\\n".join(STOP_WORDS).encode("utf-8")',
                  '    settings["stopwords"] = store_own_stop_list(words, "stop list")  # its name: its words\' hash']
    if cfg.corpus == "upload":
        lines += ['    settings["upload_path"] = args.corpus',
                  "    config = ExperimentConfig.from_dict(settings)",
                  "    options = config.upload_options()",
                  '    encoding = options.pop("encoding", "auto")',
                  '    strip = "all" if config.upload_newsgroup_strip else None',
                  "    corpus = load_named_corpus(args.corpus, encoding=encoding, table=options, strip=strip)",
                  "    data = prepare_experiment(config, corpus=corpus)"]
    elif cfg.corpus == "reuters":
        lines += ["    config = ExperimentConfig.from_dict(settings)",
                  '    corpus = load_named_corpus("reuters", reuters_dir=args.reuters_dir)',
                  "    data = prepare_experiment(config, corpus=corpus)"]
    else:
        lines += ["    config = ExperimentConfig.from_dict(settings)",
                  "    data = prepare_experiment(config)  # the seeded synthetic corpus, generated again"]
    lines += [
        "    classes = CLASSES or data.categories",
        "    Y, _ = data.evaluation(STAGE)",
        "    Y = Y[:, [data.category_index(c) for c in classes]]",
        "    scores = {name: np.zeros(Y.shape) for name in CLASSIFIERS}",
        "    for j, label in enumerate(classes):",
        "        unit_config = config.replace(**CLASS_SETTINGS.get(label, {}))",
        "        for name in CLASSIFIERS:",
        "            _, proba, info = fit_config_unit(data, label, name, unit_config, stage=STAGE)",
        "            scores[name][:, j] = proba",
        '            print(f"{name} for {label}: breakeven {100 * info[\'breakeven\']:.1f}%", file=sys.stderr)',
        '    table = breakeven_by_classifier(Y.astype(bool), scores, classes, index_name="class")',
        "    print(markdown_table(table))",
        "",
        "",
        'if __name__ == "__main__":',
        "    main()",
        "",
    ]
    return "\n".join(lines)
