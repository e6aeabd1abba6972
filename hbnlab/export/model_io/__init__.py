"""hbnlab model files: one documented, versioned, pickle-free format for every learner.

A model file (suffix ``.hbnlab``) is a ZIP archive with exactly these members:

* ``model.json`` -- UTF-8 JSON: the format name and version, the learner's class name, its
  hyper-parameters, its learned state (small values inline; every numeric array replaced by a
  reference ``{"$array": KEY, "dtype": ..., "shape": [...]}``), the text pipeline (indexing
  settings and vocabulary), the selected terms, the class label, the corpus fingerprint, the
  EM traces, library versions, the hyper-parameters as the fit resolved them and the creation time;
* ``arrays.npz`` (only when the state holds arrays) -- a NumPy ``.npz`` archive of plain numeric
  arrays (float64, int64, int32, int8, bool), one ``KEY.npy`` per reference.

The layout is specified in ``hbnlab/export/FORMAT.md``.  Nothing is ever unpickled: every
learner registers an explicit pair ``to_state`` / ``from_state`` in :data:`REGISTRY` (keyed by
class name; only these classes can be loaded, no class or module is looked up from a string in
the file), and :func:`load_model` treats the file as untrusted input:

* size limits (:class:`LoadLimits`) on the file, every member (checked against the declared
  size *and* while decompressing, so a zip bomb stops at the limit), the number of members and
  arrays, and the compression ratio;
* the schema and version (``format``, ``format_version``), the learner against the registry;
* every array's header is parsed before its data (object arrays, which would need pickle, are
  refused), its dtype and shape checked against the reference and against what the learner
  expects;
* probability tables: finite, non-negative, rows summing to one; trees through
  :class:`~hbnlab.bn.structure.TreeStructure` / :class:`~hbnlab.bn.params.TreeParameters`
  (acyclic, one leaf per feature, ...).

Every problem is a :class:`ModelFileError` naming the file and the field.

The modules, each importing only those above it:

* :mod:`~hbnlab.export.model_io.spec` -- format constants, :class:`ModelFileError`,
  :class:`LoadLimits`;
* :mod:`~hbnlab.export.model_io.state` -- JSON helpers, :class:`StateWriter`, :class:`StateReader`;
* :mod:`~hbnlab.export.model_io.codecs` -- :class:`LearnerCodec` and the codecs of the
  table-shaped learners;
* :mod:`~hbnlab.export.model_io.tree_codecs` -- the codecs of the tree-shaped learners,
  :func:`read_tree_parameters`;
* :mod:`~hbnlab.export.model_io.registry` -- :data:`REGISTRY`, :func:`register_learner`,
  :func:`codec_for`, :func:`resolved_params`;
* :mod:`~hbnlab.export.model_io.pipeline` -- :class:`TextPipeline`, :class:`LoadedModel`
  (independent of the modules above);
* :mod:`~hbnlab.export.model_io.container` -- :func:`model_to_bytes`, :func:`save_model`,
  :func:`load_model`.
"""
from hbnlab.export.model_io.codecs import LearnerCodec
from hbnlab.export.model_io.container import load_model, model_to_bytes, save_model
from hbnlab.export.model_io.pipeline import LoadedModel, TextPipeline
from hbnlab.export.model_io.registry import REGISTRY, codec_for, register_learner, resolved_params
from hbnlab.export.model_io.spec import (
    ALLOWED_DTYPES,
    ARRAYS_MEMBER,
    DEFAULT_LIMITS,
    FORMAT_MINOR,
    FORMAT_NAME,
    FORMAT_VERSION,
    JSON_MEMBER,
    MODEL_SUFFIX,
    LoadLimits,
    ModelFileError,
)
from hbnlab.export.model_io.state import StateReader, StateWriter, library_versions, plain_json
from hbnlab.export.model_io.tree_codecs import read_tree_parameters

__all__ = [
    "FORMAT_NAME", "FORMAT_VERSION", "FORMAT_MINOR", "MODEL_SUFFIX", "JSON_MEMBER", "ARRAYS_MEMBER", "ALLOWED_DTYPES",
    "ModelFileError", "LoadLimits", "DEFAULT_LIMITS", "LearnerCodec", "REGISTRY", "register_learner", "codec_for",
    "StateWriter", "StateReader", "TextPipeline", "LoadedModel", "save_model", "load_model", "model_to_bytes",
    "read_tree_parameters", "library_versions", "plain_json", "resolved_params",
]
