"""A link to a page (``/corpus?corpus=...``) opened as the first request of a fresh server shows the
app's grouped navigation and the page, not Streamlit's file-name sidebar; the sidebar's job count
follows a job to its end without a click.  Playwright with Debian's chromium (screenshots
test-output/e2e/deep-link*.png)."""
from __future__ import annotations

import pytest
from test_workbench_e2e import _idle, _shot, open_page, train_from_form, wait_job

pytestmark = pytest.mark.e2e


def test_a_deep_link_as_the_first_request_gets_the_app_navigation(server):
    from playwright.sync_api import sync_playwright

    url, _ = server
    with sync_playwright() as pw:
        browser, page = open_page(pw, height=900)
        page.goto(f"{url}/features?corpus=synthetic&n_features=20")
        page.get_by_role("heading", name="Features").first.wait_for(timeout=120_000)
        _idle(page, timeout=120_000)
        _shot(page, "deep-link")
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        # the app's titles and groups, none of the file names Streamlit would list on its own
        for text in ("Home", "Data", "Corpus", "Features", "Results", "Learn"):
            assert text in nav, nav
        lines = {line.strip() for line in nav.splitlines()}
        assert not lines & {"app", "corpus", "features", "tuning", "explain"}, nav
        assert page.url.startswith(f"{url}/features") and "n_features=20" in page.url
        # a second visitor on the same server gets the same
        page2 = browser.new_page(viewport={"width": 1400, "height": 900})
        page2.goto(f"{url}/tuning?corpus=synthetic")
        page2.get_by_role("heading", name="Tuning").first.wait_for(timeout=120_000)
        assert "Home" in page2.locator('[data-testid="stSidebarNav"]').inner_text()
        browser.close()


def test_the_sidebar_job_count_follows_a_job_without_a_click(server):
    from playwright.sync_api import sync_playwright

    url, home = server
    with sync_playwright() as pw:
        browser, page = open_page(pw, height=900)
        page.goto(f"{url}/training?corpus=synthetic")
        page.get_by_role("heading", name="Training").first.wait_for(timeout=120_000)
        _idle(page, timeout=120_000)
        train_from_form(page, restarts=64, job_id=1)
        sidebar = page.locator('[data-testid="stSidebar"]')
        sidebar.get_by_text("Background jobs:").wait_for(timeout=30_000)
        rec = wait_job(home, 1)
        assert rec.state == "done", rec.error
        # no interaction from here: the count disappears within a few refreshes
        page.wait_for_function(
            "() => !document.querySelector('[data-testid=\"stSidebar\"]').innerText.includes('Background jobs:')",
            timeout=15_000)
        _shot(page, "deep-link-jobs-done")
        browser.close()
