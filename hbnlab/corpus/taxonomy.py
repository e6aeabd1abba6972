"""Topic taxonomies: categories arranged in a tree (Chakrabarti 2003, sec. 5.7).

A :class:`Taxonomy` maps every node to its parent; the root is implicit (:data:`ROOT`, the empty
name) and is the parent of the top-level nodes.  Chakrabarti restricts sec. 5.7 to trees, with
the semantics of *inheritance*: a document of class c_1 also belongs to every ancestor of c_1.
Internal nodes need not be categories of the corpus (``comp`` and ``comp.sys`` of 20 Newsgroups
label no document; they only group their children).

Two sources:

* dotted category names -- :meth:`Taxonomy.from_names`: ``comp.sys.mac`` gives the chain
  comp -> comp.sys -> comp.sys.mac (a name without a dot is a top-level node);
* a taxonomy file -- :func:`read_taxonomy`: UTF-8 text, one edge ``parent<TAB>child`` per line;
  blank lines and lines starting with ``#`` are ignored; a node that is never a child hangs from
  the root.  Errors name the file and the line: a line without exactly two fields, an empty
  name, a child given a second parent, a cycle, and (when the corpus's categories are given) a
  leaf that is not a category of the corpus.

:class:`TopicLabels` is the membership of documents in every node (inheritance applied), the
context a learner of the hierarchy needs besides one category's labels
(:class:`hbnlab.models.hierarchical.HierarchicalShrinkageNBClassifier`).

Examples
--------
>>> tax = Taxonomy.from_names(["comp.sys.mac", "comp.sys.ibm", "comp.graphics", "sci.med"])
>>> tax.path("comp.sys.mac")
('comp', 'comp.sys', 'comp.sys.mac')
>>> tax.children(ROOT)
('comp', 'sci')
>>> tax.children("comp")
('comp.graphics', 'comp.sys')
>>> TopicLabels.from_label_sets(tax, [{"comp.sys.mac"}, {"sci.med"}]).column("comp").tolist()
[True, False]
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np

from .base import CorpusError

__all__ = ["ROOT", "Taxonomy", "TaxonomyError", "TopicLabels", "read_taxonomy", "taxonomy_for_categories"]

#: The implicit root of every taxonomy (the parent of the top-level nodes).
ROOT = ""


class TaxonomyError(CorpusError):
    """A taxonomy is not a tree over named nodes; the message names the file and line, or the node."""


@dataclass(frozen=True, eq=False)
class Taxonomy:
    """A tree of topics: ``parents[child] = parent`` (``ROOT`` for a top-level node).

    Invariants checked on construction: node names are non-empty strings, every parent is the
    root or a node, and following parents from any node reaches the root (no cycle).
    """

    parents: Mapping[str, str]

    def __post_init__(self):
        parents = dict(self.parents)
        for child, parent in parents.items():
            if not isinstance(child, str) or not child:
                raise TaxonomyError(f"taxonomy: node names must be non-empty strings, got {child!r}")
            if not isinstance(parent, str):
                raise TaxonomyError(f"taxonomy: the parent of {child!r} must be a string, got {parent!r}")
            if parent != ROOT and parent not in parents:
                raise TaxonomyError(f"taxonomy: the parent {parent!r} of {child!r} is not a node")
        for node in parents:
            seen = {node}
            up = parents[node]
            while up != ROOT:
                if up in seen:
                    raise TaxonomyError(f"taxonomy: node {node!r} is its own ancestor (a cycle)")
                seen.add(up)
                up = parents[up]
        kids: dict[str, list[str]] = {ROOT: []}
        for child in parents:
            kids.setdefault(child, [])
        for child, parent in parents.items():
            kids[parent].append(child)
        object.__setattr__(self, "parents", MappingProxyType(dict(sorted(parents.items()))))
        object.__setattr__(self, "_children", MappingProxyType({k: tuple(sorted(v)) for k, v in kids.items()}))

    def __reduce__(self):
        # rebuilt (and checked again) from the plain mapping: worker processes receive taxonomies
        return (Taxonomy, (dict(self.parents),))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_names(cls, names: Iterable[str]) -> Taxonomy:
        """The taxonomy of dotted names: every proper prefix ending before a dot is an ancestor.

        Empty components (``"a..b"``, ``".a"``, ``"a."``) are refused: the name would not say its parent.
        """
        parents: dict[str, str] = {}
        for name in names:
            parts = str(name).split(".")
            if any(p == "" for p in parts):
                raise TaxonomyError(f"category {name!r}: a dotted name needs a non-empty part between dots")
            for i in range(len(parts)):
                parents.setdefault(".".join(parts[: i + 1]), ".".join(parts[:i]) if i else ROOT)
        return cls(parents)

    @classmethod
    def from_dict(cls, d: Mapping) -> Taxonomy:
        """Inverse of :meth:`to_dict`."""
        return cls(dict(d["parents"]))

    def to_dict(self) -> dict:
        """``{"parents": {child: parent}}`` (JSON-able; ``""`` is the root)."""
        return {"parents": dict(self.parents)}

    # ------------------------------------------------------------------ views
    @property
    def nodes(self) -> tuple[str, ...]:
        """Every node but the root, parents before children (by depth, then name)."""
        return tuple(sorted(self.parents, key=lambda n: (self.depth(n), n)))

    def __contains__(self, node) -> bool:
        return node == ROOT or node in self.parents

    def children(self, node: str) -> tuple[str, ...]:
        """The children of ``node`` (``ROOT`` for the top level), sorted by name."""
        try:
            return self._children[node]
        except KeyError:
            raise KeyError(f"{node!r} is not a node of the taxonomy") from None

    def path(self, node: str) -> tuple[str, ...]:
        """The nodes from the top level down to ``node`` (the root excluded)."""
        if node not in self.parents:
            raise KeyError(f"{node!r} is not a node of the taxonomy")
        out = [node]
        while self.parents[out[-1]] != ROOT:
            out.append(self.parents[out[-1]])
        return tuple(reversed(out))

    def depth(self, node: str) -> int:
        """0 for the root, 1 for a top-level node, ..."""
        return 0 if node == ROOT else len(self.path(node))

    def descendants(self, node: str) -> tuple[str, ...]:
        """``node`` and every node below it."""
        out, stack = [], [node]
        while stack:
            n = stack.pop()
            out.append(n)
            stack.extend(self.children(n))
        return tuple(out)

    @property
    def internal_nodes(self) -> tuple[str, ...]:
        """The root and every node with children: where Chakrabarti's sec. 5.7.1 selects features."""
        return (ROOT, *(n for n in self.nodes if self._children[n]))

    @property
    def is_flat(self) -> bool:
        """True when every node hangs from the root: no hierarchy to exploit."""
        return len(self.internal_nodes) == 1

    def with_nodes(self, names: Iterable[str]) -> Taxonomy:
        """This taxonomy with ``names`` it lacks added as top-level nodes."""
        extra = {n: ROOT for n in names if n not in self.parents}
        return self if not extra else Taxonomy({**self.parents, **extra})


def read_taxonomy(path, *, categories: Sequence[str] | None = None) -> Taxonomy:
    """Read a taxonomy file: one ``parent<TAB>child`` per line (see the module docstring).

    Parameters
    ----------
    path : str or Path
    categories : sequence of str, optional
        The corpus's categories.  When given, every leaf of the file must be one of them (an
        internal node need not be), and the categories the file does not mention are added as
        top-level nodes (:meth:`Taxonomy.with_nodes`).

    Raises
    ------
    TaxonomyError
        Naming the file and line.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
    ...     _ = f.write("# topics\\ncomp\\tcomp.sys.mac\\ncomp\\tcomp.graphics\\n")
    >>> read_taxonomy(f.name).path("comp.sys.mac")
    ('comp', 'comp.sys.mac')
    >>> os.unlink(f.name)
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise TaxonomyError(f"{p}: cannot read the taxonomy file ({e})") from None
    parents: dict[str, str] = {}
    where: dict[str, int] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise TaxonomyError(f"line {lineno} of {p}: expected 'parent<TAB>child', got {len(fields)} "
                                f"tab-separated field{'s' if len(fields) != 1 else ''}")
        parent, child = (f.strip() for f in fields)
        if not parent or not child:
            raise TaxonomyError(f"line {lineno} of {p}: empty {'parent' if not parent else 'child'} name")
        if child == parent:
            raise TaxonomyError(f"line {lineno} of {p}: {child!r} is its own parent (a cycle)")
        if child in parents and parents[child] != parent:
            raise TaxonomyError(f"line {lineno} of {p}: {child!r} already has parent {parents[child]!r} "
                                f"(line {where[child]}); a taxonomy is a tree, one parent per node")
        parents[child] = parent
        where.setdefault(child, lineno)
    for child, parent in list(parents.items()):
        if parent not in parents:
            parents[parent] = ROOT
            where.setdefault(parent, where[child])
    for node, lineno in where.items():
        up, seen = parents[node], {node}
        while up != ROOT:
            if up in seen:
                raise TaxonomyError(f"line {lineno} of {p}: {node!r} is its own ancestor (a cycle)")
            seen.add(up)
            up = parents[up]
    tax = Taxonomy(parents)
    if categories is not None:
        known = set(categories)
        for node in tax.nodes:
            if not tax.children(node) and node not in known:
                raise TaxonomyError(f"line {where[node]} of {p}: leaf {node!r} is not a category of the corpus "
                                    f"(it has {sorted(known)[:12]}{'...' if len(known) > 12 else ''})")
        tax = tax.with_nodes(categories)
    return tax


def taxonomy_for_categories(categories: Sequence[str], taxonomy: Taxonomy | None = None) -> Taxonomy | None:
    """The taxonomy of an experiment: ``taxonomy`` (completed with the categories it lacks), else
    the one of the dotted names; ``None`` when neither gives a hierarchy (no dotted name, or a
    name such as ``u.s.`` whose dots do not name parents: every learner but the hierarchical ones
    must still work on such a corpus)."""
    if taxonomy is not None:
        return taxonomy.with_nodes(categories)
    if not any("." in str(c) for c in categories):
        return None
    try:
        tax = Taxonomy.from_names(categories)
    except TaxonomyError:
        return None
    return None if tax.is_flat else tax


@dataclass(frozen=True, eq=False)
class TopicLabels:
    """Membership of documents in every node of a taxonomy, inheritance applied.

    ``Y[i, k]`` is True when document ``i`` carries a label in the subtree of
    ``taxonomy.nodes[k]`` (Chakrabarti 2003, sec. 5.7: a document of a class belongs to its
    ancestors).  Labels outside the taxonomy are ignored.
    """

    taxonomy: Taxonomy
    Y: np.ndarray

    def __post_init__(self):
        Y = np.asarray(self.Y, dtype=bool)
        if Y.ndim != 2 or Y.shape[1] != len(self.taxonomy.nodes):
            raise ValueError(f"TopicLabels: Y must have one column per node ({len(self.taxonomy.nodes)}), "
                             f"got shape {Y.shape}")
        Y.setflags(write=False)
        object.__setattr__(self, "Y", Y)
        object.__setattr__(self, "_index", {n: k for k, n in enumerate(self.taxonomy.nodes)})

    def __reduce__(self):
        return (TopicLabels, (self.taxonomy, np.array(self.Y)))

    @classmethod
    def from_label_sets(cls, taxonomy: Taxonomy, label_sets: Iterable[Iterable[str]]) -> TopicLabels:
        """Node membership of documents given their label sets."""
        nodes = taxonomy.nodes
        index = {n: k for k, n in enumerate(nodes)}
        ancestors = {n: [index[a] for a in taxonomy.path(n)] for n in nodes}
        sets = list(label_sets)
        Y = np.zeros((len(sets), len(nodes)), dtype=bool)
        for i, labels in enumerate(sets):
            for lab in labels:
                cols = ancestors.get(lab)
                if cols:
                    Y[i, cols] = True
        return cls(taxonomy, Y)

    @property
    def n_documents(self) -> int:
        return int(self.Y.shape[0])

    def column(self, node: str) -> np.ndarray:
        """Membership in ``node`` (every document for the root)."""
        if node == ROOT:
            return np.ones(self.n_documents, dtype=bool)
        try:
            return self.Y[:, self._index[node]]
        except KeyError:
            raise KeyError(f"{node!r} is not a node of the taxonomy") from None

    def rows(self, index) -> TopicLabels:
        """The labels of a subset of documents (a boolean mask or row indices)."""
        return TopicLabels(self.taxonomy, self.Y[np.asarray(index)])
