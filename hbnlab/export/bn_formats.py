"""Standard Bayesian-network file formats: BIF, XMLBIF and HUGIN ``.net``.

The thesis built its classifiers with HUGIN (Karčiauskas 2002, ch. 4); these exports let other tools
(HUGIN, pgmpy, pyAgrum, GeNIe, Weka, ...) open an hbnlab model.  :func:`network_from_model`
turns a fitted learner into a :class:`DiscreteNetwork` -- variables, parents and full
conditional probability tables -- and :func:`export_bn` writes it.

Conventions (see ``hbnlab/export/FORMAT.md``):

* **states** are ``"0"`` (absent / false) and ``"1"`` (present / true) for every binary
  variable, in that order -- the state index hbnlab uses internally; a multi-state latent of
  the greedy HNB has states ``"0" .. "k-1"``;
* **names** are identifiers ``[A-Za-z_][A-Za-z0-9_]*``: a term is kept as it is when it is
  one (hbnlab's tokens are letter runs), otherwise every other character becomes ``_``; a name
  equal to a keyword of one of the formats (``table``, ``node``, ``data``, ...) or to an
  earlier name gets a suffix (``table_``, ``rate_2``).  The class variable is the label followed
  by ``TOPIC`` (``tradeTOPIC``, ``money_fxTOPIC``, the thesis's figs 4.1-4.4), hidden variables
  keep their tree names (``hidden3``).  The original names are kept in a ``label`` property
  (BIF / XMLBIF ``property``, HUGIN ``label``) and in :attr:`DiscreteNetwork.feature_terms`;
* **tables** are stored as arrays of shape ``(*parent_cards, n_states)``: the first parent is
  the most significant index, the variable's own state the last (BIF rows list the parent
  states explicitly; XMLBIF lists the numbers in this C order, own state fastest; HUGIN's nested
  ``data`` has the same nesting);
* **features** are evidence nodes: P(class | document) is the posterior of the class variable
  given every feature variable set to the document's presence / absence of the term.

Learners with a network form: hierarchical BN / NB classifiers (thesis ch. 2-3), Bernoulli naive
Bayes, the k-dependence BN (Chakrabarti, Mining the Web, fig. 5.8), the greedy HNB (Langseth &
Nielsen) and the noisy-OR gate of one category (de Campos eq. 9). The noisy OR is written in its
exact sequential decomposition (Heckerman & Breese 1996): a chain of binary nodes ``<class>_or1,
<class>_or2, ...``, each the OR of the previous node and one inhibited cause, so every table has at
most four rows instead of the 2**n rows of the expanded gate. It represents binary evidence (de
Campos eq. 9); a model fitted with ``counts=True`` (eq. 10, a term repeated n times enters n times)
gives the same posterior only for documents where every selected term occurs at most once.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape as _xml_escape

import numpy as np

FORMATS = ("bif", "xmlbif", "net")
FORMAT_SUFFIX = {"bif": ".bif", "xmlbif": ".bifxml", "net": ".net"}  # pyAgrum needs .bifxml
BINARY_STATES = ("0", "1")
ROW_SUM_ATOL = 1e-9

#: words that are keywords of BIF, XMLBIF or HUGIN's .net language (compared case-insensitively)
RESERVED = frozenset({
    "network", "variable", "probability", "property", "table", "default", "discrete", "type",
    "net", "node", "potential", "data", "states", "label", "position", "class", "continuous", "decision",
    "utility", "function", "true", "false", "and", "or", "not", "if", "min", "max", "bif",
    "given", "for", "outcome", "definition", "name", "nature", "interval", "subtype", "number", "boolean",
    "numbered", "temporal", "model", "experience", "fading",
})
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class BNExportError(ValueError):
    """A model cannot be written as a Bayesian network (the message says why)."""


# =========================================================================== names
def sanitize_name(name: str) -> str:
    """An identifier for ``name``: other characters become ``_``, a leading digit gets ``_``.

    >>> sanitize_name("money-fx"), sanitize_name("3com"), sanitize_name("trade")
    ('money_fx', '_3com', 'trade')
    """
    s = re.sub(r"[^A-Za-z0-9_]", "_", str(name))
    if not s:
        s = "_"
    if s[0].isdigit():
        s = "_" + s
    return s


class NameAllocator:
    """Unique identifiers, allocated in order; keywords and repeats get a suffix."""

    def __init__(self):
        self.used: set = set()

    def __call__(self, name: str) -> str:
        base = sanitize_name(name)
        if base.lower() in RESERVED:
            base = base + "_"
        cand, k = base, 2
        while cand.lower() in self.used:  # case-insensitive: some tools fold case
            cand = f"{base}_{k}"
            k += 1
        self.used.add(cand.lower())
        return cand


def class_variable_name(label: str | None, fallback: str = "classTOPIC") -> str:
    """``<label>TOPIC`` (thesis figs 4.1-4.4), sanitized."""
    return sanitize_name(f"{label}TOPIC") if label else sanitize_name(fallback)


def feature_variable_names(terms, class_name: str) -> list[str]:
    """The network names of the feature variables for ``terms`` (after the class variable)."""
    alloc = NameAllocator()
    alloc(class_name)
    return [alloc(t) for t in terms]


# =========================================================================== the network
@dataclass(frozen=True)
class BNVariable:
    """One discrete variable: its states, parents and table (shape ``(*parent_cards, n_states)``)."""

    name: str
    states: tuple
    parents: tuple
    table: np.ndarray
    role: str = "feature"  # "class", "hidden", "feature" or "auxiliary"
    label: str = ""


@dataclass(frozen=True)
class DiscreteNetwork:
    """A Bayesian network of discrete variables in topological order (parents first).

    Attributes
    ----------
    name : str
    variables : tuple of BNVariable
    class_variable : str
    feature_variables : tuple of str
        Names of the feature variables, aligned with the model's selected features
        (``estimator.selected_features_`` order).
    feature_terms : tuple of str
        The term of each feature variable.
    properties : dict
        Free-form strings written into the file as comments / properties.
    """

    name: str
    variables: tuple
    class_variable: str
    feature_variables: tuple
    feature_terms: tuple = ()
    properties: dict = field(default_factory=dict)
    row_sum_atol: float = ROW_SUM_ATOL

    def __post_init__(self):
        seen: dict = {}
        for v in self.variables:
            if not _IDENT.match(v.name):
                raise BNExportError(f"variable name {v.name!r} is not an identifier")
            if v.name in seen:
                raise BNExportError(f"variable {v.name!r} appears twice")
            for p in v.parents:
                if p not in seen:
                    raise BNExportError(f"variable {v.name!r}: parent {p!r} is not defined before it")
            shape = tuple(len(seen[p].states) for p in v.parents) + (len(v.states),)
            t = np.asarray(v.table, dtype=np.float64)
            if t.shape != shape:
                raise BNExportError(f"variable {v.name!r}: table has shape {t.shape}, expected {shape}")
            if not np.all(np.isfinite(t)) or t.min() < 0:
                raise BNExportError(f"variable {v.name!r}: table holds negative or non-finite values")
            bad = np.abs(t.sum(axis=-1) - 1.0) > self.row_sum_atol
            if np.any(bad):
                raise BNExportError(f"variable {v.name!r}: a row of its table does not sum to 1")
            seen[v.name] = v
        if self.class_variable not in seen:
            raise BNExportError(f"class variable {self.class_variable!r} is not in the network")
        for f in self.feature_variables:
            if f not in seen:
                raise BNExportError(f"feature variable {f!r} is not in the network")

    # ------------------------------------------------------------------ access
    def variable(self, name: str) -> BNVariable:
        for v in self.variables:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [v.name for v in self.variables]

    def evidence(self, E) -> list[dict]:
        """Evidence dicts ``{feature variable: 0 or 1}`` for rows of a (n, n_features) 0/1 matrix."""
        E = np.asarray(E)
        if E.ndim != 2 or E.shape[1] != len(self.feature_variables):
            raise ValueError(f"evidence must have shape (n, {len(self.feature_variables)}), got {E.shape}")
        names = self.feature_variables
        return [{n: int(x > 0) for n, x in zip(names, row)} for row in E]

    # ------------------------------------------------------------------ writers
    def to_bif(self) -> str:
        """The network in the Bayesian Interchange Format (BIF 0.15, as read by pgmpy and pyAgrum)."""
        out = [f"// {line}" for line in _header_lines(self)]
        out.append(f"network {self.name} {{")
        out.append("}")
        for v in self.variables:
            out.append(f"variable {v.name} {{")
            out.append(f"  type discrete [ {len(v.states)} ] {{ {', '.join(v.states)} }};")
            out.append(f"  property label = {_bif_string(v.label or v.name)} ;")
            out.append(f"  property role = {v.role} ;")
            out.append("}")
        for v in self.variables:
            t = np.asarray(v.table, dtype=np.float64)
            if not v.parents:
                out.append(f"probability ( {v.name} ) {{")
                out.append("  table " + ", ".join(_num(x) for x in t) + ";")
            else:
                out.append(f"probability ( {v.name} | {', '.join(v.parents)} ) {{")
                pstates = [self.variable(p).states for p in v.parents]
                for idx in np.ndindex(*t.shape[:-1]):
                    cfg = ", ".join(pstates[j][s] for j, s in enumerate(idx))
                    out.append(f"  ({cfg}) " + ", ".join(_num(x) for x in t[idx]) + ";")
            out.append("}")
        return "\n".join(out) + "\n"

    def to_xmlbif(self) -> str:
        """The network in XMLBIF 0.3 (Cozman's XML interchange format; Weka, pgmpy, pyAgrum)."""
        out = ['<?xml version="1.0" encoding="UTF-8"?>']
        out += [f"<!-- {_xml_escape(line).replace('--', '- -')} -->" for line in _header_lines(self)]
        out += ['<BIF VERSION="0.3">', "<NETWORK>", f"<NAME>{self.name}</NAME>"]
        for v in self.variables:
            out.append('<VARIABLE TYPE="nature">')
            out.append(f"  <NAME>{v.name}</NAME>")
            out += [f"  <OUTCOME>{s}</OUTCOME>" for s in v.states]
            out.append(f"  <PROPERTY>label = {_xml_escape(v.label or v.name)}</PROPERTY>")
            out.append(f"  <PROPERTY>role = {v.role}</PROPERTY>")
            out.append("</VARIABLE>")
        for v in self.variables:
            out.append("<DEFINITION>")
            out.append(f"  <FOR>{v.name}</FOR>")
            out += [f"  <GIVEN>{p}</GIVEN>" for p in v.parents]
            t = np.asarray(v.table, dtype=np.float64)
            out.append("  <TABLE>" + " ".join(_num(x) for x in t.ravel(order="C")) + "</TABLE>")
            out.append("</DEFINITION>")
        out += ["</NETWORK>", "</BIF>"]
        return "\n".join(out) + "\n"

    def to_net(self) -> str:
        """The network in the HUGIN ``.net`` specification language (HUGIN 6+ syntax)."""
        out = [f"% {line}" for line in _header_lines(self)]
        out += ["net", "{", f'    name = "{self.name}";', "}"]
        for v in self.variables:
            out.append(f"node {v.name}")
            out.append("{")
            out.append(f"    label = {_net_string(v.label or v.name)};")
            out.append("    states = (" + " ".join(f'"{s}"' for s in v.states) + ");")
            out.append("}")
        for v in self.variables:
            head = f"potential ( {v.name} | {' '.join(v.parents)} )" if v.parents else f"potential ( {v.name} )"
            out.append(head)
            out.append("{")
            out.append(f"    data = {_nested(np.asarray(v.table, dtype=np.float64))};")
            out.append("}")
        return "\n".join(out) + "\n"

    def to_text(self, fmt: str) -> str:
        fmt = fmt.lower()
        if fmt == "bif":
            return self.to_bif()
        if fmt == "xmlbif":
            return self.to_xmlbif()
        if fmt == "net":
            return self.to_net()
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")


def _num(x: float) -> str:
    """Shortest representation that reads back to the same double (17 significant digits at most)."""
    r = repr(float(x))
    return r if ("e" in r or "." in r) else r + ".0"


def _nested(t: np.ndarray) -> str:
    if t.ndim == 1:
        return "( " + " ".join(_num(x) for x in t) + " )"
    return "(" + " ".join(_nested(s) for s in t) + ")"


def _bif_string(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', "'").replace("\n", " ") + '"'


def _net_string(s: str) -> str:
    return '"' + str(s).replace('"', "'").replace("\n", " ").replace(";", ",") + '"'


def _header_lines(net: DiscreteNetwork) -> list[str]:
    lines = ["written by hbnlab (hbnlab.export.bn_formats); states '0' = absent/false, '1' = present/true"]
    for k, v in net.properties.items():
        lines.append(f"{k}: {str(v).replace(chr(10), ' ')}")
    return lines


# =========================================================================== builders
def _binary_rows(p1) -> np.ndarray:
    """Rows [1 - p, p] for an array of P(state 1)."""
    p1 = np.asarray(p1, dtype=np.float64)
    return np.stack([1.0 - p1, p1], axis=-1)


def _terms_for(est, vocabulary, fallback=None) -> list[str]:
    sel = np.asarray(est.selected_features_)
    if vocabulary is not None:
        return [str(vocabulary[int(j)]) for j in sel]
    if fallback is not None:
        return list(fallback)
    return [f"F{int(j)}" for j in sel]


def _tree_network(est, terms, class_name, name) -> DiscreteNetwork:
    """HBN (thesis ch. 2, arcs toward the class) or HNB (sec. 3.3, arcs away from it); the terms
    outside the tree (``class_children_``) are children of the class, C -> F, after it."""
    cc = getattr(est, "class_children_", None)
    if cc is None:
        return network_from_tree_parameters(est.params_, terms, class_name, name)
    T = est.params_.tree.n_features
    net = network_from_tree_parameters(est.params_, terms[:T], class_name, name)
    alloc = NameAllocator()
    for v in net.variables:
        alloc(v.name)
    variables, fvars = list(net.variables), list(net.feature_variables)
    table = _binary_rows(cc.p_on.T)  # (class state, feature state)
    for j, term in enumerate(terms[T:]):
        n = alloc(term)
        fvars.append(n)
        variables.append(BNVariable(n, BINARY_STATES, (net.class_variable,), table[j], "feature", term))
    return DiscreteNetwork(net.name, tuple(variables), net.class_variable, tuple(fvars), tuple(terms))


def network_from_tree_parameters(params, terms=None, class_name: str = "classTOPIC",
                                 name: str = "hbnlab_tree") -> DiscreteNetwork:
    """The network of a :class:`~hbnlab.bn.params.TreeParameters` (HBN or HNB).

    ``terms[j]`` names feature column ``j`` (default: the tree's leaf names).  HBN tables
    (thesis ch. 2): a node with children ``c_0..c_{k-1}`` gets them as parents, listed from the
    last to the first so that the C-order index of its ``(n_{c_{k-1}}, ..., n_{c_0}, n_i)`` table
    is the (mixed-radix) configuration index of :mod:`hbnlab.bn.params`, ``sum_j state(c_j) 2**j``
    when all are binary; features are parentless.  HNB tables (sec. 3.3):
    ``P(node | node above)``.  A hidden node of ``n`` states has states ``"0" .. "n-1"``.
    """
    tree = params.tree
    if terms is None:
        by_col = {tree.feature[i]: tree.names[i] for i in tree.feature_nodes()}
        terms = [by_col[j] for j in range(len(by_col))]
    terms = list(terms)
    if len(terms) != tree.n_features:
        raise BNExportError(f"{len(terms)} terms for a tree with {tree.n_features} features")
    alloc = NameAllocator()
    names: dict = {0: alloc(class_name)}
    feat_nodes = sorted(tree.feature_nodes(), key=lambda i: tree.feature[i])
    for i in feat_nodes:
        names[i] = alloc(terms[tree.feature[i]])
    for i in tree.hidden_nodes():
        names[i] = alloc(tree.names[i])
    role = {"class": "class", "hidden": "hidden", "feature": "feature"}
    variables = []
    if tree.direction == "hbn":
        order = tree.topological_bottom_up()  # the nodes below a node are its parents
        for i in order:
            t = params.cpt(i)
            if tree.kind[i] == "feature":
                parents, table = (), np.asarray(t)
            else:
                ch = tree.children(i)
                # row x = sum_j state(c_j) 2**j (TreeParameters): list the parents from the last
                # child to the first so that the C-order index of the table is x
                parents = tuple(names[c] for c in reversed(ch))
                table = np.asarray(t).reshape(tuple(tree.cardinality(c) for c in reversed(ch)) + (t.shape[-1],))
            label = terms[tree.feature[i]] if tree.kind[i] == "feature" else (tree.names[i] if i else class_name)
            variables.append(BNVariable(names[i], _tree_states(tree, i), parents, table, role[tree.kind[i]], label))
    else:
        order = list(reversed(tree.topological_bottom_up()))  # top-down
        for i in order:
            parents = () if i == 0 else (names[tree.up[i]],)
            label = terms[tree.feature[i]] if tree.kind[i] == "feature" else (tree.names[i] if i else class_name)
            variables.append(BNVariable(names[i], _tree_states(tree, i), parents, np.asarray(params.cpt(i)),
                                        role[tree.kind[i]], label))
    fvars = tuple(names[i] for i in feat_nodes)
    return DiscreteNetwork(sanitize_name(name), tuple(variables), names[0], fvars, tuple(terms))


def _tree_states(tree, i) -> tuple:
    """``("0", "1")`` for a binary node, ``("0", ..., "n-1")`` for a hidden node of n states."""
    n = tree.cardinality(i)
    return BINARY_STATES if n == 2 else tuple(str(s) for s in range(n))


def _nb_network(est, terms, class_name, name) -> DiscreteNetwork:
    """Bernoulli naive Bayes (thesis sec. 1.1.3): C -> F_i with P(F_i = 1 | C = c)."""
    alloc = NameAllocator()
    cname = alloc(class_name)
    prior = np.exp(est.class_log_prior_)
    variables = [BNVariable(cname, BINARY_STATES, (), prior / prior.sum(), "class", class_name)]
    fvars = []
    # (2, m): rows c = 0, 1; both states from the model's own log tables (the numbers its log-odds use)
    p_on, p_off = np.exp(est.feature_log_prob_), np.exp(est.feature_log_prob_off_)
    for j, term in enumerate(terms):
        n = alloc(term)
        fvars.append(n)
        table = np.stack([p_off[:, j], p_on[:, j]], axis=-1)
        variables.append(BNVariable(n, BINARY_STATES, (cname,), table, "feature", term))
    return DiscreteNetwork(name, tuple(variables), cname, tuple(fvars), tuple(terms))


def _kdb_network(est, terms, class_name, name) -> DiscreteNetwork:
    """k-dependence BN (Chakrabarti, Mining the Web, fig. 5.8): X_j | C, term parents; theta_[j, cfg, c] with bit s of
    cfg the state of parent slot s."""
    alloc = NameAllocator()
    cname = alloc(class_name)
    prior = np.exp(est.class_log_prior_)
    fnames = [alloc(t) for t in terms]
    variables = {-1: BNVariable(cname, BINARY_STATES, (), prior / prior.sum(), "class", class_name)}
    for j in range(len(terms)):
        slots = [s for s in range(est.parents_.shape[1]) if est.parents_[j, s] >= 0]
        n = len(slots)
        # parents listed [C, slot s_{n-1}, ..., slot s_0]: C-order index over the term parents is
        # c' = sum_t bit_t 2**t with bit_t the state of slot s_t; theta's index is sum_t bit_t 2**s_t
        cfg = np.arange(2**n)
        idx = np.zeros(2**n, dtype=np.int64)
        for t, s in enumerate(slots):
            idx |= ((cfg >> t) & 1) << s
        theta = est.theta_[j][idx]  # (2**n, 2 classes): P(X_j = 1 | cfg, c)
        table = _binary_rows(theta.T).reshape((2,) + (2,) * n + (2,))
        parents = (cname,) + tuple(fnames[int(est.parents_[j, s])] for s in reversed(slots))
        variables[j] = BNVariable(fnames[j], BINARY_STATES, parents, table, "feature", terms[j])
    # topological order: the class, then the terms in the order they joined the network
    ordered = [variables[-1]] + [variables[int(j)] for j in est.order_]
    return DiscreteNetwork(name, tuple(ordered), cname, tuple(fnames), tuple(terms))


def _noisy_or_network(est, terms, class_name, name) -> DiscreteNetwork:
    """The noisy-OR gate of one category (de Campos eq. 7, binary evidence eq. 9), written as the
    exact sequential decomposition (Heckerman & Breese 1996): O_1 = Z_1, O_i = O_{i-1} OR Z_i with
    P(Z_i = 1 | T_i) = w_i T_i, and the class is the last O with the leak folded in:
    P(C = 0 | o, t) = (1 - leak) (1 - o) (1 - w_n t)."""
    alloc = NameAllocator()
    cname = alloc(class_name)
    fnames = [alloc(t) for t in terms]
    W = np.asarray(est.model_.weights_[0], dtype=np.float64)
    leak = float(est.leak)
    # term priors are not part of the model (all terms are observed): uniform
    variables = [BNVariable(f, BINARY_STATES, (), np.array([0.5, 0.5]), "feature", t) for f, t in zip(fnames, terms)]
    arcs = [j for j in range(len(terms)) if W[j] > 0]
    if not arcs:
        variables.append(BNVariable(cname, BINARY_STATES, (), np.array([1 - leak, leak]), "class", class_name))
        return DiscreteNetwork(name, tuple(variables), cname, tuple(fnames), tuple(terms))
    prev = None
    for i, j in enumerate(arcs):
        last = i == len(arcs) - 1
        w = W[j]
        keep = 1.0 - leak if last else 1.0
        if prev is None:
            p0 = np.array([keep, keep * (1.0 - w)])  # P(. = 0 | t)
            parents = (fnames[j],)
        else:
            # P(. = 0 | o, t) = keep (1 - o) (1 - w t)
            p0 = np.array([[keep, keep * (1.0 - w)], [0.0, 0.0]])
            parents = (prev, fnames[j])
        table = np.stack([p0, 1.0 - p0], axis=-1)
        if last:
            variables.append(BNVariable(cname, BINARY_STATES, parents, table, "class", class_name))
        else:
            aux = alloc(f"{class_name}_or{i + 1}")
            variables.append(BNVariable(aux, BINARY_STATES, parents, table, "auxiliary", f"OR of causes 1..{i + 1}"))
            prev = aux
    return DiscreteNetwork(name, tuple(variables), cname, tuple(fnames), tuple(terms))


def _greedy_network(est, terms, class_name, name) -> DiscreteNetwork:
    """Greedy HNB (Langseth & Nielsen): C -> latents (k states) -> ... -> features."""
    m = est.model_
    alloc = NameAllocator()
    cname = alloc(class_name)
    fnames = [alloc(t) for t in terms]
    lnames = [alloc(f"latent{j + 1}") for j in range(m.n_latents)]

    def vname(v):
        return fnames[v] if v < m.n_features else lnames[v - m.n_features]

    variables = [BNVariable(cname, BINARY_STATES, (), np.asarray(est.class_prior_, dtype=np.float64), "class",
                            class_name)]
    # a latent is created after its children: decreasing index is a top-down order
    for v in sorted(range(m.n_vars), reverse=True):
        p = m.parent[v]
        parents = (cname,) if p == -1 else (vname(p),)
        states = BINARY_STATES if v < m.n_features else tuple(str(s) for s in range(m.card[v]))
        role = "feature" if v < m.n_features else "hidden"
        label = terms[v] if v < m.n_features else f"latent{v - m.n_features + 1}"
        variables.append(BNVariable(vname(v), states, parents, np.asarray(est.cpt_[v], dtype=np.float64), role, label))
    return DiscreteNetwork(name, tuple(variables), cname, tuple(fnames), tuple(terms))


_BUILDERS = {
    "HierarchicalBNClassifier": _tree_network,
    "HierarchicalNBClassifier": _tree_network,
    "BernoulliNBClassifier": _nb_network,
    "KDependenceBNClassifier": _kdb_network,
    "NoisyORBinaryClassifier": _noisy_or_network,
    "GreedyHNBClassifier": _greedy_network,
}

#: learners that have a Bayesian-network form
BN_LEARNERS = tuple(_BUILDERS)


def _unwrap(model, vocabulary, label):
    from hbnlab.export.model_io import LoadedModel

    class_name = None
    if isinstance(model, LoadedModel):
        vocabulary = model.vocabulary if vocabulary is None else vocabulary
        label = model.label if label is None else label
        class_name = model.class_name
        model = model.estimator
    return model, vocabulary, label, class_name


def model_class_name(model, label=None) -> str:
    """The class variable's network name for a model (see :func:`network_from_model`)."""
    est, _, label, class_name = _unwrap(model, None, label)
    if label:
        return class_variable_name(label)
    if class_name:
        return sanitize_name(class_name)
    tree = getattr(est, "tree_", None)
    if tree is not None and type(est).__name__ != "GreedyHNBClassifier" and tree.names[0] != "class":
        return sanitize_name(tree.names[0])
    cn = getattr(est, "class_name", None)
    if isinstance(cn, str) and cn and cn != "class":
        return sanitize_name(cn)
    return "classTOPIC"


def network_from_model(model, *, vocabulary=None, label=None, name: str | None = None) -> DiscreteNetwork:
    """The Bayesian network of a fitted learner (or of a :class:`~hbnlab.export.model_io.LoadedModel`).

    Parameters
    ----------
    model : fitted estimator or LoadedModel
    vocabulary : sequence of str, optional
        Term of every input column (a LoadedModel brings its own); feature variables are named
        after the selected terms, else ``F<column>``.
    label : str, optional
        The positive class; the class variable is ``<label>TOPIC``.
    name : str, optional
        Network name (default ``hbnlab_<class variable>``).
    """
    est, vocabulary, label, _ = _unwrap(model, vocabulary, label)
    kind = type(est).__name__
    builder = _BUILDERS.get(kind)
    if builder is None:
        raise BNExportError(f"{kind} has no Bayesian-network form; BIF / XMLBIF / HUGIN exports exist for "
                            f"{sorted(_BUILDERS)} (save it as an hbnlab model file instead)")
    if not hasattr(est, "selected_features_"):
        raise BNExportError(f"{kind} is not fitted")
    cname = model_class_name(model, label)
    fallback = None
    if kind in ("HierarchicalBNClassifier", "HierarchicalNBClassifier") and vocabulary is None:
        tree = est.params_.tree
        by_col = {tree.feature[i]: tree.names[i] for i in tree.feature_nodes()}
        fallback = [by_col[j] for j in range(len(by_col))]
        if getattr(est, "class_children_", None) is not None:
            fallback += list(est.class_children_names_)
    terms = _terms_for(est, vocabulary, fallback)
    net = builder(est, terms, cname, sanitize_name(name or f"hbnlab_{cname}"))
    props = {"learner": kind, "class": label or cname}
    if getattr(est, "counts", False) and kind == "NoisyORBinaryClassifier":
        props["note"] = ("binary evidence (de Campos eq. 9); the model was fitted with counts=True (eq. 10), "
                         "so it differs where a term occurs more than once")
    return DiscreteNetwork(net.name, net.variables, net.class_variable, net.feature_variables, net.feature_terms,
                           props)


def export_bn(model, fmt: str, path, *, vocabulary=None, label=None) -> Path:
    """Write a model's Bayesian network as BIF (``"bif"``), XMLBIF (``"xmlbif"``) or HUGIN
    ``.net`` (``"net"``) to ``path`` (atomically).  Returns the path."""
    from hbnlab.export.atomic import write_text_atomic

    fmt = str(fmt).lower()
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    net = network_from_model(model, vocabulary=vocabulary, label=label)
    return write_text_atomic(Path(path), net.to_text(fmt))




__all__ = ["FORMATS", "FORMAT_SUFFIX", "BINARY_STATES", "BN_LEARNERS", "BNExportError", "BNVariable",
           "DiscreteNetwork", "NameAllocator", "sanitize_name", "class_variable_name", "feature_variable_names",
           "model_class_name", "network_from_model", "network_from_tree_parameters", "export_bn"]
