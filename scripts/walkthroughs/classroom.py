"""A classroom run in Chromium at projector size (1280x720), the way a teacher would walk it.

Learn opened in presentation mode (``?present=1``): the arrow keys through the first clustering steps,
then the EM and Inference sections (each arrow must move one step); back to the normal page; the
Training page's "Quick demo" on Reuters to a finished job and "Use these settings" on it; Explain,
Structure and Evaluation.  Prints
what each arrow did and any error line on Evaluation; screenshots go to ``--shots`` (look at them).

Usage (from the repository root, after ``bash scripts/setup.sh --dev``)::

    HBNLAB_REUTERS_DIR=/path/to/reuters21578 .venv/bin/python scripts/walkthroughs/classroom.py [--shots DIR]
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from test_learn_present_e2e import CARD_JS, _press  # noqa: E402
from test_workbench_e2e import _idle, _nav, open_page, streamlit_server, wait_job  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shots", default="/tmp/class")
    out = Path(ap.parse_args().shots)
    out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    def shot(page, name):
        page.screenshot(path=str(out / f"{name}.png"))

    t_start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        home = Path(tmp) / "home"
        with streamlit_server(home, Path(tmp) / "app.log") as url:
            browser, page = open_page(pw, width=1280, height=720, timeout=120_000)
            page.goto(f"{url}/learn?present=1")
            page.locator('[data-testid="stGraphVizChart"] svg').first.wait_for()
            _idle(page)
            shot(page, "c01_learn_present")
            page.mouse.click(5, 715)  # the page, not a control, has the focus
            for k in range(2, 6):
                _press(page, "ArrowRight", k)
            shot(page, "c02_learn_step5")
            for label, name in (("2 · EM", "c03_em"), ("3 · ", "c04_inference")):
                page.locator("button", has_text=label).first.click()
                page.wait_for_timeout(1500)
                _idle(page)
                shot(page, name)
                page.mouse.click(5, 715)
                before = page.evaluate(CARD_JS).split("\n")[0]
                page.keyboard.press("ArrowRight")
                page.wait_for_timeout(1200)
                _idle(page)
                print(f"{name}: the arrow moved {before!r} -> {page.evaluate(CARD_JS).splitlines()[0]!r}")
                shot(page, name + "_next")
            page.goto(f"{url}/learn")
            _idle(page)
            shot(page, "c05_learn_normal")
            _nav(page, "Training")
            page.get_by_role("button", name="Quick demo").click()
            page.get_by_text(re.compile(r"Submitted job #1 \(Quick demo\)|Job #1 finished")).wait_for(timeout=300_000)
            rec = wait_job(home, 1, timeout=600)
            print("the quick demo job:", rec.state, rec.error or "")
            page.wait_for_timeout(2500)
            _idle(page)
            shot(page, "c06_training_demo")
            # the preset ran a job of its own and left the settings alone: take its settings for the
            # pages that follow (Structure draws the current settings' network)
            page.get_by_role("button", name="Use these settings").click()
            page.get_by_text(re.compile(r"Loaded the settings of job #1")).wait_for(timeout=60_000)
            _idle(page)
            for k, title in enumerate(("Explain", "Structure", "Evaluation"), 7):
                _nav(page, title)
                page.wait_for_timeout(1500)
                _idle(page)
                shot(page, f"c{k:02d}_{title.lower()}")
            body = page.locator("body").inner_text()
            print("error lines on Evaluation:", [line for line in body.splitlines() if "rror" in line][:5])
            browser.close()
    print(f"walk-through {time.monotonic() - t_start:.0f} s; screenshots in {out}")


if __name__ == "__main__":
    main()
