"""Round trips hbnlab -> model file -> hbnlab for every learner, and the text pipeline."""
from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest
from export_helpers import LEARNERS

from hbnlab.export.model_io import (
    FORMAT_NAME,
    FORMAT_VERSION,
    REGISTRY,
    LoadedModel,
    ModelFileError,
    load_model,
    model_to_bytes,
    save_model,
)
from hbnlab.text import IndexingConfig


def _members(data: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


@pytest.mark.parametrize("name", list(LEARNERS))
def test_round_trip_predicts_bit_identically(name, fitted, data, tmp_path, label):
    est = fitted[name]
    path = save_model(est, tmp_path / "m.hbnlab", indexing=IndexingConfig(), vocabulary=data.vocabulary,
                      label=label, provenance={"test": name})
    m = load_model(path)
    assert isinstance(m, LoadedModel) and type(m.estimator) is type(est)
    # the same scores to the last bit, on the test split and on training rows
    for X in (data.X_test, data.X_train[:50]):
        assert np.array_equal(m.estimator.decision_function(X), est.decision_function(X))
        assert np.array_equal(m.estimator.predict_proba(X), est.predict_proba(X))
        assert np.array_equal(m.estimator.predict(X), est.predict(X))
    # hyper-parameters verbatim (callbacks are not stored and come back as their defaults)
    p0 = {k: v for k, v in est.get_params().items() if k not in ("progress", "should_stop")}
    p1 = {k: v for k, v in m.estimator.get_params().items() if k not in ("progress", "should_stop")}
    assert p0 == p1
    assert np.array_equal(m.estimator.selected_features_, est.selected_features_)
    assert m.selected_terms == [data.vocabulary[c] for c in est.selected_features_]
    assert m.label == label and m.provenance == {"test": name}


@pytest.mark.parametrize("name", list(LEARNERS))
def test_second_save_is_byte_identical_but_for_created(name, fitted, data):
    a = model_to_bytes(fitted[name], vocabulary=data.vocabulary, created="2000-01-01T00:00:00+00:00")
    b = model_to_bytes(load_model(a), created="2000-01-01T00:00:00+00:00")
    assert _members(a) == _members(b)


def test_word_cluster_nb_round_trip(word_cluster_nb, data):
    m = load_model(model_to_bytes(word_cluster_nb, vocabulary=data.vocabulary))
    assert np.array_equal(m.estimator.predict_proba(data.X_test), word_cluster_nb.predict_proba(data.X_test))
    assert np.array_equal(m.estimator.predict(data.X_test), word_cluster_nb.predict(data.X_test))


def test_every_registered_learner_is_covered(fitted, word_cluster_nb):
    covered = {type(e).__name__ for e in fitted.values()} | {type(word_cluster_nb).__name__}
    assert covered == set(REGISTRY)


def test_model_json_holds_the_documented_fields(fitted, data, corpus, label):
    est = fitted["HBN-OR"]
    raw = model_to_bytes(est, indexing=IndexingConfig(), vocabulary=data.vocabulary, corpus=corpus, label=label)
    members = _members(raw)
    assert set(members) == {"model.json", "arrays.npz"}
    doc = json.loads(members["model.json"])
    assert doc["format"] == FORMAT_NAME and doc["format_version"] == FORMAT_VERSION
    assert doc["learner"] == "HierarchicalBNClassifier"
    assert doc["label"] == label and doc["class_name"] == f"{label}TOPIC"
    assert doc["corpus"]["fingerprint"] == corpus.fingerprint() and doc["corpus"]["synthetic"] is True
    assert doc["pipeline"]["vocabulary"] == list(data.vocabulary)
    assert doc["pipeline"]["indexing"] == IndexingConfig().to_dict()
    assert doc["selected_terms"] == [data.vocabulary[c] for c in est.selected_features_]
    assert doc["settings"]["B"] == est.B and doc["settings"]["alpha"] == est.alpha
    assert doc["settings"]["random_state"] == 0
    for k in ("hbnlab", "numpy", "scipy", "scikit-learn", "python"):
        assert doc["library_versions"][k]
    assert doc["created"].endswith("+00:00")
    # EM traces: one per restart, exactly the estimator's
    assert doc["em"]["n_restarts"] == len(est.em_result_.traces) == 3
    assert doc["em"]["traces"][0] == [float(v) for v in est.em_result_.traces[0]]
    # the tree and its CPTs inline, in the layout of TreeParameters
    assert doc["state"]["params_"]["tree"] == est.tree_.to_dict()
    assert doc["state"]["params_"]["cpts"] == [t.tolist() for t in est.params_.cpts]
    assert "pickle" not in members["arrays.npz"].decode("latin-1").lower()


def test_em_result_comes_back(fitted):
    est = fitted["HNB-OR"]
    m = load_model(model_to_bytes(est))
    a, b = est.em_result_, m.estimator.em_result_
    assert type(a) is type(b)
    assert a.best_restart == b.best_restart and a.log_likelihood == b.log_likelihood
    assert all(np.array_equal(x, y) for x, y in zip(a.traces, b.traces))
    assert np.array_equal(a.n_iter, b.n_iter) and np.array_equal(a.converged, b.converged)
    assert m.estimator.n_iter_ == est.n_iter_ and m.estimator.converged_ == est.converged_
    assert m.estimator.lower_bound_ == est.lower_bound_
    assert m.estimator.tree_.to_dict() == est.tree_.to_dict()


def test_text_pipeline_equals_the_indexed_route(fitted, data, corpus, label):
    """Two routes to the same answer: raw text through the stored pipeline, and the protocol's
    term matrix through the estimator."""
    est = fitted["HBN-OR"]
    m = load_model(model_to_bytes(est, indexing=IndexingConfig(), vocabulary=data.vocabulary, label=label))
    texts = corpus.texts(corpus.test)
    p_text = m.predict_proba_texts(texts)
    p_matrix = est.predict_proba(data.X_test)[:, 1]
    assert np.array_equal(p_text, p_matrix)
    E = m.pipeline.evidence(texts)
    assert E.shape == (len(texts), len(est.selected_features_)) and E.dtype == np.int8
    assert np.array_equal(E, (data.X_test[:, est.selected_features_] > 0).toarray().astype(np.int8))


def test_pipeline_handles_unknown_and_empty_text(fitted, data):
    est = fitted["NB"]
    m = load_model(model_to_bytes(est, indexing=IndexingConfig(), vocabulary=data.vocabulary))
    p = m.predict_proba_texts(["", "qqqq zzzz", "THE AND OF"])
    # no known term: every document is the all-absent document, so the same probability
    assert p.shape == (3,) and np.all(p == p[0])
    empty = np.zeros((1, data.X_train.shape[1]))
    assert p[0] == est.predict_proba(empty)[0, 1]


def test_model_without_vocabulary_cannot_read_text(fitted):
    m = load_model(model_to_bytes(fitted["NB"]))
    assert m.pipeline is None and m.vocabulary is None
    with pytest.raises(ValueError, match="no vocabulary"):
        m.predict_proba_texts(["text"])


def test_save_refuses_bad_inputs(fitted, data, tmp_path):
    from sklearn.linear_model import LogisticRegression

    with pytest.raises(ValueError, match="cannot be saved"):
        save_model(LogisticRegression(), tmp_path / "x.hbnlab")
    with pytest.raises(ValueError, match="vocabulary has 3 terms"):
        save_model(fitted["NB"], tmp_path / "x.hbnlab", vocabulary=["a", "b", "c"])
    dup = list(data.vocabulary)
    dup[1] = dup[0]
    with pytest.raises(ValueError, match="twice"):
        save_model(fitted["NB"], tmp_path / "x.hbnlab", vocabulary=dup)
    from sklearn.exceptions import NotFittedError

    from hbnlab.models.naive_bayes import BernoulliNBClassifier

    with pytest.raises(NotFittedError):
        save_model(BernoulliNBClassifier(), tmp_path / "x.hbnlab")
    assert not (tmp_path / "x.hbnlab").exists()


def test_loaded_model_resaves_with_its_metadata(fitted, data, corpus, label, tmp_path):
    est = fitted["KDB"]
    p1 = save_model(est, tmp_path / "a.hbnlab", indexing=IndexingConfig(min_df=1), vocabulary=data.vocabulary,
                    corpus=corpus, label=label, provenance={"k": 1})
    m1 = load_model(p1)
    m2 = load_model(save_model(m1, tmp_path / "b.hbnlab"))
    assert m2.label == label and m2.indexing == IndexingConfig(min_df=1) and m2.vocabulary == m1.vocabulary
    assert m2.corpus == m1.corpus and m2.provenance == {"k": 1}


def test_load_from_bytes_names_the_upload(fitted):
    raw = model_to_bytes(fitted["NB"])
    with pytest.raises(ModelFileError, match="upload.hbnlab"):
        load_model(raw[: len(raw) // 2], name="upload.hbnlab")


def test_hbn_string_labels_and_bool_classes(data):
    """classes_ of any label type survive (strings here)."""
    from hbnlab.models.naive_bayes import BernoulliNBClassifier

    y = np.where(data.Y_train[:, 0], "yes", "no")
    est = BernoulliNBClassifier(n_features=5).fit(data.X_train, y)
    m = load_model(model_to_bytes(est))
    assert m.estimator.classes_.tolist() == ["no", "yes"]
    assert np.array_equal(m.estimator.predict(data.X_test), est.predict(data.X_test))


def test_pipeline_applies_the_stored_indexing(corpus):
    """A non-default indexing (Porter stemming, SMART stop list, counts) travels with the model."""
    from hbnlab.models.naive_bayes import BernoulliNBClassifier
    from hbnlab.text import index_corpus

    cfg = IndexingConfig(stemming="porter", stopwords="smart", binary=False, min_df=3)
    ic = index_corpus(corpus, cfg, categories=[corpus.categories()[1]])
    est = BernoulliNBClassifier(n_features=15).fit(ic.X_train, ic.Y_train[:, 0].astype(int))
    m = load_model(model_to_bytes(est, indexing=cfg, vocabulary=ic.vocabulary))
    assert m.indexing == cfg
    got = m.predict_proba_texts(corpus.texts(ic.test_docs))
    assert np.array_equal(got, est.predict_proba(ic.X_test)[:, 1])


def test_saved_files_get_the_usual_permissions(fitted, tmp_path):
    """Atomic writes go through a 0600 temporary file; the result has the umask's mode."""
    import os
    import stat

    from hbnlab.export.atomic import _umask

    p = save_model(fitted["NB"], tmp_path / "perm.hbnlab")
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o666 & ~_umask()
