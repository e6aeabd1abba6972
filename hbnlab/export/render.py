"""Graphviz rendering through the ``dot`` program, with a readable error when it is missing."""
from __future__ import annotations

import shutil
import subprocess


class GraphvizMissing(RuntimeError):
    pass


def dot_to_svg(dot_source: str, timeout: float = 30.0) -> str:
    """Render DOT source to an SVG string with Graphviz's ``dot``."""
    exe = shutil.which("dot")
    if exe is None:
        raise GraphvizMissing(
            "Graphviz's 'dot' program is not installed; install it with 'apt-get install graphviz' "
            "(the README's set-up commands do this)"
        )
    proc = subprocess.run([exe, "-Tsvg"], input=dot_source.encode("utf-8"), capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"dot failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    svg = proc.stdout.decode("utf-8")
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg
