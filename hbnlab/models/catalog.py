"""The one table of learners: every name the command line, the workbench, manifests, sweeps and
model files use, the estimator behind it and its default settings.

A learner name (case-insensitive) selects an estimator class and the settings its name fixes
(``HBN-OR`` is :class:`~hbnlab.models.hbn.HierarchicalBNClassifier` with ``clustering="or"``;
``OR-EQ12`` is the noisy-OR gate with de Campos et al.'s eq. 12 weights).  :func:`make_classifier`
builds a fresh binary estimator for a name; any other hyper-parameter may be given and is passed
through, and a name the estimator does not know is refused (never dropped silently).

The tree learners default to the final settings of Karčiauskas (2002), Table 4.1: B and alpha per
clustering algorithm (AVG B = 7, alpha = 0.05; OR B = 9, alpha = 0.09; DEP B = 7, alpha = 170 --
DEP's alpha lives on a scale of about a hundred, AVG's and OR's below one).  The hierarchical
naive Bayes variants share their clustering's settings.

Examples
--------
>>> make_classifier("hbn-dep", 30).get_params()["alpha"]
170.0
>>> learner("OR-EQ12").fixed
{'weights': 'eq12'}
>>> learner("SVM").tuning
{'C': (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)}
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType

from hbnlab.bounds import Choice
from hbnlab.models.greedy_hnb import GreedyHNBClassifier
from hbnlab.models.hbn import TABLE_4_1, HierarchicalBNClassifier, HierarchicalNBClassifier
from hbnlab.models.hierarchical import HierarchicalShrinkageNBClassifier
from hbnlab.models.kdb import KDependenceBNClassifier
from hbnlab.models.knn import KNNBinaryClassifier
from hbnlab.models.logistic import LogisticRegressionClassifier
from hbnlab.models.multinomial_nb import MultinomialNBBinaryClassifier
from hbnlab.models.naive_bayes import BernoulliNBClassifier
from hbnlab.models.or_gate import NoisyORBinaryClassifier
from hbnlab.models.rocchio import RocchioBinaryClassifier
from hbnlab.models.svm import LinearSVMClassifier
from hbnlab.models.word_cluster_nb import WordGroupNBClassifier

__all__ = ["Learner", "LEARNERS", "TABLE_4_1", "CLUSTERINGS", "TREE_LEARNERS", "TABLE_4_10_LEARNERS",
           "NEIGHBOUR_ROWS", "learner", "learner_names", "options", "is_tree_learner", "tree_parts",
           "tree_learner_name", "make_classifier"]

#: Clustering algorithms of the tree learners (Karčiauskas 2002, figs 3.5-3.12).
CLUSTERINGS = ("avg", "or", "dep")

#: Settings a name fixes may not be overridden through ``params``; callbacks are not settings.
_CALLBACKS = ("progress", "should_stop")


@dataclass(frozen=True)
class Learner:
    """One row of the catalogue.

    Attributes
    ----------
    name : str
        Upper-case name (``"HBN-OR"``).
    estimator : type
        The binary estimator class.
    fixed : mapping
        Hyper-parameters the name decides (``{"clustering": "or"}``).
    defaults : mapping
        Defaults that differ from the estimator's own (Table 4.1's B and alpha, the thesis's N0).
    description : str
        One line for help texts and the workbench.
    family : {"tree", "thesis", "baseline", "neighbour"}
        The thesis's HBN/HNB rows, its baselines (NB, SVM), the discriminative baseline of the same
        terms (LR), the other papers' learners.
    tuning : mapping
        Hyper-parameter -> candidate values, chosen on the validation split before a test row
        (:func:`hbnlab.experiments.thesis.tune_on_validation`: every combination, best validation
        micro breakeven, ties to the combination listed first).  Empty: nothing is tuned this way.
    needs_topics : bool
        The estimator learns over a topic taxonomy: its ``fit`` takes ``topics`` (every fitting
        document's node membership) and ``target`` (the category's node), which
        :func:`hbnlab.pipeline.fit.fit_unit` passes; it selects its terms itself, per node.
    """

    name: str
    estimator: type
    fixed: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)
    description: str = ""
    family: str = "neighbour"
    tuning: dict = field(default_factory=dict)
    needs_topics: bool = False

    @cached_property
    def param_names(self) -> tuple:
        """The estimator's hyper-parameter names (``get_params`` of a default instance)."""
        return tuple(sorted(self.estimator().get_params()))

    @property
    def seeded(self) -> bool:
        """Whether the estimator takes a ``random_state``."""
        return "random_state" in self.param_names

    @property
    def is_tree(self) -> bool:
        return self.family == "tree"


def options(estimator: type, param: str) -> tuple:
    """The options a :class:`~hbnlab.bounds.Choice` of ``estimator``'s ``_parameter_constraints``
    allows for ``param`` (the one table the learner rows below are read from).

    >>> options(NoisyORBinaryClassifier, "weights")
    ('eq11', 'eq12', 'eq15', 'eq17')
    """
    return next(c.values for c in estimator._parameter_constraints[param] if isinstance(c, Choice))


def _tree_rows() -> list[Learner]:
    rows = []
    for direction, cls, what in (("HBN", HierarchicalBNClassifier, "hierarchical Bayesian network"),
                                 ("HNB", HierarchicalNBClassifier, "hierarchical naive Bayes")):
        for c in CLUSTERINGS:
            B, alpha = TABLE_4_1[c]
            rows.append(Learner(f"{direction}-{c.upper()}", cls, {"clustering": c}, {"B": B, "alpha": alpha},
                                f"{what}, {c.upper()} feature clustering (Karčiauskas 2002)", "tree"))
    return rows


_ROWS = [
    *_tree_rows(),
    Learner("NB", BernoulliNBClassifier, {}, {"N0": 0.1},
            "Bernoulli naive Bayes with N0 smoothing (Karčiauskas 2002, sec. 1.4)", "thesis"),
    Learner("SVM", LinearSVMClassifier, {}, {}, "linear SVM on binary features, Platt-scaled", "thesis",
            {"C": (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)}),
    *[Learner(f"OR-{w.upper()}", NoisyORBinaryClassifier, {"weights": w}, {},
              f"noisy-OR gate, weights of eq. {w.removeprefix('eq')} (de Campos et al.)")
      for w in options(NoisyORBinaryClassifier, "weights")],
    Learner("LR", LogisticRegressionClassifier, {}, {},
            "logistic regression on binary features: the discriminative model of the same terms (Roos et al. 2005)",
            "baseline"),
    Learner("MNB", MultinomialNBBinaryClassifier, {}, {}, "multinomial naive Bayes (de Campos et al., eqs. 2-6)"),
    Learner("ROCCHIO", RocchioBinaryClassifier, {}, {}, "Rocchio, TF-IDF centroids (de Campos et al.)"),
    Learner("KDB", KDependenceBNClassifier, {}, {},
            "k-dependence Bayesian network (Chakrabarti, Mining the Web, ch. 5)"),
    Learner("GREEDY-HNB", GreedyHNBClassifier, {}, {},
            "greedy hierarchical naive Bayes (Langseth & Nielsen)"),
    Learner("WORD-GROUPS", WordGroupNBClassifier, {}, {},
            "naive Bayes over distributional word groups (Baker & McCallum 1998; Verbeek 2000)"),
    Learner("KNN", KNNBinaryClassifier, {}, {},
            "k nearest neighbours, cosine on TF-IDF vectors (Chakrabarti, Mining the Web, sec. 5.4)",
            # "logtfidf" equals "tfidf" on the thesis's binary features: not worth a grid point
            tuning={"k": (1, 3, 5, 10, 20, 30, 45, 60), "weighting": ("tf", "tfidf")}),
    Learner("HIER-NB", HierarchicalShrinkageNBClassifier, {}, {},
            "naive Bayes down a topic taxonomy: Fisher terms per node, shrinkage toward the ancestors "
            "(Chakrabarti 2003, sec. 5.7; McCallum et al. 1998)", needs_topics=True),
]

#: Every learner by upper-case name, in display order (thesis rows first).
LEARNERS = MappingProxyType({row.name: row for row in _ROWS})
#: The thesis's HBN and HNB rows.
TREE_LEARNERS = tuple(n for n, row in LEARNERS.items() if row.is_tree)
#: Learners of Karčiauskas (2002), Table 4.10.
TABLE_4_10_LEARNERS = ("NB", "SVM", "HBN-AVG", "HBN-OR", "HBN-DEP")
#: The other papers' learners added to Table 4.10 by ``--extra-rows``.
NEIGHBOUR_ROWS = ("KDB", "GREEDY-HNB", "OR-EQ12", "MNB", "ROCCHIO", "KNN")


def learner_names(family: str | None = None) -> list[str]:
    """Every learner name (or those of one family), in display order."""
    return [n for n, row in LEARNERS.items() if family is None or row.family == family]


def learner(name: str) -> Learner:
    """The catalogue row of a learner name (case-insensitive); ``ValueError`` names the known ones."""
    row = LEARNERS.get(str(name).strip().upper())
    if row is None:
        raise ValueError(f"unknown classifier {name!r}; expected one of {learner_names()}")
    return row


def is_tree_learner(name: str) -> bool:
    """Whether ``name`` is one of the HBN/HNB rows (unknown names are not)."""
    return str(name).strip().upper() in TREE_LEARNERS


def tree_parts(name: str) -> tuple[str, str]:
    """``"HNB-DEP"`` -> ``("hnb", "dep")``; ``ValueError`` for a learner that is not a tree."""
    row = learner(name)
    if not row.is_tree:
        raise ValueError(f"{name!r} is not a tree learner; expected one of {list(TREE_LEARNERS)}")
    return row.name.split("-")[0].lower(), row.fixed["clustering"]


def tree_learner_name(clustering: str, direction: str = "hbn") -> str:
    """``("or", "hbn")`` -> ``"HBN-OR"``."""
    name = f"{str(direction).upper()}-{str(clustering).upper()}"
    if name not in TREE_LEARNERS:
        raise ValueError(f"no tree learner for clustering {clustering!r} and direction {direction!r}")
    return name


def make_classifier(name: str, n_features: int | None, params: dict | None = None, random_state: int = 0):
    """A fresh binary estimator for a learner name.

    Parameters
    ----------
    name : str
        A catalogue name (``"NB"``, ``"SVM"``, ``"HBN-OR"``, ``"OR-EQ12"``, ...), any case.
    n_features : int or None
        Number of selected terms (``None``: every column).
    params : dict, optional
        Hyper-parameters on top of the catalogue's defaults, e.g. ``{"B": 5, "alpha": 0.1}``
        or ``{"N0": 0.5}``; the EM callbacks ``progress`` / ``should_stop`` of the tree learners too.
    random_state : int, default 0
        Passed to learners that draw random numbers.

    Raises
    ------
    ValueError
        For an unknown name, a parameter the estimator does not have, or a parameter the name fixes.
    """
    row = learner(name)
    params = dict(params or {})
    known = set(row.param_names)
    unknown = sorted(k for k in params if k not in known)
    if unknown:
        raise ValueError(f"{row.name}: unknown parameter(s) {unknown}; {row.estimator.__name__} takes "
                         f"{sorted(k for k in known if k not in row.fixed and k not in _CALLBACKS)}")
    clash = sorted(k for k in params if k in row.fixed and params[k] != row.fixed[k])
    if clash:
        raise ValueError(f"{row.name}: parameter(s) {clash} are fixed by the name ({dict(row.fixed)}); "
                         f"choose another learner name instead")
    kw = {**row.defaults, **params, **row.fixed, "n_features": n_features}
    if row.seeded:
        kw["random_state"] = random_state
    if row.is_tree:
        kw["B"], kw["alpha"] = int(kw["B"]), float(kw["alpha"])
    return row.estimator(**kw)
