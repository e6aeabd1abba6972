"""Checks and errors shared by every part of hbnlab.

Everything at hbnlab's boundary that validates input lives here once, so that a bad value gets the
same message wherever it enters:

* :class:`HbnlabError` is the root of every error hbnlab raises on purpose.  The specific errors
  (``CorpusError``, ``ModelFileError``, ``StructureError``, ...) also derive from the built-in
  class that describes them (``ValueError``, ``RuntimeError``), so ``except ValueError`` keeps
  working for callers who do not know hbnlab's classes.
* :class:`Cancelled` is the one exception of a cooperative cancellation: a ``should_stop``
  callback returned true inside an EM loop, a fit or a background job.
* :func:`as_binary` turns a term matrix (counts or 0/1, dense or sparse) into a sparse 0/1
  matrix; :func:`check_y01` checks a binary label vector; :func:`check_branching_factor` checks
  the branching factor B of a tree.
* :func:`raw_json_depth` measures the nesting of untrusted JSON text before it is parsed (model
  files, JSONL uploads); :data:`ZIP_OPEN_ERRORS` are what opening a damaged ZIP archive raises
  (model files, ZIP uploads).

This module imports nothing from hbnlab: every other module may import it.
"""
from __future__ import annotations

import numbers
import zipfile

import numpy as np
import scipy.sparse as sp

__all__ = ["HbnlabError", "Cancelled", "as_binary", "as_count_matrix", "check_y01", "check_branching_factor",
           "raw_json_depth",
           "ZIP_OPEN_ERRORS"]

#: What ``zipfile.ZipFile`` and ``infolist`` raise on a damaged archive: besides ``BadZipFile``,
#: ``EOFError`` / ``OSError`` / ``ValueError`` for cut or inconsistent records, ``LargeZipFile`` for
#: ZIP64 records, and the directory entry that asks for a later ZIP version to extract.
ZIP_OPEN_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, NotImplementedError)


class HbnlabError(Exception):
    """Root of every error hbnlab raises deliberately (bad input, bad files, failed jobs)."""


class Cancelled(HbnlabError):
    """A ``should_stop()`` callback returned true: EM, a fit or a job stopped early on request."""


def as_binary(X, *, fmt: str = "csr", name: str = "X") -> sp.spmatrix:
    """The 0/1 presence matrix of a term matrix, as a float64 sparse matrix.

    A term is present in a document when its entry is positive.  ``X`` may hold term counts or
    0/1 indicators (dense, sparse or boolean); negative or non-finite entries are refused, since
    neither a count nor an indicator can be negative.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_documents, n_terms)
    fmt : {"csr", "csc"}, default "csr"
        Storage of the result; indices are sorted and explicit zeros removed.
    name : str, default "X"
        The name used in error messages.

    Returns
    -------
    scipy.sparse.csr_matrix or csc_matrix
        float64 entries, all equal to 1.

    Examples
    --------
    >>> as_binary([[0, 3], [1, 0]]).toarray()
    array([[0., 1.],
           [1., 0.]])
    """
    if fmt not in ("csr", "csc"):
        raise ValueError(f"fmt must be 'csr' or 'csc', got {fmt!r}")
    if sp.issparse(X):
        M = X.tocsr() if fmt == "csr" else X.tocsc()
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(f"{name} must be a 2-D term matrix (n_documents, n_terms), got shape {arr.shape}")
        if arr.dtype == object:
            raise ValueError(f"{name} must hold numbers (term counts or 0/1 indicators), got dtype object")
        M = sp.csr_matrix(arr) if fmt == "csr" else sp.csc_matrix(arr)
    data = M.data
    if data.size:
        if data.dtype == bool:
            data = data.astype(np.float64)
        if not np.all(np.isfinite(data)):
            raise ValueError(f"{name} holds NaN or infinite values; expected term counts or 0/1 indicators")
        if data.min() < 0:
            raise ValueError(f"{name} holds negative values (min {data.min():g}); expected term counts or 0/1 "
                             "indicators")
    out = M.astype(np.float64, copy=True)
    out.sum_duplicates()
    out.eliminate_zeros()
    out.data[:] = 1.0
    out.sort_indices()
    return out


def as_count_matrix(X, who: str = "X") -> sp.csr_matrix:
    """``X`` as a float64 CSR matrix of non-negative finite term counts (or 0/1 indicators).

    Raises ``ValueError`` naming the problem (shape, NaN/inf, a negative count and where).
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
    else:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"{who} must be a 2-D term matrix (n_documents, n_terms), got shape {X.shape}")
        X = sp.csr_matrix(X)
    if X.shape[1] == 0:
        raise ValueError(f"{who} has 0 feature columns; at least 1 is required")
    if X.shape[0] == 0:
        raise ValueError(f"{who} has 0 rows (documents); at least 1 is required")
    if X.data.size:
        if not np.all(np.isfinite(X.data)):
            raise ValueError(f"{who} holds NaN or infinite values; term counts must be finite")
        if X.data.min() < 0:
            X.sum_duplicates()
            bad = int(np.argmin(X.data))
            row = int(np.searchsorted(X.indptr, bad, side="right") - 1)
            raise ValueError(f"Negative values in data: {who} must hold non-negative term counts, "
                             f"got {X.data[bad]:g} at row {row}, column {int(X.indices[bad])}")
    return X


def check_y01(y, n_samples: int | None = None, *, name: str = "y") -> np.ndarray:
    """A 1-D vector of binary labels (0/1 or booleans) as ``int8``.

    Raises ``ValueError`` naming the bad shape, length or values.

    >>> check_y01([1, 0, True])
    array([1, 0, 1], dtype=int8)
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector of 0/1 labels, got shape {arr.shape}")
    if n_samples is not None and arr.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} rows but {name} has {arr.shape[0]} labels")
    if arr.dtype == object:
        raise ValueError(f"{name} must hold 0/1 labels, got dtype object")
    values = np.unique(arr)
    if not set(values.tolist()) <= {0, 1}:
        raise ValueError(f"{name} must hold binary labels 0/1, got values {values[:5].tolist()}")
    return arr.astype(np.int8)


def check_branching_factor(B, *, minimum: int = 2, name: str = "branching factor B") -> int:
    """``B`` as an ``int`` after checking it is an integer ``>= minimum``.

    The tree of an HBN/HNB classifier needs B >= 2 (a hidden node with a single child adds
    nothing); a single clustering step may ask for one cluster (``minimum=1``).

    >>> check_branching_factor(7)
    7
    >>> check_branching_factor(1)
    Traceback (most recent call last):
    ...
    ValueError: branching factor B must be an integer >= 2, got 1
    """
    if isinstance(B, bool) or not isinstance(B, numbers.Integral) or B < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {B!r}")
    return int(B)


_BRACKET = np.zeros(256, dtype=np.int8)
_BRACKET[[ord("["), ord("{")]] = 1
_BRACKET[[ord("]"), ord("}")]] = -1


def raw_json_depth(raw: bytes) -> int:
    """Nesting depth of JSON text (how many arrays / objects enclose the deepest value), counted on
    the bytes without parsing them: vectorised, a few tens of milliseconds per MiB, and no Python
    object per value.

    Escaped backslashes and quotes are dropped, then a byte lies inside a string when an odd
    number of quotes precede it; brackets outside strings are summed.

    Examples
    --------
    >>> raw_json_depth(b'{"a": [1, {"b": "[[\\\\\\"[["}]}')
    3
    """
    a = np.frombuffer(raw.replace(b"\\\\", b"").replace(b'\\"', b""), dtype=np.uint8)
    # the parity of the quotes seen so far (uint8 wraps at 256, which keeps the parity)
    outside = (np.cumsum((a == ord('"')).view(np.uint8), dtype=np.uint8) & 1) == 0
    return int(np.cumsum(_BRACKET[a] * outside, dtype=np.int32).max(initial=0))
