"""How well a choice of configuration made on one validation split holds on another.

Two sweeps (``hbnlab sweep``) over the same grid and categories, on two training-0 / validation
splits (e.g. ``--validation date`` and ``--validation stratified``), each written with ``--out``.
Three ways to choose a classifier's (B, alpha, terms[, hidden states]) from validation cells:

* ``per-category`` -- each category its own configuration (the sweep's ``--choose per-category``);
* ``global`` -- one configuration for every category, the best validation micro breakeven
  (``--choose global``);
* ``terms-then-global`` -- each category's number of terms at one fixed (B, alpha) (``--fix``),
  then one (B, alpha) for every category at those terms: the procedure of
  ``hbnlab reproduce table-4.10 --rows HBN-OR:30/100/300 --tune``.

Each choice is made on one sweep's validation cells and scored on the other's (micro breakeven =
the per-category breakevens weighted by the validation positives, the thesis's definition), both
ways.  The in-sample micro (chosen and scored on the same cells) is printed beside it: the gap
between the two is what the choice fits to one split's noise.  Only validation cells are read.

    python benchmarks/choice_transfer.py SWEEP_OUT_A SWEEP_OUT_B --fix 15,0.016667 [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

from hbnlab.experiments.provenance import stamp, start_run
from hbnlab.experiments.sweep import SweepConfig
from hbnlab.experiments.sweep.run import _micro_macro, choose_configs


def load(out_dir: str):
    """(config, categories, validation mapping) of a sweep's ``sweep.json``."""
    path = Path(out_dir) / "sweep.json"
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: {e}")
    config = SweepConfig.from_dict(doc["config"])
    val = {}
    for r in doc["validation"]:
        conf = (r["B"], float(r["alpha"]), r["n_features"], r.get("hidden_states", 2))
        be = r.get("breakeven")
        val[(r["category"], r["classifier"], conf)] = (None if be is None else float(be), int(r["n_pos"]))
    return config, list(doc["categories"]), val, dict(doc.get("untunable") or {})


def micro(choice: dict, val: dict, classifier: str, categories) -> float:
    """Positives-weighted breakeven (%) of ``choice`` (category -> configuration) on ``val``, as the
    sweep computes it (:func:`hbnlab.experiments.sweep.run._micro_macro`)."""
    cells = [val[(c, classifier, choice[c])] for c in categories]
    return 100 * _micro_macro([be for be, _ in cells], [n for _, n in cells])[0]


def _by_name(config: SweepConfig, val: dict) -> dict:
    """``val`` keyed by clustering (as :func:`choose_configs` reads it) instead of classifier name."""
    names = dict(zip(config.classifiers, config.clusterings))
    return {(c, names[clf], conf): v for (c, clf, conf), v in val.items() if clf in names}


def choose(procedure: str, config: SweepConfig, categories, val: dict, untunable: dict, clustering: str,
           fix: tuple | None) -> dict:
    """category -> configuration chosen by ``procedure`` on ``val``."""
    keyed = _by_name(config, val)
    if procedure in ("per-category", "global"):
        got = choose_configs(replace(config, choose=procedure), categories, keyed, untunable)
        return {c: tuple(got[(c, clustering)]["config"]) for c in categories}
    B0, a0 = fix
    fixed = replace(config, B=(B0,), alpha={clustering: (a0,)}, choose="per-category")
    terms = {c: tuple(v["config"]) for (c, k), v in choose_configs(fixed, categories, keyed, untunable).items()
             if k == clustering}
    tunable = [c for c in categories if c not in untunable]
    best, best_micro = None, -math.inf
    for B in config.B:
        for a in config.alpha[clustering]:
            cand = {c: (B, a, terms[c][2], terms[c][3]) for c in categories}
            if any((c, clustering, cand[c]) not in keyed for c in tunable):
                continue
            m = micro(cand, val, config.classifiers[config.clusterings.index(clustering)], tunable)
            if m > best_micro:
                best, best_micro = cand, m
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", help="--out directory of the first sweep")
    ap.add_argument("b", help="--out directory of the second sweep (same grid, another validation split)")
    ap.add_argument("--fix", default="15,0.016667", help="B,alpha at which terms-then-global picks the terms")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    prov = start_run()
    B0, a0 = args.fix.split(",")
    fix = (int(B0), float(a0))
    sweeps = {"A": load(args.a), "B": load(args.b)}
    ca, cb = sweeps["A"][0], sweeps["B"][0]
    if ca.grid(ca.clusterings[0]) != cb.grid(cb.clusterings[0]) or sweeps["A"][1] != sweeps["B"][1]:
        sys.exit("the two sweeps differ in their grid or categories")
    out = {"a": args.a, "b": args.b, "fix": list(fix), "rows": []}
    print(f"A = {args.a} ({ca.validation}), B = {args.b} ({cb.validation}); micro breakeven (%) on validation")
    print(f"{'classifier':10s} {'procedure':18s} {'A->A':>7s} {'A->B':>7s} {'B->B':>7s} {'B->A':>7s} "
          f"{'transfer mean':>13s}")
    for clustering, clf in zip(ca.clusterings, ca.classifiers):
        for proc in ("per-category", "global", "terms-then-global"):
            row = {"classifier": clf, "procedure": proc}
            for src, dst in (("A", "A"), ("A", "B"), ("B", "B"), ("B", "A")):
                config, cats, val, untunable = sweeps[src]
                pick = choose(proc, config, cats, val, untunable, clustering, fix)
                tunable = [c for c in cats if c not in sweeps[dst][3] and c not in untunable]
                row[f"{src}->{dst}"] = round(micro(pick, sweeps[dst][2], clf, tunable), 2)
                if src == dst:
                    row[f"choice_{src}"] = {c: list(v) for c, v in pick.items()}
            row["transfer_mean"] = round((row["A->B"] + row["B->A"]) / 2, 2)
            out["rows"].append(row)
            print(f"{clf:10s} {proc:18s} {row['A->A']:7.2f} {row['A->B']:7.2f} {row['B->B']:7.2f} "
                  f"{row['B->A']:7.2f} {row['transfer_mean']:13.2f}")
    for clf in ca.classifiers:
        rows = [r for r in out["rows"] if r["classifier"] == clf]
        best = max(rows, key=lambda r: r["transfer_mean"])
        print(f"best_transfer[{clf}]={best['procedure']} ({best['transfer_mean']:.2f})")
    if args.json:
        Path(args.json).write_text(json.dumps(stamp(out, prov), indent=1))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
