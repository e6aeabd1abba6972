"""Cost of ``encoding="auto"`` on a 20 Newsgroups-sized folder: 20,000 small files.

Usage::

    python benchmarks/bench_decoding.py [N_FILES]

Times (best of 3): a plain strict ``bytes.decode("utf-8-sig")`` loop (the readers' former
default) against :func:`hbnlab.corpus.encoding.decode_text` with ``"auto"``, on all-UTF-8 files
and on the issue's mix (73 latin-1 files among them), then :func:`read_folder_per_class` on the
mixed folder written to a temporary directory (disk reads included).
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from hbnlab.corpus import read_folder_per_class
from hbnlab.corpus.encoding import decode_text

WORDS = ("the market said people report world today new would after café Müller naïve señor crème "
         "grain wheat oil barrel price rose fell exports shares bank").split()


def _files(n: int, n_latin1: int, seed: int = 0) -> dict[str, bytes]:
    rng = np.random.RandomState(seed)
    out = {}
    for i in range(n):
        text = " ".join(rng.choice(WORDS, size=int(rng.randint(150, 450)))) + "\n"
        enc = "latin-1" if i < n_latin1 else "utf-8"
        out[f"train/group{i % 20:02d}/{100000 + i}"] = text.encode(enc)
    return out


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(n: int = 20_000) -> None:
    for label, n_latin1 in (("all UTF-8", 0), ("73 latin-1", 73)):
        files = _files(n, n_latin1)
        mb = sum(map(len, files.values())) / 1e6

        def plain(files=files):
            for data in files.values():
                try:
                    data.decode("utf-8-sig")
                except UnicodeDecodeError:
                    data.decode("latin-1")

        def auto(files=files):
            for rel, data in files.items():
                decode_text(data, rel)

        t_plain, t_auto = best_of(plain), best_of(auto)
        print(f"{label:<12s} {n} files, {mb:.1f} MB: strict utf-8 loop {t_plain:.3f} s, "
              f"decode_text auto {t_auto:.3f} s (+{t_auto - t_plain:.3f} s, x{t_auto / t_plain:.2f})")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "news"
        for rel, data in _files(n, 73).items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        t0 = time.perf_counter()
        c = read_folder_per_class(root)
        t = time.perf_counter() - t0
        print(f"read_folder_per_class on the mixed folder: {t:.2f} s, {len(c)} documents, "
              f"encodings {c.meta['encodings']}, replaced {len(c.meta['replaced_files'])}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
