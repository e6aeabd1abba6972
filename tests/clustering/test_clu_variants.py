"""The clustering variants (thesis figs 3.6-3.12 read other ways): the default reading equals the
fast kernels, each option changes what it should and nothing else."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hbnlab.clustering import cluster_features_avg, cluster_features_dep, cluster_features_or, construct_tree
from hbnlab.clustering.variants import VARIANT_OPTIONS, ClusteringVariant

FAST = {"avg": cluster_features_avg, "or": cluster_features_or, "dep": cluster_features_dep}
ALPHAS = {"avg": (0.0, 0.05, 0.5), "or": (0.0, 0.09, 0.5), "dep": (0.0, 1.0, 50.0)}


def _data(seed, n=300):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(5, 20))
    y = (rng.random(n) < 0.2).astype(int)
    X = (rng.random((n, m)) < rng.uniform(0.02, 0.3, m)) | (
        (y[:, None] == 1) & (rng.random((n, m)) < rng.uniform(0, 0.4, m)))
    return X.astype(np.int8), y, list(rng.permutation(m)), int(rng.integers(2, 7))


@pytest.mark.parametrize("algorithm", ["avg", "or", "dep"])
@pytest.mark.parametrize("seed", range(8))
def test_the_default_reading_is_the_fast_kernel(algorithm, seed):
    X, y, features, B = _data(seed)
    for alpha in ALPHAS[algorithm]:
        assert ClusteringVariant(algorithm)(X, y, features, B, alpha) == FAST[algorithm](X, y, features, B, alpha)


@pytest.mark.parametrize("algorithm", ["avg", "or", "dep"])
def test_log_base_cannot_change_alpha_zero(algorithm):
    for seed in range(5):
        X, y, features, B = _data(seed)
        bits = ClusteringVariant(algorithm)(X, y, features, B, 0.0)
        assert ClusteringVariant(algorithm, log_base=math.e)(X, y, features, B, 0.0) == bits


def test_nats_are_bits_with_alpha_scaled_by_ln2():
    # I in nats = I in bits * ln 2, so alpha in nats <-> alpha / ln 2 in bits (AVG and OR loss)
    for seed in range(5):
        X, y, features, B = _data(seed)
        for alg in ("avg", "or"):
            nats = ClusteringVariant(alg, log_base=math.e)(X, y, features, B, 0.05)
            assert nats == FAST[alg](X, y, features, B, 0.05 / math.log(2))


def test_data_prior_changes_only_merged_avg_clusters():
    # OR clusters are counted from the data, so their joint's P(C) is the data's
    for seed in range(5):
        X, y, features, B = _data(seed)
        assert ClusteringVariant("or", class_prior="data")(X, y, features, B, 0.09) == \
            cluster_features_or(X, y, features, B, 0.09)


@pytest.mark.parametrize("algorithm", ["or", "dep"])
def test_uniform_prior_is_a_constant_shift_that_cancels_for_or_and_dep(algorithm):
    for seed in range(5):
        X, y, features, B = _data(seed)
        for alpha in ALPHAS[algorithm]:
            assert ClusteringVariant(algorithm, class_prior="uniform")(X, y, features, B, alpha) == \
                FAST[algorithm](X, y, features, B, alpha)


def test_uniform_prior_information_by_hand():
    v = ClusteringVariant("avg", class_prior="uniform")
    # P(X=1) = 0.5, P(C=1|X=1) = 1, P(C=1|X=0) = 0: I = 0.5 log2(1/0.5) * 2 = 1 bit
    assert v.mutual_information(0.5, 1.0, 0.0, 0.1) == pytest.approx(1.0)
    # a constant class posterior equal to the data's prior: 0 with the data prior, > 0 uniform
    assert ClusteringVariant("avg", class_prior="data").mutual_information(0.3, 0.1, 0.1, 0.1) == pytest.approx(0.0)
    assert v.mutual_information(0.3, 0.1, 0.1, 0.1) > 0


@pytest.mark.parametrize("improve", VARIANT_OPTIONS["improve"])
def test_every_improve_reading_returns_a_partition_into_b_clusters(improve):
    X, y, features, B = _data(1)
    parts = ClusteringVariant("dep", improve=improve)(X, y, features, B, 1.0)
    assert sorted(f for c in parts for f in c) == sorted(int(f) for f in features)
    assert len(parts) == min(B, len(features)) and all(parts)


def test_a_variant_builds_trees():
    X, y, _, _ = _data(2)
    tree = construct_tree(X, y, B=3, clustering=ClusteringVariant("dep", improve="stray_term"), alpha=1.0)
    assert tree.n_features == X.shape[1]


@pytest.mark.parametrize("bad, match", [({"algorithm": "mdl"}, "algorithm must be one of"),
                                        ({"algorithm": "avg", "improve": "off"}, "improve applies to DEP only"),
                                        ({"algorithm": "or", "class_prior": "flat"}, "class_prior must be one of")])
def test_bad_options_are_named(bad, match):
    with pytest.raises(ValueError, match=match):
        ClusteringVariant(**bad)


def test_names_and_dict_round_trip():
    v = ClusteringVariant("avg", log_base=math.e, tie_order="last")
    assert v.name == "avg[log_base=e, tie_order=last]"
    assert ClusteringVariant.from_dict(v.to_dict()) == v
