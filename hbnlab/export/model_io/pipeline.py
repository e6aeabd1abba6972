"""What a loaded model file gives back: the estimator with its metadata, and a text pipeline.

:class:`TextPipeline` classifies raw text with a saved model: the stored
:class:`~hbnlab.text.IndexingConfig` and vocabulary rebuild the indexer
(:meth:`~hbnlab.text.TermIndexer.from_vocabulary`), the estimator scores the matrix.
:class:`LoadedModel` is what :func:`~hbnlab.export.model_io.load_model` returns.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import hbnlab
from hbnlab._deprecation import version_tuple


class TextPipeline:
    """Raw text -> P(class | document) with a saved model: tokenise with the stored
    :class:`~hbnlab.text.IndexingConfig`, map to the stored vocabulary, score.

    Parameters
    ----------
    estimator : fitted estimator
    indexing : IndexingConfig
    vocabulary : sequence of str
        Column ``j`` of the estimator's input is ``vocabulary[j]``.
    """

    def __init__(self, estimator, indexing, vocabulary):
        from hbnlab.text import TermIndexer

        self.estimator = estimator
        self.indexing = indexing
        self.vocabulary = tuple(vocabulary)
        self.indexer = TermIndexer.from_vocabulary(indexing, self.vocabulary)

    def transform(self, texts):
        """Term matrix (n_texts, len(vocabulary)) of the stored indexing."""
        return self.indexer.transform(list(texts))

    def decision_function(self, texts) -> np.ndarray:
        return self.estimator.decision_function(self.transform(texts))

    def predict_proba(self, texts) -> np.ndarray:
        """P(positive class | text) per text for a binary model, else the class matrix."""
        P = self.estimator.predict_proba(self.transform(texts))
        return P[:, 1] if P.shape[1] == 2 and hasattr(self.estimator, "selected_features_") else P

    def evidence(self, texts) -> np.ndarray:
        """Presence (1) / absence (0) of every selected term, shape (n_texts, n_selected), int8."""
        sel = getattr(self.estimator, "selected_features_", None)
        X = self.transform(texts)
        if sel is None:
            sel = np.arange(X.shape[1])
        return np.asarray((X[:, sel] > 0).toarray(), dtype=np.int8)


@dataclass
class LoadedModel:
    """What :func:`load_model` returns: the rebuilt estimator, its metadata and a text pipeline.

    Attributes
    ----------
    estimator : the fitted estimator (predicts on term matrices over ``vocabulary``)
    learner : str
        Class name of the estimator.
    label : str or None
        The positive class (e.g. ``"trade"``).
    vocabulary : tuple of str or None
    indexing : IndexingConfig or None
    corpus : dict or None
        Name, fingerprint and counts of the training corpus.
    provenance : dict
    metadata : dict
        The whole ``model.json`` without the learned state.
    source : str
    pipeline : TextPipeline or None
        None when the file has no vocabulary / indexing settings.
    """

    estimator: object
    learner: str
    label: str | None = None
    vocabulary: tuple | None = None
    indexing: object = None
    corpus: dict | None = None
    provenance: dict = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)
    source: str = ""
    pipeline: TextPipeline | None = None

    @property
    def selected_terms(self) -> list | None:
        sel = getattr(self.estimator, "selected_features_", None)
        if sel is None or self.vocabulary is None:
            return None
        return [self.vocabulary[int(j)] for j in sel]

    @property
    def class_name(self) -> str | None:
        return self.metadata.get("class_name")

    @property
    def resolved_params(self) -> dict | None:
        """The hyper-parameters as the fit used them (None defaults resolved); None for a file
        written before format 1.1, which records only ``params``."""
        return self.metadata.get("resolved_params")

    @property
    def written_by(self) -> str | None:
        """The hbnlab version that wrote the file (``library_versions.hbnlab``), None if unreadable."""
        versions = self.metadata.get("library_versions")
        v = versions.get("hbnlab") if isinstance(versions, dict) else None
        return v if isinstance(v, str) else None

    @property
    def version_note(self) -> str | None:
        """A note when another hbnlab version wrote the file, naming both versions, else None.  The
        predictions are the file's (the learned state is stored); what may differ is a refit from
        ``params``, where a default changed in between (``CHANGELOG.md``)."""
        here = hbnlab.__version__
        there = self.written_by
        try:
            same = there is not None and version_tuple(there) == version_tuple(here)
            newer = there is not None and version_tuple(there) > version_tuple(here)
        except ValueError:  # not a version number: say so rather than compare
            same = newer = False
        if same:
            return None
        which = f"hbnlab {there}" if there else "an hbnlab version it does not record"
        head = f"{self.source}: written by {which}, read by hbnlab {here}"
        if newer:
            return f"{head}, an older version: fields added since are ignored"
        recorded = ("its resolved_params record the values its fit used" if self.resolved_params is not None else
                    "it predates resolved_params: defaults it left unset were those of its version")
        return (f"{head}: predictions are unchanged; a refit from its params may differ where a default changed "
                f"in between (CHANGELOG.md); {recorded}")

    def predict_proba_texts(self, texts) -> np.ndarray:
        """P(label | text) for raw texts (needs the stored vocabulary and indexing)."""
        if self.pipeline is None:
            raise ValueError(f"{self.source}: the model file has no vocabulary / indexing settings, so it cannot "
                             "classify raw text; pass term matrices to .estimator instead")
        return self.pipeline.predict_proba(texts)
