"""The Learn page in a real browser: open it, click through a few steps of each section and take
a screenshot of each (under ``$HBNLAB_SCREENSHOT_DIR`` if set, else the test's temporary
directory)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from test_workbench_e2e import _idle, _rendered, open_page, server  # noqa: F401 - server is a fixture

pytestmark = pytest.mark.e2e
CARD = re.compile(r"(Step|Iteration) \d+ of")


@pytest.fixture
def shots(tmp_path) -> Path:
    out = Path(os.environ.get("HBNLAB_SCREENSHOT_DIR") or tmp_path / "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _visible_button(page, name):
    return page.locator("button:visible", has_text=name).first


def _card(page) -> str:
    return page.locator('[data-testid="stHtml"]:visible', has_text=CARD).first.inner_text()


def _next(page, times=1):
    for _ in range(times):
        before = _card(page)
        _visible_button(page, "Next").click()
        page.wait_for_function(
            "(old) => { const el = [...document.querySelectorAll('[data-testid=\"stHtml\"]')]"
            ".find(e => e.offsetParent !== null && /(Step|Iteration) \\d+ of/.test(e.innerText));"
            " return el && el.innerText !== old; }", arg=before, timeout=30_000)
        _idle(page)


def test_learn_page_in_a_real_browser(server, shots):  # noqa: F811 - the imported fixture
    from playwright.sync_api import sync_playwright

    url, _ = server
    with sync_playwright() as pw:
        browser, page = open_page(pw, width=1500, height=1900)
        page.goto(url)
        page.get_by_role("heading", name="hbnlab workbench").wait_for()
        _idle(page)
        page.locator('[data-testid="stSidebarNav"] a', has_text="Learn").first.click()
        page.get_by_role("heading", name="Learn").first.wait_for()
        _idle(page)
        page.locator('[data-testid="stGraphVizChart"] svg').first.wait_for()
        assert "Step 1 of" in _card(page)
        page.screenshot(path=str(shots / "learn_01_clustering_start.png"), full_page=True)

        # (a) clustering: the first merges, with their InfoLoss matrices
        _next(page, 2)
        assert "Merge" in _card(page)
        page.wait_for_timeout(1200)  # d3-graphviz animates the redraw
        page.screenshot(path=str(shots / "learn_02_clustering_merge.png"), full_page=True)

        # DEP: a move of ImproveClustering
        page.get_by_role("combobox").first.click()
        page.get_by_role("option", name="DEP").click()
        _idle(page)
        page.wait_for_function("() => document.body.innerText.includes('fig. 3.11')", timeout=30_000)
        for _ in range(8):
            if "Move " in _card(page):
                break
            _next(page)
        assert "Move " in _card(page), _card(page)
        page.wait_for_timeout(1200)
        page.screenshot(path=str(shots / "learn_03_dep_improve_clustering.png"), full_page=True)

        # (b) EM: a few iterations, the restarts' chart
        page.get_by_role("tab", name="2 · EM").click()
        _idle(page)
        _next(page, 3)
        _rendered(page, plots=1)
        assert "iteration 3:" in _card(page)
        page.screenshot(path=str(shots / "learn_04_em_iteration3.png"), full_page=True)

        # (c) inference: messages node by node, then the class posterior
        page.get_by_role("tab", name="3 · Inference").click()
        _idle(page)
        _next(page, 2)
        page.wait_for_timeout(1200)
        page.screenshot(path=str(shots / "learn_05_inference_messages.png"), full_page=True)
        for _ in range(12):
            if "Class posterior" in _card(page):
                break
            _next(page)
        assert "Class posterior" in _card(page)
        page.wait_for_timeout(1200)
        page.screenshot(path=str(shots / "learn_06_inference_posterior.png"), full_page=True)

        # the same for an HNB: lambda messages up, posteriors of the hidden nodes down
        page.get_by_text("HNB", exact=True).click()
        _idle(page)
        page.wait_for_function("() => document.body.innerText.includes('lambda message')", timeout=30_000)
        for _ in range(20):
            if "Downward" in _card(page):
                break
            _next(page)
        assert "Downward" in _card(page)
        page.wait_for_timeout(1200)
        page.screenshot(path=str(shots / "learn_07_hnb_downward.png"), full_page=True)
        browser.close()
