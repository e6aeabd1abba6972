"""Step-by-step records of EM and of exact inference on a small tree, for teaching.

* :func:`trace_em` runs :func:`hbnlab.bn.em.fit_em` with an ``observer`` that copies the tables
  of every restart at every iteration: the trace is the fit itself, so its best restart's final
  tables are the fitted parameters.
* :func:`trace_inference` computes the class posterior of one document node by node, with a
  slow loop over the parent configurations of every node that spells out each product and sum,
  and checks every number against the vectorized kernels of :mod:`hbnlab.bn.inference`.

HBN (arcs toward the class; thesis ch. 2): the joint factorises as
``P(C | pa(C)) prod P(H_i | pa(H_i)) prod P(F_j)``; with every feature observed, the nodes
below a node are independent given the features, so one bottom-up pass gives
``q_i(s) = P(i = s | features under i) = sum_x prod_j q_{c_j}(x_j) P(i = s | x)`` and, at the
root, the class posterior.  In Pearl's terms the q_i are the pi messages a node sends to the
node above it; the lambda messages coming back down are all 1 because the class is not observed,
so the q_i already are the posteriors of the hidden nodes.

HNB (arcs away from the class; thesis sec. 3.3): lambda messages go up
(``m_{i->u}(u) = sum_s P(i = s | u) lambda_i(s)``, ``lambda_i = prod`` of the messages from
below, a feature's lambda the indicator of its observed value), the root multiplies them with
the prior, and the posteriors of the hidden nodes come down:
``P(i = s | e) ∝ sum_u P(u | e) / m_{i->u}(u) * P(i = s | u) * lambda_i(s)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hbnlab.bn.em import EMResult, fit_em
from hbnlab.bn.inference import class_posterior, node_marginals
from hbnlab.bn.params import TreeParameters
from hbnlab.bn.structure import CLASS, FEATURE, TreeStructure

INFERENCE_ATOL = 1e-12


# ============================================================================ EM
@dataclass(frozen=True)
class EMTrace:
    """Every restart's tables and log-likelihood at every EM iteration.

    Attributes
    ----------
    tree : TreeStructure
    result : EMResult
        What :func:`fit_em` returned for the run.
    tables : dict
        ``tables[(restart, iteration)]``: the list of tables (one per node, unbatched) the E-step
        of that iteration evaluated.
    """

    tree: TreeStructure
    result: EMResult
    tables: dict

    @property
    def n_restarts(self) -> int:
        return self.result.n_restarts

    @property
    def n_iterations(self) -> int:
        """Iterations of the longest restart (the E-step before the first M-step is iteration 0)."""
        return max(len(t) for t in self.result.traces)

    def log_likelihoods(self, restart: int) -> np.ndarray:
        """The stopping criterion's log-likelihood of ``restart`` at iterations 0, 1, ..."""
        return self.result.traces[restart]

    def last_iteration(self, restart: int) -> int:
        return len(self.result.traces[restart]) - 1

    def params(self, restart: int, iteration: int) -> TreeParameters:
        """The tables of ``restart`` at ``iteration`` (its last ones once it has stopped)."""
        it = min(int(iteration), self.last_iteration(restart))
        return TreeParameters(self.tree, [t / t.sum(axis=-1, keepdims=True) for t in self.tables[(restart, it)]])


def trace_em(tree: TreeStructure, X, y, **fit_options) -> EMTrace:
    """Run :func:`fit_em` and keep every restart's tables at every iteration.

    ``fit_options`` are passed on (``n_restarts``, ``tol``, ``max_iter``, ``stopping``,
    ``criterion``, ``random_state``, ...).  The returned ``result`` is the fit's own result: the
    same parameters as a call of :func:`fit_em` with the same options.
    """
    tables: dict = {}

    def observe(ev):
        for k, r in enumerate(ev["restarts"].tolist()):
            tables[(r, ev["iteration"])] = [np.array(t[k]) for t in ev["tables"]]

    result = fit_em(tree, X, y, observer=observe, **fit_options)
    return EMTrace(tree, result, tables)


# ============================================================================ inference
@dataclass(frozen=True)
class MessageStep:
    """One node's computation in :func:`trace_inference`.

    Attributes
    ----------
    node : int
    phase : str
        ``"up"`` or ``"down"``.
    title, text, cites : str
    columns : tuple of str
        Header of ``rows``.
    rows : ndarray
        One row per configuration summed over (see ``columns``).
    row_labels : tuple of str
        Names of the rows when they are not configurations (empty otherwise).
    message : ndarray (2,)
        The distribution or message the step produces (normalised for posteriors).
    library : float or None
        The same quantity, P(node = 1 | document), from :func:`node_marginals` /
        :func:`class_posterior` (None for a message that is not a probability).
    """

    node: int
    phase: str
    title: str
    text: str
    cites: str
    columns: tuple
    rows: np.ndarray
    message: np.ndarray
    library: float | None = None
    row_labels: tuple = ()


@dataclass(frozen=True)
class InferenceTrace:
    """:func:`trace_inference`'s steps, the traced class posterior and the library's."""

    steps: list
    posterior: np.ndarray
    library_posterior: np.ndarray
    node_posteriors: dict

    @property
    def max_abs_difference(self) -> float:
        diffs = [abs(self.posterior[1] - self.library_posterior[1])]
        diffs += [abs(s.message[1] - s.library) for s in self.steps if s.library is not None]
        return float(max(diffs))


def _bits(x: int, k: int) -> list[int]:
    return [(x >> j) & 1 for j in range(k)]


def trace_inference(params: TreeParameters, x) -> InferenceTrace:
    """The class posterior of one document, node by node, checked against the exact inference.

    Parameters
    ----------
    params : TreeParameters
    x : array-like of shape (n_features,)
        The document's binary feature vector (a positive entry = present).

    Returns
    -------
    InferenceTrace
        ``posterior`` equals ``class_posterior(params, [x])[0]`` to 1e-12 (``ValueError``
        otherwise: the traced and the vectorized computation disagree).  Binary trees only
        (``ValueError`` for hidden nodes of more than two states).
    """
    if not isinstance(params, TreeParameters):
        raise TypeError(f"params must be a TreeParameters, got {type(params).__name__}")
    tree = params.tree
    if not tree.is_binary:
        raise ValueError("trace_inference spells out trees of binary variables; this tree has hidden nodes "
                         f"with {sorted(set(tree.states) - {2})} states (trace_em traces any tree)")
    x = np.asarray(x).ravel()
    if x.size != tree.n_features:
        raise ValueError(f"x has {x.size} entries but the tree has {tree.n_features} features")
    obs = (x > 0).astype(np.int64)
    lib_marg = node_marginals(params, obs[None, :])[0]
    lib_post = class_posterior(params, obs[None, :])[0]
    if tree.direction == "hbn":
        steps, post, nodes = _hbn_steps(params, obs, lib_marg, lib_post)
    else:
        steps, post, nodes = _hnb_steps(params, obs, lib_marg, lib_post)
    out = InferenceTrace(steps, post, lib_post, nodes)
    if not out.max_abs_difference <= INFERENCE_ATOL:
        raise ValueError(f"the traced inference differs from the library's by {out.max_abs_difference:.3g}")
    return out


def _feature_text(tree, c, obs):
    return f"{tree.names[c]} = {obs[tree.feature[c]]}"


def _hbn_steps(params, obs, lib_marg, lib_post):
    tree = params.tree
    q: dict[int, np.ndarray] = {}
    steps = []
    for i in tree.topological_bottom_up():
        if tree.kind[i] == FEATURE:
            v = obs[tree.feature[i]]
            q[i] = np.array([1.0 - v, float(v)])
            continue
        parents = tree.children(i)
        k = len(parents)
        C = params.cpt(i)
        rows = []
        for cfg in range(2**k):
            states = _bits(cfg, k)
            w = float(np.prod([q[c][s] for c, s in zip(parents, states)]))
            rows.append(states + [w, C[cfg, 1], w * C[cfg, 1]])
        rows = np.array(rows, dtype=np.float64)
        p1 = float(rows[:, -1].sum())
        q[i] = np.array([1.0 - p1, p1])
        evidence = [_feature_text(tree, c, obs) for c in parents if tree.kind[c] == FEATURE]
        hidden = [tree.names[c] for c in parents if tree.kind[c] != FEATURE]
        known = ("observed: " + ", ".join(evidence)) if evidence else "no observed parent"
        soft = (f"; {', '.join(hidden)} enter with the q they sent up") if hidden else ""
        is_class = tree.kind[i] == CLASS
        steps.append(MessageStep(
            node=i, phase="up",
            title=(f"Class posterior P({tree.names[i]} = 1 | document) = {p1:.6f}" if is_class
                   else f"q({tree.names[i]}) = P({tree.names[i]} = 1 | features below) = {p1:.4f}"),
            text=(f"{tree.names[i]} has {k} parents ({known}{soft}). Sum over their {2**k} configurations x: "
                  f"weight(x) = product of the parents' probabilities of their states in x, times "
                  f"P({tree.names[i]} = 1 | x) from its table."
                  + (" The result is the class posterior: nothing is observed above it." if is_class else "")),
            cites="thesis ch. 2 (the HBN factorisation, fig. 2.1); exact inference as in sec. 3.2",
            columns=tuple(tree.names[c] for c in parents) + ("weight(x)", f"P({tree.names[i]}=1 | x)", "product"),
            rows=rows, message=q[i].copy(),
            library=float(lib_post[1]) if is_class else float(lib_marg[i]),
        ))
    hidden = tree.hidden_nodes()
    if hidden:
        steps.append(MessageStep(
            node=0, phase="down", title="Downward: the lambda messages are all 1",
            text=("The class is not observed, so the messages sent back down the tree carry no evidence "
                  "(lambda = 1 for both states): every hidden node's q already is its posterior given "
                  "the whole document. The table compares each with the library's exact inference."),
            cites="thesis ch. 2 (a hidden node is d-separated from the other features: unobserved colliders)",
            columns=("q(1) traced", "P(=1) library"),
            rows=np.array([[q[h][1], lib_marg[h]] for h in hidden], dtype=np.float64),
            message=q[0].copy(), library=None, row_labels=tuple(tree.names[h] for h in hidden),
        ))
    return steps, q[0].copy(), {i: q[i][1] for i in range(tree.n_nodes) if tree.kind[i] != FEATURE}


def _hnb_steps(params, obs, lib_marg, lib_post):
    tree = params.tree
    lam: dict[int, np.ndarray] = {}
    msg: dict[int, np.ndarray] = {}
    steps = []
    for i in tree.topological_bottom_up():
        if i == 0:
            continue
        T = params.cpt(i)  # T[u, s] = P(i = s | up = u)
        if tree.kind[i] == FEATURE:
            v = obs[tree.feature[i]]
            lam[i] = np.array([1.0 - v, float(v)])
        else:
            lam[i] = np.prod([msg[c] for c in tree.children(i)], axis=0)
        msg[i] = T @ lam[i]
        u = tree.names[tree.up[i]]
        if tree.kind[i] == FEATURE:
            how = f"{_feature_text(tree, i, obs)} is observed, so the message is P({tree.names[i]} = " \
                  f"{obs[tree.feature[i]]} | {u})."
        else:
            how = (f"lambda({tree.names[i]}) = product of the messages from below = "
                   f"({lam[i][0]:.4g}, {lam[i][1]:.4g}); the message sums P({tree.names[i]} | {u}) lambda.")
        rows = np.array([[uu, T[uu, 0], T[uu, 1], lam[i][0], lam[i][1], msg[i][uu]] for uu in (0, 1)])
        steps.append(MessageStep(
            node=i, phase="up", title=f"lambda message {tree.names[i]} → {u}",
            text=how, cites="thesis sec. 3.3 (HNB: arcs away from the class)",
            columns=(f"{u} state", f"P({tree.names[i]}=0 | {u})", f"P({tree.names[i]}=1 | {u})",
                     "lambda(0)", "lambda(1)", "message"),
            rows=rows, message=msg[i].copy(), library=None,
        ))
    prior = params.cpt(0)
    lam[0] = np.prod([msg[c] for c in tree.children(0)], axis=0)
    joint = prior * lam[0]
    post = {0: joint / joint.sum()}
    steps.append(MessageStep(
        node=0, phase="up", title=f"Class posterior P({tree.names[0]} = 1 | document) = {post[0][1]:.6f}",
        text="The root multiplies its prior with the messages of its children and normalises.",
        cites="thesis sec. 3.3",
        columns=("class state", "prior", "lambda", "prior x lambda", "posterior"),
        rows=np.array([[s, prior[s], lam[0][s], joint[s], post[0][s]] for s in (0, 1)]),
        message=post[0].copy(), library=float(lib_post[1]),
    ))
    for i in sorted(tree.hidden_nodes(), key=tree.depth):
        u = tree.up[i]
        T = params.cpt(i)
        # P(u | e) / m_{i->u}(u); a state of u the evidence rules out has posterior 0 and may have
        # message 0: its ratio is 0
        ratio = np.divide(post[u], msg[i], out=np.zeros(2), where=msg[i] > 0)
        fam = ratio[:, None] * T * lam[i][None, :]  # P(u, i | e)
        p = fam.sum(axis=0)
        post[i] = p / p.sum()
        steps.append(MessageStep(
            node=i, phase="down", title=f"P({tree.names[i]} = 1 | document) = {post[i][1]:.4f}",
            text=(f"Downward: the posterior of {tree.names[u]} divided by the message {tree.names[i]} sent it "
                  f"(its evidence is already in lambda({tree.names[i]})), times P({tree.names[i]} | "
                  f"{tree.names[u]}) and lambda({tree.names[i]}), summed over {tree.names[u]}."),
            cites="thesis sec. 3.3",
            columns=(f"{tree.names[u]} state", f"P({tree.names[u]} | e) / message",
                     f"P({tree.names[u]}, {tree.names[i]}=0 | e)", f"P({tree.names[u]}, {tree.names[i]}=1 | e)"),
            rows=np.array([[uu, ratio[uu], fam[uu, 0], fam[uu, 1]] for uu in (0, 1)]),
            message=post[i].copy(), library=float(lib_marg[i]),
        ))
    return steps, post[0].copy(), {i: post[i][1] for i in post}


__all__ = ["EMTrace", "InferenceTrace", "MessageStep", "trace_em", "trace_inference"]
