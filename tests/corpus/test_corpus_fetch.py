"""fetch_reuters21578 against a local HTTP server on 127.0.0.1 serving tarballs built here."""
from __future__ import annotations

import functools
import hashlib
import io
import tarfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hbnlab.corpus import CorpusError, fetch_reuters21578
from hbnlab.corpus.fetch import (
    default_data_home,
    is_safe_member_name,
    read_checksums,
    shipped_checksums,
    verify_reuters_dir,
)
from hbnlab.corpus.reuters import REUTERS_FILES

FILES = {"reut2-000.sgm": b"<!DOCTYPE lewis>\nfirst fake file\n", "reut2-001.sgm": b"second fake file\n"}
SUMS = {n: hashlib.sha256(b).hexdigest() for n, b in FILES.items()}


def _tarball(entries, *, prefix="") -> bytes:
    """entries: list of (name, bytes) regular files, or (name, ('symlink'|'hardlink', target))."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in entries:
            info = tarfile.TarInfo(prefix + name)
            if isinstance(data, tuple):
                info.type = tarfile.SYMTYPE if data[0] == "symlink" else tarfile.LNKTYPE
                info.linkname = data[1]
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass


@pytest.fixture
def server(tmp_path):
    """Serve tmp_path/www on an ephemeral port; yields (base_url, www_dir, stop)."""
    www = tmp_path / "www"
    www.mkdir()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(www)))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    stopped = []

    def stop():
        if not stopped:
            httpd.shutdown()
            httpd.server_close()
            stopped.append(True)

    yield f"http://127.0.0.1:{httpd.server_address[1]}", www, stop
    stop()


def _serve(www: Path, name: str, data: bytes) -> str:
    (www / name).write_bytes(data)
    return name


def _leftovers(home: Path) -> list[str]:
    return sorted(p.name for p in home.iterdir()) if home.exists() else []


def test_download_verify_cache(server, tmp_path):
    base, www, stop = server
    _serve(www, "r.tar.gz", _tarball(list(FILES.items()) + [("README.txt", b"readme")]))
    home = tmp_path / "home"
    calls = []
    path = fetch_reuters21578(home, url=f"{base}/r.tar.gz", checksums=SUMS,
                              progress=lambda f, m: calls.append((f, m)))
    assert path == home / "reuters21578"
    assert {p.name: p.read_bytes() for p in path.iterdir() if p.suffix == ".sgm"} == FILES
    assert (path / "README.txt").read_bytes() == b"readme"    # the rest of the archive comes along
    assert _leftovers(home) == ["reuters21578"]                # temp folder and tarball removed
    fracs = [f for f, _ in calls]
    assert fracs == sorted(fracs) and fracs[-1] == 1.0
    # A second call uses the cache: no network needed any more.
    stop()
    assert fetch_reuters21578(home, url=f"{base}/r.tar.gz", checksums=SUMS) == path


def test_archive_with_a_top_level_folder(server, tmp_path):
    base, www, _ = server
    _serve(www, "r.tar.gz", _tarball(list(FILES.items()), prefix="reuters21578/"))
    path = fetch_reuters21578(tmp_path / "h", url=f"{base}/r.tar.gz", checksums=SUMS)
    assert sorted(p.name for p in path.iterdir()) == sorted(FILES)


def test_checksum_file_path(server, tmp_path):
    base, www, _ = server
    _serve(www, "r.tar.gz", _tarball(list(FILES.items())))
    sums = tmp_path / "sums.sha256"
    sums.write_text("".join(f"{h}  {n}\n" for n, h in SUMS.items()))
    assert read_checksums(sums) == SUMS
    assert fetch_reuters21578(tmp_path / "h", url=f"{base}/r.tar.gz", checksums=sums).is_dir()


def test_checksum_mismatch_names_the_file_and_keeps_no_cache(server, tmp_path):
    base, www, _ = server
    bad = dict(FILES, **{"reut2-001.sgm": b"tampered\n"})
    _serve(www, "r.tar.gz", _tarball(list(bad.items())))
    home = tmp_path / "home"
    with pytest.raises(CorpusError, match=r"reut2-001\.sgm: SHA-256 mismatch") as exc:
        fetch_reuters21578(home, url=f"{base}/r.tar.gz", checksums=SUMS)
    assert f"{base}/r.tar.gz" in str(exc.value)
    assert _leftovers(home) == []


def test_missing_file_in_archive(server, tmp_path):
    base, www, _ = server
    _serve(www, "r.tar.gz", _tarball([("reut2-000.sgm", FILES["reut2-000.sgm"])]))
    with pytest.raises(CorpusError, match=r"missing 1 of the 2 .*reut2-001\.sgm"):
        fetch_reuters21578(tmp_path / "h", url=f"{base}/r.tar.gz", checksums=SUMS)


def test_http_404_names_the_url(server, tmp_path):
    base, _, _ = server
    url = f"{base}/nothing-here.tar.gz"
    with pytest.raises(CorpusError, match=r"could not download .*nothing-here\.tar\.gz: HTTP 404"):
        fetch_reuters21578(tmp_path / "h", url=url, checksums=SUMS)
    assert _leftovers(tmp_path / "h") == []


def test_connection_refused_names_the_url(server, tmp_path):
    base, www, stop = server
    stop()  # nothing listens on that port any more
    with pytest.raises(CorpusError, match=r"could not download http://127\.0\.0\.1:\d+/r\.tar\.gz"):
        fetch_reuters21578(tmp_path / "h", url=f"{base}/r.tar.gz", checksums=SUMS, timeout=5)


def test_not_a_tarball(server, tmp_path):
    base, www, _ = server
    _serve(www, "r.tar.gz", b"this is not gzip data at all")
    with pytest.raises(CorpusError, match=r"r\.tar\.gz: not a readable tar\.gz archive"):
        fetch_reuters21578(tmp_path / "h", url=f"{base}/r.tar.gz", checksums=SUMS)
    assert _leftovers(tmp_path / "h") == []


@pytest.mark.parametrize(
    "entries, message",
    [
        ([("../escape.sgm", b"x")], r"member '\.\./escape\.sgm' escapes the extraction folder"),
        ([("/abs/reut2-000.sgm", b"x")], r"member '/abs/reut2-000\.sgm' escapes"),
        ([("sub/../../up.sgm", b"x")], r"escapes the extraction folder"),
        ([("link.sgm", ("symlink", "/etc/passwd"))], r"member 'link\.sgm' is a link"),
        ([("hard.sgm", ("hardlink", "reut2-000.sgm"))], r"member 'hard\.sgm' is a link"),
    ],
)
def test_unsafe_archives_are_refused(server, tmp_path, entries, message):
    base, www, _ = server
    _serve(www, "r.tar.gz", _tarball(list(FILES.items()) + entries))
    home = tmp_path / "home"
    with pytest.raises(CorpusError, match=message):
        fetch_reuters21578(home, url=f"{base}/r.tar.gz", checksums=SUMS)
    assert _leftovers(home) == []
    assert not (tmp_path / "escape.sgm").exists() and not (home.parent / "up.sgm").exists()


def test_no_download_when_not_allowed(tmp_path):
    with pytest.raises(CorpusError, match="download_if_missing=False"):
        fetch_reuters21578(tmp_path / "h", download_if_missing=False, checksums=SUMS)


def test_corrupt_cache_is_reported_not_silently_replaced(tmp_path):
    cache = tmp_path / "h" / "reuters21578"
    cache.mkdir(parents=True)
    for n, b in FILES.items():
        (cache / n).write_bytes(b)
    (cache / "reut2-000.sgm").write_bytes(b"changed")
    with pytest.raises(CorpusError, match=r"cached copy is not valid: .*reut2-000\.sgm: SHA-256 mismatch.*delete"):
        fetch_reuters21578(tmp_path / "h", checksums=SUMS)
    assert (cache / "reut2-000.sgm").read_bytes() == b"changed"


def test_source_dir(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for n, b in FILES.items():
        (src / n).write_bytes(b)
    assert fetch_reuters21578(source_dir=src, checksums=SUMS) == src
    (src / "reut2-001.sgm").unlink()
    with pytest.raises(CorpusError, match=r"missing 1 of the 2 Reuters-21578 files: reut2-001\.sgm"):
        fetch_reuters21578(source_dir=src, checksums=SUMS)
    with pytest.raises(CorpusError, match="not a directory"):
        verify_reuters_dir(tmp_path / "absent", SUMS)


def test_data_home_default(monkeypatch, tmp_path):
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path / "dh"))
    assert default_data_home() == tmp_path / "dh"
    cache = tmp_path / "dh" / "reuters21578"
    cache.mkdir(parents=True)
    for n, b in FILES.items():
        (cache / n).write_bytes(b)
    assert fetch_reuters21578(checksums=SUMS) == cache
    monkeypatch.delenv("HBNLAB_DATA_HOME")
    assert default_data_home() == Path.home() / ".cache" / "hbnlab"


def test_shipped_checksums_cover_exactly_the_22_files():
    sums = shipped_checksums()
    assert sorted(sums) == list(REUTERS_FILES)
    assert all(len(h) == 64 and int(h, 16) >= 0 for h in sums.values())


@pytest.mark.parametrize("name, ok", [
    ("a/b.sgm", True), ("./a.sgm", True), ("a..b.sgm", True),
    ("../a", False), ("/a", False), ("\\a", False), ("C:a", False), ("a/../../b", False), ("a\\..\\b", False),
    ("", False),
])
def test_is_safe_member_name(name, ok):
    assert is_safe_member_name(name) is ok
