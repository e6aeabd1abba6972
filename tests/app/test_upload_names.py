"""An upload keeps a readable name and its extension (issue 37 item 3): ``данные.csv`` was stored as
``csv`` and refused as "unsupported file type '(no extension)'", in a page error that showed the
server's data-home path.  Unicode letters stay, path separators and control characters do not, and
no page error shows a path of the server."""
from __future__ import annotations

import pytest
from app_testutil import no_exceptions, texts

from hbnlab.app import corpus_data, uploads

CSV = ("text,labels\n" + "".join(f"wheat grain harvest {i},grain\noil crude barrel {i},crude\n" for i in range(12))
       ).encode("utf-8")


@pytest.mark.parametrize("name, stored", [
    ("данные.csv", "данные.csv"), ("新闻.csv", "新闻.csv"), ("Ünïcödé notes.jsonl", "Ünïcödé_notes.jsonl"),
    ("हिन्दी.tsv", "हिन्दी.tsv"),  # combining vowel signs are part of the word
    ("../../etc/passwd.csv", "passwd.csv"), ("C:\\Users\\me\\данные.csv", "данные.csv"),
    ("a\x00b\nc\u202e.csv", "a_b_c.csv"), (".csv", "upload.csv"), ("...", "upload"), ("", "upload"),
    ("<img src=x onerror=alert(1)>.csv", "img_src_x_onerror_alert_1.csv"), ("report.tar.gz", "report.tar.gz"),
    ("e\u0301t\u00e9.csv", "\u00e9t\u00e9.csv"),  # NFC: one letter, as typed on another keyboard
])
def test_safe_file_name_keeps_the_extension_and_a_readable_name(name, stored):
    assert uploads.safe_file_name(name, "upload") == stored


def test_a_long_name_stays_within_a_file_name_and_keeps_its_extension():
    out = uploads.safe_file_name("新" * 300 + ".parquet", "upload")
    assert out.endswith(".parquet") and len(out.encode("utf-8")) <= 200


@pytest.mark.parametrize("name", ["данные.csv", "新闻.csv"])
def test_an_upload_with_a_non_latin_name_is_stored_and_read(name, data_home):
    from hbnlab.pipeline.config import ExperimentConfig

    path = corpus_data.store_upload(CSV, name, {})
    assert path.name == name and path.parent.parent == data_home / "uploads"
    corpus = corpus_data.load_corpus(ExperimentConfig(corpus="upload", upload_path=str(path)))
    assert len(corpus.train) + len(corpus.test) == 24


def test_a_page_error_about_a_stored_upload_shows_its_name_not_the_server_path(app, data_home):
    """An upload stored before this fix as ``.../uploads/<digest>/csv`` (its extension lost): the
    reader's error names the file, and the page shows it by its name."""
    legacy = data_home / "uploads" / "0123456789abcdef" / "csv"
    legacy.parent.mkdir(parents=True)
    legacy.write_bytes(CSV)
    app.query_params = {"corpus": "upload", "upload_path": str(legacy)}
    app.run()
    app.switch_page("pages/corpus.py").run()
    no_exceptions(app)
    errors = texts(app, "error")
    assert errors, "no error about the stored file without an extension"
    assert not any(str(data_home) in e or "uploads" in e for e in errors), errors
    assert any(e.startswith("csv: unsupported file type") for e in errors), errors


def test_hide_server_paths():
    home = corpus_data.data_home()
    stored = home / "uploads" / "0123456789abcdef" / "данные.csv"
    text = f"{stored}: line 3: column 'body' not found; also {home}/models/x.hbnlab"
    assert uploads.hide_server_paths(text) == "данные.csv: line 3: column 'body' not found; also models/x.hbnlab"
