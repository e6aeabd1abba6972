"""Folder corpora never leave their folder (issue 30 item 7): a symbolic link leading outside it (to a
secret file, to /proc/self/environ, to /proc/self/pagemap), a link to a folder, a broken link, a FIFO,
a socket and a device are not read, and each is listed in ``meta['ignored_files']`` with its reason;
an error reading a file names the file."""
from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from hbnlab.corpus import CorpusError, read_folder_per_class
from hbnlab.corpus._common import (
    BROKEN_LINK,
    LINK_OUTSIDE,
    LINK_TO_FOLDER,
    read_regular_file,
    walk_regular_files,
)
from hbnlab.corpus.collections import read_20newsgroups

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symbolic links, FIFOs and sockets of POSIX")

SECRET = "topsecret password hunter two"


def _tree(root: Path) -> Path:
    for label, words in (("grain", "wheat harvest crop"), ("crude", "oil barrel opec")):
        for i in range(3):
            (root / label).mkdir(parents=True, exist_ok=True)
            (root / label / f"d{i}.txt").write_text(f"{words} day {i}\n")
    return root


def _hostile(root: Path, tmp_path: Path) -> dict:
    """Every kind of entry that is not a regular file inside the folder; ``{relative path: reason}``."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    (root / "grain" / "leak.txt").symlink_to(secret)
    (root / "grain" / "environ.txt").symlink_to("/proc/self/environ")
    (root / "grain" / "pagemap.txt").symlink_to("/proc/self/pagemap")
    (root / "grain" / "up.txt").symlink_to("../../secret.txt")            # relative, still outside
    (root / "grain" / "gone.txt").symlink_to(root / "grain" / "missing.txt")
    (root / "crude" / "outside_dir").symlink_to(tmp_path)
    os.mkfifo(root / "crude" / "pipe.txt")
    expected = {"grain/leak.txt": LINK_OUTSIDE, "grain/environ.txt": LINK_OUTSIDE, "grain/pagemap.txt": LINK_OUTSIDE,
                "grain/up.txt": LINK_OUTSIDE, "grain/gone.txt": BROKEN_LINK, "crude/outside_dir/": LINK_TO_FOLDER,
                "crude/pipe.txt": "a FIFO (named pipe), not a regular file"}
    sock_path = root / "crude" / "sock"
    if len(str(sock_path)) < 100:  # AF_UNIX paths are short
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(sock_path))
        s.close()
        expected["crude/sock"] = "a socket, not a regular file"
    try:
        os.mknod(root / "crude" / "null", 0o600 | 0o020000, os.makedev(1, 3))   # a character device
        expected["crude/null"] = "a character device, not a regular file"
    except (PermissionError, OSError):
        pass
    return expected


def test_links_out_of_the_folder_devices_fifos_and_sockets_are_listed_not_read(tmp_path):
    root = _tree(tmp_path / "corpus")
    expected = _hostile(root, tmp_path)
    (root / "crude" / "inside.txt").symlink_to(root / "crude" / "d0.txt")   # a link inside the folder: read
    corpus = read_folder_per_class(root)
    docs = [f"{c}/d{i}.txt" for c in ("grain", "crude") for i in range(3)] + ["crude/inside.txt"]
    assert sorted(d.id for d in corpus.documents) == sorted(docs)
    assert not any(SECRET in d.text or "PATH=" in d.text for d in corpus.documents)
    ignored = {f["file"]: f["reason"] for f in corpus.meta["ignored_files"]}
    assert ignored == expected


def test_20_newsgroups_keeps_the_same_rules(tmp_path):
    from collection_fixtures import make_20news_bydate

    root = make_20news_bydate(tmp_path / "news")
    group = root / "20news-bydate-train" / "sci.space"
    (tmp_path / "secret.txt").write_text(SECRET)
    (group / "900").symlink_to(tmp_path / "secret.txt")
    os.mkfifo(group / "901")
    corpus = read_20newsgroups(root)
    assert not any(SECRET in d.text for d in corpus.documents)
    ignored = {f["file"]: f["reason"] for f in corpus.meta["ignored_files"]}
    assert ignored["20news-bydate-train/sci.space/900"] == LINK_OUTSIDE
    assert ignored["20news-bydate-train/sci.space/901"] == "a FIFO (named pipe), not a regular file"


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="/proc/self/environ is a file of Linux's procfs; other systems have no such file")
def test_the_size_cap_counts_bytes_read_not_what_stat_says(tmp_path):
    # /proc/self/environ reports size 0; its bytes count against the limit all the same
    environ = Path("/proc/self/environ")
    assert len(environ.read_bytes()) >= 2  # the test process's environment is never empty
    assert environ.stat().st_size == 0
    with pytest.raises(CorpusError, match=r"/proc/self/environ: more than 1 bytes"):
        read_regular_file(environ, 1)


def test_an_error_reading_a_file_names_it(tmp_path):
    pagemap = Path("/proc/self/pagemap")
    if pagemap.exists():
        try:
            pagemap.read_bytes()
        except OSError:
            with pytest.raises(CorpusError, match=r"^/proc/self/pagemap: cannot read \("):
                read_regular_file(pagemap, None)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(CorpusError, match=r"fifo: a FIFO \(named pipe\), not a regular file; only regular files"):
        read_regular_file(tmp_path / "fifo", None)   # opened without blocking, refused once open
    with pytest.raises(CorpusError, match=r"nothing\.txt: cannot read \(No such file or directory\)"):
        read_regular_file(tmp_path / "nothing.txt", None)


def test_the_walk_never_enters_a_linked_folder(tmp_path):
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "a" / "x.txt").write_text("x")
    (root / "b").symlink_to(root / "a")          # inside, but a folder link: not entered (no double reading)
    (root / ".hidden").write_text("h")
    files, hidden, ignored = walk_regular_files(root, lambda n: n.startswith("."))
    assert [rel for rel, _ in files] == ["a/x.txt"]
    assert hidden == [".hidden"]
    assert ignored == [{"file": "b/", "reason": LINK_TO_FOLDER}]
