"""The Learn page's presentation mode in a real browser: opened from the URL (``?present=1``), the
arrow keys step forward and back, in a section chosen with its button too; a screenshot of each
(under ``$HBNLAB_SCREENSHOT_DIR`` if set, else the test's temporary directory)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from test_workbench_e2e import _idle, open_page, server  # noqa: F401 - server is a fixture

pytestmark = pytest.mark.e2e
CARD = re.compile(r"(Step|Iteration) (\d+) of")
#: the text of the visible step card
CARD_JS = ("() => { const el = [...document.querySelectorAll('[data-testid=\"stHtml\"]')]"
           ".find(e => e.offsetParent !== null && /(Step|Iteration) \\d+ of/.test(e.innerText));"
           " return el ? el.innerText : ''; }")


def _step(page) -> int:
    return int(CARD.search(page.evaluate(CARD_JS)).group(2))


def _press(page, key: str, expected: int) -> None:
    page.keyboard.press(key)
    page.wait_for_function(f"() => ({CARD_JS})().includes(' {expected} of')", timeout=30_000)
    _idle(page)


def test_presentation_mode_steps_with_the_arrow_keys(server, tmp_path):  # noqa: F811 - the imported fixture
    from playwright.sync_api import sync_playwright

    url, _ = server
    out = Path(os.environ.get("HBNLAB_SCREENSHOT_DIR") or tmp_path / "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser, page = open_page(pw, width=1920, height=1080)
        page.goto(f"{url}/learn?present=1")
        page.locator('[data-testid="stGraphVizChart"] svg').first.wait_for()
        _idle(page)
        assert _step(page) == 1
        # presentation mode: no sidebar, the node labels of the tree large
        assert not page.locator('[data-testid="stSidebar"]').is_visible()
        size = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector("
                             "'[data-testid=\"stGraphVizChart\"] svg text')).fontSize)")
        assert size >= 20, size
        page.screenshot(path=str(out / "learn_present_1.png"))

        page.mouse.click(5, 1075)  # the page, not a control, has the focus
        _press(page, "ArrowRight", 2)
        _press(page, "ArrowRight", 3)
        assert "Merge" in page.evaluate(CARD_JS)
        page.screenshot(path=str(out / "learn_present_3.png"))
        _press(page, "ArrowLeft", 2)

        # another section, chosen with its button: the arrows step there (from iteration 0)
        page.locator("button", has_text="2 · EM").click()
        page.wait_for_function(f"() => ({CARD_JS})().includes('Iteration 0 of')", timeout=30_000)
        _idle(page)
        _press(page, "ArrowRight", 1)
        page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for()
        page.screenshot(path=str(out / "learn_present_em.png"))
        assert "present=1" in page.url
        browser.close()
