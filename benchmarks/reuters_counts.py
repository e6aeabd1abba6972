"""Print the Reuters-21578 ModApte counts (thesis sec. 4.1.1) and the parse time.

Usage::

    python benchmarks/reuters_counts.py [REUTERS_DIR]

``REUTERS_DIR`` defaults to ``$HBNLAB_REUTERS_DIR``, else the cached copy that
``hbnlab.corpus.fetch_reuters21578`` downloads.  Thesis: 7769 training / 3018 test documents,
90 categories, training-0 5827 / validation 1942 (see ``hbnlab/corpus/reuters.py`` for why this
reader gets 7770 / 3019).
"""
from __future__ import annotations

import os
import sys
import time

from hbnlab.corpus import fetch_reuters21578, load_reuters21578, modapte_counts, train0_validation_split
from hbnlab.experiments.provenance import start_run


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        path = argv[1]
    elif os.environ.get("HBNLAB_REUTERS_DIR"):
        path = os.environ["HBNLAB_REUTERS_DIR"]
    else:
        path = fetch_reuters21578()
    start_run()
    load_reuters21578(path)  # warm the file cache: time the parser, not the disk
    t0 = time.perf_counter()
    corpus = load_reuters21578(path)
    seconds = time.perf_counter() - t0
    counts = modapte_counts(corpus)
    train0, validation = train0_validation_split(corpus)
    meta = corpus.meta
    print(f"source              {path}")
    print(f"parse time          {seconds:.2f} s  (22 files, {meta['n_records']} records)")
    print(f"ModApte records     train {meta['n_modapte_train']}  test {meta['n_modapte_test']}")
    for split in ("train", "test"):
        d = meta["dropped"][split]
        print(f"dropped ({split:5s})     no TOPICS {d['no_topics']}  only categories outside the 90 "
              f"{d['outside_categories']}")
    print(f"categories          {counts['categories']}            (thesis: 90)")
    print(f"train documents     {counts['train']}          (thesis: 7769, literature: 7769)")
    print(f"test documents      {counts['test']}          (thesis: 3018, literature: 3019)")
    print(f"training-0          {len(train0)}          (thesis: 5827)")
    print(f"validation          {len(validation)}          (thesis: 1942)")
    print(f"  training-0 ends   {train0[-1].date}  (NEWID {train0[-1].id})")
    print(f"  validation starts {validation[0].date}  (NEWID {validation[0].id})")
    print(f"title-only docs     train {meta['n_title_only']['train']}  test {meta['n_title_only']['test']}")
    print(f"docs without letters {len(meta['no_letter_ids'])}")
    top = corpus.categories()[:10]
    print("10 most frequent    " + ", ".join(top))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
