"""Issue 38 item 5 in the workbench: accuracy beside breakeven on the Evaluation page (n/a, with the
reason, when documents have no or several of the classes), the confusions largest first, a cell's
documents, and one of them opened in Explain with the model of the class it was given."""
from __future__ import annotations

import csv
import io

from app_testutil import HOSTILE, frame_with, no_exceptions, submit_training, texts, unescaped_hostile, wait_for_jobs

WORDS = {"sport": "ball goal team match coach league", "politics": "vote party election law senate minister",
         "business": "market stock price trade profit bank"}


def single_label_csv(names=None) -> bytes:
    """Three classes, ten training documents each; the test set holds one document of each class
    written in another class's words, so each classifier confuses it.  ``names``: other class names."""
    rows = []
    words_of = dict(zip(names or WORDS, WORDS.values()))
    for c, words in words_of.items():
        w = words.split()
        for k in range(10):
            rows.append((f"{c}{k:02d}", " ".join(w[(k + i) % len(w)] for i in range(4)), c, "train"))
        rows.append((f"{c}-t", " ".join(w[:4]), c, "test"))
    others = list(words_of)
    for n, c in enumerate(others):
        wrong = words_of[others[(n + 1) % 3]].split()
        rows.append((f"{c}-odd", " ".join(wrong[1:5]), c, "test"))
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "text", "labels", "split"])
    w.writerows(rows)
    return buf.getvalue().encode("utf-8")


def _train(app, classifiers, upload=True, names=None):
    if not upload:
        app.query_params = {"synthetic_size": "600", "n_features": "10"}
    app.run()
    app.button(key="start_synthetic").click().run()
    if upload:
        app.radio(key="corpus_source").set_value("upload").run()
        app.file_uploader(key="corpus_upload").upload("news.csv", single_label_csv(names), "text/csv").run()
        no_exceptions(app)
        assert not app.error, texts(app, "error")
    app.switch_page("pages/features.py").run()
    app.number_input(key="f_n_features").set_value(5)
    app.button(key="FormSubmitter:features_form-Apply").click().run()
    no_exceptions(app)
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    submit_training(app, classifiers)
    no_exceptions(app)
    (rec,) = wait_for_jobs(300)
    assert rec.state == "done", rec.error
    app.switch_page("pages/evaluation.py").run()
    no_exceptions(app)
    return rec


def test_accuracy_confusions_and_open_in_explain_on_a_single_label_corpus(app):
    from hbnlab.app import job_outputs

    rec = _train(app, ["NB", "SVM"])
    out = job_outputs.train_outputs(rec.id)
    assert out.single_label_problem() is None
    acc = frame_with(app, "accuracy", "right", "documents")
    assert list(acc.index) == ["NB", "SVM"]
    assert list(acc["documents"]) == [6, 6]
    # the test set: three documents in their own class's words, three in another class's
    assert set(acc["right"]) <= {3, 4, 5} and (acc["accuracy"] == 100 * acc["right"] / 6).all()
    assert "accuracy" in job_outputs.ranking_table(rec.id).columns

    assert app.selectbox(key="e_cm_classifier").value == "NB"
    confusions = frame_with(app, "true", "given", "documents", "share of true")
    assert confusions["documents"].is_monotonic_decreasing and len(confusions) >= 1
    box = app.selectbox(key="e_confusion")
    assert box.options[0].startswith(f"{confusions['true'][0]} given {confusions['given'][0]}")
    true, given = confusions["true"][0], confusions["given"][0]
    docs = frame_with(app, "doc_id", f"P({given})")
    assert list(docs["doc_id"]) == [d for d in docs["doc_id"] if d.startswith(true)]
    doc_id = app.selectbox(key="e_cm_doc").value
    assert doc_id == docs["doc_id"][0]

    app.button(key="e_open_explain").click().run()
    no_exceptions(app)
    assert app.title[0].value == "Explain"
    assert app.selectbox(key="x_unit").value == f"{given}|NB"
    assert app.selectbox(key="x_doc").value == doc_id

    # Compare: the same accuracy in a row of its own, and the difference to the reference
    app.switch_page("pages/compare.py").run()
    no_exceptions(app)
    table = frame_with(app, "class", index=True)
    assert "accuracy" in table.index
    assert table.loc["accuracy", "#1 · NB"] == acc.loc["NB", "accuracy"]
    assert table.loc["accuracy", "#1 · SVM"] == acc.loc["SVM", "accuracy"]
    assert table.loc["accuracy", "#1 · SVM − #1 · NB"] == acc.loc["SVM", "accuracy"] - acc.loc["NB", "accuracy"]
    assert any("one-of-n accuracy, the share of documents whose highest-scoring class" in t
               for t in texts(app, "caption"))


def test_accuracy_is_na_with_the_reason_on_a_multi_label_corpus(app):
    _train(app, ["NB"], upload=False)
    infos = texts(app, "info")
    assert any(t.startswith("Accuracy: n/a.") and "have several of the" in t and
               "need exactly one of the trained classes per document" in t for t in infos), infos
    assert not [d for d in app.dataframe if "accuracy" in list(d.value.columns)]
    assert not app.get("selectbox") or all(s.key != "e_confusion" for s in app.selectbox)
    # the synthetic corpus's ranking table keeps its columns
    assert "accuracy" not in frame_with(app, "micro breakeven", "macro breakeven", index=False).columns


def _clicked_table_script():
    from types import SimpleNamespace as N

    import streamlit as st

    from hbnlab.app import widgets

    widgets.follow_row(N(selection=N(rows=st.session_state.get("clicked", []))), "pick", forget=("doc",))
    st.selectbox("pick", range(3), key="pick")
    st.selectbox("doc", ["x", "y"], key="doc")


def test_a_clicked_row_chooses_the_confusion_once():
    """The confusions table's row click drives the selectbox; a later choice in the selectbox stands."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_clicked_table_script, default_timeout=60).run()
    at.selectbox(key="doc").set_value("y").run()
    at.session_state["clicked"] = [2]
    at.run()
    assert at.selectbox(key="pick").value == 2 and at.selectbox(key="doc").value == "x"
    at.selectbox(key="pick").set_value(1).run()
    assert at.selectbox(key="pick").value == 1  # the table still reports row 2: the choice stands


def test_confusions_of_hostile_class_names_are_shown_as_text(app):
    """Class names are corpus data: the confusion picker, the button and the heatmap show them as text."""
    names = [HOSTILE[0], HOSTILE[3], "<img/src=x/onerror=alert(1)>"]
    _train(app, ["NB"], names=names)
    assert app.selectbox(key="e_confusion").options
    assert not unescaped_hostile(app), unescaped_hostile(app)
    assert any(n in app.button(key="e_open_explain").label.replace("\\", "") for n in names)
