"""The Reuters reader checks the local files against the shipped SHA-256 list and the ModApte counts."""
from __future__ import annotations

import os
import warnings
import zipfile

import pytest
from corpus_fakes import fake_reuters_records, write_fake_reuters

from hbnlab.cli.main import main
from hbnlab.corpus import CorpusError, load_reuters21578
from hbnlab.corpus.readers import read_zip
from hbnlab.corpus.reuters import ALLOW_MODIFIED_ENV, REUTERS_FILES

pytestmark = pytest.mark.slow


def _damaged_copy(src, tmp_path, damage: str):
    """Links to the real files, with reut2-000.sgm replaced by a damaged version."""
    root = tmp_path / "reuters"
    root.mkdir()
    for name in REUTERS_FILES[1:]:
        os.symlink(src / name, root / name)
    original = (src / REUTERS_FILES[0]).read_bytes()
    data = {"empty": b"",
            "random": bytes(range(256)) * 4096,
            "utf16": original.decode("latin-1").encode("utf-16"),
            "utf16be": original.decode("latin-1").encode("utf-16-be"),  # no byte-order mark
            "one-byte": original[:-2] + b"X" + original[-1:]}[damage]
    (root / REUTERS_FILES[0]).write_bytes(data)
    return root


@pytest.mark.parametrize("damage, what", [("empty", "the file is empty"),
                                          ("random", "no <REUTERS> record"),
                                          ("utf16", "UTF-16"),
                                          ("utf16be", "UTF-16"),
                                          ("one-byte", "damaged or modified")])
def test_damaged_file_is_an_error_naming_it(reuters_path, tmp_path, monkeypatch, damage, what):
    monkeypatch.delenv(ALLOW_MODIFIED_ENV, raising=False)
    root = _damaged_copy(reuters_path, tmp_path, damage)
    with pytest.raises(CorpusError, match=rf"reut2-000\.sgm: SHA-256 differs.*{what}.*--allow-modified-reuters"):
        load_reuters21578(root)


def test_switch_loads_a_modified_copy_with_a_warning(reuters_path, tmp_path, monkeypatch):
    monkeypatch.delenv(ALLOW_MODIFIED_ENV, raising=False)
    root = _damaged_copy(reuters_path, tmp_path, "empty")
    with pytest.warns(UserWarning, match=r"reut2-000\.sgm: SHA-256 differs.*the file is empty"):
        with pytest.warns(UserWarning, match=r"n_records = 20578, expected 21578; n_modapte_train = "):
            corpus = load_reuters21578(root, verify=False)
    assert len(corpus.documents) == 10277  # the 512 ModApte documents of reut2-000.sgm are gone
    monkeypatch.setenv(ALLOW_MODIFIED_ENV, "1")
    with pytest.warns(UserWarning, match="modified Reuters-21578 copy"):
        assert load_reuters21578(root).fingerprint() == corpus.fingerprint()
    with pytest.raises(CorpusError, match=r"reut2-000\.sgm"):
        load_reuters21578(root, verify=True)  # an explicit True beats the environment


def test_cli_refuses_then_accepts_with_the_option(reuters_path, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(ALLOW_MODIFIED_ENV, "0")  # restored after main() sets it
    root = _damaged_copy(reuters_path, tmp_path, "random")
    assert main(["corpus-info", "--corpus", str(root)]) == 2
    err = capsys.readouterr().err
    assert "reut2-000.sgm: SHA-256 differs" in err and "Traceback" not in err
    with pytest.warns(UserWarning, match=r"reut2-000\.sgm"):
        assert main(["corpus-info", "--corpus", str(root), "--allow-modified-reuters", "--json"]) == 0
    assert '"n_documents": 10277' in capsys.readouterr().out
    assert os.environ[ALLOW_MODIFIED_ENV] == "1"


def test_zip_upload_is_verified_too(tmp_path, monkeypatch):
    monkeypatch.delenv(ALLOW_MODIFIED_ENV, raising=False)
    root = write_fake_reuters(tmp_path / "fake", fake_reuters_records())
    z = tmp_path / "reuters.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for name in REUTERS_FILES:
            zf.write(root / name, name)
    with pytest.raises(CorpusError, match=r"reut2-000\.sgm: SHA-256 differs"):
        read_zip(z)
    monkeypatch.setenv(ALLOW_MODIFIED_ENV, "1")
    with pytest.warns(UserWarning, match=r"n_records = 13, expected 21578"):
        assert len(read_zip(z).documents) == 7


def test_distribution_loads_verified_without_warning(reuters_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        corpus = load_reuters21578(reuters_path, verify=True)
    assert (sum(d.split == "train" for d in corpus.documents),
            sum(d.split == "test" for d in corpus.documents)) == (7770, 3019)
