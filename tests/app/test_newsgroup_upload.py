"""The Corpus page's newsgroup stripping (issue 31): off by default; ticked on an uploaded corpus of
newsgroup messages it removes headers, quotes and signatures, and the summary says how many
documents changed."""
from __future__ import annotations

from app_testutil import no_exceptions, open_upload_form, texts
from corpus_fixtures import zip_bytes
from newsgroup_fixtures import newsgroup_files

SUMMARY = "newsgroup stripping applied (headers, quotes, signature): 4 of 10 documents changed"


def _found(at, query: str) -> int:
    at.text_input(key="doc_query").input(query).run()
    no_exceptions(at)
    return len(at.dataframe[-1].value)


def test_ticking_the_box_strips_the_upload_and_the_summary_says_so(app):
    open_upload_form(app)
    box = app.checkbox(key="upload_newsgroup_strip")
    assert box.value is False
    app.file_uploader(key="corpus_upload").upload("news.zip", zip_bytes(newsgroup_files(), "news/"),
                                                  "application/zip").run()
    no_exceptions(app)
    assert not app.error, [e.value for e in app.error]
    assert [m.value for m in app.metric] == ["10", "6", "4", "2"]
    assert not any("stripping" in t for t in texts(app, "caption"))
    assert _found(app, "gordon") == 2  # the sci.med poster's name: in his headers and signature

    app.checkbox(key="upload_newsgroup_strip").check().run()
    no_exceptions(app)
    assert not app.error, [e.value for e in app.error]
    assert SUMMARY in texts(app, "caption")
    assert [m.value for m in app.metric] == ["10", "6", "4", "2"]
    assert _found(app, "gordon") == 0 and _found(app, "pitt") == 0
    assert _found(app, "aspirin") == 1
    assert app.session_state["hbnlab.config"].corpus_spec()["strip"] == ["headers", "quotes", "signature"]

    app.checkbox(key="upload_newsgroup_strip").uncheck().run()
    no_exceptions(app)
    assert not any("stripping" in t for t in texts(app, "caption"))
    assert _found(app, "gordon") == 2
    assert "strip" not in app.session_state["hbnlab.config"].corpus_spec()
