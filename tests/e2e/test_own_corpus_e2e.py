"""The workbench in a real browser on a user's own corpus: a ZIP of a 20-class folder corpus in
four encodings (no dates) uploaded with Encoding auto -> Features (chi-square scores read from the
table as text) -> Tuning -> Training -> Evaluation -> Export (eight downloads clicked 0.3 s apart
all arrive).  Screenshots go to test-output/e2e/own-*.png."""
from __future__ import annotations

import re
import time

import pytest
from corpus_fixtures import corpus_files, zip_bytes
from test_workbench_e2e import (
    OUT,
    _idle,
    _nav,
    _rendered,
    _shot,
    open_page,
    train_from_form,
    upload_form,
    wait_job,
)

pytestmark = pytest.mark.e2e
N_CLASSES = 20


def test_own_corpus_from_zip_upload_to_export(server, tmp_path):
    from playwright.sync_api import sync_playwright

    url, home = server
    archive = tmp_path / "news.zip"
    archive.write_bytes(zip_bytes(corpus_files(n_classes=N_CLASSES, docs_per_class=8, random_state=5).files,
                                  "news/"))
    with sync_playwright() as pw:
        browser, page = open_page(pw, downloads=True)
        # the upload, Encoding left at auto
        # the tree learners' tables by EM (?objective=joint): this walk is about the pages, and the EM fit
        # keeps its tuning grid of 20 classes within the jobs' deadline on a loaded machine
        upload_form(page, f"{url}/?objective=joint").set_input_files(str(archive))
        page.get_by_text("Encodings: 160 files, 0 with replacement characters").wait_for()
        _idle(page)
        page.get_by_text("Encodings: 160 files").click()
        _rendered(page, plots=3, frames=3)
        body = page.locator("body").inner_text()
        assert "news" in body and "error" not in body.lower().split("encodings")[0]
        _shot(page, "own-01_corpus_upload")

        # features: chi-square scores of every class; the cells read back as text, in full
        _nav(page, "Features")
        page.get_by_label("Most frequent").fill(str(N_CLASSES))
        page.locator('[data-testid="stSelectbox"]', has_text="Scoring").click()
        page.get_by_role("option").filter(has_text=re.compile("chi", re.I)).first.click()
        page.get_by_role("button", name="Apply").click()
        _idle(page)
        _rendered(page, plots=1, frames=1)
        _shot(page, "own-02_features_chi2")
        cells = page.locator('[data-testid="stDataFrame"] table [role="gridcell"], '
                             '[data-testid="stDataFrame"] table td').all_inner_texts()
        scores = [c for c in cells if c.replace(".", "", 1).isdigit() and "." in c]
        assert scores, "the table's cells are readable as text"
        print("features score cells:", scores[:6])

        # tuning on the stratified split: one B, two alphas, every class
        _nav(page, "Tuning")
        assert "stratified" in page.locator("body").inner_text()
        page.get_by_role("textbox", name="alpha values (comma separated)").fill("0, 0.1")
        page.get_by_role("button", name="Run the grid").click()
        page.get_by_text(re.compile(r"Submitted tuning job #1|Job #1 finished")).wait_for()
        tune = wait_job(home, 1)
        assert tune.state == "done", tune.error
        page.reload()
        page.get_by_role("heading", name="Tuning").first.wait_for()
        _idle(page)
        _rendered(page, plots=1)
        _shot(page, "own-03_tuning")

        # training and evaluation
        _nav(page, "Training")
        train_from_form(page, 2, 2)
        train = wait_job(home, 2)
        assert train.state == "done", train.error
        _nav(page, "Evaluation")
        page.get_by_text("Breakeven (%)").first.wait_for()
        _rendered(page, plots=2, frames=2)
        _shot(page, "own-04_evaluation")

        # eight downloads clicked 0.3 s apart: none is lost to a rerun
        _nav(page, "Export")
        page.get_by_role("button", name="Experiment settings (JSON)").wait_for()
        _idle(page)
        buttons = page.locator('[data-testid="stDownloadButton"] button')
        n = min(8, buttons.count())
        assert n == 8, f"the Export page offers {buttons.count()} downloads"
        got = []
        page.on("download", lambda d: got.append(d.suggested_filename))
        t0 = time.monotonic()
        for k in range(n):
            buttons.nth(k).click()
            page.wait_for_timeout(300)
        deadline = time.monotonic() + 30
        while len(got) < n and time.monotonic() < deadline:
            page.wait_for_timeout(200)
        print(f"{len(got)} of {n} downloads in {time.monotonic() - t0:.1f} s: {got}")
        assert len(got) == n and len(set(got)) == n
        _shot(page, "own-05_export")
        browser.close()
    assert OUT.exists()
