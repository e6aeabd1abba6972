"""Shared pieces: mutual information, the tie rule, the bad-input battery of the clustering
functions."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

from hbnlab.clustering import cluster_features_avg, cluster_features_dep, cluster_features_or
from hbnlab.clustering.common import (
    check_partition,
    first_min_pair,
    info_loss,
    mutual_information_from_conditionals,
    mutual_information_from_counts,
    mutual_information_from_joint,
)

ALL = [cluster_features_avg, cluster_features_or, cluster_features_dep]


def test_mutual_information_golden_values():
    # a perfect predictor of a balanced class carries exactly 1 bit
    assert mutual_information_from_counts(2, 2, 4, 2) == pytest.approx(1.0)
    # independent: 0 bits
    assert mutual_information_from_counts(2, 1, 4, 2) == pytest.approx(0.0, abs=1e-15)
    # hand computation: n=4, n1=2, feature in docs {pos, pos, neg}: P(x=1)=3/4, P(c=1|x=1)=2/3,
    # P(c=1|x=0)=0 -> I = H(C) - H(C|X) = 1 - 3/4 * H(2/3)
    h = -(2 / 3) * math.log2(2 / 3) - (1 / 3) * math.log2(1 / 3)
    assert mutual_information_from_counts(3, 2, 4, 2) == pytest.approx(1 - 0.75 * h)
    assert mutual_information_from_conditionals(0.75, 2 / 3, 0.0) == pytest.approx(1 - 0.75 * h)


def test_mutual_information_uses_the_joint_not_a_separate_prior():
    # P(X=1)=.5, P(C=1|X=1)=.9, P(C=1|X=0)=.3 -> implied P(C=1)=.6 (not, say, the data's .5)
    joint = (0.45, 0.05, 0.15, 0.35)
    px, pc = (0.5, 0.5), (0.6, 0.4)
    cells = [(0.45, px[0], pc[0]), (0.05, px[0], pc[1]), (0.15, px[1], pc[0]), (0.35, px[1], pc[1])]
    expected = sum(j * math.log2(j / (a * b)) for j, a, b in cells)
    assert mutual_information_from_joint(*joint) == pytest.approx(expected)
    assert mutual_information_from_conditionals(0.5, 0.9, 0.3) == pytest.approx(expected)


def test_info_loss_formula_fig_3_8():
    # N=10 features in |A|=4 clusters: k = 2.5
    assert info_loss(0.2, 5, 10, 4, 0.1) == pytest.approx(0.2 * 2.5 + 0.1 * 5 / 2.5)


def test_first_min_pair_breaks_ties_by_lowest_pair():
    c = np.full((4, 4), np.inf)
    c[1, 3] = 0.5
    c[0, 2] = 0.5 + 1e-14  # a rounding-level difference is a tie
    c[2, 3] = 0.7
    assert first_min_pair(c) == (0, 2)
    c[0, 2] = 0.6
    assert first_min_pair(c) == (1, 3)


def test_check_partition_rejects_non_partitions():
    assert check_partition([[3, 1], [2]], [1, 2, 3], B=2) == [[1, 3], [2]]
    with pytest.raises(ValueError, match="missing \\[3\\]"):
        check_partition([[1], [2]], [1, 2, 3])
    with pytest.raises(ValueError, match="repeated \\[2\\]"):
        check_partition([[1, 2], [2, 3]], [1, 2, 3])
    with pytest.raises(ValueError, match="empty cluster"):
        check_partition([[1, 2, 3], []], [1, 2, 3])
    with pytest.raises(ValueError, match="3 clusters, more than B = 2"):
        check_partition([[1], [2], [3]], [1, 2, 3], B=2)


X0 = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]])
Y0 = np.array([1, 0, 1, 0])


@pytest.mark.parametrize("fn", ALL)
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"B": 0}, "B must be an integer >= 1, got 0"),
        ({"B": 2.5}, "B must be an integer >= 1, got 2.5"),
        ({"alpha": -1.0}, "alpha must be >= 0, got -1.0"),
        ({"alpha": float("nan")}, "alpha must be a finite number"),
        ({"features": [0, 5]}, "feature column 5 is out of range: X has 3 columns"),
        ({"features": [0, 1, 1]}, "feature column 1 appears more than once"),
        ({"features": []}, "features must be a non-empty"),
        ({"y": [1, 0, 1]}, "X has 4 rows but y has 3 labels"),
        ({"y": [1, 0, 2, 0]}, "y must hold binary labels 0/1"),
        ({"X": -X0}, "X holds negative values"),
        ({"X": np.ones(4)}, "X must be a 2-D matrix"),
    ],
)
def test_bad_input_battery(fn, kwargs, message):
    args = {"X": X0, "y": Y0, "features": [0, 1, 2], "B": 2, "alpha": 0.1}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        fn(args["X"], args["y"], args["features"], args["B"], args["alpha"])


@pytest.mark.parametrize("fn", ALL)
def test_counts_are_binarized_and_inputs_accept_all_formats(fn):
    counts = X0 * np.array([3, 1, 2])
    expected = fn(X0, Y0, [0, 1, 2], 2, 0.1)
    assert fn(counts, Y0, [0, 1, 2], 2, 0.1) == expected
    assert fn(sp.csr_matrix(counts), Y0.astype(bool), [0, 1, 2], 2, 0.1) == expected
    assert fn(sp.coo_matrix(X0), list(Y0), np.array([2, 1, 0]), 2, 0.1) == expected
