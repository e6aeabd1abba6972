"""The Corpus page: counts per split and class, document lengths, the document browser, and the
corpus name as every page shows it (synthetic corpora always marked)."""
from __future__ import annotations

import re

import pandas as pd

from hbnlab.corpus.encoding import BINARY_REASON, Replacement
from hbnlab.text.newsgroup import strip_summary

SYNTHETIC_BADGE = "SYNTHETIC corpus (generated, not real text)"


def corpus_label(name: str, synthetic: bool) -> str:
    """The corpus name as every page shows it; synthetic corpora are always marked."""
    return f"{name} — {SYNTHETIC_BADGE}" if synthetic else name


def _doc_frame(corpus) -> pd.DataFrame:
    docs = corpus.documents
    return pd.DataFrame({
        "id": [d.id for d in docs],
        "split": [d.split for d in docs],
        "labels": [", ".join(sorted(d.labels)) for d in docs],
        "n_labels": [len(d.labels) for d in docs],
        "title": [d.title for d in docs],
        "text": [d.full_text for d in docs],
    })


def config_corpus_label(cfg) -> str:
    """The corpus of an :class:`~hbnlab.pipeline.config.ExperimentConfig` in words."""
    if cfg.corpus == "synthetic":
        what = "topic hierarchy, " if cfg.synthetic_model == "hierarchy" else ""
        return f"synthetic ({what}seed {cfg.synthetic_seed}, {cfg.synthetic_size} documents)"
    if cfg.corpus == "reuters":
        return "Reuters-21578 ModApte"
    stripped = ", newsgroup headers, quotes and signatures removed" if cfg.upload_newsgroup_strip else ""
    return f"upload: {cfg.upload_path.rsplit('/', 1)[-1]}{stripped}"


def corpus_overview(corpus) -> dict:
    """Counts per split and class, labels per document and token lengths of a corpus, and
    ``newsgroup_strip``: the line saying which newsgroup parts were removed from its texts and
    how many documents that changed (``None`` when none were).

    Lengths count maximal runs of ASCII letters (the tokens of the thesis's indexing, sec.
    4.1.2) before stop-word removal.
    """
    df = _doc_frame(corpus)
    summary = corpus.summary()
    classes = pd.DataFrame([{"class": c, "train": v["train"], "test": v["test"]}
                            for c, v in summary["per_category"].items()])
    if classes.empty:
        classes = pd.DataFrame(columns=["class", "train", "test"])
    lengths = df["text"].str.count(r"[A-Za-z]+")
    return {
        "name": corpus.name,
        "synthetic": bool(corpus.synthetic),
        "label": corpus_label(corpus.name, corpus.synthetic),
        "n_documents": summary["n_documents"],
        "n_train": summary["n_train"],
        "n_test": summary["n_test"],
        "n_categories": summary["n_categories"],
        "split_source": summary["split_source"],
        "newsgroup_strip": strip_summary(corpus.meta, len(corpus)),
        "splits": pd.DataFrame({"split": ["train", "test"], "documents": [summary["n_train"], summary["n_test"]]}),
        "classes": classes,
        "labels_per_document": {int(k): int(v) for k, v in df["n_labels"].value_counts().sort_index().items()},
        "lengths": {s: lengths[df["split"] == s].to_numpy() for s in ("train", "test")},
        "mean_length": float(lengths.mean()) if len(lengths) else 0.0,
        "meta": {k: v for k, v in corpus.meta.items() if isinstance(v, (str, int, float, bool))},
        **encoding_report(corpus.meta),
    }


def encoding_report(meta: dict) -> dict:
    """``encodings``: a frame of ``codec, files`` (most files first; empty for a corpus read from
    no text files, e.g. the synthetic one), ``n_decoded_files``, ``replaced_files``: a frame of
    the files whose undecodable bytes became U+FFFD (``file, codec, sequences, where``: the line
    and byte offset of the first ones), ``skipped_files``: a frame of the files the reader did
    not read as documents (``file, reason``) and ``n_binary_files``: how many of those are binary
    data (an image, a PDF, an executable ...)."""
    encs = meta.get("encodings") or {}
    replaced = list(meta.get("replaced_files") or [])
    skipped = list(meta.get("ignored_files") or [])
    return {
        "encodings": pd.DataFrame({"codec": list(encs), "files": [int(v) for v in encs.values()]}),
        "n_decoded_files": int(sum(encs.values())),
        "replaced_files": pd.DataFrame({
            "file": [r["file"] for r in replaced], "codec": [r["encoding"] for r in replaced],
            "sequences": [int(r["replaced"]) for r in replaced],
            "where": ["; ".join(str(Replacement(**f)) for f in r["first"]) for r in replaced]}, dtype=object),
        "skipped_files": pd.DataFrame({"file": [f["file"] for f in skipped], "reason": [f["reason"] for f in skipped]},
                                      dtype=object),
        "n_binary_files": sum(f["reason"].startswith(BINARY_REASON) for f in skipped),
    }


def query_terms(query: str) -> list[str]:
    """The parts of a search query: quoted phrases as written, every other word on its own."""
    parts = [m.group(1) or m.group(2) for m in re.finditer(r'"([^"]+)"|(\S+)', query)]
    return [p.strip() for p in parts if p.strip()]


def search_documents(corpus, query: str = "", *, split: str = "all", limit: int = 200) -> pd.DataFrame:
    """Documents whose id equals ``query`` or whose text (title and body) contains every word of
    it as a word, in any order (case-insensitive: "oil" finds "Oil," but not "boil"); a phrase in
    double quotes must occur as written.

    Returns columns ``id, split, labels, title, preview`` (at most ``limit`` rows, corpus order).
    """
    df = _doc_frame(corpus)
    if split in ("train", "test"):
        df = df[df["split"] == split]
    q = (query or "").strip()
    if q:
        hit = df["text"].notna()
        for part in query_terms(q):       # a whole word: no letter or digit just before or after
            hit &= df["text"].str.contains(rf"(?<!\w){re.escape(part)}(?!\w)", case=False, regex=True)
        df = df[(df["id"] == q) | hit]
    out = df.head(int(limit)).copy()
    out["preview"] = out["text"].str.replace(r"\s+", " ", regex=True).str.slice(0, 140)
    return out[["id", "split", "labels", "title", "preview"]].reset_index(drop=True)
