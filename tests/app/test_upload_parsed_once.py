"""An upload is parsed once: the isolated check hands its corpus back, the store keeps it as the
stored upload's, and that corpus is exactly what a parse of the stored file gives (the store
turned off), for a table with its own columns, a cp1252 table and a ZIP of folders."""
from __future__ import annotations

import io
import zipfile

import pytest

from hbnlab.pipeline import corpus_spec, store


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for k in range(30):
            z.writestr(f"news/{'train' if k % 4 else 'test'}/{'ab'[k % 2]}/m{k}",
                       f"From: x@y\n\nmessage {k} about {'wheat' if k % 2 else 'oil'}")
    return buf.getvalue()


CASES = [
    ("mine table.csv", "body,topic,part\n" + "".join(f"wheat grain {i},grain,{'train' if i % 3 else 'test'}\n"
                                                     f"oil crude {i},crude,train\n" for i in range(12)),
     {"text_column": "body", "labels_column": "topic", "split_column": "part"}),
    ("café.csv", ("text,labels\n" + "".join(f"déjà vu {i},a\nnaïve {i},b\n" for i in range(10))).encode("cp1252"), {}),
    ("news.zip", _zip(), {"encoding": "utf-8"}),
]


@pytest.mark.parametrize("name,data,options", CASES, ids=[c[0] for c in CASES])
def test_the_checked_corpus_is_the_stored_uploads_corpus(name, data, options, tmp_path, monkeypatch):
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path))
    monkeypatch.delenv(store.NO_CACHE_ENV, raising=False)
    from hbnlab.app import corpus_data

    data = data.encode() if isinstance(data, str) else data
    path = corpus_data.store_upload(data, name, options)
    spec = {"corpus": "upload", "upload_path": str(path), "options": options}
    parses = []
    real = corpus_spec.load_upload
    monkeypatch.setattr(corpus_spec, "load_upload", lambda *a, **k: parses.append(a[1]) or real(*a, **k))
    kept = corpus_spec.corpus_from_spec(spec)
    assert parses == []
    monkeypatch.setenv(store.NO_CACHE_ENV, "1")
    parsed = corpus_spec.corpus_from_spec(spec)
    assert parses == [path.name]
    assert kept == parsed and kept.name == parsed.name and kept.meta == parsed.meta
    assert kept.fingerprint() == parsed.fingerprint()
