"""scikit-learn's estimator checks on the binary adapters of the neighbour learners."""
from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from hbnlab.models.hierarchical import HierarchicalShrinkageNBClassifier
from hbnlab.models.kdb import KDependenceBNClassifier
from hbnlab.models.knn import KNNBinaryClassifier
from hbnlab.models.multinomial_nb import MultinomialNBBinaryClassifier
from hbnlab.models.or_gate import NoisyORBinaryClassifier
from hbnlab.models.rocchio import RocchioBinaryClassifier
from hbnlab.models.word_cluster_nb import WordGroupNBClassifier

ESTIMATORS = [
    NoisyORBinaryClassifier(weights="eq12"),
    NoisyORBinaryClassifier(weights="eq17", counts=False, leak=0.01),
    MultinomialNBBinaryClassifier(),
    RocchioBinaryClassifier(),
    KDependenceBNClassifier(k=2),
    KNNBinaryClassifier(k=3),
    KNNBinaryClassifier(k=1, weighting="tf"),
    WordGroupNBClassifier(n_clusters=3),
    HierarchicalShrinkageNBClassifier(),  # without topics: the one-level hierarchy of y
    HierarchicalShrinkageNBClassifier(shrinkage=False, n_features=2),
]


def _expected_failures(estimator):
    # The count and presence models declare positive_only (a negative entry of X is an error
    # naming the value), but this check feeds raw Gaussian blobs, negative entries included, to fit.
    return {"check_decision_proba_consistency": "term model: the check's blobs hold negative entries"}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)
