"""The whitelist of loadable learners.

:data:`REGISTRY` maps a class name to its :class:`~hbnlab.export.model_io.codecs.LearnerCodec`.
A model file names its learner; :func:`~hbnlab.export.model_io.load_model` builds only classes
found here (no class or module is ever looked up from a string in the file), and
:func:`codec_for` refuses to save any other estimator.  The codecs are those of
:mod:`hbnlab.export.model_io.codecs` and :mod:`hbnlab.export.model_io.tree_codecs`;
:func:`register_learner` adds another.  :func:`resolved_params` is what a fitted estimator's
hyper-parameters were when its fit used them (model files and reports record it).
"""
from __future__ import annotations

import numpy as np

from hbnlab.export.model_io.codecs import CODECS, LearnerCodec
from hbnlab.export.model_io.state import is_json_param, plain_json
from hbnlab.export.model_io.tree_codecs import TREE_CODECS

REGISTRY: dict[str, LearnerCodec] = {}


def register_learner(codec: LearnerCodec) -> LearnerCodec:
    """Add (or replace) a learner in the whitelist of loadable classes."""
    REGISTRY[codec.name] = codec
    return codec


def codec_for(estimator) -> LearnerCodec:
    """The codec of a fitted estimator; ValueError naming the supported learners for any other class."""
    name = type(estimator).__name__
    codec = REGISTRY.get(name)
    if codec is None or codec.load_class() is not type(estimator):
        raise ValueError(f"{name} cannot be saved as an hbnlab model file; supported learners: {sorted(REGISTRY)}")
    return codec


def resolved_params(estimator) -> dict:
    """The hyper-parameters of a fitted ``estimator`` as its fit used them: ``get_params(deep=False)``
    with the values the estimator resolves itself (a None default read from a table, such as the
    HBN's ``B``, ``alpha`` and ``children_select``) replaced by what they resolved to.  A value a
    model file cannot hold (a callback, an object) is written ``"<not stored: TYPE>"``.

    A file written by another hbnlab version thus says how it was fitted, even where a default has
    changed since (``CHANGELOG.md``).
    """
    out = {}
    for name, v in estimator.get_params(deep=False).items():
        v = v.item() if isinstance(v, np.generic) else list(v) if isinstance(v, tuple) else v
        out[name] = plain_json(v) if is_json_param(v) else f"<not stored: {type(v).__name__}>"
    codec = REGISTRY.get(type(estimator).__name__)
    if codec is not None and codec.resolve is not None:
        out.update(plain_json(codec.resolve(estimator)))
    return out


for _codec in (*CODECS, *TREE_CODECS):
    register_learner(_codec)
