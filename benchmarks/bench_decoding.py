"""Cost of ``encoding="auto"`` on a 20 Newsgroups-sized folder: 20,000 small files.

Usage::

    python benchmarks/bench_decoding.py [N_FILES] [--cp1251-mb 40]

Times (best of 3): a plain strict ``bytes.decode("utf-8-sig")`` loop (the readers' former
default) against :func:`hbnlab.corpus.encoding.decode_text` with ``"auto"``, on all-UTF-8 files
and on the issue's mix (73 latin-1 files among them), then :func:`read_folder_per_class` on the
mixed folder written to a temporary directory (disk reads included).

Then one large cp1251 file (issue 29: 190 MB took 100-129 s): rule 5's plausibility test as it
was (a Python loop over the characters, kept once as ``_loop_oracle`` in
tests/corpus/test_plausible_cp1252_oracle.py) against
:func:`~hbnlab.corpus.encoding.plausible_cp1252` (byte values counted by numpy), CPU seconds of
each in this process, and ``decode_text`` on the whole file: MB/s and the peak of traced memory
as a multiple of the file.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from hbnlab.corpus import read_folder_per_class
from hbnlab.corpus.encoding import decode_text, plausible_cp1252
from hbnlab.experiments.provenance import start_run

# the former per-character loop, kept once, as the tests' oracle
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "corpus"))
from test_plausible_cp1252_oracle import _loop_oracle  # noqa: E402

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


RUSSIAN = ("Съешь же ещё этих мягких французских булок, да выпей чаю. Цены на нефть выросли, "
           "сообщил банк в понедельник; экспорт зерна упал на 3 %.\n")

def cp1251_file(mb: float) -> None:
    """Rule 5 old vs new, and ``decode_text`` on one cp1251 file of ``mb`` MB."""
    line = RUSSIAN.encode("cp1251")
    data = line * max(1, int(mb * 1e6 / len(line)))
    text = data.decode("cp1252")
    t0 = time.process_time()
    old = _loop_oracle(text, data)
    t_old = time.process_time() - t0
    t0 = time.process_time()
    new = plausible_cp1252(text, data)
    t_new = time.process_time() - t0
    del text
    print(f"cp1251 file, {len(data) / 1e6:.0f} MB: rule 5 loop {t_old:.2f} s CPU, byte counts {t_new:.3f} s CPU, "
          f"same answer: {old == new} ({new})")
    print(f"cp1252_plausibility_cpu_ratio_old_over_new={t_old / t_new:.1f}")
    t0 = time.process_time()
    d = decode_text(data, "big.txt")
    t = time.process_time() - t0
    tracemalloc.start()
    decode_text(data, "big.txt")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"decode_text auto on it: {d.encoding}, {t:.2f} s CPU = {len(data) / 1e6 / t:.1f} MB/s; "
          f"peak traced memory {peak / 1e6:.0f} MB = {peak / len(data):.1f} x the file")


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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n_files", nargs="?", type=int, default=20_000)
    ap.add_argument("--cp1251-mb", type=float, default=40.0, help="size of the cp1251 file (0: skip it)")
    args = ap.parse_args()
    prov = start_run()
    main(args.n_files)
    if args.cp1251_mb > 0:
        cp1251_file(args.cp1251_mb)
