"""Hostile corpus data in a real browser: ids, titles and classes that are Markdown images and
HTML ``<img>`` tags pointing at a local HTTP server.  The Corpus page shows them as text and,
there and on the Features and Structure pages, the browser never fetches their URLs (the server on
127.0.0.1 records every request it gets)."""
from __future__ import annotations

import hashlib
import http.server
import shutil
import threading
import urllib.parse

import pytest
from test_workbench_e2e import FLAGS, _idle, _nav, _rendered, _shot

pytestmark = pytest.mark.e2e


class _Recorder(http.server.BaseHTTPRequestHandler):
    requests: list = []

    def do_GET(self):  # noqa: N802 - the http.server protocol
        type(self).requests.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def bait():
    """An HTTP server on 127.0.0.1 that records the paths requested from it."""
    _Recorder.requests = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", _Recorder.requests
    httpd.shutdown()
    httpd.server_close()


def _field(s: str) -> str:
    return '"' + s.replace('"', '""') + '"'


def hostile_upload(home, base: str):
    """A stored upload whose first document's id and class are Markdown images and whose titles
    are ``<img>`` tags, all pointing at ``base``; returns its path."""
    image_class = f"![c]({base}/class.png)"  # no white space, ',', ';' or '|': one label
    rows = ["id,title,text,labels,split"]
    for i in range(12):
        label, words = (image_class, "wheat grain harvest") if i % 2 == 0 else ("other", "oil crude barrel")
        rows.append(",".join(_field(v) for v in (
            f"![i]({base}/id{i}.png)", f'<img src="{base}/title{i}.png"> **bold** a|b',
            f"{words} {words} {i}", label, "test" if i >= 8 else "train")))
    data = ("\n".join(rows) + "\n").encode("utf-8")
    path = home / "uploads" / hashlib.sha256(data).hexdigest()[:16] / "hostile.csv"
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    return path


def test_hostile_corpus_data_is_never_fetched(server, bait):
    from playwright.sync_api import sync_playwright

    url, home = server
    base, requests = bait
    path = hostile_upload(home, base)
    query = urllib.parse.urlencode({"corpus": "upload", "upload_path": str(path), "upload_id_column": "id",
                                    "upload_title_column": "title", "upload_split_column": "split", "min_df": "1"})
    seen_by_browser = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 2000})
        page.set_default_timeout(60_000)
        page.on("request", lambda r: seen_by_browser.append(r.url) if r.url.startswith(base) else None)
        page.goto(f"{url}/?{query}")
        page.get_by_role("heading", name="hbnlab workbench").wait_for()
        _idle(page)
        _nav(page, "Corpus")
        _rendered(page, plots=3, frames=2)
        assert page.locator('[data-testid="stException"]').count() == 0, page.inner_text("body")[-2000:]
        text = page.inner_text("body").replace("\u2060", "")  # word joiners keep URLs from linking
        links = page.locator(f'a[href^="{base}"]').count()
        _shot(page, "hostile_corpus")
        for title, plots in (("Features", 1), ("Structure", 0)):  # class pickers, term charts, the tree
            _nav(page, title)
            _rendered(page, plots=plots)
            _shot(page, f"hostile_{title.lower()}")
            assert page.locator('[data-testid="stException"]').count() == 0, page.inner_text("body")[-2000:]
        browser.close()
    assert "Upload a file" in text and "outside the directories" not in text, text[:2000]
    assert seen_by_browser == [] and requests == [], (seen_by_browser, requests)
    assert links == 0  # no autolink to the server either
    assert f"![i]({base}/id0.png)" in text  # the document's id, shown as written
    assert f"labels: ![c]({base}/class.png)" in text
