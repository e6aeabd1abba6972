"""Estimators: every learner behind one scikit-learn compatible API.

Binary learners derive from :class:`~hbnlab.models.base.BinaryTextClassifier`
(``fit(X, y)``, ``decision_function``, ``predict_proba``); multi-label corpora use
:class:`OneVsRest`, or the natively multi-label networks (noisy-OR, multinomial NB, Rocchio).
Names are imported lazily so ``import hbnlab.models`` stays cheap.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "BinaryTextClassifier": "hbnlab.models.base",
    "OneVsRest": "hbnlab.models.ovr",
    "BernoulliNBClassifier": "hbnlab.models.naive_bayes",
    "LinearSVMClassifier": "hbnlab.models.svm",
    "HierarchicalBNClassifier": "hbnlab.models.hbn",
    "HierarchicalNBClassifier": "hbnlab.models.hbn",
    "NoisyORClassifier": "hbnlab.models.or_gate",
    "NoisyORBinaryClassifier": "hbnlab.models.or_gate",
    "MultinomialNBClassifier": "hbnlab.models.multinomial_nb",
    "MultinomialNBBinaryClassifier": "hbnlab.models.multinomial_nb",
    "RocchioClassifier": "hbnlab.models.rocchio",
    "RocchioBinaryClassifier": "hbnlab.models.rocchio",
    "KDependenceBNClassifier": "hbnlab.models.kdb",
    "KNNBinaryClassifier": "hbnlab.models.knn",
    "GreedyHNBClassifier": "hbnlab.models.greedy_hnb",
    "WordClusterNB": "hbnlab.models.word_cluster_nb",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'hbnlab.models' has no attribute {name!r}")
