"""Explain's document follows its model (issue 38, minors): another model shows its own ranking's top
document, not the previous model's choice; a document opened from another page is kept; the search
matches whole words, as its help says."""
from __future__ import annotations

from app_testutil import no_exceptions, wait_for_jobs

from hbnlab.pipeline.config import ExperimentConfig

SMALL = ExperimentConfig(synthetic_size=600, n_features=10, n_restarts=2, n_categories=2)


def _explain(app):
    from hbnlab.app import job_client

    job = job_client.submit_train(SMALL, classes=["alpha", "bravo"], classifiers=["NB"])
    (rec,) = wait_for_jobs(180, ids=[job])
    assert rec.state == "done", rec.error
    app.session_state["hbnlab.config"] = SMALL
    app.run()
    app.switch_page("pages/explain.py").run()
    no_exceptions(app)
    return app


def _top(app) -> str:
    return app.dataframe[0].value["doc_id"].iloc[0]


def test_another_model_shows_its_own_top_document_and_an_opened_document_is_kept(app):
    _explain(app)
    assert app.selectbox(key="x_unit").value == "alpha|NB"
    ids = app.dataframe[0].value["doc_id"].tolist()
    app.selectbox(key="x_doc").set_value(ids[5]).run()
    no_exceptions(app)
    assert app.selectbox(key="x_doc").value == ids[5]
    app.run()                                                   # a rerun keeps the choice
    assert app.selectbox(key="x_doc").value == ids[5]
    app.selectbox(key="x_unit").set_value("bravo|NB").run()
    no_exceptions(app)
    assert app.selectbox(key="x_doc").value == _top(app) != ids[5], "the bravo ranking's first document"
    assert any("highest P(bravo | document) first" in c.value for c in app.caption)

    # a document opened from another page (Evaluation's confusions) is shown with its model
    app.session_state["hbnlab.explain_doc"] = ids[7]
    app.session_state["x_unit"] = "alpha|NB"
    app.switch_page("pages/evaluation.py").run()
    app.switch_page("pages/explain.py").run()
    no_exceptions(app)
    assert app.selectbox(key="x_unit").value == "alpha|NB" and app.selectbox(key="x_doc").value == ids[7]


def test_the_search_matches_whole_words(app):
    from hbnlab.app import corpus_data

    _explain(app)
    corpus = corpus_data.load_corpus(SMALL)
    doc = corpus.test[0]
    word = doc.full_text.split()[0].lower()
    part = word[: max(2, len(word) - 2)]
    app.text_input(key="x_query").input(word).run()
    no_exceptions(app)
    found = app.dataframe[0].value["doc_id"].tolist()
    assert doc.id in found
    app.text_input(key="x_query").input(part).run()
    no_exceptions(app)
    partial = set(app.dataframe[0].value["doc_id"])
    import re

    pattern = re.compile(rf"\b{re.escape(part)}\b", re.IGNORECASE)
    texts = {d.id: d.full_text for d in corpus.documents}
    assert all(pattern.search(texts[i]) for i in partial), "a part of a word is not a word"
