"""One-of-n accuracy and the confusion matrix of a single-label corpus (issue 38 item 5): golden values,
a loop oracle, scikit-learn's metrics, and n/a for documents without exactly one label."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score
from sklearn.metrics import confusion_matrix as sk_confusion_matrix

from hbnlab.evaluation import (
    confused_rows,
    confusion_matrix,
    f1_at_k,
    is_single_label,
    largest_confusions,
    one_of_n_accuracy,
    single_label_problem,
)


def _loop_confusion(Y, S):
    """The obviously correct version: one document at a time, first maximum wins."""
    k = len(Y[0])
    C = [[0] * k for _ in range(k)]
    for y, s in zip(Y, S):
        t = [j for j in range(k) if y[j]][0]
        best = 0
        for j in range(1, k):
            if s[j] > s[best]:
                best = j
        C[t][best] += 1
    return np.array(C)


@st.composite
def single_label_problems(draw):
    n = draw(st.integers(1, 40))
    k = draw(st.integers(1, 6))
    true = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    # few distinct values: ties between the highest scores are common
    S = np.array(draw(st.lists(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=k, max_size=k),
                               min_size=n, max_size=n)))
    Y = np.zeros((n, k), dtype=int)
    Y[np.arange(n), true] = 1
    return Y, S


def test_golden_values_by_hand():
    Y = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]])
    S = np.array([[0.9, 0.1, 0.0],    # a -> a
                  [0.2, 0.7, 0.1],    # a -> b
                  [0.3, 0.3, 0.1],    # b -> a (tie: the first class)
                  [0.0, 0.2, 0.8],    # c -> c
                  [0.1, 0.6, 0.5]])   # c -> b
    assert one_of_n_accuracy(Y, S) == pytest.approx(2 / 5)
    C = confusion_matrix(Y, S)
    assert C.tolist() == [[1, 1, 0], [1, 0, 0], [0, 1, 1]]
    top = largest_confusions(C, ["a", "b", "c"])
    assert top[["true", "given", "documents"]].values.tolist() == [["a", "b", 1], ["b", "a", 1], ["c", "b", 1]]
    assert top["share of true"].tolist() == [0.5, 1.0, 0.5]
    assert confused_rows(Y, S, 2, 1).tolist() == [4]
    assert confused_rows(Y, S, 0, 0).tolist() == [0]


@settings(max_examples=200, deadline=None)
@given(single_label_problems())
@pytest.mark.filterwarnings("ignore:A single label was found")
def test_agrees_with_the_loop_oracle_and_scikit_learn(problem):
    Y, S = problem
    labels = list(range(Y.shape[1]))
    C = confusion_matrix(Y, S)
    assert np.array_equal(C, _loop_confusion(Y.tolist(), S.tolist()))
    assert np.array_equal(C, sk_confusion_matrix(Y.argmax(1), S.argmax(1), labels=labels))
    assert one_of_n_accuracy(Y, S) == pytest.approx(accuracy_score(Y.argmax(1), S.argmax(1)))
    assert one_of_n_accuracy(Y, S) == pytest.approx(np.trace(C) / C.sum())
    # every document is behind exactly one cell
    cells = [confused_rows(Y, S, i, j) for i in labels for j in labels]
    assert sorted(np.concatenate(cells).tolist()) == list(range(Y.shape[0]))
    # metamorphic: one increasing transform of every score changes no decision
    assert np.array_equal(confusion_matrix(Y, np.exp(3 * S) - 7), C)
    # on a single-label corpus accuracy is micro F1@1 (precision = recall = accuracy)
    if Y.shape[1] >= 1:
        assert one_of_n_accuracy(Y, S) == pytest.approx(f1_at_k(Y, S, 1, average="micro"))


def test_accuracy_is_nan_and_the_matrix_refused_without_exactly_one_label():
    Y = np.array([[1, 0], [0, 0], [1, 1], [0, 1]])
    S = np.array([[0.9, 0.1], [0.2, 0.3], [0.5, 0.4], [0.1, 0.8]])
    assert not is_single_label(Y)
    assert single_label_problem(Y) == "1 of 4 documents have none of the 2 classes, 1 have several"
    assert single_label_problem(Y[[0, 2]]) == "1 of 2 documents have several of the 2 classes"
    assert math.isnan(one_of_n_accuracy(Y, S))
    with pytest.raises(ValueError, match="needs exactly one class per document: 1 of 4 documents have none"):
        confusion_matrix(Y, S)
    assert single_label_problem(np.zeros((0, 3))) == "no documents"


def test_largest_confusions_checks_its_shape():
    with pytest.raises(ValueError, match="C must be a 2 x 2 matrix for 2 classes, got shape"):
        largest_confusions(np.zeros((3, 3)), ["a", "b"])
    assert largest_confusions(np.eye(2, dtype=int) * 4, ["a", "b"]).empty
