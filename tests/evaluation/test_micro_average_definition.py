"""What the micro- and macro-averaged breakeven pool (thesis sec. 4.2; :func:`hbnlab.evaluation.micro_breakeven`).

The default micro breakeven gives each category its own threshold at its breakeven and pools the
contingency tables there; ``method="pooled"`` ranks every (document, category) pair together.  On
the hand-computed matrices below the plausible wrong poolings -- the plain mean of the per-class
breakevens, one threshold over all pairs, a category without positives counted as 0 -- each give
another number.  The oracles are contingency tables counted at every threshold, and, for tied
scores, every order of the tied documents."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from hbnlab.evaluation import breakeven_point, macro_breakeven, micro_breakeven, per_class_breakeven


# --------------------------------------------------------------------------- oracles
def _tables(y, s):
    """(threshold, TP, FP, FN) of assigning ``score >= threshold``, at every threshold: +inf (nothing
    assigned) and each distinct score."""
    y, s = np.asarray(y, dtype=bool), np.asarray(s, dtype=float)
    out = []
    for t in [math.inf, *sorted(set(s.tolist()), reverse=True)]:
        a = s >= t
        out.append((t, int((a & y).sum()), int((a & ~y).sum()), int((~a & y).sum())))
    return out


def _breakeven_table(y, s):
    """The contingency table at the threshold where precision equals recall: FP = FN (with TP > 0
    that is P = R; without a positive, the empty assignment).  Scores without ties: exactly one."""
    hits = [(tp, fp, fn) for _, tp, fp, fn in _tables(y, s) if fp == fn]
    assert len(hits) == 1, "the brute force needs scores without ties"
    return hits[0]


def brute_micro_thresholds(Y, S):
    """Per-category thresholds at each breakeven, tables summed, micro P and R from the totals."""
    Y, S = np.asarray(Y), np.asarray(S)
    tp, fp, fn = (sum(v) for v in zip(*(_breakeven_table(Y[:, j], S[:, j]) for j in range(Y.shape[1]))))
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    assert precision == recall
    return precision


def brute_pooled(Y, S):
    """One threshold over all (document, category) pairs, at the breakeven of that single ranking."""
    tp, fp, fn = _breakeven_table(np.ravel(Y), np.ravel(S))
    return tp / (tp + fp)


def brute_macro(Y, S):
    """The mean over the categories with a positive of P (= R) at each one's breakeven."""
    Y, S = np.asarray(Y), np.asarray(S)
    values = []
    for j in range(Y.shape[1]):
        if Y[:, j].any():
            tp, fp, fn = _breakeven_table(Y[:, j], S[:, j])
            values.append(tp / (tp + fp))
    return float(np.mean(values))


def _tie_orders(s):
    """Every strict ranking of the documents consistent with the scores (tied ones in every order)."""
    blocks = [np.flatnonzero(np.asarray(s) == v) for v in sorted(set(np.asarray(s).tolist()), reverse=True)]
    for orders in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield np.concatenate(orders)


def expected_micro_over_tie_orders(Y, S):
    """The per-category-threshold micro breakeven averaged over every order of the tied documents of
    every category: each order ranks strictly, so its tables at FP = FN exist and are counted."""
    Y, S = np.asarray(Y), np.asarray(S)
    m = Y.shape[1]
    values = []
    for rankings in itertools.product(*(list(_tie_orders(S[:, j])) for j in range(m))):
        strict = np.empty(S.shape)
        for j, order in enumerate(rankings):
            strict[order, j] = -np.arange(len(order), dtype=float)   # the order as distinct scores
        values.append(brute_micro_thresholds(Y, strict))
    return float(np.mean(values))


# --------------------------------------------------------------------------- hand-computed
# Six documents, three categories.  c0: positives d0, d1, d3; c1: positive d5; c2: no positive.
Y = np.array([[1, 0, 0], [1, 0, 0], [0, 0, 0], [1, 0, 0], [0, 0, 0], [0, 1, 0]])
S = np.array([[0.90, 0.35, 0.006], [0.80, 0.30, 0.005], [0.70, 0.20, 0.004],
              [0.60, 0.10, 0.003], [0.50, 0.05, 0.002], [0.40, 0.01, 0.001]])


def test_micro_and_macro_breakeven_on_a_hand_computed_matrix_where_every_pooling_differs():
    # c0: the top 3 hold d0, d1 (+) and d2 (-): 2/3.  c1: the top 1 is d0 (-): 0.  c2: no positive.
    np.testing.assert_allclose(per_class_breakeven(Y, S), [2 / 3, 0.0, np.nan])
    # per-category thresholds: TP 2 + 0, assigned 3 + 1, positives 3 + 1 -> P = R = 2/4
    assert micro_breakeven(Y, S) == pytest.approx(0.5)
    # = the breakevens weighted by positives, (2/3 * 3 + 0 * 1) / 4; not their plain mean
    assert micro_breakeven(Y, S) != pytest.approx(np.nanmean(per_class_breakeven(Y, S)))
    # one threshold over the 18 pairs: .90+ .80+ .70- .60+ -> 3 of the top 4
    assert micro_breakeven(Y, S, method="pooled") == pytest.approx(0.75)
    # macro: the categories with a positive only, (2/3 + 0) / 2 -- not (2/3 + 0 + 0) / 3
    assert macro_breakeven(Y, S) == pytest.approx(1 / 3)


def test_micro_and_macro_equal_brute_force_contingency_tables_on_the_hand_matrix():
    assert brute_micro_thresholds(Y, S) == 0.5 and brute_pooled(Y, S) == 0.75 and brute_macro(Y, S) == 1 / 3
    assert micro_breakeven(Y, S) == pytest.approx(brute_micro_thresholds(Y, S))
    assert micro_breakeven(Y, S, method="pooled") == pytest.approx(brute_pooled(Y, S))
    assert macro_breakeven(Y, S) == pytest.approx(brute_macro(Y, S))


@pytest.mark.parametrize("seed", range(20))
def test_micro_and_macro_equal_brute_force_contingency_tables_on_random_rankings(seed):
    rng = np.random.default_rng(seed)
    n, m = rng.integers(3, 15), rng.integers(1, 5)
    Yr = rng.random((n, m)) < rng.uniform(0.1, 0.6, m)
    Yr[rng.integers(n), 0] = True                               # at least one positive
    Sr = rng.permutation(n * m).reshape(n, m) / (n * m)         # no ties, within or across categories
    assert micro_breakeven(Yr, Sr) == pytest.approx(brute_micro_thresholds(Yr, Sr), abs=1e-12)
    assert micro_breakeven(Yr, Sr, method="pooled") == pytest.approx(brute_pooled(Yr, Sr), abs=1e-12)
    assert macro_breakeven(Yr, Sr) == pytest.approx(brute_macro(Yr, Sr), abs=1e-12)


def test_with_tied_scores_micro_is_the_expected_pooled_table_over_every_order_of_the_ties():
    # c0: positives d0, d2; d1 (-) and d2 (+) tied -> BEP (1 + 1/2) / 2 = 3/4.
    # c1: one positive (d1) among four equal scores -> the base rate 1/4.
    Yt = np.array([[1, 0], [0, 1], [1, 0], [0, 0]])
    St = np.array([[0.9, 1.0], [0.5, 1.0], [0.5, 1.0], [0.1, 1.0]])
    np.testing.assert_allclose(per_class_breakeven(Yt, St), [0.75, 0.25])
    # micro: (3/4 * 2 + 1/4 * 1) / 3 = 7/12; macro 1/2; one threshold over the 8 pairs: the block of
    # four 1.0s (one positive) spans k = 3 -> 3/4 of a positive in the top 3 -> 1/4
    assert micro_breakeven(Yt, St) == pytest.approx(7 / 12)
    assert expected_micro_over_tie_orders(Yt, St) == pytest.approx(7 / 12)
    assert macro_breakeven(Yt, St) == pytest.approx(0.5)
    assert micro_breakeven(Yt, St, method="pooled") == pytest.approx(0.25)


def test_the_reported_micro_of_a_row_pools_per_category_thresholds():
    """``thesis.run_row`` reports the default micro breakeven (per-category thresholds), not one
    threshold over all pairs nor the plain mean, on a corpus where the three differ."""
    from hbnlab.corpus import make_synthetic_corpus
    from hbnlab.experiments import thesis
    from hbnlab.pipeline.data import prepare

    data = prepare(make_synthetic_corpus(n_documents=500, n_classes=4, random_state=3), n_categories=4)
    row = thesis.run_row(data, "NB", 2, stage="validation", keep_models=True)
    Yv, Sv = data.evaluation("validation")[0], row["_scores"]
    per = np.array([breakeven_point(Yv[:, j], Sv[:, j]) for j in range(Yv.shape[1])])
    weighted = float(per @ Yv.sum(axis=0) / Yv.sum())
    others = (micro_breakeven(Yv, Sv, method="pooled"), float(per.mean()))
    assert all(abs(100 * weighted - 100 * v) > 0.1 for v in others)    # 80.37 against 83.12 and 79.97
    assert row["micro"] == round(100 * weighted, 2)
    assert row["macro"] == round(100 * float(per.mean()), 2)
