"""The direction of imports: the core never imports Streamlit (only hbnlab.app and pages/ do)."""
import json
import pkgutil
import subprocess
import sys

import hbnlab


def core_modules():
    out = []
    for m in pkgutil.walk_packages(hbnlab.__path__, "hbnlab."):
        if m.name == "hbnlab.app" or m.name.startswith("hbnlab.app."):
            continue
        out.append(m.name)
    return out


def test_core_never_imports_streamlit():
    mods = core_modules()
    assert "hbnlab.models.base" in mods and "hbnlab.cli" in mods
    code = (
        "import importlib, json, sys\n"
        f"for m in {mods!r}:\n"
        "    importlib.import_module(m)\n"
        "print(json.dumps(sorted(k for k in sys.modules if k == 'streamlit' or k.startswith('streamlit.'))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []
