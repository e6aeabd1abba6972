"""Helpers shared by the workbench tests."""
from __future__ import annotations

import json
import re
import time

#: Corpus data an attacker would write: Markdown images and links (a fetch of a local URL),
#: HTML, spreadsheet formulas, emphasis, table pipes.
HOSTILE = ("![b](http://127.0.0.1:8999/x.png)", "<img src=x onerror=alert(1)>", "=cmd|' /C calc'!A0", "**bold**",
           "a|b")
#: The elements whose text Streamlit renders as Markdown (labels of metrics and expanders too).
MARKDOWN_KINDS = ("markdown", "caption", "title", "header", "subheader", "warning", "info", "error", "success",
                  "toast", "exception")
#: Elements with a Markdown label.
LABELLED_KINDS = ("metric", "expandable", "button", "download_button", "selectbox", "multiselect", "radio",
                  "checkbox", "toggle", "slider", "select_slider", "text_input", "number_input", "text_area")
_ESCAPE = re.compile(r"\\(.)")


def wait_for_jobs(timeout: float = 120.0, ids=None):
    """Block until every workbench job (or the given ids) is finished; return the records."""
    from hbnlab.app import job_client

    deadline = time.monotonic() + timeout
    while True:
        recs = [r for r in job_client.list_jobs() if ids is None or r.id in ids]
        if recs and all(r.state not in ("queued", "running") for r in recs):
            return recs
        if time.monotonic() > deadline:
            raise TimeoutError(f"jobs still active after {timeout}s: {[(r.id, r.state) for r in recs]}")
        time.sleep(0.2)


def submit_training(at, classifiers, *, restarts=None, classes=None) -> None:
    """Fill the Training page's form (the page is open) and press Train."""
    if classes is not None:
        at.multiselect(key="t_classes").set_value(classes)
    at.multiselect(key="t_classifiers").set_value(classifiers)
    if restarts is not None:
        at.number_input(key="t_restarts").set_value(restarts)
    at.button(key="FormSubmitter:train_form-Train").click().run()


def no_exceptions(at) -> None:
    assert not at.exception, [e.value for e in at.exception]


def frame_with(at, *columns, index=False):
    """The first st.dataframe whose columns (or index name, with ``index=True``) include these
    names (AppTest does not expose keys of read-only data frames)."""
    for df in at.dataframe:
        value = df.value
        names = [value.index.name] if index else list(value.columns)
        if all(c in names for c in columns):
            return value
    raise AssertionError(f"no data frame with {columns}; have {[list(d.value.columns) for d in at.dataframe]}")


def displayed(df_element):
    """The text an ``st.dataframe`` of a pandas Styler shows, as a data frame of strings (the
    element's ``.value`` holds the numbers behind it)."""
    import io

    import pyarrow as pa

    return pa.ipc.open_stream(io.BytesIO(df_element.proto.arrow_data.styler.display_values)).read_pandas()


def shown(text: str) -> str:
    """Markdown source as the reader sees it: backslash escapes and word joiners removed."""
    return _ESCAPE.sub(r"\1", text.replace("\u2060", ""))


def texts(at, kind) -> list[str]:
    """The shown text (:func:`shown`) of every element of ``kind`` on the page, sidebar included."""
    return [shown(str(e.value)) for e in getattr(at, kind)]


def markdown_sources(at) -> list[str]:
    """Every Markdown source of the page: the Markdown elements and the labels of metrics,
    expanders and widgets (Streamlit renders Markdown, images included, in labels)."""
    out = [str(e.value) for kind in MARKDOWN_KINDS for e in getattr(at, kind)]
    out += [e.label for kind in LABELLED_KINDS for e in at.get(kind)]
    return out


def plotly_strings(at) -> list[str]:
    """Every string in the page's Plotly figures (titles, names, labels, hover text)."""
    found = []

    def walk(o):
        if isinstance(o, str):
            found.append(o)
        elif isinstance(o, dict):
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    for chart in at.get("plotly_chart"):
        walk(json.loads(chart.proto.spec))
    return found


def unescaped_hostile(at) -> list[tuple[str, str]]:
    """(hostile string, source) for every :data:`HOSTILE` string a Markdown source of the page
    holds as written, and every Plotly string holding an HTML tag Plotly would render."""
    bad = [(h, s) for s in markdown_sources(at) for h in HOSTILE if h in s]
    bad += [("<", s) for s in plotly_strings(at) if re.search(r"<\s*(img|a|script|iframe)\b", s, re.I)]
    return bad


def open_upload_form(at):
    """Start the app on the synthetic corpus and open the Corpus page's upload source."""
    at.run()
    no_exceptions(at)
    at.button(key="start_synthetic").click().run()
    at.radio(key="corpus_source").set_value("upload").run()
    no_exceptions(at)
    return at
