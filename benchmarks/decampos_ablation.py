"""How far each open choice of de Campos et al.'s protocol moves their Table 1 (Reuters-21578).

Every option of :data:`hbnlab.experiments.decampos.PROTOCOL_OPTIONS` is changed alone from the
default :class:`~hbnlab.experiments.decampos.DecamposProtocol` (one run per non-default value),
then a few combinations; for each run the micro and macro breakevens and Av-11 of NBayes, OR-eq12
and OR-eq17 are written with their difference from the default run and from the paper, and the
mean distance to the paper of the six F1@k figures, whose definition is not in doubt.

Usage::

    python benchmarks/decampos_ablation.py [REUTERS_DIR] [--out benchmarks/results/decampos_ablation.json]

``REUTERS_DIR`` defaults to ``$HBNLAB_REUTERS_DIR``.  Writes the JSON and a Markdown table
beside it (``.md``).  The SGML is parsed once; each distinct corpus / indexing is built once and
each distinct set of model options scored once, so the measure options cost only the
evaluation.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd

from hbnlab.experiments.decampos import (
    CATEGORY_SETS,
    MEASURES,
    PAPER,
    PROTOCOL_OPTIONS,
    DecamposProtocol,
    decampos_indexing,
    evaluate_scores,
    load_decampos_reuters,
    score_decampos,
)
from hbnlab.experiments.provenance import provenance_line, stamp, start_run
from hbnlab.export.report import markdown_table
from hbnlab.text import index_corpus

CLASSIFIERS = ("NBayes", "OR-eq12", "OR-eq17")
ROW_MEASURES = ("micro", "macro", "av11")
#: The measures whose definition the paper leaves no doubt about (F1@1/3/5, micro and macro): they
#: arbitrate the data, indexing and model options independently of the breakeven's and Av-11's.
UNAMBIGUOUS = tuple(m for m in MEASURES if m.startswith("f1_"))
#: Combinations worth a row of their own, ``(label, options)``.
COMBINATIONS = (
    ("hbnlab before this protocol: documents totals, score thresholds",
     {"term_totals": "documents", "micro_bep": "thresholds", "macro_bep": "thresholds"}),
    ("documents totals, rank micro, score-threshold macro",
     {"term_totals": "documents", "macro_bep": "thresholds"}),
    ("rank micro, score-threshold macro",
     {"macro_bep": "thresholds"}),
    ("documents totals, float64 posterior",
     {"term_totals": "documents", "scores": "probability"}),
)
_MEASURE_OPTIONS = ("micro_bep", "macro_bep", "bep_interpolation", "av11")
_DATA = ("unlabeled", "category_set")
_INDEX = ("stoplist", "stemmer", "tokens")
#: every other option that is not a measure's changes the scores
_MODEL = tuple(k for k in PROTOCOL_OPTIONS if k not in _DATA + _INDEX + _MEASURE_OPTIONS)


def variants() -> list[tuple[str, str, DecamposProtocol]]:
    """``(option, label, protocol)``: the default, each other value of each option alone, the
    :data:`COMBINATIONS`."""
    base = DecamposProtocol()
    out = [("default", "default", base)]
    for name, (values, _) in PROTOCOL_OPTIONS.items():
        for v in values[1:]:
            out.append((name, f"{name}={v}", replace(base, **{name: v})))
    for label, options in COMBINATIONS:
        out.append(("combination", label, replace(base, **options)))
    return out


class Runner:
    """Corpora, indexings and scores cached by the options they depend on."""

    def __init__(self, reuters_dir):
        self.reuters_dir = reuters_dir
        self._corpora, self._indexed, self._scores = {}, {}, {}
        self.seconds = {"load": 0.0, "index": 0.0, "score": 0.0, "evaluate": 0.0}

    def indexed(self, p: DecamposProtocol):
        dkey = tuple(getattr(p, k) for k in _DATA)
        if dkey not in self._corpora:
            t = time.perf_counter()
            self._corpora[dkey] = load_decampos_reuters(self.reuters_dir, include_unlabeled=p.unlabeled == "keep",
                                                        category_set=p.category_set)
            self.seconds["load"] += time.perf_counter() - t
        ikey = dkey + tuple(getattr(p, k) for k in _INDEX)
        if ikey not in self._indexed:
            corpus = self._corpora[dkey]
            t = time.perf_counter()
            self._indexed[ikey] = index_corpus(corpus, decampos_indexing(p),
                                               categories=corpus.categories(*CATEGORY_SETS[p.category_set]))
            self.seconds["index"] += time.perf_counter() - t
        return ikey, self._indexed[ikey]

    def scores(self, p: DecamposProtocol):
        ikey, ic = self.indexed(p)
        skey = ikey + tuple(getattr(p, k) for k in _MODEL)
        if skey not in self._scores:
            t = time.perf_counter()
            self._scores[skey] = score_decampos(ic.X_train, ic.Y_train, ic.X_test, CLASSIFIERS, p)
            self.seconds["score"] += time.perf_counter() - t
        return ic, self._scores[skey]

    def run(self, p: DecamposProtocol) -> dict:
        ic, scores = self.scores(p)
        t = time.perf_counter()
        rows = {}
        for name, (S, _, _) in scores.items():
            r = evaluate_scores(ic.Y_test, S, p)
            rows[name] = {m: r[m] for m in MEASURES}
        self.seconds["evaluate"] += time.perf_counter() - t
        corpus = {"n_train": len(ic.train_docs), "n_test": len(ic.test_docs), "n_categories": len(ic.categories),
                  "n_terms": ic.n_terms}
        return {"rows": rows, "corpus": corpus}


def ablation(reuters_dir) -> dict:
    runner = Runner(reuters_dir)
    t0 = time.perf_counter()
    runs = []
    default_rows = None
    for option, label, p in variants():
        r = runner.run(p)
        if default_rows is None:
            default_rows = r["rows"]
        r["delta"] = {c: {m: round(r["rows"][c][m] - default_rows[c][m], 3) for m in ROW_MEASURES}
                      for c in CLASSIFIERS}
        r["gap_to_paper"] = {c: {m: round(r["rows"][c][m] - PAPER[1][c][m], 3) for m in MEASURES}
                             for c in CLASSIFIERS}
        r["mean_abs_gap_unambiguous"] = {
            c: round(sum(abs(r["gap_to_paper"][c][m]) for m in UNAMBIGUOUS) / len(UNAMBIGUOUS), 3)
            for c in CLASSIFIERS}
        runs.append({"option": option, "label": label, "changes": p.changes(), **r})
    return {"collection": "Reuters-21578 ModApte", "classifiers": list(CLASSIFIERS),
            "default": DecamposProtocol().to_dict(),
            "paper": {c: {m: PAPER[1][c][m] for m in MEASURES} for c in CLASSIFIERS},
            "unambiguous_measures": list(UNAMBIGUOUS),
            "runs": runs, "n_configurations": len(runs),
            "distinct": {"corpora": len(runner._corpora), "indexings": len(runner._indexed),
                         "scorings": len(runner._scores)},
            "seconds": {k: round(v, 2) for k, v in runner.seconds.items()} |
                       {"total": round(time.perf_counter() - t0, 2)}}


def markdown(result: dict) -> str:
    """The ablation as Markdown: absolute values for the default and the paper, then every run's
    difference from the default (percentage points)."""
    cols = [f"{c} {m}" for c in CLASSIFIERS for m in ROW_MEASURES]
    default = result["runs"][0]
    absolute = pd.DataFrame(
        [["paper"] + [result["paper"][c][m] for c in CLASSIFIERS for m in ROW_MEASURES],
         ["default (ours)"] + [default["rows"][c][m] for c in CLASSIFIERS for m in ROW_MEASURES],
         ["default - paper"] + [default["gap_to_paper"][c][m] for c in CLASSIFIERS for m in ROW_MEASURES]],
        columns=["run"] + cols)
    delta = pd.DataFrame([[r["label"]] + [r["delta"][c][m] for c in CLASSIFIERS for m in ROW_MEASURES]
                          for r in result["runs"][1:]], columns=["run"] + cols)
    gap = pd.DataFrame([[r["label"]] + [r["gap_to_paper"][c][m] for c in CLASSIFIERS for m in ROW_MEASURES]
                        for r in result["runs"]], columns=["run"] + cols)
    model_runs = [r for r in result["runs"] if not set(r["changes"]) & set(_MEASURE_OPTIONS)]
    unamb = pd.DataFrame([[r["label"]] + [r["mean_abs_gap_unambiguous"][c] for c in CLASSIFIERS] for r in model_runs],
                         columns=["run"] + list(CLASSIFIERS))
    s = result["seconds"]
    return "\n".join([
        "# de Campos et al., Table 1 (Reuters-21578): ablation of the protocol's open choices",
        "",
        "Breakevens and Av-11 in percent.  Default: "
        + ", ".join(f"{k}={v}" for k, v in result["default"].items()) + ".",
        "",
        markdown_table(absolute),
        "",
        "## Each option against the default (percentage points)",
        "",
        markdown_table(delta, floatfmt="{:+.1f}"),
        "",
        "## Each run against the paper (percentage points)",
        "",
        markdown_table(gap, floatfmt="{:+.1f}"),
        "",
        "## Mean |ours - paper| over F1@1/3/5 micro and macro (points)",
        "",
        "These measures have one definition, so they judge the data, indexing and model options apart "
        "from the breakeven's and Av-11's; runs that change only a measure are left out.",
        "",
        markdown_table(unamb, floatfmt="{:.2f}"),
        "",
        f"{result['n_configurations']} runs from {result['distinct']['indexings']} indexings and "
        f"{result['distinct']['scorings']} scorings in {s['total']:.0f} s (load {s['load']:.1f} s, index "
        f"{s['index']:.1f} s, score {s['score']:.1f} s, evaluate {s['evaluate']:.1f} s).",
        "",
    ])


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reuters_dir", nargs="?", default=os.environ.get("HBNLAB_REUTERS_DIR"))
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "decampos_ablation.json"))
    args = ap.parse_args(argv[1:])
    prov = start_run()
    if not args.reuters_dir:
        ap.error("pass REUTERS_DIR or set HBNLAB_REUTERS_DIR")
    result = ablation(args.reuters_dir)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(stamp(result, prov), indent=1) + "\n")
    md = markdown(result)
    out.with_suffix(".md").write_text(provenance_line(prov) + "\n\n" + md)
    print(md)
    print(f"wrote {out} and {out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
