"""Paths and column names of a workbench corpus spec come from the browser: they are confined to
the directories the workbench may read, and refusals name the parameter without quoting the file
(:func:`hbnlab.pipeline.corpus_spec.confine_corpus_path`, :func:`corpus_from_spec`)."""
from __future__ import annotations

import os

import pytest

from hbnlab.corpus import CorpusError
from hbnlab.pipeline.corpus_spec import (
    ALLOWED_DIRS_ENV,
    CorpusPathError,
    confine_corpus_path,
    corpus_from_spec,
    data_home,
)

SECRET = "password,api_key\nhunter2,sk-XYZ\n"
TABLE = "text,labels\n" + "".join(f"wheat grain harvest report {i},grain\n" for i in range(6)) + \
        "".join(f"oil crude barrel price {i},crude\n" for i in range(6))


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HBNLAB_DATA_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(ALLOWED_DIRS_ENV, raising=False)
    uploads = data_home() / "uploads" / "0123456789abcdef"
    uploads.mkdir(parents=True)
    (uploads / "corpus.csv").write_text(TABLE, encoding="utf-8")
    (tmp_path / "secret.csv").write_text(SECRET, encoding="utf-8")
    return tmp_path


def _upload(path, **options):
    return {"corpus": "upload", "upload_path": str(path), "options": options}


def _refusal(spec) -> str:
    with pytest.raises(CorpusError) as info:
        corpus_from_spec(spec)
    message = str(info.value)
    for leaked in ("hunter2", "sk-XYZ", "wheat"):
        assert leaked not in message
    return message


def test_a_stored_upload_loads(home):
    corpus = corpus_from_spec(_upload(data_home() / "uploads" / "0123456789abcdef" / "corpus.csv"))
    assert len(corpus.documents) == 12


@pytest.mark.parametrize("where", ["secret.csv", "home/uploads/../../secret.csv", "home/secret.csv"])
def test_a_path_outside_the_uploads_is_refused_naming_the_parameter(home, where):
    message = _refusal(_upload(home / where, text_column="password", labels_column="api_key"))
    assert message.startswith("upload_path=") and "outside the directories" in message


def test_a_symbolic_link_out_of_the_uploads_is_refused(home):
    link = data_home() / "uploads" / "0123456789abcdef" / "innocent.csv"
    os.symlink(home / "secret.csv", link)
    assert "upload_path=" in _refusal(_upload(link, text_column="password", labels_column="api_key"))


def test_relative_and_empty_paths_are_refused(home):
    for bad in ("secret.csv", "", "uploads/x.csv"):
        with pytest.raises(CorpusPathError, match="upload_path="):
            confine_corpus_path(bad, parameter="upload_path", kind="upload")


def test_the_operator_can_allow_more_directories(home, monkeypatch):
    with pytest.raises(CorpusPathError):
        confine_corpus_path(home / "secret.csv", parameter="upload_path", kind="upload")
    monkeypatch.setenv(ALLOWED_DIRS_ENV, os.pathsep.join(["/nonexistent-dir", str(home)]))
    assert confine_corpus_path(home / "secret.csv", parameter="upload_path", kind="upload") == \
        (home / "secret.csv").resolve()


@pytest.mark.parametrize("role", ["text", "labels", "id", "title", "split"])
def test_a_column_the_upload_lacks_is_refused_naming_the_parameter(home, role):
    path = data_home() / "uploads" / "0123456789abcdef" / "corpus.csv"
    with pytest.raises(CorpusError) as info:
        corpus_from_spec(_upload(path, **{f"{role}_column": "password"}))
    assert str(info.value) == f"upload_{role}_column='password': the stored upload has no such column"


def test_reuters_dir_is_confined_to_the_data_home_and_the_configured_directory(home, monkeypatch):
    monkeypatch.setenv("HBNLAB_REUTERS_DIR", str(home / "reuters"))
    (home / "reuters").mkdir()
    with pytest.raises(CorpusPathError, match=r"^reuters_dir='/etc'"):
        corpus_from_spec({"corpus": "reuters", "reuters_dir": "/etc"})
    allowed = confine_corpus_path(home / "reuters", parameter="reuters_dir", kind="reuters")
    assert allowed == (home / "reuters").resolve()
    inside = data_home() / "reuters21578"
    assert confine_corpus_path(inside, parameter="reuters_dir", kind="reuters") == inside
    monkeypatch.delenv("HBNLAB_REUTERS_DIR")
    with pytest.raises(CorpusPathError, match="reuters_dir="):
        confine_corpus_path(home / "reuters", parameter="reuters_dir", kind="reuters")
