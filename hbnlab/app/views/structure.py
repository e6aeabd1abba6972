"""The Structure page: counts that describe a learned tree, and its DOT source with stable node ids
and a chosen layout direction."""
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
