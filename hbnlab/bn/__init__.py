"""Tree-shaped Bayesian networks of binary variables: structures, parameters, exact inference
and multi-restart EM (thesis ch. 2-3).

* :mod:`hbnlab.bn.structure` -- :class:`TreeStructure` (HBN / HNB arc directions);
* :mod:`hbnlab.bn.params` -- :class:`TreeParameters` (the conditional probability tables);
* :mod:`hbnlab.bn.inference` -- class posteriors, node marginals, subtree contributions;
* :mod:`hbnlab.bn.em` -- :func:`fit_em` with e_step / m_step pieces;
* :mod:`hbnlab.bn.kernels` -- the vectorized message-passing kernels behind both (HBN; the
  HNB's in :mod:`hbnlab.bn.hnb_kernels`).

Names are imported lazily so that ``import hbnlab.bn.structure`` stays light.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "TreeStructure": "structure", "StructureError": "structure", "features_under": "structure",
    "TreeParameters": "params", "ParameterError": "params", "cpt_shape": "params", "config_index": "params",
    "class_log_odds": "inference", "class_posterior": "inference", "log_likelihood": "inference",
    "node_marginals": "inference", "prior_marginals": "inference", "subtree_contributions": "inference",
    "fit_em": "em", "e_step": "em", "m_step": "em", "EMResult": "em",
    "SufficientStatistics": "em", "hnb_start_from_hbn": "em",
    "fit_hnb_from_hbn": "em",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"hbnlab.bn.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'hbnlab.bn' has no attribute {name!r}")
