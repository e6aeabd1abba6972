"""Fixtures of the export tests: a small synthetic corpus, its indexed data and one fitted model
per learner (session-scoped: fitted once)."""
from __future__ import annotations

import numpy as np
import pytest
from export_helpers import LEARNERS, fit_learner


@pytest.fixture(scope="session")
def corpus():
    from hbnlab.corpus import make_synthetic_corpus

    return make_synthetic_corpus(n_documents=600, random_state=0)


@pytest.fixture(scope="session")
def data(corpus):
    from hbnlab.pipeline.data import prepare

    return prepare(corpus, n_categories=3)


@pytest.fixture(scope="session")
def label(data):
    return data.categories[0]


@pytest.fixture(scope="session")
def fitted(data):
    """Row name -> estimator fitted on the first category."""
    return {name: fit_learner(data, name) for name in LEARNERS}


@pytest.fixture(scope="session")
def word_cluster_nb(data):
    from hbnlab.models.word_cluster_nb import WordClusterNB

    y = np.argmax(data.Y_train, axis=1)
    return WordClusterNB(n_clusters=8).fit(data.X_train, y)
