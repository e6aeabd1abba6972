"""Vectorized message-passing kernels for tree networks of binary variables (HBN and HNB).

Everything here works on

* **patterns**: the distinct rows of the binary document x feature matrix (optionally together
  with the class), with a count per row -- documents never appear one by one;
* **batched tables**: ``cpts[i]`` has a leading restart axis ``R`` (shape ``(R, *cpt_shape)``),
  so that many EM restarts, or a single parameter set (``R = 1``), run through the same code.

Shapes used throughout: ``R`` restarts, ``P`` patterns, ``k`` nodes below a node, ``h`` of them
hidden and ``f`` of them features.  Python loops run over tree nodes only; the passes over a
binary HBN node's sub-patterns (wide and narrow nodes, the products of the hidden children's
distributions, the child messages) and the HNB's per-node passes run as compiled loops
(:mod:`hbnlab.bn.hbn_jit`), with numpy as the reference.

HBN (arcs toward the root; features are observed parentless roots)
    Upward: ``q_i[r, p, s] = P(H_i = s | features under i)``.  Because the subtrees below a node
    are disjoint and all features are observed, the nodes below ``i`` are independent given the
    features, so ``q_i = sum_x prod_j P(c_j = x_j | ...) P(i | x)`` (thesis ch. 2, the factorised
    joint).  The states of the feature children are known, so only the ``2**h`` configurations
    of the hidden children are summed: the table rows ``base_p + offs[x_h]`` are gathered.
    Each node works on its own *sub-patterns* (distinct rows of the features under it), which
    are far fewer than the patterns for nodes away from the class.  A node with ``h >= 3``
    hidden children sums their configurations in two halves ("split" mode, see :class:`_Split`).
    Downward (class observed): ``rho_i = P(H_i | f, c) / q_i``; the family posterior of node
    ``i`` is ``W(x) P(i = s | x) rho_i(s)`` with ``W`` the product of the children's ``q``
    (expected counts: its sum over documents), and the posterior of a hidden child is the
    matching marginal of it.

HNB (arcs away from the root; features are observed leaves; :mod:`hbnlab.bn.hnb_kernels`)
    Upward lambda messages ``lambda_i(s) = P(features under i | i = s)`` in log space (feature
    evidence enters as one matrix product per node), downward posteriors from the root
    (class observed during EM, or its posterior at prediction time); family posterior
    ``P(u, i | e) = P(u | e) / m_{i->u}(u) * P(i | u) * lambda_i(i)``.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import xlogy

from hbnlab._validation import as_binary
from hbnlab.bn.structure import FEATURE, TreeStructure

#: Run the E-step's loops over sub-patterns compiled (:mod:`hbnlab.bn.hbn_jit`, imported on
#: first use: numba takes a second to load); False, or numba missing: numpy only.
USE_JIT = importlib.util.find_spec("numba") is not None


def compiled_kernels():
    from hbnlab.bn import hbn_jit

    return hbn_jit


# upper bound on the estimated float64 elements of a node's intermediate arrays (TreePlan.block,
# per restart) times the restarts processed at once: batches of restarts are processed in
# chunks below it.  ~12 MB keeps the arrays of one chunk in the processor's cache (Reuters trade,
# HBN-OR, 64 restarts: 1.1x faster at 100 terms than with 64 MB chunks, the same at 300).
MAX_BLOCK_ELEMENTS = 1_500_000
# an HBN node with at least this many hidden children is computed in "split" mode (see
# _Split): its hidden children are split into two groups whose configurations are summed one
# after the other, so the work per sub-pattern is ~2**(h/2) instead of 2**h
SPLIT_MIN_HIDDEN = 3


# ============================================================================ patterns
def binary_dense(X, n_columns: int | None = None) -> np.ndarray:
    """A boolean dense copy of ``X``: a term is present where its entry is positive (negative or
    non-finite entries raise, see :func:`hbnlab._validation.as_binary`)."""
    out = as_binary(X).toarray() != 0
    if n_columns is not None and out.shape[1] != n_columns:
        raise ValueError(f"X has {out.shape[1]} columns, expected {n_columns} (one per feature node)")
    return out


@dataclass
class PatternData:
    """Distinct (feature pattern[, class]) rows with multiplicities.

    Attributes
    ----------
    U : ndarray of bool, shape (P, n_features)
    y : ndarray of int8, shape (P,), or None
    counts : ndarray of float64, shape (P,)
        Number of documents (or total sample weight) per pattern.
    inverse : ndarray of int64, shape (n_documents,)
        ``U[inverse]`` rebuilds the document matrix.
    """

    U: np.ndarray
    y: np.ndarray | None
    counts: np.ndarray
    inverse: np.ndarray

    @property
    def n_patterns(self) -> int:
        return self.U.shape[0]

    @property
    def n_documents(self) -> int:
        return self.inverse.shape[0]


def collapse_patterns(X, y=None, *, n_columns: int | None = None, sample_weight=None) -> PatternData:
    """Collapse documents to distinct rows: ``np.unique`` over bit-packed rows (+ class byte)."""
    Xb = binary_dense(X, n_columns)
    n, m = Xb.shape
    key = np.packbits(Xb, axis=1) if m else np.zeros((n, 0), dtype=np.uint8)
    if y is not None:
        yv = np.asarray(y)
        if yv.shape != (n,):
            raise ValueError(f"y must have shape ({n},), got {yv.shape}")
        key = np.column_stack([key, yv.astype(np.uint8)])
    if key.shape[1] == 0:
        key = np.zeros((n, 1), dtype=np.uint8)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    if sample_weight is None:
        counts = np.bincount(inverse, minlength=first.size).astype(np.float64)
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.shape != (n,) or not np.all(np.isfinite(w)) or (w.size and w.min() < 0):
            raise ValueError("sample_weight must be a non-negative finite vector with one entry per document")
        counts = np.bincount(inverse, weights=w, minlength=first.size)
    U = Xb[first]
    yp = None if y is None else np.asarray(y)[first].astype(np.int8)
    return PatternData(U, yp, counts, inverse.astype(np.int64))


# ============================================================================ plans
def _sub_patterns(U: np.ndarray, fcols: np.ndarray, nodes: dict, hid_nodes) -> tuple[np.ndarray, np.ndarray]:
    """Sub-patterns of a node: inverse (P,) and first representative pattern (P_i,) of the distinct
    rows of the feature columns under it.  Two patterns agree on every feature under the node
    exactly when they agree on its feature children and on the sub-pattern of each hidden child
    (computed before, bottom-up), so the rows are keyed by those few numbers, one int64 per
    pattern, instead of by all the columns under the node."""
    P = U.shape[0]
    parts = [(U[:, c].astype(np.int64), 2) for c in fcols] + [(nodes[c].inv, nodes[c].P_i) for c in hid_nodes]
    key, span = np.zeros(P, dtype=np.int64), 1
    for part, m in parts:
        if span * m >= 2**62:                    # renumber the keys so far before they overflow
            _, key = np.unique(key, return_inverse=True)
            key, span = key.ravel().astype(np.int64), int(key.max()) + 1 if key.size else 1
        key, span = key * m + part, span * m
    _, rep, inv = np.unique(key, return_index=True, return_inverse=True)
    return inv.ravel().astype(np.int64), rep.astype(np.int64)


@dataclass
class _HBNNode:
    """Index arrays of one inner HBN node.

    The node is computed on its own *sub-patterns*: the distinct rows of the feature columns
    under it (``P_i <= P``), because ``q_i`` depends on nothing else.
    """

    node: int
    k: int
    children: tuple
    feat_cols: np.ndarray  # feature columns of the feature children
    feat_pos: np.ndarray   # their bit positions in the configuration index
    hid_nodes: tuple       # hidden children (node ids); bit b of x_h <-> hid_nodes[b]
    offs: np.ndarray       # (X = 2**h,) configuration index contributed by the hidden children
    bits: np.ndarray       # (X, h) float: [bit b of x_h is 1]
    inv: np.ndarray = None         # (P,) pattern -> sub-pattern
    P_i: int = 0
    child_map: dict = None         # hidden child c -> (P_i,) index into c's sub-patterns
    rows_h: np.ndarray = None      # (P_i, h) the same maps side by side, hid_nodes order (binary nodes)
    child_seg: dict = None         # hidden child c -> (P_c, P_i) csr: sums sub-patterns into c's
    Fd: np.ndarray = None          # (P_i, f) float 0/1 values of the feature children
    mode: str = "dense"            # "dense" (f = 0, h < 3), "gather" (f > 0, h < 3), "split" (h >= 3),
                                   # "generic" (a tree with k-state hidden nodes, see _generic_hbn_node)
    idx: np.ndarray = None         # (P_i, X) full configuration index ("gather", "generic")
    runs: np.ndarray = None        # start of each run of sub-patterns with the same base ("gather")
    run_rows: np.ndarray = None    # (runs, X) the table rows of each run ("gather")
    ST: sp.csr_matrix = None       # (rows, P_i * X) scatter matrix for expected counts ("generic")
    Seg: sp.csr_matrix = None      # (P_i, P) sums patterns into sub-patterns
    split: _Split = None           # index arrays of mode "split"
    ind: np.ndarray = None         # (X, sum of the hidden children's states) one-hot ("generic")
    starts: np.ndarray = None      # column offset of each hidden child in ``ind`` ("generic")

    @property
    def h(self) -> int:
        return len(self.hid_nodes)

    @property
    def f(self) -> int:
        return len(self.feat_cols)


@dataclass
class _Split:
    """Mode "split" of an HBN node with h >= 3 hidden children.

    The hidden children are split into a left group L (the first ``hL`` of them: the low bits of
    ``x_h``, ``x_h = xL + 2**hL * xR``) and a right group R.  A sub-pattern ``p`` of the node is
    the triple (block ``b`` = the feature children's states, left key, right key), where the left
    key ``kL`` is the distinct (block, sub-patterns of the L children) pair and ``kR`` likewise.
    With ``W_L[kL]`` and ``W_R[kR]`` the product distributions of the two groups,

        q(p, s) = sum_xR W_R[kR(p)](xR) * Y[kL(p)](s, xR),
        Y[kL](s, xR) = sum_xL W_L[kL](xL) C_b(xR, xL, s)

    costs (#kL * 2**h + P_i * 2**hR) instead of P_i * 2**h; the downward pass is organised the
    same way (see hbn_estep).  With h odd the two groups differ by one child; the larger goes to
    the side that costs less (estimated from the numbers of keys, see :func:`_make_split`).
    """

    hL: int
    XL: int
    XR: int
    kL: np.ndarray        # (P_i,) left key of each sub-pattern
    kR: np.ndarray        # (P_i,) right key
    repL: np.ndarray      # (n_kL,) a sub-pattern with that left key
    repR: np.ndarray      # (n_kR,)
    blocks: list          # [(rows (XR, XL) table rows, kL start, kL stop, kR start, kR stop)]
    SegL: sp.csr_matrix   # (n_kL, P_i)
    bitsL: np.ndarray     # (XL, hL)
    bitsR: np.ndarray     # (XR, h - hL)
    idxL: np.ndarray      # (n_kL, hL) row of each left child's sub-patterns per left key
    idxR: np.ndarray      # (n_kR, h - hL)


def _make_split(nd, base_ids, bases, cards=None, hL=None):
    """Index arrays of mode "split"; ``cards`` (the hidden children's numbers of states, default
    all 2) makes ``bitsL`` / ``bitsR`` one-hot state indicators (column ``off_b + t``: child ``b``
    in state ``t``) instead of the bits.  The left group has ``hL`` children; by default h // 2
    or h - h // 2, whichever costs less by the count of elements below."""
    h = nd.h
    binary = cards is None
    cards = np.full(h, 2, dtype=np.int64) if cards is None else np.asarray(cards, dtype=np.int64)
    cols = [nd.child_map[c] for c in nd.hid_nodes]
    best = None
    for left in sorted({h // 2, h - h // 2}) if hL is None else [hL]:
        # per restart: the tables Y and V, one row per key and X entries each, and the arrays
        # over the sub-patterns (Z, H, ZL and the child posteriors) of XR or XL entries
        XL, XR = int(np.prod(cards[:left])), int(np.prod(cards[left:]))
        keyL = np.unique(np.column_stack([base_ids] + cols[:left]), axis=0, return_index=True, return_inverse=True)
        keyR = np.unique(np.column_stack([base_ids] + cols[left:]), axis=0, return_index=True, return_inverse=True)
        cost = XL * XR * (keyL[1].size + keyR[1].size) + base_ids.size * (XR * (6 + h - left) + XL * (4 + left))
        if best is None or cost < best[0]:
            best = (cost, left, XL, XR, keyL, keyR)
    _, hL, XL, XR, (_, repL, kL), (_, repR, kR) = best
    kL, kR = kL.ravel(), kR.ravel()
    bL, bR = base_ids[repL], base_ids[repR]              # sorted: the block id is the first column
    offs = nd.offs.reshape(XR, XL)
    blocks = []
    for b, base in enumerate(bases):
        aL, zL = np.searchsorted(bL, [b, b + 1])
        aR, zR = np.searchsorted(bR, [b, b + 1])
        blocks.append((base + offs, int(aL), int(zL), int(aR), int(zR)))
    SegL = sp.csr_matrix((np.ones(kL.size), (kL, np.arange(kL.size))), shape=(repL.size, kL.size))
    if binary:
        xs = np.arange(max(XL, XR))
        bitsL = ((xs[:XL, None] >> np.arange(hL)) & 1).astype(np.float64)
        bitsR = ((xs[:XR, None] >> np.arange(h - hL)) & 1).astype(np.float64)
    else:
        # x_h = xL + XL * xR: the rows of nd.ind (one-hot over every hidden child) split the same way
        aL = int(nd.starts[hL])
        bitsL = np.ascontiguousarray(nd.ind[:XL, :aL])
        bitsR = np.ascontiguousarray(nd.ind[::XL, aL:])
    # both groups are non-empty (h >= SPLIT_MIN_HIDDEN)
    idxL = np.column_stack([c[repL] for c in cols[:hL]])
    idxR = np.column_stack([c[repR] for c in cols[hL:]])
    return _Split(hL, XL, XR, kL, kR, repL, repR, blocks, SegL, bitsL, bitsR, idxL, idxR)


@dataclass
class HNBNode:
    node: int
    feat_children: tuple  # node ids of the feature children
    feat_cols: np.ndarray
    hid_nodes: tuple
    Uf: np.ndarray | None = None   # (P_i, f) float 0/1 of the feature children's columns
    Uf0: np.ndarray | None = None  # 1 - Uf
    inv: np.ndarray = None         # (P,) pattern -> sub-pattern (distinct rows of the features under the node)
    P_i: int = 0
    child_map: dict = None         # hidden child c -> (P_i,) index into c's sub-patterns
    child_seg: dict = None         # hidden child c -> (P_c, P_i) csr: sums sub-patterns into c's
    rows_h: np.ndarray = None      # (P_i, h) child b's sub-pattern, offset by the sub-patterns of children < b
    ones_ptr: np.ndarray = None    # (P_i + 1,) with ones_idx: the feature children at 1, per sub-pattern (CSR)
    ones_idx: np.ndarray = None
    ones_gidx: np.ndarray = None   # ones_idx + the feature children of the nodes before it in bottom_up order


def _child_segments(nd, nodes) -> dict:
    """hidden child c -> (P_c, P_i) 0/1 matrix summing the node's sub-patterns into c's (the
    features under c are among those under the node, so each sub-pattern maps to one of c's)."""
    P_i = nd.child_map[nd.hid_nodes[0]].size if nd.hid_nodes else 0
    cols = np.arange(P_i)
    return {c: sp.csr_matrix((np.ones(P_i), (nd.child_map[c], cols)), shape=(nodes[c].P_i, P_i))
            for c in nd.hid_nodes}


def _generic_hbn_node(tree: TreeStructure, i: int, U: np.ndarray, nodes: dict, P: int) -> _HBNNode:
    """Index arrays of an inner HBN node of a tree with k-state hidden nodes (mode "generic").

    The configuration index is mixed-radix (params module docstring); ``offs[x]`` is the part
    of it contributed by configuration ``x`` of the hidden children (enumerated with the first
    hidden child as the least significant digit, as :func:`_outer` builds their product), and
    ``ind[x, off_b + t] = [hidden child b is in state t in x]``.  Every configuration of the
    hidden children is gathered per sub-pattern (the cost per sub-pattern is the product of the
    hidden children's numbers of states), or, with >= SPLIT_MIN_HIDDEN hidden children, summed
    in two groups as in mode "split" (mode "generic-split", same :class:`_Split` arrays with
    one-hot state indicators for the bits).
    """
    ch = tree.children(i)
    cards = np.array([tree.cardinality(c) for c in ch], dtype=np.int64)
    place = np.concatenate([[1], np.cumprod(cards[:-1])]).astype(np.int64)
    fpos = [j for j, c in enumerate(ch) if tree.kind[c] == FEATURE]
    hpos = [j for j, c in enumerate(ch) if tree.kind[c] != FEATURE]
    fcols = np.array([tree.feature[ch[j]] for j in fpos], dtype=np.int64)
    hcards = cards[hpos]
    X = int(np.prod(hcards)) if len(hpos) else 1
    digits = np.zeros((X, len(hpos)), dtype=np.int64)
    rest = np.arange(X, dtype=np.int64)
    for b, n in enumerate(hcards):
        digits[:, b] = rest % n
        rest //= n
    offs = (digits * place[hpos]).sum(axis=1) if hpos else np.zeros(1, np.int64)
    starts = np.concatenate([[0], np.cumsum(hcards)]).astype(np.int64)
    ind = np.zeros((X, int(starts[-1])))
    for b in range(len(hpos)):
        ind[np.arange(X), starts[b] + digits[:, b]] = 1.0
    nd = _HBNNode(i, len(ch), tuple(ch), fcols, np.array(fpos, dtype=np.int64),
                  tuple(ch[j] for j in hpos), offs, ind, mode="generic")
    nd.ind, nd.starts = ind, starts
    inv, rep = _sub_patterns(U, fcols, nodes, tuple(ch[j] for j in hpos))
    base = (U[rep][:, fcols].astype(np.int64) * place[fpos]).sum(axis=1) if fpos else np.zeros(rep.size, np.int64)
    nd.inv, nd.P_i = inv, rep.size
    nd.child_map = {c: nodes[c].inv[rep] for c in nd.hid_nodes}
    nd.child_seg = _child_segments(nd, nodes)
    nd.Fd = U[rep][:, fcols].astype(np.float64)
    nd.Seg = sp.csr_matrix((np.ones(P), (inv, np.arange(P))), shape=(nd.P_i, P))
    if len(hpos) >= SPLIT_MIN_HIDDEN:
        nd.mode = "generic-split"
        bases, base_ids = np.unique(base, return_inverse=True)
        nd.split = _make_split(nd, base_ids.ravel(), bases, cards=hcards)
        return nd
    nd.idx = base[:, None] + offs[None, :]
    n_rows = int(np.prod(cards))
    rows = np.arange(nd.P_i * X)
    S = sp.csr_matrix((np.ones(rows.size), (rows, nd.idx.ravel())), shape=(rows.size, n_rows))
    nd.ST = S.T.tocsr()
    return nd


class TreePlan:
    """Index arrays for running the kernels of one tree on one pattern matrix ``U``."""

    def __init__(self, tree: TreeStructure, U: np.ndarray):
        self.tree = tree
        self.direction = tree.direction
        self.U = np.asarray(U, dtype=bool)
        if self.U.ndim != 2 or self.U.shape[1] != tree.n_features:
            raise ValueError(
                f"pattern matrix has shape {self.U.shape}, expected (n, {tree.n_features}) for this tree"
            )
        self.P = self.U.shape[0]
        inner = [i for i in tree.topological_bottom_up() if tree.kind[i] != FEATURE]
        self.bottom_up = inner                   # non-feature nodes, leaves side first, root last
        self.top_down = inner[::-1]
        self.nodes: dict[int, object] = {}
        f_off = 0                                # HNB: the feature children before the node's, bottom_up order
        for i in inner:
            ch = tree.children(i)
            fpos = [j for j, c in enumerate(ch) if tree.kind[c] == FEATURE]
            hpos = [j for j, c in enumerate(ch) if tree.kind[c] != FEATURE]
            fcols = np.array([tree.feature[ch[j]] for j in fpos], dtype=np.int64)
            if self.direction == "hbn" and not tree.is_binary:
                self.nodes[i] = _generic_hbn_node(tree, i, self.U, self.nodes, self.P)
            elif self.direction == "hbn":
                h = len(hpos)
                xs = np.arange(2**h, dtype=np.int64)
                bits = ((xs[:, None] >> np.arange(h)) & 1).astype(np.int64)
                offs = (bits << np.array(hpos, dtype=np.int64)).sum(axis=1) if h else np.zeros(1, np.int64)
                nd = _HBNNode(i, len(ch), tuple(ch), fcols, np.array(fpos, dtype=np.int64),
                              tuple(ch[j] for j in hpos), offs, bits.astype(np.float64))
                inv, rep = _sub_patterns(self.U, fcols, self.nodes, nd.hid_nodes)
                base = (self.U[rep][:, fcols].astype(np.int64) << nd.feat_pos).sum(axis=1)
                # order the sub-patterns by the feature children's configuration, then by the
                # hidden children's sub-patterns (first child first): the left keys of a split
                # node then come in order, and its loops read their rows one after the other
                order = np.lexsort([self.nodes[c].inv[rep] for c in reversed(nd.hid_nodes)] + [base])
                rank = np.empty_like(order)
                rank[order] = np.arange(order.size)
                inv, rep, base = rank[inv], rep[order], base[order]
                nd.inv, nd.P_i = inv, rep.size
                nd.child_map = {c: self.nodes[c].inv[rep] for c in nd.hid_nodes}
                nd.rows_h = np.column_stack([nd.child_map[c] for c in nd.hid_nodes]) if h else None
                nd.child_seg = _child_segments(nd, self.nodes)
                nd.Fd = self.U[rep][:, fcols].astype(np.float64)
                nd.Seg = sp.csr_matrix((np.ones(self.P), (inv, np.arange(self.P))), shape=(nd.P_i, self.P))
                if h >= SPLIT_MIN_HIDDEN:
                    nd.mode = "split"
                    bases, base_ids = np.unique(base, return_inverse=True)
                    nd.split = _make_split(nd, base_ids.ravel(), bases)
                elif nd.f:
                    nd.mode = "gather"
                    nd.idx = base[:, None] + offs[None, :]
                    # the sub-patterns are sorted by base: runs of equal base share table rows
                    run_bases, nd.runs = np.unique(base, return_index=True)
                    nd.run_rows = run_bases[:, None] + offs[None, :]
                self.nodes[i] = nd
            else:
                nd = HNBNode(i, tuple(ch[j] for j in fpos), fcols, tuple(ch[j] for j in hpos))
                nd.inv, rep = _sub_patterns(self.U, fcols, self.nodes, nd.hid_nodes)
                nd.P_i = rep.size
                nd.child_map = {c: self.nodes[c].inv[rep] for c in nd.hid_nodes}
                nd.child_seg = _child_segments(nd, self.nodes)
                offsets = np.cumsum([0] + [self.nodes[c].P_i for c in nd.hid_nodes])
                nd.rows_h = (np.column_stack([nd.child_map[c] + offsets[b] for b, c in enumerate(nd.hid_nodes)])
                             if nd.hid_nodes else np.zeros((nd.P_i, 0), dtype=np.int64))
                if fcols.size:
                    nd.Uf = self.U[rep][:, fcols].astype(np.float64)
                    nd.Uf0 = 1.0 - nd.Uf
                ones = sp.csr_matrix(nd.Uf if fcols.size else (nd.P_i, 0))
                nd.ones_ptr, nd.ones_idx = ones.indptr.astype(np.int64), ones.indices.astype(np.int64)
                nd.ones_gidx = nd.ones_idx + f_off
                f_off += fcols.size
                self.nodes[i] = nd
        if self.direction == "hbn":
            sizes = [4 * self.P]
            for nd in self.nodes.values():
                n_i = tree.cardinality(nd.node)
                if nd.mode == "generic":
                    sizes.append((n_i + 2) * nd.P_i * nd.offs.size + n_i * self.P * nd.ind.shape[1])
                elif nd.mode == "generic-split":
                    t = nd.split
                    sizes.append((n_i + 2) * max(nd.P_i * max(t.XL, t.XR), t.repL.size * nd.offs.size,
                                                 t.repR.size * nd.offs.size)
                                 + n_i * self.P * nd.ind.shape[1])
                elif nd.mode == "split":
                    # the per-key tables Y, V and the sums of the messages per left key; per
                    # sub-pattern the gathered rows (numpy) or only the children's terms (compiled)
                    t = nd.split
                    per_sub = nd.P_i * (nd.h + 2 if USE_JIT else max(t.XL, t.XR))
                    sizes.append(4 * max(per_sub, t.repL.size * t.XR, t.repR.size * t.XL, 2**nd.h))
                else:
                    sizes.append(4 * nd.P_i * 2**nd.h)
            self.block = max(sizes)
        else:
            self.block = 8 * self.P * max(tree.states)

    def restart_chunk(self, R: int) -> int:
        """How many restarts to process at once to keep intermediates below MAX_BLOCK_ELEMENTS."""
        return int(max(1, min(R, MAX_BLOCK_ELEMENTS // max(1, self.block))))


# ============================================================================ helpers
def safe_ratio(num, den):
    """num / den with 0 where den == 0 (there num is 0 as well: a sum of the same non-negative terms)."""
    out = np.zeros(np.broadcast_shapes(num.shape, den.shape))
    np.divide(num, den, out=out, where=den > 0)
    return out


def log0(a):
    """``np.log(a)`` with log 0 = -inf and no warning."""
    with np.errstate(divide="ignore"):
        return np.log(a)


def _sum_last(a):
    """``a.sum(axis=-1)`` for the short last axes of the kernels, where numpy's reduction costs
    several times an add of slices or a matrix-vector product.  Below 8 terms the slices are
    added one after the other, numpy's own order for so few terms (the same bits)."""
    n = a.shape[-1]
    if n < 8:
        out = a[..., 0].copy()
        for j in range(1, n):
            out += a[..., j]
        return out
    return a @ np.ones(n) if n <= 32 else a.sum(axis=-1)


def _outer(dists):
    """Product distribution of independent binary variables: list of (R, P, 2) -> (R, P, 2**h),
    index bit b = state of the b-th variable."""
    W = None
    for d in dists:
        W = d if W is None else (d[..., :, None] * W[..., None, :]).reshape(*d.shape[:-1], -1)
    return W


def _product_of(q, children, rows):
    """(R, K, 2**h) product distribution of the binary hidden ``children``, child ``b`` taken at
    sub-pattern ``rows[k, b]`` of its ``q`` (index bit b = state of child b, as :func:`_outer`)."""
    if USE_JIT:
        qs = tuple(np.require(q[c], requirements="CW") for c in children)   # one array type for the tuple
        W = np.empty((qs[0].shape[0], rows.shape[0], 2**len(children)))
        compiled_kernels().outer_gather(qs, rows, W)
        return W
    return _outer([q[c][:, rows[:, b], :] for b, c in enumerate(children)])


def segment_sum(Seg, a):
    """(R, P, 2) pattern values -> (R, P_i, 2) sums over the patterns of each sub-pattern."""
    R, P, S = a.shape
    out = Seg @ np.ascontiguousarray(a.transpose(1, 0, 2)).reshape(P, R * S)
    return out.reshape(-1, R, S).transpose(1, 0, 2)


# ============================================================================ HBN
def hbn_upward(plan: TreePlan, cpts, overrides: dict | None = None):
    """Bottom-up pass of an HBN.

    Parameters
    ----------
    plan : TreePlan
    cpts : list of ndarray
        Batched tables, ``cpts[i]`` of shape ``(R, 2**k, 2)`` (inner nodes).
    overrides : dict, optional
        ``{node: array broadcastable to (R, P_i, 2)}`` replacing the distribution of a node
        (hidden or feature) by a fixed one -- e.g. its prior marginal, which removes the
        evidence under it (used by subtree contributions).

    Returns
    -------
    q : dict node -> (R, P_i, 2) P(node | features under node), on the node's sub-patterns
        (``plan.nodes[i].inv`` maps patterns to them)
    cache : dict node -> (W, A): ``W`` (R, P_i, 2**h) the product of the hidden children's
        distributions, ``A`` (R, 2, P_i, 2**h) = W * gathered table (mode "gather", numpy route;
        None on the compiled one, whose downward pass reads the table in place); in mode
        "split" the group products (W_L, W_R) and the left keys' partial sums Y
    """
    tree = plan.tree
    overrides = overrides or {}
    q: dict[int, np.ndarray] = {}
    cache: dict[int, tuple] = {}
    R = cpts[0].shape[0]
    for i in plan.bottom_up:
        nd: _HBNNode = plan.nodes[i]
        C = cpts[i]
        if any(c in overrides for c in nd.children if tree.kind[c] == FEATURE):
            qi, W = _hbn_node_soft(nd, tree, C, q, overrides, R)
            A = None
        elif nd.mode in ("split", "generic-split"):
            qi, W, A = _split_upward(nd, C, q, R)
        elif nd.mode == "generic":
            W = _outer([q[c][:, nd.child_map[c], :] for c in nd.hid_nodes])
            A = np.swapaxes(C, 1, 2)[:, :, nd.idx]                 # (R, n_i, P_i, X)
            if W is not None:
                A = A * W[:, None]
            qi = np.swapaxes(_sum_last(A), 1, 2)
        else:
            W = _product_of(q, nd.hid_nodes, nd.rows_h) if nd.h else None
            A = None
            if nd.mode == "dense":
                qi = W @ C
            elif USE_JIT:
                # mode "gather", compiled: the rows are read in place (the downward pass too)
                qi = np.empty((R, nd.P_i, 2))
                compiled_kernels().gather_up(_gather_weights(W, R, nd.P_i), np.ascontiguousarray(C), nd.idx, qi)
            else:
                A = _gathered(nd, C, W)
                qi = np.swapaxes(_sum_last(A), 1, 2)
        if i in overrides:
            qi = np.broadcast_to(overrides[i], qi.shape)
        q[i] = qi
        cache[i] = (W, A)
    return q, cache


def _gathered(nd, C, W):
    """Mode "gather": (R, 2, P_i, X) the table rows of every sub-pattern weighted by the product
    distribution ``W`` of the hidden children (None: no hidden child)."""
    A = np.swapaxes(C, 1, 2)[:, :, nd.idx]
    return A if W is None else A * W[:, None]


def _gather_weights(W, R, P_i):
    return np.ones((R, P_i, 1)) if W is None else np.ascontiguousarray(W)


def _split_upward(nd, C, q, R):
    """Upward step in mode "split": returns q (R, P_i, n), (W_L, W_R) and Y (R, #kL, n, XR)."""
    sp_ = nd.split
    hL = sp_.hL
    if nd.mode == "split":
        WL = _product_of(q, nd.hid_nodes[:hL], sp_.idxL)                # (R, nL, XL)
        WR = _product_of(q, nd.hid_nodes[hL:], sp_.idxR)                # (R, nR, XR)
    else:
        WL = _outer([q[c][:, nd.child_map[c][sp_.repL], :] for c in nd.hid_nodes[:hL]])
        WR = _outer([q[c][:, nd.child_map[c][sp_.repR], :] for c in nd.hid_nodes[hL:]])
    n = C.shape[-1]
    Y = np.empty((R, sp_.repL.size, n, sp_.XR))
    for rows, aL, zL, _, _ in sp_.blocks:
        if zL > aL:
            # Cb[r, xL, (s, xR)] = C[r, rows[xR, xL], s]
            Cb = C[:, rows, :].transpose(0, 2, 3, 1).reshape(R, sp_.XL, n * sp_.XR)
            Y[:, aL:zL] = (WL[:, aL:zL] @ Cb).reshape(R, zL - aL, n, sp_.XR)
    if USE_JIT:
        qi = np.empty((R, nd.P_i, n))
        compiled_kernels().upward(Y, WR, sp_.kL, sp_.kR, qi)
    else:
        qi = _sum_last(Y[:, sp_.kL] * WR[:, sp_.kR, None, :])
    return qi, (WL, WR), Y


def _split_downward(nd, C, W, Y, g, m, unit, R):
    """Mode "split" / "generic-split" of the downward pass: the expected counts N (R, rows of C,
    n) and the children's terms ``T[r, p, k] = sum_s m_p(s) sum_x W_p(x) C(x, s) bits[x, k]``
    for the columns ``k`` of ``bitsL`` then ``bitsR`` (binary: child b = 1; k-state: child b in
    state t), with ``p`` over the node's sub-patterns (``unit`` None) or the patterns ``unit``
    maps to them.  Both read the per-key tables ``Y`` (upward pass) and ``V`` (below) row by row
    (:mod:`hbnlab.bn.hbn_jit`, or numpy gathers without numba)."""
    sp_ = nd.split
    WL, WR = W
    XL, XR = sp_.XL, sp_.XR
    n = C.shape[-1]
    # counts: N[b, xR, xL, s] = C * sum_{p in b} W_L[kL(p)](xL) W_R[kR(p)](xR) g[p, s]
    if USE_JIT:
        Hs = np.zeros((R, sp_.repL.size, n, XR))
        compiled_kernels().scatter_left(WR, np.ascontiguousarray(g), sp_.kL, sp_.kR, Hs)
        Hs = Hs.reshape(R, -1, n * XR)                                 # (R, nL, n * XR)
    else:
        H = WR[:, sp_.kR, None, :] * g[..., None]                      # (R, P_i, n, XR)
        Hs = (sp_.SegL @ np.ascontiguousarray(H.transpose(1, 0, 2, 3)).reshape(nd.P_i, -1))
        Hs = Hs.reshape(-1, R, n * XR).transpose(1, 0, 2)
    N = np.zeros_like(C)
    V = np.empty((R, sp_.repR.size, n, XL))
    for rows, aL, zL, aR, zR in sp_.blocks:
        Cr = C[:, rows, :]                                             # (R, XR, XL, n)
        if zL > aL:
            M = np.swapaxes(WL[:, aL:zL], 1, 2) @ Hs[:, aL:zL]         # (R, XL, n * XR)
            N[:, rows, :] = Cr * M.reshape(R, XL, n, XR).transpose(0, 3, 1, 2)
        if zR > aR:
            # V[kR](s, xL) = sum_xR W_R[kR](xR) C_b(xR, xL, s)
            Cv = Cr.transpose(0, 1, 3, 2).reshape(R, XR, n * XL)
            V[:, aR:zR] = (WR[:, aR:zR] @ Cv).reshape(R, zR - aR, n, XL)
    kL, kR = (sp_.kL, sp_.kR) if unit is None else (sp_.kL[unit], sp_.kR[unit])
    if USE_JIT:
        T = np.empty((R, kL.size, sp_.bitsL.shape[1] + sp_.bitsR.shape[1]))
        compiled_kernels().child_terms(V, Y, WL, WR, np.ascontiguousarray(m), kL, kR,
                           np.ascontiguousarray(sp_.bitsL.T), np.ascontiguousarray(sp_.bitsR.T), T)
        return N, T
    VM = V[:, kR, 0] * m[..., :1]                                      # (R, rows, XL)
    YM = Y[:, kL, 0] * m[..., :1]                                      # (R, rows, XR)
    for s in range(1, n):
        VM += V[:, kR, s] * m[..., s:s + 1]
        YM += Y[:, kL, s] * m[..., s:s + 1]
    VM *= WL[:, kL]
    YM *= WR[:, kR]
    rows = kL.size
    TL = (VM.reshape(-1, XL) @ sp_.bitsL).reshape(R, rows, -1)
    TR = (YM.reshape(-1, XR) @ sp_.bitsR).reshape(R, rows, -1)
    return N, np.concatenate([TL, TR], axis=-1)


def _hbn_node_soft(nd, tree, C, q, overrides, R):
    """Upward step of a node some of whose feature children are replaced by distributions:
    every child is summed over (all 2**k configurations); used only for explanations."""
    dists = []
    for c in nd.children:
        if tree.kind[c] == FEATURE:
            if c in overrides:
                d = np.broadcast_to(overrides[c], (R, nd.P_i, 2))
            else:
                x = nd.Fd[:, list(nd.feat_cols).index(tree.feature[c])]
                d = np.broadcast_to(np.stack([1.0 - x, x], axis=-1)[None], (R, nd.P_i, 2))
        else:
            d = q[c][:, nd.child_map[c], :]
        dists.append(d)
    W = _outer(dists)
    return W @ C, W


def hbn_class_log_odds(plan: TreePlan, cpts, overrides: dict | None = None) -> np.ndarray:
    """(R, P) log P(C=1 | f) - log P(C=0 | f) per pattern."""
    q, _ = hbn_upward(plan, cpts, overrides)
    q0 = q[0][:, plan.nodes[0].inv]
    with np.errstate(invalid="ignore"):
        return log0(q0[..., 1]) - log0(q0[..., 0])


def feature_ones(plan: TreePlan, counts) -> np.ndarray:
    """(n_features,) the weighted count of x_j = 1 over the patterns."""
    return counts @ plan.U.astype(np.float64)


def hbn_feature_loglik(plan: TreePlan, cpts, counts, n1=None) -> np.ndarray:
    """(R,) sum over patterns of count * sum_j log P(F_j = x_j) (the constant K of Proposition 1);
    ``n1`` is :func:`feature_ones` of the same counts if already computed."""
    tree = plan.tree
    n1 = feature_ones(plan, counts) if n1 is None else n1
    n0 = counts.sum() - n1
    total = np.zeros(cpts[0].shape[0])
    for i in tree.feature_nodes():
        j = tree.feature[i]
        t = cpts[i]                                    # (R, 2)
        total += xlogy(n0[j], t[:, 0]) + xlogy(n1[j], t[:, 1])   # 0 * log 0 = 0
    return total


def _hbn_class_evidence(plan: TreePlan, cpts, y, counts, per_pattern: bool = False):
    """The upward pass and what the observed class adds to it: ``(q, cache, ll, msg)`` with
    ``ll`` (R,) the conditional log-likelihood sum_p count_p log P(c_p | f_p) and ``msg[0]``
    the class's ratio rho_0 = P(C | f, c) / P(C | f) that the downward pass starts from: per
    pattern (R, P, 2) if ``per_pattern``, else its count-weighted sums over the class node's
    sub-patterns (R, P_0, 2)."""
    q, cache = hbn_upward(plan, cpts)
    P = plan.P
    yi = y.astype(np.int64)
    onehot = np.zeros((P, 2))
    onehot[np.arange(P), yi] = 1.0
    z = q[0][:, plan.nodes[0].inv, :][:, np.arange(P), yi]          # (R, P) P(c_p | f_p)
    ll = (counts * log0(z)).sum(axis=1)
    rho0 = safe_ratio(onehot[None], z[..., None])
    if per_pattern:
        return q, cache, ll, {0: rho0}
    return q, cache, ll, {0: segment_sum(plan.nodes[0].Seg, rho0 * counts[None, :, None])}


def hbn_estep(plan: TreePlan, cpts, y, counts, return_posteriors: bool = False, per_pattern: bool | None = None,
              class_message=None):
    """Exact E-step of an HBN with the class and all features observed.

    The downward pass carries, for each node ``i``, ``g_i[u, s] = sum over the patterns p of
    sub-pattern u of count_p * rho_i(p, s)`` with ``rho_i = P(H_i | f, c) / q_i``: the expected
    counts of node ``i`` need nothing else.  ``rho`` of a hidden child is linear in ``rho_i``
    with coefficients that depend only on ``i``'s sub-pattern, and a child's sub-pattern is a
    function of its parent's, so ``g_child`` is computed from ``g_i`` by summing ``i``'s
    sub-patterns into the child's: below the class no array has one row per pattern.  With
    ``per_pattern`` (the default if ``return_posteriors``, which needs it) the pass carries
    ``rho_i`` per pattern instead: the same arithmetic on the patterns, an independent route to
    the same counts.

    ``class_message`` (R, P, 2), a binary tree only: the class's per-pattern message rho_0 given
    instead of the observed class's ``onehot(c_p) / P(c_p | f_p)`` (``y`` is then unused and
    ``ll_conditional`` is 0).  The counts are linear in it and in ``counts``, which may then be
    signed: ``sum_p s_p (E[N | C=1, f_p] - E[N | C=0, f_p])`` is the pass with rho_0 =
    ``(-1 / P(C=0 | f_p), 1 / P(C=1 | f_p))`` and counts ``s`` (the conditional likelihood's
    gradient, :mod:`hbnlab.bn.discriminative`); the children's posterior numerators are then not
    clipped to [0, total], which holds for a distribution only.

    Returns
    -------
    stats : dict node -> (R, 2**k, 2) expected family counts N[x, s] (inner nodes only)
    ll_conditional : (R,) sum_p count_p log P(c_p | f_p)
    posteriors : dict node -> (R, P, 2) P(node | f, c), inner nodes (only if ``return_posteriors``)
    """
    per_pattern = return_posteriors if per_pattern is None else bool(per_pattern)
    if return_posteriors and not per_pattern:
        raise ValueError("posteriors are per pattern: return_posteriors needs per_pattern")
    if class_message is not None:
        if not plan.tree.is_binary:
            raise ValueError("class_message needs a tree of binary nodes")
        per_pattern = True
    if not plan.tree.is_binary:
        return _hbn_estep_generic(plan, cpts, y, counts, return_posteriors, per_pattern)
    if class_message is None:
        q, cache, ll, msg = _hbn_class_evidence(plan, cpts, y, counts, per_pattern=per_pattern)
    else:
        q, cache = hbn_upward(plan, cpts)
        ll, msg = np.zeros(cpts[0].shape[0]), {0: np.asarray(class_message, dtype=np.float64)}
    R = cpts[0].shape[0]
    stats, posts = {}, {}
    for i in plan.top_down:
        nd: _HBNNode = plan.nodes[i]
        C = cpts[i]
        W, A = cache[i]
        g, m, unit = _carrier(nd, q[i], msg.pop(i), counts, posts if return_posteriors else None, per_pattern)
        X = nd.offs.size
        T1 = D1 = None
        if nd.mode == "dense":
            # N[x, s] = C[x, s] * sum_p W_p(x) g_p(s)
            stats[i] = C * (np.swapaxes(W, 1, 2) @ g)
            if nd.h:
                # D1[p, b, s] = sum_{x: x_b = 1} W_p(x) C(x, s)
                E = (nd.bits[None, :, :, None] * C[:, :, None, :]).reshape(R, X, -1)
                D1 = (W @ E).reshape(R, nd.P_i, nd.h, 2)
        elif nd.mode == "split":
            stats[i], T1 = _split_downward(nd, C, W, A, g, m, unit, R)
        elif USE_JIT and unit is None:
            stats[i] = np.zeros((R, 2**nd.k, 2))
            T1 = np.empty((R, nd.P_i, nd.h))
            compiled_kernels().gather_down(_gather_weights(W, R, nd.P_i), np.ascontiguousarray(C), nd.idx,
                               np.ascontiguousarray(g), nd.bits, stats[i], T1)
        else:
            A = _gathered(nd, C, W) if A is None else A
            # N[base + offs[x], s] = sum over the sub-patterns of a run of A[s, p, x] g_p(s)
            red = np.add.reduceat(A * np.swapaxes(g, 1, 2)[..., None], nd.runs, axis=2)   # (R, 2, runs, X)
            stats[i] = np.zeros((R, 2**nd.k, 2))
            stats[i][:, nd.run_rows] = red.transpose(0, 2, 3, 1)
            if nd.h == 1:
                D1 = A[..., 1:].transpose(0, 2, 3, 1)                # bits = [[0], [1]]
            elif nd.h:
                D1 = (A.reshape(-1, X) @ nd.bits).reshape(R, 2, nd.P_i, nd.h).transpose(0, 2, 3, 1)
        if nd.h:
            # P(child b = 1 | f, c) = sum_s rho(s) D1[b, s]; P(child b = 0 | f, c) is its complement
            # within P(i | f, c) summed over s (= 1 up to rounding): an absolute error ~1e-16 only.
            # On sub-patterns (unit None) the same sums are weighted by the counts.
            if T1 is None:
                Dp = D1 if unit is None else D1[:, unit]                         # (R, ., h, 2)
                T1 = Dp[..., 0] * m[..., :1] + Dp[..., 1] * m[..., 1:]          # (R, ., h)
            if USE_JIT and unit is None:
                m, qi, T1 = (np.ascontiguousarray(a) for a in (m, q[i], T1))
                for b, c in enumerate(nd.hid_nodes):
                    msg[c] = np.empty(q[c].shape)
                    compiled_kernels().child_message(m, qi, T1, b, nd.child_map[c], np.ascontiguousarray(q[c]), msg[c])
            else:
                qi = q[i] if unit is None else q[i][:, unit]
                tot = m[..., :1] * qi[..., :1] + m[..., 1:] * qi[..., 1:]        # (R, ., 1)
                p1 = T1 if class_message is not None else np.clip(T1, 0.0, tot)
                p0 = tot - p1
                for b, c in enumerate(nd.hid_nodes):
                    msg[c] = _child_message(plan, nd, c, q[c], np.stack([p0[..., b], p1[..., b]], axis=-1), unit)
    if return_posteriors:
        return stats, ll, posts
    return stats, ll


def _carrier(nd, qi, m, counts, posts, per_pattern):
    """The downward message of node ``i = nd.node``: ``(g, m, unit)`` with ``g`` (R, P_i, n) the
    count-weighted sum of rho_i over each sub-pattern (what the expected counts need), ``m``
    the message the children's are computed from and ``unit`` the pattern -> sub-pattern map if
    ``m`` is per pattern (``per_pattern``; the posterior of ``i`` is then stored in ``posts``
    unless that is None), else None (``m`` is ``g``)."""
    if not per_pattern:
        return m, m, None
    if posts is not None:
        posts[nd.node] = m * qi[:, nd.inv]
    return segment_sum(nd.Seg, m * counts[None, :, None]), m, nd.inv


def _child_message(plan, nd, c, qc, pc, unit):
    """The downward message of hidden child ``c`` from the numerators ``pc`` of its posterior:
    per pattern (``unit`` not None) ``rho_c = pc / q_c``; on the parent's sub-patterns, ``pc``
    summed into the child's sub-patterns, divided by ``q_c``."""
    if unit is not None:
        return safe_ratio(pc, qc[:, plan.nodes[c].inv])
    return safe_ratio(segment_sum(nd.child_seg[c], pc), qc)


def _hbn_estep_generic(plan: TreePlan, cpts, y, counts, return_posteriors: bool, per_pattern: bool):
    """:func:`hbn_estep` for a tree with k-state hidden nodes (every node in mode "generic").

    For node ``i`` with ``A[s, p, x] = W_p(x) C(base_p + offs[x], s)`` (the upward pass),
    expected counts are ``N[row, s] = sum_{p, x -> row} A[s, p, x] g_p(s)`` and the posterior of
    hidden child ``b`` in state ``t`` is ``sum_s rho(s) sum_{x: x_b = t} A[s, p, x]``; the
    downward messages are carried on sub-patterns as in :func:`hbn_estep`.
    """
    q, cache, ll, msg = _hbn_class_evidence(plan, cpts, y, counts, per_pattern=per_pattern)
    R = cpts[0].shape[0]
    stats, posts = {}, {}
    for i in plan.top_down:
        nd: _HBNNode = plan.nodes[i]
        W, A = cache[i]
        C = cpts[i]
        n_i = C.shape[-1]
        X = nd.offs.size
        g, m, unit = _carrier(nd, q[i], msg.pop(i), counts, posts if return_posteriors else None, per_pattern)
        if nd.mode == "generic-split":
            stats[i], post = _split_downward(nd, C, W, A, g, m, unit, R)   # post: (R, ., sum n_b)
        else:
            AG = A * np.swapaxes(g, 1, 2)[..., None]                        # (R, n_i, P_i, X)
            Bm = AG.transpose(2, 3, 0, 1).reshape(nd.P_i * X, R * n_i)
            stats[i] = (nd.ST @ Bm).reshape(-1, R, n_i).transpose(1, 0, 2)
            if nd.h:
                D = (A.reshape(-1, X) @ nd.ind).reshape(R, n_i, nd.P_i, -1)  # (R, n_i, P_i, sum n_b)
                post = np.einsum("rps,rspk->rpk", m, D if unit is None else D[:, :, unit])
        if nd.h:
            for b, c in enumerate(nd.hid_nodes):
                msg[c] = _child_message(plan, nd, c, q[c], post[..., nd.starts[b]:nd.starts[b + 1]], unit)
    if return_posteriors:
        return stats, ll, posts
    return stats, ll


__all__ = [
    "PatternData", "collapse_patterns", "binary_dense", "TreePlan", "feature_ones",
    "hbn_upward", "hbn_estep", "hbn_class_log_odds", "hbn_feature_loglik",
]
