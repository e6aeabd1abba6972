"""The Structure page draws the network Training fits (issue 38, item 3): with more selected terms than
the tree holds, the tree over ``tree_terms`` of them and the others as naive-Bayes children of the
class, one dashed box each or collapsed into one box when many."""
from __future__ import annotations

import re

from app_testutil import no_exceptions, texts


def _structure_dot(app) -> str:
    return app.get("graphviz_chart")[0].proto.spec


def _terms_in_tree(dot: str) -> int:
    return len(re.findall(r'^\s*"term:[^"]*" \[', dot, re.M))


def test_the_structure_page_draws_the_tree_terms_and_the_naive_bayes_children(app):
    app.query_params = {"synthetic_size": "600", "n_features": "30", "tree_terms": "10", "n_categories": "2"}
    app.run()
    app.switch_page("pages/structure.py").run()
    no_exceptions(app)
    dot = _structure_dot(app)
    assert _terms_in_tree(dot) == 10, "the tree holds tree_terms terms, not all 30"
    assert '"class" -> "children" [style=dashed]' in dot and "+ 20 naive-Bayes children:" in dot
    words = " ".join(texts(app, "caption"))
    assert "10 terms in the tree" in words and "the other 20 are naive-Bayes children of the class" in words
    assert "cross-validation" in words                       # HBN-OR's "auto" rule: cross-validated

    # few children: one dashed box each; tree_terms 0: the thesis's tree over every term
    app.query_params = {"tree_terms": "26"}
    app.session_state["hbnlab.config"] = app.session_state["hbnlab.config"].replace(tree_terms=26)
    app.run()
    no_exceptions(app)
    dot = _structure_dot(app)
    assert _terms_in_tree(dot) == 26 and len(re.findall(r'"class" -> "child:', dot)) == 4
    app.session_state["hbnlab.config"] = app.session_state["hbnlab.config"].replace(tree_terms=0)
    app.run()
    no_exceptions(app)
    dot = _structure_dot(app)
    assert _terms_in_tree(dot) == 30 and "child" not in dot
    assert any("over all 30 selected terms" in c for c in texts(app, "caption"))
