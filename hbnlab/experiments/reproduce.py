"""The thesis's tables: Table 4.10 on the test split and the validation sweeps of Tables 4.2-4.9
(Karčiauskas 2002, ch. 4), with the three-phase tuning of sec. 4.2.1.

Functions take prepared data and keyword settings and return the result documents; ``log``
receives progress lines (the command line passes ``print``)."""
from __future__ import annotations

import time

from hbnlab._validation import check_branching_factor
from hbnlab.bn.params import ParameterError
from hbnlab.corpus import REUTERS_NAME
from hbnlab.experiments import paper_values as pv
from hbnlab.experiments import thesis
from hbnlab.models.catalog import CLUSTERINGS, NEIGHBOUR_ROWS, is_tree_learner, learner, tree_learner_name, tree_parts
from hbnlab.models.hbn import THESIS_PARAMS, check_hidden_states, oversized_hidden_states
from hbnlab.pipeline.corpus_spec import load_named_corpus
from hbnlab.pipeline.data import ProtocolData
from hbnlab.pipeline.store import prepare_cached

HBN_ROWS = [(tree_learner_name(c), 30) for c in CLUSTERINGS]

#: The first tuning phase's alpha grids (Tables 4.2-4.4); the third phase refines around the best.
ALPHA_GRIDS = {c: list(g) for c, g in pv.THESIS_ALPHA_GRIDS.items()}
VALIDATION_TABLES = {
    "table-4.2": ("HBN-AVG", pv.TABLE_4_2), "table-4.3": ("HBN-OR", pv.TABLE_4_3),
    "table-4.4": ("HBN-DEP", pv.TABLE_4_4),
}
HNB_TABLES = {
    "table-4.5": ("avg", pv.TABLE_4_5), "table-4.6": ("or", pv.TABLE_4_6), "table-4.7": ("dep", pv.TABLE_4_7),
}
#: The thesis's validation sweeps: Tables 4.2-4.9.
VALIDATION_TARGETS = (*VALIDATION_TABLES, *HNB_TABLES, "table-4.8", "table-4.9")
#: Everything ``hbnlab reproduce`` knows.
TARGETS = ("table-4.10", *VALIDATION_TARGETS, "decampos-table-1", "decampos-table-2", "decampos-table-3",
           "verbeek-figures")


def _quiet(message: str) -> None:
    """The default ``log``: reproductions print nothing unless a frontend passes a logger."""


def load_reuters_protocol(reuters_dir, *, log=_quiet, **prepare_kw) -> ProtocolData:
    """Reuters-21578 ModApte indexed and scored the thesis's way (10 most frequent categories), both
    kept in the data home's store (:mod:`hbnlab.pipeline.store`)."""
    corpus = load_named_corpus("reuters", reuters_dir=str(reuters_dir), download=False,
                               log=None if log is _quiet else log)
    return load_protocol(corpus, log=log, **prepare_kw)


def load_protocol(corpus, *, categories=None, log=_quiet, **prepare_kw) -> ProtocolData:
    """Any corpus indexed and scored the thesis's way (:func:`hbnlab.pipeline.data.prepare`), with
    the counts logged (beside the thesis's for Reuters) and the categories the validation split
    cannot score named.  Kept in the data home's store (:mod:`hbnlab.pipeline.store`)."""
    t0 = time.perf_counter()
    data = prepare_cached(corpus, categories=categories, log=None if log is _quiet else log, **prepare_kw)
    c = data.info
    if corpus.name == REUTERS_NAME:
        log(f"Reuters-21578 ModApte: {c['n_train']} train / {c['n_test']} test documents "
            f"(thesis: 7769 / 3018), {c['n_terms']} terms (thesis: 15715), {data.validation_description()} "
            f"(thesis: 5827 / 1942)  [{time.perf_counter() - t0:.1f}s]")
    else:
        log(f"{corpus.name}: {c['n_train']} train / {c['n_test']} test documents, {len(data.categories)} "
            f"categories, {c['n_terms']} terms, {data.validation_description()}  [{time.perf_counter() - t0:.1f}s]")
    bad = data.untunable()
    if bad:
        log(f"  {len(bad)} categor{'y' if len(bad) == 1 else 'ies'} cannot be tuned on this split and "
            f"keep the defaults: " + "; ".join(f"{k} ({why})" for k, why in bad.items()))
    return data


def _hbn_params(n_restarts) -> dict:
    return {"n_restarts": n_restarts} if n_restarts else {}


def three_phase_tuning(data, name: str, *, n_features: int | None = 30, params=None, n_jobs=1, B_grid=None,
                       k_grid=None, log=_quiet) -> dict:
    """The thesis's procedure (sec. 4.2.1): alpha at B = 7; B in {3, 5, 7, 9} at the best alpha;
    a finer alpha grid around the best alpha at the best B.  Scored by validation micro breakeven
    with ``n_features`` terms per class (the row's own: Table 4.1's settings were tuned at 30 terms
    and do not carry over to more, see ``benchmarks/results/hbn_terms_ablation.md``).  ``B_grid``
    replaces the second phase's {3, 5, 7, 9} (B = 7, the first phase's, is always scored): with
    100-300 terms the best B can lie above 9 (Reuters, terms per class, alpha = 0: validation
    micro 83.3 / 84.3 / 84.6 at B = 9 / 12 / 15).

    ``k_grid`` (e.g. ``(2, 3)``) adds a fourth phase: the hidden nodes' number of states
    (``hidden_states`` of the tree estimators: integers >= 2, ``"auto"``, ``"auto-holdout"``) with B
    again from the second phase's grid, at the chosen alpha.  B is searched again because an HBN
    node's table has k ** (its parents) rows, up to k ** B: the best B of binary nodes can be out of
    reach with three states.  The phase fits no table larger than the binary search's largest,
    2 ** max(B grid) rows (an integer k with k ** B above it, e.g. 3 ** 12 = 531,441 against
    2 ** 15, is recorded as not fitted: its E-step would enumerate every row for every pattern);
    the searches ``"auto"`` / ``"auto-holdout"`` are bounded by the estimator's limits (k in
    {2, 3, 4}, one node at a time; tables up to 2 ** 20 rows).  ``params``' own number of states
    (binary by default) keeps its phase-3 score at the chosen B.  Without ``k_grid`` the result has
    no ``"hidden_states"``.

    The cells are scored by :class:`hbnlab.experiments.thesis.ValidationCells` (validation micro
    breakeven, rounded to 0.01, over the categories the split can score) and chosen by
    :func:`hbnlab.experiments.thesis.best_of`.  Ties go, in phases 1 and 3, to the smaller alpha; in
    phase 2, to the B nearer 7, then to the smaller B (5 before 9); in phase 4, to the earlier entry
    of ``k_grid``, then to the B nearer 7, then to the smaller B.
    ``tests/experiments/test_choice_rules.py`` pins each rule."""
    clustering = tree_parts(name)[1]
    params = dict(params or {})
    history = []
    cells = thesis.ValidationCells(data, name, params=params, n_jobs=n_jobs,
                                   category_indices=thesis.tunable_indices(data))

    def score(B, alpha, **extra):
        micro = cells.micro(n_features, {"B": B, "alpha": alpha, **extra})
        history.append({"B": B, "alpha": alpha, **extra, "micro": micro})
        log(f"    {name} B={B} alpha={alpha:g}" + "".join(f" {k}={v}" for k, v in extra.items())
            + f": validation micro {micro:.2f}")
        return micro

    grid = ALPHA_GRIDS[clustering]
    s1 = {a: score(7, a) for a in grid}
    a1 = thesis.best_of(grid, s1.get, thesis.smaller)
    B_grid = pv.THESIS_B_GRID if B_grid is None else check_B_grid(B_grid)
    s2 = {B: (s1[a1] if B == 7 else score(B, a1)) for B in sorted({7, *B_grid})}
    B = thesis.best_of(s2, s2.get, thesis.nearer_7)
    step = (grid[1] - grid[0]) / 3
    fine = sorted({round(max(0.0, a1 + k * step), 6) for k in (-2, -1, 0, 1, 2)})
    s3 = {a: (s2[B] if a == a1 else score(B, a)) for a in fine}
    a3 = thesis.best_of(fine, s3.get, thesis.smaller)
    if k_grid is None:
        return {"B": B, "alpha": a3, "history": history}
    ks = check_k_grid(k_grid)
    given = params.get("hidden_states", 2)
    top = max(7, *B_grid)
    s4 = {}
    for k in ks:
        if k == given:
            s4[k, B] = s3[a3]
            continue
        for b in sorted({7, *B_grid}):
            why = oversized_hidden_states(k, b, top)
            if why is None:
                try:
                    s4[k, b] = score(b, a3, hidden_states=k)
                except ParameterError as e:
                    why = str(e)
            if why:
                history.append({"B": b, "alpha": a3, "hidden_states": k, "micro": None, "not_fitted": why})
                log(f"    {name} B={b} alpha={a3:g} hidden_states={k}: not fitted ({why})")
    if not s4:
        raise ValueError(f"{name}: no number of hidden states in {list(ks)} can be fitted at B in {sorted(B_grid)}")
    k4, B4 = thesis.best_of(s4, s4.get, lambda c: -ks.index(c[0]), lambda c: thesis.nearer_7(c[1]))
    return {"B": B4, "alpha": a3, "hidden_states": k4, "history": history}


def check_B_grid(values) -> tuple:
    """The branching factors of the second tuning phase: distinct integers >= 2, sorted."""
    try:
        grid = tuple(sorted({check_branching_factor(b) for b in values}))
    except (TypeError, ValueError) as e:
        raise ValueError(f"B grid {values!r}: {e}") from None
    if not grid:
        raise ValueError("B grid: expected at least one branching factor")
    return grid


def check_k_grid(values) -> tuple:
    """The hidden nodes' numbers of states of the fourth tuning phase, in the given order:
    distinct integers >= 2, ``"auto"`` or ``"auto-holdout"``."""
    try:
        grid = tuple(check_hidden_states(k) for k in values)
    except (TypeError, ValueError) as e:
        raise ValueError(f"hidden-states grid {list(values)!r}: {e}") from None
    if not grid:
        raise ValueError("hidden-states grid: expected at least one number of states")
    if len(set(grid)) != len(grid):
        raise ValueError(f"hidden-states grid {list(values)!r}: an entry repeats")
    return grid


def _parse_terms(item: str, text: str):
    if text.lower() == "all":
        return None
    try:
        nf = int(text or 30)
    except ValueError:
        nf = 0
    if nf < 1:
        raise ValueError(f"row {item!r}: the number of features must be an integer >= 1 or 'all', got {text!r}")
    return nf


def parse_rows(text: str) -> list[tuple]:
    """``"NB:30,HBN-OR:30,KNN:all,HBN-OR:30/100/300"`` -> ``[("NB", 30), ("HBN-OR", 30), ("KNN", None),
    ("HBN-OR", (30, 100, 300))]``: features default to 30, ``all`` is every term of the vocabulary,
    and ``a/b/c`` lists candidates chosen per class on validation
    (:func:`hbnlab.experiments.thesis.choose_terms_per_class`)."""
    rows = []
    for item in text.split(","):
        n, _, f = item.partition(":")
        learner(n.strip())
        parts = [p.strip() for p in f.split("/")]
        terms = [_parse_terms(item.strip(), p) for p in parts]
        if len(terms) == 1:
            rows.append((n.strip(), terms[0]))
            continue
        if len(set(terms)) != len(terms):
            raise ValueError(f"row {item.strip()!r}: candidate numbers of terms repeat")
        rows.append((n.strip(), tuple(terms)))
    return rows


def _row_settings(rows, settings: dict) -> dict:
    """``settings`` split over the rows: each row takes the keys its learner has; a key no row's
    learner has is an error naming the rows."""
    per_row = {}
    used = set()
    for name, nf in rows:
        known = set(learner(name).param_names) - set(learner(name).fixed)
        mine = {k: v for k, v in settings.items() if k in known}
        used |= set(mine)
        per_row[(name, nf)] = mine
    unused = sorted(set(settings) - used)
    if unused:
        raise ValueError(f"no row's learner has the setting(s) {unused}; rows: "
                         f"{', '.join(name for name, _ in rows)}")
    return per_row


def _table_rows(rows, extra_rows: bool) -> list:
    rows = list(rows) if rows else list(thesis.DEFAULT_TABLE_4_10_ROWS) + HBN_ROWS
    if extra_rows:
        rows += [(n, 30) for n in NEIGHBOUR_ROWS]
    return rows


def with_thesis_model(settings: dict) -> dict:
    """``settings`` with :data:`~hbnlab.models.hbn.THESIS_PARAMS` added; ``ValueError`` when a
    setting contradicts the thesis's model."""
    clash = sorted(k for k, v in THESIS_PARAMS.items() if k in settings and settings[k] != v)
    if clash:
        raise ValueError(f"{', '.join(f'{k}={settings[k]!r}' for k in clash)} contradicts --thesis "
                         f"({', '.join(f'{k}={v!r}' for k, v in THESIS_PARAMS.items())})")
    return {**settings, **THESIS_PARAMS}


def table_4_10_rows_settings(rows, settings: dict, *, extra_rows: bool = False, thesis_model: bool = False) -> dict:
    """The settings each row of :func:`table_4_10` takes (``ValueError`` for a setting no row has,
    or one that contradicts ``thesis_model``)."""
    rows = _table_rows(rows, extra_rows)
    if thesis_model:
        if not any(is_tree_learner(name) for name, _ in rows):
            raise ValueError("--thesis sets the tree rows' model, and no row is an HBN / HNB")
        settings = with_thesis_model(settings)
    return _row_settings(rows, settings)


def table_4_10(data: ProtocolData, *, rows=None, extra_rows: bool = False, tune: bool = False,
               n_restarts: int | None = None, n_jobs: int = 2, random_state: int = 0, settings: dict | None = None,
               tune_B_grid=None, tune_k_grid=None, thesis_model: bool = False, log=_quiet) -> dict:
    """Table 4.10 on the test split: the thesis's rows (or ``rows``), optionally the neighbours'
    learners (``extra_rows``) and the HBN rows tuned on validation first (``tune``; ``tune_B_grid``
    replaces the thesis's B in {3, 5, 7, 9}; ``tune_k_grid`` adds the hidden nodes' number of states
    as a fourth phase, see :func:`three_phase_tuning`).

    ``settings`` (e.g. ``{"alpha": 0.0}``) go to every row whose learner has them; ``thesis_model``
    adds :data:`hbnlab.models.hbn.THESIS_PARAMS` to every tree row (the thesis's model: every term
    in the tree, the tables by EM alone), refusing a setting that contradicts it.  A row whose
    terms are candidates (``("HBN-OR", (30, 100, 300))``) has them chosen per class on validation
    first; with ``tune`` an HBN row's B and alpha are then tuned at the chosen terms.
    """
    rows = _table_rows(rows, extra_rows)
    settings = dict(settings or {})
    if thesis_model:
        settings = with_thesis_model(settings)
    given = _row_settings(rows, settings)
    row_params, row_terms = {}, {}
    tuning = {}
    for name, nf in rows:
        p = dict(given[(name, nf)])
        if is_tree_learner(name):
            p.update(_hbn_params(n_restarts))
            terms = nf
            if tune and name.upper().startswith("HBN"):
                if isinstance(nf, tuple):
                    row_terms[(name, nf)] = thesis.choose_terms_per_class(data, name, nf, params=p, n_jobs=n_jobs,
                                                                          random_state=random_state, log=log)
                    terms = row_terms[(name, nf)][0]
                log(f"  tuning {name} ({thesis.terms_label(nf)} terms) on training-0 / validation ...")
                t = three_phase_tuning(data, name, n_features=terms, params=p, n_jobs=n_jobs, B_grid=tune_B_grid,
                                       k_grid=tune_k_grid, log=log)
                tuning[name] = t
                p.update(B=t["B"], alpha=t["alpha"])
                if "hidden_states" in t:
                    p["hidden_states"] = t["hidden_states"]
        row_params[(name, nf)] = p
    result = thesis.reproduce_table_4_10(data, rows, n_jobs=n_jobs, random_state=random_state,
                                         row_params=row_params, row_terms=row_terms, log=log)
    if tuning:
        result["tuning"] = tuning
    result["thesis_model"] = bool(thesis_model)
    return result


def validation_table(data: ProtocolData, target: str, *, n_restarts: int | None = None, n_jobs: int = 2,
                     random_state: int = 0, thesis_model: bool = False, log=_quiet) -> dict:
    """One of the thesis's validation sweeps, Tables 4.2-4.9 (``target`` = ``"table-4.2"`` ...);
    ``thesis_model``: the tree rows are the thesis's model (:data:`~hbnlab.models.hbn.THESIS_PARAMS`)."""
    p = _hbn_params(n_restarts)
    if thesis_model:
        p.update(THESIS_PARAMS)
    rows = []
    js = thesis.tunable_indices(data, log)
    published = thesis.thesis_values_apply(data)
    if target in VALIDATION_TABLES:
        name, paper = VALIDATION_TABLES[target]
        for alpha, (p30, p60) in paper.items():
            for nf, pval in ((30, p30), (60, p60)):
                r = thesis.run_row(data, name, nf, params={**p, "B": 7, "alpha": alpha}, stage="validation",
                                   n_jobs=n_jobs, random_state=random_state, category_indices=js)
                r["alpha"], r["paper_micro"] = alpha, pval if published else None
                log(f"  {name} alpha={alpha:g} {nf} features: {r['micro']:.1f}"
                    + (f" (paper {pval:.1f})" if published else ""))
                rows.append(r)
    elif target in HNB_TABLES:
        clustering, paper = HNB_TABLES[target]
        for alpha, (p_hnb, p_hbn) in paper.items():
            for name, pval in ((f"HNB-{clustering.upper()}", p_hnb), (f"HBN-{clustering.upper()}", p_hbn)):
                r = thesis.run_row(data, name, 30, params={**p, "B": 7, "alpha": alpha}, stage="validation",
                                   n_jobs=n_jobs, random_state=random_state, category_indices=js)
                r["alpha"], r["paper_micro"] = alpha, pval if published else None
                log(f"  {name} alpha={alpha:g}: {r['micro']:.1f}" + (f" (paper {pval:.1f})" if published else ""))
                rows.append(r)
    elif target == "table-4.8":
        return thesis.sweep_features(data, "NB", [30, 60, 100, 200, 300, 400, 500], n_jobs=n_jobs,
                                     paper=pv.TABLE_4_8 if published else None, log=log)
    elif target == "table-4.9":
        chosen, curve = thesis.tune_on_validation(data, "SVM", 30, n_jobs=n_jobs, log=log)
        C = chosen["C"]
        log(f"  SVM C tuned at 30 features: {C} ({curve})")
        res = thesis.sweep_features(data, "SVM", [30, 60, 100, 200, 300, 400, 500], params={"C": C},
                                    n_jobs=n_jobs, paper=pv.TABLE_4_9 if published else None, log=log)
        res["C"] = C
        return res
    else:
        raise ValueError(f"unknown validation table {target!r}; expected one of {VALIDATION_TARGETS}")
    return {"rows": rows, "corpus": data.corpus_json()}


__all__ = ["load_reuters_protocol", "load_protocol", "three_phase_tuning", "check_B_grid", "check_k_grid", "parse_rows",
           "table_4_10_rows_settings", "table_4_10", "validation_table",
           "ALPHA_GRIDS", "VALIDATION_TARGETS", "TARGETS"]
