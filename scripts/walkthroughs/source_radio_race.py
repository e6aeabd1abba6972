"""Quick clicks on the Corpus page's Source radio while the sidebar's job count refreshes itself.

A job queued for a backend nobody serves keeps the sidebar's fragment on its 2-second refresh (the
busiest it gets); ``--busy N`` loops load N cores.  Each round clicks 2-4 sources in a row with
0-400 ms between the clicks, lets the page settle, then checks that the page shows the form of the
source the radio shows (upload field, "Load Reuters-21578" button or the generator's seed).  A
mismatch saves a screenshot ``radio_bad_<round>.png`` in ``--shots``.

Usage (from the repository root)::

    .venv/bin/python scripts/walkthroughs/source_radio_race.py [--rounds 25] [--seed 1] [--busy 1]
"""
from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from test_workbench_e2e import _idle, _nav, open_page, streamlit_server  # noqa: E402

SOURCES = ["Upload a file", "Reuters-21578 ModApte", "Synthetic (embedded generator)"]
CHECKED = ("() => { const i = document.querySelector('[data-testid=\"stRadio\"] input:checked');"
           " return i ? i.closest('label').innerText.trim() : null; }")


def shown_form(page) -> str:
    if page.locator('[data-testid="stFileUploaderDropzoneInput"]').count():
        return SOURCES[0]
    if page.get_by_role("button", name="Load Reuters-21578").count():
        return SOURCES[1]
    return SOURCES[2] if page.get_by_label("Generator seed").count() else "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=25)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--busy", type=int, default=1)
    ap.add_argument("--shots", default="/tmp")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from hbnlab.app.job_client import JOB_GROUP
    from hbnlab.jobs.registry import RunRegistry
    from hbnlab.jobs.spec import JobSpec

    rng = random.Random(args.seed)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    bad = 0
    try:
        with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
            home = Path(tmp) / "home"
            with streamlit_server(home, Path(tmp) / "app.log") as url:
                RunRegistry(home / "runs").submit(JobSpec("train", {}, label="held", group=JOB_GROUP),
                                                  backend="nobody")
                browser, page = open_page(pw, width=1400, height=1200, timeout=60_000)
                page.goto(url)
                page.get_by_role("heading", name="hbnlab workbench").wait_for()
                _idle(page)
                _nav(page, "Corpus")
                print("the sidebar counts the queued job:", "Background jobs" in page.locator("body").inner_text())
                for r in range(args.rounds):
                    for label in [rng.choice(SOURCES) for _ in range(rng.randint(2, 4))]:
                        page.get_by_text(label, exact=True).click()
                        page.wait_for_timeout(rng.randint(0, 400))
                    page.wait_for_timeout(2500)
                    _idle(page)
                    checked, shown = page.evaluate(CHECKED), shown_form(page)
                    if checked != shown:
                        bad += 1
                        page.screenshot(path=str(Path(args.shots) / f"radio_bad_{r}.png"))
                    print(f"round {r}: radio {checked!r}, page {shown!r}", "" if checked == shown else "MISMATCH")
                browser.close()
    finally:
        for b in busy:
            b.kill()
    print(f"mismatches: {bad} of {args.rounds} rounds")


if __name__ == "__main__":
    main()
