"""The fixed names of the model-file format, its error and the resource limits of a load.

Everything here is a constant of ``hbnlab/export/FORMAT.md``: the format name and version (and minor version), the
two archive members, the dtypes an array may have; :class:`ModelFileError` is what every reader
in :mod:`hbnlab.export.model_io` raises, and :class:`LoadLimits` bounds what
:func:`~hbnlab.export.model_io.load_model` will read from an untrusted file.
"""
from __future__ import annotations

from dataclasses import dataclass

from hbnlab._validation import HbnlabError

FORMAT_NAME = "hbnlab-model"
FORMAT_VERSION = 1
#: Additions a reader of the same ``FORMAT_VERSION`` may ignore (FORMAT.md, "Versioning"): 1 added
#: ``resolved_params``; a file without ``format_minor`` is 1.0.
FORMAT_MINOR = 1
MODEL_SUFFIX = ".hbnlab"
JSON_MEMBER = "model.json"
ARRAYS_MEMBER = "arrays.npz"
#: The ZIP comment records the SHA-256 of each member: ``hbnlab-sha256 model.json=HEX arrays.npz=HEX``
CHECKSUM_PREFIX = "hbnlab-sha256"

#: dtypes an ``arrays.npz`` member may have (little-endian plain numbers only)
ALLOWED_DTYPES = {"<f8": "float64", "<i8": "int64", "<i4": "int32", "|i1": "int8", "|b1": "bool"}


class ModelFileError(HbnlabError, ValueError):
    """A model file is unreadable, malformed or unsafe.  ``source`` is the file, ``field`` the
    JSON path (``"state.feature_log_prob_"``) or archive member at fault."""

    def __init__(self, source, field: str | None, message: str):
        self.source = str(source)
        self.field = field
        self.detail = message
        where = f"{self.source}: " + (f"field {field!r}: " if field else "")
        super().__init__(where + message)


@dataclass(frozen=True)
class LoadLimits:
    """Resource limits of :func:`~hbnlab.export.model_io.load_model` (untrusted files).

    Parameters
    ----------
    max_file_bytes : int
        Size of the model file itself.
    max_json_bytes : int
        Uncompressed size of ``model.json``, checked while it is decompressed, before it is parsed.
        Parsing is the expensive step (a 60 MB ``model.json`` of numbers took 12 s and 550 MB of
        memory before a later check refused it), so the default is 8 MiB: several times the
        largest real ``model.json`` (the learned numbers live in ``arrays.npz``; the biggest JSON
        item is the vocabulary, about 1.5 MB for 130,000 terms).
    max_arrays_bytes : int
        Uncompressed size of ``arrays.npz``, and of all arrays in it together.
    max_arrays : int
        Number of members of ``arrays.npz``.
    max_compression_ratio : float
        Largest uncompressed / compressed ratio of a member bigger than 1 MiB.
    max_json_depth : int
        Nesting depth of ``model.json`` (counted on the raw text before parsing).
    max_tree_nodes, max_tree_depth : int
        Size and depth of a stored tree (checked in linear time before the tree is built).
    """

    max_file_bytes: int = 256 * 2**20
    max_json_bytes: int = 8 * 2**20
    max_arrays_bytes: int = 512 * 2**20
    max_arrays: int = 4096
    max_compression_ratio: float = 1000.0
    max_json_depth: int = 64
    max_tree_nodes: int = 50_000
    max_tree_depth: int = 256


DEFAULT_LIMITS = LoadLimits()
