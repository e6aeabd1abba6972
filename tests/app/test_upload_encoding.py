"""The Corpus page's upload with the Encoding field: a ZIP of files in four encodings loads with
"auto" and shows the encoding report; a named encoding that fails says which field to change."""
from __future__ import annotations

from app_testutil import frame_with, no_exceptions, open_upload_form, texts
from corpus_fixtures import corpus_files, zip_bytes


def test_upload_with_encoding_auto_reads_every_file_and_reports_the_encodings(app):
    gen = corpus_files(n_classes=3, docs_per_class=4)
    # bytes no rule reads (0x81 is undefined in cp1252 and the detector finds nothing)
    files = {**gen.files, "train/class00/99999": b"text words here and there \x81\x00\xff\xfe garbage"}
    open_upload_form(app)
    assert app.selectbox(key="upload_encoding").value == "auto"
    app.file_uploader(key="corpus_upload").upload("mixed.zip", zip_bytes(files, "mixed/"), "application/zip").run()
    no_exceptions(app)
    assert not app.error, [e.value for e in app.error]
    assert [m.value for m in app.metric] == ["13", "10", "3", "3"]
    report = frame_with(app, "codec", "files")
    assert dict(zip(report["codec"], report["files"])) == {"cp1252": 7, "utf-16": 3, "utf-8": 3}
    assert frame_with(app, "file")["file"].tolist() == ["train/class00/99999"]
    assert any("U+FFFD" in w.value for w in app.warning)
    # the texts came through: a document with a character outside latin-1 is found by it
    app.text_input(key="doc_query").input("Ωmega").run()
    assert len(app.dataframe[-1].value) > 0


def test_a_named_encoding_that_fails_names_the_encoding_field(app):
    gen = corpus_files(n_classes=3, docs_per_class=4)
    open_upload_form(app)
    app.selectbox(key="upload_encoding").set_value("utf-8")
    app.file_uploader(key="corpus_upload").upload("mixed.zip", zip_bytes(gen.files, "mixed/"), "application/zip").run()
    no_exceptions(app)
    errors = texts(app, "error")
    assert errors and "mixed.zip:mixed/" in errors[0], errors
    assert errors[0].endswith("; choose auto in the Encoding field") and "--encoding" not in errors[0]
    assert "encoding=" not in errors[0]


def test_upload_lists_where_bytes_were_replaced_and_the_binary_files_it_skipped(app):
    gen = corpus_files(n_classes=3, docs_per_class=4, encodings=("utf-8",))
    files = {**gen.files,
             # UTF-8 with one cp1252 apostrophe on line 2: UTF-8 with one U+FFFD, not a cp932 guess
             "train/class00/99998": "pétrole brut et café noir\n".encode() * 1 + b"l\x92huile\n"
             + "crème brûlée à volonté\n".encode() * 20,
             "train/class01/photo.jpg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(256)) * 4}
    open_upload_form(app)
    app.file_uploader(key="corpus_upload").upload("mixed.zip", zip_bytes(files, "mixed/"), "application/zip").run()
    no_exceptions(app)
    assert not app.error, [e.value for e in app.error]
    assert [m.value for m in app.metric][0] == str(len(gen.files) + 1)
    replaced = frame_with(app, "file", "codec", "sequences", "where")
    assert replaced.to_dict("records") == [{"file": "train/class00/99998", "codec": "utf-8", "sequences": 1,
                                            "where": "line 2, byte offset 29 (92)"}]
    skipped = frame_with(app, "file", "reason")
    assert skipped["file"].tolist() == ["train/class01/photo.jpg"]
    assert skipped["reason"].iloc[0].startswith("binary data, not text: a JPEG image")
    assert any("not tokenised" in w.value for w in app.warning)
    app.text_input(key="doc_query").input("huile").run()
    preview = app.dataframe[-1].value["preview"].tolist()
    assert len(preview) == 1 and preview[0].startswith("pétrole brut et café noir l\ufffdhuile crème brûlée")
