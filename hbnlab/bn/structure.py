"""Tree-shaped Bayesian networks of discrete variables: the structures of HBN and HNB classifiers.

A tree has the class variable at the root (node 0), hidden variables inside and feature
variables at the leaves.  ``up[i]`` is the neighbour of node ``i`` one step closer to the root
(``-1`` for the root).  The *direction* says where the arcs point:

* ``"hbn"`` (hierarchical Bayesian network, thesis ch. 2): arcs point toward the root.  The
  nodes below a node are its *parents* in the network: P(C | below(C)), P(H | below(H)), and
  features are parentless with P(F).
* ``"hnb"`` (hierarchical naive Bayes, thesis sec. 3.3): arcs point away from the root.  Every
  non-root node has one parent, ``up[i]``: P(C), P(H | up(H)), P(F | up(F)).

Invariants, checked on construction (:class:`StructureError` names the bad node):
node 0 is the class; every feature column 0..n_features-1 appears on exactly one leaf; feature
nodes are leaves; every hidden node has at least 2 and at most ``B`` nodes below it; the class
has at least 1 and at most ``B`` nodes below it; the graph is a tree rooted at 0; the class and
the features are binary, a hidden node has ``states[i] >= 2`` states (2 everywhere by default,
the thesis's trees).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hbnlab._validation import HbnlabError, check_branching_factor

CLASS, HIDDEN, FEATURE = "class", "hidden", "feature"
DIRECTIONS = ("hbn", "hnb")


class StructureError(HbnlabError, ValueError):
    """A tree violates an invariant; the message names the node."""


@dataclass(frozen=True)
class TreeStructure:
    """An immutable tree of discrete variables (binary class and features, k-state hidden nodes).

    Parameters
    ----------
    up : tuple of int
        ``up[i]`` is the node one step closer to the root; ``up[0] == -1``.
    kind : tuple of str
        ``"class"`` (only node 0), ``"hidden"`` or ``"feature"``.
    feature : tuple of int
        For feature nodes the column of the (selected) binary feature matrix, else -1.
    names : tuple of str
        Display names (``"trade"``, ``"hidden3"``, ``"tradeTOPIC"``).
    direction : {"hbn", "hnb"}
    B : int or None
        Branching factor the tree was built with; ``None`` skips the upper bound check.
    states : tuple of int or None
        Number of states per node: 2 for the class and the features, ``>= 2`` for hidden nodes.
        ``None`` means 2 everywhere (stored as such).
    """

    up: tuple
    kind: tuple
    feature: tuple
    names: tuple
    direction: str = "hbn"
    B: int | None = None
    states: tuple | None = None
    _children: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        for attr in ("up", "kind", "feature", "names"):
            object.__setattr__(self, attr, tuple(getattr(self, attr)))
        n = len(self.up)
        if not (len(self.kind) == len(self.feature) == len(self.names) == n):
            raise StructureError("up, kind, feature and names must have the same length")
        if self.direction not in DIRECTIONS:
            raise StructureError(f"direction must be one of {DIRECTIONS}, got {self.direction!r}")
        if self.B is not None:
            try:
                check_branching_factor(self.B)
            except ValueError as e:
                raise StructureError(str(e)) from None
        if n == 0 or self.kind[0] != CLASS or self.up[0] != -1:
            raise StructureError("node 0 must be the class variable with up[0] == -1")
        children: list[list[int]] = [[] for _ in range(n)]
        for i in range(1, n):
            u = self.up[i]
            if not (0 <= u < n) or u == i:
                raise StructureError(f"node {i} ({self.names[i]!r}): up={u} is not a node")
            if self.kind[i] == CLASS:
                raise StructureError(f"node {i} ({self.names[i]!r}): only node 0 may be the class")
            children[u].append(i)
        # acyclicity / connectedness: every node must reach the root
        for i in range(n):
            seen, j = 0, i
            while j != 0:
                j = self.up[j]
                seen += 1
                if seen > n:
                    raise StructureError(f"node {i} ({self.names[i]!r}) is on a cycle")
        feats = []
        for i in range(n):
            k, ch = self.kind[i], children[i]
            if k == FEATURE:
                if ch:
                    raise StructureError(f"feature node {i} ({self.names[i]!r}) has nodes below it")
                feats.append(self.feature[i])
            elif k == HIDDEN:
                if self.feature[i] != -1:
                    raise StructureError(f"hidden node {i} ({self.names[i]!r}) has a feature column")
                if len(ch) < 2:
                    raise StructureError(
                        f"hidden node {i} ({self.names[i]!r}) has {len(ch)} nodes below it, expected >= 2"
                    )
                if self.B is not None and len(ch) > self.B:
                    raise StructureError(
                        f"hidden node {i} ({self.names[i]!r}) has {len(ch)} nodes below it, B = {self.B}"
                    )
            elif k == CLASS:
                if not ch:
                    raise StructureError("the class node has no nodes below it")
                if self.B is not None and len(ch) > self.B:
                    raise StructureError(f"the class node has {len(ch)} nodes below it, B = {self.B}")
            else:
                raise StructureError(f"node {i}: unknown kind {k!r}")
        if sorted(feats) != list(range(len(feats))):
            raise StructureError(
                f"feature columns must be 0..{len(feats) - 1} each exactly once, got {sorted(feats)}"
            )
        object.__setattr__(self, "_children", tuple(tuple(c) for c in children))
        states = (2,) * n if self.states is None else tuple(self.states)
        if len(states) != n:
            raise StructureError(f"states has {len(states)} entries for a tree of {n} nodes")
        for i, k in enumerate(states):
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
                raise StructureError(f"node {i} ({self.names[i]!r}): number of states must be an integer, got {k!r}")
            if self.kind[i] != HIDDEN and k != 2:
                raise StructureError(f"{self.kind[i]} node {i} ({self.names[i]!r}) has {k} states; it must be binary")
            if k < 2:
                raise StructureError(f"hidden node {i} ({self.names[i]!r}) has {k} states, expected >= 2")
        object.__setattr__(self, "states", tuple(int(k) for k in states))

    # ------------------------------------------------------------------ queries
    @property
    def n_nodes(self) -> int:
        return len(self.up)

    @property
    def n_features(self) -> int:
        return sum(k == FEATURE for k in self.kind)

    def cardinality(self, i: int) -> int:
        """Number of states of node ``i``."""
        return self.states[i]

    @property
    def is_binary(self) -> bool:
        """True when every node has two states (the thesis's trees)."""
        return all(k == 2 for k in self.states)

    def with_states(self, states) -> TreeStructure:
        """A copy with other numbers of states: an int (every hidden node), a dict
        ``{hidden node: k}`` (the others keep theirs) or a full per-node sequence."""
        if isinstance(states, (int, np.integer)) and not isinstance(states, bool):
            new = tuple(int(states) if k == HIDDEN else 2 for k in self.kind)
        elif isinstance(states, dict):
            new = list(self.states)
            for i, k in states.items():
                new[int(i)] = k
            new = tuple(new)
        else:
            new = tuple(states)
        return TreeStructure(self.up, self.kind, self.feature, self.names, self.direction, self.B, new)

    def children(self, i: int) -> tuple:
        """Nodes directly below node ``i`` (BN parents for HBN, BN children for HNB)."""
        return self._children[i]

    def feature_nodes(self) -> list[int]:
        return [i for i, k in enumerate(self.kind) if k == FEATURE]

    def hidden_nodes(self) -> list[int]:
        return [i for i, k in enumerate(self.kind) if k == HIDDEN]

    def depth(self, i: int) -> int:
        d = 0
        while i != 0:
            i = self.up[i]
            d += 1
        return d

    def topological_bottom_up(self) -> list[int]:
        """Nodes ordered so that every node comes after all nodes below it (leaves first)."""
        order = sorted(range(self.n_nodes), key=self.depth, reverse=True)
        return order

    def bn_parents(self, i: int) -> tuple:
        """Parents of node ``i`` in the Bayesian network given the arc direction."""
        if self.direction == "hbn":
            return self.children(i)
        return () if i == 0 else (self.up[i],)

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_nested(cls, nested, feature_names=None, class_name="class", direction="hbn", B=None):
        """Build from nested lists: ints are feature columns, lists are hidden nodes.

        ``TreeStructure.from_nested([[0, 1], 2, [3, [4, 5]]])`` puts a hidden node over
        features 0 and 1, feature 2 directly at the class, and so on.  Hidden nodes are named
        ``hidden1, hidden2, ...`` in breadth-first order.
        """
        up, kind, feature, names = [-1], [CLASS], [-1], [class_name]
        queue = [(0, list(nested))]
        n_hidden = 0
        while queue:
            parent, items = queue.pop(0)
            for item in items:
                idx = len(up)
                up.append(parent)
                if isinstance(item, (list, tuple)):
                    n_hidden += 1
                    kind.append(HIDDEN)
                    feature.append(-1)
                    names.append(f"hidden{n_hidden}")
                    queue.append((idx, list(item)))
                else:
                    f = int(item)
                    kind.append(FEATURE)
                    feature.append(f)
                    names.append(str(feature_names[f]) if feature_names is not None else f"F{f}")
        return cls(tuple(up), tuple(kind), tuple(feature), tuple(names), direction, B)

    def to_nested(self, i: int = 0):
        """Inverse of :meth:`from_nested` (children in stored order)."""
        out = []
        for c in self.children(i):
            out.append(self.feature[c] if self.kind[c] == FEATURE else self.to_nested(c))
        return out

    def with_direction(self, direction: str) -> TreeStructure:
        return TreeStructure(self.up, self.kind, self.feature, self.names, direction, self.B, self.states)

    def to_dict(self) -> dict:
        """Plain lists; ``"states"`` only when some hidden node is not binary (so that the dict
        of a binary tree is the one older versions wrote)."""
        d = {
            "up": list(self.up),
            "kind": list(self.kind),
            "feature": list(self.feature),
            "names": list(self.names),
            "direction": self.direction,
            "B": self.B,
        }
        if not self.is_binary:
            d["states"] = list(self.states)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> TreeStructure:
        try:
            return cls(d["up"], d["kind"], d["feature"], d["names"], d.get("direction", "hbn"), d.get("B"),
                       d.get("states"))
        except KeyError as e:
            raise StructureError(f"tree structure: missing field {e.args[0]!r}") from None

    def to_dot(self, node_fill: dict | None = None, node_label: dict | None = None) -> str:
        """Graphviz DOT source; arcs drawn in the network's direction, class at the bottom
        for HBN (as in the thesis's figures 4.1-4.4) and at the top for HNB."""
        lines = ["digraph tree {", '  graph [rankdir=TB, fontname="Helvetica"];',
                 '  node [fontname="Helvetica", fontsize=11];']
        for i in range(self.n_nodes):
            shape = {CLASS: "doubleoctagon", HIDDEN: "ellipse", FEATURE: "box"}[self.kind[i]]
            label = (node_label or {}).get(i, self.names[i])
            style = ""
            if node_fill and i in node_fill:
                style = f', style=filled, fillcolor="{node_fill[i]}"'
            elif self.kind[i] == HIDDEN:
                style = ', style=filled, fillcolor="#eeeeee"'
            esc = str(label).replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'  n{i} [label="{esc}", shape={shape}{style}];')
        for i in range(1, self.n_nodes):
            u = self.up[i]
            if self.direction == "hbn":
                lines.append(f"  n{i} -> n{u};")
            else:
                lines.append(f"  n{u} -> n{i};")
        lines.append("}")
        return "\n".join(lines)

    def to_text(self, i: int = 0, indent: str = "") -> str:
        """An indented text drawing (for terminals and logs)."""
        star = "" if self.kind[i] != HIDDEN else (" *" if self.states[i] == 2 else f" *{self.states[i]}")
        lines = [f"{indent}{self.names[i]}" + star]
        for c in self.children(i):
            lines.append(self.to_text(c, indent + "  "))
        return "\n".join(lines)


def features_under(tree: TreeStructure, i: int) -> list[int]:
    """Feature columns on the leaves below node ``i`` (node ``i`` itself if it is a feature)."""
    if tree.kind[i] == FEATURE:
        return [tree.feature[i]]
    out: list[int] = []
    stack = [i]
    while stack:
        j = stack.pop()
        for c in tree.children(j):
            if tree.kind[c] == FEATURE:
                out.append(tree.feature[c])
            else:
                stack.append(c)
    return sorted(out)


__all__ = ["TreeStructure", "StructureError", "features_under", "CLASS", "HIDDEN", "FEATURE"]
