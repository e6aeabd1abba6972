"""``hbnlab cache list | clear``: the store of parsed and indexed corpora in the data home
(:mod:`hbnlab.pipeline.store`)."""
from __future__ import annotations

import json

__all__ = ["register", "cmd_cache", "format_bytes"]


def format_bytes(n: int) -> str:
    """``1536`` -> ``"1.5 KB"`` (powers of 1024)."""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def _describe(row: dict) -> str:
    s = row.get("summary") or {}
    if row["kind"] == "corpus":
        return f"{s.get('corpus', '?')}, {s.get('n_documents', '?')} documents"
    if row["kind"] == "data":
        cats = s.get("categories") or []
        return f"{s.get('corpus', '?')} indexed, {s.get('n_terms', '?')} terms, {len(cats)} categories"
    return ""


def cmd_cache(args) -> int:
    from hbnlab.pipeline.store import cache_enabled, cache_root, clear_entries, list_entries

    if args.action == "clear":
        n, freed = clear_entries()
        print(f"removed {n} entr{'y' if n == 1 else 'ies'} ({format_bytes(freed)}) from {cache_root()}")
        return 0
    rows = list_entries()
    if args.json:
        print(json.dumps({"root": str(cache_root()), "enabled": cache_enabled(), "entries": rows}, indent=2))
        return 0
    state = "" if cache_enabled() else " (turned off by $HBNLAB_NO_CACHE)"
    print(f"{cache_root()}: {len(rows)} entr{'y' if len(rows) == 1 else 'ies'}, "
          f"{format_bytes(sum(r['bytes'] for r in rows))}{state}")
    for r in rows:
        status = "" if r["status"] == "ok" else f"  [{r['status']}]"
        print(f"  {r['name']:<40} {format_bytes(r['bytes']):>9}  {r['created']:<19}  {_describe(r)}{status}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("cache", help="list or clear the parsed and indexed corpora kept in the data home")
    p.add_argument("action", choices=("list", "clear"), help="list: entries and sizes; clear: remove them all")
    p.add_argument("--json", action="store_true", help="print JSON (list)")
    p.set_defaults(func=cmd_cache)
