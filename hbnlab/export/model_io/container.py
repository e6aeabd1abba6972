"""The model-file container: writing a fitted estimator to a ZIP of ``model.json`` and
``arrays.npz``, and reading one back from untrusted bytes.

:func:`model_to_bytes` / :func:`save_model` write the archive with fixed member timestamps, so the
same model gives the same bytes (except the ``created`` field), and record the SHA-256 of each
member in the ZIP comment.  :func:`load_model` checks, in order: the file size, the ZIP structure
and member names, each member's declared and actual decompressed size and its compression ratio
(a zip bomb stops at the limit), the recorded SHA-256 (when present), the nesting depth of the
JSON text (on the bytes, before parsing), the JSON itself, the header (format, version, a
whitelisted learner), every ``.npy`` header before its data (never an object array, so never
pickle), the hyper-parameters, the learned state (through the learner's codec) and the text
pipeline; a file written by another hbnlab version is loaded with a logged note naming both
versions (:attr:`~hbnlab.export.model_io.pipeline.LoadedModel.version_note`).  Every problem is a
:class:`~hbnlab.export.model_io.spec.ModelFileError` naming the file and the field.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import logging
import re
import tokenize
import zipfile
import zlib
from pathlib import Path

import numpy as np

from hbnlab._validation import ZIP_OPEN_ERRORS, raw_json_depth
from hbnlab.export.model_io.codecs import LearnerCodec
from hbnlab.export.model_io.pipeline import LoadedModel, TextPipeline
from hbnlab.export.model_io.registry import REGISTRY, codec_for, resolved_params
from hbnlab.export.model_io.spec import (
    ALLOWED_DTYPES,
    ARRAYS_MEMBER,
    CHECKSUM_PREFIX,
    DEFAULT_LIMITS,
    FORMAT_MINOR,
    FORMAT_NAME,
    FORMAT_VERSION,
    JSON_MEMBER,
    LoadLimits,
    ModelFileError,
)
from hbnlab.export.model_io.state import (
    StateReader,
    StateWriter,
    is_json_param,
    json_depth,
    library_versions,
    plain_json,
)
from hbnlab.export.portable import strip_data_home

_log = logging.getLogger(__name__)
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed member timestamps: same model -> same bytes (but 'created')


def _param_names(codec: LearnerCodec) -> tuple:
    """The stored hyper-parameters (the codec's whitelist)."""
    return codec.params


# =========================================================================== save
def _corpus_info(corpus) -> dict | None:
    if corpus is None:
        return None
    if isinstance(corpus, dict):
        return plain_json(corpus)
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
        return plain_json({"best_restart": em.best_restart, "log_likelihood": em.log_likelihood,
                       "n_restarts": len(em.traces), "traces": [list(map(float, t)) for t in em.traces],
                       "n_iter": list(np.asarray(em.n_iter).tolist()), "converged": np.asarray(em.converged).tolist(),
                       "total_seconds": em.total_seconds})
    if hasattr(est, "n_iter_") and hasattr(est, "lower_bound_"):
        return plain_json({"n_iter": est.n_iter_, "converged": getattr(est, "converged_", None),
                       "log_likelihood": est.lower_bound_})
    return None


def model_to_bytes(model, *, indexing=None, vocabulary=None, corpus=None, label=None, provenance=None,
                   created: str | None = None) -> bytes:
    """The bytes of a model file (see :func:`save_model`)."""
    from sklearn.utils.validation import check_is_fitted

    from hbnlab.text import IndexingConfig

    loaded = isinstance(model, LoadedModel)
    if loaded:
        # what the loaded file's fit used, not what this version would resolve: None for a file of
        # format 1.0, which did not record it
        resolved = model.resolved_params
        indexing = model.indexing if indexing is None else indexing
        vocabulary = model.vocabulary if vocabulary is None else vocabulary
        corpus = model.corpus if corpus is None else corpus
        label = model.label if label is None else label
        provenance = model.provenance if provenance is None else provenance
        model = model.estimator
    codec = codec_for(model)
    check_is_fitted(model)
    if not loaded:
        resolved = resolved_params(model)
    all_params = model.get_params(deep=False)
    params = {}
    for name in _param_names(codec):
        v = all_params.get(name)
        if isinstance(v, tuple):
            v = list(v)
        if isinstance(v, np.generic):
            v = v.item()
        if not is_json_param(v):
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
                                          "n_features", "weights", "weighting")
                if k in all_params and is_json_param(all_params[k])}
    doc = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "format_minor": FORMAT_MINOR,
        "created": created or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "library_versions": library_versions(),
        "learner": codec.name,
        "label": None if label is None else str(label),
        "class_name": class_name,
        "params": params,
        "resolved_params": resolved,
        "settings": plain_json(settings),
        "selected_terms": selected_terms,
        "pipeline": {"indexing": None if indexing is None else indexing.to_dict(), "vocabulary": vocabulary},
        "corpus": strip_data_home(_corpus_info(corpus)),  # no path of this machine's data home in the file
        "em": _em_summary(model),
        "provenance": strip_data_home(plain_json(provenance or {})),
        "state": state,
    }
    members = {JSON_MEMBER: json.dumps(doc, allow_nan=False, ensure_ascii=False, separators=(",", ":")).encode()}
    if w.arrays:
        npz = io.BytesIO()
        np.savez(npz, **w.arrays)
        members[ARRAYS_MEMBER] = npz.getvalue()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for member, payload in members.items():
            zi = zipfile.ZipInfo(member, date_time=_ZIP_DATE)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, payload)
        zf.comment = " ".join([CHECKSUM_PREFIX] + [f"{m}={hashlib.sha256(b).hexdigest()}"
                                                   for m, b in members.items()]).encode("ascii")
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
        Free-form JSON (command line, experiment, ...).  Here and in ``corpus``, paths in the data
        home are written relative to it (:func:`hbnlab.export.portable.strip_data_home`).

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
    # zipfile raises NotImplementedError for a member whose compression method it does not support
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
    # numpy parses the header dict with tokenize and ast.literal_eval: a malformed one raises
    # any of these, a deeply nested one RecursionError or MemoryError
    except (ValueError, SyntaxError, TypeError, KeyError, OverflowError, tokenize.TokenError, RecursionError,
            MemoryError) as e:
        raise ModelFileError(source, field, f"not a valid .npy array: malformed header "
                                            f"({type(e).__name__}: {str(e)[:200]})") from None
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
    except ZIP_OPEN_ERRORS as e:
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
    minor = doc.get("format_minor", 0)  # absent: a file written before format 1.1
    if isinstance(minor, bool) or not isinstance(minor, int) or minor < 0:
        raise ModelFileError(source, "format_minor", f"expected a non-negative integer, got {minor!r}")
    learner = doc.get("learner")
    if not isinstance(learner, str) or learner not in REGISTRY:
        raise ModelFileError(source, "learner", f"unknown learner class {learner!r}; this hbnlab loads only "
                                                f"{sorted(REGISTRY)}")
    for key, kind in (("params", dict), ("state", dict)):
        if not isinstance(doc.get(key), kind):
            raise ModelFileError(source, key, f"expected a JSON object, got {type(doc.get(key)).__name__}")
    if not isinstance(doc.get("resolved_params"), (dict, type(None))):  # informational; absent before 1.1
        raise ModelFileError(source, "resolved_params", "expected a JSON object or null")
    return REGISTRY[learner]


_CHECKSUM = re.compile(r"([A-Za-z0-9_.]+)=([0-9a-f]{64})")
def recorded_checksums(zf: zipfile.ZipFile, source: str) -> dict[str, str] | None:
    """``{member: sha256 hex}`` from the archive comment, or None for a file written before
    hbnlab recorded them (format 1 files without the comment still load)."""
    comment = zf.comment.decode("ascii", "replace")
    if not comment.startswith(CHECKSUM_PREFIX):
        return None
    sums = dict(_CHECKSUM.findall(comment))
    if not sums or comment.split()[1:] != [f"{k}={v}" for k, v in sums.items()]:
        raise ModelFileError(source, None, f"the archive comment {comment[:120]!r} is not a valid "
                                           f"'{CHECKSUM_PREFIX} MEMBER=SHA256 ...' list")
    return sums


def _check_sum(sums: dict | None, member: str, data: bytes, source: str) -> None:
    if sums is None:
        return
    if member not in sums:
        raise ModelFileError(source, member, "has no SHA-256 in the archive comment")
    if hashlib.sha256(data).hexdigest() != sums[member]:
        raise ModelFileError(source, member, "SHA-256 differs from the one recorded when the file was written: "
                                             "the file was damaged or edited")


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
    src = name or ("<model bytes>" if isinstance(source, (bytes, bytearray, memoryview)) else str(source))
    try:
        return _load_model(source, limits, src)
    except (RecursionError, MemoryError) as e:  # what no limit above catches still names the file
        raise ModelFileError(src, None, f"cannot be loaded: {type(e).__name__} (nested too deeply or too large "
                                        f"for this machine)") from None


def _load_model(source, limits: LoadLimits, src: str) -> LoadedModel:
    from hbnlab.text import IndexingConfig

    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if len(data) > limits.max_file_bytes:
            raise ModelFileError(src, None, f"is {len(data)} bytes; the limit is {limits.max_file_bytes}")
    else:
        path = Path(source)
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
    except ZIP_OPEN_ERRORS as e:
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
    sums = recorded_checksums(zf, src)
    raw = _read_member(zf, by_name[JSON_MEMBER], limits.max_json_bytes, src, limits)
    _check_sum(sums, JSON_MEMBER, raw, src)
    if raw_json_depth(raw) > limits.max_json_depth:
        raise ModelFileError(src, JSON_MEMBER, f"is nested deeper than {limits.max_json_depth} levels")
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=_strict_constant)
    except UnicodeDecodeError as e:
        raise ModelFileError(src, JSON_MEMBER, f"is not UTF-8 ({e})") from None
    except RecursionError:
        raise ModelFileError(src, JSON_MEMBER, "is nested too deeply") from None
    except ValueError as e:
        raise ModelFileError(src, JSON_MEMBER, f"is not valid JSON ({e})") from None
    if json_depth(doc, limits.max_json_depth) > limits.max_json_depth:
        raise ModelFileError(src, JSON_MEMBER, f"is nested deeper than {limits.max_json_depth} levels")
    codec = _check_header(doc, src)
    arrays = {}
    if ARRAYS_MEMBER in by_name:
        npz = _read_member(zf, by_name[ARRAYS_MEMBER], limits.max_arrays_bytes, src, limits)
        _check_sum(sums, ARRAYS_MEMBER, npz, src)
        arrays = _read_npz(npz, src, limits)
    # hyper-parameters: only the learner's own, JSON values only
    allowed = set(_param_names(codec))
    params = doc["params"]
    for k, v in params.items():
        if k not in allowed:
            raise ModelFileError(src, f"params.{k}", f"is not a hyper-parameter of {codec.name}")
        if not is_json_param(v):
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
    loaded = LoadedModel(estimator=est, learner=codec.name, label=label, vocabulary=vocab, indexing=indexing,
                         corpus=corpus, provenance=prov, metadata=meta, source=src, pipeline=pipeline)
    if loaded.version_note:
        _log.warning(loaded.version_note)
    return loaded
