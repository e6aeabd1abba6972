"""Every benchmark records where its results came from (issue 39, item 5), checked on the source
(``ast``): each script prints its provenance first (:func:`hbnlab.experiments.provenance.start_run`:
its standard output is what a redirected results file holds); every JSON document it writes goes
through ``stamp`` (a ``"provenance"`` key) and every Markdown or text file it writes starts with
``provenance_line``."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py") if "__main__" in p.read_text(encoding="utf-8"))
#: files a script writes that are not results: script -> why
NOT_RESULTS = {"bench_em.py": "json.dump of the pgmpy child's job file, in a temporary directory"}


def _name(func) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _calls(node, name: str) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call) and _name(n.func) == name]


def _is_json(call: ast.Call, name: str) -> bool:
    return (_name(call.func) == name and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "json")


def _unstamped_writes(tree) -> list[int]:
    """Lines that write a results file without its provenance."""
    bad = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        if _is_json(call, "dump") and not _calls(call.args[0], "stamp"):
            bad.append(call.lineno)
        elif _name(call.func) == "write_text" and call.args:
            dumps = [c for c in ast.walk(call.args[0]) if isinstance(c, ast.Call) and _is_json(c, "dumps")]
            if dumps and not all(_calls(c.args[0], "stamp") for c in dumps):
                bad.append(call.lineno)
            elif not dumps and not _calls(call.args[0], "provenance_line"):
                bad.append(call.lineno)
    return bad


def test_the_benchmarks_are_found():
    assert len(SCRIPTS) >= 25 and BENCHMARKS / "hbn_any_corpus.py" in SCRIPTS


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_benchmark_records_its_provenance(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert _calls(tree, "start_run"), f"{path.name}: never calls start_run() (a redirected output would lack it)"
    if path.name not in NOT_RESULTS:
        assert _unstamped_writes(tree) == [], f"{path.name}: results written without their provenance"


def test_the_check_sees_an_unstamped_write():
    """The static check itself: a JSON or text file written without provenance is caught."""
    bad = ast.parse("import json\nPath(a).write_text(json.dumps(rows))\njson.dump(out, fh)\nPath(b).write_text(md)\n")
    assert _unstamped_writes(bad) == [2, 3, 4]
    good = ast.parse("import json\nPath(a).write_text(json.dumps(stamp(rows, prov), indent=1))\n"
                     "json.dump(stamp(out), fh)\nPath(b).write_text(provenance_line(prov) + md)\n")
    assert _unstamped_writes(good) == []


def test_the_test_set_log_is_a_table_the_scripts_append_to():
    log = BENCHMARKS / "results" / "TEST_SET_RUNS.md"
    lines = log.read_text(encoding="utf-8").rstrip("\n").splitlines()
    assert lines[-1].startswith("| ") and lines[-1].count(" | ") >= 3, "the log ends with its table"
    head = next(i for i, line in enumerate(lines) if line.startswith("| date |"))
    assert all(line.startswith("| ") for line in lines[head:])
    for name in ("hbn_any_corpus.py", "hbn_terms_micro.py", "hbn_terms_per_class_B.py"):
        assert _calls(ast.parse((BENCHMARKS / name).read_text(encoding="utf-8")), "log_test_set_run"), name
