"""Where the workbench finds Reuters-21578, and what to tell a user whose folder it cannot read.

The workbench reads a corpus only from the directories of
:func:`hbnlab.pipeline.corpus_spec.allowed_corpus_dirs` (the data home, ``$HBNLAB_REUTERS_DIR``,
``$HBNLAB_ALLOWED_DIRS``).  :func:`reuters_copies` lists the Reuters-21578 folders found there, so
the Corpus page offers them instead of asking for a path; :func:`typed_folder_problem` explains, in
the words of someone at the browser, why a typed folder cannot be used and what to do instead.
"""
from __future__ import annotations

import os
from pathlib import Path

from hbnlab.corpus.reuters import REUTERS_FILES
from hbnlab.pipeline import corpus_spec as CS

__all__ = ["reuters_copies", "typed_folder_problem", "no_copy_advice", "CACHE_FOLDER"]

#: The folder of the data home the download fills (:func:`hbnlab.corpus.fetch_reuters21578`).
CACHE_FOLDER = "reuters21578"


def _holds_reuters(folder: Path) -> bool:
    try:
        return (folder / REUTERS_FILES[0]).is_file()
    except OSError:
        return False


def reuters_copies() -> list[tuple[str, Path]]:
    """``(label, folder)`` of every Reuters-21578 folder the workbench may read: ``$HBNLAB_REUTERS_DIR``,
    the data home's download cache, and each allowed directory or a folder right below it that holds
    ``reut2-000.sgm``; resolved, without repeats, in that order."""
    found: list[tuple[str, Path]] = []

    def add(label: str, folder: Path) -> None:
        folder = folder.expanduser().resolve()
        if _holds_reuters(folder) and all(folder != f for _, f in found):
            found.append((label, folder))

    env = os.environ.get("HBNLAB_REUTERS_DIR", "").strip()
    if env:
        add("the server's HBNLAB_REUTERS_DIR", Path(env))
    home = CS.data_home()
    add("the download cache", home / CACHE_FOLDER)
    for root in CS.allowed_corpus_dirs("reuters"):
        candidates = [root]
        try:
            candidates += sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())[:200]
        except OSError:
            pass
        for folder in candidates:
            add("a folder the server may read", folder)
    return found


def _readable_roots() -> str:
    return ", ".join(str(r) for r in CS.allowed_corpus_dirs("reuters"))


def no_copy_advice() -> str:
    """What to do when no Reuters-21578 folder is readable."""
    return (f"Reuters-21578 is not on this server yet. Press **Download into the cache** (the official "
            f"distribution, about 8 MB, checked against its SHA-256), or copy the folder holding reut2-000.sgm ... "
            f"reut2-021.sgm into {CS.data_home() / CACHE_FOLDER} and reload this page.")


def typed_folder_problem(text: str) -> str | None:
    """None when the typed folder can be read as Reuters-21578; otherwise what is wrong and what to do."""
    text = (text or "").strip()
    if not text:
        return "Type the folder that holds reut2-000.sgm ... reut2-021.sgm, or pick one of the copies above."
    path = Path(text).expanduser()
    if not path.is_absolute():
        return f"Type the folder's full path, starting with / (got {text!r})."
    try:
        CS.confine_corpus_path(text, parameter="reuters_dir", kind="reuters")
    except CS.CorpusPathError:
        return (f"The workbench reads corpora only from these folders: {_readable_roots()}. Copy the Reuters "
                f"folder into {CS.data_home() / CACHE_FOLDER} (it then appears in the list above), or ask whoever "
                f"runs the server to start it with HBNLAB_REUTERS_DIR={text} (or to add a folder above it to "
                f"HBNLAB_ALLOWED_DIRS).")
    if not path.is_dir():
        return f"There is no folder {text} on the server."
    if not _holds_reuters(path.resolve()):
        return (f"{text} has no reut2-000.sgm: choose the folder that holds the 22 files reut2-000.sgm ... "
                f"reut2-021.sgm of Reuters-21578 Distribution 1.0.")
    return None
