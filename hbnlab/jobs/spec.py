"""The job specification: what to run, with which parameters, for whom.

A :class:`JobSpec` is a frozen, picklable, versioned value.  It crosses process and machine
boundaries (the run registry stores it as JSON, the Dask runner pickles it), so every field is
plain JSON data and the task code is named, not referenced: ``kind`` is a task name registered
with :func:`hbnlab.jobs.register_task` in the module ``module``, which worker processes import.
"""
from __future__ import annotations

import json
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from hbnlab._validation import HbnlabError

__all__ = ["JobSpec", "SPEC_VERSION", "SpecError", "canonical_json"]

#: Version of the serialized form written by :meth:`JobSpec.to_dict`.  Bump it when a field
#: changes meaning; :meth:`JobSpec.from_dict` upgrades older versions and refuses newer ones.
SPEC_VERSION = 1


class SpecError(HbnlabError, ValueError):
    """A job specification is malformed; the message names the bad field and value."""


def check_json(value: Any, where: str) -> Any:
    """Return a canonical JSON copy of ``value`` (tuples become lists, keys must be str).

    NaN and infinities are refused (they are not JSON), as are non-string keys, so a value
    that passes survives ``json.loads(json.dumps(v)) == v``.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if getattr(value, "shape", None) == () and hasattr(value, "item"):  # numpy scalar
        return check_json(value.item(), where)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        if not math.isfinite(value):
            raise SpecError(f"{where} must be finite JSON numbers, got {value!r}")
        return value
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise SpecError(f"{where} keys must be strings, got {key!r} ({type(key).__name__})")
            out[key] = check_json(item, f"{where}[{key!r}]")
        return out
    if isinstance(value, (list, tuple)):
        return [check_json(item, f"{where}[{i}]") for i, item in enumerate(value)]
    raise SpecError(
        f"{where} must be JSON data (dict, list, str, int, float, bool, None), "
        f"got {type(value).__name__}: {value!r:.80}"
    )


def canonical_json(value: Any, where: str = "value") -> str:
    """Serialize JSON data deterministically (sorted keys, no NaN); raise :class:`SpecError`."""
    return json.dumps(check_json(value, where), sort_keys=True, allow_nan=False,
                      separators=(",", ":"))


@dataclass(frozen=True)
class JobSpec:
    """A background job: a named task, its JSON parameters, a label and a group.

    Parameters
    ----------
    kind : str
        Task name, as registered with :func:`hbnlab.jobs.register_task`.
    params : dict
        JSON-able parameters handed to the task (copied; tuples become lists).
    label : str, default ""
        Human text shown in job tables.
    group : str, default "default"
        Owner of the job: a sweep id, a browser session id.  Listing and cancelling by group
        never touches another group's jobs.
    random_state : int or None, default None
        Seed for every random choice the task makes (``ctx.random_state``).
    module : str or None, default None
        Importable module that registers ``kind``; worker processes import it before looking
        the task up.  ``None`` is filled in by the runner from the task registry of the
        submitting process.
    inputs : tuple of str, default ()
        Names of shared inputs (see ``Runner.share``) the task reads from ``ctx.shared``;
        they are shipped once per worker, not once per job.
    spec_version : int
        Version of the serialized form; leave at the default.

    Examples
    --------
    >>> spec = JobSpec("count", {"n": 3}, label="demo", group="s1", random_state=0)
    >>> JobSpec.from_dict(spec.to_dict()) == spec
    True
    """

    kind: str
    params: dict = field(default_factory=dict)
    label: str = ""
    group: str = "default"
    random_state: int | None = None
    module: str | None = None
    inputs: tuple = ()
    spec_version: int = SPEC_VERSION

    def __post_init__(self):
        if not isinstance(self.kind, str) or not self.kind.strip():
            raise SpecError(f"kind must be a non-empty task name, got {self.kind!r}")
        if not isinstance(self.params, Mapping):
            raise SpecError(f"params must be a dict of JSON data, got {type(self.params).__name__}")
        object.__setattr__(self, "params", check_json(dict(self.params), "params"))
        if not isinstance(self.label, str):
            raise SpecError(f"label must be a str, got {self.label!r}")
        if not isinstance(self.group, str) or not self.group:
            raise SpecError(f"group must be a non-empty str, got {self.group!r}")
        rs = self.random_state
        if rs is not None and (isinstance(rs, bool) or not isinstance(rs, numbers.Integral)):
            raise SpecError(f"random_state must be an int or None, got {rs!r}")
        if rs is not None:
            object.__setattr__(self, "random_state", int(rs))
        if self.module is not None and (not isinstance(self.module, str) or not self.module):
            raise SpecError(f"module must be an importable module name or None, got {self.module!r}")
        inputs = self.inputs
        if isinstance(inputs, str) or not all(isinstance(n, str) and n for n in inputs):
            raise SpecError(f"inputs must be a tuple of non-empty names, got {inputs!r}")
        object.__setattr__(self, "inputs", tuple(inputs))
        if self.spec_version != SPEC_VERSION:
            raise SpecError(
                f"spec_version must be {SPEC_VERSION} for a new JobSpec, got {self.spec_version!r} "
                "(use JobSpec.from_dict to read older versions)"
            )

    def __hash__(self):
        return hash(self.to_json())

    def to_dict(self) -> dict:
        """Plain JSON data, including ``spec_version``."""
        return {
            "spec_version": self.spec_version,
            "kind": self.kind,
            "params": json.loads(json.dumps(self.params)),
            "label": self.label,
            "group": self.group,
            "random_state": self.random_state,
            "module": self.module,
            "inputs": list(self.inputs),
        }

    def to_json(self) -> str:
        """Deterministic JSON text of :meth:`to_dict` (sorted keys)."""
        return canonical_json(self.to_dict(), "spec")

    @classmethod
    def from_dict(cls, data: Mapping) -> JobSpec:
        """Rebuild a spec from :meth:`to_dict` output, upgrading older versions.

        Raises
        ------
        SpecError
            When ``spec_version`` is newer than this hbnlab understands, or a field is unknown
            or malformed.
        """
        if not isinstance(data, Mapping):
            raise SpecError(f"a job spec must be a dict, got {type(data).__name__}")
        data = dict(data)
        version = data.pop("spec_version", 1)
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise SpecError(f"spec_version must be a positive int, got {version!r}")
        if version > SPEC_VERSION:
            raise SpecError(
                f"spec_version {version} is newer than this hbnlab understands ({SPEC_VERSION}); "
                "upgrade hbnlab to read this job"
            )
        # Upgrades from older versions go here, one step at a time (none yet: version 1 is
        # the first).
        known = {f.name for f in fields(cls)} - {"spec_version"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SpecError(f"unknown job spec field(s) {unknown}; known: {sorted(known)}")
        if "kind" not in data:
            raise SpecError("a job spec needs a 'kind' (task name)")
        if "inputs" in data and isinstance(data["inputs"], list):
            data["inputs"] = tuple(data["inputs"])
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> JobSpec:
        """Inverse of :meth:`to_json`."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SpecError(f"job spec is not valid JSON: {exc}") from None
        return cls.from_dict(data)
