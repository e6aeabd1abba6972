"""One version, written once (hbnlab.__version__), read by the package metadata, and the top
release of CHANGELOG.md."""
import re
from pathlib import Path

import tomllib

import hbnlab
from hbnlab._deprecation import version_tuple

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_written_once_and_pyproject_reads_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"], "the version is written in hbnlab/__init__.py only"
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "hbnlab.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", hbnlab.__version__)
    hits = [p for p in (ROOT / "hbnlab").rglob("*.py") if re.search(r"__version__\s*=", p.read_text("utf-8"))]
    assert hits == [ROOT / "hbnlab" / "__init__.py"]


def test_the_changelog_describes_this_version_first():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[([^\]]+)\]", text, flags=re.M)
    numbered = [r for r in releases if r != "Unreleased"]
    assert numbered[0] == hbnlab.__version__, "CHANGELOG.md: the newest release section is the package's version"
    assert [version_tuple(v) for v in numbered] == sorted((version_tuple(v) for v in numbered), reverse=True)
