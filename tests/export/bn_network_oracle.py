"""The test oracle of the exported networks: the class posterior of a
:class:`hbnlab.export.bn_formats.DiscreteNetwork` by enumerating every unobserved variable, independent of
the estimators' own inference."""
from __future__ import annotations

import numpy as np

from hbnlab.export.bn_formats import DiscreteNetwork


def brute_force_class_posterior(net: DiscreteNetwork, evidence: dict) -> float:
    """P(class = 1 | evidence) by enumerating every unobserved variable (exponential in the number of
    hidden / auxiliary variables: small networks only)."""
    hidden = [v for v in net.variables if v.name not in evidence and v.name != net.class_variable]
    if sum(np.log2(len(v.states)) for v in hidden) > 22:
        raise ValueError("too many unobserved variables to enumerate")
    index = {v.name: k for k, v in enumerate(net.variables)}
    cards = [len(v.states) for v in hidden]
    n_cfg = int(np.prod(cards)) if cards else 1
    # every unobserved configuration at once: columns of a (n_cfg, n_hidden) state matrix
    grids = np.indices(cards).reshape(len(cards), -1).T if cards else np.zeros((1, 0), dtype=np.int64)
    total = np.zeros(2)
    for c in (0, 1):
        states = np.zeros((n_cfg, len(net.variables)), dtype=np.int64)
        for name, val in evidence.items():
            states[:, index[name]] = int(val)
        states[:, index[net.class_variable]] = c
        for k, v in enumerate(hidden):
            states[:, index[v.name]] = grids[:, k]
        logp = np.zeros(n_cfg)
        for v in net.variables:
            idx = tuple(states[:, index[p]] for p in v.parents) + (states[:, index[v.name]],)
            with np.errstate(divide="ignore"):
                logp += np.log(np.asarray(v.table)[idx])
        mx = logp.max()
        total[c] = -np.inf if not np.isfinite(mx) else mx + np.log(np.exp(logp - mx).sum())
    mx = total.max()
    p = np.exp(total - mx)
    return float(p[1] / p.sum())
