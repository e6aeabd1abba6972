"""Conditional probability tables for the tree-shaped networks of :mod:`hbnlab.bn.structure`.

The class and the features are binary (state 0 = absent / off, state 1 = present / on); a
hidden node ``i`` has ``n_i = tree.cardinality(i)`` states (2 unless the tree says otherwise).
The shape of a node's table depends on the arc direction of the tree:

``"hbn"`` (arcs toward the root, thesis ch. 2, "P(C | pa(C)) prod P(H_i | pa(H_i)) prod P(F_i)")
    * the class and every hidden node ``i`` with nodes ``c_0, ..., c_{k-1}`` below it
      (``tree.children(i)``, in stored order; they are its Bayesian-network parents) has a table
      of shape ``(n_{c_0} * ... * n_{c_{k-1}}, n_i)``: row ``x`` is the distribution
      P(i | configuration ``x`` of its parents), where the **configuration index** is the
      mixed-radix number

          x = sum_j state(c_j) * n_{c_0} * ... * n_{c_{j-1}}

      (the first child is the least significant digit; with binary children
      ``x = sum_j state(c_j) * 2**j``: bit ``j`` is the state of the ``j``-th node below ``i``);
    * every feature (a parentless root of the network) has a marginal of shape ``(2,)``.

``"hnb"`` (arcs away from the root, thesis sec. 3.3)
    * the class has a prior of shape ``(2,)``;
    * every other node ``i`` has a table of shape ``(n_{up(i)}, n_i)``: row ``s`` is
      P(i | up(i) = s).

The last axis of every table is the node's own state and sums to one.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hbnlab._validation import HbnlabError
from hbnlab.bn.structure import FEATURE, TreeStructure
from hbnlab.bounds import MAX_PARENTS
from hbnlab.bounds import MAX_TABLE_ROWS as MAX_ROWS

#: :data:`MAX_PARENTS`: the largest number of nodes below one node an HBN table may have;
#: :data:`MAX_ROWS`: the largest number of rows of one table (2**20: the binary bound of MAX_PARENTS),
#: both declared in :mod:`hbnlab.bounds`.
#: rows of a table must sum to one within this absolute tolerance
ROW_SUM_ATOL = 1e-6


class ParameterError(HbnlabError, ValueError):
    """A parameter set does not fit its tree or is not a set of distributions; the message names
    the node."""


def cpt_shape(tree: TreeStructure, i: int) -> tuple:
    """The shape the table of node ``i`` must have (see the module docstring)."""
    n_i = tree.cardinality(i)
    if tree.direction == "hbn":
        if tree.kind[i] == FEATURE:
            return (2,)
        ch = tree.children(i)
        if len(ch) > MAX_PARENTS:
            raise ParameterError(
                f"node {i} ({tree.names[i]!r}) has {len(ch)} parents; at most {MAX_PARENTS} are supported"
            )
        rows = 1
        for c in ch:
            rows *= tree.cardinality(c)
        if rows > MAX_ROWS:
            raise ParameterError(
                f"node {i} ({tree.names[i]!r}): its parents have {rows} configurations; at most {MAX_ROWS}"
            )
        return (rows, n_i)
    return (n_i,) if i == 0 else (tree.cardinality(tree.up[i]), n_i)


def config_index(states, radices=None) -> np.ndarray:
    """Row index of an HBN table for parent states ``states[..., j]``: the mixed-radix number with
    digit ``j`` the ``j``-th parent's state, the first parent least significant (``radices``:
    the parents' numbers of states, default all 2, i.e. bit ``j`` = ``j``-th parent).

    >>> int(config_index([1, 0, 1]))
    5
    >>> int(config_index([2, 1], radices=[3, 2]))    # 2 + 1 * 3
    5
    """
    s = np.asarray(states, dtype=np.int64)
    if radices is None:
        return (s << np.arange(s.shape[-1], dtype=np.int64)).sum(axis=-1)
    r = np.asarray(radices, dtype=np.int64)
    place = np.concatenate([[1], np.cumprod(r[:-1])]).astype(np.int64) if r.size else r
    return (s * place).sum(axis=-1)


def _check_table(tree: TreeStructure, i: int, table) -> np.ndarray:
    name = f"node {i} ({tree.names[i]!r})"
    try:
        a = np.array(table, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(f"{name}: table is not a numeric array") from None
    shape = cpt_shape(tree, i)
    if a.shape != shape:
        raise ParameterError(f"{name}: table has shape {a.shape}, expected {shape}")
    if not np.all(np.isfinite(a)):
        raise ParameterError(f"{name}: table holds non-finite values")
    if a.min() < 0:
        raise ParameterError(f"{name}: table holds a negative probability {a.min():g}")
    sums = a.sum(axis=-1)
    bad = np.flatnonzero(np.abs(np.atleast_1d(sums) - 1.0) > ROW_SUM_ATOL)
    if bad.size:
        r = int(bad[0])
        raise ParameterError(f"{name}: row {r} sums to {np.atleast_1d(sums)[r]:.9g}, expected 1")
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class TreeParameters:
    """The conditional probability tables of a :class:`TreeStructure`.

    Parameters
    ----------
    tree : TreeStructure
    cpts : sequence of array-like
        One table per node, ``cpts[i]`` for node ``i``, shaped as described in the module
        docstring.  Tables are copied, validated (shape, finite, non-negative, rows sum to 1
        within ``1e-6``) and made read-only.

    Examples
    --------
    >>> from hbnlab.bn.structure import TreeStructure
    >>> tree = TreeStructure.from_nested([0, 1])            # C <- F0, C <- F1
    >>> p = TreeParameters(tree, [[[0.9, 0.1], [0.5, 0.5], [0.5, 0.5], [0.2, 0.8]],
    ...                           [0.7, 0.3], [0.6, 0.4]])
    >>> p.cpt(0)[3].tolist()                               # P(C | F0 = 1, F1 = 1)
    [0.2, 0.8]
    >>> TreeParameters.from_dict(p.to_dict()).cpt(1).tolist()
    [0.7, 0.3]
    """

    tree: TreeStructure
    cpts: tuple

    def __post_init__(self):
        if not isinstance(self.tree, TreeStructure):
            raise ParameterError(f"tree must be a TreeStructure, got {type(self.tree).__name__}")
        cpts = list(self.cpts)
        if len(cpts) != self.tree.n_nodes:
            raise ParameterError(f"got {len(cpts)} tables for a tree of {self.tree.n_nodes} nodes")
        object.__setattr__(self, "cpts", tuple(_check_table(self.tree, i, t) for i, t in enumerate(cpts)))

    # ------------------------------------------------------------------ access
    @property
    def direction(self) -> str:
        return self.tree.direction

    def cpt(self, i: int) -> np.ndarray:
        """The (read-only) table of node ``i``."""
        return self.cpts[i]

    def n_free_parameters(self) -> int:
        """Number of free parameters (``n_states - 1`` per row of every table; one per row when all
        variables are binary): for description lengths and BIC."""
        return int(sum(int(np.prod(t.shape[:-1])) * (t.shape[-1] - 1) for t in self.cpts))

    # ------------------------------------------------------------------ builders
    @classmethod
    def uniform(cls, tree: TreeStructure) -> TreeParameters:
        """Every row uniform (0.5 / 0.5 for binary nodes)."""
        return cls(tree, [np.full(cpt_shape(tree, i), 1.0 / tree.cardinality(i)) for i in range(tree.n_nodes)])

    def replace(self, i: int, table) -> TreeParameters:
        """A copy with the table of node ``i`` replaced."""
        cpts = list(self.cpts)
        cpts[i] = table
        return TreeParameters(self.tree, cpts)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict:
        """Plain lists and strings (JSON-able); includes the tree."""
        return {
            "direction": self.tree.direction,
            "tree": self.tree.to_dict(),
            "cpts": [t.tolist() for t in self.cpts],
        }

    @classmethod
    def from_dict(cls, d: dict, tree: TreeStructure | None = None) -> TreeParameters:
        """Inverse of :meth:`to_dict`; ``tree`` overrides the stored tree (it must fit the tables)."""
        if "cpts" not in d:
            raise ParameterError("tree parameters: missing field 'cpts'")
        if tree is None:
            if "tree" not in d:
                raise ParameterError("tree parameters: missing field 'tree' (and no tree given)")
            tree = TreeStructure.from_dict(d["tree"])
        direction = d.get("direction", tree.direction)
        if direction != tree.direction:
            raise ParameterError(f"parameters are for direction {direction!r}, tree has {tree.direction!r}")
        return cls(tree, d["cpts"])

    def __repr__(self) -> str:
        return f"TreeParameters(direction={self.direction!r}, n_nodes={self.tree.n_nodes})"


__all__ = ["TreeParameters", "ParameterError", "cpt_shape", "config_index", "MAX_PARENTS", "MAX_ROWS"]
