"""Slow, obviously-correct versions of the BN computations: brute-force enumeration of the joint
distribution of a tree of discrete variables (binary class and features, k-state hidden nodes),
one document at a time.  Used as oracles for the
vectorized kernels (hbnlab.bn.kernels / inference / em)."""
from __future__ import annotations

import itertools

import numpy as np

from hbnlab.bn.params import TreeParameters
from hbnlab.bn.structure import FEATURE, TreeStructure


def joint_probability(params: TreeParameters, state) -> float:
    """P(all nodes = state) as the product of the tables (thesis ch. 2, the factorised joint)."""
    tree = params.tree
    p = 1.0
    for i in range(tree.n_nodes):
        t = params.cpt(i)
        if tree.direction == "hbn":
            if tree.kind[i] == FEATURE:
                p *= t[state[i]]
            else:
                p *= t[_row(tree, i, state), state[i]]
        else:
            p *= t[state[i]] if i == 0 else t[state[tree.up[i]], state[i]]
    return p


def _row(tree, i, state):
    """Mixed-radix configuration index of node i's parents (HBN), first child least significant."""
    x, place = 0, 1
    for c in tree.children(i):
        x += int(state[c]) * place
        place *= tree.cardinality(c)
    return x


def _free_nodes(tree):
    return [i for i in range(tree.n_nodes) if tree.kind[i] != FEATURE]


def _states(tree, x, fixed=None):
    """All full states consistent with feature vector x (and fixed {node: value})."""
    free = [i for i in _free_nodes(tree) if not fixed or i not in fixed]
    for vals in itertools.product(*[range(tree.cardinality(i)) for i in free]):
        s = [0] * tree.n_nodes
        for i in tree.feature_nodes():
            s[i] = int(x[tree.feature[i]])
        for i, v in zip(free, vals):
            s[i] = v
        for i, v in (fixed or {}).items():
            s[i] = v
        yield s


def class_posterior(params, x):
    """(P(C=0 | x), P(C=1 | x)) by enumeration."""
    tot = np.zeros(2)
    for s in _states(params.tree, x):
        tot[s[0]] += joint_probability(params, s)
    return tot / tot.sum()


def joint_with_features(params, x, c=None):
    """P(x) or P(x, c) by enumeration."""
    fixed = None if c is None else {0: int(c)}
    return sum(joint_probability(params, s) for s in _states(params.tree, x, fixed))


def node_posteriors(params, x, c=None):
    """P(node = 1 | x [, c]) for every node by enumeration."""
    tree = params.tree
    fixed = None if c is None else {0: int(c)}
    num = np.zeros(tree.n_nodes)
    den = 0.0
    for s in _states(tree, x, fixed):
        p = joint_probability(params, s)
        den += p
        num += p * np.array(s)
    return num / den


def node_distributions(params, x, c=None):
    """P(node = t | x [, c]) for every node, a list of arrays of the node's number of states."""
    tree = params.tree
    fixed = None if c is None else {0: int(c)}
    num = [np.zeros(tree.cardinality(i)) for i in range(tree.n_nodes)]
    den = 0.0
    for s in _states(tree, x, fixed):
        p = joint_probability(params, s)
        den += p
        for i in range(tree.n_nodes):
            num[i][s[i]] += p
    return [v / den for v in num]


def prior_distributions(params):
    """P(node = t) with no evidence, by enumeration of every node."""
    tree = params.tree
    out = [np.zeros(tree.cardinality(i)) for i in range(tree.n_nodes)]
    for vals in itertools.product(*[range(tree.cardinality(i)) for i in range(tree.n_nodes)]):
        p = joint_probability(params, vals)
        for i in range(tree.n_nodes):
            out[i][vals[i]] += p
    return out


def prior_marginals(params):
    tree = params.tree
    out = np.zeros(tree.n_nodes)
    for vals in itertools.product((0, 1), repeat=tree.n_nodes):
        out += joint_probability(params, vals) * np.array(vals)
    return out


def expected_counts(params, X, y):
    """Expected family counts, one document at a time, brute force over the hidden states.

    Returns a list of arrays shaped like params.cpts; HBN feature entries hold the observed counts.
    """
    tree = params.tree
    out = [np.zeros_like(t) for t in params.cpts]
    for x, c in zip(np.asarray(X), np.asarray(y)):
        states = list(_states(tree, x, {0: int(c)}))
        ps = np.array([joint_probability(params, s) for s in states])
        ps = ps / ps.sum()
        for s, w in zip(states, ps):
            for i in range(tree.n_nodes):
                if tree.direction == "hbn":
                    if tree.kind[i] == FEATURE:
                        out[i][s[i]] += w
                    else:
                        out[i][_row(tree, i, s), s[i]] += w
                else:
                    if i == 0:
                        out[i][s[0]] += w
                    else:
                        out[i][s[tree.up[i]], s[i]] += w
    return out


def log_likelihood(params, X, y, conditional=False):
    tot = 0.0
    for x, c in zip(np.asarray(X), np.asarray(y)):
        pc = joint_with_features(params, x, c)
        tot += np.log(pc / joint_with_features(params, x)) if conditional else np.log(pc)
    return tot


def random_params(tree: TreeStructure, rng, concentration=1.0) -> TreeParameters:
    from hbnlab.bn.params import cpt_shape

    tables = []
    for i in range(tree.n_nodes):
        shape = cpt_shape(tree, i)
        rows = int(np.prod(shape[:-1]))
        t = rng.dirichlet([concentration] * shape[-1], size=rows).reshape(shape)
        tables.append(t)
    return TreeParameters(tree, tables)


def sample(params: TreeParameters, n, rng):
    """Forward-sample n documents (X, y, hidden states) from the network."""
    tree = params.tree
    S = np.zeros((n, tree.n_nodes), dtype=np.int64)
    if tree.is_binary:
        if tree.direction == "hbn":
            for i in tree.topological_bottom_up():
                t = params.cpt(i)
                if tree.kind[i] == FEATURE:
                    p1 = np.full(n, t[1])
                else:
                    x = sum(S[:, c] << j for j, c in enumerate(tree.children(i)))
                    p1 = t[x, 1]
                S[:, i] = rng.random(n) < p1
        else:
            for i in sorted(range(tree.n_nodes), key=tree.depth):
                t = params.cpt(i)
                p1 = np.full(n, t[1]) if i == 0 else t[S[:, tree.up[i]], 1]
                S[:, i] = rng.random(n) < p1
    else:
        order = tree.topological_bottom_up() if tree.direction == "hbn" else sorted(range(tree.n_nodes), key=tree.depth)
        for i in order:
            t = params.cpt(i)
            if t.ndim == 1:
                rows = np.broadcast_to(t, (n, t.size))
            elif tree.direction == "hbn":
                rows = t[[_row(tree, i, s) for s in S]]
            else:
                rows = t[S[:, tree.up[i]]]
            # inverse-CDF draw of each row's state
            S[:, i] = np.minimum((rng.random(n)[:, None] > np.cumsum(rows, axis=1)).sum(axis=1), t.shape[-1] - 1)
    X = np.zeros((n, tree.n_features), dtype=np.int8)
    for i in tree.feature_nodes():
        X[:, tree.feature[i]] = S[:, i]
    return X, S[:, 0].astype(np.int8), S


def class_posterior_partial(params, x, unobserved_columns):
    """P(C | the features of x except the given columns) by enumeration (the others summed out)."""
    tree = params.tree
    cols = set(int(c) for c in unobserved_columns)
    free_feat = [i for i in tree.feature_nodes() if tree.feature[i] in cols]
    tot = np.zeros(2)
    for vals in itertools.product((0, 1), repeat=len(free_feat)):
        xx = np.array(x).copy()
        for i, v in zip(free_feat, vals):
            xx[tree.feature[i]] = v
        for s in _states(tree, xx):
            tot[s[0]] += joint_probability(params, s)
    return tot / tot.sum()


def nested_from_draw(draw, st, max_nodes=12, max_features=7):
    """A random nested-list tree (hypothesis): features shuffled, then runs of 2-4 adjacent items
    wrapped into hidden nodes, keeping the total number of nodes <= max_nodes."""
    nf = draw(st.integers(1, max_features))
    groups = list(draw(st.permutations(list(range(nf)))))
    budget = max_nodes - 1 - nf
    n_merge = draw(st.integers(0, max(0, min(budget, nf - 1))))
    for _ in range(n_merge):
        if len(groups) < 2:
            break
        size = draw(st.integers(2, min(len(groups), 4)))
        start = draw(st.integers(0, len(groups) - size))
        groups[start:start + size] = [groups[start:start + size]]
    return groups


def sampled(direction, seed=0, n=3000, states=2, nested=None, concentration=0.4):
    """The EM tests' planted problem: a 9-feature tree of depth 3 (or ``nested``; ``states`` states
    per hidden node), random tables (Dirichlet(``concentration``) rows) and ``n`` documents sampled
    from them: ``(tree, true parameters, X, y)``."""
    nested = [[0, 1, 2], [3, 4], 5, [6, [7, 8]]] if nested is None else nested
    tree = TreeStructure.from_nested(nested, direction=direction)
    if states != 2:
        tree = tree.with_states(states)
    rng = np.random.default_rng(seed)
    true = random_params(tree, rng, concentration)
    X, y, _ = sample(true, n, rng)
    return tree, true, X, y
