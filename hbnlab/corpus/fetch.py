"""Download and cache Reuters-21578, in the manner of scikit-learn's dataset fetchers.

``fetch_reuters21578()`` returns a directory holding the 22 ``reut2-*.sgm`` files, verified
against the SHA-256 list shipped in ``hbnlab/data/reuters21578.sha256``:

1. ``source_dir`` given -> verify it and return it (nothing is copied or downloaded);
2. a verified copy in ``<data_home>/reuters21578`` -> return it;
3. otherwise download the official ``reuters21578.tar.gz`` into a temporary directory inside
   ``data_home``, extract it safely (regular files and folders only, no path leaving the
   extraction root, bounded total size), verify every ``reut2-*.sgm`` named in the checksum
   list, then rename the folder into place atomically, so that a reader never sees a
   half-extracted cache and two processes fetching at once do not corrupt each other.

``data_home`` defaults to ``$HBNLAB_DATA_HOME`` or ``~/.cache/hbnlab``.
"""
from __future__ import annotations

import errno
import hashlib
import http.client
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path, PurePosixPath

from .base import CorpusError

DEFAULT_URL = "https://kdd.ics.uci.edu/databases/reuters21578/reuters21578.tar.gz"

#: Upper bound on the extracted size of the archive (the real one is 28 MB).
MAX_EXTRACTED_BYTES = 500_000_000

_CHUNK = 1 << 20
_CACHE_NAME = "reuters21578"


def default_data_home() -> Path:
    """``$HBNLAB_DATA_HOME`` if set, else ``~/.cache/hbnlab``."""
    value = os.environ.get("HBNLAB_DATA_HOME")
    return Path(value).expanduser() if value else Path.home() / ".cache" / "hbnlab"


def read_checksums(source) -> dict[str, str]:
    """Parse a ``sha256sum``-style list (``<hex>  <file name>`` per line) into ``{name: hex}``."""
    if isinstance(source, Mapping):
        return {str(k): str(v).lower() for k, v in source.items()}
    path = Path(source)
    out: dict[str, str] = {}
    for lineno, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 1)
        if len(parts) != 2 or len(parts[0]) != 64:
            raise CorpusError(f"line {lineno} of {path}: expected '<sha256 hex>  <file name>', got {line!r}")
        out[parts[1].lstrip("*").strip()] = parts[0].lower()
    return out


def shipped_checksums() -> dict[str, str]:
    """The SHA-256 of each ``reut2-*.sgm`` of Distribution 1.0, shipped with hbnlab."""
    ref = resources.files("hbnlab") / "data" / "reuters21578.sha256"
    with resources.as_file(ref) as p:
        return read_checksums(p)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def verify_reuters_dir(path, checksums: Mapping[str, str] | None = None) -> Path:
    """Check that ``path`` holds every file of ``checksums`` with the right SHA-256.

    Raises
    ------
    CorpusError
        Naming the missing files, or the first file whose checksum differs (expected and got).
    """
    root = Path(path)
    sums = shipped_checksums() if checksums is None else read_checksums(checksums)
    if not root.is_dir():
        raise CorpusError(f"{root}: not a directory")
    missing = sorted(n for n in sums if not (root / n).is_file())
    if missing:
        raise CorpusError(f"{root}: missing {len(missing)} of the {len(sums)} Reuters-21578 files: "
                          + ", ".join(missing))
    for name in sorted(sums):
        got = sha256_file(root / name)
        if got != sums[name]:
            raise CorpusError(f"{root / name}: SHA-256 mismatch (expected {sums[name]}, got {got}); "
                              f"the file is corrupt or not Reuters-21578 Distribution 1.0")
    return root


def is_safe_member_name(name: str) -> bool:
    """True iff an archive member name stays inside the extraction root.

    Rejects absolute POSIX or Windows paths (``/x``, ``\\x``, ``C:x``) and ``..`` components.
    """
    if not name or name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return False
    parts = PurePosixPath(name.replace("\\", "/")).parts
    return ".." not in parts


def safe_extract_tar(archive: Path, dest: Path, *, source: str,
                     max_bytes: int = MAX_EXTRACTED_BYTES) -> None:
    """Extract a (gzipped) tar archive into ``dest``, refusing anything unsafe.

    Only regular files and directories are extracted.  Absolute names, names with ``..``
    components, symbolic or hard links, devices and FIFOs raise :class:`CorpusError` naming the
    member, and so does a total size above ``max_bytes`` (a decompression bomb).
    """
    try:
        with tarfile.open(archive, "r:*") as tar:
            members = tar.getmembers()
            total = 0
            for m in members:
                if not is_safe_member_name(m.name):
                    raise CorpusError(f"{source}: archive member {m.name!r} escapes the extraction folder")
                if m.issym() or m.islnk():
                    raise CorpusError(f"{source}: archive member {m.name!r} is a link; links are not allowed")
                if not (m.isfile() or m.isdir()):
                    raise CorpusError(f"{source}: archive member {m.name!r} is not a regular file or folder")
                total += m.size
                if total > max_bytes:
                    raise CorpusError(f"{source}: archive expands to more than {max_bytes} bytes; refusing it")
            # The 'data' filter (Python >= 3.11.4 / 3.12) re-checks all of the above.
            kwargs = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(dest, members=members, **kwargs)
    except CorpusError:
        raise
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
            raise CorpusError(f"cannot extract {source} into {dest}: {exc.strerror}") from None
        raise CorpusError(f"{source}: not a readable tar.gz archive ({exc})") from None
    except (tarfile.TarError, EOFError, ValueError) as exc:
        raise CorpusError(f"{source}: not a readable tar.gz archive ({exc})") from None


def _download(url: str, dest: Path, progress: Callable[[float, str], None] | None,
              timeout: float) -> None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp, open(dest, "wb") as out:
            size = resp.headers.get("Content-Length")
            size = int(size) if size and size.isdigit() else None
            done = 0
            while True:
                chunk = resp.read(_CHUNK)
                if not chunk:
                    break
                try:
                    out.write(chunk)
                except OSError as exc:  # a full disk or quota: name the file, not the URL
                    raise CorpusError(f"cannot write {dest}: {exc.strerror or exc}") from None
                done += len(chunk)
                if progress is not None:
                    frac = min(done / size, 1.0) * 0.9 if size else 0.0
                    progress(frac, f"downloaded {done / 1e6:.1f} MB from {url}")
            if size is not None and done != size:
                raise CorpusError(f"could not download {url}: got {done} of {size} bytes")
    except CorpusError:
        raise
    except urllib.error.HTTPError as exc:
        raise CorpusError(f"could not download {url}: HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise CorpusError(f"could not download {url}: {exc.reason}") from None
    except (OSError, ValueError, http.client.HTTPException) as exc:  # timeouts, resets, bad URLs
        raise CorpusError(f"could not download {url}: {exc}") from None


def _find_sgm_root(root: Path, names) -> Path:
    """The folder (``root`` or one level below) that holds the checksum-listed files."""
    first = sorted(names)[0]
    if (root / first).is_file():
        return root
    subdirs = [p for p in root.iterdir() if p.is_dir()]
    for d in subdirs:
        if (d / first).is_file():
            return d
    return root


def fetch_reuters21578(data_home=None, *, source_dir=None, url: str = DEFAULT_URL,
                       download_if_missing: bool = True,
                       progress: Callable[[float, str], None] | None = None,
                       checksums: Mapping[str, str] | str | os.PathLike | None = None,
                       timeout: float = 60.0) -> Path:
    """Return a local folder holding verified Reuters-21578 Distribution 1.0 SGML files.

    Parameters
    ----------
    data_home : str or path-like, optional
        Cache root; default ``$HBNLAB_DATA_HOME`` or ``~/.cache/hbnlab``.  The files live in
        ``<data_home>/reuters21578``.
    source_dir : str or path-like, optional
        An existing copy to use instead (verified, not copied).
    url : str
        Where to download ``reuters21578.tar.gz`` from (``DEFAULT_URL``: UCI KDD archive).
    download_if_missing : bool
        If False and no verified cache exists, raise instead of downloading.
    progress : callable, optional
        ``progress(fraction, message)`` during download and extraction.
    checksums : mapping or path, optional
        ``{file name: sha256 hex}`` or a ``sha256sum``-style file; default the list shipped in
        ``hbnlab/data/reuters21578.sha256``.  Exactly the files it names are required and
        verified (tests pass a small custom list).
    timeout : float
        Network timeout in seconds.

    Returns
    -------
    pathlib.Path
        The folder holding ``reut2-000.sgm`` ... (pass it to :func:`load_reuters21578`).

    Raises
    ------
    CorpusError
        Missing / corrupt files (named), a network failure (naming the URL), an unsafe or
        unreadable archive, or no cache with ``download_if_missing=False``.
    """
    sums = shipped_checksums() if checksums is None else read_checksums(checksums)
    if source_dir is not None:
        return verify_reuters_dir(source_dir, sums)

    home = Path(data_home).expanduser() if data_home is not None else default_data_home()
    target = home / _CACHE_NAME
    if target.exists():
        try:
            return verify_reuters_dir(target, sums)
        except CorpusError as exc:
            raise CorpusError(f"the cached copy is not valid: {exc}; delete {target} to download "
                              f"it again") from None
    if not download_if_missing:
        raise CorpusError(f"Reuters-21578 is not in {target} and download_if_missing=False; "
                          f"call fetch_reuters21578() with download_if_missing=True or pass source_dir=")

    home.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".reuters21578-", dir=home))
    try:
        archive = tmp / "reuters21578.tar.gz"
        if progress is not None:
            progress(0.0, f"downloading {url}")
        _download(url, archive, progress, timeout)
        extract = tmp / "extract"
        extract.mkdir()
        if progress is not None:
            progress(0.9, "extracting")
        safe_extract_tar(archive, extract, source=url)
        root = _find_sgm_root(extract, sums)
        try:
            verify_reuters_dir(root, sums)
        except CorpusError as exc:
            raise CorpusError(f"downloaded from {url}: {exc}") from None
        try:
            os.rename(root, target)  # atomic on one file system
        except OSError:
            if target.exists():  # another process finished first: use its verified copy
                return verify_reuters_dir(target, sums)
            raise
        if progress is not None:
            progress(1.0, f"Reuters-21578 ready in {target}")
        return target
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
