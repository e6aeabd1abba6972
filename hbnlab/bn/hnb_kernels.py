"""Message-passing kernels of the hierarchical naive Bayes (HNB: arcs away from the class,
features observed leaves) on the plans of :mod:`hbnlab.bn.kernels`.

Upward lambda messages ``lambda_i(s) = P(features under i | i = s)`` in log space (feature
evidence enters as one matrix product per node in numpy, and as the log-probabilities at 0 plus
the differences of the features at 1 in the compiled loop) on each node's sub-patterns (the distinct rows of
the features under it); downward posteriors from the class (observed during EM, or its posterior
at prediction time); family posterior ``P(u, i | e) = P(u | e) / m_{i->u}(u) * P(i | u) *
lambda_i(i)``.  Shapes as in :mod:`hbnlab.bn.kernels` (``R`` restarts, ``P`` patterns).
"""
from __future__ import annotations

import numpy as np

from hbnlab.bn import kernels as K
from hbnlab.bn.kernels import HNBNode, TreePlan, log0, safe_ratio, segment_sum

# log of the smallest positive normal double: the floor for log-probabilities of HNB feature
# tables, so that a zero probability (exact-zero MLE) stays finite inside matrix products
# (0 * -inf would be NaN).  exp(LOG_FLOOR) ~ 2e-308, i.e. numerically zero.
LOG_FLOOR = float(np.log(np.finfo(np.float64).tiny))


def _stacked_feature_logs(plan: TreePlan, cpts):
    """``(nodes, L)``: the nodes with feature children in ``plan.bottom_up`` order and, when every
    feature table has one shape (every hidden node the same number of states), all their
    children's floored log tables stacked once, (R, F, n, 2) in that order; else ``L`` is None."""
    nodes = [i for i in plan.bottom_up if plan.nodes[i].feat_children]
    feats = [c for i in nodes for c in plan.nodes[i].feat_children]
    if not nodes or len({cpts[c].shape for c in feats}) != 1:
        return nodes, None
    return nodes, _floored_log(np.stack([cpts[c] for c in feats], axis=1))


def _node_logtables(plan: TreePlan, cpts, i):
    """(R, f, n, 2) floored log tables of node ``i``'s feature children."""
    return _floored_log(np.stack([cpts[c] for c in plan.nodes[i].feat_children], axis=1))


def _feature_logtables(plan: TreePlan, cpts):
    """node -> (R, f, n, 2) floored log tables of the node's feature children, for the nodes
    with feature children: views into :func:`_stacked_feature_logs`' array when there is one."""
    nodes, L = _stacked_feature_logs(plan, cpts)
    if L is None:
        return {i: _node_logtables(plan, cpts, i) for i in nodes}
    out, a = {}, 0
    for i in nodes:
        b = a + len(plan.nodes[i].feat_children)
        out[i] = L[:, a:b]
        a = b
    return out


def _floored_log(A):
    with np.errstate(divide="ignore"):
        return np.maximum(np.log(A), LOG_FLOOR)


def _hnb_feature_loglambda(nd: HNBNode, cpts, tree, L=None):
    """(R, P_i, 2) sum over the feature children j of log P(F_j = x_j | node = s) on the node's
    sub-patterns, floored.  ``L``: the children's floored log tables (R, f, 2[s], 2[x]), if
    already computed."""
    if not nd.feat_children:
        return None
    if L is None:
        L = _floored_log(np.stack([cpts[c] for c in nd.feat_children], axis=1))   # (R, f, 2[s], 2[x])
    R, f, n = L.shape[:3]
    L0 = L[..., 0].sum(axis=1)                                         # (R, n)
    D = (L[..., 1] - L[..., 0]).transpose(1, 0, 2).reshape(f, R * n)   # (f, R * n)
    LU = (nd.Uf @ D).reshape(-1, R, n).transpose(1, 0, 2)              # one matrix product
    # written in (R, P_i, n) order: the arrays of the passes derive from it
    return np.add(L0[:, None, :], LU, out=np.empty((R, LU.shape[1], n)))


def _times_cpt_t(a, C):
    """sum_s a[..., s] C[r, t, s] (== a @ C^T); 2x2 tables without tiny matrix products."""
    if C.shape[-2:] != (2, 2):
        return a @ np.swapaxes(C, 1, 2)
    return a[..., :1] * C[:, None, :, 0] + a[..., 1:] * C[:, None, :, 1]


def _times_cpt(a, C):
    """sum_t a[..., t] C[r, t, s] (== a @ C); 2x2 tables without tiny matrix products."""
    if C.shape[-2:] != (2, 2):
        return a @ C
    return a[..., :1] * C[:, None, 0, :] + a[..., 1:] * C[:, None, 1, :]


def hnb_upward_sub(plan: TreePlan, cpts, removed: frozenset = frozenset()):
    """Upward (lambda) pass of an HNB on sub-patterns: the arrays of node ``i`` have one row per
    distinct row of the features under ``i`` (``plan.nodes[i].inv`` maps patterns to them),
    since its lambda depends on nothing else.  See :func:`hnb_upward` for the arrays."""
    tree = plan.tree
    loglam, lam, msg, scale = {}, {}, {}, {}
    if K.USE_JIT and not removed:
        return _hnb_upward_compiled(plan, cpts)
    logtables = _feature_logtables(plan, cpts) if not removed else {}
    for i in plan.bottom_up:
        nd: HNBNode = plan.nodes[i]
        Lf = None
        if nd.feat_children:
            keep = [j for j, c in enumerate(nd.feat_children) if c not in removed]
            if len(keep) != len(nd.feat_children):
                sub = HNBNode(i, tuple(nd.feat_children[j] for j in keep), nd.feat_cols[keep], nd.hid_nodes,
                               nd.Uf[:, keep] if keep else None)
                Lf = _hnb_feature_loglambda(sub, cpts, tree)
            else:
                Lf = _hnb_feature_loglambda(nd, cpts, tree, logtables.get(i))
        total = Lf
        for c in nd.hid_nodes:
            if c in removed:
                continue
            lm = (log0(msg[c]) + scale[c])[:, nd.child_map[c]]    # undo the scaling of lam[c]
            total = lm if total is None else total + lm
        if total is None:
            R = cpts[0].shape[0]
            total = np.zeros((R, nd.P_i, tree.cardinality(i)))
        loglam[i] = total
        mx = np.maximum(total[..., :1], total[..., 1:]) if total.shape[-1] == 2 else total.max(axis=-1, keepdims=True)
        mx[~np.isfinite(mx)] = 0.0
        scale[i] = mx
        lam[i] = np.exp(total - mx)
        if i != 0:
            msg[i] = _times_cpt_t(lam[i], cpts[i])      # m(s_u) = sum_s P(i = s | s_u) lam(s)
    return loglam, lam, msg


def _feature_log_terms(plan: TreePlan, cpts) -> dict:
    """node -> ``(L0, slot, D, idx)`` for the compiled upward step: ``L0[:, slot]`` (R, n) sums the
    node's feature children's floored log-probabilities at 0, ``D[:, idx[k]]`` (R, n) is the
    log-probability at 1 minus that at 0 of the ``k``-th child at 1 (``nd.ones_ptr`` delimits a
    sub-pattern's).  When every feature table has one shape (every hidden node the same number of
    states) the tables are stacked, logged and differenced once for the whole tree and ``idx``
    counts the children of the nodes before in ``plan.bottom_up`` order."""
    nodes, L = _stacked_feature_logs(plan, cpts)
    if L is not None:
        D = np.ascontiguousarray(L[..., 1] - L[..., 0])
        starts = np.cumsum([0] + [len(plan.nodes[i].feat_children) for i in nodes[:-1]])
        L0 = np.ascontiguousarray(np.add.reduceat(L[..., 0], starts, axis=1))   # (R, nodes, n)
        return {i: (L0, k, D, plan.nodes[i].ones_gidx) for k, i in enumerate(nodes)}
    out = {}
    for i in nodes:
        Li = _node_logtables(plan, cpts, i)
        out[i] = (Li[..., 0].sum(axis=1)[:, None], 0, np.ascontiguousarray(Li[..., 1] - Li[..., 0]),
                  plan.nodes[i].ones_idx)
    return out


def _hnb_upward_compiled(plan: TreePlan, cpts):
    """:func:`hnb_upward_sub` by the compiled loop :func:`hbnlab.bn.hbn_jit.hnb_up`, one call per
    node: the feature children enter by :func:`_feature_log_terms`, visited only for the children
    at 1; the hidden children's log-messages are passed as one array (``rows_h`` indexes it)."""
    tree = plan.tree
    R = cpts[0].shape[0]
    terms = _feature_log_terms(plan, cpts)
    loglam, lam, msg, lmsg = {}, {}, {}, {}
    for i in plan.bottom_up:
        nd: HNBNode = plan.nodes[i]
        n = tree.cardinality(i)
        L0, slot, D, idx = terms.get(i) or (np.zeros((R, 1, n)), 0, np.zeros((R, 0, n)), nd.ones_idx)
        LM = (np.concatenate([lmsg.pop(c) for c in nd.hid_nodes], axis=1) if nd.hid_nodes
              else np.zeros((R, 0, n)))
        m = tree.cardinality(tree.up[i]) if i != 0 else 0
        C = np.ascontiguousarray(cpts[i]) if i != 0 else np.zeros((R, 0, n))
        loglam[i], lam[i] = np.empty((R, nd.P_i, n)), np.empty((R, nd.P_i, n))
        msg_i, lmsg_i = np.empty((R, nd.P_i, m)), np.empty((R, nd.P_i, m))
        K.compiled_kernels().hnb_up(L0, slot, D, nd.ones_ptr, idx, LM, nd.rows_h, C, loglam[i], lam[i], msg_i, lmsg_i)
        if i != 0:
            msg[i], lmsg[i] = msg_i, lmsg_i
    return loglam, lam, msg


def hnb_upward(plan: TreePlan, cpts, removed: frozenset = frozenset()):
    """Upward (lambda) pass of an HNB, per pattern.

    ``removed`` lists nodes whose subtree evidence is dropped (their message to the node
    above is 1): used for subtree contributions.

    Returns
    -------
    loglam : dict node -> (R, P, 2) exact log P(features under node | node = s)
    lam : dict node -> (R, P, 2) lambda scaled so that its max over s is 1
    msg : dict hidden node -> (R, P, 2) message to the node above, P(evidence under i | up = s)
          computed from the scaled ``lam`` (same scale)
    """
    out = hnb_upward_sub(plan, cpts, removed)
    return tuple({i: a[:, plan.nodes[i].inv] for i, a in d.items()} for d in out)


def _hnb_root_logjoint(cpts, loglam0):
    return log0(cpts[0])[:, None, :] + loglam0             # (R, P, 2) log P(C = s, f)


def hnb_root_logjoint(plan: TreePlan, cpts, removed: frozenset = frozenset()):
    """(R, P, 2) log P(C = s, f) per pattern (the evidence under the ``removed`` nodes dropped)."""
    loglam, _, _ = hnb_upward_sub(plan, cpts, removed)
    return _hnb_root_logjoint(cpts, loglam[0][:, plan.nodes[0].inv])


def hnb_downward(plan: TreePlan, cpts, lam, msg, post_root):
    """Posteriors of every inner node given the root posterior (per pattern, the arrays of
    :func:`hnb_upward`): a dict node -> (R, P, n)."""
    post = {0: post_root}
    for u in plan.top_down:
        pu = post[u]
        for c in plan.nodes[u].hid_nodes:
            ratio = safe_ratio(pu, msg[c])                            # P(u | e) / m_{c->u}(u)
            post[c] = lam[c] * _times_cpt(ratio, cpts[c])
    return post


def hnb_estep(plan: TreePlan, cpts, y, counts):
    """Exact E-step of an HNB with the class and the features observed.

    The downward pass carries ``Q_u[v, s] = sum over the patterns p of sub-pattern v of
    count_p P(u = s | e_p)``: the posterior of a hidden child is linear in its parent's with
    coefficients (its lambda and message) that depend only on the child's sub-pattern, a
    function of the parent's, and the expected counts need only these sums.

    Returns (stats, ll_full, ll_conditional); ``stats[0]`` is the (R, 2) class count.
    """
    loglam, lam, msg = hnb_upward_sub(plan, cpts)
    root = plan.nodes[0]
    lj = _hnb_root_logjoint(cpts, loglam[0][:, root.inv])              # (R, P, 2)
    R, P = lj.shape[:2]
    yi = y.astype(np.int64)
    lc = lj[:, np.arange(P), yi]
    ll_full = (counts * lc).sum(axis=1)
    lse = np.logaddexp(lj[..., 0], lj[..., 1])
    ll_cond = (counts * (lc - lse)).sum(axis=1)
    onehot = (yi[:, None] == np.arange(2)).astype(np.float64)                   # (P, 2)
    weighted = counts[:, None] * onehot
    Q0 = np.stack([np.bincount(root.inv, weights=weighted[:, k], minlength=root.P_i) for k in range(2)], axis=-1)
    Q = {0: np.broadcast_to(Q0, (R, root.P_i, 2))}
    if K.USE_JIT and root.hid_nodes:
        Q[0] = np.ascontiguousarray(Q[0])          # read by every hidden child's loop: one copy
    stats = {0: np.broadcast_to(counts @ onehot, (R, 2)).copy()}
    for u in plan.top_down:
        nd: HNBNode = plan.nodes[u]
        Qu = Q.pop(u)
        if nd.feat_children:
            n_u = Qu.shape[-1]
            pc = np.swapaxes(Qu, 1, 2).reshape(R * n_u, -1)                # (R * n_u, P_u)
            n01 = np.stack([(pc @ nd.Uf0).reshape(R, n_u, -1), (pc @ nd.Uf).reshape(R, n_u, -1)],
                           axis=-1)                                        # (R, n_u, f, 2[x])
            for j, c in enumerate(nd.feat_children):
                stats[c] = n01[:, :, j]                                    # (R, 2[s_u], 2[x])
        for c in nd.hid_nodes:
            Cc = cpts[c]
            if K.USE_JIT:
                stats[c] = np.empty(Cc.shape)
                Q[c] = np.empty(lam[c].shape)
                K.compiled_kernels().hnb_child_down(Qu, nd.child_map[c], np.ascontiguousarray(msg[c]),
                                        np.ascontiguousarray(lam[c]), np.ascontiguousarray(Cc), stats[c], Q[c])
                continue
            # sum_p count_p P(u | e_p) / m_{c->u}(u) over the child's sub-patterns
            ratio = safe_ratio(segment_sum(nd.child_seg[c], Qu), msg[c])   # (R, P_c, n_u)
            stats[c] = Cc * (np.swapaxes(ratio, 1, 2) @ lam[c])
            Q[c] = lam[c] * _times_cpt(ratio, Cc)
    return stats, ll_full, ll_cond


__all__ = ["hnb_upward", "hnb_upward_sub", "hnb_root_logjoint", "hnb_downward", "hnb_estep", "LOG_FLOOR"]
