"""JSON values and typed state access of model files.

* :func:`plain_json` turns a learner's attributes into JSON values; :func:`is_json_param` says
  whether a hyper-parameter can be stored; :func:`json_depth` measures a parsed document;
* :class:`StateWriter` collects the arrays of a learner's state and returns the
  ``{"$array": KEY, "dtype": ..., "shape": [...]}`` references that stand for them in
  ``model.json``;
* :class:`StateReader` reads a state back with every value checked (type, range, dtype, shape,
  finiteness, rows of probability tables summing to one), each error a
  :class:`~hbnlab.export.model_io.spec.ModelFileError` naming the file and the field.
"""
from __future__ import annotations

import math
import platform

import numpy as np

from hbnlab.export.model_io.spec import ALLOWED_DTYPES, ARRAYS_MEMBER, DEFAULT_LIMITS, LoadLimits, ModelFileError


# =========================================================================== JSON helpers
def plain_json(obj, path: str = ""):
    """JSON-able copy: numpy scalars to Python, tuples to lists, non-finite floats to None."""
    if isinstance(obj, dict):
        return {str(k): plain_json(v, f"{path}.{k}") for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain_json(v, path) for v in obj]
    if isinstance(obj, np.ndarray):
        return plain_json(obj.tolist(), path)
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


def json_depth(obj, limit: int) -> int:
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
    """Versions of hbnlab, Python, NumPy, SciPy and scikit-learn (recorded in model files and reports)."""
    import scipy
    import sklearn

    import hbnlab

    return {"hbnlab": hbnlab.__version__, "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "scikit-learn": sklearn.__version__}


def is_json_param(v) -> bool:
    """A hyper-parameter value a model file can hold: null, a boolean, an integer, a string, a finite
    float, or a flat list of these."""
    if v is None or isinstance(v, (bool, int, str)):
        return True
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, list):
        return len(v) <= 1_000_000 and all(is_json_param(x) and not isinstance(x, (list, dict)) for x in v)
    return False


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

    def __init__(self, source: str, arrays: dict, prefix: str = "state", limits: LoadLimits | None = None):
        self.source = source
        self._arrays = arrays
        self.prefix = prefix
        self.used: set = set()
        self.limits = limits or DEFAULT_LIMITS

    def error(self, field: str, message: str) -> ModelFileError:
        return ModelFileError(self.source, f"{self.prefix}.{field}" if field else self.prefix, message)

    def sub(self, name: str) -> StateReader:
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
