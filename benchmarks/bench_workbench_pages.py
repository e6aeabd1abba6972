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

With ``--upload FILE`` (an analyst's own corpus: a table or a ZIP; the newsgroup-sized one of issue 29
is made by ``--make-upload DIR``), instead: one app, a fresh data home; the Corpus page's upload timed
from the file given to the uploader to the corpus summary shown (the isolated parse -- the only
one: the server reads the corpus it hands back --, the store, the overview); Features' first open,
its Apply with every class, a class change (half of them) and back, and a revisit of Features from
Training (each should answer within 2 s: the term index is kept per indexing); the first load of
Training and of Tuning; a training job (NB and HBN-OR, 8 restarts, every class) and then the first
open of Compare (its paired bootstrap included), of Export and of Explain.

Page times run from the click to the end of the page's script run.
Screenshots go to ``--shots``.  Needs the e2e helpers of ``tests/e2e/test_workbench_e2e.py``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from test_workbench_e2e import (  # noqa: E402
    SCRIPT_DONE,
    _idle,
    _nav,
    open_page,
    streamlit_server,
    timed_nav,
    timed_slider_redraw,
    train_from_form,
    upload_form,
    wait_job,
)
from test_workbench_round2_e2e import PAGES  # noqa: E402

from hbnlab.experiments.provenance import stamp, start_run  # noqa: E402


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


def make_upload(folder: Path, n_documents: int = 18_800, n_cp1252: int = 1_000) -> Path:
    """A ZIP in the 20 Newsgroups layout (``20news-bydate-train/<class>/<id>`` and ``-test``): the
    realistic synthetic text of ``benchmarks/bench_scale.py`` (20 classes), each message with a
    header block, ``n_cp1252`` of them encoded in cp1252 with accented words (encoding detection
    at work)."""
    import csv
    import zipfile

    from bench_scale import realistic_corpus

    folder.mkdir(parents=True, exist_ok=True)
    table = folder / f"news{n_documents}.csv"
    realistic_corpus(n_documents, table, random_state=0)
    out = folder / f"news{n_documents}.zip"
    with open(table, newline="") as fh, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for k, row in enumerate(csv.DictReader(fh)):
            split = "20news-bydate-train" if row["split"] == "train" else "20news-bydate-test"
            text = f"From: poster{k % 997}@host.example\nSubject: re: {row['labels']}\n\n{row['text']}\n"
            data = (text + " café déjà vu\n").encode("cp1252") if k < n_cp1252 else text.encode("utf-8")
            z.writestr(f"{split}/{row['labels']}/{row['id']}", data)
    return out


def upload_day(page, url: str, home: Path, upload: Path, shots: Path, n_classes: int) -> dict:
    """The analyst's corpus through the pages (module docstring); seconds per step."""
    res: dict = {}
    uploader = upload_form(page, url)
    t0 = time.monotonic()
    uploader.set_input_files(str(upload))
    bar = page.locator('[data-testid="stProgress"]')
    try:  # the parse's progress bar, caught moving (a screenshot of it)
        bar.first.wait_for(timeout=20_000)
        page.wait_for_timeout(300)
        res["progress_bar_text"] = page.locator('[data-testid="stProgress"]').first.inner_text()
        _shot(page, shots, "u00_upload_progress")
    except Exception:  # noqa: BLE001 - playwright's TimeoutError: the parse ended before a bar was seen
        res["progress_bar_text"] = ""
    page.get_by_text(re.compile(r"^split: (?!a column)")).wait_for(timeout=600_000)  # not the columns' help
    page.wait_for_function(SCRIPT_DONE, polling=50, timeout=600_000)
    res["upload_parsed"] = time.monotonic() - t0
    _idle(page)
    _shot(page, shots, "u01_corpus_uploaded")
    res["features_first_open"] = timed_nav(page, "Features")
    page.get_by_label("Most frequent").fill(str(n_classes))
    t0 = time.monotonic()
    page.get_by_role("button", name="Apply").click()
    page.wait_for_timeout(300)
    page.wait_for_function(SCRIPT_DONE, polling=50, timeout=600_000)
    res["features_apply_all_classes"] = time.monotonic() - t0
    _idle(page)
    _shot(page, shots, "u02_features_all_classes")
    classes = page.locator('[data-testid="stMetric"]', has_text="classes")
    for n, name in ((max(2, n_classes // 2), "features_class_change"), (n_classes, "features_class_change_back")):
        field = page.get_by_label("Most frequent")
        for _ in range(5):  # a fragment's redraw (the sidebar's job count) can drop a value typed meanwhile
            field.fill(str(n))
            _idle(page)
            if field.input_value() == str(n):
                break
        t0 = time.monotonic()
        page.get_by_role("button", name="Apply").click()
        page.wait_for_timeout(300)
        page.wait_for_function(SCRIPT_DONE, polling=50, timeout=600_000)
        # the page shows n classes (the metric's text content: "classes<n>")
        classes.filter(has_text=re.compile(rf"(?<!\d){n}\s*$")).wait_for(timeout=600_000)
        res[name] = time.monotonic() - t0
        _idle(page)
        _shot(page, shots, f"u02_{name}")
    res["training_first_open"] = timed_nav(page, "Training")
    res["features_revisit"] = timed_nav(page, "Features")
    _shot(page, shots, "u03_training")
    res["tuning_first_open"] = timed_nav(page, "Tuning")
    _shot(page, shots, "u04_tuning")
    _nav(page, "Training")
    t0 = time.monotonic()
    train_from_form(page, 8, 1)
    rec = wait_job(home, 1, timeout=1800)
    if rec.state != "done":
        raise SystemExit(f"the training job ended {rec.state}: {rec.error}")
    res["training_job_nb_hbn_or"] = time.monotonic() - t0
    res["compare_first_open"] = timed_nav(page, "Compare")
    _shot(page, shots, "u05_compare")
    res["compare_second_open"] = (timed_nav(page, "Training"), timed_nav(page, "Compare"))[1]
    res["export_first_open"] = timed_nav(page, "Export")
    _shot(page, shots, "u06_export")
    res["explain_first_open"] = timed_nav(page, "Explain")
    return res


def run_upload(upload: Path, shots: Path, n_classes: int) -> dict:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        home = Path(tmp) / "home"
        with streamlit_server(home, Path(tmp) / "app.log") as url:
            browser, page = open_page(pw, height=1800, timeout=300_000)
            try:
                return upload_day(page, url, home, upload, shots, n_classes)
            finally:
                browser.close()


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
    ap.add_argument("--upload", help="a table or ZIP: time an analyst's corpus through the pages instead")
    ap.add_argument("--classes", type=int, default=20, help="with --upload: Features' most frequent N (all)")
    ap.add_argument("--make-upload", metavar="DIR", help="write the newsgroup-sized ZIP into DIR and exit")
    args = ap.parse_args(argv)
    prov = start_run()
    if args.make_upload:
        print(f"wrote {make_upload(Path(args.make_upload))}")
        return
    if args.upload:
        res = run_upload(Path(args.upload), Path(args.shots), args.classes)
        print(f"{Path(args.upload).name}, seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in res.items()
                                                                   if isinstance(v, float)))
        print(f"the upload's progress bar, as seen: {res['progress_bar_text']!r}")
        steps = ("features_class_change", "features_class_change_back", "features_revisit")
        print("a class change or a revisit within 2 s: "
              + ", ".join(f"{k} {'met' if res[k] <= 2.0 else 'NOT met'}" for k in steps))
        if args.json:
            Path(args.json).write_text(json.dumps(stamp(res, prov), indent=2))
        return
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
        Path(args.json).write_text(json.dumps(stamp(res, prov), indent=2))
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
