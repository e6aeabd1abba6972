"""The whitelist of loadable learners.

:data:`REGISTRY` maps a class name to its :class:`~hbnlab.export.model_io.codecs.LearnerCodec`.
A model file names its learner; :func:`~hbnlab.export.model_io.load_model` builds only classes
found here (no class or module is ever looked up from a string in the file), and
:func:`codec_for` refuses to save any other estimator.  The codecs are those of
:mod:`hbnlab.export.model_io.codecs` and :mod:`hbnlab.export.model_io.tree_codecs`;
:func:`register_learner` adds another.
"""
from __future__ import annotations

from hbnlab.export.model_io.codecs import CODECS, LearnerCodec
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


for _codec in (*CODECS, *TREE_CODECS):
    register_learner(_codec)
