"""The workbench in a real browser: Playwright driving Debian's chromium against `streamlit run app.py`.

Steps (a screenshot of each under test-output/e2e/): home -> start with the synthetic corpus ->
structure (move the B slider, the tree changes) -> train (a background job, watched to the
end) -> explain a document -> export (download the report and a CSV).
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test-output" / "e2e"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(home: Path, log_path: Path):
    """``streamlit run app.py`` on a free port of 127.0.0.1 with the data home ``home`` (its output
    in ``log_path``); yields the URL once the server answers, stops it after."""
    port = _free_port()
    env = {**os.environ, "HBNLAB_DATA_HOME": str(home), "PYTHONPATH": str(ROOT)}
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            log.close()
            raise RuntimeError(f"streamlit did not start: {log_path.read_text()[-3000:]}")
        time.sleep(0.3)
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture
def server(tmp_path):
    with streamlit_server(tmp_path / "home", tmp_path / "streamlit.log") as url:
        yield url, tmp_path / "home"


def _shot(page, name):
    OUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUT / f"{name}.png"), full_page=True)


#: True once the app's script run is over: Streamlit marks its root element with the run's state
#: (the status widget, by contrast, shows "Running" only after a delay, so a short check of it can
#: pass while a page is still loading its data).
SCRIPT_DONE = ("() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
               " return a && a.getAttribute('data-test-script-state') === 'notRunning'; }")


def _idle(page, timeout=60_000):
    """Wait until Streamlit has finished the current run (the app's script state, and its status
    widget no longer offering "Stop") and the charts have been drawn."""
    page.wait_for_timeout(400)
    page.wait_for_function(SCRIPT_DONE, timeout=timeout, polling=50)
    page.wait_for_function(
        "() => { const w = document.querySelector('[data-testid=\"stStatusWidget\"]');"
        " return !w || !(w.innerText.includes('Stop') || w.innerText.includes('Running')); }",
        timeout=timeout)
    page.wait_for_timeout(800)


def _rendered(page, plots: int = 0, frames: int = 0, timeout=30_000):
    """Wait until ``plots`` plotly charts and ``frames`` data frames have been drawn (Streamlit
    shows skeletons while their JavaScript loads)."""
    page.wait_for_function(
        "([p, f]) => document.querySelectorAll('[data-testid=\"stPlotlyChart\"] .main-svg').length >= p"
        " && document.querySelectorAll('[data-testid=\"stDataFrame\"] canvas').length >= f",
        arg=[plots, frames], timeout=timeout)
    page.wait_for_timeout(500)


def _nav(page, title):
    """Open a page from the sidebar; a click that lands during a rerun of the page before (a job
    table refreshes every second) is repeated once."""
    link = page.locator('[data-testid="stSidebarNav"] a', has_text=title).first
    heading = page.get_by_role("heading", name=title).first
    link.click()
    try:
        heading.wait_for(timeout=30_000)
    except Exception:  # noqa: BLE001 - playwright's TimeoutError: click again, then fail for real
        link.click()
        heading.wait_for(timeout=120_000)
    _idle(page, timeout=120_000)


def timed_nav(page, title) -> float:
    """Seconds from a click on ``title`` in the sidebar to the end of that page's script run (its
    heading shown, then the app's script state back to not running); then waits for the page to
    settle."""
    t0 = time.monotonic()
    page.locator('[data-testid="stSidebarNav"] a', has_text=title).first.click()
    page.get_by_role("heading", name=title).first.wait_for()
    page.wait_for_function(SCRIPT_DONE, polling=50)
    seconds = time.monotonic() - t0
    _idle(page)
    return seconds


def timed_slider_redraw(page) -> float:
    """Seconds from one step left of the Structure page's first slider (B) to the redrawn tree."""
    before = _tree_svg(page)
    page.get_by_role("slider").first.focus()
    t0 = time.monotonic()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "(old) => { const s = document.querySelector('[data-testid=\"stGraphVizChart\"] svg');"
        " return s && s.innerHTML !== old; }", arg=before, timeout=60_000)
    return time.monotonic() - t0


def open_page(pw, *, width=1400, height=2000, timeout=60_000, downloads=False):
    """Debian's chromium with the project's flags and one page: ``(browser, page)``."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
    page = browser.new_page(viewport={"width": width, "height": height}, accept_downloads=downloads)
    page.set_default_timeout(timeout)
    return browser, page


def upload_form(page, url):
    """Open the app at ``url``, then the Corpus page's upload form (Source: Upload a file);
    returns the uploader's file input (``set_input_files`` uploads)."""
    page.goto(url)
    page.get_by_role("heading", name="hbnlab workbench").wait_for()
    _idle(page)
    _nav(page, "Corpus")
    page.get_by_text("Upload a file").click()
    _idle(page)
    return page.locator('[data-testid="stFileUploaderDropzoneInput"]')


def wait_job(home, job_id, timeout=300):
    """The record of job ``job_id`` of the data home ``home`` once it has finished."""
    from hbnlab.jobs.registry import RunRegistry

    reg = RunRegistry(home / "runs")
    deadline = time.monotonic() + timeout
    while True:
        rec = reg.get(job_id)
        if rec is not None and rec.state not in ("queued", "running"):
            return rec
        assert time.monotonic() < deadline, f"job {job_id} not finished after {timeout} s: {rec and rec.state}"
        time.sleep(0.25)


def train_from_form(page, restarts: int, job_id: int):
    """Submit the Training page's form with ``restarts`` EM restarts; waits for its message."""
    field = page.get_by_label("EM restarts (thesis: 64)")
    field.fill(str(restarts))
    field.press("Tab")
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text(re.compile(rf"Submitted training job #{job_id}|Job #{job_id} finished")).wait_for()


def _tree_svg(page) -> str:
    chart = page.locator('[data-testid="stGraphVizChart"] svg').first
    chart.wait_for(timeout=60_000)
    return chart.inner_html()


def test_workbench_in_a_real_browser(server):
    from playwright.sync_api import sync_playwright

    url, home = server
    with sync_playwright() as pw:
        browser, page = open_page(pw, downloads=True)
        page.goto(url)
        page.get_by_role("heading", name="hbnlab workbench").wait_for()
        _idle(page)
        _rendered(page, frames=0)
        _shot(page, "01_home")

        # 1. the synthetic corpus in one click
        page.get_by_role("button", name="Start with the synthetic corpus").click()
        page.get_by_role("heading", name="Corpus").first.wait_for()
        page.get_by_text("SYNTHETIC corpus", exact=False).first.wait_for()
        _idle(page)
        _rendered(page, plots=3, frames=2)
        _shot(page, "02_corpus_synthetic")

        # 2. the structure redraws as the B slider moves
        _nav(page, "Structure")
        before = _tree_svg(page)
        assert "alphaTOPIC" in before
        _shot(page, "03_structure_B9")
        slider = page.get_by_role("slider").first
        slider.focus()
        for _ in range(5):  # B 9 -> 4
            page.keyboard.press("ArrowLeft")
        _idle(page)
        page.wait_for_function(
            "(old) => { const s = document.querySelector('[data-testid=\"stGraphVizChart\"] svg');"
            " return s && s.innerHTML !== old; }", arg=before, timeout=30_000)
        page.wait_for_timeout(1500)  # d3-graphviz animates the change
        after = _tree_svg(page)
        assert after != before
        assert "B = 4" in page.locator("body").inner_text()
        _shot(page, "04_structure_B4")

        # 3. a background training job, watched to the end
        _nav(page, "Training")
        train_from_form(page, 12, 1)
        _shot(page, "05_training_submitted")
        from hbnlab.jobs.registry import RunRegistry

        reg = RunRegistry(home / "runs")
        deadline = time.monotonic() + 120
        while "iteration" not in (reg.get(1).progress or {}) and reg.get(1).state in ("queued", "running"):
            assert time.monotonic() < deadline, "the training job did not start"
            time.sleep(0.1)
        page.wait_for_timeout(2500)  # the job table and the live EM plot refresh every second
        _shot(page, "05b_training_running")
        rec = wait_job(home, 1, timeout=240)
        assert rec.state == "done", rec.error
        page.get_by_text("EM log-likelihood traces").wait_for()
        page.wait_for_timeout(2500)  # the job table fragment refreshes every second
        _idle(page)
        _rendered(page, plots=1, frames=2)
        _shot(page, "06_training_done")

        # 4. why did the model say alpha for this document?
        _nav(page, "Explain")
        page.get_by_text(re.compile(r"gives P\(alpha \| document\)")).first.wait_for()
        page.locator("mark").first.wait_for()
        _rendered(page, plots=1, frames=1)
        tree = _tree_svg(page)
        assert "P=" in tree
        page.wait_for_timeout(1000)
        _shot(page, "07_explain")
        page.locator('[data-testid="stGraphVizChart"]').first.screenshot(path=str(OUT / "07b_explain_tree.png"))

        # 5. evaluation and export
        _nav(page, "Evaluation")
        page.get_by_text("Breakeven (%)").first.wait_for()
        _rendered(page, plots=4, frames=2)
        _shot(page, "08_evaluation")
        _nav(page, "Export")
        with page.expect_download() as dl:
            page.get_by_role("button", name="Download the report (Markdown)").click()
        report = OUT / "report.md"
        dl.value.save_as(str(report))
        text = report.read_text("utf-8")
        assert "# hbnlab workbench report" in text and "SYNTHETIC corpus" in text and "| micro |" in text
        with page.expect_download() as dl:
            page.get_by_role("button", name="Download the report (HTML)").click()
        html = OUT / "report.html"
        dl.value.save_as(str(html))
        text = html.read_text("utf-8")
        assert text.startswith("<!DOCTYPE html>") and 'id="synthetic-badge"' in text and "<svg" in text
        with page.expect_download() as dl:
            page.get_by_role("button", name="breakeven.csv").click()
        csv = OUT / "breakeven.csv"
        dl.value.save_as(str(csv))
        assert csv.read_text("utf-8").splitlines()[0].startswith("class,")
        _shot(page, "09_export")
        browser.close()
