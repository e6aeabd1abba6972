"""Reports: the HTML is parsed back and holds every table and figure; CSV and Markdown hold the
same tables; the thesis's values appear where they apply."""
from __future__ import annotations

import io
import os
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from hbnlab.experiments.manifest import ExperimentManifest, run_manifest
from hbnlab.export import report as R
from hbnlab.export.report import ExperimentResult, ResultError

MANIFEST = {
    "name": "report test", "corpus": {"kind": "synthetic", "seed": 1, "size": 500}, "n_categories": 3,
    "classifiers": [{"name": "NB"}, {"name": "HBN-OR", "params": {"n_restarts": 2}}], "n_features": 10,
}


class Page(HTMLParser):
    """Ids, tables (id -> rows of cell texts), figures, trees, scripts of an HTML document."""

    def __init__(self, text):
        super().__init__()
        self.ids, self.tables, self.figures, self.trees, self.script_srcs, self.svgs = set(), {}, [], [], [], 0
        self.links = []
        self._table = None
        self._row = None
        self._cell = None
        self.n_scripts = 0
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "table":
            self._table = a.get("id")
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "div" and "data-figure" in a:
            self.figures.append(a["data-figure"])
        elif tag == "div" and "data-tree" in a:
            self.trees.append(a["data-tree"])
        elif tag == "script":
            self.n_scripts += 1
            if "src" in a:
                self.script_srcs.append(a["src"])
        elif tag == "svg":
            self.svgs += 1
        elif tag in ("link", "img", "iframe") and (a.get("href") or a.get("src")):
            self.links.append(a.get("href") or a.get("src"))

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def result():
    return run_manifest(ExperimentManifest.from_dict(MANIFEST))


@pytest.fixture(scope="module")
def page(result):
    return R.build_report(result)


def test_report_holds_every_section_table_and_figure(result, page):
    doc = Page(page)
    for sid in ("settings", "corpus", "breakeven", "ranking", "pr-curves", "em", "trees", "timings", "versions"):
        assert sid in doc.ids, sid
    for name in R.TABLES:
        if name == "em":
            assert "table-em" in doc.tables
        assert f"table-{name}" in doc.tables, name
    cats = result.categories
    assert sorted(doc.figures) == sorted([f"fig-pr-{c}" for c in cats] + ["fig-em-HBN-OR-10"])
    # one tree per category for the HBN, drawn as inline SVG by Graphviz
    assert sorted(doc.trees) == sorted(f"HBN-OR (10) · {c}" for c in cats)
    assert doc.svgs >= len(cats)
    assert "synthetic-badge" in doc.ids


def test_report_is_self_contained(page):
    doc = Page(page)
    assert doc.script_srcs == [] and doc.links == []  # no CDN, nothing fetched
    import plotly.offline

    js = plotly.offline.get_plotlyjs()
    assert page.count(js) == 1  # plotly.js inlined exactly once, in the head
    rest = page.replace(js, "")
    assert "cdn.plot.ly" not in rest and "<script src" not in rest
    assert rest.count("Plotly.newPlot") == len(doc.figures)


def test_breakeven_table_values_are_ours(result, page):
    from hbnlab.evaluation import breakeven_point, macro_breakeven, micro_breakeven

    rows = Page(page).tables["table-breakeven"]
    head = rows[0]
    body = {r[0]: r[1:] for r in rows[1:] if r and r[0]}
    for clf in result.classifiers:
        col = head.index(clf) - 1  # the index column comes first
        S = result.scores[clf]
        for j, cat in enumerate(result.categories):
            want = 100 * breakeven_point(result.labels[:, j], S[:, j])
            assert float(body[cat][col]) == pytest.approx(want, abs=0.051)
        assert float(body["micro"][col]) == pytest.approx(100 * micro_breakeven(result.labels, S), abs=0.051)
        assert float(body["macro"][col]) == pytest.approx(100 * macro_breakeven(result.labels, S), abs=0.051)


def test_csv_and_markdown_hold_the_same_tables(result):
    csvs = R.tables_csv(result)
    assert set(csvs) == {f"{n}.csv" for n in R.TABLES}
    tables = R.report_tables(result)
    be = pd.read_csv(io.StringIO(csvs["breakeven.csv"]), index_col=0)
    np.testing.assert_allclose(be.to_numpy(dtype=float), tables["breakeven"].to_numpy(dtype=float), atol=1e-4)
    md = R.markdown(result)
    for title in R.TABLES.values():
        assert f"## {title}" in md
    micro_line = next(line for line in md.splitlines() if line.startswith("| micro |"))
    want = tables["breakeven"].loc["micro", result.classifiers[0]]
    assert f"{want:.1f}" in micro_line
    assert "Synthetic corpus" in md


def test_write_report_writes_html_csv_md(result, tmp_path):
    paths = R.write_report(result, tmp_path / "rep.html", include_trees=False)
    assert paths["html"] == tmp_path / "rep.html" and (tmp_path / "rep.csv").is_file()
    assert (tmp_path / "rep.md").is_file() and (tmp_path / "rep-timings.csv").is_file()
    assert (tmp_path / "rep.csv").read_text() == R.tables_csv(result)["breakeven.csv"]


def test_graphviz_missing_gives_a_readable_note(result, monkeypatch):
    import shutil

    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "dot" else real(name, *a, **k))
    page = R.build_report(result, include_plotlyjs=False)
    doc = Page(page)
    assert "graphviz-missing" in doc.ids and doc.trees == []
    assert "apt-get install graphviz" in page


def _reuters_like(result):
    """The same numbers relabelled as a Reuters-21578 ModApte test run on the thesis's classes."""
    cats = ["earn", "acq", "trade"][: len(result.categories)]
    return ExperimentResult(categories=cats, classifiers=["NB (30)"], labels=result.labels,
                            scores={"NB (30)": result.scores[result.classifiers[0]]},
                            corpus={"name": "reuters21578-modapte"}, stage="test",
                            paper={"NB (30)": {"per_class": {"earn": 95.2, "acq": 86.6, "trade": 57.3},
                                               "micro": 83.1, "macro": 71.4}})


def test_thesis_values_beside_ours_where_they_apply(result):
    from hbnlab.experiments import paper_values as pv

    r = _reuters_like(result)
    be = R.breakeven_frame(r)
    ref = pv.table_4_10_row("NB", 30)
    assert "NB (30) (thesis)" in be.columns
    assert be.loc["earn", "NB (30) (thesis)"] == ref["per_class"]["earn"]
    assert be.loc["micro", "NB (30) (thesis)"] == ref["micro"]
    doc = Page(R.build_report(r, include_plotlyjs=False))
    assert "NB (30) (thesis)" in doc.tables["table-breakeven"][0]
    # a validation run, or another corpus: no thesis column
    r.stage = "validation"
    assert "NB (30) (thesis)" not in R.breakeven_frame(r).columns


def test_thesis_values_filled_by_run_manifest_on_reuters_names(monkeypatch):
    """run_manifest attaches Table 4.10 for the thesis's rows when the corpus is Reuters ModApte with the
    thesis's ten classes, and leaves it off for any other choice of classes (the published averages
    describe those ten classes only)."""
    import dataclasses

    from hbnlab.corpus import Corpus, make_synthetic_corpus
    from hbnlab.experiments.paper_values import THESIS_CLASSES

    c = make_synthetic_corpus(n_documents=600, n_classes=10, random_state=0)
    names = dict(zip(sorted({lab for d in c.documents for lab in d.labels}), THESIS_CLASSES))
    docs = [dataclasses.replace(d, labels=frozenset(names[lab] for lab in d.labels)) for d in c.documents]
    reuters_named = Corpus("reuters21578-modapte", docs)
    spec = {"corpus": {"kind": "synthetic", "size": 600},
            "classifiers": [{"name": "NB"}, {"name": "KDB"}], "n_features": 30}
    r = run_manifest(ExperimentManifest.from_dict({**spec, "n_categories": 10}), corpus=reuters_named)
    assert set(r.paper) == {"NB (30)"} and r.paper["NB (30)"]["micro"] == 83.1
    r2 = run_manifest(ExperimentManifest.from_dict({**spec, "n_categories": 2}), corpus=reuters_named)
    assert r2.paper == {}


def test_result_validation_names_the_field(result):
    with pytest.raises(ResultError, match=r"scores\['NB \(10\)'\]: expected shape"):
        ExperimentResult(result.categories, ["NB (10)"], result.labels, {"NB (10)": result.scores["NB (10)"][:3]})
    with pytest.raises(ResultError, match="have no scores"):
        ExperimentResult(result.categories, ["A"], result.labels, {})
    with pytest.raises(ResultError, match="labels"):
        ExperimentResult(["x"], [], result.labels, {})
    with pytest.raises(ResultError, match="format"):
        ExperimentResult.from_dict({"format": "nope"})



@pytest.mark.e2e
def test_report_opens_offline_in_a_browser(page, tmp_path):
    """The report in Chromium with every network request blocked: plotly draws every figure and the
    trees are there.  The screenshot goes to $HBNLAB_SCREENSHOT_DIR when set (CI artifacts)."""
    import shutil

    playwright = pytest.importorskip("playwright.sync_api")
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.fail("no chromium executable for the end-to-end test")
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    blocked = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        try:
            pg = browser.new_page(viewport={"width": 1280, "height": 1600})

            def route(r):
                if r.request.url.startswith("file:"):
                    r.continue_()
                else:
                    blocked.append(r.request.url)
                    r.abort()

            pg.route("**/*", route)
            pg.goto(path.as_uri())
            pg.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length > 0", timeout=20000)
            n_plots = pg.evaluate("document.querySelectorAll('.js-plotly-plot').length")
            n_figs = pg.evaluate("document.querySelectorAll('div.figure').length")
            n_trees = pg.evaluate("document.querySelectorAll('div.tree svg').length")
            # every tree is drawn at its own size, even in a narrow window (a wide tree scrolls in
            # its box, never squeezed)
            pg.set_viewport_size({"width": 360, "height": 1600})
            squeezed = pg.evaluate("[...document.querySelectorAll('div.tree svg')].filter(s => "
                                   "Math.abs(s.getBoundingClientRect().width - s.width.baseVal.value) > 1).length")
            pg.set_viewport_size({"width": 1280, "height": 1600})
            shot = tmp_path / "report.png"
            pg.locator("#pr-curves").scroll_into_view_if_needed()
            pg.screenshot(path=str(shot), full_page=False)
        finally:
            browser.close()
    assert blocked == []
    assert n_plots == n_figs > 0 and n_trees > 0 and squeezed == 0
    assert shot.stat().st_size > 10_000
    out = os.environ.get("HBNLAB_SCREENSHOT_DIR")
    if out:
        os.makedirs(out, exist_ok=True)
        shutil.copy(shot, os.path.join(out, "export-report.png"))


def test_knn_runs_through_a_manifest_into_every_report_table():
    m = ExperimentManifest.from_dict({**MANIFEST, "classifiers": [{"name": "KNN", "params": {"k": 5}}]})
    result = run_manifest(m, keep_models=True)
    tables = R.report_tables(result)
    assert result.classifiers == ["KNN (10)"]
    assert np.isfinite(tables["breakeven"].loc["micro", "KNN (10)"])
    assert "KNN \\(10\\)" in R.markdown(result)  # Markdown-escaped
    assert "KNN (10)" in R.build_report(result)


def test_hier_nb_runs_through_a_manifest_into_the_report(tmp_path):
    from corpus_fixtures import write_corpus_folders

    from hbnlab.corpus import make_hierarchical_corpus

    root = write_corpus_folders(make_hierarchical_corpus(n_documents=300, random_state=2), tmp_path / "news")
    m = ExperimentManifest.from_dict({"name": "hierarchy", "corpus": {"kind": "path", "path": str(root)},
                                      "n_categories": 9, "n_features": 10,
                                      "classifiers": [{"name": "NB"}, {"name": "HIER-NB"}]})
    result = run_manifest(m, keep_models=True)
    tables = R.report_tables(result)
    assert result.classifiers == ["NB (10)", "HIER-NB (10)"]
    micro = tables["breakeven"].loc["micro"]
    assert micro["HIER-NB (10)"] > micro["NB (10)"]
    assert "HIER-NB (10)" in R.build_report(result) and "HIER-NB \\(10\\)" in R.markdown(result)
