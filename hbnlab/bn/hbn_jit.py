"""Compiled loops of the HBN E-step (:mod:`hbnlab.bn.kernels`).

Wide nodes (mode "split"): a node with ``h`` hidden children sums the ``2**h`` configurations of
its children in two groups (see :class:`hbnlab.bn.kernels._Split`): per left key ``kL`` a table
``Y[kL](s, xR) = sum_xL W_L[kL](xL) C(xR, xL, s)`` and per right key ``kR`` a table
``V[kR](s, xL) = sum_xR W_R[kR](xR) C(xR, xL, s)``, both computed by matrix products.  What is
left is one pass over the node's sub-patterns (or patterns) per step, each reading the rows of
its two keys: numpy has to gather those rows into arrays of (restarts, sub-patterns, states,
configurations) first, which is most of the cost of a wide node.  The loops below read the rows
in place and write only the result.

Products: a node's table is weighted by the product distribution of its hidden children, per
sub-pattern (or per key of a group); numpy gathers each child's rows and builds the product one
child at a time, an array per step, the loop below writes it once.

Downward messages: the message of a hidden child is summed from its parent's sub-patterns into
its own and divided by its upward distribution; numpy needs a stacked copy, a transposed copy,
a sparse product and a masked division for it, the loop below one pass.

Narrow nodes with feature children (mode "gather": fewer than three hidden children): the table
row of a sub-pattern is its base row (the features' configuration) plus the hidden children's
offset; numpy gathers the ``2**h`` rows of every sub-pattern into an array of (restarts, states,
sub-patterns, configurations) weighted by the children's product distribution, which the
downward pass reuses.  The loops below read the rows in place in both passes.

The hierarchical naive Bayes (:mod:`hbnlab.bn.hnb_kernels`): upward, a node's log-lambda (its
feature children's log-probabilities and its hidden children's log-messages, read in place), its
scaled lambda and its message in one pass per node; downward, a hidden child's share of its
parent's downward sums is summed into the child's sub-patterns, divided by the child's message
and multiplied into its table and its lambda; numpy needs a transposed copy, a sparse product, a
masked division and two products for it, the loop below one pass per child.

Compiled by numba (``cache=True``: once per machine; loading the compiled code takes about a
second per process); :mod:`hbnlab.bn.kernels` keeps the numpy route as the reference and for
machines without numba (``kernels.USE_JIT``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

#: LLVM may reorder the additions of a sum (and fuse a multiply with an add): the short sums over
#: configurations then run in vector registers, 2x faster; the results move by a few units in the
#: last place.  No other fast-math assumption (no NaN / infinity / signed-zero liberties).
_FAST = {"reassoc", "contract"}


@njit(cache=True, nogil=True, fastmath=_FAST)
def upward(Y, WR, kL, kR, q):  # pragma: no cover - compiled
    """``q[r, p, s] = sum_xR Y[r, kL[p], s, xR] * WR[r, kR[p], xR]``."""
    R, rows, n = q.shape
    XR = WR.shape[2]
    for r in range(R):
        for p in range(rows):
            a, b = kL[p], kR[p]
            for s in range(n):
                acc = 0.0
                for x in range(XR):
                    acc += Y[r, a, s, x] * WR[r, b, x]
                q[r, p, s] = acc


@njit(cache=True, nogil=True, fastmath=_FAST)
def scatter_left(WR, g, kL, kR, Hs):  # pragma: no cover - compiled
    """``Hs[r, kL[p], s, xR] += WR[r, kR[p], xR] * g[r, p, s]`` over the sub-patterns ``p``
    (``Hs`` zero on entry): the right group's distribution weighted by the message, summed per
    left key."""
    R, rows, n = g.shape
    XR = WR.shape[2]
    for r in range(R):
        for p in range(rows):
            a, b = kL[p], kR[p]
            for s in range(n):
                gs = g[r, p, s]
                if gs != 0.0:
                    for x in range(XR):
                        Hs[r, a, s, x] += WR[r, b, x] * gs


@njit(cache=True, nogil=True, fastmath=_FAST)
def child_terms(V, Y, WL, WR, m, kL, kR, bitsLT, bitsRT, T):  # pragma: no cover - compiled
    """``T[r, p, k] = sum_s m[r, p, s] sum_x W_p(x) C(x, s) bits[x, k]`` with the columns of
    ``bitsL`` first, then those of ``bitsR`` (both passed transposed, ``bitsLT = bitsL.T``):

    * left columns: ``sum_xL bitsL[xL, k] W_L[kL](xL) sum_s m(s) V[kR](s, xL)``;
    * right columns: ``sum_xR bitsR[xR, k] W_R[kR](xR) sum_s m(s) Y[kL](s, xR)``.
    """
    R, rows, n = m.shape
    KL, XL = bitsLT.shape
    KR, XR = bitsRT.shape
    vm = np.empty(XL)
    ym = np.empty(XR)
    for r in range(R):
        for p in range(rows):
            a, b = kL[p], kR[p]
            ms = m[r, p, 0]
            for x in range(XL):
                vm[x] = V[r, b, 0, x] * ms
            for x in range(XR):
                ym[x] = Y[r, a, 0, x] * ms
            for s in range(1, n):
                ms = m[r, p, s]
                for x in range(XL):
                    vm[x] += V[r, b, s, x] * ms
                for x in range(XR):
                    ym[x] += Y[r, a, s, x] * ms
            for x in range(XL):
                vm[x] *= WL[r, a, x]
            for x in range(XR):
                ym[x] *= WR[r, b, x]
            for k in range(KL):
                acc = 0.0
                for x in range(XL):
                    acc += vm[x] * bitsLT[k, x]
                T[r, p, k] = acc
            for k in range(KR):
                acc = 0.0
                for x in range(XR):
                    acc += ym[x] * bitsRT[k, x]
                T[r, p, KL + k] = acc


@njit(cache=True, nogil=True, fastmath=_FAST)
def child_message(m, qi, T, b, cmap, qc, out):  # pragma: no cover - compiled
    """The downward message of hidden child ``b`` of a binary node, on the child's sub-patterns:
    with ``tot = sum_s m(s) q_i(s)`` and ``p1 = T[..., b]`` clipped to ``[0, tot]``,
    ``out[r, cmap[p]] += [tot - p1, p1]`` over the node's sub-patterns ``p``, then divided by
    ``qc`` (0 where ``qc`` is 0: there the sum is 0 as well)."""
    R, rows, n = m.shape
    out[:] = 0.0
    for r in range(R):
        for p in range(rows):
            tot = m[r, p, 0] * qi[r, p, 0] + m[r, p, 1] * qi[r, p, 1]
            t1 = min(max(T[r, p, b], 0.0), tot)
            c = cmap[p]
            out[r, c, 0] += tot - t1
            out[r, c, 1] += t1
    Rc, P_c, _ = out.shape
    for r in range(Rc):
        for c in range(P_c):
            for s in range(2):
                out[r, c, s] = out[r, c, s] / qc[r, c, s] if qc[r, c, s] > 0.0 else 0.0


@njit(cache=True, nogil=True, fastmath=_FAST)
def outer_gather(qs, rows, W):  # pragma: no cover - compiled
    """``W[r, k, x] = prod_b qs[b][r, rows[k, b], bit_b(x)]``: the product distribution of
    binary children (a tuple of their upward distributions), child ``b`` at sub-pattern
    ``rows[k, b]``; built by doubling, the same products in the same order as the numpy
    route."""
    R, K, X = W.shape
    h = rows.shape[1]
    for r in range(R):
        for k in range(K):
            W[r, k, 0] = 1.0
            size = 1
            for b in range(h):
                q = qs[b]
                v0 = q[r, rows[k, b], 0]
                v1 = q[r, rows[k, b], 1]
                for x in range(size):
                    w = W[r, k, x]
                    W[r, k, x + size] = w * v1
                    W[r, k, x] = w * v0
                size *= 2


@njit(cache=True, nogil=True, fastmath=_FAST)
def gather_up(W, C, idx, q):  # pragma: no cover - compiled
    """``q[r, p, s] = sum_x W[r, p, x] C[r, idx[p, x], s]``."""
    R, rows, n = q.shape
    X = idx.shape[1]
    for r in range(R):
        for p in range(rows):
            for s in range(n):
                acc = 0.0
                for x in range(X):
                    acc += W[r, p, x] * C[r, idx[p, x], s]
                q[r, p, s] = acc


@njit(cache=True, nogil=True, fastmath=_FAST)
def gather_down(W, C, idx, g, bits, N, T):  # pragma: no cover - compiled
    """With ``a = W[r, p, x] C[r, idx[p, x], s] g[r, p, s]`` (``g`` the message summed on the
    sub-patterns): the expected counts ``N[r, idx[p, x], s] += a`` (``N`` zero on entry) and the
    hidden children's terms ``T[r, p, b] = sum over x with bits[x, b] and s of a``."""
    R, rows, n = g.shape
    X, h = bits.shape
    for r in range(R):
        for p in range(rows):
            for b in range(h):
                T[r, p, b] = 0.0
            for x in range(X):
                row = idx[p, x]
                w = W[r, p, x]
                tx = 0.0
                for s in range(n):
                    a = w * C[r, row, s] * g[r, p, s]
                    N[r, row, s] += a
                    tx += a
                for b in range(h):
                    if bits[x, b] != 0.0:
                        T[r, p, b] += tx


@njit(cache=True, nogil=True, fastmath=_FAST)
def hnb_child_down(Qu, cmap, msg, lam, C, N, Qc):  # pragma: no cover - compiled
    """HNB downward step from node ``u`` to its hidden child ``c``: with ``S[r, v, a]`` the sum of
    ``Qu[r, p, a]`` over the parent's sub-patterns ``p`` with ``cmap[p] == v`` divided by
    ``msg[r, v, a]`` (0 where that is 0), the expected counts ``N[r, a, b] = C[r, a, b] sum_v
    S[r, v, a] lam[r, v, b]`` and the child's sums ``Qc[r, v, b] = lam[r, v, b] sum_a S[r, v, a]
    C[r, a, b]``."""
    R, P_u, n_u = Qu.shape
    P_c, n_c = lam.shape[1], lam.shape[2]
    S = np.empty((P_c, n_u))
    for r in range(R):
        S[:] = 0.0
        for p in range(P_u):
            v = cmap[p]
            for a in range(n_u):
                S[v, a] += Qu[r, p, a]
        for a in range(n_u):
            for b in range(n_c):
                N[r, a, b] = 0.0
        for v in range(P_c):
            for a in range(n_u):
                d = msg[r, v, a]
                S[v, a] = S[v, a] / d if d > 0.0 else 0.0
            for b in range(n_c):
                lv = lam[r, v, b]
                acc = 0.0
                for a in range(n_u):
                    acc += S[v, a] * C[r, a, b]
                    N[r, a, b] += S[v, a] * lv
                Qc[r, v, b] = lv * acc
        for a in range(n_u):
            for b in range(n_c):
                N[r, a, b] *= C[r, a, b]


@njit(cache=True, nogil=True, fastmath=_FAST)
def hnb_up(L0, slot, D, ptr, idx, LM, rows, C, total, lam, msg, lmsg):  # pragma: no cover - compiled
    """HNB upward step of one node on its sub-patterns ``p``: ``total[r, p, s]`` = the feature
    children's log-probabilities, ``L0[r, slot, s]`` (every child at 0) plus ``D[r, j, s]`` for each
    child ``j = idx[ptr[p]:ptr[p + 1]]`` at 1 in the sub-pattern, plus the hidden children's
    log-messages ``LM[r, rows[p, b], s]``; ``lam = exp(total - mx)`` with ``mx`` the largest
    ``total`` over the states (0 if not finite); the scaled message to the parent ``msg[r, p, t]
    = sum_s C[r, t, s] lam[r, p, s]`` and its log ``lmsg = log(msg) + mx`` (none for the root:
    ``msg`` with no states).  Documents set few of a node's features, so the loop visits only
    the children at 1; a binary node takes one exponential per sub-pattern."""
    if total.shape[2] == 2:
        _hnb_up_binary(L0, slot, D, ptr, idx, LM, rows, C, total, lam, msg, lmsg)
        return
    R, P, n = total.shape
    h = rows.shape[1]
    for r in range(R):
        for p in range(P):
            mx = -np.inf
            for s in range(n):
                acc = L0[r, slot, s]
                for k in range(ptr[p], ptr[p + 1]):
                    acc += D[r, idx[k], s]
                for b in range(h):
                    acc += LM[r, rows[p, b], s]
                total[r, p, s] = acc
                mx = max(mx, acc)
            if not np.isfinite(mx):
                mx = 0.0
            for s in range(n):
                lam[r, p, s] = np.exp(total[r, p, s] - mx)
            _hnb_message(C, lam, msg, lmsg, r, p, mx)


@njit(cache=True, nogil=True, fastmath=_FAST)
def _hnb_message(C, lam, msg, lmsg, r, p, mx):  # pragma: no cover - compiled
    """The message of :func:`hnb_up` to the parent, and its log, for sub-pattern ``p`` of restart ``r``."""
    n = lam.shape[2]
    for t in range(msg.shape[2]):
        acc = 0.0
        for s in range(n):
            acc += C[r, t, s] * lam[r, p, s]
        msg[r, p, t] = acc
        lmsg[r, p, t] = np.log(acc) + mx


@njit(cache=True, nogil=True, fastmath=_FAST)
def _hnb_up_binary(L0, slot, D, ptr, idx, LM, rows, C, total, lam, msg, lmsg):  # pragma: no cover - compiled
    """:func:`hnb_up` for a node of two states: one of ``lam[r, p]`` is exactly 1, the other
    ``exp(-|total_1 - total_0|)``."""
    R, P = total.shape[0], total.shape[1]
    h = rows.shape[1]
    for r in range(R):
        for p in range(P):
            a0 = L0[r, slot, 0]
            a1 = L0[r, slot, 1]
            for k in range(ptr[p], ptr[p + 1]):
                j = idx[k]
                a0 += D[r, j, 0]
                a1 += D[r, j, 1]
            for b in range(h):
                q = rows[p, b]
                a0 += LM[r, q, 0]
                a1 += LM[r, q, 1]
            total[r, p, 0] = a0
            total[r, p, 1] = a1
            if a1 > a0:
                mx = a1
                l0, l1 = np.exp(a0 - a1), 1.0
            elif a0 > a1:
                mx = a0
                l0, l1 = 1.0, np.exp(a1 - a0)
            else:                                   # equal, both -inf or NaN: the general rule
                mx = max(a0, a1)
                if not np.isfinite(mx):
                    mx = 0.0
                l0, l1 = np.exp(a0 - mx), np.exp(a1 - mx)
            lam[r, p, 0] = l0
            lam[r, p, 1] = l1
            for t in range(msg.shape[2]):
                v = C[r, t, 0] * l0 + C[r, t, 1] * l1
                msg[r, p, t] = v
                lmsg[r, p, t] = np.log(v) + mx


def warm_up() -> None:
    """Compile (or load from the cache) every loop on a tiny case."""
    Y = np.ones((1, 1, 2, 2))
    W = np.ones((1, 1, 2))
    k = np.zeros(1, dtype=np.int64)
    q = np.empty((1, 1, 2))
    upward(Y, W, k, k, q)
    scatter_left(W, q, k, k, np.zeros((1, 1, 2, 2)))
    bits = np.ones((1, 2))
    child_terms(Y, Y, W, W, q, k, k, bits, bits, np.zeros((1, 1, 2)))
    child_message(q, q, q, 0, k, q, np.empty((1, 1, 2)))
    idx = np.zeros((1, 2), dtype=np.int64)
    gather_up(W, q, idx, np.empty((1, 1, 2)))
    gather_down(W, q, idx, q, np.ones((2, 1)), np.zeros((1, 1, 2)), np.empty((1, 1, 1)))
    C = np.full((1, 2, 2), 0.5)
    hnb_child_down(q, k, q, q, C, np.empty((1, 2, 2)), np.empty((1, 1, 2)))
    ptr, one = np.array([0, 1]), np.zeros(1, dtype=np.int64)
    for n in (2, 3):
        qn = np.zeros((1, 1, n))
        hnb_up(np.zeros((1, 1, n)), 0, np.zeros((1, 1, n)), ptr, one, qn, np.zeros((1, 1), dtype=np.int64),
               np.full((1, 2, n), 1.0 / n), np.empty((1, 1, n)), np.empty((1, 1, n)), np.empty((1, 1, 2)),
               np.empty((1, 1, 2)))
