"""The names of uploads and downloads, and the server paths a page never shows.

An upload is stored as ``$HBNLAB_DATA_HOME/uploads/<digest>/<name>``: the readers choose a format by
the name's extension, so the name keeps it, and it keeps the user's letters (``данные.csv``,
``新闻.csv``) so that messages about the file name the file the user chose.  What a page shows of an
error never holds the data home's path (:func:`hide_server_paths`).
"""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from hbnlab.corpus import default_data_home

__all__ = ["MAX_NAME_BYTES", "safe_file_name", "hide_server_paths"]

#: The longest stored name in UTF-8 bytes (file systems take 255; room for a temporary prefix).
MAX_NAME_BYTES = 200


def _keep(c: str) -> bool:
    # letters and digits of any script and their combining marks (हिन्दी's vowel signs); '.', '_', '-'
    return c.isalnum() or c in "._-" or unicodedata.category(c).startswith("M")


def safe_file_name(name: str, default: str = "file") -> str:
    """``name`` without its directory (``/`` or ``\\``), in NFC, each run of characters other than
    letters, digits, combining marks, ``.``, ``_`` and ``-`` (spaces, control and format characters,
    quotes, brackets) one ``_``, no leading or trailing dots; the extension is kept, and a name left
    empty becomes ``default`` with it.  For stored uploads and downloads named after corpus data.

    >>> safe_file_name("данные.csv"), safe_file_name("../../etc/passwd"), safe_file_name(".csv", "upload")
    ('данные.csv', 'passwd', 'upload.csv')
    >>> safe_file_name("C:\\\\Users\\\\me\\\\my notes (v2).jsonl")
    'my_notes_v2.jsonl'
    """
    base = unicodedata.normalize("NFC", str(name)).replace("\\", "/").rsplit("/", 1)[-1]
    clean = re.sub(r"_+", "_", "".join(c if _keep(c) else "_" for c in base))
    stem, dot, ext = clean.rpartition(".")
    if not dot:
        stem, ext = clean, ""
    ext = ext.strip("._-")
    stem = stem.strip("._-")
    suffix = f".{ext}" if ext else ""
    while stem and len((stem + suffix).encode("utf-8")) > MAX_NAME_BYTES:
        stem = stem[:-1]
    return f"{stem.rstrip('._-') or default}{suffix}"


def hide_server_paths(text: str) -> str:
    """``text`` (an error for a page) without the server's data home: a stored upload's path becomes
    its name, any other path under the data home is shown relative to it.

    >>> import os; os.environ["HBNLAB_DATA_HOME"] = "/srv/hbn"
    >>> hide_server_paths("/srv/hbn/uploads/0123456789abcdef/данные.csv: line 3: no column 'text'")
    "данные.csv: line 3: no column 'text'"
    >>> hide_server_paths("cannot write /srv/hbn/models/m.hbnlab"); del os.environ["HBNLAB_DATA_HOME"]
    'cannot write models/m.hbnlab'
    """
    home = Path(default_data_home()).absolute()
    roots = {str(home), str(home.resolve())}
    for root in sorted(roots, key=len, reverse=True):
        text = re.sub(re.escape(root) + r"/uploads/[0-9a-f]{16}/", "", text)
        text = text.replace(root + "/", "").replace(root, "the data home")
    return text
