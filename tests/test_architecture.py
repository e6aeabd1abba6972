"""The layout of the package: the direction of imports, no cycles, modules of readable size, lint.

Imports are read from the source (``ast``), function-level imports included, so an import hidden
inside a function to dodge a cycle is still seen.  The layers, lowest first::

    _validation -> bounds -> _deprecation -> bn corpus text features evaluation -> clustering -> models
        -> export jobs -> pipeline -> experiments -> cli app -> __main__

A module may import its own package and lower layers; packages of one layer do not import each
other.  Only ``hbnlab.app`` (and ``pages/``, ``app.py``) may import Streamlit.
"""
from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "hbnlab"

LAYERS = (
    ("hbnlab", "hbnlab._validation"),
    ("hbnlab.bounds",),
    ("hbnlab._deprecation",),
    ("hbnlab.bn", "hbnlab.corpus", "hbnlab.text", "hbnlab.features", "hbnlab.evaluation"),
    ("hbnlab.clustering",),
    ("hbnlab.models",),
    ("hbnlab.export", "hbnlab.jobs"),
    ("hbnlab.pipeline",),
    ("hbnlab.experiments",),
    ("hbnlab.cli", "hbnlab.app"),
    ("hbnlab.__main__",),
)
RANK = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}
MAX_LINES = 900
#: The Streamlit side is held to a shorter page: one module per page or per concern.
MAX_APP_LINES = 500


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _imports(name: str, path: Path) -> set[str]:
    """Every module (of any package) that ``path`` imports, at any depth of the file."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # ``from pkg import sub`` imports the submodule ``pkg.sub`` when there is one
            subs = {f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in MODULES}
            out.update(subs or {mod})
    return out


def _internal(target: str) -> str | None:
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


GRAPH = {name: {t for t in map(_internal, _imports(name, path)) if t and t != name} for name, path in MODULES.items()}


def _top(name: str) -> str:
    return ".".join(name.split(".")[:2])


def test_the_graph_sees_function_level_imports():
    # hbnlab.app.job_client imports streamlit at the top and the job runners of hbnlab.jobs in a function
    assert "streamlit" in _imports("hbnlab.app.job_client", MODULES["hbnlab.app.job_client"])
    assert "hbnlab.jobs.registry" in GRAPH["hbnlab.app.job_client"]
    assert set(map(_top, MODULES)) <= set(RANK), f"packages without a layer: {set(map(_top, MODULES)) - set(RANK)}"


def test_imports_flow_down_the_layers():
    bad = []
    for src, targets in GRAPH.items():
        for dst in targets:
            a, b = _top(src), _top(dst)
            if a != b and RANK[b] >= RANK[a]:
                bad.append(f"{src} -> {dst}")
    assert not bad, "imports against the layer order:\n" + "\n".join(sorted(bad))


def test_no_import_cycles():
    index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in GRAPH:
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"


def test_only_the_app_imports_streamlit():
    users = sorted(n for n, p in MODULES.items() if any(m.split(".")[0] == "streamlit" for m in _imports(n, p)))
    assert users and all(n == "hbnlab.app" or n.startswith("hbnlab.app.") for n in users), users


def test_core_never_imports_streamlit_at_run_time():
    mods = [m for m in MODULES if _top(m) != "hbnlab.app" and not m.endswith("__main__")]
    code = (
        "import importlib, json, sys\n"
        f"for m in {mods!r}:\n"
        "    importlib.import_module(m)\n"
        "print(json.dumps(sorted(k for k in sys.modules if k == 'streamlit' or k.startswith('streamlit.'))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []


def test_modules_stay_readable():
    long = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in MODULES.items()}
    assert {n: k for n, k in long.items() if k > MAX_LINES} == {}


def test_app_modules_stay_short():
    long = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in MODULES.items() if _top(n) == "hbnlab.app"}
    assert long and {n: k for n, k in long.items() if k > MAX_APP_LINES} == {}


def test_ruff_is_clean():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.fail("ruff is not installed: pip install -r requirements-dev.txt")
    proc = subprocess.run([ruff, "check", "--no-cache", str(ROOT)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
