"""Name -> estimator factories for every learner the CLI and the workbench offer.

Names are case-insensitive.  The thesis's rows (NB, SVM, HBN-*, HNB-*) are built by
:func:`hbnlab.experiments.thesis.make_classifier`; this module holds the neighbours.
"""
from __future__ import annotations


def _extra_factories():
    def noisy_or(weights):
        def make(nf, params, rs):
            from hbnlab.models.or_gate import NoisyORBinaryClassifier

            return NoisyORBinaryClassifier(weights=weights, n_features=nf, **params)
        return make

    def kdb(nf, params, rs):
        from hbnlab.models.kdb import KDependenceBNClassifier

        return KDependenceBNClassifier(n_features=nf, **params)

    def greedy(nf, params, rs):
        from hbnlab.models.greedy_hnb import GreedyHNBClassifier

        return GreedyHNBClassifier(n_features=nf, random_state=rs, **params)

    def mnb(nf, params, rs):
        from hbnlab.models.multinomial_nb import MultinomialNBBinaryClassifier

        return MultinomialNBBinaryClassifier(n_features=nf, **params)

    def rocchio(nf, params, rs):
        from hbnlab.models.rocchio import RocchioBinaryClassifier

        return RocchioBinaryClassifier(n_features=nf, **params)

    return {
        "OR-EQ11": noisy_or("eq11"), "OR-EQ12": noisy_or("eq12"), "OR-EQ15": noisy_or("eq15"),
        "OR-EQ17": noisy_or("eq17"), "KDB": kdb, "GREEDY-HNB": greedy, "MNB": mnb, "ROCCHIO": rocchio,
    }


EXTRA_ROWS = ["KDB", "GREEDY-HNB", "OR-EQ12", "MNB", "ROCCHIO"]


def make_extra_classifier(name: str, n_features: int, params: dict | None, random_state: int):
    factories = _extra_factories()
    key = name.upper()
    if key not in factories:
        known = ["NB", "SVM", "HBN-AVG", "HBN-OR", "HBN-DEP", "HNB-AVG", "HNB-OR", "HNB-DEP"] + sorted(factories)
        raise ValueError(f"unknown classifier {name!r}; expected one of {known}")
    return factories[key](n_features, dict(params or {}), random_state)
