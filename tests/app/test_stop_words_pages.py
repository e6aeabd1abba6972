"""Issue 38 item 4 in the workbench: the Features page offers every stop list (english included), the
choice reaches the config, the URL and the indexed data, and the Corpus and Features pages say how many
documents the indexing leaves without a term."""
from __future__ import annotations

from app_testutil import no_exceptions, texts


def _open(app, page):
    app.query_params = {"synthetic_size": "600"}
    app.run()
    no_exceptions(app)
    app.switch_page(f"pages/{page}.py").run()
    no_exceptions(app)
    return app


def test_features_page_offers_english_and_the_choice_reaches_config_url_and_data(app):
    from hbnlab.app import corpus_data

    _open(app, "features")
    box = app.selectbox(key="f_stopwords")
    assert box.value == "thesis"
    assert {"none", "thesis", "english"} <= {o.split(":")[0] for o in box.options}
    assert any("Indexing with stop words 'thesis' keeps" in t for t in texts(app, "caption"))

    box.set_value("english")
    app.button(key="FormSubmitter:features_form-Apply").click().run()
    no_exceptions(app)
    cfg = app.session_state["hbnlab.config"]
    assert cfg.stopwords == "english"
    assert app.query_params["stopwords"] == "english"
    assert corpus_data.experiment(cfg).indexed.config.stopwords == "english"
    assert any("Indexing with stop words 'english' keeps" in t for t in texts(app, "caption"))


def test_corpus_page_says_how_many_documents_keep_no_term(app):
    _open(app, "corpus")
    assert any("Indexing with stop words 'thesis' keeps" in t and "every document keeps at least one" in t
               for t in texts(app, "caption"))


def test_an_own_stop_list_uploaded_on_the_features_page(app):
    from hbnlab.app import corpus_data

    _open(app, "features")
    vocabulary = corpus_data.experiment(app.session_state["hbnlab.config"]).vocabulary
    dropped = sorted(vocabulary)[:3]
    app.file_uploader(key="f_stop_file").upload("mine.txt", ("# mine\n" + "\n".join(dropped)).encode(), "text/plain")
    app.selectbox(key="f_stopwords").set_value("own list")
    app.button(key="FormSubmitter:features_form-Apply").click().run()
    no_exceptions(app)
    assert not app.error, texts(app, "error")
    cfg = app.session_state["hbnlab.config"]
    assert cfg.stopwords.startswith("own:") and app.query_params["stopwords"] == cfg.stopwords
    data = corpus_data.experiment(cfg)
    assert data.indexed.config.stopwords == tuple(dropped)
    assert not set(dropped) & set(data.vocabulary)
    assert any("Indexing with stop words 'own list of 3 words' keeps" in t for t in texts(app, "caption"))
    assert app.selectbox(key="f_stopwords").value == "own list"


def test_a_bad_own_stop_list_names_the_file_and_the_line(app):
    _open(app, "features")
    app.file_uploader(key="f_stop_file").upload("bad.txt", b"the\nof the\n", "text/plain")
    app.selectbox(key="f_stopwords").set_value("own list")
    app.button(key="FormSubmitter:features_form-Apply").click().run()
    no_exceptions(app)
    assert any("stop list 'bad.txt', line 2: expected one word per line, got 'of the'" in t
               for t in texts(app, "error")), texts(app, "error")
    assert app.session_state["hbnlab.config"].stopwords == "thesis"
