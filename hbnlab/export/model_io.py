"""hbnlab model files: one documented, versioned, pickle-free format for every learner.

A model file (suffix ``.hbnlab``) is a ZIP archive with exactly these members:

* ``model.json`` -- UTF-8 JSON: the format name and version, the learner's class name, its
  hyper-parameters, its learned state (small values inline; every numeric array replaced by a
  reference ``{"$array": KEY, "dtype": ..., "shape": [...]}``), the text pipeline (indexing
  settings and vocabulary), the selected terms, the class label, the corpus fingerprint, the
  EM traces, library versions and the creation time;
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
"""
from __future__ import annotations

import datetime as _dt
import io
import json
import math
import platform
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

FORMAT_NAME = "hbnlab-model"
FORMAT_VERSION = 1
MODEL_SUFFIX = ".hbnlab"
JSON_MEMBER = "model.json"
ARRAYS_MEMBER = "arrays.npz"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed member timestamps: same model -> same bytes (but 'created')

#: dtypes an ``arrays.npz`` member may have (little-endian plain numbers only)
ALLOWED_DTYPES = {"<f8": "float64", "<i8": "int64", "<i4": "int32", "|i1": "int8", "|b1": "bool"}


class ModelFileError(ValueError):
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
    """Resource limits of :func:`load_model` (untrusted files).

    Parameters
    ----------
    max_file_bytes : int
        Size of the model file itself.
    max_json_bytes : int
        Uncompressed size of ``model.json``.
    max_arrays_bytes : int
        Uncompressed size of ``arrays.npz``, and of all arrays in it together.
    max_arrays : int
        Number of members of ``arrays.npz``.
    max_compression_ratio : float
        Largest uncompressed / compressed ratio of a member bigger than 1 MiB.
    max_json_depth : int
        Nesting depth of ``model.json``.
    max_tree_nodes, max_tree_depth : int
        Size and depth of a stored tree (checked in linear time before the tree is built).
    """

    max_file_bytes: int = 256 * 2**20
    max_json_bytes: int = 64 * 2**20
    max_arrays_bytes: int = 512 * 2**20
    max_arrays: int = 4096
    max_compression_ratio: float = 1000.0
    max_json_depth: int = 64
    max_tree_nodes: int = 50_000
    max_tree_depth: int = 256


DEFAULT_LIMITS = LoadLimits()


# =========================================================================== JSON helpers
def _plain(obj, path: str = ""):
    """JSON-able copy: numpy scalars to Python, tuples to lists, non-finite floats to None."""
    if isinstance(obj, dict):
        return {str(k): _plain(v, f"{path}.{k}") for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v, path) for v in obj]
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist(), path)
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if obj is None or isinstance(obj, str):
        return obj
    raise TypeError(f"{path or 'value'}: {type(obj).__name__} is not JSON-serialisable")


def _json_depth(obj, limit: int) -> int:
    """Nesting depth of a parsed JSON value (iterative; stops counting past ``limit``)."""
    depth, stack = 0, [(obj, 1)]
    while stack:
        o, d = stack.pop()
        if d > depth:
            depth = d
            if depth > limit:
                return depth
        if isinstance(o, dict):
            stack.extend((v, d + 1) for v in o.values())
        elif isinstance(o, list):
            stack.extend((v, d + 1) for v in o)
    return depth


def library_versions() -> dict:
    import scipy
    import sklearn

    import hbnlab

    return {"hbnlab": hbnlab.__version__, "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "scikit-learn": sklearn.__version__}


# =========================================================================== state writer / reader
class StateWriter:
    """Collects the arrays of a learner's state; :meth:`array` returns the JSON reference."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, key: str, value, dtype=None) -> dict:
        a = np.asarray(value)
        if dtype is not None:
            a = a.astype(dtype)
        if a.dtype == np.float32:
            a = a.astype(np.float64)
        le = a.dtype.newbyteorder("<") if a.dtype.byteorder not in ("|", "<", "=") else a.dtype
        a = np.array(a.astype(le), order="C", copy=True)  # (ascontiguousarray would make 0-d arrays 1-d)
        if a.dtype.str not in ALLOWED_DTYPES:
            raise TypeError(f"state array {key!r} has dtype {a.dtype}; allowed: {sorted(ALLOWED_DTYPES.values())}")
        if key in self.arrays:
            raise ValueError(f"state array {key!r} written twice")
        self.arrays[key] = a
        return {"$array": key, "dtype": ALLOWED_DTYPES[a.dtype.str], "shape": list(a.shape)}

    @staticmethod
    def classes(values) -> dict:
        """``classes_`` of an estimator (labels may be numbers, booleans or strings)."""
        a = np.asarray(values)
        if a.dtype.kind in "US":
            return {"dtype": "str", "values": [str(v) for v in a]}
        if a.dtype.kind == "b":
            return {"dtype": "bool", "values": [bool(v) for v in a]}
        if a.dtype.kind in "iu":
            return {"dtype": str(a.dtype), "values": [int(v) for v in a]}
        if a.dtype.kind == "f":
            return {"dtype": "float64", "values": [float(v) for v in a]}
        raise TypeError(f"classes_ of dtype {a.dtype} cannot be stored")


_CLASS_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float64", "str")


class StateReader:
    """Typed, checked access to a learner's state; every error names the file and field."""

    def __init__(self, source: str, arrays: dict, prefix: str = "state", limits: "LoadLimits | None" = None):
        self.source = source
        self._arrays = arrays
        self.prefix = prefix
        self.used: set = set()
        self.limits = limits or DEFAULT_LIMITS

    def error(self, field: str, message: str) -> ModelFileError:
        return ModelFileError(self.source, f"{self.prefix}.{field}" if field else self.prefix, message)

    def sub(self, name: str) -> "StateReader":
        r = StateReader(self.source, self._arrays, f"{self.prefix}.{name}", self.limits)
        r.used = self.used
        return r

    # ------------------------------------------------------------------ scalars
    def get(self, st: dict, name: str, default=KeyError):
        if not isinstance(st, dict):
            raise self.error("", f"expected a JSON object, got {type(st).__name__}")
        if name not in st:
            if default is KeyError:
                raise self.error(name, "missing")
            return default
        return st[name]

    def int(self, st, name, lo=None, hi=None, default=KeyError) -> int:
        v = self.get(st, name, default)
        if v is default and default is not KeyError:
            return v
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.error(name, f"expected an integer, got {v!r}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise self.error(name, f"expected an integer in [{lo}, {hi}], got {v}")
        return v

    def float(self, st, name, finite=True, default=KeyError) -> float:
        v = self.get(st, name, default)
        if v is default and default is not KeyError:
            return v
        if v is None and not finite:
            return float("nan")
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.error(name, f"expected a number, got {v!r}")
        v = float(v)
        if finite and not math.isfinite(v):
            raise self.error(name, f"expected a finite number, got {v}")
        return v

    def bool(self, st, name, default=KeyError) -> bool:
        v = self.get(st, name, default)
        if not isinstance(v, bool):
            raise self.error(name, f"expected true or false, got {v!r}")
        return v

    def classes(self, st, name="classes_", n: int | None = 2) -> np.ndarray:
        v = self.get(st, name)
        if not isinstance(v, dict) or "values" not in v or "dtype" not in v:
            raise self.error(name, "expected an object with 'dtype' and 'values'")
        dt, vals = v["dtype"], v["values"]
        if dt not in _CLASS_DTYPES:
            raise self.error(name, f"dtype must be one of {_CLASS_DTYPES}, got {dt!r}")
        if not isinstance(vals, list) or (n is not None and len(vals) != n) or len(vals) < 2:
            raise self.error(name, f"expected a list of {n or '>= 2'} class labels, got {vals!r}"[:300])
        ok = {"str": lambda x: isinstance(x, str), "bool": lambda x: isinstance(x, bool),
              "float64": lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)}.get(
            dt, lambda x: isinstance(x, int) and not isinstance(x, bool))
        if not all(ok(x) for x in vals):
            raise self.error(name, f"values do not match dtype {dt!r}")
        try:
            a = np.array(vals, dtype=str if dt == "str" else dt)
        except (OverflowError, ValueError):
            raise self.error(name, f"values do not fit dtype {dt!r}") from None
        if np.unique(a).size != a.size or not np.all(a[:-1] < a[1:]):
            raise self.error(name, "class labels must be distinct and sorted")
        return a

    # ------------------------------------------------------------------ arrays
    def array(self, st, name, dtype: str, shape=None, ndim=None, finite=False, lo=None, hi=None,
              allow_nan=False) -> np.ndarray:
        """The array referenced by ``st[name]``, checked.

        ``shape`` entries may be None (any length); ``lo`` / ``hi`` bound the values
        (inclusive); ``finite`` forbids inf and NaN; NaN is refused in float arrays unless
        ``allow_nan``.
        """
        ref = self.get(st, name)
        if not (isinstance(ref, dict) and set(ref) == {"$array", "dtype", "shape"}):
            raise self.error(name, "expected an array reference {'$array', 'dtype', 'shape'}")
        key = ref["$array"]
        if not isinstance(key, str) or key not in self._arrays:
            raise self.error(name, f"array {key!r} is not in {ARRAYS_MEMBER}")
        a = self._arrays[key]
        self.used.add(key)
        if ref["dtype"] != dtype or str(a.dtype) != dtype:
            raise self.error(name, f"expected dtype {dtype}, reference says {ref['dtype']!r} and the array is "
                                   f"{a.dtype}")
        if not isinstance(ref["shape"], list) or list(a.shape) != ref["shape"]:
            raise self.error(name, f"array has shape {list(a.shape)}, the reference says {ref['shape']!r}")
        if ndim is not None and a.ndim != ndim:
            raise self.error(name, f"expected {ndim} dimensions, got shape {a.shape}")
        if shape is not None:
            shape = tuple(shape)
            if len(shape) != a.ndim or any(s is not None and s != t for s, t in zip(shape, a.shape)):
                want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
                raise self.error(name, f"expected shape {want}, got {a.shape}")
        if a.dtype.kind == "f":
            if finite and not np.all(np.isfinite(a)):
                raise self.error(name, "holds non-finite values (NaN or infinity)")
            if not allow_nan and np.isnan(a).any():
                raise self.error(name, "holds NaN values")
        if a.size and lo is not None:
            m = np.nanmin(a) if a.dtype.kind == "f" else a.min()
            if m < lo:
                raise self.error(name, f"holds {m!r}, below the minimum {lo}")
        if a.size and hi is not None:
            m = np.nanmax(a) if a.dtype.kind == "f" else a.max()
            if m > hi:
                raise self.error(name, f"holds {m!r}, above the maximum {hi}")
        return a.copy()

    def distribution(self, st, name, shape=None, log=False, atol=1e-6) -> np.ndarray:
        """A probability table whose last axis sums to one (``log``: log-probabilities)."""
        a = self.array(st, name, "float64", shape=shape, finite=not log)
        p = np.exp(a) if log else a
        if log and (np.isnan(a).any() or np.isposinf(a).any()):
            raise self.error(name, "log-probabilities must not be NaN or +infinity")
        if np.any(p < 0) or np.any(p > 1 + atol):
            raise self.error(name, "probabilities must lie in [0, 1]")
        s = p.sum(axis=-1)
        bad = np.flatnonzero(np.abs(np.atleast_1d(s) - 1.0) > atol)
        if bad.size:
            raise self.error(name, f"row {int(bad[0])} sums to {np.atleast_1d(s).ravel()[bad[0]]:.9g}, expected 1")
        return a


# =========================================================================== learner registry
@dataclass(frozen=True)
class LearnerCodec:
    """How one estimator class is written to and rebuilt from a model file.

    ``to_state(est, writer) -> dict`` returns the learned state (JSON values and
    ``writer.array(...)`` references); ``from_state(est, state, reader)`` fills a fresh
    ``est = load_class()(**params)`` from it, checking everything through ``reader``.
    ``params`` lists the hyper-parameters stored (callbacks never are).
    """

    name: str
    load_class: Callable[[], type]
    params: tuple
    to_state: Callable
    from_state: Callable
    binary: bool = True  # a BinaryTextClassifier (selected_features_, one positive class)


REGISTRY: dict[str, LearnerCodec] = {}


def register_learner(codec: LearnerCodec) -> LearnerCodec:
    """Add (or replace) a learner in the whitelist of loadable classes."""
    REGISTRY[codec.name] = codec
    return codec


def codec_for(estimator) -> LearnerCodec:
    name = type(estimator).__name__
    codec = REGISTRY.get(name)
    if codec is None or codec.load_class() is not type(estimator):
        raise ValueError(f"{name} cannot be saved as an hbnlab model file; supported learners: {sorted(REGISTRY)}")
    return codec


# --------------------------------------------------------------------------- shared pieces
def _base_to_state(est, w: StateWriter) -> dict:
    return {
        "classes_": w.classes(est.classes_),
        "n_features_in_": int(est.n_features_in_),
        "selected_features_": w.array("selected_features_", est.selected_features_, np.int64),
        "feature_scores_": w.array("feature_scores_", np.asarray(est.feature_scores_, dtype=np.float64)),
    }


def _base_from_state(est, st: dict, r: StateReader) -> int:
    """Fill the BinaryTextClassifier attributes; returns the number of selected features."""
    est.classes_ = r.classes(st)
    nfi = r.int(st, "n_features_in_", lo=1)
    sel = r.array(st, "selected_features_", "int64", ndim=1, lo=0, hi=nfi - 1)
    if sel.size == 0:
        raise r.error("selected_features_", "no feature is selected")
    if np.unique(sel).size != sel.size:
        raise r.error("selected_features_", "a column is selected twice")
    est.n_features_in_ = nfi
    est.selected_features_ = sel
    est.feature_scores_ = r.array(st, "feature_scores_", "float64", shape=(sel.size,), allow_nan=True)
    return int(sel.size)


def _log_prior_pair(r, st, name, shape=(2,)):
    return r.distribution(st, name, shape=shape, log=True)


# --------------------------------------------------------------------------- Bernoulli NB
def _nb_to(est, w):
    s = _base_to_state(est, w)
    s.update(feature_log_prob_=w.array("feature_log_prob_", est.feature_log_prob_),
             feature_log_prob_off_=w.array("feature_log_prob_off_", est.feature_log_prob_off_),
             class_log_prior_=w.array("class_log_prior_", est.class_log_prior_))
    return s


def _nb_from(est, st, r):
    m = _base_from_state(est, st, r)
    on = r.array(st, "feature_log_prob_", "float64", shape=(2, m), finite=True, hi=0.0)
    off = r.array(st, "feature_log_prob_off_", "float64", shape=(2, m), finite=True, hi=0.0)
    # thesis sec. 1.1.3: P(F=1 | c) + P(F=0 | c) = 1
    if np.max(np.abs(np.exp(on) + np.exp(off) - 1.0)) > 1e-9:
        raise r.error("feature_log_prob_off_", "P(F=1 | c) + P(F=0 | c) differs from 1")
    est.feature_log_prob_, est.feature_log_prob_off_ = on, off
    est.class_log_prior_ = _log_prior_pair(r, st, "class_log_prior_")


# --------------------------------------------------------------------------- linear SVM
def _svm_to(est, w):
    s = _base_to_state(est, w)
    svm = est.svm_
    s.update(coef_=w.array("svm.coef_", svm.coef_), intercept_=w.array("svm.intercept_", svm.intercept_),
             svm_classes_=w.array("svm.classes_", svm.classes_, np.int64),
             n_iter_=int(np.max(svm.n_iter_)), sigmoid_A_=float(est.sigmoid_A_), sigmoid_B_=float(est.sigmoid_B_))
    return s


def _svm_from(est, st, r):
    from sklearn.svm import LinearSVC

    m = _base_from_state(est, st, r)
    svm = LinearSVC(C=est.C, dual="auto", random_state=est.random_state, max_iter=20000)
    svm.coef_ = r.array(st, "coef_", "float64", shape=(1, m), finite=True)
    svm.intercept_ = r.array(st, "intercept_", "float64", shape=(1,), finite=True)
    cls = r.array(st, "svm_classes_", "int64", shape=(2,))
    if cls.tolist() != [0, 1]:
        raise r.error("svm_classes_", f"expected [0, 1], got {cls.tolist()}")
    svm.classes_ = cls
    svm.n_features_in_ = m
    svm.n_iter_ = r.int(st, "n_iter_", lo=0)
    est.svm_ = svm
    est.sigmoid_A_ = r.float(st, "sigmoid_A_")
    est.sigmoid_B_ = r.float(st, "sigmoid_B_")


# --------------------------------------------------------------------------- multinomial NB
def _mnb_to(est, w):
    s = _base_to_state(est, w)
    inner = est.model_
    s.update(feature_log_prob_=w.array("model.feature_log_prob_", inner.feature_log_prob_),
             feature_log_prob_neg_=w.array("model.feature_log_prob_neg_", inner.feature_log_prob_neg_),
             class_log_prior_=w.array("model.class_log_prior_", inner.class_log_prior_))
    return s


def _mnb_from(est, st, r):
    from hbnlab.models.multinomial_nb import MultinomialNBClassifier

    m = _base_from_state(est, st, r)
    inner = MultinomialNBClassifier(alpha=est.alpha, binary=est.binary)
    # de Campos eqs. 4 and 6: each row is a distribution over the (selected) terms
    inner.feature_log_prob_ = r.distribution(st, "feature_log_prob_", shape=(1, m), log=True)
    inner.feature_log_prob_neg_ = r.distribution(st, "feature_log_prob_neg_", shape=(1, m), log=True)
    inner.class_log_prior_ = _log_prior_pair(r, st, "class_log_prior_", shape=(1, 2))
    for name in ("feature_log_prob_", "feature_log_prob_neg_", "class_log_prior_"):
        if not np.all(np.isfinite(getattr(inner, name))):
            raise r.error(name, "log-probabilities must be finite")
    # the same operations as MultinomialNBClassifier._fit_multilabel: bit-identical scores
    inner.coef_ = inner.feature_log_prob_ - inner.feature_log_prob_neg_
    inner.intercept_ = inner.class_log_prior_[:, 1] - inner.class_log_prior_[:, 0]
    inner.n_features_in_, inner.n_classes_ = m, 1
    est.model_ = inner
    est.coef_ = inner.coef_[0]
    est.intercept_ = float(inner.intercept_[0])


# --------------------------------------------------------------------------- noisy-OR gate
def _or_to(est, w):
    s = _base_to_state(est, w)
    s.update(weights_=w.array("model.weights_", est.model_.weights_),
             n_parents_=w.array("model.n_parents_", est.model_.n_parents_, np.int64))
    return s


def _or_from(est, st, r):
    from hbnlab.models.or_gate import LOG_FLOOR, WEIGHT_METHODS, NoisyORClassifier

    m = _base_from_state(est, st, r)
    if est.weights not in WEIGHT_METHODS:
        raise ModelFileError(r.source, "params.weights", f"must be one of {WEIGHT_METHODS}, got {est.weights!r}")
    if not (isinstance(est.leak, (int, float)) and 0.0 <= float(est.leak) < 1.0):
        raise ModelFileError(r.source, "params.leak", f"must be a number in [0, 1), got {est.leak!r}")
    inner = NoisyORClassifier(weights=est.weights, counts=est.counts, leak=est.leak)
    W = r.array(st, "weights_", "float64", shape=(1, m), finite=True, lo=0.0, hi=1.0)  # de Campos eq. 7
    inner.weights_ = W
    with np.errstate(divide="ignore"):
        inner.log1m_weights_ = np.maximum(np.log1p(-W), LOG_FLOOR)  # as NoisyORClassifier._fit_multilabel
    inner.n_parents_ = r.array(st, "n_parents_", "int64", shape=(1,), lo=0, hi=m)
    inner.log1m_leak_ = float(np.log1p(-float(est.leak)))
    inner.n_features_in_, inner.n_classes_ = m, 1
    est.model_ = inner
    est.weights_ = W[0]


# --------------------------------------------------------------------------- Rocchio
def _rocchio_to(est, w):
    s = _base_to_state(est, w)
    s.update(idf_=w.array("model.idf_", est.model_.idf_), prototypes_=w.array("model.prototypes_", est.model_.prototypes_))
    return s


def _rocchio_from(est, st, r):
    from hbnlab.models.rocchio import RocchioClassifier

    m = _base_from_state(est, st, r)
    inner = RocchioClassifier(beta=est.beta, gamma=est.gamma, sublinear_tf=est.sublinear_tf)
    inner.idf_ = r.array(st, "idf_", "float64", shape=(m,), finite=True, lo=0.0)
    inner.prototypes_ = r.array(st, "prototypes_", "float64", shape=(1, m), finite=True, lo=-1.0, hi=1.0)
    inner.n_features_in_, inner.n_classes_ = m, 1
    est.model_ = inner


# --------------------------------------------------------------------------- k-dependence BN
def _kdb_to(est, w):
    s = _base_to_state(est, w)
    s.update(class_mi_=w.array("class_mi_", est.class_mi_), order_=w.array("order_", est.order_, np.int64),
             parents_=w.array("parents_", est.parents_, np.int64),
             parent_cmi_=w.array("parent_cmi_", est.parent_cmi_),
             theta_=w.array("theta_", est.theta_), class_log_prior_=w.array("class_log_prior_", est.class_log_prior_))
    return s


def _kdb_from(est, st, r):
    from hbnlab.models.kdb import _moebius

    m = _base_from_state(est, st, r)
    k = est.k
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 16:
        raise ModelFileError(r.source, "params.k", f"must be an integer in [0, 16], got {k!r}")
    est.class_mi_ = r.array(st, "class_mi_", "float64", shape=(m,), finite=True)
    order = r.array(st, "order_", "int64", shape=(m,), lo=0, hi=m - 1)
    if np.unique(order).size != m:
        raise r.error("order_", "is not a permutation of the selected columns")
    parents = r.array(st, "parents_", "int64", shape=(m, k), lo=-1, hi=m - 1)
    pos = np.empty(m, dtype=np.int64)
    pos[order] = np.arange(m)
    for j in range(m):  # loop over the (few) selected terms: the acyclicity invariant of fig. 5.8
        for p in parents[j]:
            if p >= 0 and pos[p] >= pos[j]:
                raise r.error("parents_", f"term {j} has parent {int(p)} that comes later in order_ (a cycle)")
        real = parents[j][parents[j] >= 0]
        if np.unique(real).size != real.size:
            raise r.error("parents_", f"term {j} lists a parent twice")
    est.order_, est.parents_ = order, parents
    est.parent_cmi_ = r.array(st, "parent_cmi_", "float64", shape=(m, k), allow_nan=True)
    # seed 003 eq. 5.18 with alpha > 0 gives 0 < theta < 1, so every log below is finite
    theta = r.array(st, "theta_", "float64", shape=(m, 2**k, 2), finite=True, lo=0.0, hi=1.0)
    if np.any(theta <= 0.0) or np.any(theta >= 1.0):
        raise r.error("theta_", "probabilities must lie strictly between 0 and 1 (Laplace estimates)")
    est.theta_ = theta
    est.class_log_prior_ = _log_prior_pair(r, st, "class_log_prior_")
    est.intercept_ = float(est.class_log_prior_[1] - est.class_log_prior_[0])
    # the same operations as KDependenceBNClassifier._fit_selected: bit-identical scores
    t1, t0 = theta[:, :, 1], theta[:, :, 0]
    table = np.empty((m, 1 << (1 + k)))
    table[:, 1::2] = np.log(t1) - np.log(t0)
    table[:, 0::2] = np.log1p(-t1) - np.log1p(-t0)
    est.contribution_table_ = table
    est.poly_coef_ = _moebius(table)


# --------------------------------------------------------------------------- greedy HNB
def _greedy_to(est, w):
    s = _base_to_state(est, w)
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
        history_=_plain(est.history_),
    )
    return s


def _one_number(r, st, name):
    """A stored number (any array holding one float, NaN allowed), returned in its stored shape."""
    a = r.array(st, name, "float64", allow_nan=True)
    if a.size != 1:
        raise r.error(name, f"expected one number, got shape {a.shape}")
    return float(a) if a.ndim == 0 else a


def _greedy_from(est, st, r):
    from hbnlab.models.greedy_hnb import HNBModel

    nsel = _base_from_state(est, st, r)
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
    est.lower_bound_ = _one_number(r, st, "lower_bound_")
    est.cv_accuracy_ = _one_number(r, st, "cv_accuracy_")
    est.n_iter_ = r.int(st, "n_iter_", lo=0)
    est.converged_ = r.bool(st, "converged_")
    hist = r.get(st, "history_", [])
    if not isinstance(hist, list):
        raise r.error("history_", "expected a list")
    est.history_ = hist
    est._export_structure()


# --------------------------------------------------------------------------- word-cluster NB
def _wcnb_to(est, w):
    return {"classes_": w.classes(est.classes_), "n_features_in_": int(est.n_features_in_),
            "n_clusters_": int(est.n_clusters_), "clusters_": w.array("clusters_", est.clusters_, np.int64),
            "feature_log_prob_": w.array("feature_log_prob_", est.feature_log_prob_),
            "class_log_prior_": w.array("class_log_prior_", est.class_log_prior_)}


def _wcnb_from(est, st, r):
    est.classes_ = r.classes(st, n=None)
    K = est.classes_.size
    est.n_features_in_ = r.int(st, "n_features_in_", lo=1)
    k = r.int(st, "n_clusters_", lo=1)
    est.n_clusters_ = k
    est.clusters_ = r.array(st, "clusters_", "int64", shape=(est.n_features_in_,), lo=-1, hi=k - 1)
    # Verbeek sec. 3.2: each row log p(cluster | class) is a distribution over the clusters
    est.feature_log_prob_ = r.distribution(st, "feature_log_prob_", shape=(K, k), log=True)
    est.class_log_prior_ = r.distribution(st, "class_log_prior_", shape=(K,), log=True)


# --------------------------------------------------------------------------- HBN / HNB
def _tree_model_to(est, w):
    s = _base_to_state(est, w)
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
            "settings": _plain(em.settings),
            "cancelled": bool(em.cancelled),
        }
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

    m = _base_from_state(est, st, r)
    params = read_tree_parameters(r.get(st, "params_"), r)
    tree = params.tree
    if tree.n_features != m:
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
        traces = [tr.array({str(i): ref}, str(i), "float64", ndim=1, allow_nan=True) for i, ref in enumerate(traces_ref)]
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
    extra = r.get(st, "extra", {}) or {}
    xr = r.sub("extra")
    for name, ref in extra.items():
        if name not in ("n_iter_", "converged_", "lower_bound_"):
            raise xr.error(name, "unknown attribute")
        a = xr.array(extra, name, ref.get("dtype") if isinstance(ref, dict) else "", allow_nan=True)
        setattr(est, name, a.item() if a.ndim == 0 else a)


# --------------------------------------------------------------------------- the whitelist
def _cls(module: str, name: str):
    """A loader for one whitelisted class: both strings are constants of this module."""
    def load():
        import importlib

        return getattr(importlib.import_module(module), name)
    load.__qualname__ = f"load_{name}"
    return load



#: hyper-parameters of HierarchicalBNClassifier / HierarchicalNBClassifier (callbacks excluded)
_TREE_PARAMS = ("B", "alpha", "clustering", "n_features", "selection", "n_restarts", "tol", "max_iter", "stopping",
                "criterion", "pseudo_count", "feature_names", "class_name", "random_state")

for _codec in (
    LearnerCodec("BernoulliNBClassifier", _cls("hbnlab.models.naive_bayes", "BernoulliNBClassifier"),
                 ("N0", "n_features", "selection"), _nb_to, _nb_from),
    LearnerCodec("LinearSVMClassifier", _cls("hbnlab.models.svm", "LinearSVMClassifier"),
                 ("C", "n_features", "selection", "binary", "random_state"), _svm_to, _svm_from),
    LearnerCodec("MultinomialNBBinaryClassifier", _cls("hbnlab.models.multinomial_nb", "MultinomialNBBinaryClassifier"),
                 ("alpha", "binary", "n_features", "selection"), _mnb_to, _mnb_from),
    LearnerCodec("NoisyORBinaryClassifier", _cls("hbnlab.models.or_gate", "NoisyORBinaryClassifier"),
                 ("weights", "counts", "leak", "n_features", "selection"), _or_to, _or_from),
    LearnerCodec("RocchioBinaryClassifier", _cls("hbnlab.models.rocchio", "RocchioBinaryClassifier"),
                 ("beta", "gamma", "sublinear_tf", "n_features", "selection"), _rocchio_to, _rocchio_from),
    LearnerCodec("KDependenceBNClassifier", _cls("hbnlab.models.kdb", "KDependenceBNClassifier"),
                 ("k", "alpha", "min_cmi", "block_size", "n_features", "selection"), _kdb_to, _kdb_from),
    LearnerCodec("GreedyHNBClassifier", _cls("hbnlab.models.greedy_hnb", "GreedyHNBClassifier"),
                 ("n_features", "selection", "max_latents", "cv", "n_candidates", "alpha", "max_iter", "tol",
                  "random_state"), _greedy_to, _greedy_from),
    LearnerCodec("WordClusterNB", _cls("hbnlab.models.word_cluster_nb", "WordClusterNB"),
                 ("n_clusters", "pool_size", "alpha"), _wcnb_to, _wcnb_from, binary=False),
    LearnerCodec("HierarchicalBNClassifier", _cls("hbnlab.models.hbn", "HierarchicalBNClassifier"),
                 _TREE_PARAMS, _tree_model_to, _tree_model_from),
    LearnerCodec("HierarchicalNBClassifier", _cls("hbnlab.models.hbn", "HierarchicalNBClassifier"),
                 _TREE_PARAMS, _tree_model_to, _tree_model_from),
):
    register_learner(_codec)


def _param_names(codec: LearnerCodec) -> tuple:
    """The stored hyper-parameters (the codec's whitelist)."""
    return codec.params


def _is_json_param(v) -> bool:
    if v is None or isinstance(v, (bool, int, str)):
        return True
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, list):
        return len(v) <= 1_000_000 and all(_is_json_param(x) and not isinstance(x, (list, dict)) for x in v)
    return False


# =========================================================================== the text pipeline
class TextPipeline:
    """Raw text -> P(class | document) with a saved model: tokenise with the stored
    :class:`~hbnlab.text.IndexingConfig`, map to the stored vocabulary, score.

    Parameters
    ----------
    estimator : fitted estimator
    indexing : IndexingConfig
    vocabulary : sequence of str
        Column ``j`` of the estimator's input is ``vocabulary[j]``.
    """

    def __init__(self, estimator, indexing, vocabulary):
        from hbnlab.text import TermIndexer

        self.estimator = estimator
        self.indexing = indexing
        self.vocabulary = tuple(vocabulary)
        ix = TermIndexer(indexing)
        # a fitted indexer over a fixed vocabulary: the attributes TermIndexer.fit sets
        ix.vocabulary_ = list(self.vocabulary)
        ix.term_index_ = {t: j for j, t in enumerate(self.vocabulary)}
        ix.document_frequency_ = np.zeros(len(self.vocabulary), dtype=np.int64)
        ix.n_documents_ = 0
        self.indexer = ix

    def transform(self, texts):
        """Term matrix (n_texts, len(vocabulary)) of the stored indexing."""
        return self.indexer.transform(list(texts))

    def decision_function(self, texts) -> np.ndarray:
        return self.estimator.decision_function(self.transform(texts))

    def predict_proba(self, texts) -> np.ndarray:
        """P(positive class | text) per text for a binary model, else the class matrix."""
        P = self.estimator.predict_proba(self.transform(texts))
        return P[:, 1] if P.shape[1] == 2 and hasattr(self.estimator, "selected_features_") else P

    def evidence(self, texts) -> np.ndarray:
        """Presence (1) / absence (0) of every selected term, shape (n_texts, n_selected), int8."""
        sel = getattr(self.estimator, "selected_features_", None)
        X = self.transform(texts)
        if sel is None:
            sel = np.arange(X.shape[1])
        return np.asarray((X[:, sel] > 0).toarray(), dtype=np.int8)


@dataclass
class LoadedModel:
    """What :func:`load_model` returns: the rebuilt estimator, its metadata and a text pipeline.

    Attributes
    ----------
    estimator : the fitted estimator (predicts on term matrices over ``vocabulary``)
    learner : str
        Class name of the estimator.
    label : str or None
        The positive class (e.g. ``"trade"``).
    vocabulary : tuple of str or None
    indexing : IndexingConfig or None
    corpus : dict or None
        Name, fingerprint and counts of the training corpus.
    provenance : dict
    metadata : dict
        The whole ``model.json`` without the learned state.
    source : str
    pipeline : TextPipeline or None
        None when the file has no vocabulary / indexing settings.
    """

    estimator: object
    learner: str
    label: str | None = None
    vocabulary: tuple | None = None
    indexing: object = None
    corpus: dict | None = None
    provenance: dict = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)
    source: str = ""
    pipeline: TextPipeline | None = None

    @property
    def selected_terms(self) -> list | None:
        sel = getattr(self.estimator, "selected_features_", None)
        if sel is None or self.vocabulary is None:
            return None
        return [self.vocabulary[int(j)] for j in sel]

    @property
    def class_name(self) -> str | None:
        return self.metadata.get("class_name")

    def predict_proba_texts(self, texts) -> np.ndarray:
        """P(label | text) for raw texts (needs the stored vocabulary and indexing)."""
        if self.pipeline is None:
            raise ValueError(f"{self.source}: the model file has no vocabulary / indexing settings, so it cannot "
                             "classify raw text; pass term matrices to .estimator instead")
        return self.pipeline.predict_proba(texts)


# =========================================================================== save
def _corpus_info(corpus) -> dict | None:
    if corpus is None:
        return None
    if isinstance(corpus, dict):
        return _plain(corpus)
    info = {"name": corpus.name, "fingerprint": corpus.fingerprint(), "synthetic": bool(corpus.synthetic),
            "n_documents": len(corpus)}
    try:
        info["n_train"] = len(corpus.train)
        info["n_test"] = len(corpus.test)
    except AttributeError:  # pragma: no cover - duck-typed corpora
        pass
    return info


def _em_summary(est) -> dict | None:
    em = getattr(est, "em_result_", None)
    if em is not None:
        return _plain({"best_restart": em.best_restart, "log_likelihood": em.log_likelihood,
                       "n_restarts": len(em.traces), "traces": [list(map(float, t)) for t in em.traces],
                       "n_iter": list(np.asarray(em.n_iter).tolist()), "converged": np.asarray(em.converged).tolist(),
                       "total_seconds": em.total_seconds})
    if hasattr(est, "n_iter_") and hasattr(est, "lower_bound_"):
        return _plain({"n_iter": est.n_iter_, "converged": getattr(est, "converged_", None),
                       "log_likelihood": est.lower_bound_})
    return None


def model_to_bytes(model, *, indexing=None, vocabulary=None, corpus=None, label=None, provenance=None,
                   created: str | None = None) -> bytes:
    """The bytes of a model file (see :func:`save_model`)."""
    from sklearn.utils.validation import check_is_fitted

    from hbnlab.text import IndexingConfig

    if isinstance(model, LoadedModel):
        indexing = model.indexing if indexing is None else indexing
        vocabulary = model.vocabulary if vocabulary is None else vocabulary
        corpus = model.corpus if corpus is None else corpus
        label = model.label if label is None else label
        provenance = model.provenance if provenance is None else provenance
        model = model.estimator
    codec = codec_for(model)
    check_is_fitted(model)
    all_params = model.get_params(deep=False)
    params = {}
    for name in _param_names(codec):
        v = all_params.get(name)
        if isinstance(v, tuple):
            v = list(v)
        if isinstance(v, np.generic):
            v = v.item()
        if not _is_json_param(v):
            raise ValueError(f"hyper-parameter {name}={v!r} of {codec.name} cannot be stored in a model file "
                             "(JSON numbers, strings, booleans, null and flat lists only)")
        params[name] = v
    w = StateWriter()
    state = codec.to_state(model, w)
    if isinstance(indexing, dict):
        indexing = IndexingConfig.from_dict(indexing)
    if indexing is not None and not isinstance(indexing, IndexingConfig):
        raise ValueError(f"indexing must be an IndexingConfig or its dict, got {type(indexing).__name__}")
    if vocabulary is not None:
        vocabulary = [str(t) for t in vocabulary]
        if len(vocabulary) != int(model.n_features_in_):
            raise ValueError(f"vocabulary has {len(vocabulary)} terms but the model was fitted on "
                             f"{model.n_features_in_} columns")
        if len(set(vocabulary)) != len(vocabulary):
            raise ValueError("vocabulary holds a term twice")
    sel = getattr(model, "selected_features_", None)
    selected_terms = [vocabulary[int(j)] for j in sel] if (vocabulary is not None and sel is not None) else None
    class_name = all_params.get("class_name") if isinstance(all_params.get("class_name"), str) else None
    if label is not None and (class_name is None or class_name == "class"):
        class_name = f"{label}TOPIC"  # the thesis's naming (figs 4.1-4.4)
    settings = {k: all_params[k] for k in ("B", "alpha", "N0", "C", "k", "clustering", "n_restarts", "random_state",
                                          "n_features", "weights") if k in all_params and _is_json_param(all_params[k])}
    doc = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "created": created or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "library_versions": library_versions(),
        "learner": codec.name,
        "label": None if label is None else str(label),
        "class_name": class_name,
        "params": params,
        "settings": _plain(settings),
        "selected_terms": selected_terms,
        "pipeline": {"indexing": None if indexing is None else indexing.to_dict(), "vocabulary": vocabulary},
        "corpus": _corpus_info(corpus),
        "em": _em_summary(model),
        "provenance": _plain(provenance or {}),
        "state": state,
    }
    text = json.dumps(doc, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zi = zipfile.ZipInfo(JSON_MEMBER, date_time=_ZIP_DATE)
        zi.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(zi, text.encode("utf-8"))
        if w.arrays:
            npz = io.BytesIO()
            np.savez(npz, **w.arrays)
            zi = zipfile.ZipInfo(ARRAYS_MEMBER, date_time=_ZIP_DATE)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, npz.getvalue())
    return buf.getvalue()


def save_model(model, path, *, indexing=None, vocabulary=None, corpus=None, label=None, provenance=None) -> Path:
    """Write a fitted estimator to an hbnlab model file (a ZIP, suffix ``.hbnlab``).

    Parameters
    ----------
    model : fitted estimator of a registered learner, or a :class:`LoadedModel`
    path : str or Path
        Written atomically (a reader never sees half a file).
    indexing : IndexingConfig or dict, optional
        How texts were indexed; with ``vocabulary`` it lets the file classify raw text.
    vocabulary : sequence of str, optional
        The term of every input column (``len == model.n_features_in_``).
    corpus : Corpus or dict, optional
        The training corpus: its name, fingerprint and counts are recorded.
    label : str, optional
        The positive class (e.g. ``"trade"``).
    provenance : dict, optional
        Free-form JSON (command line, experiment, ...).

    Returns
    -------
    Path

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> from hbnlab.models.naive_bayes import BernoulliNBClassifier
    >>> nb = BernoulliNBClassifier().fit(np.array([[1, 0], [1, 1], [0, 1], [0, 0]]), [1, 1, 0, 0])
    >>> p = save_model(nb, os.path.join(tempfile.mkdtemp(), "nb.hbnlab"), vocabulary=["cat", "dog"])
    >>> m = load_model(p)
    >>> bool(np.array_equal(m.estimator.predict_proba(np.eye(2)), nb.predict_proba(np.eye(2))))
    True
    """
    from hbnlab.export.atomic import write_bytes_atomic

    data = model_to_bytes(model, indexing=indexing, vocabulary=vocabulary, corpus=corpus, label=label,
                          provenance=provenance)
    return write_bytes_atomic(Path(path), data)


# =========================================================================== load
_PICKLE_MAGIC = (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05")


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, source: str, limits: LoadLimits,
                 field: str | None = None) -> bytes:
    """Decompress one member, stopping as soon as it exceeds ``limit`` bytes (zip bombs)."""
    name = field or info.filename
    if info.flag_bits & 0x1:
        raise ModelFileError(source, name, "the member is encrypted")
    if info.file_size > limit:
        raise ModelFileError(source, name, f"declares {info.file_size} uncompressed bytes; the limit is {limit}")
    if info.file_size > 2**20 and info.file_size > limits.max_compression_ratio * max(info.compress_size, 1):
        raise ModelFileError(source, name, f"compression ratio {info.file_size / max(info.compress_size, 1):.0f} "
                                           f"exceeds {limits.max_compression_ratio:.0f} (a zip bomb?)")
    out = bytearray()
    try:
        with zf.open(info) as f:
            while True:
                chunk = f.read(min(1 << 20, limit + 1 - len(out)))
                if not chunk:
                    break
                out += chunk
                if len(out) > limit:
                    raise ModelFileError(source, name, f"decompresses to more than {limit} bytes (a zip bomb?)")
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError, ValueError) as e:
        raise ModelFileError(source, name, f"cannot be decompressed: truncated or corrupt ({e})") from None
    return bytes(out)


def _parse_npy(raw: bytes, key: str, source: str) -> np.ndarray:
    field = f"{ARRAYS_MEMBER}:{key}"
    f = io.BytesIO(raw)
    try:
        major, minor = np.lib.format.read_magic(f)
        if (major, minor) == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        elif (major, minor) == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise ValueError(f"unsupported .npy version {major}.{minor}")
    except ValueError as e:
        raise ModelFileError(source, field, f"not a valid .npy array ({e})") from None
    if dtype.hasobject:
        raise ModelFileError(source, field, "holds an object array (dtype=object), which only pickle can read; "
                                            "hbnlab model files hold plain numbers and never unpickle")
    if dtype.str not in ALLOWED_DTYPES:
        raise ModelFileError(source, field, f"dtype {dtype.str!r} is not allowed; expected one of "
                                            f"{sorted(ALLOWED_DTYPES.values())}")
    n = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
    if n * dtype.itemsize != len(raw) - f.tell():
        raise ModelFileError(source, field, f"header declares shape {shape} ({n * dtype.itemsize} bytes) but "
                                            f"{len(raw) - f.tell()} bytes follow (truncated or padded)")
    f.seek(0)
    try:
        return np.lib.format.read_array(f, allow_pickle=False)
    except ValueError as e:  # pragma: no cover - the checks above cover the known cases
        raise ModelFileError(source, field, f"cannot be read ({e})") from None


def _read_npz(raw: bytes, source: str, limits: LoadLimits) -> dict:
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
        infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise ModelFileError(source, ARRAYS_MEMBER, f"is not a valid .npz archive ({e})") from None
    if len(infos) > limits.max_arrays:
        raise ModelFileError(source, ARRAYS_MEMBER, f"holds {len(infos)} arrays; the limit is {limits.max_arrays}")
    arrays: dict = {}
    budget = limits.max_arrays_bytes
    for info in infos:
        if not info.filename.endswith(".npy") or info.is_dir():
            raise ModelFileError(source, ARRAYS_MEMBER, f"unexpected member {info.filename!r} (only .npy arrays)")
        key = info.filename[:-4]
        if key in arrays:
            raise ModelFileError(source, ARRAYS_MEMBER, f"array {key!r} appears twice")
        data = _read_member(zf, info, budget, source, limits, f"{ARRAYS_MEMBER}:{info.filename}")
        budget -= len(data)
        arrays[key] = _parse_npy(data, key, source)
    return arrays


def _check_header(doc, source: str):
    if not isinstance(doc, dict):
        raise ModelFileError(source, JSON_MEMBER, f"expected a JSON object, got {type(doc).__name__}")
    fmt = doc.get("format")
    if fmt != FORMAT_NAME:
        raise ModelFileError(source, "format", f"expected {FORMAT_NAME!r}, got {fmt!r}")
    ver = doc.get("format_version")
    if isinstance(ver, bool) or not isinstance(ver, int):
        raise ModelFileError(source, "format_version", f"expected an integer, got {ver!r}")
    if ver != FORMAT_VERSION:
        newer = " (written by a newer hbnlab; upgrade to read it)" if ver > FORMAT_VERSION else ""
        raise ModelFileError(source, "format_version",
                             f"version {ver} is not supported; this hbnlab reads version {FORMAT_VERSION}{newer}")
    learner = doc.get("learner")
    if not isinstance(learner, str) or learner not in REGISTRY:
        raise ModelFileError(source, "learner", f"unknown learner class {learner!r}; this hbnlab loads only "
                                                f"{sorted(REGISTRY)}")
    for key, kind in (("params", dict), ("state", dict)):
        if not isinstance(doc.get(key), kind):
            raise ModelFileError(source, key, f"expected a JSON object, got {type(doc.get(key)).__name__}")
    return REGISTRY[learner]


def _strict_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def load_model(source, *, limits: LoadLimits = DEFAULT_LIMITS, name: str | None = None) -> LoadedModel:
    """Read an hbnlab model file safely (see the module docstring for the checks).

    Parameters
    ----------
    source : str, Path or bytes
        A path, or the file's bytes (a workbench upload; ``name`` is then used in messages).
    limits : LoadLimits, optional

    Returns
    -------
    LoadedModel

    Raises
    ------
    ModelFileError
        Naming the file and the field at fault, for anything unexpected.
    """
    from hbnlab.text import IndexingConfig

    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        src = name or "<model bytes>"
        if len(data) > limits.max_file_bytes:
            raise ModelFileError(src, None, f"is {len(data)} bytes; the limit is {limits.max_file_bytes}")
    else:
        path = Path(source)
        src = name or str(path)
        try:
            size = path.stat().st_size
        except OSError as e:
            raise ModelFileError(src, None, f"cannot be read ({e.strerror or e})") from None
        if size > limits.max_file_bytes:
            raise ModelFileError(src, None, f"is {size} bytes; the limit is {limits.max_file_bytes}")
        data = path.read_bytes()
    if data[:2] in _PICKLE_MAGIC or data[:1] == b"\x80":
        raise ModelFileError(src, None, "is a Python pickle, not an hbnlab model file; hbnlab never unpickles "
                                        "(pickles can run code). Re-export the model with hbnlab.export.save_model")
    if not data.startswith(b"PK\x03\x04") and not data.startswith(b"PK\x05\x06"):
        raise ModelFileError(src, None, "is not an hbnlab model file (not a ZIP archive)")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
        raise ModelFileError(src, None, f"is truncated or corrupt: not a readable ZIP archive ({e})") from None
    names = [i.filename for i in infos]
    if len(names) != len(set(names)):
        raise ModelFileError(src, None, "the archive lists a member twice")
    unknown = sorted(set(names) - {JSON_MEMBER, ARRAYS_MEMBER})
    if unknown:
        raise ModelFileError(src, unknown[0], f"unexpected archive member; a model file holds only {JSON_MEMBER} "
                                              f"and {ARRAYS_MEMBER}")
    if JSON_MEMBER not in names:
        raise ModelFileError(src, JSON_MEMBER, "missing from the archive")
    by_name = {i.filename: i for i in infos}
    raw = _read_member(zf, by_name[JSON_MEMBER], limits.max_json_bytes, src, limits)
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=_strict_constant)
    except UnicodeDecodeError as e:
        raise ModelFileError(src, JSON_MEMBER, f"is not UTF-8 ({e})") from None
    except RecursionError:
        raise ModelFileError(src, JSON_MEMBER, "is nested too deeply") from None
    except ValueError as e:
        raise ModelFileError(src, JSON_MEMBER, f"is not valid JSON ({e})") from None
    if _json_depth(doc, limits.max_json_depth) > limits.max_json_depth:
        raise ModelFileError(src, JSON_MEMBER, f"is nested deeper than {limits.max_json_depth} levels")
    codec = _check_header(doc, src)
    arrays = {}
    if ARRAYS_MEMBER in by_name:
        arrays = _read_npz(_read_member(zf, by_name[ARRAYS_MEMBER], limits.max_arrays_bytes, src, limits), src,
                           limits)
    # hyper-parameters: only the learner's own, JSON values only
    allowed = set(_param_names(codec))
    params = doc["params"]
    for k, v in params.items():
        if k not in allowed:
            raise ModelFileError(src, f"params.{k}", f"is not a hyper-parameter of {codec.name}")
        if not _is_json_param(v):
            raise ModelFileError(src, f"params.{k}", f"unsupported value {v!r}"[:200])
    cls = codec.load_class()
    try:
        est = cls(**params)
    except (TypeError, ValueError) as e:
        raise ModelFileError(src, "params", str(e)) from None
    reader = StateReader(src, arrays, limits=limits)
    try:
        codec.from_state(est, doc["state"], reader)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, ZeroDivisionError,
            RecursionError) as e:
        raise ModelFileError(src, "state", f"malformed learned state ({type(e).__name__}: {e})") from None
    unused = sorted(set(arrays) - reader.used)
    if unused:
        raise ModelFileError(src, ARRAYS_MEMBER, f"array {unused[0]!r} is not referenced by the state")
    # the text pipeline
    pipe = doc.get("pipeline") or {}
    if not isinstance(pipe, dict):
        raise ModelFileError(src, "pipeline", "expected a JSON object")
    vocab = pipe.get("vocabulary")
    if vocab is not None:
        if not isinstance(vocab, list) or not all(isinstance(t, str) for t in vocab):
            raise ModelFileError(src, "pipeline.vocabulary", "expected a list of strings")
        if len(vocab) != int(est.n_features_in_):
            raise ModelFileError(src, "pipeline.vocabulary", f"has {len(vocab)} terms but the model reads "
                                                             f"{est.n_features_in_} columns")
        if len(set(vocab)) != len(vocab):
            raise ModelFileError(src, "pipeline.vocabulary", "holds a term twice")
        vocab = tuple(vocab)
    indexing = pipe.get("indexing")
    if indexing is not None:
        if not isinstance(indexing, dict):
            raise ModelFileError(src, "pipeline.indexing", "expected a JSON object")
        try:
            indexing = IndexingConfig.from_dict(indexing)
        except (TypeError, ValueError) as e:
            raise ModelFileError(src, "pipeline.indexing", str(e)) from None
    label = doc.get("label")
    if label is not None and not isinstance(label, str):
        raise ModelFileError(src, "label", f"expected a string or null, got {label!r}")
    corpus = doc.get("corpus")
    if corpus is not None and not isinstance(corpus, dict):
        raise ModelFileError(src, "corpus", "expected a JSON object or null")
    prov = doc.get("provenance") or {}
    if not isinstance(prov, dict):
        raise ModelFileError(src, "provenance", "expected a JSON object")
    meta = {k: v for k, v in doc.items() if k != "state"}
    pipeline = TextPipeline(est, indexing, vocab) if (vocab is not None and indexing is not None) else None
    return LoadedModel(estimator=est, learner=codec.name, label=label, vocabulary=vocab, indexing=indexing,
                       corpus=corpus, provenance=prov, metadata=meta, source=src, pipeline=pipeline)


__all__ = [
    "FORMAT_NAME", "FORMAT_VERSION", "MODEL_SUFFIX", "ModelFileError", "LoadLimits", "LearnerCodec", "REGISTRY",
    "register_learner", "codec_for", "StateWriter", "StateReader", "TextPipeline", "LoadedModel", "save_model",
    "load_model", "model_to_bytes", "read_tree_parameters", "library_versions",
]
