"""Issue 38 item 4: the stop list is a choice (none | thesis | english | a file) everywhere a corpus is
indexed, and the indexing says how many documents it leaves without a single term."""
from __future__ import annotations

import json

import pytest

from hbnlab.corpus import Corpus, Document
from hbnlab.pipeline.config import STOPWORDS, ExperimentConfig
from hbnlab.pipeline.data import prepare
from hbnlab.text import IndexingConfig, TermIndexer, index_corpus
from hbnlab.text.stopwords import (
    STOPLIST_DESCRIPTIONS,
    STOPLIST_NAMES,
    StopListError,
    load_stopwords,
    read_stop_list,
    resolve_stop_words,
)

#: A question-classification corpus in miniature: the thesis's list removes every wh-word.
QUESTIONS = [("q1", "Who wrote it?", "person", "train"), ("q2", "Who is he?", "person", "train"),
             ("q3", "Where is Paris?", "place", "train"), ("q4", "Where is it?", "place", "train"),
             ("q5", "Who?", "person", "test"), ("q6", "Where is Rome?", "place", "test")]


def question_corpus() -> Corpus:
    return Corpus("questions", tuple(Document(i, t, frozenset([c]), s) for i, t, c, s in QUESTIONS))


# --------------------------------------------------------------------------- the named lists
def test_english_is_scikit_learns_list_and_every_name_is_described():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    assert load_stopwords("english") == frozenset(ENGLISH_STOP_WORDS) == load_stopwords("sklearn")
    assert len(load_stopwords("english")) == 318
    assert STOPLIST_NAMES[0] == "thesis" and {"none", "thesis", "english"} <= set(STOPLIST_NAMES)
    assert set(STOPLIST_DESCRIPTIONS) == set(STOPLIST_NAMES)
    assert STOPWORDS == STOPLIST_NAMES  # the workbench's choices are the library's, one table
    assert IndexingConfig(stopwords="english").stopword_set() == frozenset(ENGLISH_STOP_WORDS)


def test_the_default_stays_the_thesis_list():
    assert IndexingConfig().stopwords == "thesis"
    assert ExperimentConfig().stopwords == "thesis"
    assert ExperimentConfig().indexing_dict()["stopwords"] == "thesis"


# --------------------------------------------------------------------------- a file
def test_read_stop_list_golden(tmp_path):
    f = tmp_path / "mine.txt"
    f.write_bytes("\ufeff# my list\r\nThe\r\n\r\n  of \nthe\nÉté\n".encode("utf-8"))
    assert read_stop_list(f) == ("the", "of", "été")
    assert resolve_stop_words(str(f)) == ("the", "of", "été")


@pytest.mark.parametrize("content, message", [
    (b"the\n\xff\xfeof\n", r"line 2: not UTF-8 text \(byte 0xff at column 1\)"),
    (b"the\nof the\n", "line 2: expected one word per line, got 'of the'"),
    (b"# only a comment\n\n", "no words"),
])
def test_read_stop_list_names_the_file_and_the_line(tmp_path, content, message):
    f = tmp_path / "bad.txt"
    f.write_bytes(content)
    with pytest.raises(StopListError, match=message) as e:
        read_stop_list(f)
    assert str(f) in str(e.value)
    assert isinstance(e.value, ValueError)


def test_resolve_stop_words(tmp_path):
    assert resolve_stop_words("english") == "english"
    assert resolve_stop_words(["a", "b"]) == ("a", "b")
    with pytest.raises(StopListError, match="'englsh' is neither a stop list .*nor a file"):
        resolve_stop_words("englsh")
    with pytest.raises(StopListError, match="cannot read"):
        read_stop_list(tmp_path / "missing.txt")


# --------------------------------------------------------------------------- empty documents
def test_the_thesis_list_empties_wh_questions_and_none_keeps_them():
    corpus = question_corpus()
    thesis = index_corpus(corpus, IndexingConfig(min_df=1), categories=("person", "place"))
    assert thesis.vocabulary == ("paris", "wrote")
    # "Who is he?", "Where is it?"; "Who?" and "Where is Rome?" (rome is not a training term)
    assert thesis.empty_documents() == {"train": 2, "test": 2}
    none = index_corpus(corpus, IndexingConfig(stopwords="none", min_df=1), categories=("person", "place"))
    assert none.empty_documents() == {"train": 0, "test": 0}
    assert {"who", "where"} <= set(none.vocabulary)


def test_prepare_records_the_empty_documents_and_the_stop_list():
    data = prepare(question_corpus(), categories=["person", "place"], indexing=IndexingConfig(min_df=1))
    assert data.info["empty_documents"] == {"train": 2, "test": 2}
    js = data.corpus_json()
    assert js["indexing"]["stopwords"] == "thesis" and js["empty_documents"] == {"train": 2, "test": 2}


def test_indexing_note_says_how_many_documents_are_left_without_a_term():
    from hbnlab.app.views.features import indexing_note

    data = prepare(question_corpus(), categories=["person", "place"], indexing=IndexingConfig(min_df=1))
    n, text = indexing_note(data)
    assert n == 4
    assert "2 of 4 training and 2 of 2 test documents are left without a single term" in text
    assert "'thesis'" in text
    data = prepare(question_corpus(), categories=["person", "place"],
                   indexing=IndexingConfig(stopwords="none", min_df=1))
    assert indexing_note(data) == (0, indexing_note(data)[1])
    assert "every document keeps at least one" in indexing_note(data)[1]


# --------------------------------------------------------------------------- config, URL, cache key, model file
def test_the_experiment_config_carries_the_choice_through_the_url_and_the_data_key():
    cfg = ExperimentConfig(stopwords="english")
    assert cfg.to_query() == {"stopwords": "english"}
    back, problems = ExperimentConfig.from_query({"stopwords": "english"})
    assert back == cfg and not problems
    bad, problems = ExperimentConfig.from_query({"stopwords": "klingon"})
    assert bad.stopwords == "thesis" and "stopwords" in problems[0]
    assert IndexingConfig(**cfg.indexing_dict()).stopwords == "english"


def test_the_store_key_differs_by_stop_list_and_not_for_the_default(tmp_path, monkeypatch):
    from hbnlab.pipeline import store

    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path))
    monkeypatch.setattr(store, "_INDEXES", type(store._INDEXES)())
    keys = {"index": [], "data": []}
    real = store._cached

    def cached(kind, key, *a, **k):  # the term index is built; the data entry's key only recorded
        keys[kind].append(key)
        return real(kind, key, *a, **k) if kind == "index" else None

    monkeypatch.setattr(store, "_cached", cached)
    corpus = question_corpus()
    store.prepare_cached(corpus, categories=["person", "place"])
    store.prepare_cached(corpus, categories=["person", "place"], indexing=IndexingConfig())
    store.prepare_cached(corpus, categories=["person", "place"], indexing=IndexingConfig(stopwords="english"))
    store.prepare_cached(corpus, categories=["person", "place"], indexing=IndexingConfig(stopwords=("who",)))
    assert keys["data"][0] == keys["data"][1]
    assert len(set(keys["data"])) == 3
    assert len(keys["index"]) == len(set(keys["index"])) == 3   # the default's index: built once, then kept


def test_a_file_list_travels_in_the_model_file(tmp_path):
    from hbnlab.export.model_io import load_model, save_model
    from hbnlab.models.naive_bayes import BernoulliNBClassifier

    f = tmp_path / "mine.txt"
    f.write_text("who\nis\n", encoding="utf-8")
    cfg = IndexingConfig(stopwords=resolve_stop_words(str(f)), min_df=1)
    ix = TermIndexer(cfg)
    X = ix.fit_transform([t for _, t, _, _ in QUESTIONS])
    y = [c == "person" for _, _, c, _ in QUESTIONS]
    est = BernoulliNBClassifier().fit(X, y)
    path = save_model(est, tmp_path / "m.hbnlab", indexing=cfg, vocabulary=ix.vocabulary_)
    f.unlink()  # the model does not need the file any more
    loaded = load_model(path)
    assert loaded.indexing.stopwords == ("who", "is")
    assert "who" not in loaded.vocabulary and "where" in loaded.vocabulary
    assert json.loads(json.dumps(loaded.indexing.to_dict()))["stopwords"] == ["who", "is"]


# --------------------------------------------------------------------------- the workbench's own lists
def test_an_uploaded_list_is_stored_by_content_and_read_back_by_the_config(tmp_path, monkeypatch):
    from hbnlab.pipeline.stop_lists import is_own_stop_list, own_stop_list_words, store_own_stop_list

    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path))
    name = store_own_stop_list(b"# mine\nWho\nis\n", "mine.txt")
    assert is_own_stop_list(name) and name == store_own_stop_list(b"who\nis\n", "again.txt")
    assert own_stop_list_words(name) == ("who", "is")
    cfg = ExperimentConfig(stopwords=name)
    assert cfg.indexing_dict()["stopwords"] == ("who", "is")
    assert cfg.to_query() == {"stopwords": name}
    assert ExperimentConfig.from_query({"stopwords": name})[0] == cfg
    with pytest.raises(ValueError, match="stopwords must be one of .* or an uploaded list"):
        ExperimentConfig(stopwords="own:xyz")
    with pytest.raises(StopListError, match="line 1: expected one word per line"):
        store_own_stop_list(b"two words\n", "bad.txt")
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path / "elsewhere"))
    with pytest.raises(StopListError, match="is not in this data home .*upload the list again"):
        cfg.indexing_dict()


def test_a_manifest_carries_a_named_or_listed_stop_list():
    from hbnlab.experiments.manifest import ExperimentManifest

    base = {"name": "m", "corpus": {"kind": "synthetic", "seed": 1, "size": 500}, "n_categories": 2,
            "classifiers": [{"name": "NB"}], "n_features": 10}
    for stop in ("english", ["who", "is"]):
        m = ExperimentManifest.from_dict({**base, "indexing": {"stopwords": stop}})
        assert m.indexing.stopwords == (stop if isinstance(stop, str) else tuple(stop))
        again = ExperimentManifest.from_dict(json.loads(json.dumps(m.to_dict())))
        assert again.indexing == m.indexing
