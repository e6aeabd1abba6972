"""The Explain page: why a trained model scored a document as it did.

:func:`explain_document` gives the document with its terms highlighted by their contribution to
the class log-odds, the tree coloured by P(node = 1 | document) with each subtree's
contribution (HBN / HNB), and the terms pushing the score up and down.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hbnlab.app.views.structure import stable_tree_dot


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


def probability_fill(p: float) -> str:
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


def _names(frame: pd.DataFrame) -> str:
    return ", ".join(frame.head(3)["term"]) or "none"


def evidence_summary(terms: pd.DataFrame) -> str:
    """The strongest terms in words, present and absent ones apart: a term that does not occur
    in the document still moves the score (its absence is evidence too)."""
    pres, absent = terms[terms["present"]], terms[~terms["present"]]
    text = (f"Terms in the document pushing towards the class: {_names(pres[pres['contribution'] > 0])}; "
            f"away from it: {_names(pres[pres['contribution'] < 0])}.")
    against = absent[absent["contribution"] < 0]
    for_ = absent[absent["contribution"] > 0]
    if len(against) or len(for_):
        text += (f" Terms absent from the document whose absence pushes away from the class: {_names(against)}"
                 f"; towards it: {_names(for_)}.")
    return text


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
        xs = present[None, : tree.n_features].astype(np.int8)
        marg = node_marginals(est.params_, xs)[0]
        others = list(range(1, tree.n_nodes))
        contrib, _ = subtree_contributions(est.params_, xs, others)
        contrib = np.concatenate([[z], contrib[0]])
        fills = {i: probability_fill(marg[i]) for i in range(tree.n_nodes)}
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
        cc = getattr(est, "class_children_", None)
        if cc is not None:
            # the terms outside the tree are children of the class: each adds its own log-ratio
            kids = cc.contributions(present[None, tree.n_features:].astype(np.int8))[0]
            term_contrib[tree.n_features:] = kids
            nodes = pd.concat([nodes, pd.DataFrame({
                "node": list(est.class_children_names_), "kind": "feature (child of the class)",
                "P(node=1 | doc)": present[tree.n_features:].astype(float), "contribution": kids})],
                ignore_index=True)
            method += (f"; the {cc.n_children} terms outside the tree are children of the class (naive Bayes): "
                       "each one's contribution is its own log P(f | class) / P(f | not class)")
        cv = getattr(est, "children_cv_", None)
        if cv:
            tried = ", ".join(f"{k}: {100 * b:.1f}" for k, b in zip(cv["n_children"], cv["breakeven"]))
            kept = 0 if cc is None else cc.n_children
            method += (f"; {kept} of the {cv['n_children'][-1]} terms after the tree's were kept as children, chosen "
                       f"by a 3-fold cross-validation inside the training documents (children: breakeven {tried}; "
                       f"the most within {100 * cv['margin']:.1f} of the best)")
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
    verdict = (f"{classifier} gives P({label} | document) = {prob:.3f} (log-odds {z:+.2f}); the document "
               f"{'is' if truth else 'is not'} labelled {label}. " + evidence_summary(terms))
    return Explanation(doc.id, label, classifier, prob, z, truth, text_html, terms, method, tree_dot, nodes, verdict)
