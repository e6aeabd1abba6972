"""Time newsgroup stripping (headers, quotes, signature) on messages made of ``--`` lines, the
worst case of issue 37 (item 2), and on a long ordinary message.

Usage::

    python benchmarks/bench_newsgroup_strip.py [--sizes 15,30,60,200] [--repeat 3]

The signature rule measures the part after each delimiter line; measured again from scratch at
every ``--`` line it took 2 s of CPU for 15 KB, 8 s for 30 KB and 29 s for 60 KB.  Measured once
from the end backwards it is linear: the time per KB should stay flat as the size grows.
Reported: the least CPU time over ``R`` runs, and the time per KB.
"""
from __future__ import annotations

import argparse
import time

from hbnlab.experiments.provenance import start_run
from hbnlab.text.newsgroup import strip_newsgroup


def dashes(kb: int) -> str:
    """A message of ``word`` / ``--`` line pairs, ``kb`` KB long."""
    return "From: a@b.c\nSubject: dashes\n\nResults follow.\n" + "word\n--\n" * (kb * 1024 // 8)


def ordinary(kb: int) -> str:
    """Paragraphs of prose with quoted lines and a signature, ``kb`` KB long."""
    para = ("In article <1@x.edu> amy@x.edu writes:\n> a quoted line of the earlier message\n"
            "A line of the reply that belongs to the body of the message.\n\n")
    return "From: a@b.c\nSubject: prose\n\n" + para * (kb * 1024 // len(para)) + "-- \nJoe\n"


def cpu_seconds(text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        strip_newsgroup(text)
        best = min(best, time.process_time() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="15,30,60,200", help="message sizes in KB")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    start_run()
    print(f"{'message':<10}{'KB':>6}{'CPU s':>10}{'ms / KB':>10}")
    for kb in map(int, args.sizes.split(",")):
        for name, make in (("dashes", dashes), ("ordinary", ordinary)):
            s = cpu_seconds(make(kb), args.repeat)
            print(f"{name:<10}{kb:>6}{s:>10.3f}{1000 * s / kb:>10.3f}")


if __name__ == "__main__":
    main()
