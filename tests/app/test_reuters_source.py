"""Reuters-21578 from the browser: the Corpus page offers the copies the server may read (its
$HBNLAB_REUTERS_DIR, the download cache, folders of $HBNLAB_ALLOWED_DIRS) and says in the user's
words what to do when there is none or a typed folder cannot be used."""
from __future__ import annotations

import pytest
from app_testutil import no_exceptions

from hbnlab.app import reuters_source as R


def _fake_copy(folder):
    """A folder that holds reut2-000.sgm (enough to be listed; loading is not tried)."""
    folder.mkdir(parents=True)
    (folder / "reut2-000.sgm").write_text("<!DOCTYPE lewis SYSTEM \"lewis.dtd\">\n")
    return folder.resolve()


@pytest.fixture
def no_server_copy(data_home, monkeypatch):
    monkeypatch.delenv("HBNLAB_REUTERS_DIR", raising=False)
    monkeypatch.delenv("HBNLAB_ALLOWED_DIRS", raising=False)
    return data_home


def _reuters_page(app):
    app.run()
    app.switch_page("pages/corpus.py").run()
    app.radio(key="corpus_source").set_value("reuters").run()
    no_exceptions(app)
    return app


def test_copies_found_in_the_cache_the_environment_and_the_allowed_folders(no_server_copy, tmp_path, monkeypatch):
    cache = _fake_copy(no_server_copy / "reuters21578")
    env = _fake_copy(tmp_path / "env-copy")
    shared = tmp_path / "shared"
    below = _fake_copy(shared / "corpora")
    (shared / "empty").mkdir()
    monkeypatch.setenv("HBNLAB_REUTERS_DIR", str(env))
    monkeypatch.setenv("HBNLAB_ALLOWED_DIRS", str(shared))
    assert R.reuters_copies() == [("the server's HBNLAB_REUTERS_DIR", env), ("the download cache", cache),
                                  ("a folder the server may read", below)]


def test_without_a_copy_the_page_says_how_to_get_one(app, no_server_copy):
    _reuters_page(app)
    info = [i.value for i in app.info if "not on this server yet" in i.value]
    assert len(info) == 1 and "Download into the cache" in info[0], [i.value for i in app.info]
    assert str(no_server_copy.resolve() / "reuters21578") in info[0]
    assert not any(b.key == "reuters_copy" for b in app.selectbox)
    app.button(key="load_reuters").click().run()
    no_exceptions(app)
    (err,) = [e.value for e in app.error]
    assert err.startswith("Type the folder that holds reut2-000.sgm"), err
    assert "resolve_reuters_dir" not in err and "download_if_missing" not in err


@pytest.mark.parametrize("typed, says", [
    ("reuters", "full path, starting with /"),
    ("/etc", "reads corpora only from these folders"),
])
def test_a_typed_folder_that_cannot_be_used_is_explained(app, no_server_copy, typed, says):
    _reuters_page(app)
    app.text_input(key="reuters_dir").input(typed)
    app.button(key="load_reuters").click().run()
    no_exceptions(app)
    (err,) = [e.value for e in app.error]
    assert says in err, err
    if typed == "/etc":
        assert "HBNLAB_ALLOWED_DIRS" in err and str(no_server_copy.resolve() / "reuters21578") in err
    assert not app.get("progress")


def test_a_readable_folder_without_the_files_is_named(no_server_copy):
    other = no_server_copy / "something-else"
    other.mkdir(parents=True)
    assert "has no reut2-000.sgm" in R.typed_folder_problem(str(other))
    assert R.typed_folder_problem(str(_fake_copy(no_server_copy / "reuters21578"))) is None


def test_a_listed_copy_is_offered_first_and_the_typed_path_hidden(app, no_server_copy):
    cache = _fake_copy(no_server_copy / "reuters21578")
    _reuters_page(app)
    box = app.selectbox(key="reuters_copy")
    assert box.value == box.options[0] == f"{cache}  (the download cache)"
    assert not any(t.key == "reuters_dir" for t in app.text_input)
    box.set_value("Another folder on the server ...").run()
    assert any(t.key == "reuters_dir" for t in app.text_input)
