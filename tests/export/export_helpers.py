"""Helpers shared by the export tests (a plain module: ``conftest`` names clash across test folders)."""
from __future__ import annotations

import numpy as np

N_FEATURES = 10

#: learner row name -> parameters (kept small: fast to fit)
LEARNERS = {
    "NB": {}, "SVM": {}, "LR": {}, "MNB": {}, "ROCCHIO": {}, "OR-EQ12": {}, "OR-EQ17": {"counts": False},
    "KDB": {"k": 2}, "KNN": {"k": 3}, "GREEDY-HNB": {"max_latents": 3}, "WORD-GROUPS": {"n_clusters": 4},
    "HIER-NB": {},
    "HBN-OR": {"n_restarts": 3}, "HBN-AVG": {"n_restarts": 3}, "HBN-DEP": {"n_restarts": 3},
    "HNB-OR": {"n_restarts": 3, "init": "hbn"}, "HNB-AVG": {"n_restarts": 3},
}
#: learners with a Bayesian-network form; OR-EQ12 fitted on counts is compared on binary evidence
BN_ROWS = ["NB", "KDB", "OR-EQ17", "GREEDY-HNB", "HBN-OR", "HBN-DEP", "HNB-AVG"]


def fit_learner(data, name, params=None, n_features=N_FEATURES, j=0):
    """Fit a Table 4.10-style row on category ``j`` with the protocol's selected columns."""
    from hbnlab.models.catalog import make_classifier

    cols = data.ranked_features(j)[:n_features]
    est = make_classifier(name, n_features, dict(LEARNERS.get(name, {}) if params is None else params), 0)
    names = est.get_params()
    if "feature_names" in names:
        est.set_params(feature_names=[data.vocabulary[c] for c in cols])
    if "class_name" in names:
        est.set_params(class_name=f"{data.categories[j]}TOPIC")
    return est.fit(data.X_train, data.Y_train[:, j].astype(np.int8), selected_features=cols)
