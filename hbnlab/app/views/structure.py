"""The Structure page: counts that describe a learned tree, its DOT source with stable node ids and a
chosen layout direction, and the whole network a tree learner fits: the tree plus the naive-Bayes
children of the class (:func:`model_dot`)."""
from __future__ import annotations


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


#: Up to this many naive-Bayes children of the class are drawn one box each; more are collapsed
#: into one box that names the first :data:`NAMED_CHILDREN`.
MAX_DRAWN_CHILDREN = 8
NAMED_CHILDREN = 6

_CHILD_RULES = {"all": "every one is kept",
                "cv": "Training keeps the strongest k of them, k by a 3-fold cross-validation inside the training "
                      "documents (the most within one standard error of the best)",
                "cv-max": "Training keeps the strongest k of them, k by a 3-fold cross-validation inside the "
                          "training documents (the best)"}


def children_rule_text(rule: str) -> str:
    """Which of the naive-Bayes children the fit keeps, in words."""
    return _CHILD_RULES.get(rule, rule)


def _quoted(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace('"', '\\"')


def model_dot(tree, children=(), rule: str = "all") -> str:
    """DOT of the network a tree learner fits: :func:`stable_tree_dot` of the tree, plus an arc
    from the class to each naive-Bayes child (dashed boxes); more than :data:`MAX_DRAWN_CHILDREN`
    children are one box, "+ N naive-Bayes children: a, b, c…"."""
    dot = stable_tree_dot(tree)
    if not len(children):
        return dot
    style = 'shape=box, style="dashed,rounded", color="#7f8c8d", fontcolor="#34495e"'
    lines = []
    if len(children) <= MAX_DRAWN_CHILDREN:
        for name in children:
            ident = f'"child:{_quoted(name)}"'
            lines += [f'  {ident} [label="{_quoted(name)}", {style}];', f'  "class" -> {ident} [style=dashed];']
    else:
        parts = [f"+ {len(children)} naive-Bayes children:", ", ".join(children[:NAMED_CHILDREN]) + "…"]
        if rule != "all":
            parts.append("(Training keeps the strongest k)")
        label = "\\n".join(_quoted(p) for p in parts)        # DOT's line break between the parts
        lines += [f'  "children" [label="{label}", {style}];',
                  '  "class" -> "children" [style=dashed];']
    head, _, _ = dot.rpartition("}")
    return head + "\n".join(lines) + "\n}"


def model_summary(tree, children=(), rule: str = "all") -> dict:
    """:func:`tree_summary` with the naive-Bayes children of the class."""
    return {**tree_summary(tree), "naive-Bayes children": len(children), "children": list(children),
            "children rule": rule}
