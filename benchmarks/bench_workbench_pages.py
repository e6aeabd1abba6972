"""The workbench's response times on Reuters-21578, in a real browser (Debian's chromium via Playwright).

Usage::

    HBNLAB_REUTERS_DIR=/path/to/reuters21578 python benchmarks/bench_workbench_pages.py [--shots /tmp/shots]
                                                                                         [--json OUT]

Two app processes (``streamlit run app.py`` on a free port) share one fresh data home:

1. the first app: the home page opened with ``?corpus=reuters``, then the Corpus page, with the
   store of prepared corpora empty (:mod:`hbnlab.pipeline.store`: the app parses Reuters); the
   "Quick demo" preset of the Training page timed from the click to the finished job (3 classes,
   HBN-OR + NB, 16 restarts, in a worker process); the first load of every page on Reuters, warm
   (the app process holds the corpus and the indexed data); the Structure page's redraw after one
   step of the B slider;
2. the second app (a new process, its workers new too): the home page and the Corpus page again,
   Reuters now read from the store, and the quick demo preset again.

Page times run from the click to the end of the page's script run.
Screenshots go to ``--shots``.  Needs the e2e helpers of ``tests/e2e/test_workbench_e2e.py``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from test_workbench_e2e import (  # noqa: E402
    _idle,
    _nav,
    open_page,
    streamlit_server,
    timed_nav,
    timed_slider_redraw,
    wait_job,
)
from test_workbench_round2_e2e import PAGES  # noqa: E402


def _shot(page, shots: Path, name: str) -> None:
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


def open_reuters(page, url: str) -> tuple[float, float]:
    """Seconds to load the home page with the config ``?corpus=reuters``, then seconds from a click
    on Corpus to the end of that page's run (Reuters parsed or read from the store)."""
    t0 = time.monotonic()
    page.goto(f"{url}/?corpus=reuters")
    page.get_by_role("heading", name="hbnlab workbench").wait_for()
    _idle(page)
    home = time.monotonic() - t0
    corpus = timed_nav(page, "Corpus")
    page.get_by_text("reuters21578-modapte").first.wait_for()
    return home, corpus


def quick_demo(page, home: Path, job_id: int) -> float:
    """Seconds from a click on the Training page's "Quick demo" to the finished job."""
    _nav(page, "Training")
    t0 = time.monotonic()
    page.get_by_role("button", name="Quick demo").click()
    page.get_by_text(f"Submitted job #{job_id} (Quick demo)").wait_for(timeout=300_000)
    rec = wait_job(home, job_id, timeout=900)
    seconds = time.monotonic() - t0
    if rec.state != "done":
        raise SystemExit(f"the quick demo job ended {rec.state}: {rec.error}")
    return seconds


def run(shots: Path) -> dict:
    from playwright.sync_api import sync_playwright

    res: dict = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        home = Path(tmp) / "home"
        with streamlit_server(home, Path(tmp) / "app1.log") as url:
            browser, page = open_page(pw, height=1800, timeout=300_000)
            res["home_page_first_app"], res["corpus_page_store_cold"] = open_reuters(page, url)
            _shot(page, shots, "01_corpus_reuters_store_cold")
            res["demo_seconds"] = quick_demo(page, home, 1)
            _idle(page)
            _shot(page, shots, "02_training_demo_done")
            res["first_load"] = {}
            for title in PAGES:
                res["first_load"][title] = timed_nav(page, title)
                _shot(page, shots, f"03_first_load_{title.lower()}")
            _nav(page, "Structure")
            res["structure_redraw"] = timed_slider_redraw(page)
            page.wait_for_timeout(1500)
            _shot(page, shots, "04_structure_after_slider")
            browser.close()
        with streamlit_server(home, Path(tmp) / "app2.log") as url:
            browser, page = open_page(pw, height=1800, timeout=300_000)
            res["home_page_second_app"], res["corpus_page_store_warm"] = open_reuters(page, url)
            _shot(page, shots, "05_corpus_reuters_store_warm")
            res["demo_seconds_app_restarted"] = quick_demo(page, home, 2)
            _shot(page, shots, "06_training_demo_again")
            browser.close()
    return res


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shots", default="/tmp/shots")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if not os.environ.get("HBNLAB_REUTERS_DIR"):
        raise SystemExit("set HBNLAB_REUTERS_DIR to the Reuters-21578 directory")
    res = run(Path(args.shots))
    print(f"quick demo preset, click to finished job: {res['demo_seconds']:.1f} s (first app); "
          f"{res['demo_seconds_app_restarted']:.1f} s (restarted app, store warm)")
    print("first load of each page on Reuters (warm), seconds: "
          + ", ".join(f"{k} {v:.2f}" for k, v in res["first_load"].items()))
    print(f"structure redraw after one B slider step on Reuters: {res['structure_redraw']:.2f} s")
    print(f"a new app process: home page {res['home_page_first_app']:.2f} s / {res['home_page_second_app']:.2f} s, "
          f"then the Corpus page on Reuters: store empty {res['corpus_page_store_cold']:.2f} s, store warm "
          f"{res['corpus_page_store_warm']:.2f} s")
    print(f"screenshots in {args.shots}")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2))
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
