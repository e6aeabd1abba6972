"""The computations behind the pages, on plain data (no Streamlit in this module).

Pages never do arithmetic: they call :mod:`hbnlab.app.services`, which caches these functions.
Keeping them free of Streamlit lets the tests call them directly (tests/app/test_analysis.py).

* corpus summaries and the document browser;
* the term table of a class;
* :class:`TrainOutputs` -- a finished "train" job's scores aligned with the evaluation labels,
  and every table of the Evaluation page (breakeven per class x classifier with micro / macro
  rows and, on Reuters ModApte, thesis Table 4.10 beside ours; 11-point average precision;
  F1@k; PR curves; threshold statistics);
* :func:`explain_document` -- the Explain page: highlighted text, the tree coloured by
  P(node = 1 | document), each subtree's contribution to the log-odds, the terms pushing the
  score up and down;
* exports (CSV, Markdown) and the job table.
"""
from __future__ import annotations

import html
import json
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from hbnlab.experiments import paper_values as pv

SYNTHETIC_BADGE = "SYNTHETIC corpus (generated, not real text)"


# --------------------------------------------------------------------------- corpus
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


def corpus_overview(corpus) -> dict:
    """Counts per split and class, labels per document and token lengths of a corpus.

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
        "splits": pd.DataFrame({"split": ["train", "test"], "documents": [summary["n_train"], summary["n_test"]]}),
        "classes": classes,
        "labels_per_document": {int(k): int(v) for k, v in df["n_labels"].value_counts().sort_index().items()},
        "lengths": {s: lengths[df["split"] == s].to_numpy() for s in ("train", "test")},
        "mean_length": float(lengths.mean()) if len(lengths) else 0.0,
        "meta": {k: v for k, v in corpus.meta.items() if isinstance(v, (str, int, float, bool))},
    }


def search_documents(corpus, query: str = "", *, split: str = "all", limit: int = 200) -> pd.DataFrame:
    """Documents whose id equals ``query`` or whose text contains it (case-insensitive).

    Returns columns ``id, split, labels, title, preview`` (at most ``limit`` rows, corpus order).
    """
    df = _doc_frame(corpus)
    if split in ("train", "test"):
        df = df[df["split"] == split]
    q = (query or "").strip()
    if q:
        hit = (df["id"] == q) | df["text"].str.contains(q, case=False, regex=False)
        df = df[hit]
    out = df.head(int(limit)).copy()
    out["preview"] = out["text"].str.replace(r"\s+", " ", regex=True).str.slice(0, 140)
    return out[["id", "split", "labels", "title", "preview"]].reset_index(drop=True)


# --------------------------------------------------------------------------- features
def feature_table(data, label: str, n_features: int, scope: str = "local") -> pd.DataFrame:
    """The selected terms of ``label``: rank, term, score, training documents with the term in
    and outside the class."""

    j = data.category_index(label)
    cols = data.selected_columns(label, n_features, scope)
    X = data.indexed.X_train[:, cols]
    y = data.indexed.Y_train[:, j]
    present = (X > 0).astype(np.int64)
    in_class = np.asarray(present[y].sum(axis=0)).ravel()
    outside = np.asarray(present[~y].sum(axis=0)).ravel()
    n_pos = int(y.sum())
    return pd.DataFrame({
        "rank": np.arange(1, cols.size + 1),
        "term": [data.vocabulary[c] for c in cols],
        "score": data.scores[cols, j],
        "docs in class": in_class,
        "docs outside": outside,
        "P(term | class)": in_class / max(n_pos, 1),
        "P(term | not class)": outside / max(y.size - n_pos, 1),
    })


def selected_terms_overview(data, n_features: int, scope: str = "local") -> pd.DataFrame:
    """One column per category with its selected terms, best first."""

    cols = {c: [data.vocabulary[t] for t in data.selected_columns(c, n_features, scope)] for c in data.categories}
    return pd.DataFrame(cols, index=pd.RangeIndex(1, n_features + 1, name="rank")) if cols else pd.DataFrame()


# --------------------------------------------------------------------------- structure
def tree_summary(tree) -> dict:
    """Counts that describe a tree (shown under the diagram)."""
    below = tree.children(0)
    return {
        "features": tree.n_features,
        "hidden nodes": len(tree.hidden_nodes()),
        "depth": max(tree.depth(i) for i in range(tree.n_nodes)),
        "nodes at the class": len(below),
        "features at the class": [tree.names[i] for i in below if tree.kind[i] == "feature"],
    }


def stable_tree_dot(tree, node_fill: dict | None = None, node_label: dict | None = None) -> str:
    """:meth:`TreeStructure.to_dot` with node ids that depend on what a node is (``class``,
    ``hidden3``, ``term:trade``) instead of its position.

    The browser animates a redraw by matching node ids; with positional ids a box (a term) can
    be matched to an ellipse (a hidden node) of the next tree and the shape is lost in the
    transition.  Stable ids keep each shape with its node.
    """
    import re

    def ident(i: int) -> str:
        k = tree.kind[i]
        name = tree.names[i].replace("\\", "\\\\").replace('"', '\\"')
        if k == "class":
            return '"class"'
        return f'"hidden:{name}"' if k == "hidden" else f'"term:{tree.feature[i]}:{name}"'

    node = re.compile(r"^(\s*)n(\d+) \[")
    edge = re.compile(r"^(\s*)n(\d+) -> n(\d+);$")
    out = []
    for line in tree.to_dot(node_fill=node_fill, node_label=node_label).splitlines():
        m = edge.match(line)
        if m:
            line = f"{m.group(1)}{ident(int(m.group(2)))} -> {ident(int(m.group(3)))};"
        else:
            m = node.match(line)
            if m:
                line = f"{m.group(1)}{ident(int(m.group(2)))} [" + line[m.end():]
        out.append(line)
    return "\n".join(out)


def dot_layout(dot: str, direction: str = "LR") -> str:
    """The DOT source drawn ``"TB"`` (top-down, as the thesis's figures) or ``"LR"`` (left to
    right: wide trees of 30+ terms stay legible on a screen)."""
    if direction not in ("TB", "LR", "BT", "RL"):
        raise ValueError(f"direction must be TB, LR, BT or RL, got {direction!r}")
    return dot.replace("rankdir=TB", f"rankdir={direction}", 1)


# --------------------------------------------------------------------------- evaluation
def _f1(p, r):
    p, r = np.asarray(p, float), np.asarray(r, float)
    s = p + r
    return np.divide(2 * p * r, s, out=np.zeros_like(s), where=s > 0)


@dataclass
class TrainOutputs:
    """A finished train job's evaluation scores aligned with the labels of its split.

    ``S[:, k]`` holds P(class | document) of unit ``columns[k]`` (``"class|classifier"``) for
    the evaluation documents ``doc_ids``; ``Y[:, j]`` is the truth for ``classes[j]``.
    """

    job_id: int
    result: dict
    S: np.ndarray
    doc_ids: list
    columns: list
    classes: list
    classifiers: list
    Y: np.ndarray
    stage: str
    corpus_name: str
    synthetic: bool
    n_features: int
    units: list = field(default_factory=list)

    @classmethod
    def build(cls, job_id, result, S, doc_ids, columns, data) -> "TrainOutputs":
        stage = result.get("stage", "test")
        _, _, _, Y_eval, eval_docs = data.split(stage)
        ids = [d.id for d in eval_docs]
        if ids != list(doc_ids):
            raise ValueError(f"job {job_id}: its evaluation documents differ from the current corpus "
                             f"({len(doc_ids)} vs {len(ids)} documents); reload the corpus it was trained on")
        classes = list(result["classes"])
        Y = Y_eval[:, [data.category_index(c) for c in classes]]
        return cls(job_id, result, np.asarray(S, float), list(doc_ids), list(columns), classes,
                   list(result["classifiers"]), Y.astype(bool), stage, result.get("corpus", ""),
                   bool(result.get("synthetic")), int(result["config"].get("n_features", 30)),
                   list(result.get("units", [])))

    # ---------------------------------------------------------------- lookups
    def unit(self, key: str) -> dict:
        for u in self.units:
            if f"{u['class']}|{u['classifier']}" == key:
                return u
        raise KeyError(f"job {self.job_id} has no model {key!r}; it has {self.columns}")

    def column(self, label: str, classifier: str) -> int:
        return self.columns.index(f"{label}|{classifier}")

    def scores_of(self, classifier: str) -> np.ndarray:
        """(n_documents, n_classes) scores of one classifier, columns in ``classes`` order."""
        return self.S[:, [self.column(c, classifier) for c in self.classes]]

    def y_of(self, label: str) -> np.ndarray:
        return self.Y[:, self.classes.index(label)]

    def compare_with_thesis(self) -> bool:
        """Thesis Table 4.10 applies: Reuters ModApte, test split."""
        from hbnlab.pipeline.corpus_spec import is_reuters_modapte

        return is_reuters_modapte(self.corpus_name) and self.stage == "test"

    # ---------------------------------------------------------------- tables
    def breakeven_frame(self) -> pd.DataFrame:
        """Breakeven (%) per class x classifier with micro and macro rows (thesis sec. 4.1.3:
        micro pools every decision of the classes, macro averages the per-class values).
        On Reuters ModApte test, a ``thesis <name>`` column from Table 4.10 follows each of ours."""
        from hbnlab.evaluation import breakeven_table

        cols = {}
        for name in self.classifiers:
            t = breakeven_table(self.Y, self.scores_of(name), self.classes)
            cols[name] = t["breakeven"]
            if self.compare_with_thesis():
                row = pv.table_4_10_row(name, self.n_features)
                if row is not None:
                    ref = {**row["per_class"], "micro": row["micro"], "macro": row["macro"]}
                    cols[f"thesis {name}"] = pd.Series([ref.get(i, np.nan) for i in t.index], index=t.index)
        frame = pd.DataFrame(cols)
        frame.index.name = "class"
        return frame

    def ranking_frame(self, ks=(1, 3, 5)) -> pd.DataFrame:
        """Per classifier: micro / macro breakeven, 11-point average precision and F1@k (micro
        and macro), in percent (de Campos et al., sec. 4).  The ranking measures rank the
        trained classes for each document, so they need at least two classes."""
        from hbnlab.evaluation import eleven_point_average_precision, f1_at_k, macro_breakeven, micro_breakeven

        rows = []
        n = len(self.classes)
        for name in self.classifiers:
            S = self.scores_of(name)
            row = {"classifier": name, "micro breakeven": 100 * micro_breakeven(self.Y, S),
                   "macro breakeven": 100 * macro_breakeven(self.Y, S)}
            if n >= 2:
                row["11-pt avg precision"] = 100 * float(eleven_point_average_precision(self.Y, S))
                for k in ks:
                    if k <= n:
                        row[f"F1@{k} micro"] = 100 * float(f1_at_k(self.Y, S, k, average="micro"))
                        row[f"F1@{k} macro"] = 100 * float(f1_at_k(self.Y, S, k, average="macro"))
            rows.append(row)
        return pd.DataFrame(rows).set_index("classifier")

    def pr_curve(self, label: str, classifier: str):
        """``(precision, recall, breakeven)`` of one unit (breakeven as a fraction)."""
        from hbnlab.evaluation import breakeven_point, pr_curve

        y, s = self.y_of(label), self.S[:, self.column(label, classifier)]
        p, r, _ = pr_curve(y, s)
        return p, r, float(breakeven_point(y, s))

    def threshold_curve(self, label: str, classifier: str):
        """``(thresholds, precision, recall, f1)`` of assigning the class where score >= t."""
        from hbnlab.evaluation import pr_curve

        p, r, t = pr_curve(self.y_of(label), self.S[:, self.column(label, classifier)])
        p, r = p[:-1], r[:-1]  # drop the appended (P=1, R=0) point: it has no threshold
        return t, p, r, _f1(p, r)

    def threshold_stats(self, label: str, classifier: str, threshold: float) -> dict:
        from hbnlab.evaluation import precision_recall_f1_at_threshold

        y, s = self.y_of(label), self.S[:, self.column(label, classifier)]
        p, r, f1 = precision_recall_f1_at_threshold(y, s, float(threshold))
        return {"precision": p, "recall": r, "F1": f1, "assigned": int((s >= threshold).sum()),
                "positives": int(y.sum())}

    def document_scores(self) -> pd.DataFrame:
        df = pd.DataFrame(self.S, columns=self.columns)
        df.insert(0, "doc_id", self.doc_ids)
        for j, c in enumerate(self.classes):
            df[f"true:{c}"] = self.Y[:, j].astype(int)
        return df

    def units_frame(self) -> pd.DataFrame:
        rows = []
        for u in self.units:
            rows.append({"class": u["class"], "classifier": u["classifier"],
                         "breakeven (%)": 100 * u.get("breakeven", np.nan), "seconds": u.get("seconds"),
                         "EM iterations": u.get("n_iter"), "converged": u.get("converged"),
                         "log-likelihood": u.get("loglik")})
        return pd.DataFrame(rows)

    def ranked_documents(self, label: str, classifier: str, limit: int = 50) -> pd.DataFrame:
        s = self.S[:, self.column(label, classifier)]
        order = np.argsort(-s, kind="stable")[:limit]
        return pd.DataFrame({"doc_id": [self.doc_ids[i] for i in order], "score": s[order],
                             "true": self.y_of(label)[order].astype(bool)})


# --------------------------------------------------------------------------- explanations
@dataclass
class Explanation:
    """Why a model scored a document as it did.

    ``terms``: columns ``term, present, contribution`` (to the class log-odds; positive pushes
    towards the class); ``nodes`` (tree models): ``node, kind, P(node=1 | doc), contribution``.
    ``method`` says how contributions are defined for this model.
    """

    doc_id: str
    label: str
    classifier: str
    probability: float
    log_odds: float
    true_label: bool
    text_html: str
    terms: pd.DataFrame
    method: str
    tree_dot: str | None = None
    nodes: pd.DataFrame | None = None
    verdict: str = ""


def _heat(p: float) -> str:
    """White (0) to deep orange (1) for P(node = 1 | document)."""
    p = float(np.clip(p if np.isfinite(p) else 0.0, 0.0, 1.0))
    r, g, b = 255, int(255 - 140 * p), int(255 - 230 * p)
    return f"#{r:02x}{g:02x}{b:02x}"


def _signed_color(v: float, scale: float) -> str:
    """Red for positive, blue for negative contributions; intensity by |v| / scale."""
    a = float(np.clip(abs(v) / scale, 0.15, 1.0)) if scale > 0 else 0.15
    if v >= 0:
        return f"rgba(231, 76, 60, {a:.2f})"
    return f"rgba(52, 152, 219, {a:.2f})"


def highlight_html(text: str, spans, weights: dict) -> str:
    """HTML of ``text`` with the tokens whose term is in ``weights`` marked.

    ``spans`` are ``(start, end, term)`` from :meth:`hbnlab.text.TermIndexer.token_spans`; the
    mark's colour is the term's contribution (red up, blue down) and its tooltip the value.
    """
    scale = max([abs(v) for v in weights.values()] + [1e-9])
    out, pos = [], 0
    for start, end, term in spans:
        if term not in weights:
            continue
        out.append(html.escape(text[pos:start]))
        w = weights[term]
        out.append(f'<mark style="background:{_signed_color(w, scale)};padding:0 2px;border-radius:3px" '
                   f'title="{html.escape(term)}: {w:+.3f}">{html.escape(text[start:end])}</mark>')
        pos = end
    out.append(html.escape(text[pos:]))
    body = "".join(out).replace("\n", "<br/>")
    return f'<div style="line-height:1.7;font-family:Georgia,serif">{body}</div>'


def explain_document(est, data, doc, *, label: str, classifier: str) -> Explanation:
    """Explain one document's score under one trained binary model.

    * HBN / HNB (``params_`` + ``tree_``): node marginals P(node = 1 | document) and, for every
      node, the change of the class log-odds when the evidence under it is removed
      (:func:`hbnlab.bn.inference.subtree_contributions`); a feature node's value is the term's
      contribution.
    * Models with ``term_contributions`` (naive Bayes, noisy-OR): their exact per-term log-odds
      terms.
    * Any other model: the change of the log-odds when the term's value is flipped
      (z(x) - z(x with the term toggled)), one batched ``decision_function`` call.
    """
    import scipy.sparse as sp

    indexer = data.indexed.indexer
    text = doc.full_text
    x = indexer.transform([text])
    if x.shape[1] != getattr(est, "n_features_in_", x.shape[1]):
        raise ValueError(f"the model expects {est.n_features_in_} terms but the current indexing has {x.shape[1]}; "
                         "use the corpus and indexing settings it was trained with")
    z = float(est.decision_function(x)[0])
    prob = float(1.0 / (1.0 + np.exp(-z)))
    sel = np.asarray(est.selected_features_)
    names = [data.vocabulary[c] for c in sel]
    present = np.asarray((x[:, sel] > 0).toarray()).ravel()
    tree_dot, nodes = None, None
    if hasattr(est, "params_") and hasattr(est, "tree_"):
        from hbnlab.bn.inference import node_marginals, subtree_contributions

        tree = est.tree_
        xs = present[None, :].astype(np.int8)
        marg = node_marginals(est.params_, xs)[0]
        others = list(range(1, tree.n_nodes))
        contrib, _ = subtree_contributions(est.params_, xs, others)
        contrib = np.concatenate([[z], contrib[0]])
        fills = {i: _heat(marg[i]) for i in range(tree.n_nodes)}
        labels = {}
        for i in range(tree.n_nodes):
            if i == 0:
                labels[i] = f"{tree.names[0]}\\nP={marg[0]:.2f}  log-odds {z:+.2f}"
            else:
                labels[i] = f"{tree.names[i]}\\nP={marg[i]:.2f}  Δ {contrib[i]:+.2f}"
        tree_dot = stable_tree_dot(tree, node_fill=fills, node_label=labels).replace("\\\\n", "\\n")
        nodes = pd.DataFrame({"node": list(tree.names), "kind": list(tree.kind),
                              "P(node=1 | doc)": marg, "contribution": contrib})
        term_contrib = np.zeros(len(sel))
        for i in tree.feature_nodes():
            term_contrib[tree.feature[i]] = contrib[i]
        method = ("HBN/HNB: a node's contribution is the class log-odds minus the log-odds with the evidence "
                  "under that node removed (hbnlab.bn.inference.subtree_contributions); colours are "
                  "P(node = 1 | document)")
    elif hasattr(est, "term_contributions"):
        tc = est.term_contributions(x)
        tc = tc.toarray() if sp.issparse(tc) else np.asarray(tc)
        term_contrib = np.asarray(tc, float).reshape(-1)[: len(sel)]
        method = "exact per-term terms of the model's log-odds (term_contributions)"
    else:
        dense = x[:, sel].toarray().ravel()
        rows = np.repeat(x.toarray(), len(sel), axis=0)
        rows[np.arange(len(sel)), sel] = np.where(dense > 0, 0.0, 1.0)
        term_contrib = z - est.decision_function(sp.csr_matrix(rows))
        method = "log-odds change when the term's presence is flipped"
    terms = pd.DataFrame({"term": names, "present": present.astype(bool), "contribution": term_contrib})
    terms = terms.reindex(terms["contribution"].abs().sort_values(ascending=False).index).reset_index(drop=True)
    weights = {t: float(c) for t, c, p in zip(terms["term"], terms["contribution"], terms["present"]) if p}
    text_html = highlight_html(text, indexer.token_spans(text), weights)
    truth = label in doc.labels
    up = terms[(terms["contribution"] > 0)].head(3)["term"].tolist()
    down = terms[(terms["contribution"] < 0)].head(3)["term"].tolist()
    verdict = (f"{classifier} gives P({label} | document) = {prob:.3f} (log-odds {z:+.2f}); the document "
               f"{'is' if truth else 'is not'} labelled {label}. Pushing up: {', '.join(up) or 'none'}; "
               f"pushing down: {', '.join(down) or 'none'}.")
    return Explanation(doc.id, label, classifier, prob, z, truth, text_html, terms, method, tree_dot, nodes, verdict)


# --------------------------------------------------------------------------- jobs
def _fmt_seconds(s) -> str:
    if s is None or not np.isfinite(s):
        return ""
    s = float(s)
    return f"{s:.0f}s" if s < 90 else f"{s / 60:.1f}min"


def progress_text(progress: dict | None) -> str:
    """One line: unit i of n, class and learner, restart, iteration, log-likelihood."""
    if not progress:
        return ""
    p = progress
    parts = []
    if "cell" in p:
        parts.append(f"cell {p['cell']}/{p.get('cells', '?')} (B={p.get('B')}, alpha={p.get('alpha')})")
    if "unit" in p:
        parts.append(f"unit {p['unit']}/{p.get('units', '?')}: {p.get('classifier', '')} · {p.get('class', '')}")
    if "restart" in p:
        parts.append(f"restart {p['restart']} of {p.get('restarts', '?')}")
    elif "running" in p:
        conv = f", {p['converged']} converged" if "converged" in p else ""
        parts.append(f"{p['running']} of {p.get('restarts', '?')} EM restarts running{conv}")
    if "iteration" in p:
        parts.append(f"iteration {p['iteration']}")
    if "loglik" in p:
        parts.append(f"log-lik {p['loglik']:.2f}")
    if not parts and p.get("message"):
        parts.append(str(p["message"]))
    return " · ".join(parts)


def jobs_frame(records, now: float | None = None) -> pd.DataFrame:
    """The job table: id, kind, what, state, progress, elapsed, remaining, attempt."""
    now = time.time() if now is None else now
    rows = []
    for r in records:
        prog = r.progress or {}
        frac = prog.get("fraction")
        if r.state == "done":
            frac = 1.0
        if r.state in ("running", "queued") or not r.error:
            detail = progress_text(prog) if r.state != "done" else ""
        else:
            detail = r.error.strip().splitlines()[-1]
        rows.append({
            "id": r.id, "kind": r.kind, "what": r.label, "state": r.state,
            "progress": float(frac) if isinstance(frac, (int, float)) else 0.0,
            "detail": detail,
            "elapsed": _fmt_seconds(r.elapsed(now)),
            "remaining": _fmt_seconds(r.eta(now)) if r.state == "running" else "",
            "attempt": r.attempt,
        })
    return pd.DataFrame(rows, columns=["id", "kind", "state", "progress", "elapsed", "remaining", "detail", "what",
                                       "attempt"])


def tuning_frame(result: dict) -> pd.DataFrame:
    cells = pd.DataFrame(result.get("cells", []))
    if cells.empty:
        return cells
    return cells[["n_features", "B", "alpha", "micro", "macro"]].sort_values(["n_features", "B", "alpha"])


# --------------------------------------------------------------------------- exports
def _csv(df: pd.DataFrame, index=True) -> bytes:
    return df.to_csv(index=index, float_format="%.4f").encode("utf-8")


def export_tables(out: TrainOutputs) -> dict:
    """CSV files (name -> bytes) of a finished train job."""
    return {
        "breakeven.csv": _csv(out.breakeven_frame()),
        "ranking_measures.csv": _csv(out.ranking_frame()),
        "models.csv": _csv(out.units_frame(), index=False),
        "test_scores.csv" if out.stage == "test" else "validation_scores.csv": _csv(out.document_scores(), index=False),
    }


def markdown_table(df: pd.DataFrame, floatfmt: str = "{:.1f}") -> str:
    """A GitHub-flavoured Markdown table (no dependency on ``tabulate``)."""
    df = df.reset_index() if df.index.name or not isinstance(df.index, pd.RangeIndex) else df

    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "" if np.isnan(v) else floatfmt.format(v)
        return str(v).replace("|", "\\|")

    head = "| " + " | ".join(str(c) for c in df.columns) + " |"
    sep = "| " + " | ".join("---" for _ in df.columns) + " |"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body])


def report_payload(out: TrainOutputs, record) -> dict:
    """Everything a report needs, as plain data (the hook for the export issue's HTML report)."""
    cfg = out.result.get("config", {})
    return {
        "title": f"hbnlab workbench report — job {out.job_id}",
        "corpus": out.corpus_name, "synthetic": out.synthetic,
        "corpus_label": corpus_label(out.corpus_name, out.synthetic),
        "stage": out.stage, "config": cfg, "classes": out.classes, "classifiers": out.classifiers,
        "breakeven": json.loads(out.breakeven_frame().to_json(orient="split")),
        "ranking": json.loads(out.ranking_frame().to_json(orient="split")),
        "models": out.units_frame().to_dict(orient="records"),
        "job": {"id": record.id, "label": record.label, "created": record.created, "finished": record.finished},
    }


def experiment_result(out: TrainOutputs, traces: dict | None = None, trees: dict | None = None):
    """The job as a :class:`hbnlab.export.report.ExperimentResult` (the export issue's report
    schema): scores and labels per classifier, settings, corpus, timings, EM traces and trees.

    ``traces`` / ``trees`` map ``"class|classifier"`` to the restarts' log-likelihood traces and
    to ``TreeStructure.to_dict()``.
    """
    from hbnlab.export.report import ExperimentResult

    cfg = out.result.get("config", {})
    timings, em, tr, specs, paper = {}, {}, {}, {}, {}
    for u in out.units:
        c, k = u["classifier"], u["class"]
        key = f"{k}|{c}"
        timings.setdefault(c, {})[k] = float(u.get("seconds") or 0.0)
        if traces and traces.get(key):
            em.setdefault(c, {})[k] = traces[key]
        if trees and trees.get(key):
            tr.setdefault(c, {})[k] = trees[key]
    for c in out.classifiers:
        specs[c] = {"name": c, "n_features": out.n_features}
        row = pv.table_4_10_row(c, out.n_features)
        if row is not None:
            paper[c] = {**row, "source": "Karčiauskas (2002), Table 4.10"}
    corpus = {"name": out.corpus_name, "synthetic": out.synthetic, "fingerprint": out.result.get("fingerprint", "")}
    return ExperimentResult(categories=out.classes, classifiers=out.classifiers, labels=out.Y,
                            scores={c: out.scores_of(c) for c in out.classifiers}, doc_ids=out.doc_ids,
                            stage=out.stage, settings=cfg, corpus=corpus, classifier_specs=specs, timings=timings,
                            em_traces=em, trees=tr, paper=paper,
                            title=f"hbnlab workbench report — job {out.job_id}"
                                  + (" (synthetic corpus)" if out.synthetic else ""))


def markdown_report(out: TrainOutputs, record) -> str:
    """A self-contained Markdown report of one training job."""
    cfg = out.result.get("config", {})
    split = ("test set (trained on the training set)" if out.stage == "test"
             else "validation split (trained on training-0)")
    lines = [f"# hbnlab workbench report — job {out.job_id}", ""]
    if out.synthetic:
        lines += [f"> **{SYNTHETIC_BADGE}.** These numbers describe the generated corpus, not real text.", ""]
    lines += [
        f"* corpus: **{corpus_label(out.corpus_name, out.synthetic)}**",
        f"* evaluated on the {split}: {len(out.doc_ids)} documents",
        f"* classes: {', '.join(out.classes)}",
        f"* classifiers: {', '.join(out.classifiers)}",
        f"* indexing: stopwords={cfg.get('stopwords')}, stemming={cfg.get('stemming')}, min_df={cfg.get('min_df')}",
        f"* features: {cfg.get('n_features')} per class by {cfg.get('selection')} ({cfg.get('scope')} selection)",
        f"* HBN settings: AVG B={cfg.get('B_avg')} alpha={cfg.get('alpha_avg')}, OR B={cfg.get('B_or')} "
        f"alpha={cfg.get('alpha_or')}, DEP B={cfg.get('B_dep')} alpha={cfg.get('alpha_dep')}, "
        f"{cfg.get('n_restarts')} EM restarts, random_state={cfg.get('random_state')}",
        "",
        "## Breakeven (%) per class",
        "",
        markdown_table(out.breakeven_frame()),
        "",
        "## Ranking measures (%)",
        "",
        markdown_table(out.ranking_frame()),
        "",
        "## Models",
        "",
        markdown_table(out.units_frame(), floatfmt="{:.3f}"),
        "",
    ]
    if out.compare_with_thesis():
        lines += ["Columns named `thesis ...` are Karčiauskas (2002), Table 4.10, printed beside ours.", ""]
    return "\n".join(lines)


__all__ = ["corpus_overview", "corpus_label", "search_documents", "feature_table", "selected_terms_overview",
           "tree_summary", "stable_tree_dot", "dot_layout", "TrainOutputs", "Explanation", "explain_document",
           "highlight_html", "jobs_frame", "progress_text", "tuning_frame", "export_tables", "experiment_result",
           "markdown_report", "markdown_table", "report_payload", "SYNTHETIC_BADGE"]
