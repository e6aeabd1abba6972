"""``hbnlab --help`` stays light: building the parser imports neither pandas nor scipy.stats
(issue 39, item 4: they cost 1.5-2.2 s of CPU before the first line of help).

Each check runs in a fresh interpreter, since this test process has imported both long ago."""
import json
import subprocess
import sys

import pytest

HEAVY = ("pandas", "scipy.stats", "sklearn", "plotly", "streamlit")

_PROBE = """
import contextlib, io, json, sys
{code}
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def _heavy_modules_after(code: str) -> list:
    out = subprocess.run([sys.executable, "-c", _PROBE.format(code=code, heavy=HEAVY)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [["--help"], ["corpus-info", "--help"], ["train", "--help"], ["sweep", "--help"],
                                  ["no-such-command"]])
def test_help_imports_no_heavy_library(argv):
    code = ("from hbnlab.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            f"        main({argv!r})\n"
            "    except SystemExit:\n"
            "        pass")
    assert _heavy_modules_after(code) == []


def test_python_dash_m_hbnlab_help_is_light():
    code = ("import runpy\n"
            "sys.argv = ['hbnlab', '--help']\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            "        runpy.run_module('hbnlab', run_name='__main__')\n"
            "    except SystemExit:\n"
            "        pass")
    assert _heavy_modules_after(code) == []


def test_reproduce_help_still_lists_the_protocol_options(capsys):
    """The de Campos protocol options are added when ``reproduce`` is parsed: its help shows them
    and they parse."""
    from hbnlab.cli.main import build_parser
    from hbnlab.experiments.decampos import PROTOCOL_OPTIONS

    with pytest.raises(SystemExit):
        build_parser().parse_args(["reproduce", "--help"])
    text = capsys.readouterr().out
    for name in PROTOCOL_OPTIONS:
        assert "--" + name.replace("_", "-") in text
    args = build_parser().parse_args(["reproduce", "decampos-table-1", "--stemmer", "porter2"])
    assert args.stemmer == "porter2" and args.unlabeled is None
    with pytest.raises(SystemExit):
        build_parser().parse_args(["reproduce", "decampos-table-1", "--stemmer", "lovins"])
