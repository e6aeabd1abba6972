"""The one experiment configuration object of the workbench (no Streamlit in this module).

Every page reads and writes the same :class:`ExperimentConfig`: the corpus, the indexing, the
feature selection and the classifier settings.  It is a frozen dataclass with
``to_dict`` / ``from_dict`` (JSON-able, validated: errors name the bad field and value) and a
flat string form for the URL (``to_query`` / ``from_query``) so that a browser reload keeps the
settings.  The background tasks (:mod:`hbnlab.pipeline.tasks`) receive ``to_dict()`` and
rebuild the same data in the worker process (:meth:`ExperimentConfig.from_dict`).

:mod:`hbnlab.app.state` holds the Streamlit side (session state and ``st.query_params``).
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, fields

from hbnlab import bounds
from hbnlab.bn.em import ACCELERATIONS
from hbnlab.bounds import MAX_PARENTS, MAX_TABLE_ROWS, Bound, validate_params
from hbnlab.models.catalog import CLUSTERINGS, TABLE_4_1, TREE_LEARNERS, learner_names
from hbnlab.models.hbn import (
    CHILDREN_SELECTIONS,
    HIDDEN_STATE_SEARCHES,
    INITS,
    OBJECTIVE_DEFAULT,
    OBJECTIVES,
    TREE_PARAMETER_CONSTRAINTS,
    TREE_TERMS_DEFAULT,
    parse_hidden_states,
)
from hbnlab.pipeline.stop_lists import is_own_stop_list, own_stop_list_words
from hbnlab.text.newsgroup import NEWSGROUP_PARTS
from hbnlab.text.stopwords import STOPLIST_NAMES

CORPUS_SOURCES = ("synthetic", "reuters", "upload")
#: The synthetic generators: planted word groups (:func:`hbnlab.corpus.make_synthetic_corpus`) or a
#: two-level topic taxonomy (:func:`hbnlab.corpus.make_hierarchical_corpus`).
SYNTHETIC_MODELS = ("groups", "hierarchy")
#: Text encodings an upload may be read with: "auto" detects each file's (hbnlab.corpus.encoding).
UPLOAD_ENCODINGS = ("auto", "utf-8", "cp1252", "latin-1", "utf-16")
#: The named stop lists (:data:`hbnlab.text.stopwords.STOPLIST_NAMES`, thesis's first).
STOPWORDS = STOPLIST_NAMES
STEMMING = ("none", "porter")
SELECTION_METHODS = ("ig", "chi2", "mi", "df", "fisher")
SELECTION_SCOPES = ("local", "global")
#: EM acceleration of the tree learners ("none" is plain EM, the thesis's; :mod:`hbnlab.bn.em`'s None).
EM_ACCELERATIONS = tuple("none" if a is None else a for a in ACCELERATIONS)
#: Range of the E-step count after which the weaker EM restarts are dropped (0: no screening).
SCREEN_ITER_RANGE = (bounds.SCREEN_ITER.lo, bounds.SCREEN_ITER.hi)
#: Range of the number of restarts screening keeps.
SCREEN_KEEP_RANGE = (bounds.SCREEN_KEEP.lo, bounds.SCREEN_KEEP.hi)
#: Where the hierarchical naive Bayes's EM starts ("random": the thesis's random restarts; "hbn": one
#: restart from the HBN on the same tree): ``init`` of :class:`hbnlab.models.hbn.HierarchicalNBClassifier`.
HNB_INITS = INITS
#: The EM speed fields and their defaults (the thesis's EM).  Serialised forms leave them out
#: while they hold these values, so configs written before the fields existed keep their form.
EM_SPEED_DEFAULTS = {"em_acceleration": "none", "screen_iter": 0, "screen_keep": 8, "hnb_init": "random"}
#: The tree learners' hidden nodes: a number of states (2, binary, is the thesis's) or a search that
#: chooses one per node (``hidden_states`` of :class:`hbnlab.models.hbn.HierarchicalBNClassifier`).
HIDDEN_STATES_DEFAULT = 2
HIDDEN_STATES_MAX = bounds.HIDDEN_STATES.hi
#: The largest HBN table (rows: configurations of a node's parents) the thesis's binary trees reach
#: with B up to 15; above it a k-state tree's EM enumerates many more rows for every pattern.
LARGE_TABLE_ROWS = 2 ** 15
HIDDEN_STATES_CHOICES = (*range(2, HIDDEN_STATES_MAX + 1), *HIDDEN_STATE_SEARCHES)
#: ``tree_terms`` (:data:`hbnlab.models.hbn.TREE_TERMS_DEFAULT` by default): how many of the selected
#: terms a tree learner's tree holds, the others being naive-Bayes children of the class; 0 puts every
#: term in the tree, the thesis's model.
TREE_TERMS_MAX = bounds.TREE_TERMS.hi
#: Fields that serialised forms leave out while they hold these defaults (configs written before
#: the fields existed keep their form): the EM speed fields, the hidden nodes' states, the tree's terms.
#: ``children_select``: "auto" (each clustering's rule, :data:`hbnlab.models.hbn.CHILDREN_SELECT_DEFAULT`)
#: or one rule for every tree learner.
CHILDREN_SELECT_CHOICES = ("auto", *CHILDREN_SELECTIONS)
#: ``objective``: "auto" (the tree learners' default, :class:`hbnlab.models.hbn.HierarchicalBNClassifier`'s
#: ``objective``), "joint" (the thesis's EM) or "conditional" (the EM's tables refitted for log P(c | f)).
OBJECTIVE_CHOICES = ("auto", *OBJECTIVES)
_OBJECTIVE_NAMES = {"joint": "EM (the thesis)", "conditional": "conditional likelihood"}
OBJECTIVE_LABELS = {"auto": f"auto (the default: {_OBJECTIVE_NAMES[OBJECTIVE_DEFAULT]})", **_OBJECTIVE_NAMES}
OPTIONAL_DEFAULTS = {**EM_SPEED_DEFAULTS, "hidden_states": HIDDEN_STATES_DEFAULT, "tree_terms": TREE_TERMS_DEFAULT,
                     "children_select": "auto", "objective": "auto"}
#: Corpus fields that serialised forms leave out while they hold these defaults (newer than the
#: forms): the upload's newsgroup stripping.
CORPUS_OPTIONAL_DEFAULTS = {"upload_newsgroup_strip": False}
#: How training-0 / validation is drawn (:func:`hbnlab.corpus.splits.validation_folds`).
VALIDATION_METHODS = ("auto", "date", "stratified")
CV_MAX = 20
#: Structure learners the Structure page offers: the thesis's six HBN/HNB rows.
STRUCTURE_ALGORITHMS = TREE_LEARNERS
#: Learners an experiment may train (the catalogue's, thesis rows first).
CLASSIFIERS = tuple(learner_names())

#: The tree learners' settings are checked against the estimators' own table (one table per parameter,
#: :data:`hbnlab.models.hbn.TREE_PARAMETER_CONSTRAINTS`): a URL or a saved config accepts what a fit
#: accepts.  ``B_<clustering>`` is shared by HBN-x and HNB-x, so its upper end is the HBN's
#: (:data:`hbnlab.bounds.MAX_PARENTS`, which an HBN fit enforces with :func:`hbnlab.bounds.check_parents`).
TREE_FIELD_PARAMETERS = {"n_restarts": "n_restarts", "screen_iter": "screen_iter", "screen_keep": "screen_keep",
                         "hidden_states": "hidden_states", **{f"B_{c}": "B" for c in CLUSTERINGS},
                         **{f"alpha_{c}": "alpha" for c in CLUSTERINGS}}
_B_LO = next(b for b in TREE_PARAMETER_CONSTRAINTS["B"] if isinstance(b, Bound)).lo
TREE_FIELD_CONSTRAINTS = {
    **{field: [c for c in TREE_PARAMETER_CONSTRAINTS[param] if c is not None]
       for field, param in TREE_FIELD_PARAMETERS.items()},
    **{f"B_{c}": [Bound("B", _B_LO, MAX_PARENTS)] for c in CLUSTERINGS},
}

#: The workbench's narrowing, in this one place (each from the estimator's lower end): the Structure
#: page's sliders show these ranges, alpha per clustering (AVG about 0-0.2, OR 0-0.3, DEP 0-400, with
#: the slider's step) and B up to 12; a value the config accepts beyond them widens its slider
#: (:func:`slider_range`).  The widgets of ``n_features`` and ``tree_terms`` stop at the upper ends of
#: :data:`hbnlab.bounds.N_FEATURES` / :data:`hbnlab.bounds.TREE_TERMS` (5000), which this config keeps
#: (a number input cannot show more); the estimators take any number.
_ALPHA_LO = TREE_FIELD_CONSTRAINTS["alpha_avg"][0].lo
ALPHA_RANGE = {"avg": (_ALPHA_LO, 0.2, 0.005), "or": (_ALPHA_LO, 0.3, 0.005), "dep": (_ALPHA_LO, 400.0, 5.0)}
B_RANGE = (int(_B_LO), 12)


def slider_range(declared: tuple, value) -> tuple:
    """A slider's declared range (:data:`B_RANGE`, a value of :data:`ALPHA_RANGE`) widened to hold
    ``value``, a setting the config accepted (a URL's ``B_or=15``), so that the slider can show it.

    >>> slider_range(B_RANGE, 15), slider_range(ALPHA_RANGE["or"], 0.09)
    ((2, 15), (0.0, 0.3, 0.005))
    """
    lo, hi, *step = declared
    return (min(lo, value), max(hi, value), *step)


def clustering_of(algorithm: str) -> str:
    """``"HBN-OR"`` -> ``"or"``; raises ValueError naming the algorithm otherwise."""
    name = str(algorithm).upper()
    if name not in STRUCTURE_ALGORITHMS:
        raise ValueError(f"structure algorithm must be one of {STRUCTURE_ALGORITHMS}, got {algorithm!r}")
    return name.split("-", 1)[1].lower()


def direction_of(algorithm: str) -> str:
    clustering_of(algorithm)
    return "hbn" if str(algorithm).upper().startswith("HBN") else "hnb"


def hbn_table_rows(algorithm: str, B: int, hidden_states) -> int:
    """The rows of the largest table of an HBN learner (:func:`hbnlab.bounds.hbn_table_rows`); 0 for
    the other learners (an HNB's tables have k rows whatever B is)."""
    name = str(algorithm).upper()
    if name not in STRUCTURE_ALGORITHMS or direction_of(name) != "hbn":
        return 0
    return bounds.hbn_table_rows(B, hidden_states)


def check_table_size(algorithm: str, B: int, hidden_states) -> None:
    """Refuse an HBN learner whose hidden nodes of ``hidden_states`` states under ``B`` parents
    would have more table rows (k ** B) than a fit accepts (:func:`hbnlab.bounds.check_table_rows`)."""
    if hbn_table_rows(algorithm, B, hidden_states):
        bounds.check_table_rows(B, hidden_states, what=str(algorithm).upper())


#: A tuning cell is named before the grid runs when its largest table has at least this many times
#: the rows of the grid's median cell and more rows than the thesis's largest binary tree (B = 9).
COSTLY_CELL_FACTOR = 8
THESIS_TABLE_ROWS = 2 ** 9


def costly_tuning_cells(algorithm: str, B_values, hidden_states_values) -> list[tuple[int, int | str, int, float]]:
    """The (B, hidden states) cells of a tuning grid that cost far more than its others:
    ``(B, k, rows, times the median cell)`` for each cell whose largest table (k ** B rows, which
    EM goes through for every distinct document) has at least :data:`COSTLY_CELL_FACTOR` times the
    rows of the grid's median cell and more than :data:`THESIS_TABLE_ROWS`; empty for a learner
    whose tables do not grow with B (naive Bayes, the hierarchical naive Bayes).

    >>> costly_tuning_cells("HBN-OR", [3, 5, 7, 9], [2, 3])
    [(7, 3, 2187, 11.8), (9, 3, 19683, 106.1)]
    >>> costly_tuning_cells("HBN-OR", [3, 5, 7, 9], [2])
    []
    """
    import statistics

    cells = [(int(B), k, hbn_table_rows(algorithm, int(B), k)) for k in hidden_states_values for B in B_values]
    rows = [r for _, _, r in cells if r]
    if not rows:
        return []
    median = statistics.median(rows)
    return [(B, k, r, round(r / median, 1)) for B, k, r in sorted(cells, key=lambda c: c[2])
            if r > THESIS_TABLE_ROWS and r >= COSTLY_CELL_FACTOR * median]


def is_hnb(name: str) -> bool:
    """Whether the learner ``name`` is a hierarchical naive Bayes (``"HNB-OR"``, ...)."""
    return str(name).upper() in STRUCTURE_ALGORITHMS and direction_of(name) == "hnb"


@dataclass(frozen=True)
class ExperimentConfig:
    """Corpus + indexing + features + classifier settings shared by every page.

    Parameters
    ----------
    corpus : {"synthetic", "reuters", "upload"}
        Which corpus: the embedded synthetic generator, Reuters-21578 ModApte or an upload.
    synthetic_seed, synthetic_size : int
        ``random_state`` and ``n_documents`` of the synthetic generator.
    synthetic_model : {"groups", "hierarchy"}
        The generator: planted word groups, or categories in a topic taxonomy (dotted names).
    reuters_dir : str
        Directory with the 22 ``reut2-*.sgm`` files; ``""`` means ``$HBNLAB_REUTERS_DIR`` or the
        download cache of :func:`hbnlab.corpus.fetch_reuters21578`.
    upload_path : str
        Path of an uploaded file stored under the data home (the worker reads it from there).
    upload_text_column, upload_labels_column, upload_split_column, upload_id_column, upload_title_column : str
        Column names for table uploads (:func:`hbnlab.corpus.read_table`); ``""`` = the reader's
        default: the columns ``split`` and ``id`` when the table has them (else a seeded 75/25
        split and row numbers), no title.
    upload_encoding : str
        Text encoding of the upload's files, one of :data:`UPLOAD_ENCODINGS`: ``"auto"`` detects
        it file by file; a codec name reads every file strictly with it.
    upload_newsgroup_strip : bool
        Remove newsgroup headers, quoted replies and signatures from the upload's texts
        (:func:`hbnlab.text.newsgroup.strip_newsgroup`; off by default).
    stopwords, stemming, min_df :
        Indexing (:class:`hbnlab.text.IndexingConfig`); ``stemming="none"`` means no stemming.
        ``stopwords`` is a name of :data:`STOPWORDS` or an uploaded list ``"own:<digits>"``
        (:mod:`hbnlab.pipeline.stop_lists`).
    selection : str
        Term scoring method of :func:`hbnlab.features.score_terms`.
    n_features : int
        Number of selected terms per class (thesis: 30).
    scope : {"local", "global"}
        Local (per class, the thesis's choice) or global (one set for all classes) selection.
    categories : tuple of str
        The classes to work on; empty means the ``n_categories`` most frequent training classes.
    n_categories : int
        How many classes an empty ``categories`` stands for (thesis: the 10 most frequent).
    label : str
        The class the Structure and Explain pages show; ``""`` means the first category.
    classifiers : tuple of str
        Learners the Training page trains (names of :mod:`hbnlab.models.catalog`).
    algorithm : str
        The structure learner the Structure page draws (``"HBN-OR"``, ...).
    B_avg, alpha_avg, B_or, alpha_or, B_dep, alpha_dep :
        Branching factor and alpha per clustering algorithm; defaults from thesis Table 4.1
        (AVG B=7 alpha=0.05, OR B=9 alpha=0.09, DEP B=7 alpha=170).  HNB variants share them.
    n_restarts : int
        EM restarts (thesis: 64).
    em_acceleration : {"none", "squarem"}
        EM of the tree learners: plain (the thesis's) or SQUAREM-accelerated (fewer E-steps to
        the same stopping rule; ``acceleration`` of :func:`hbnlab.bn.em.fit_em`).
    screen_iter, screen_keep : int
        After ``screen_iter`` E-steps only the ``screen_keep`` restarts with the highest
        log-likelihood go on; ``screen_iter=0`` (the thesis's EM) runs every restart to the end.
    hnb_init : {"random", "hbn"}
        Where the HNB learners' EM starts: random restarts (the thesis's) or one restart from the
        HBN on the same tree (``init`` of the hierarchical naive Bayes).
    hidden_states : int in 2..8, "auto" or "auto-holdout"
        The tree learners' hidden nodes' number of states (2: binary, the thesis's), or chosen per
        node by BIC on the training data ("auto") or on a held-out quarter ("auto-holdout").
        ``hnb_init="hbn"`` needs a number.
    tree_terms : int in 0..5000
        The tree learners' tree holds the ``tree_terms`` selected terms with the highest I(F; C);
        the other selected terms are naive-Bayes children of the class.  0: every term in the
        tree (the thesis's model).  With at most ``tree_terms`` terms both are the same.
    children_select : {"auto", "all", "cv", "cv-max"}
        Which of those naive-Bayes children the tree learners keep (``children_select`` of
        :class:`hbnlab.models.hbn.HierarchicalBNClassifier`): "auto", each clustering's rule (the
        first k chosen by an inner cross-validation for OR and DEP, all of them for AVG); "all";
        "cv" / "cv-max", that rule for every clustering.
    objective : {"auto", "joint", "conditional"}
        What the tree learners' tables are fitted for (``objective`` of
        :class:`hbnlab.models.hbn.HierarchicalBNClassifier`): "auto", the estimator's default;
        "joint", the thesis's EM; "conditional", the EM's tables refitted for log P(c | f).
    validation : {"auto", "date", "stratified"}
        The training-0 / validation split of tuning and of Training's validation stage: the thesis's
        date split when every training document is dated ("auto" picks it for Reuters), else a
        seeded stratified split.
    cv : int
        0: that hold-out split; K in 2..20: K-fold cross-validation instead (small corpora).
    random_state : int
        Seed of every random choice downstream (EM restarts, SVM, splits of uploads).
    """

    corpus: str = "synthetic"
    synthetic_seed: int = 0
    synthetic_size: int = 3000
    synthetic_model: str = "groups"
    reuters_dir: str = ""
    upload_path: str = ""
    upload_text_column: str = "text"
    upload_labels_column: str = "labels"
    upload_split_column: str = ""
    upload_id_column: str = ""
    upload_title_column: str = ""
    upload_encoding: str = "auto"
    upload_newsgroup_strip: bool = False
    stopwords: str = "thesis"
    stemming: str = "none"
    min_df: int = 2
    selection: str = "ig"
    n_features: int = 30
    scope: str = "local"
    categories: tuple = ()
    n_categories: int = 10
    label: str = ""
    classifiers: tuple = ("HBN-OR", "NB")
    algorithm: str = "HBN-OR"
    B_avg: int = TABLE_4_1["avg"][0]
    alpha_avg: float = TABLE_4_1["avg"][1]
    B_or: int = TABLE_4_1["or"][0]
    alpha_or: float = TABLE_4_1["or"][1]
    B_dep: int = TABLE_4_1["dep"][0]
    alpha_dep: float = TABLE_4_1["dep"][1]
    n_restarts: int = 64
    em_acceleration: str = EM_SPEED_DEFAULTS["em_acceleration"]
    screen_iter: int = EM_SPEED_DEFAULTS["screen_iter"]
    screen_keep: int = EM_SPEED_DEFAULTS["screen_keep"]
    hnb_init: str = EM_SPEED_DEFAULTS["hnb_init"]
    hidden_states: int | str = HIDDEN_STATES_DEFAULT
    tree_terms: int = TREE_TERMS_DEFAULT
    children_select: str = "auto"
    objective: str = "auto"
    validation: str = "auto"
    cv: int = 0
    random_state: int = 0

    def __post_init__(self):
        object.__setattr__(self, "categories", tuple(str(c) for c in self.categories))
        object.__setattr__(self, "classifiers", tuple(str(c).upper() for c in self.classifiers))
        object.__setattr__(self, "algorithm", str(self.algorithm).upper())
        self._validate()

    # ------------------------------------------------------------------ validation
    def _validate(self) -> None:
        def choice(name, allowed):
            v = getattr(self, name)
            if v not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {v!r}")

        def integer(name, lo, hi=None):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
                rng = f">= {lo}" if hi is None else f"in {lo}..{hi}"
                raise ValueError(f"{name} must be an integer {rng}, got {v!r}")

        def bounded(name, bound):
            bound.check(getattr(self, name), name=name)

        choice("corpus", CORPUS_SOURCES)
        choice("synthetic_model", SYNTHETIC_MODELS)
        choice("upload_encoding", UPLOAD_ENCODINGS)
        if not isinstance(self.upload_newsgroup_strip, bool):
            raise ValueError(f"upload_newsgroup_strip must be true or false, got {self.upload_newsgroup_strip!r}")
        if not (self.stopwords in STOPWORDS or is_own_stop_list(self.stopwords)):
            raise ValueError(f"stopwords must be one of {STOPWORDS} or an uploaded list ('own:' and 16 hex digits), "
                             f"got {self.stopwords!r}")
        choice("stemming", STEMMING)
        choice("selection", SELECTION_METHODS)
        choice("scope", SELECTION_SCOPES)
        choice("algorithm", STRUCTURE_ALGORITHMS)
        bounded("synthetic_seed", bounds.SEED)
        bounded("synthetic_size", bounds.SYNTHETIC_SIZE)
        bounded("min_df", bounds.MIN_DF)
        bounded("n_features", bounds.N_FEATURES)
        integer("n_categories", 1)
        validate_params({field: getattr(self, field) for field in TREE_FIELD_CONSTRAINTS}, TREE_FIELD_CONSTRAINTS)
        choice("em_acceleration", EM_ACCELERATIONS)
        choice("hnb_init", HNB_INITS)
        if self.hnb_init == "hbn" and isinstance(self.hidden_states, str):
            raise ValueError(f"hnb_init='hbn' needs a number of hidden states, got hidden_states="
                             f"{self.hidden_states!r} (start the HNB at random, or fix the number of states)")
        bounded("tree_terms", bounds.TREE_TERMS)
        choice("children_select", CHILDREN_SELECT_CHOICES)
        choice("objective", OBJECTIVE_CHOICES)
        bounded("random_state", bounds.SEED)
        choice("validation", VALIDATION_METHODS)
        if isinstance(self.cv, bool) or not isinstance(self.cv, int) or self.cv == 1 or not 0 <= self.cv <= CV_MAX:
            raise ValueError(f"cv must be 0 (a hold-out split) or an integer in 2..{CV_MAX} (folds), got {self.cv!r}")
        if not self.classifiers:
            raise ValueError("classifiers must name at least one learner, got ()")
        for c in self.classifiers:
            if c not in CLASSIFIERS:
                raise ValueError(f"classifiers: unknown learner {c!r}; expected names from {CLASSIFIERS}")
        if self.corpus == "upload" and not self.upload_path:
            raise ValueError("corpus='upload' needs upload_path (the stored upload), got ''")

    # ------------------------------------------------------------------ derived settings
    def structure_params(self, algorithm: str | None = None) -> tuple[int, float]:
        """(B, alpha) of a structure learner (``HNB-x`` shares ``HBN-x``'s settings)."""
        c = clustering_of(algorithm or self.algorithm)
        return int(getattr(self, f"B_{c}")), float(getattr(self, f"alpha_{c}"))

    def large_tables(self, classifiers=None) -> dict:
        """``{learner: rows}`` for the learners of ``classifiers`` (default the config's) whose
        largest table (:func:`hbn_table_rows`) is above :data:`LARGE_TABLE_ROWS`."""
        names = [str(n).upper() for n in (self.classifiers if classifiers is None else classifiers)]
        rows = {n: hbn_table_rows(n, self.structure_params(n)[0], self.hidden_states) for n in names
                if n in STRUCTURE_ALGORITHMS}
        return {n: r for n, r in rows.items() if r > LARGE_TABLE_ROWS}

    def with_structure_params(self, algorithm: str, B: int, alpha: float) -> ExperimentConfig:
        c = clustering_of(algorithm)
        return self.replace(**{f"B_{c}": int(B), f"alpha_{c}": float(alpha)})

    def classifier_params(self, name: str) -> dict:
        """Keyword settings for :func:`hbnlab.models.catalog.make_classifier`."""
        name = name.upper()
        if name in STRUCTURE_ALGORITHMS:
            B, alpha = self.structure_params(name)
            params = {"B": B, "alpha": alpha, "n_restarts": self.n_restarts, **self.em_speed_params()}
            if is_hnb(name) and self.hnb_init != EM_SPEED_DEFAULTS["hnb_init"]:
                params["init"] = self.hnb_init
            if self.hidden_states != HIDDEN_STATES_DEFAULT:
                params["hidden_states"] = self.hidden_states
            if self.tree_terms != TREE_TERMS_DEFAULT:
                params["tree_terms"] = self.tree_terms or None
            if self.children_select != "auto":
                params["children_select"] = self.children_select
            if self.objective != "auto":
                params["objective"] = self.objective
            return params
        return {}

    def em_speed_params(self) -> dict:
        """``acceleration``, ``screen_iter`` and ``screen_keep`` of the tree estimators."""
        return {"acceleration": None if self.em_acceleration == "none" else self.em_acceleration,
                "screen_iter": self.screen_iter, "screen_keep": self.screen_keep}

    def corpus_spec(self) -> dict:
        """Only the fields that decide which documents are loaded (a cache key)."""
        spec = {"corpus": self.corpus}
        if self.corpus == "synthetic":
            spec.update(seed=self.synthetic_seed, size=self.synthetic_size)
            if self.synthetic_model != "groups":
                spec["model"] = self.synthetic_model
        elif self.corpus == "reuters":
            spec["reuters_dir"] = self.reuters_dir
        else:
            spec["upload_path"] = self.upload_path
            spec["options"] = self.upload_options()
            if self.upload_newsgroup_strip:
                spec["strip"] = list(NEWSGROUP_PARTS)
        return spec

    def upload_options(self) -> dict:
        """Reader keyword arguments for an upload (only those that differ from the reader's
        defaults, so a ZIP holding a folder-per-class tree gets at most ``encoding``)."""
        opts = {}
        if self.upload_encoding != "auto":
            opts["encoding"] = self.upload_encoding
        if self.upload_text_column != "text":
            opts["text_column"] = self.upload_text_column
        if self.upload_labels_column != "labels":
            opts["labels_column"] = self.upload_labels_column
        for key in ("split", "id", "title"):
            v = getattr(self, f"upload_{key}_column")
            if v:
                opts[f"{key}_column"] = v
        return opts

    def validation_dict(self) -> dict:
        """Keyword arguments of :func:`hbnlab.pipeline.data.prepare` for the validation split."""
        return {"validation": self.validation, "cv": self.cv or None, "random_state": self.random_state}

    def indexing_dict(self) -> dict:
        """Keyword arguments of :class:`hbnlab.text.IndexingConfig` (an uploaded stop list as its words,
        read from the data home)."""
        stop = own_stop_list_words(self.stopwords) if is_own_stop_list(self.stopwords) else self.stopwords
        return {"stopwords": stop, "stemming": None if self.stemming == "none" else self.stemming,
                "min_df": self.min_df}

    def replace(self, **changes) -> ExperimentConfig:
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict:
        """Every field, except the EM speed fields, ``hidden_states`` and ``upload_newsgroup_strip``
        while they hold their defaults (:data:`OPTIONAL_DEFAULTS`, :data:`CORPUS_OPTIONAL_DEFAULTS`):
        job specs and stored models keep the form they had before those fields."""
        d = dataclasses.asdict(self)
        d["categories"] = list(self.categories)
        d["classifiers"] = list(self.classifiers)
        for k, v in {**OPTIONAL_DEFAULTS, **CORPUS_OPTIONAL_DEFAULTS}.items():
            if d[k] == v:
                del d[k]
        return d

    def relevant_dict(self, classifiers=None) -> dict:
        """:meth:`to_dict` without the fields that did not shape a run of ``classifiers``
        (default: the config's): the other corpus sources' fields, the B / alpha of clusterings
        no trained learner uses, the restarts, the EM speed fields and the hidden states when no
        tree learner is trained, ``screen_keep`` without screening, ``hnb_init`` without an HNB
        learner, and the pages' display choices (``label``, ``algorithm``).  Fields of
        :data:`OPTIONAL_DEFAULTS` at their defaults are absent already (:meth:`to_dict`)."""
        names = [str(c).upper() for c in (classifiers if classifiers is not None else self.classifiers)]
        used = {c for c in CLUSTERINGS if any(n in STRUCTURE_ALGORITHMS and clustering_of(n) == c for n in names)}
        other_sources = {"synthetic": "synthetic_", "reuters": "reuters_", "upload": "upload_"}
        other_sources.pop(self.corpus, None)
        drop = {"label", "algorithm"}
        drop |= {f.name for f in fields(self) if f.name.startswith(tuple(other_sources.values()))}
        drop |= {f"{p}_{c}" for c in CLUSTERINGS if c not in used for p in ("B", "alpha")}
        if not used:
            drop |= {"n_restarts", *OPTIONAL_DEFAULTS}
        if not self.screen_iter:
            drop.add("screen_keep")
        if not any(is_hnb(n) for n in names):
            drop.add("hnb_init")
        if not self.cv:
            drop.add("cv")
        d = self.to_dict()
        d["classifiers"] = names
        return {k: v for k, v in d.items() if k not in drop}

    @classmethod
    def from_dict(cls, d: dict) -> ExperimentConfig:
        """Inverse of :meth:`to_dict`; unknown keys raise ValueError naming them."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"experiment config: unknown field(s) {unknown}; known fields are {sorted(known)}")
        kw = dict(d)
        for k in ("categories", "classifiers"):
            if k in kw:
                kw[k] = tuple(kw[k])
        return cls(**kw)

    def to_query(self) -> dict:
        """Flat ``{name: str}`` of the fields that differ from the defaults (for ``st.query_params``).

        Tuples are joined with commas (``earn,acq``), or written as a JSON list when a name holds a
        comma or starts with ``[`` (a class ``oil, crude``): :func:`query_list` reads both back."""
        default = ExperimentConfig()
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if v == getattr(default, f.name):
                continue
            out[f.name] = query_list_text(v) if isinstance(v, tuple) else str(v)
        return out

    @classmethod
    def from_query(cls, query: dict) -> tuple[ExperimentConfig, list[str]]:
        """Parse URL parameters; bad values are skipped (with a message each), never fatal.

        Returns the config and the list of messages about the parameters that were ignored.
        Parameters that are not config fields (other pages' own keys) are left alone.
        """
        types = {f.name: f.type for f in fields(cls)}
        default = cls()
        kw, problems = {}, []
        for name, raw in query.items():
            if name not in types:
                continue
            raw = raw[-1] if isinstance(raw, (list, tuple)) else raw
            proto = getattr(default, name)
            try:
                if name == "hidden_states":
                    value = parse_hidden_states(raw)
                elif isinstance(proto, tuple):
                    value = query_list(raw)
                elif isinstance(proto, bool):
                    value = str(raw).lower() in ("1", "true", "yes")
                elif isinstance(proto, int):
                    value = int(raw)
                elif isinstance(proto, float):
                    value = float(raw)
                else:
                    value = str(raw)
                probe = {name: value}
                probe.setdefault("upload_path", "-")  # the corpus/upload_path rule is checked below
                cls(**probe)  # validate this field on its own
            except (TypeError, ValueError) as e:
                problems.append(f"URL parameter {name}={raw!r} ignored: {e}")
                continue
            kw[name] = value
        try:
            return cls(**kw), problems
        except ValueError as e:  # a combination that is invalid (e.g. upload without path)
            problems.append(f"URL parameters ignored: {e}")
            return cls(), problems


def query_list_text(names) -> str:
    """A list of names as one URL value: joined with commas, or a JSON list when a name holds a comma
    or starts with ``[`` (so that :func:`query_list` gives the names back).

    >>> query_list_text(["earn", "acq"]), query_list_text(["oil, crude", "grain|wheat"])
    ('earn,acq', '["oil, crude", "grain|wheat"]')
    """
    names = [str(n) for n in names]
    if any("," in n or n.startswith("[") for n in names):
        return json.dumps(names, ensure_ascii=False)
    return ",".join(names)


def query_list(text) -> tuple:
    """The names of a URL value written by :func:`query_list_text`; a JSON list must hold strings.

    >>> query_list('["oil, crude", "grain|wheat"]'), query_list("earn,,acq")
    (('oil, crude', 'grain|wheat'), ('earn', 'acq'))
    """
    text = str(text)
    if not text.startswith("["):
        return tuple(x for x in text.split(",") if x)
    try:
        names = json.loads(text)
    except ValueError:
        raise ValueError(f"expected a comma-separated list or a JSON list of names, got {text!r}") from None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"expected a JSON list of names (strings), got {text!r}")
    return tuple(n for n in names if n)


@dataclass(frozen=True)
class Preset:
    """A ready-made run of the Training page: a job of its own, the analyst's documents and indexing
    with the defaults and ``changes`` (:func:`hbnlab.app.job_settings.preset_config`); it changes
    neither the session's config nor the form ("Use these settings" on its finished job loads them).
    The run goes to ``corpus`` only from the built-in synthetic corpus, when ``corpus`` is available:
    a corpus the user chose (an upload, Reuters) stays theirs."""

    title: str
    description: str
    changes: dict
    corpus: str = "reuters"


_THESIS_TREES = {f"{p}_{c}": v for c, (B, alpha) in TABLE_4_1.items() for p, v in (("B", B), ("alpha", alpha))}

#: The Training page's presets, by name.
PRESETS = {
    "demo": Preset(
        "Quick demo",
        "Trains the 3 most frequent classes, HBN-OR and NB on 30 information-gain terms, 16 EM restarts, as a "
        "job of its own (your form and settings stay as they are); from the synthetic corpus it runs on "
        "Reuters-21578 when that is available, your own corpus stays.",
        {"categories": (), "n_categories": 3, "classifiers": ("HBN-OR", "NB"), "n_features": 30, "selection": "ig",
         "scope": "local", "n_restarts": 16, **_THESIS_TREES}),
    "thesis": Preset(
        "The thesis's Table 4.10 run",
        "Trains the 10 most frequent classes, NB, SVM, HBN-AVG, HBN-OR and HBN-DEP on 30 information-gain "
        "terms, Table 4.1's B and alpha, 64 EM restarts of plain EM, as a job of its own (your form and "
        "settings stay as they are); from the synthetic corpus it runs on Reuters-21578 when that is "
        "available, your own corpus stays.",
        {"categories": (), "n_categories": 10, "classifiers": ("NB", "SVM", "HBN-AVG", "HBN-OR", "HBN-DEP"),
         "n_features": 30, "selection": "ig", "scope": "local", "stopwords": "thesis", "stemming": "none",
         "min_df": 2, "n_restarts": 64, **OPTIONAL_DEFAULTS, **_THESIS_TREES}),
}


__all__ = ["slider_range", "TREE_FIELD_CONSTRAINTS", "TREE_FIELD_PARAMETERS",
           "ExperimentConfig", "Preset", "PRESETS", "clustering_of", "direction_of", "is_hnb", "hbn_table_rows",
           "check_table_size",
           "ALPHA_RANGE", "B_RANGE", "CLASSIFIERS", "EM_ACCELERATIONS", "EM_SPEED_DEFAULTS", "HNB_INITS",
           "CORPUS_OPTIONAL_DEFAULTS",
           "HIDDEN_STATES_CHOICES", "HIDDEN_STATES_DEFAULT", "LARGE_TABLE_ROWS", "MAX_TABLE_ROWS", "OPTIONAL_DEFAULTS",
           "SCREEN_ITER_RANGE", "SCREEN_KEEP_RANGE", "TREE_TERMS_DEFAULT", "TREE_TERMS_MAX", "CHILDREN_SELECT_CHOICES",
           "costly_tuning_cells", "COSTLY_CELL_FACTOR",
           "STRUCTURE_ALGORITHMS", "CORPUS_SOURCES", "SYNTHETIC_MODELS",
           "STOPWORDS", "STEMMING", "SELECTION_METHODS", "SELECTION_SCOPES", "VALIDATION_METHODS", "CV_MAX",
           "UPLOAD_ENCODINGS"]
