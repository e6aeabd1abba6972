"""The workbench in a real browser, round 3 (issue 31):

1. no request leaves this machine: the favicon is the shipped SVG, inline (a data: URL);
2. Enter in the Training form's "EM restarts" field starts no job; the Train click starts one;
3. Export offers the trained HBN model as BIF / XMLBIF / HUGIN files.
Screenshot: test-output/e2e/round3-export.png."""
from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from test_workbench_e2e import _idle, _nav, _shot, open_page, wait_job

pytestmark = pytest.mark.e2e


def test_offline_icon_enter_submits_nothing_and_network_downloads(server):
    from playwright.sync_api import sync_playwright

    from hbnlab.jobs.registry import RunRegistry

    url, home = server
    with sync_playwright() as pw:
        browser, page = open_page(pw, height=1600, timeout=120_000)
        hosts = set()
        page.on("request", lambda r: hosts.add(urlparse(r.url).hostname or r.url.split(":", 1)[0]))
        page.goto(url)
        page.get_by_role("button", name="Start with the synthetic corpus").click()
        page.get_by_role("heading", name="Corpus").first.wait_for()
        _idle(page)
        icon = page.locator('link[rel*="icon"]').first.get_attribute("href")
        assert icon and icon.startswith("data:image/svg+xml;base64,"), (icon or "")[:80]

        _nav(page, "Training")
        field = page.get_by_label("EM restarts (thesis: 64)")
        field.fill("2")
        field.press("Enter")
        _idle(page)
        page.wait_for_timeout(1500)
        assert RunRegistry(home / "runs").list() == [], "Enter in a number field submitted the form"
        page.get_by_role("button", name="Train", exact=True).click()
        page.get_by_text(re.compile(r"Submitted training job #1|Job #1 finished")).wait_for()
        rec = wait_job(home, 1, timeout=600)
        assert rec.state == "done", rec.error
        assert rec.spec.params["config"]["n_restarts"] == 2

        _nav(page, "Export")
        page.get_by_text("Download the model").first.wait_for()
        assert page.get_by_role("combobox", name="Model").input_value() == "alpha · HBN-OR"
        for title in ("BIF", "XMLBIF", "HUGIN .net"):
            page.get_by_role("button", name=f"Bayesian network ({title})").wait_for()
        _shot(page, "round3-export")
        assert hosts <= {"127.0.0.1", "data", "blob"}, f"requests left this machine: {sorted(hosts)}"
        browser.close()


#: The scroll width and the visible width of the first data frame of the page (Glide's scroller).
FRAME_WIDTHS = """() => { const sc = document.querySelector('[data-testid="stDataFrame"] .dvn-scroller');
  return sc ? [sc.scrollWidth, sc.clientWidth] : null; }"""


def test_the_features_table_shows_its_last_column(server):
    """Issue 31: the Features table's last column (P(t | not c)) was cut off beside the chart; its
    columns now fit the table's box on a laptop-sized window (1400 and 1280 px wide)."""
    from playwright.sync_api import sync_playwright
    from test_workbench_e2e import _rendered

    url, _ = server
    widths = {}
    with sync_playwright() as pw:
        browser, page = open_page(pw, width=1400, height=1200, timeout=120_000)
        page.goto(url)
        page.get_by_role("heading", name="hbnlab workbench").wait_for()
        _idle(page)
        _nav(page, "Features")
        _rendered(page, frames=1)
        for width in (1400, 1280):
            page.set_viewport_size({"width": width, "height": 1200})
            page.wait_for_timeout(800)  # the grid lays its columns out again
            page.wait_for_function(f"() => ({FRAME_WIDTHS})() !== null")
            widths[width] = page.evaluate(FRAME_WIDTHS)
            _shot(page, f"round3-features-{width}")
        browser.close()
    for width, (scroll, visible) in widths.items():
        assert scroll <= visible, f"at {width} px the table is {scroll} px wide in a {visible} px box"
