"""Experiment manifests: one JSON file that holds everything needed to rerun an experiment.

A manifest names the corpus (the synthetic generator with its seed and size, Reuters-21578
ModApte, or a corpus file / folder) and its fingerprint, the indexing settings, the categories,
the classifiers with their parameters, the number of selected features, the selection method,
the random state and the split (thesis ch. 4: ``"test"`` trains on the training set and
scores the test set, ``"validation"`` trains on training-0 and scores the validation split).
:func:`run_manifest` runs it and returns an :class:`~hbnlab.export.report.ExperimentResult`;
running the same manifest twice on the same machine gives the same scores to the last digit
(every random choice is seeded by ``random_state``; nothing depends on the wall clock or on
the order of parallel work).

Example manifest (``hbnlab run manifest.json``)::

    {
      "format": "hbnlab-experiment-manifest", "format_version": 1,
      "name": "synthetic smoke test",
      "corpus": {"kind": "synthetic", "seed": 0, "size": 800},
      "indexing": {"stopwords": "thesis", "stemming": null, "min_df": 2},
      "categories": null, "n_categories": 3,
      "classifiers": [{"name": "NB"}, {"name": "HBN-OR", "params": {"n_restarts": 4}}],
      "n_features": 30, "selection": "ig", "random_state": 0, "stage": "test"
    }
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hbnlab._validation import HbnlabError
from hbnlab.corpus import CorpusError
from hbnlab.corpus.encoding import check_encoding
from hbnlab.experiments import paper_values as pv
from hbnlab.experiments.thesis import thesis_values_apply
from hbnlab.export.model_io import resolved_params
from hbnlab.export.report import ExperimentResult
from hbnlab.models.catalog import learner_names
from hbnlab.pipeline.corpus_spec import load_named_corpus
from hbnlab.pipeline.fit import em_traces, fit_unit
from hbnlab.pipeline.store import prepare_cached
from hbnlab.text.newsgroup import newsgroup_parts

MANIFEST_FORMAT = "hbnlab-experiment-manifest"
MANIFEST_VERSION = 1
CORPUS_KINDS = ("synthetic", "synthetic-hierarchy", "reuters", "path")
STAGES = ("test", "validation")


class ManifestError(HbnlabError, ValueError):
    """A manifest is malformed or does not match its corpus; the message names the field."""

    def __init__(self, field: str, message: str, source: str | None = None):
        self.field = field
        where = f"{source}: " if source else ""
        super().__init__(f"{where}manifest field {field!r}: {message}")


def known_classifiers() -> list[str]:
    """Learner names a manifest may use (those of :mod:`hbnlab.models.catalog`)."""
    return learner_names()


def _check_int(v, fld, lo=None, allow_none=False):
    if v is None and allow_none:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise ManifestError(fld, f"expected an integer, got {v!r}")
    if lo is not None and v < lo:
        raise ManifestError(fld, f"must be >= {lo}, got {v}")
    return int(v)


def _check_keys(d, fld, allowed):
    if not isinstance(d, dict):
        raise ManifestError(fld, f"expected a JSON object, got {type(d).__name__}")
    unknown = sorted(set(d) - set(allowed))
    if unknown:
        raise ManifestError(f"{fld}.{unknown[0]}" if fld else unknown[0],
                            f"unknown field; expected a subset of {sorted(allowed)}")


def _json_value(v, fld):
    """JSON scalars and lists of them (classifier parameters)."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if not np.isfinite(v):
            raise ManifestError(fld, f"must be finite, got {v}")
        return v
    if isinstance(v, (list, tuple)):
        return [_json_value(x, f"{fld}[{i}]") for i, x in enumerate(v)]
    raise ManifestError(fld, f"unsupported value {v!r} (numbers, strings, booleans, null and lists only)")


#: The keys of a manifest's ``corpus.table`` (the table reader's column options).
TABLE_OPTIONS = ("text_column", "labels_column", "id_column", "split_column", "title_column", "label_sep")


# =========================================================================== parts
@dataclass(frozen=True)
class CorpusSpec:
    """Which corpus: ``synthetic`` or ``synthetic-hierarchy`` (``seed``, ``size``; the latter's
    categories form a topic taxonomy), ``reuters`` (``path`` = the
    Reuters-21578 directory, else ``$HBNLAB_REUTERS_DIR``) or ``path`` (a corpus file or folder
    read by :func:`hbnlab.corpus.load_corpus` with ``encoding``: ``"auto"`` or a codec name;
    written to the manifest only when it is not ``"auto"``; ``"TRAIN,TEST"`` names two table
    files split by their names).  ``table``: the table reader's column options
    (:data:`TABLE_OPTIONS`, e.g. ``{"labels_column": "category"}``); a table's ``split`` and
    ``id`` columns are read when present.  ``strip``: the newsgroup parts removed from the texts
    of a ``reuters`` or ``path`` corpus (``["headers", "quotes", "signature"]`` or some of them,
    :func:`hbnlab.text.newsgroup.strip_newsgroup`); written to the manifest only when not empty."""

    kind: str = "synthetic"
    seed: int = 0
    size: int = 3000
    path: str | None = None
    encoding: str = "auto"
    table: dict = field(default_factory=dict)
    strip: tuple = ()

    def __post_init__(self):
        try:
            object.__setattr__(self, "strip", newsgroup_parts(self.strip))
        except ValueError as e:
            raise ManifestError("corpus.strip", str(e)) from None
        if self.strip and self.kind in ("synthetic", "synthetic-hierarchy"):
            raise ManifestError("corpus.strip", f"newsgroup stripping applies to read texts, not to a corpus of kind "
                                                f"{self.kind!r}")
        if self.kind not in CORPUS_KINDS:
            raise ManifestError("corpus.kind", f"must be one of {CORPUS_KINDS}, got {self.kind!r}")
        _check_int(self.seed, "corpus.seed", lo=0)
        _check_int(self.size, "corpus.size", lo=8)
        if self.kind == "path" and not self.path:
            raise ManifestError("corpus.path", "a corpus of kind 'path' needs a path")
        if self.path is not None and not isinstance(self.path, str):
            raise ManifestError("corpus.path", f"expected a string, got {self.path!r}")
        if not isinstance(self.table, dict):
            raise ManifestError("corpus.table", f"expected an object of column options, got {self.table!r}")
        _check_keys(self.table, "corpus.table", TABLE_OPTIONS)
        for k, v in self.table.items():
            if not isinstance(v, str):
                raise ManifestError(f"corpus.table.{k}", f"expected a string, got {v!r}")
        if self.table and self.kind != "path":
            raise ManifestError("corpus.table", f"column options apply to a corpus of kind 'path', not {self.kind!r}")
        try:
            check_encoding(self.encoding, "corpus.encoding")
        except CorpusError as e:
            raise ManifestError("corpus.encoding", e.message) from None

    def to_dict(self) -> dict:
        if self.kind in ("synthetic", "synthetic-hierarchy"):
            return {"kind": self.kind, "seed": self.seed, "size": self.size}
        d = {"kind": self.kind, "path": self.path}
        if self.kind == "path" and self.encoding != "auto":
            d["encoding"] = self.encoding
        if self.table:
            d["table"] = dict(self.table)
        if self.strip:
            d["strip"] = list(self.strip)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> CorpusSpec:
        _check_keys(d, "corpus", ("kind", "seed", "size", "path", "encoding", "table", "strip"))
        strip = d.get("strip") or ()
        if not isinstance(strip, (list, tuple)):
            raise ManifestError("corpus.strip", f"expected a list of parts (headers, quotes, signature), got {strip!r}")
        return cls(kind=d.get("kind", "synthetic"), seed=d.get("seed", 0), size=d.get("size", 3000),
                   path=d.get("path"), encoding=d.get("encoding", "auto"), table=d.get("table") or {},
                   strip=tuple(strip))

    def load(self):
        """The :class:`~hbnlab.corpus.Corpus` this spec names (a ``reuters`` spec without a path
        reads ``$HBNLAB_REUTERS_DIR`` or the verified download cache; it never downloads)."""
        if self.kind in ("synthetic", "synthetic-hierarchy"):
            return load_named_corpus(self.kind, seed=self.seed, size=self.size)
        if self.kind == "reuters":
            try:
                return load_named_corpus("reuters", reuters_dir=self.path, download=False, strip=self.strip)
            except CorpusError as e:
                raise ManifestError("corpus.path", f"no Reuters-21578 directory: give corpus.path or set "
                                                   f"$HBNLAB_REUTERS_DIR ({e})") from None
        return load_named_corpus(self.path, encoding=self.encoding, table=self.table, strip=self.strip)


@dataclass(frozen=True)
class ClassifierSpec:
    """One classifier row: a row name (``NB``, ``SVM``, ``HBN-OR``, ``KDB``, ...), its parameters
    and optionally its own number of features and display name."""

    name: str
    params: dict = field(default_factory=dict)
    n_features: int | None = None
    display: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "params", dict(self.params))

    def display_name(self, default_n_features: int) -> str:
        if self.display:
            return self.display
        return f"{self.name} ({self.n_features or default_n_features})"

    def to_dict(self) -> dict:
        d = {"name": self.name, "params": dict(self.params)}
        if self.n_features is not None:
            d["n_features"] = self.n_features
        if self.display is not None:
            d["display"] = self.display
        return d

    @classmethod
    def from_dict(cls, d, fld: str) -> ClassifierSpec:
        if isinstance(d, str):
            d = {"name": d}
        _check_keys(d, fld, ("name", "params", "n_features", "display"))
        name = d.get("name")
        known = known_classifiers()
        if not isinstance(name, str) or name.upper() not in known:
            raise ManifestError(f"{fld}.name", f"unknown classifier {name!r}; expected one of {known}")
        params = d.get("params") or {}
        if not isinstance(params, dict):
            raise ManifestError(f"{fld}.params", "expected a JSON object")
        for k in params:
            if k in ("progress", "should_stop", "n_features", "random_state"):
                raise ManifestError(f"{fld}.params.{k}", "is set by the manifest itself, not per classifier")
        params = {str(k): _json_value(v, f"{fld}.params.{k}") for k, v in params.items()}
        disp = d.get("display")
        if disp is not None and not isinstance(disp, str):
            raise ManifestError(f"{fld}.display", f"expected a string, got {disp!r}")
        return cls(name=name.upper(), params=params,
                   n_features=_check_int(d.get("n_features"), f"{fld}.n_features", lo=1, allow_none=True),
                   display=disp)


# =========================================================================== the manifest
@dataclass(frozen=True)
class ExperimentManifest:
    """Everything needed to rerun an experiment (see the module docstring).

    Parameters
    ----------
    corpus : CorpusSpec
    classifiers : tuple of ClassifierSpec
    indexing : IndexingConfig
    categories : tuple of str or None
        None: the ``n_categories`` most frequent with training and test documents.
    n_categories : int
    n_features : int
        Features selected per class (thesis sec. 4.1.2, local selection on the whole training set).
    selection : str
        Term scoring method (:func:`hbnlab.features.score_terms`), default information gain.
    random_state : int
    stage : {"test", "validation"}
    validation : {"auto", "date", "stratified"}
        The validation split of ``stage="validation"``
        (:func:`hbnlab.corpus.splits.validation_folds`; "auto": by date when every training
        document is dated, else stratified, seeded by ``random_state``).
    cv : int
        0: that split; K >= 2: K-fold cross-validation (scores pooled over the folds).
    fingerprint : str or None
        The corpus's :meth:`~hbnlab.corpus.Corpus.fingerprint`; when set, :func:`run_manifest`
        refuses a corpus that differs.
    name : str
    """

    corpus: CorpusSpec
    classifiers: tuple
    indexing: object = None
    categories: tuple | None = None
    n_categories: int = 10
    n_features: int = 30
    selection: str = "ig"
    random_state: int = 0
    stage: str = "test"
    fingerprint: str | None = None
    name: str = "experiment"
    validation: str = "auto"
    cv: int = 0

    def __post_init__(self):
        from hbnlab.text import IndexingConfig

        if not isinstance(self.corpus, CorpusSpec):
            raise ManifestError("corpus", f"expected a CorpusSpec, got {type(self.corpus).__name__}")
        cl = tuple(self.classifiers)
        if not cl:
            raise ManifestError("classifiers", "at least one classifier is needed")
        if not all(isinstance(c, ClassifierSpec) for c in cl):
            raise ManifestError("classifiers", "expected ClassifierSpec entries")
        object.__setattr__(self, "classifiers", cl)
        disp = [c.display_name(self.n_features) for c in cl]
        if len(set(disp)) != len(disp):
            dup = next(d for d in disp if disp.count(d) > 1)
            raise ManifestError("classifiers", f"two classifiers are both named {dup!r}; give one a 'display' name")
        if self.indexing is None:
            object.__setattr__(self, "indexing", IndexingConfig())
        elif not isinstance(self.indexing, IndexingConfig):
            raise ManifestError("indexing", f"expected an IndexingConfig, got {type(self.indexing).__name__}")
        if self.categories is not None:
            cats = tuple(self.categories)
            if not cats or not all(isinstance(c, str) and c for c in cats):
                raise ManifestError("categories", "expected a non-empty list of category names, or null")
            if len(set(cats)) != len(cats):
                raise ManifestError("categories", "a category is listed twice")
            object.__setattr__(self, "categories", cats)
        _check_int(self.n_categories, "n_categories", lo=1)
        _check_int(self.n_features, "n_features", lo=1)
        _check_int(self.random_state, "random_state", lo=0)
        from hbnlab.features import SCORE_METHODS as methods

        if self.selection not in methods:
            raise ManifestError("selection", f"must be one of {tuple(methods)}, got {self.selection!r}")
        if self.stage not in STAGES:
            raise ManifestError("stage", f"must be one of {STAGES}, got {self.stage!r}")
        from hbnlab.corpus.splits import VALIDATION_METHODS

        if self.validation not in VALIDATION_METHODS:
            raise ManifestError("validation", f"must be one of {VALIDATION_METHODS}, got {self.validation!r}")
        _check_int(self.cv, "cv", lo=0)
        if self.cv == 1:
            raise ManifestError("cv", "must be 0 (one validation split) or >= 2 (folds), got 1")
        if self.fingerprint is not None and not (isinstance(self.fingerprint, str) and len(self.fingerprint) == 64):
            raise ManifestError("fingerprint", f"expected a 64-hex-digit SHA-256 or null, got {self.fingerprint!r}")
        if not isinstance(self.name, str):
            raise ManifestError("name", f"expected a string, got {self.name!r}")

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        return {
            "format": MANIFEST_FORMAT, "format_version": MANIFEST_VERSION, "name": self.name,
            "corpus": self.corpus.to_dict(), "fingerprint": self.fingerprint, "indexing": self.indexing.to_dict(),
            "categories": None if self.categories is None else list(self.categories),
            "n_categories": self.n_categories, "classifiers": [c.to_dict() for c in self.classifiers],
            "n_features": self.n_features, "selection": self.selection, "random_state": self.random_state,
            "stage": self.stage, "validation": self.validation, "cv": self.cv,
        }

    @classmethod
    def from_dict(cls, d: dict) -> ExperimentManifest:
        """Validate and build; every error names the field (``classifiers[1].params.B``)."""
        from hbnlab.text import IndexingConfig

        _check_keys(d, "", ("format", "format_version", "name", "corpus", "fingerprint", "indexing", "categories",
                            "n_categories", "classifiers", "n_features", "selection", "random_state", "stage",
                            "validation", "cv"))
        if d.get("format", MANIFEST_FORMAT) != MANIFEST_FORMAT:
            raise ManifestError("format", f"expected {MANIFEST_FORMAT!r}, got {d.get('format')!r}")
        ver = d.get("format_version", MANIFEST_VERSION)
        if ver != MANIFEST_VERSION:
            raise ManifestError("format_version", f"version {ver!r} is not supported; this hbnlab reads "
                                                  f"version {MANIFEST_VERSION}")
        if "corpus" not in d:
            raise ManifestError("corpus", "missing")
        if "classifiers" not in d:
            raise ManifestError("classifiers", "missing")
        cl = d["classifiers"]
        if not isinstance(cl, list):
            raise ManifestError("classifiers", "expected a list")
        classifiers = tuple(ClassifierSpec.from_dict(c, f"classifiers[{i}]") for i, c in enumerate(cl))
        ix = d.get("indexing")
        try:
            indexing = IndexingConfig.from_dict(ix) if ix is not None else IndexingConfig()
        except (TypeError, ValueError) as e:
            raise ManifestError("indexing", str(e)) from None
        cats = d.get("categories")
        if cats is not None and not isinstance(cats, list):
            raise ManifestError("categories", "expected a list of names or null")
        return cls(corpus=CorpusSpec.from_dict(d["corpus"]), classifiers=classifiers, indexing=indexing,
                   categories=None if cats is None else tuple(cats), n_categories=d.get("n_categories", 10),
                   n_features=d.get("n_features", 30), selection=d.get("selection", "ig"),
                   random_state=d.get("random_state", 0), stage=d.get("stage", "test"),
                   fingerprint=d.get("fingerprint"), name=d.get("name", "experiment"),
                   validation=d.get("validation", "auto"), cv=d.get("cv", 0))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def save(self, path) -> Path:
        from hbnlab.export.atomic import write_text_atomic

        return write_text_atomic(Path(path), self.to_json() + "\n")

    @classmethod
    def load(cls, path) -> ExperimentManifest:
        p = Path(path)
        try:
            d = json.loads(p.read_text(encoding="utf-8"))
        except OSError as e:
            raise ManifestError("", f"cannot read the manifest ({e.strerror or e})", str(p)) from None
        except ValueError as e:
            raise ManifestError("", f"not valid JSON ({e})", str(p)) from None
        try:
            return cls.from_dict(d)
        except ManifestError as e:
            raise ManifestError(e.field, str(e).split(": ", 1)[-1], str(p)) from None

    def with_fingerprint(self, fingerprint: str) -> ExperimentManifest:
        import dataclasses

        return dataclasses.replace(self, fingerprint=fingerprint)


# =========================================================================== running
def _named_tree(tree, terms, class_name) -> dict:
    """``tree.to_dict()`` with the selected terms on the leaves and ``<label>TOPIC`` at the root
    (learners that build their tree without names, e.g. the greedy HNB, get readable drawings)."""
    d = tree.to_dict()
    names = list(d["names"])
    for i, (k, f) in enumerate(zip(d["kind"], d["feature"])):
        if k == "feature" and 0 <= f < len(terms):
            names[i] = str(terms[f])
    if names[0] == "class":
        names[0] = class_name
    d["names"] = names
    return d


def run_manifest(manifest: ExperimentManifest, *, corpus=None, keep_models: bool = False,
                 progress=None) -> ExperimentResult:
    """Run an experiment manifest: index, select, fit every classifier on every category, score.

    Parameters
    ----------
    manifest : ExperimentManifest
    corpus : Corpus, optional
        Use this corpus instead of loading ``manifest.corpus`` (its fingerprint is still checked).
    keep_models : bool, default False
        Keep the fitted estimators in ``result.models``.
    progress : callable(fraction, message), optional

    Returns
    -------
    hbnlab.export.report.ExperimentResult
    """
    if corpus is None:
        corpus = manifest.corpus.load()
    fp = corpus.fingerprint()
    if manifest.fingerprint is not None and fp != manifest.fingerprint:
        raise ManifestError("fingerprint", f"the corpus {corpus.name!r} has fingerprint {fp[:16]}..., the manifest "
                                           f"expects {manifest.fingerprint[:16]}... (different documents)")
    if manifest.categories is not None:
        usable = set(corpus.categories(min_train=1, min_test=1))
        missing = [c for c in manifest.categories if c not in usable]
        if missing:
            raise ManifestError("categories", f"{missing} have no training or no test documents in corpus "
                                              f"{corpus.name!r}")
    if progress:
        progress(0.05, "indexing")
    data = prepare_cached(corpus, n_categories=manifest.n_categories,
                          categories=None if manifest.categories is None else list(manifest.categories),
                          indexing=manifest.indexing, selection=manifest.selection, validation=manifest.validation,
                          cv=manifest.cv or None, random_state=manifest.random_state)
    Y_eval, eval_docs = data.evaluation(manifest.stage)
    cats = list(data.categories)
    if manifest.stage == "validation":
        bad = data.untunable()
        if bad:
            raise ManifestError("categories", f"the validation split ({data.validation_description()}) cannot score "
                                + "; ".join(f"{c!r}: {why}" for c, why in bad.items()))
    scores, timings, traces, trees, models, specs, paper = {}, {}, {}, {}, {}, {}, {}
    n_units = len(manifest.classifiers) * len(cats)
    done = 0
    for spec in manifest.classifiers:  # loop over classifiers x categories (each one fit)
        disp = spec.display_name(manifest.n_features)
        nf = spec.n_features or manifest.n_features
        S = np.zeros((Y_eval.shape[0], len(cats)))
        specs[disp] = {"name": spec.name, "n_features": nf, "params": dict(spec.params)}
        timings[disp], traces[disp], trees[disp], models[disp] = {}, {}, {}, {}
        for j, cat in enumerate(cats):
            try:
                res = fit_unit(data, cat, spec.name, n_features=nf, params=spec.params, stage=manifest.stage,
                               random_state=manifest.random_state, score="proba")
            except ValueError as e:
                if "cannot be learnt" not in str(e):
                    raise
                raise ManifestError("categories", str(e)) from None
            est = res.estimator
            specs[disp].setdefault("resolved_params", resolved_params(est))  # the same for every category
            timings[disp][cat] = res.seconds
            S[:, j] = res.scores
            tr = em_traces(est)
            if tr:
                traces[disp][cat] = tr
            tree = getattr(est, "tree_", None)
            if tree is not None and hasattr(tree, "to_dict"):
                trees[disp][cat] = _named_tree(tree, res.terms, f"{cat}TOPIC")
            if keep_models:
                models[disp][cat] = est
            done += 1
            if progress:
                progress(0.1 + 0.9 * done / n_units, f"{disp} · {cat}")
        scores[disp] = S
        if thesis_values_apply(data) and manifest.stage == "test":
            ref = pv.table_4_10_row(spec.name.upper(), int(nf))
            if ref is not None:
                paper[disp] = {**ref, "source": "Karčiauskas (2002), Table 4.10"}
    info = dict(data.info)
    info["synthetic"] = bool(corpus.synthetic)
    info.pop("indexing", None)
    summary = corpus.summary()
    info["per_category"] = {c: summary["per_category"].get(c, {}) for c in cats}
    settings = manifest.with_fingerprint(fp).to_dict()
    return ExperimentResult(
        categories=cats, classifiers=list(scores), labels=Y_eval, scores=scores,
        doc_ids=[d.id for d in eval_docs], stage=manifest.stage, settings=settings, corpus=info,
        classifier_specs=specs, timings=timings, em_traces={k: v for k, v in traces.items() if v},
        trees={k: v for k, v in trees.items() if v},
        models={k: v for k, v in models.items() if v} if keep_models else {},
        paper=paper, title=f"hbnlab experiment: {manifest.name}",
    )


__all__ = ["ExperimentManifest", "CorpusSpec", "ClassifierSpec", "ManifestError", "run_manifest", "known_classifiers",
           "MANIFEST_FORMAT", "MANIFEST_VERSION"]
