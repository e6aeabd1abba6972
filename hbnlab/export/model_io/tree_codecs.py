"""Codecs of the tree-shaped learners: the greedy hierarchical naive Bayes, and the hierarchical
BN / NB classifiers (HBN, HNB) of the thesis.

A stored tree is untrusted input like everything else in a model file: :func:`read_tree_parameters`
checks its size and depth in linear time before :class:`~hbnlab.bn.structure.TreeStructure` and
:class:`~hbnlab.bn.params.TreeParameters` check their own invariants (one class root, acyclic,
every feature on exactly one leaf, tables of the right shapes whose rows sum to one), and turns
every problem into a :class:`~hbnlab.export.model_io.spec.ModelFileError` naming the field.
"""
from __future__ import annotations

import numpy as np

from hbnlab.export.model_io.codecs import LearnerCodec, base_from_state, base_to_state, class_loader, one_number
from hbnlab.export.model_io.state import StateReader, plain_json


# --------------------------------------------------------------------------- greedy HNB
def _greedy_to(est, w):
    s = base_to_state(est, w)
    m = est.model_
    s.update(
        model={"n_features": int(m.n_features), "parent": [int(p) for p in m.parent], "card": [int(c) for c in m.card],
               "kids": [[int(a), int(b)] for a, b in m.kids],
               "state_map": [w.array(f"model.state_map.{j}", sm, np.int64) for j, sm in enumerate(m.state_map)]},
        class_prior_=w.array("class_prior_", est.class_prior_),
        cpt_=[w.array(f"cpt_.{v}", c) for v, c in enumerate(est.cpt_)],
        lower_bound_=w.array("lower_bound_", np.asarray(est.lower_bound_, dtype=np.float64)),
        cv_accuracy_=w.array("cv_accuracy_", np.asarray(est.cv_accuracy_, dtype=np.float64)),
        n_iter_=int(est.n_iter_), converged_=bool(est.converged_),
        history_=plain_json(est.history_),
    )
    return s


def _greedy_from(est, st, r):
    from hbnlab.models.greedy_hnb import HNBModel

    nsel = base_from_state(est, st, r)
    ms = r.get(st, "model")
    mr = r.sub("model")
    F = mr.int(ms, "n_features", lo=1)
    if F != nsel:
        raise mr.error("n_features", f"is {F} but {nsel} features are selected")
    parent, card, kids = (mr.get(ms, k) for k in ("parent", "card", "kids"))
    for name, v in (("parent", parent), ("card", card), ("kids", kids)):
        if not isinstance(v, list):
            raise mr.error(name, "expected a list")
    n_lat = len(kids)
    n_vars = F + n_lat
    if len(parent) != n_vars or len(card) != n_vars:
        raise mr.error("parent", f"expected {n_vars} entries in 'parent' and 'card'")
    if not all(isinstance(c, int) and not isinstance(c, bool) and 2 <= c <= 4096 for c in card):
        raise mr.error("card", "cardinalities must be integers in [2, 4096]")
    if any(c != 2 for c in card[:F]):
        raise mr.error("card", "features are binary")
    for v, p in enumerate(parent):
        if not (isinstance(p, int) and not isinstance(p, bool) and (p == -1 or F <= p < n_vars) and p != v):
            raise mr.error("parent", f"variable {v}: parent {p!r} is not the class (-1) or a latent")
    for j, pair in enumerate(kids):
        L = F + j
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                                  for x in pair)):
            raise mr.error("kids", f"latent {j}: expected two variable indices")
        a, b = pair
        # a latent is created after its two children (HNBModel.with_latent): that order is acyclic
        if not (0 <= a < L and 0 <= b < L and a != b and parent[a] == L and parent[b] == L):
            raise mr.error("kids", f"latent {j}: children {pair} do not point back to it (or form a cycle)")
    if sum(1 for p in parent if p >= 0) != 2 * n_lat:
        raise mr.error("parent", "a variable points to a latent that does not list it as a child")
    sm_refs = mr.get(ms, "state_map")
    if not isinstance(sm_refs, list) or len(sm_refs) != n_lat:
        raise mr.error("state_map", f"expected {n_lat} tables")
    smr = mr.sub("state_map")
    state_map = []
    for j, (a, b) in enumerate(kids):
        state_map.append(smr.array({str(j): sm_refs[j]}, str(j), "int64", shape=(card[a], card[b]),
                                   lo=0, hi=card[F + j] - 1))
    model = HNBModel(F, list(parent), list(card), [tuple(k) for k in kids], state_map)
    est.model_ = model
    est.class_prior_ = r.distribution(st, "class_prior_", shape=(2,))
    cref = r.get(st, "cpt_")
    if not isinstance(cref, list) or len(cref) != n_vars:
        raise r.error("cpt_", f"expected {n_vars} tables")
    cr = r.sub("cpt_")
    cpt = []
    for v in range(n_vars):
        kp = 2 if parent[v] == -1 else card[parent[v]]
        cpt.append(cr.distribution({str(v): cref[v]}, str(v), shape=(kp, card[v])))
    est.cpt_ = cpt
    est.lower_bound_ = one_number(r, st, "lower_bound_")
    est.cv_accuracy_ = one_number(r, st, "cv_accuracy_")
    est.n_iter_ = r.int(st, "n_iter_", lo=0)
    est.converged_ = r.bool(st, "converged_")
    hist = r.get(st, "history_", [])
    if not isinstance(hist, list):
        raise r.error("history_", "expected a list")
    est.history_ = hist
    est._export_structure()


# --------------------------------------------------------------------------- HBN / HNB
def _tree_model_to(est, w):
    s = base_to_state(est, w)
    # thesis ch. 2 / sec. 3.3: the tree and its CPTs, inline JSON (the layout of TreeParameters)
    s["params_"] = est.params_.to_dict()
    em = getattr(est, "em_result_", None)
    if em is not None:
        s["em_result_"] = {
            "best_restart": int(em.best_restart),
            "log_likelihood": w.array("em.log_likelihood", np.float64(em.log_likelihood)),
            "traces": [w.array(f"em.traces.{i}", np.asarray(t, dtype=np.float64)) for i, t in enumerate(em.traces)],
            "n_iter": w.array("em.n_iter", np.asarray(em.n_iter, dtype=np.int64)),
            "converged": w.array("em.converged", np.asarray(em.converged, dtype=bool)),
            "seconds": w.array("em.seconds", np.asarray(em.seconds, dtype=np.float64)),
            "total_seconds": float(em.total_seconds),
            "full_log_likelihood": w.array("em.full_log_likelihood", np.asarray(em.full_log_likelihood, np.float64)),
            "conditional_log_likelihood": w.array("em.conditional_log_likelihood",
                                                  np.asarray(em.conditional_log_likelihood, np.float64)),
            "settings": plain_json(em.settings),
            "cancelled": bool(em.cancelled),
        }
    if getattr(est, "state_selection_", None) is not None:
        s["state_selection_"] = plain_json(est.state_selection_)
    cc = getattr(est, "class_children_", None)
    if cc is not None:
        # the selected terms after the tree's: children of the class, P(F = 1 | C = c) in row c
        s["class_children_"] = {"p_on": w.array("class_children_.p_on", np.asarray(cc.p_on, dtype=np.float64)),
                                "names": [str(n) for n in est.class_children_names_]}
    extra = {}
    for name in ("n_iter_", "converged_", "lower_bound_"):
        v = getattr(est, name, None)
        if v is not None:
            extra[name] = w.array(name, np.asarray(v))
    s["extra"] = extra
    return s


def _check_tree_shape(up: list, r: StateReader, field: str) -> None:
    """Cycles and depth of an ``up`` array in linear time (before TreeStructure's own checks,
    whose cost grows with depth): every node must reach node 0 within ``max_tree_depth`` steps."""
    n = len(up)
    if n == 0 or up[0] != -1:
        raise r.error(field, "node 0 must be the class variable with up[0] == -1")
    depth = [-1] * n
    depth[0] = 0
    limit = r.limits.max_tree_depth
    for i in range(1, n):  # loop over tree nodes; each node's depth is computed once
        path = []
        j = i
        while depth[j] < 0:
            path.append(j)
            u = up[j]
            if not (0 <= u < n) or u == j or len(path) > n:
                raise r.error(field, f"node {j}: up={u} is not a node, or node {i} is on a cycle")
            if depth[u] == -2:
                raise r.error(field, f"node {i} is on a cycle")
            depth[j] = -2  # on the current path
            j = u
        d = depth[j]
        for k in reversed(path):
            d += 1
            depth[k] = d
        if d > limit:
            raise r.error(field, f"is deeper than {limit} levels")


def read_tree_parameters(d, r: StateReader, field: str = "params_"):
    """A :class:`~hbnlab.bn.params.TreeParameters` from its JSON dict, with every structural or
    numeric problem reported as a :class:`ModelFileError` naming ``field``."""
    from hbnlab.bn.params import ParameterError, TreeParameters
    from hbnlab.bn.structure import StructureError, TreeStructure

    if not isinstance(d, dict) or not isinstance(d.get("tree"), dict) or not isinstance(d.get("cpts"), list):
        raise r.error(field, "expected an object with 'tree' and 'cpts'")
    t = d["tree"]
    for k in ("up", "kind", "feature", "names"):
        if not isinstance(t.get(k), list):
            raise r.error(f"{field}.tree.{k}", "expected a list")
    n = len(t["up"])
    if n > r.limits.max_tree_nodes:
        raise r.error(f"{field}.tree", f"has {n} nodes; the limit is {r.limits.max_tree_nodes}")
    if not all(isinstance(u, int) and not isinstance(u, bool) for u in t["up"] + t["feature"]):
        raise r.error(f"{field}.tree", "'up' and 'feature' must hold integers")
    _check_tree_shape(t["up"], r, f"{field}.tree")
    if not all(isinstance(s, str) for s in t["kind"] + t["names"]):
        raise r.error(f"{field}.tree", "'kind' and 'names' must hold strings")
    B = t.get("B")
    if B is not None and (isinstance(B, bool) or not isinstance(B, int)):
        raise r.error(f"{field}.tree.B", f"expected an integer or null, got {B!r}")
    states = t.get("states")
    if states is not None and (not isinstance(states, list)
                               or not all(isinstance(k, int) and not isinstance(k, bool) for k in states)):
        raise r.error(f"{field}.tree.states", "expected a list of integers or null")
    try:
        tree = TreeStructure.from_dict(t)
    except StructureError as e:
        raise r.error(f"{field}.tree", str(e)) from None
    try:
        return TreeParameters.from_dict(d, tree)
    except ParameterError as e:
        raise r.error(f"{field}.cpts", str(e)) from None


def _tree_model_from(est, st, r):
    from hbnlab.bn.em import EMResult

    m = base_from_state(est, st, r)
    params = read_tree_parameters(r.get(st, "params_"), r)
    tree = params.tree
    est.class_children_ = _read_class_children(r.get(st, "class_children_", None), r, m - tree.n_features)
    est.class_children_names_ = None if est.class_children_ is None else r.get(st, "class_children_")["names"]
    if tree.n_features + (0 if est.class_children_ is None else est.class_children_.n_children) != m:
        raise r.error("params_.tree", f"has {tree.n_features} feature leaves but {m} features are selected")
    want = "hbn" if type(est).__name__ == "HierarchicalBNClassifier" else "hnb"
    if tree.direction != want:
        raise r.error("params_.tree.direction", f"expected {want!r} for {type(est).__name__}, got {tree.direction!r}")
    est.params_ = params
    est.tree_ = tree
    em = r.get(st, "em_result_", None)
    if em is not None:
        er = r.sub("em_result_")
        traces_ref = er.get(em, "traces")
        if not isinstance(traces_ref, list):
            raise er.error("traces", "expected a list")
        tr = er.sub("traces")
        traces = [tr.array({str(i): ref}, str(i), "float64", ndim=1, allow_nan=True)
                  for i, ref in enumerate(traces_ref)]
        R = len(traces)
        fields = dict(
            params=params, best_restart=er.int(em, "best_restart", lo=0, hi=max(R - 1, 0)),
            log_likelihood=float(er.array(em, "log_likelihood", "float64", shape=(), allow_nan=True)),
            traces=traces,
            n_iter=er.array(em, "n_iter", "int64", shape=(R,), lo=0),
            converged=er.array(em, "converged", "bool", shape=(R,)),
            seconds=er.array(em, "seconds", "float64", shape=(R,), allow_nan=True),
            total_seconds=er.float(em, "total_seconds", finite=False),
            full_log_likelihood=er.array(em, "full_log_likelihood", "float64", shape=(R,), allow_nan=True),
            conditional_log_likelihood=er.array(em, "conditional_log_likelihood", "float64", shape=(R,),
                                                allow_nan=True),
            settings=er.get(em, "settings", {}) or {},
            cancelled=er.bool(em, "cancelled", False),
        )
        est.em_result_ = EMResult(**fields)
    est.state_selection_ = _read_state_selection(r.get(st, "state_selection_", None), r, tree)
    extra = r.get(st, "extra", {}) or {}
    xr = r.sub("extra")
    for name, ref in extra.items():
        if name not in ("n_iter_", "converged_", "lower_bound_"):
            raise xr.error(name, "unknown attribute")
        a = xr.array(extra, name, ref.get("dtype") if isinstance(ref, dict) else "", allow_nan=True)
        setattr(est, name, a.item() if a.ndim == 0 else a)


def _read_class_children(cc, r: StateReader, n_children: int):
    """``class_children_`` (the naive-Bayes children of the class) or None, every field checked:
    ``n_children`` columns of probabilities strictly inside (0, 1) and as many names."""
    from hbnlab.models.hbn import ClassChildren

    if cc is None:
        return None
    if not isinstance(cc, dict) or set(cc) != {"p_on", "names"}:
        raise r.error("class_children_", "expected an object with 'p_on' and 'names'")
    cr = r.sub("class_children_")
    if n_children < 1:
        raise cr.error("p_on", "the tree holds every selected feature; there is no class child")
    p_on = cr.array(cc, "p_on", "float64", shape=(2, n_children), finite=True, lo=0.0, hi=1.0)
    if np.any(p_on <= 0.0) or np.any(p_on >= 1.0):
        raise cr.error("p_on", "probabilities must lie strictly between 0 and 1 (smoothed frequencies)")
    names = cc["names"]
    if not isinstance(names, list) or len(names) != n_children or not all(isinstance(n, str) for n in names):
        raise cr.error("names", f"expected a list of {n_children} strings")
    return ClassChildren(p_on)


_STEP_KEYS = {"node", "states", "score", "accepted", "n_parameters", "log_likelihood"}


def _read_state_selection(sel, r: StateReader, tree):
    """``state_selection_`` (the steps of the search of :func:`hbnlab.bn.states.select_hidden_states`)
    or None, every field checked."""
    if sel is None:
        return None
    if not isinstance(sel, list) or len(sel) > 2 + 8 * tree.n_nodes:
        raise r.error("state_selection_", "expected a list of search steps (at most a few per node)")
    sr = r.sub("state_selection_")
    steps = []
    for k, step in enumerate(sel):
        if not isinstance(step, dict):
            raise sr.error(str(k), "expected an object")
        unknown = sorted(set(step) - _STEP_KEYS)
        if unknown:
            raise sr.error(str(k), f"unknown field(s) {unknown}")
        s = sr.sub(str(k))
        node = s.get(step, "node")
        if node is not None and (isinstance(node, bool) or not isinstance(node, int)
                                 or not 0 < node < tree.n_nodes):
            raise s.error("node", f"expected null or a node of the tree (1..{tree.n_nodes - 1}), got {node!r}")
        out = {"node": node, "states": s.int(step, "states", lo=2, hi=64),
               "score": s.float(step, "score", finite=False), "accepted": s.bool(step, "accepted")}
        if "n_parameters" in step:
            out["n_parameters"] = s.int(step, "n_parameters", lo=0)
        if "log_likelihood" in step:
            out["log_likelihood"] = s.float(step, "log_likelihood", finite=False)
        steps.append(out)
    return steps


#: hyper-parameters of HierarchicalBNClassifier / HierarchicalNBClassifier (callbacks excluded)
_TREE_PARAMS = ("B", "alpha", "clustering", "n_features", "selection", "n_restarts", "tol", "max_iter", "stopping",
                "criterion", "pseudo_count", "feature_names", "class_name", "random_state", "n_direct",
                "hidden_states", "acceleration", "screen_iter", "screen_keep", "init", "tree_terms",
                "children_N0", "tree_select", "children_select", "objective", "cll_penalty")


def _tree_resolved(est) -> dict:
    """What the HBN / HNB resolve when fit: ``B`` and ``alpha`` left None (Table 4.1's for the
    clustering), ``children_select`` left None (the clustering's rule) and ``cll_penalty="cv"`` (the
    penalty the inner cross-validation chose; None when the objective is the joint likelihood)."""
    B, alpha = est._structure_params()
    return {"B": B, "alpha": alpha, "children_select": est._children_rule(),
            "cll_penalty": getattr(est, "cll_penalty_", None)}


# --------------------------------------------------------------------------- the codecs
TREE_CODECS = (
    LearnerCodec("GreedyHNBClassifier", class_loader("hbnlab.models.greedy_hnb", "GreedyHNBClassifier"),
                 ("n_features", "selection", "max_latents", "cv", "n_candidates", "alpha", "max_iter", "tol",
                  "random_state"), _greedy_to, _greedy_from),
    LearnerCodec("HierarchicalBNClassifier", class_loader("hbnlab.models.hbn", "HierarchicalBNClassifier"),
                 _TREE_PARAMS, _tree_model_to, _tree_model_from, resolve=_tree_resolved),
    LearnerCodec("HierarchicalNBClassifier", class_loader("hbnlab.models.hbn", "HierarchicalNBClassifier"),
                 _TREE_PARAMS, _tree_model_to, _tree_model_from, resolve=_tree_resolved),
)
