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
from scipy import special

from hbnlab.app.views.structure import stable_tree_dot
from hbnlab.models.hbn import LOG_ODDS_CAP

#: |log-odds| above which P(c | d) or P(not c | d) is exactly 1 as a double (1 - e^-36.7 rounds to 1):
#: the model is certain up to double precision.
DOUBLE_CERTAIN_LOG_ODDS = float(-np.log(np.finfo(float).epsneg))


@dataclass
class Explanation:
    """Why a model scored a document as it did.

    ``terms``: columns ``term, present, contribution, effect`` (contribution to the class log-odds;
    positive pushes towards the class; NaN where it is not a finite number, ``effect`` says it in
    words); ``nodes`` (tree models): ``node, kind, P(node=1 | doc), contribution, log-odds without it,
    effect``.  ``method`` says how contributions are defined for this model; ``certainty`` says in words
    when the model is certain of the document (empty otherwise).  ``log_odds`` is the model's own,
    uncapped (``+inf`` / ``-inf`` for a certain model); the texts never show ``nan`` or ``inf``.
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
    certainty: str = ""
    probability_text: str = ""
    log_odds_text: str = ""


def probability_text(z: float) -> str:
    """P(c | d) from the log-odds ``z``, written so that it never rounds to a false 0 or 1:
    ``0.734``; ``3.2e-07``; ``1 − 3.2e-23``; ``0 exactly`` / ``1 exactly`` for an infinite log-odds;
    ``undefined`` for none.

    >>> probability_text(1.0), probability_text(-52.1), probability_text(52.1), probability_text(-np.inf)
    ('0.731', '2.4e-23', '1 − 2.4e-23', '0 exactly')
    """
    z = float(z)
    if np.isnan(z):
        return "undefined"
    if np.isinf(z):
        return "1 exactly" if z > 0 else "0 exactly"
    p = float(special.expit(z))
    if 0.001 <= p <= 0.999:
        return f"{p:.3f}"
    small = _power_text(-np.logaddexp(0.0, abs(z)))          # the smaller of P and 1 - P, from log space
    return small if z < 0 else f"1 − {small}"


def _power_text(log_p: float) -> str:
    """``exp(log_p)`` as ``m.me-N``, also below the smallest double (``1.2e-400``)."""
    log10 = log_p / np.log(10.0)
    exponent = int(np.floor(log10))
    mantissa = 10.0 ** (log10 - exponent)
    if mantissa >= 9.95:
        mantissa, exponent = 1.0, exponent + 1
    return f"{mantissa:.1f}e{exponent:+03d}".replace("e+", "e")


def log_odds_text(z: float) -> str:
    """The log-odds as shown: ``+2.31``; ``−∞ (certain)`` / ``+∞ (certain)``; ``undefined``."""
    z = float(z)
    if np.isnan(z):
        return "undefined"
    if np.isinf(z):
        return ("+" if z > 0 else "−") + "∞ (certain)"
    return f"{z:+.2f}"


def change_text(change: float, without: float) -> str:
    """A node's or term's effect in words (:func:`hbnlab.bn.inference.log_odds_change`): its log-odds
    change, or that its evidence makes the model certain, or that the model is certain without it too."""
    change, without = float(change), float(without)
    if np.isnan(change):
        return "undefined (the model cannot score this document)"
    if np.isinf(change):
        side = "towards" if change > 0 else "away from"
        return f"makes the model certain ({side} the class); log-odds without it {log_odds_text(without)}"
    if np.isinf(without) and change == 0:
        return "none alone: the model is as certain without it"
    return f"{change:+.2f}"


def certainty_text(z: float, label: str, deciding: list) -> str:
    """In words, when the model is certain of the document (empty when it is not): an infinite
    log-odds (a table entry of 0), or a class probability that is 0 or 1 up to double precision.
    ``deciding``: the nodes or terms whose evidence alone makes it certain."""
    z = float(z)
    if np.isnan(z):
        return ("The model gives this document probability 0 under both classes (a table entry of 0 for a "
                "term it holds): it cannot score it, and the ranking places it at log-odds 0.")
    if np.isinf(z):
        p = "1" if z > 0 else "0"
        why = (f"The evidence that makes it certain: {', '.join(deciding[:8])}"
               + (f" and {len(deciding) - 8} more" if len(deciding) > 8 else "") + " (without it the log-odds "
               "would be finite)." if deciding else
               "No single part of the evidence makes it certain on its own: without any one node's evidence it "
               "stays certain.")
        return (f"The model is certain: it gives P({label} | document) = {p} exactly, because a table entry it "
                f"uses is 0 (a maximum-likelihood table with a configuration never seen with the other class in "
                f"training). The ranking places such documents at the ends, by a stand-in log-odds of "
                f"{'+' if z > 0 else '−'}{LOG_ODDS_CAP:,.0f}. " + why)
    if abs(z) > DOUBLE_CERTAIN_LOG_ODDS:
        p, other = ("1", f"P(not {label} | document)") if z > 0 else ("0", f"P({label} | document)")
        return (f"The model gives this class probability {p} up to double precision: {other} = "
                f"{_power_text(-np.logaddexp(0.0, abs(z)))} (log-odds {z:+.2f}); rankings use the log-odds, "
                "so such documents are still ordered.")
    return ""


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
    mark's colour is the term's contribution (red up, blue down; the deepest shade for a term whose
    evidence makes the model certain, an infinite contribution) and its tooltip the value.
    """
    finite = [abs(v) for v in weights.values() if np.isfinite(v)]
    scale = max(finite + [1e-9])
    out, pos = [], 0
    for start, end, term in spans:
        w = weights.get(term)
        if w is None or np.isnan(w):
            continue
        out.append(html.escape(text[pos:start]))
        value = f"{w:+.3f}" if np.isfinite(w) else "makes the model certain"
        out.append(f'<mark style="background:{_signed_color(w, scale)};padding:0 2px;border-radius:3px" '
                   f'title="{html.escape(term)}: {value}">{html.escape(text[start:end])}</mark>')
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


def _p2(v: float) -> str:
    return f"{v:.2f}" if np.isfinite(v) else "unknown"


def _tree_explanation(est, x, n_terms: int):
    """The tree part of an explanation from the estimator's own :meth:`explain` (log space, uncapped):
    ``(log-odds, term contributions, term log-odds-without, DOT, nodes frame, method, deciding nodes)``."""
    tree = est.tree_
    e = est.explain(x, nodes="all")
    z = float(e.log_odds[0])
    marg = e.node_marginals[0]
    change = dict(zip(e.contribution_nodes, e.contributions[0]))
    without = dict(zip(e.contribution_nodes, e.log_odds_without[0]))
    fills = {i: probability_fill(marg[i]) for i in range(tree.n_nodes)}
    labels = {0: f"{tree.names[0]}\\nP={probability_text(z)}  log-odds {log_odds_text(z)}"}
    for i in range(1, tree.n_nodes):
        c = change[i]
        delta = (f"Δ {c:+.2f}" if np.isfinite(c) and not np.isinf(without[i]) else
                 "Δ decides" if np.isinf(c) else "Δ undefined" if np.isnan(c) else "Δ none (certain without it)")
        labels[i] = f"{tree.names[i]}\\nP={_p2(marg[i])}  {delta}"
    tree_dot = stable_tree_dot(tree, node_fill=fills, node_label=labels).replace("\\\\n", "\\n")
    order = list(range(1, tree.n_nodes)) + list(e.contribution_nodes[tree.n_nodes - 1:])
    kinds = [e.node_kinds[i] if i < tree.n_nodes else "feature (child of the class)" for i in order]
    nodes = pd.DataFrame({
        "node": [e.node_names[0]] + [e.node_names[i] for i in order],
        "kind": [e.node_kinds[0]] + kinds,
        "P(node=1 | doc)": np.concatenate([[marg[0]], [marg[i] for i in order]]),
        "contribution": [np.nan] + [change[i] if np.isfinite(change[i]) else np.nan for i in order],
        "log-odds without it": [np.nan] + [without[i] if np.isfinite(without[i]) else np.nan for i in order],
        "effect": [f"the class: log-odds {log_odds_text(z)}"] + [change_text(change[i], without[i]) for i in order],
    })
    term_change, term_without = np.zeros(n_terms), np.full(n_terms, z)
    for i in tree.feature_nodes():
        term_change[tree.feature[i]], term_without[tree.feature[i]] = change[i], without[i]
    first = tree.n_nodes
    for k in range(len(e.contribution_nodes) - (tree.n_nodes - 1)):
        term_change[tree.n_features + k] = change[first + k]
        term_without[tree.n_features + k] = without[first + k]
    deciding = [e.node_names[i] for i in order if np.isinf(change[i])]
    method = ("HBN/HNB: a node's contribution is the class log-odds minus the log-odds with the evidence "
              "under that node removed, computed in log space from the model's tables "
              "(hbnlab.bn.inference.subtree_log_odds); colours are P(node = 1 | document)")
    cc = getattr(est, "class_children_", None)
    if cc is not None:
        method += (f"; the {cc.n_children} terms outside the tree are children of the class (naive Bayes): "
                   "each one's contribution is its own log P(f | class) / P(f | not class)")
    cv = getattr(est, "children_cv_", None)
    if cv:
        tried = ", ".join(f"{k}: {100 * b:.1f}" for k, b in zip(cv["n_children"], cv["breakeven"]))
        kept = 0 if cc is None else cc.n_children
        method += (f"; {kept} of the {cv['n_children'][-1]} terms after the tree's were kept as children, chosen "
                   f"by a 3-fold cross-validation inside the training documents (children: breakeven {tried}; "
                   f"the most within {100 * cv['margin']:.1f} of the best)")
    return z, term_change, term_without, tree_dot, nodes, method, deciding


def explain_document(est, data, doc, *, label: str, classifier: str) -> Explanation:
    """Explain one document's score under one trained binary model.

    * HBN / HNB (``tree_`` and ``explain``): the estimator's own explanation
      (:meth:`hbnlab.models.hbn.HierarchicalBNClassifier.explain`, log space, uncapped): node
      marginals P(node = 1 | document) and, for every node, the change of the class log-odds when
      the evidence under it is removed; a feature node's value is the term's contribution.
    * Models with ``term_contributions`` (naive Bayes, noisy-OR): their exact per-term log-odds
      terms.
    * Any other model: the change of the log-odds when the term's value is flipped
      (z(x) - z(x with the term toggled)), one batched ``decision_function`` call.

    A model that is certain of the document (P(c | d) exactly 0 or 1, or so up to double precision)
    is said so in words (``certainty``); no text holds ``nan`` or ``inf``.
    """
    import scipy.sparse as sp

    indexer = data.indexed.indexer
    text = doc.full_text
    x = indexer.transform([text])
    if x.shape[1] != getattr(est, "n_features_in_", x.shape[1]):
        raise ValueError(f"the model expects {est.n_features_in_} terms but the current indexing has {x.shape[1]}; "
                         "use the corpus and indexing settings it was trained with")
    sel = np.asarray(est.selected_features_)
    names = [data.vocabulary[c] for c in sel]
    present = np.asarray((x[:, sel] > 0).toarray()).ravel()
    tree_dot, nodes, deciding = None, None, []
    if hasattr(est, "tree_") and hasattr(est, "explain"):
        z, term_contrib, term_without, tree_dot, nodes, method, deciding = _tree_explanation(est, x, len(names))
    else:
        z = float(est.decision_function(x)[0])
        if hasattr(est, "term_contributions"):
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
        term_without = z - term_contrib
    prob = float(special.expit(z))
    effect = [change_text(c, w) for c, w in zip(term_contrib, term_without)]
    terms = pd.DataFrame({"term": names, "present": present.astype(bool), "contribution": term_contrib,
                          "effect": effect})
    size = terms["contribution"].abs().fillna(-1.0)          # certain-making terms first, undefined last
    terms = terms.reindex(size.sort_values(ascending=False, kind="stable").index).reset_index(drop=True)
    weights = {t: float(c) for t, c, p in zip(terms["term"], terms["contribution"], terms["present"]) if p}
    text_html = highlight_html(text, indexer.token_spans(text), weights)
    truth = label in doc.labels
    certainty = certainty_text(z, label, deciding or [t for t, c in zip(names, term_contrib) if np.isinf(c)])
    verdict = (f"{classifier} gives P({label} | document) = {probability_text(z)} (log-odds {log_odds_text(z)}); "
               f"the document {'is' if truth else 'is not'} labelled {label}. " + evidence_summary(terms))
    terms["contribution"] = terms["contribution"].where(np.isfinite(terms["contribution"]))   # shown blank
    return Explanation(doc.id, label, classifier, prob, z, truth, text_html, terms, method, tree_dot, nodes, verdict,
                       certainty, probability_text(z), log_odds_text(z))


def chart_terms(terms: pd.DataFrame, n: int = 30) -> pd.DataFrame:
    """The strongest ``n`` terms with a finite contribution (a bar chart cannot draw the infinite
    one of a term that makes the model certain: those are named in words)."""
    return terms[terms["contribution"].notna()].head(n)


def shown_frame(frame: pd.DataFrame):
    """``frame`` for display: numbers to 3 decimals, a missing number blank (never ``nan``)."""
    return frame.style.format(precision=3, na_rep="")


def pick_document(ids: list, model: tuple, requested, shown, current):
    """The document Explain shows from ``ids`` (its model's ranking, best first).

    ``requested``: the document last asked for (by this page or another, e.g. Evaluation's
    "Open in Explain"); ``shown``: ``(job, unit, document)`` this page showed last; ``current``: the
    page's document picker.  A request from elsewhere wins; another model (``model`` = ``(job,
    unit)``) starts at its own first document (a document of the previous model's ranking would be
    described by a caption about another ranking); else the picker's choice stays.
    """
    if not ids:
        return None
    if shown is None or requested != shown[2]:
        return requested if requested in ids else ids[0]
    if tuple(shown[:2]) != tuple(model):
        return ids[0]
    return current if current in ids else (requested if requested in ids else ids[0])
