"""Hostile corpus data and hostile URLs against every page (AppTest).

A corpus whose ids, titles and classes are Markdown images, HTML, spreadsheet formulas, emphasis
and table pipes is shown as text on every page (no Markdown element holds them as written, no
Plotly string holds an HTML tag); a URL naming a file outside the data home's uploads is refused,
naming the parameter, without a byte of the file on the page."""
from __future__ import annotations

import pytest
from app_testutil import (
    HOSTILE,
    markdown_sources,
    no_exceptions,
    plotly_strings,
    shown,
    texts,
    unescaped_hostile,
    wait_for_jobs,
)

PAGES = ["corpus", "features", "structure", "training", "tuning", "evaluation", "explain", "export"]
#: Class names: labels are split on white space, ',', ';' and '|', so these have none.
IMAGE_CLASS, BOLD_CLASS, TAG_CLASS = HOSTILE[0], HOSTILE[3], "<img/src=x/onerror=alert(1)>"


def _csv_field(s: str) -> str:
    return '"' + s.replace('"', '""') + '"'


def hostile_csv() -> bytes:
    rows = ["id,title,text,labels,split"]
    words = {IMAGE_CLASS: "wheat grain harvest farm crop", BOLD_CLASS: "oil crude barrel refinery pipeline",
             TAG_CLASS: "gold mine ounce bullion silver"}
    k = 0
    for label, text in words.items():
        for i in range(10):
            h = HOSTILE[k % len(HOSTILE)]
            split = "test" if i >= 7 else "train"
            rows.append(",".join(_csv_field(v) for v in (f"{h}{k}", f"{h} title {k}", f"{text} {text} {i}",
                                                         label, split)))
            k += 1
    return ("\n".join(rows) + "\n").encode("utf-8")


def _hostile_url(app):
    from hbnlab.app import corpus_data

    path = corpus_data.store_upload(hostile_csv(), "<img src=x onerror=alert(1)>.csv",
                                 {"id_column": "id", "title_column": "title", "split_column": "split"})
    app.query_params = {"corpus": "upload", "upload_path": str(path), "upload_id_column": "id",
                        "upload_title_column": "title", "upload_split_column": "split",
                        "classifiers": "NB,HBN-OR", "n_restarts": "2", "n_features": "8", "min_df": "1"}
    return path


def _assert_clean(app, page):
    no_exceptions(app)
    bad = unescaped_hostile(app) + [(TAG_CLASS, m) for m in markdown_sources(app) if TAG_CLASS in m]
    assert not bad, (page, bad)


def test_every_page_shows_hostile_corpus_data_as_text(app):
    _hostile_url(app)
    app.run()
    app.switch_page("pages/corpus.py").run()
    _assert_clean(app, "corpus")
    assert not app.error, texts(app, "error")
    # the data did reach Markdown elements, escaped: the reader sees it as written
    seen = " ".join(shown(s) for s in markdown_sources(app))
    assert HOSTILE[0] in seen
    assert "&lt;img/src=x/onerror=alert(1)&gt;" in plotly_strings(app)  # a class name on the class chart
    hostile_doc = next(i for i in app.selectbox(key="doc_show").options if i.startswith("<img"))
    app.selectbox(key="doc_show").set_value(hostile_doc).run()
    _assert_clean(app, "corpus document")
    assert any(hostile_doc in shown(m) for m in markdown_sources(app))
    for page in ("features", "structure", "training"):
        app.switch_page(f"pages/{page}.py").run()
        _assert_clean(app, page)
    app.button(key="FormSubmitter:train_form-Train").click().run()
    _assert_clean(app, "training submitted")
    (rec,) = wait_for_jobs(180)
    assert rec.state == "done", rec.error
    for page in ("training", "tuning", "evaluation", "explain", "export"):
        app.switch_page(f"pages/{page}.py").run()
        _assert_clean(app, page)
        assert not app.error, (page, texts(app, "error"))
    app.switch_page("pages/explain.py").run()
    assert any(IMAGE_CLASS in s or BOLD_CLASS in s for s in texts(app, "success") + texts(app, "warning"))
    app.switch_page("pages/export.py").run()
    md = next(e.value for e in app.markdown if "hbnlab workbench report" in e.value)
    assert IMAGE_CLASS not in md and "\\!\\[b\\]" in md
    _assert_csv_downloads_neutralised(rec.id)


def _assert_csv_downloads_neutralised(job_id):
    import csv
    import io

    from hbnlab.app import job_outputs

    tables = job_outputs.export_tables(job_id)
    scores = list(csv.DictReader(io.StringIO(tables["test_scores.csv"].decode("utf-8"))))
    ids = [r["doc_id"] for r in scores]
    formulas = [i for i in ids if i.startswith("'=")]
    assert formulas and not any(i.startswith(("=", "+", "-", "@")) for i in ids), ids
    for name, data in tables.items():
        for row in csv.reader(io.StringIO(data.decode("utf-8"))):
            assert not any(c.startswith(("=", "+", "@")) for c in row), (name, row)


def test_a_hostile_file_name_and_url_warning_are_text(app):
    app.query_params = {"n_features": "![b](http://127.0.0.1:8999/x.png)"}
    app.run()
    _assert_clean(app, "home")
    assert any("n_features='![b](http://127.0.0.1:8999/x.png)' ignored" in w for w in texts(app, "warning"))
    _hostile_url(app)
    app.run()
    _assert_clean(app, "home with an upload")


SECRET = "password,api_key\nhunter2,sk-live-XYZ\n"


@pytest.mark.parametrize("columns", [{"upload_text_column": "password", "upload_labels_column": "api_key"}, {}])
def test_a_url_cannot_read_a_file_outside_the_uploads(app, tmp_path, columns):
    secret = tmp_path / "secret.csv"
    secret.write_text(SECRET, encoding="utf-8")
    app.query_params = {"corpus": "upload", "upload_path": str(secret), **columns}
    app.run()
    app.switch_page("pages/corpus.py").run()
    no_exceptions(app)
    errors = texts(app, "error")
    assert errors and errors[0].startswith("upload_path=") and "outside the directories" in errors[0], errors
    page = " ".join(markdown_sources(app)) + " ".join(str(d.value) for d in app.dataframe)
    for leaked in ("hunter2", "sk-live-XYZ"):
        assert leaked not in page
    assert not app.dataframe and not app.metric


def test_a_url_column_the_upload_lacks_is_refused_by_name(app):
    from hbnlab.app import corpus_data

    path = corpus_data.store_upload(hostile_csv(), "mine.csv", {"id_column": "id", "title_column": "title"})
    app.query_params = {"corpus": "upload", "upload_path": str(path), "upload_text_column": "password"}
    app.run()
    app.switch_page("pages/corpus.py").run()
    no_exceptions(app)
    assert texts(app, "error") == ["upload_text_column='password': the stored upload has no such column"]
