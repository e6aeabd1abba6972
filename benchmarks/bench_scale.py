"""CPU seconds and peak RSS of every stage against the number of documents (issue 29).

Corpora: realistic synthetic text of 10k, 30k, 100k and 300k documents (:func:`realistic_corpus`:
a Zipf-Mandelbrot vocabulary of 50,000 words whose top ranks are stop words, document lengths
lognormal around 120 tokens, 20 single-label classes with class-specific word boosts, the last 30 %
of the documents the test set), written once as a CSV table and read back with the product's
reader, and the OHSUMED development corpus (a folder per class).

Stages (each in a fresh child process: this script with ``--one SOURCE STAGE``):

* ``read``: :func:`hbnlab.corpus.load_corpus` (CSV table / folder per class);
* ``index``: the 10 most frequent categories and :func:`hbnlab.text.index_corpus` (thesis indexing);
* ``score``: :func:`hbnlab.features.score_terms` (information gain, 10 categories);
* ``NAME@N``: one binary classifier (the most frequent category, the test stage: fit on the training
  set, score the test set) by :func:`hbnlab.pipeline.fit.fit_unit` on the ``N`` best terms, for NB,
  SVM, KNN and HBN-OR (64 EM restarts, Table 4.1's B and alpha);
* ``table410``: a 10-class Table 4.10 run (:func:`hbnlab.experiments.thesis.reproduce_table_4_10`,
  rows ``--table-rows``, the SVM's C tuned on validation);
* the scikit-learn peer on the same texts: ``sk_vectorize`` (``CountVectorizer(binary=True,
  min_df=2)`` fit on the training texts, applied to the test texts), ``sk_chi2`` (``chi2`` against
  the 20-class label) and ``sk_svc@N`` (``LinearSVC`` on the ``N`` best chi2 terms of the same
  category, fit and decision function).

A child's setup (reading, indexing and scoring what the stage needs, or loading the prepared data a
former child pickled in ``--workdir``; a small warm-up fit that compiles the numba kernels) is
reported apart.  CPU seconds are ``time.process_time()`` around the stage only; peak RSS is the
child's high-water mark during the stage (``VmHWM`` after resetting it through
``/proc/self/clear_refs`` once the setup is done), so it includes the stage's input held in memory.
Every child runs under ``threadpool_limits(1)`` with one numba / BLAS thread.

Per stage, the growth exponent is the least-squares slope of log(cpu) on log(documents) over the
synthetic sizes measured.

Usage::

    .venv/bin/python benchmarks/bench_scale.py [--sizes 10000,30000,100000,300000] [--ohsumed DIR|none]
        [--stages read,index,...] [--quick] [--table-rows NB:30,SVM:30,HBN-OR:30] [--stage-timeout 1200]
        [--workdir DIR] [--json OUT]
    .venv/bin/python benchmarks/bench_scale.py --one syn:100000 HBN-OR@300 [--profile 25]
    .venv/bin/python benchmarks/bench_scale.py --table OUT.json[,MORE.json]

Each stage prints ``<stage> <n_docs> cpu <s> rss_mb <MB>`` followed by its setup; ratio lines read
``read+index+score / sklearn(vectorizer+chi2) at 100000 docs = 1.37``.
"""
from __future__ import annotations

import argparse
import csv
import gc
import json
import math
import os
import pickle
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from hbnlab.experiments.provenance import stamp, start_run

OHSUMED = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "ohsumed_single_23"
CLASSIFIERS = ("NB", "SVM", "KNN", "HBN-OR")
TERMS = (30, 300)
PRODUCT_STAGES = ("read", "index", "score", *(f"{c}@{n}" for c in CLASSIFIERS for n in TERMS), "table410")
SKLEARN_STAGES = ("sk_vectorize", "sk_chi2", *(f"sk_svc@{n}" for n in TERMS))
STAGES = PRODUCT_STAGES + SKLEARN_STAGES
TABLE_ROWS = "NB:30,SVM:30,HBN-OR:30"
SINGLE_THREAD_ENV = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                      "NUMBA_NUM_THREADS")}

# Realistic synthetic text.
VOCABULARY_SIZE = 50_000
N_STOP_RANKS = 150  # the most frequent ranks are stop words, as in English text
ZIPF_SHIFT, ZIPF_EXPONENT = 2.7, 1.0
LENGTH_MEDIAN, LENGTH_SIGMA, LENGTH_MIN = 120, 0.7, 5
N_CLASSES = 20
CLASS_WORDS, CLASS_RANKS = 300, (300, 30_000)
P_CLASS_TOKEN = 0.08
TEST_FRACTION = 0.3


# ---------------------------------------------------------------------------- realistic text
def _pseudo_words(n: int, forbidden: frozenset, rng: np.random.Generator) -> list[str]:
    """``n`` distinct letters-only words of 2-4 consonant-vowel syllables (an optional final consonant)."""
    cons, vows = list("bcdfghklmnprstvz"), list("aeiou")
    syll = [c + v for c in cons for v in vows]
    out, seen = [], set(forbidden)
    while len(out) < n:
        k = 4 * (n - len(out)) + 100
        n_syll = rng.integers(2, 5, size=k)
        parts = rng.integers(len(syll), size=(k, 4))
        final = rng.integers(len(cons) + 8, size=k)  # no final consonant for the last 8 values
        for i in range(k):
            w = "".join(syll[j] for j in parts[i, : n_syll[i]]) + (cons[final[i]] if final[i] < len(cons) else "")
            if w not in seen:
                seen.add(w)
                out.append(w)
                if len(out) == n:
                    break
    return out


def realistic_vocabulary(random_state: int = 0) -> tuple[list[str], np.ndarray]:
    """The words by decreasing frequency and their cumulative Zipf-Mandelbrot probabilities."""
    from hbnlab.text.stopwords import load_stopwords

    rng = np.random.default_rng(random_state)
    stop = sorted(load_stopwords("thesis"))
    stop_top = [stop[i] for i in rng.permutation(len(stop))[:N_STOP_RANKS]]
    words = stop_top + _pseudo_words(VOCABULARY_SIZE - len(stop_top), frozenset(stop), rng)
    p = 1.0 / (np.arange(VOCABULARY_SIZE) + ZIPF_SHIFT) ** ZIPF_EXPONENT
    cdf = np.cumsum(p / p.sum())
    cdf[-1] = 1.0
    return words, cdf


def realistic_corpus(n_documents: int, path: Path, *, random_state: int = 0, chunk: int = 5000) -> dict:
    """Write ``n_documents`` documents to the CSV table ``path`` (columns id, text, labels, split).

    Tokens are drawn from the Zipf-Mandelbrot vocabulary of :func:`realistic_vocabulary`; a token of
    a document of class ``k`` is, with probability ``P_CLASS_TOKEN``, one of the class's
    ``CLASS_WORDS`` words instead (uniform; drawn from the mid-frequency ranks ``CLASS_RANKS``).
    Lengths are lognormal (median ``LENGTH_MEDIAN``, sigma ``LENGTH_SIGMA``, at least ``LENGTH_MIN``);
    classes have priors proportional to ``1 / sqrt(k + 1)``; the last ``TEST_FRACTION`` of the
    documents is the test set.  Returns counts (documents, tokens, bytes).
    """
    rng = np.random.default_rng(random_state)
    words, cdf = realistic_vocabulary(random_state)
    vocab = np.array(words, dtype=object)
    class_words = np.stack([rng.choice(np.arange(*CLASS_RANKS), CLASS_WORDS, replace=False)
                            for _ in range(N_CLASSES)])
    prior = 1.0 / np.sqrt(np.arange(N_CLASSES) + 1.0)
    n_test = int(round(n_documents * TEST_FRACTION))
    tokens = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["id", "text", "labels", "split"])
        for start in range(0, n_documents, chunk):
            n = min(chunk, n_documents - start)
            cls = rng.choice(N_CLASSES, size=n, p=prior / prior.sum())
            if start == 0:
                cls[: min(n, N_CLASSES)] = np.arange(min(n, N_CLASSES))  # every class occurs
            lengths = np.maximum(LENGTH_MIN, np.rint(rng.lognormal(math.log(LENGTH_MEDIAN), LENGTH_SIGMA, n)))
            lengths = lengths.astype(np.int64)
            tok_doc = np.repeat(np.arange(n), lengths)
            ids = np.searchsorted(cdf, rng.random(tok_doc.size), side="right")
            boost = rng.random(tok_doc.size) < P_CLASS_TOKEN
            ids[boost] = class_words[cls[tok_doc[boost]], rng.integers(CLASS_WORDS, size=int(boost.sum()))]
            toks = vocab[ids].tolist()
            bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
            for i in range(n):
                d = start + i
                out.writerow([f"d{d:07d}", " ".join(toks[bounds[i]: bounds[i + 1]]), f"c{cls[i]:02d}",
                              "test" if d >= n_documents - n_test else "train"])
            tokens += int(lengths.sum())
    tmp.replace(path)
    return {"documents": n_documents, "tokens": tokens, "bytes": path.stat().st_size}


# ---------------------------------------------------------------------------- one stage (child)
def _rss_mb(field: str) -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _source_path(source: str, workdir: Path, ohsumed: Path) -> Path:
    return ohsumed if source == "ohsumed" else workdir / f"synthetic_{int(source.split(':')[1])}.csv"


def _read(path: Path):
    from hbnlab.corpus import load_corpus
    from hbnlab.corpus.readers import read_table

    return read_table(path, max_bytes=None) if path.suffix == ".csv" else load_corpus(str(path))


def _index(corpus):
    from hbnlab.pipeline.data import resolve_categories
    from hbnlab.text import IndexingConfig, index_corpus

    return index_corpus(corpus, IndexingConfig(), categories=resolve_categories(corpus, None, 10))


def _protocol_data(source: str, path: Path, workdir: Path, corpus=None):
    """The prepared data (10 categories, information gain), from the pickle a former child left."""
    from hbnlab.pipeline.data import prepare

    cache = workdir / f"prepared_{source.replace(':', '_')}.pkl"
    if cache.exists():
        with open(cache, "rb") as fh:
            return pickle.load(fh)
    data = prepare(corpus if corpus is not None else _read(path), n_categories=10).without_documents()
    tmp = cache.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
    tmp.replace(cache)
    return data


def _warm_up(data, name: str, n_terms: int) -> None:
    """Fit ``name`` once on 2,000 training rows so that compiling the numba kernels is setup."""
    from hbnlab.models.catalog import make_classifier

    label = data.categories[0]
    cols = data.selected_columns(label, n_terms)
    X = data.X_train[:2000][:, cols]
    y = data.Y_train[:2000, 0].astype(np.int8)
    if 0 < y.sum() < y.size:
        make_classifier(name, None, {"n_restarts": 2} if name.startswith("HBN") else None).fit(X, y).predict_proba(X)


def _sk_inputs(corpus):
    train, test = list(corpus.train), list(corpus.test)
    return (corpus.texts(train), corpus.texts(test), np.array([sorted(d.labels)[0] for d in train]),
            np.array([sorted(d.labels)[0] for d in test]))


def _sk_vectorize(tr, te):
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(binary=True, min_df=2)
    return vec.fit_transform(tr), vec.transform(te)


def run_one(source: str, stage: str, workdir: Path, ohsumed: Path, table_rows: str, profile: int = 0) -> dict:
    """Set up, then measure one stage in this process; returns the measurements."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        t_setup = time.process_time()
        # every module a stage uses is imported here, so that import time is setup
        import sklearn.feature_extraction.text  # noqa: F401
        import sklearn.feature_selection  # noqa: F401
        import sklearn.svm  # noqa: F401

        import hbnlab.corpus.readers  # noqa: F401
        import hbnlab.experiments.thesis  # noqa: F401
        import hbnlab.features  # noqa: F401
        import hbnlab.pipeline.data  # noqa: F401
        import hbnlab.pipeline.fit  # noqa: F401
        import hbnlab.text  # noqa: F401
        path = _source_path(source, workdir, ohsumed)
        info: dict = {}
        if stage == "read":
            def work():
                c = _read(path)
                info["documents"] = len(c.documents)
        elif stage == "index":
            corpus = _read(path)

            def work():
                ic = _index(corpus)
                info["terms"] = ic.n_terms
        elif stage == "score":
            ic = _index(_read(path))

            def work():
                from hbnlab.features import score_terms

                score_terms(ic.X_train, ic.Y_train, method="ig")
        elif stage.startswith("sk_"):
            corpus = _read(path)
            tr, te, ytr, yte = _sk_inputs(corpus)
            del corpus
            if stage == "sk_vectorize":
                def work():
                    Xtr, _ = _sk_vectorize(tr, te)
                    info["terms"] = Xtr.shape[1]
            else:
                Xtr, Xte = _sk_vectorize(tr, te)
                del tr, te
                from sklearn.feature_selection import chi2
                from sklearn.svm import LinearSVC

                if stage == "sk_chi2":
                    def work():
                        chi2(Xtr, ytr)
                else:
                    n = int(stage.split("@")[1])
                    label = max(set(ytr.tolist()), key=lambda c: (int((ytr == c).sum()), c))
                    y = ytr == label
                    cols = np.argsort(-np.nan_to_num(chi2(Xtr, y)[0]), kind="stable")[:n]
                    Xf, Xe = Xtr[:, cols], Xte[:, cols]

                    def work():
                        LinearSVC().fit(Xf, y).decision_function(Xe)
        else:
            from hbnlab.experiments.thesis import reproduce_table_4_10
            from hbnlab.pipeline.fit import fit_unit

            data = _protocol_data(source, path, workdir)
            if stage == "table410":
                rows = [(r.split(":")[0], int(r.split(":")[1])) for r in table_rows.split(",")]
                for name in {r[0] for r in rows}:
                    _warm_up(data, name, 30)

                def work():
                    res = reproduce_table_4_10(data, rows)
                    info["micro"] = {f"{r['classifier']}@{r['n_features']}": r["micro"] for r in res["rows"]}
            else:
                name, n = stage.split("@")
                _warm_up(data, name, int(n))
                label = data.categories[0]

                def work():
                    res = fit_unit(data, label, name, n_features=int(n), stage="test")
                    info["fit_seconds"] = round(float(res.seconds), 3)
        setup_cpu = time.process_time() - t_setup
        gc.collect()
        setup_rss = _rss_mb("VmRSS")
        exact = _reset_peak()
        prof = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        t0 = time.process_time()
        work()
        cpu = time.process_time() - t0
        if prof is not None:
            prof.disable()
        peak = _rss_mb("VmHWM") if exact else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if stage == "score":
            _protocol_data(source, path, workdir)  # the classifier stages load it
    if prof is not None:
        import pstats

        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(profile)
        pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(profile)
    return {"source": source, "stage": stage, "cpu": round(cpu, 3), "rss_mb": round(peak, 1),
            "setup_cpu": round(setup_cpu, 3), "setup_rss_mb": round(setup_rss, 1), "peak_exact": exact, **info}


# ---------------------------------------------------------------------------- driver (parent)
def n_docs_of(source: str, ohsumed: Path) -> int:
    if source == "ohsumed":
        return sum(1 for p in ohsumed.glob("*/*/*") if p.is_file())
    return int(source.split(":")[1])


def measure(source: str, stage: str, args) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", source, stage, "--workdir", str(args.workdir),
           "--ohsumed", str(args.ohsumed), "--table-rows", args.table_rows]
    env = {**os.environ, **SINGLE_THREAD_ENV}
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.stage_timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"source": source, "stage": stage, "error": f"timeout after {args.stage_timeout} s (with setup)"}
    wall = time.perf_counter() - t0
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return {**json.loads(line[7:]), "child_wall": round(wall, 1)}
    tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
    return {"source": source, "stage": stage, "error": f"exit {p.returncode}: {tail[:300]}"}


def growth_exponent(points: list[tuple[int, float]]) -> float | None:
    pts = [(n, c) for n, c in points if c and c > 0]
    if len(pts) < 2:
        return None
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def _get(results, source, stage, key="cpu"):
    for r in results:
        if r["source"] == source and r["stage"] == stage and "error" not in r:
            return r.get(key)
    return None


def summary(doc: dict) -> list[str]:
    """The exponent and ratio lines of a result document."""
    res, sizes = doc["results"], doc["sizes"]
    lines = []
    for stage in doc["stages"]:
        e = growth_exponent([(n, _get(res, f"syn:{n}", stage)) for n in sizes])
        if e is not None:
            lines.append(f"growth exponent {stage} = {e:.2f}" + ("" if e <= 1.1 else "  (target <= 1.1)"))
    for source in [f"syn:{n}" for n in sizes] + (["ohsumed"] if doc.get("ohsumed_docs") else []):
        n = doc["ohsumed_docs"] if source == "ohsumed" else int(source.split(":")[1])
        what = f"{n} docs" + (" (OHSUMED)" if source == "ohsumed" else "")
        ours = [_get(res, source, s) for s in ("read", "index", "score")]
        peer = [_get(res, source, s) for s in ("sk_vectorize", "sk_chi2")]
        if None not in peer:
            if None not in ours:
                lines.append(f"read+index+score / sklearn(vectorizer+chi2) at {what} = "
                             f"{sum(ours) / sum(peer):.2f}")
            if None not in ours[1:]:
                lines.append(f"index+score / sklearn(vectorizer+chi2) at {what} = {sum(ours[1:]) / sum(peer):.2f}")
        for n_terms in TERMS:
            a, b = _get(res, source, f"SVM@{n_terms}"), _get(res, source, f"sk_svc@{n_terms}")
            if a and b:
                lines.append(f"SVM@{n_terms} / sklearn(LinearSVC@{n_terms}) at {what} = {a / b:.2f}")
    peaks = [(r["rss_mb"], r["source"], r["stage"]) for r in res if "error" not in r]
    if peaks:
        top = max(peaks)
        lines.append(f"largest peak RSS {top[0]:.0f} MB ({top[2]} at {top[1]})" +
                     ("" if top[0] < 2048 else "  (target < 2048 MB)"))
    for n, target in ((10_000, 3.0), (100_000, 15.0)):
        c = _get(res, f"syn:{n}", "HBN-OR@300")
        if c is not None:
            lines.append(f"HBN-OR@300 (64 restarts) at {n} docs = {c:.2f} s (target < {target:g} s)")
    return lines


def merge(docs: list[dict]) -> dict:
    """One result document from several runs (sizes in increasing order; a later run's measurement of
    a source and stage replaces an earlier one)."""
    out = {**docs[0], "results": [], "generated": {}, "command": [d["command"] for d in docs]}
    seen = {}
    for d in docs:
        out["generated"].update(d.get("generated", {}))
        out["ohsumed_docs"] = out.get("ohsumed_docs") or d.get("ohsumed_docs", 0)
        for s in d["stages"]:
            if s not in out["stages"]:
                out["stages"].append(s)
        for r in d["results"]:
            seen[(r["source"], r["stage"])] = r
    out["sizes"] = sorted({n for d in docs for n in d["sizes"]})
    out["results"] = list(seen.values())
    return out


def markdown_table(doc: dict) -> str:
    sources = [f"syn:{n}" for n in doc["sizes"]] + (["ohsumed"] if doc.get("ohsumed_docs") else [])
    head = "| stage | " + " | ".join(
        (f"{int(s.split(':')[1]) // 1000}k" if s != "ohsumed" else f"OHSUMED {doc['ohsumed_docs']}")
        for s in sources) + " | exponent |"
    lines = [head, "|" + "---|" * (len(sources) + 2)]
    for stage in doc["stages"]:
        cells = []
        for s in sources:
            r = next((r for r in doc["results"] if r["source"] == s and r["stage"] == stage), None)
            if r is None:
                cells.append("")
            elif "error" in r:
                cells.append(f"**{r['error'][:40]}**")
            else:
                cells.append(f"{r['cpu']:.2f} s / {r['rss_mb']:.0f} MB")
        e = growth_exponent([(n, _get(doc["results"], f"syn:{n}", stage)) for n in doc["sizes"]])
        lines.append(f"| {stage} | " + " | ".join(cells) + f" | {'' if e is None else f'{e:.2f}'} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,30000,100000,300000")
    ap.add_argument("--quick", action="store_true", help="sizes 2000,5000 and no OHSUMED (a smoke run)")
    ap.add_argument("--stages", default=",".join(STAGES))
    ap.add_argument("--ohsumed", default=str(OHSUMED), help="the OHSUMED folder, or 'none'")
    ap.add_argument("--table-rows", default=TABLE_ROWS, help="rows of the table410 stage, NAME:TERMS,...")
    ap.add_argument("--stage-timeout", type=float, default=1200.0, help="seconds per child, setup included")
    ap.add_argument("--workdir", default="/tmp/hbnlab_bench_scale", help="generated corpora and prepared data")
    ap.add_argument("--json", help="write the measurements here")
    ap.add_argument("--one", nargs=2, metavar=("SOURCE", "STAGE"), help="measure one stage in this process")
    ap.add_argument("--profile", type=int, default=0, help="with --one: print the top N cProfile lines")
    ap.add_argument("--table", help="print the table and summary of --json files (comma-separated: merged)")
    args = ap.parse_args()
    args.workdir = Path(args.workdir)
    args.ohsumed = Path(args.ohsumed)
    if args.table:
        doc = merge([json.loads(Path(f).read_text()) for f in args.table.split(",")])
        print(markdown_table(doc))
        print("\n".join(summary(doc)))
        return
    if args.one:
        out = run_one(*args.one, args.workdir, args.ohsumed, args.table_rows, args.profile)
        print("RESULT " + json.dumps(out), flush=True)
        return
    prov = start_run()
    sizes = [2000, 5000] if args.quick else [int(s) for s in args.sizes.split(",") if s]
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        ap.error(f"unknown stage(s) {unknown}; known: {', '.join(STAGES)}")
    use_ohsumed = not args.quick and str(args.ohsumed) != "none" and args.ohsumed.is_dir()
    doc = {"command": " ".join(sys.argv), "sizes": sizes, "stages": stages, "table_rows": args.table_rows,
           "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0], "load_average": os.getloadavg()},
           "generated": {}, "results": [], "ohsumed_docs": n_docs_of("ohsumed", args.ohsumed) if use_ohsumed else 0}
    sources = [f"syn:{n}" for n in sizes] + (["ohsumed"] if use_ohsumed else [])
    for source in sources:
        n = n_docs_of(source, args.ohsumed)
        # the prepared data of a former run may come from other code: every run prepares afresh
        (args.workdir / f"prepared_{source.replace(':', '_')}.pkl").unlink(missing_ok=True)
        if source != "ohsumed":
            path = _source_path(source, args.workdir, args.ohsumed)
            if not path.exists():
                t0 = time.process_time()
                gen = realistic_corpus(n, path)
                gen["cpu"] = round(time.process_time() - t0, 2)
                doc["generated"][source] = gen
                print(f"generated {n} docs: {gen['tokens']} tokens, {gen['bytes'] / 2**20:.0f} MB, "
                      f"{gen['cpu']:.1f} s CPU", flush=True)
        for stage in stages:
            r = measure(source, stage, args)
            doc["results"].append(r)
            if "error" in r:
                print(f"{stage} {n} error {r['error']}", flush=True)
            else:
                extra = {k: v for k, v in r.items() if k in ("micro", "terms")}
                print(f"{stage} {n} cpu {r['cpu']:.2f} rss_mb {r['rss_mb']:.0f}  (setup cpu {r['setup_cpu']:.1f} "
                      f"rss_mb {r['setup_rss_mb']:.0f}){'  ' + json.dumps(extra) if extra else ''}", flush=True)
            if args.json:
                Path(args.json).write_text(json.dumps(stamp(doc, prov), indent=1))
    print()
    print(markdown_table(doc))
    print("\n".join(summary(doc)))


if __name__ == "__main__":
    main()
