"""Learner codecs: how each estimator class is written to and rebuilt from a model file.

A :class:`LearnerCodec` pairs ``to_state`` (the learned attributes as JSON values and array
references) with ``from_state`` (the same attributes read back through a checking
:class:`~hbnlab.export.model_io.state.StateReader`).  This module holds the codec type, the
pieces every binary text classifier shares (classes, selected columns, feature scores) and the
codecs of the learners whose state is a few tables: Bernoulli and multinomial naive Bayes, the
linear SVM, the noisy-OR gate, Rocchio, k nearest neighbours, the k-dependence BN, the word-cluster
naive Bayes and naive Bayes over a topic hierarchy.
The tree-shaped learners are in :mod:`hbnlab.export.model_io.tree_codecs`; the whitelist of
loadable classes is :data:`hbnlab.export.model_io.registry.REGISTRY`.

Derived arrays are never stored: every ``from_state`` recomputes them with the same operations as
the learner's ``fit``, so a reloaded model predicts bit-identically.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from hbnlab.export.model_io.spec import ModelFileError
from hbnlab.export.model_io.state import StateReader, StateWriter


# =========================================================================== the codec type
@dataclass(frozen=True)
class LearnerCodec:
    """How one estimator class is written to and rebuilt from a model file.

    ``to_state(est, writer) -> dict`` returns the learned state (JSON values and
    ``writer.array(...)`` references); ``from_state(est, state, reader)`` fills a fresh
    ``est = load_class()(**params)`` from it, checking everything through ``reader``.
    ``params`` lists the hyper-parameters stored (callbacks never are).  ``resolve(est) -> dict``,
    when given, returns the hyper-parameters a fitted ``est`` resolved itself (a None default read
    from a table), as its fit used them (``resolved_params`` of the model file).
    """

    name: str
    load_class: Callable[[], type]
    params: tuple
    to_state: Callable
    from_state: Callable
    binary: bool = True  # a BinaryTextClassifier (selected_features_, one positive class)
    resolve: Callable | None = None


def class_loader(module: str, name: str) -> Callable[[], type]:
    """A loader for one whitelisted class: both strings are constants of the codec modules, never
    read from a file."""
    def load():
        return getattr(importlib.import_module(module), name)
    load.__qualname__ = f"load_{name}"
    return load


# --------------------------------------------------------------------------- shared pieces
def base_to_state(est, w: StateWriter) -> dict:
    """The BinaryTextClassifier attributes: classes, input width, selected columns and their scores."""
    return {
        "classes_": w.classes(est.classes_),
        "n_features_in_": int(est.n_features_in_),
        "selected_features_": w.array("selected_features_", est.selected_features_, np.int64),
        "feature_scores_": w.array("feature_scores_", np.asarray(est.feature_scores_, dtype=np.float64)),
    }


def base_from_state(est, st: dict, r: StateReader) -> int:
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


def one_number(r, st, name):
    """A stored number (any array holding one float, NaN allowed), returned in its stored shape."""
    a = r.array(st, name, "float64", allow_nan=True)
    if a.size != 1:
        raise r.error(name, f"expected one number, got shape {a.shape}")
    return float(a) if a.ndim == 0 else a


# --------------------------------------------------------------------------- Bernoulli NB
def _nb_to(est, w):
    s = base_to_state(est, w)
    s.update(feature_log_prob_=w.array("feature_log_prob_", est.feature_log_prob_),
             feature_log_prob_off_=w.array("feature_log_prob_off_", est.feature_log_prob_off_),
             class_log_prior_=w.array("class_log_prior_", est.class_log_prior_))
    return s


def _nb_from(est, st, r):
    m = base_from_state(est, st, r)
    on = r.array(st, "feature_log_prob_", "float64", shape=(2, m), finite=True, hi=0.0)
    off = r.array(st, "feature_log_prob_off_", "float64", shape=(2, m), finite=True, hi=0.0)
    # thesis sec. 1.1.3: P(F=1 | c) + P(F=0 | c) = 1
    if np.max(np.abs(np.exp(on) + np.exp(off) - 1.0)) > 1e-9:
        raise r.error("feature_log_prob_off_", "P(F=1 | c) + P(F=0 | c) differs from 1")
    est.feature_log_prob_, est.feature_log_prob_off_ = on, off
    est.class_log_prior_ = _log_prior_pair(r, st, "class_log_prior_")


# --------------------------------------------------------------------------- linear SVM
def _svm_to(est, w):
    s = base_to_state(est, w)
    svm = est.svm_
    s.update(coef_=w.array("svm.coef_", svm.coef_), intercept_=w.array("svm.intercept_", svm.intercept_),
             svm_classes_=w.array("svm.classes_", svm.classes_, np.int64),
             n_iter_=int(np.max(svm.n_iter_)), sigmoid_A_=float(est.sigmoid_A_), sigmoid_B_=float(est.sigmoid_B_))
    return s


def _lr_to(est, w):
    s = base_to_state(est, w)
    s.update(coef_=w.array("coef_", est.coef_), intercept_=float(est.intercept_), n_iter_=int(est.n_iter_))
    return s


def _lr_from(est, st, r):
    m = base_from_state(est, st, r)
    est.coef_ = r.array(st, "coef_", "float64", shape=(m,), finite=True)
    est.intercept_ = r.float(st, "intercept_")
    est.n_iter_ = r.int(st, "n_iter_", lo=0)
    return est


def _svm_from(est, st, r):
    from sklearn.svm import LinearSVC

    m = base_from_state(est, st, r)
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
    s = base_to_state(est, w)
    inner = est.model_
    s.update(feature_log_prob_=w.array("model.feature_log_prob_", inner.feature_log_prob_),
             feature_log_prob_neg_=w.array("model.feature_log_prob_neg_", inner.feature_log_prob_neg_),
             class_log_prior_=w.array("model.class_log_prior_", inner.class_log_prior_))
    return s


def _mnb_from(est, st, r):
    from hbnlab.models.multinomial_nb import MultinomialNBClassifier

    m = base_from_state(est, st, r)
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
    s = base_to_state(est, w)
    s.update(weights_=w.array("model.weights_", est.model_.weights_),
             n_parents_=w.array("model.n_parents_", est.model_.n_parents_, np.int64))
    return s


def _or_from(est, st, r):
    from hbnlab.models.or_gate import LOG_FLOOR, WEIGHT_METHODS, NoisyORClassifier

    m = base_from_state(est, st, r)
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
    s = base_to_state(est, w)
    s.update(idf_=w.array("model.idf_", est.model_.idf_),
             prototypes_=w.array("model.prototypes_", est.model_.prototypes_))
    return s


def _rocchio_from(est, st, r):
    from hbnlab.models.rocchio import RocchioClassifier

    m = base_from_state(est, st, r)
    inner = RocchioClassifier(beta=est.beta, gamma=est.gamma, sublinear_tf=est.sublinear_tf)
    inner.idf_ = r.array(st, "idf_", "float64", shape=(m,), finite=True, lo=0.0)
    inner.prototypes_ = r.array(st, "prototypes_", "float64", shape=(1, m), finite=True, lo=-1.0, hi=1.0)
    inner.n_features_in_, inner.n_classes_ = m, 1
    est.model_ = inner


# --------------------------------------------------------------------------- k-dependence BN
def _kdb_to(est, w):
    s = base_to_state(est, w)
    s.update(class_mi_=w.array("class_mi_", est.class_mi_), order_=w.array("order_", est.order_, np.int64),
             parents_=w.array("parents_", est.parents_, np.int64),
             parent_cmi_=w.array("parent_cmi_", est.parent_cmi_),
             theta_=w.array("theta_", est.theta_), class_log_prior_=w.array("class_log_prior_", est.class_log_prior_))
    return s


def _kdb_from(est, st, r):
    from hbnlab.models.kdb import moebius

    m = base_from_state(est, st, r)
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
    # loop over the (few) selected terms: the acyclicity invariant of Chakrabarti 2003, fig. 5.8
    for j in range(m):
        for p in parents[j]:
            if p >= 0 and pos[p] >= pos[j]:
                raise r.error("parents_", f"term {j} has parent {int(p)} that comes later in order_ (a cycle)")
        real = parents[j][parents[j] >= 0]
        if np.unique(real).size != real.size:
            raise r.error("parents_", f"term {j} lists a parent twice")
    est.order_, est.parents_ = order, parents
    est.parent_cmi_ = r.array(st, "parent_cmi_", "float64", shape=(m, k), allow_nan=True)
    # Chakrabarti 2003, eq. 5.18 with alpha > 0 gives 0 < theta < 1, so every log below is finite
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
    est.poly_coef_ = moebius(table)


# --------------------------------------------------------------------------- k nearest neighbours
def _knn_to(est, w):
    s = base_to_state(est, w)
    X = est.train_counts_
    s.update(train_counts_data_=w.array("train_counts.data", X.data, np.float64),
             train_counts_indices_=w.array("train_counts.indices", X.indices, np.int64),
             train_counts_indptr_=w.array("train_counts.indptr", X.indptr, np.int64),
             train_labels_=w.array("train_labels_", est.train_labels_, np.int8))
    return s


def _knn_from(est, st, r):
    from hbnlab.models.knn import WEIGHTINGS

    m = base_from_state(est, st, r)
    k = est.k
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ModelFileError(r.source, "params.k", f"must be an integer >= 1, got {k!r}")
    if est.weighting not in WEIGHTINGS:
        raise ModelFileError(r.source, "params.weighting", f"must be one of {WEIGHTINGS}, got {est.weighting!r}")
    labels = r.array(st, "train_labels_", "int8", ndim=1, lo=0, hi=1)
    n = labels.size
    if n == 0 or labels.min() == labels.max():
        raise r.error("train_labels_", "needs positive and negative training documents")
    indptr = r.array(st, "train_counts_indptr_", "int64", shape=(n + 1,), lo=0)
    if indptr[0] != 0 or np.any(np.diff(indptr) < 0):
        raise r.error("train_counts_indptr_", "must start at 0 and never decrease")
    nnz = int(indptr[-1])
    indices = r.array(st, "train_counts_indices_", "int64", shape=(nnz,), lo=0, hi=m - 1)
    data = r.array(st, "train_counts_data_", "float64", shape=(nnz,), finite=True, lo=0.0)
    est.train_counts_ = sp.csr_matrix((data, indices, indptr), shape=(n, m))
    est.train_labels_ = labels
    est.build_index()  # the same operations as KNNBinaryClassifier.fit: bit-identical scores


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


def _wgnb_to(est, w):
    s = base_to_state(est, w)
    s["model_"] = _wcnb_to(est.model_, w)
    return s


def _wgnb_from(est, st, r):
    from hbnlab.models.word_cluster_nb import WordClusterNB

    m = base_from_state(est, st, r)
    sub = st.get("model_")
    if not isinstance(sub, dict):
        raise r.error("model_", "missing or not an object")
    model = WordClusterNB(est.n_clusters, pool_size=est.pool_size, alpha=est.alpha)
    _wcnb_from(model, sub, r)
    if model.n_features_in_ != m or model.classes_.size != 2:
        raise r.error("model_", f"expects {model.n_features_in_} terms and {model.classes_.size} classes; "
                                f"the classifier selects {m} terms of 2 classes")
    est.model_ = model


# --------------------------------------------------------------------------- hierarchical NB
def _hier_to(est, w):
    s = base_to_state(est, w)
    s["path_"] = list(est.path_)
    s["nodes_"] = [{"node": m.node, "classes": list(m.classes), "target": int(m.target),
                    "features": w.array(f"node{i}.features", m.features, np.int64),
                    "log_prior": w.array(f"node{i}.log_prior", m.log_prior),
                    "log_theta": w.array(f"node{i}.log_theta", m.log_theta),
                    "lambdas": w.array(f"node{i}.lambdas", m.lambdas)} for i, m in enumerate(est.nodes_)]
    return s


def _hier_from(est, st, r):
    from hbnlab.models.hierarchical import NodeModel

    m = base_from_state(est, st, r)
    path = r.get(st, "path_")
    if not (isinstance(path, list) and len(path) >= 2 and all(isinstance(p, str) for p in path) and path[0] == ""):
        raise r.error("path_", "expected a list of node names starting with the root ''")
    nodes = r.get(st, "nodes_")
    if not isinstance(nodes, list) or len(nodes) != len(path) - 1:
        raise r.error("nodes_", f"expected one node model per internal node of path_ ({len(path) - 1})")
    models = []
    for i, nd in enumerate(nodes):
        ri = r.sub(f"nodes_[{i}]")
        node = ri.get(nd, "node")
        if node != path[i]:
            raise ri.error("node", f"expected {path[i]!r} (path_[{i}]), got {node!r}")
        classes = ri.get(nd, "classes")
        if not (isinstance(classes, list) and classes and all(isinstance(c, str) for c in classes)
                and len(set(classes)) == len(classes)):
            raise ri.error("classes", "expected a list of distinct class names")
        k = len(classes)
        target = ri.int(nd, "target", lo=0, hi=k - 1)
        if classes[target] != path[i + 1]:
            raise ri.error("target", f"class {classes[target]!r} is not the next node of path_ ({path[i + 1]!r})")
        feats = ri.array(nd, "features", "int64", ndim=1, lo=0, hi=m - 1)
        if (feats.size == 0) != (k == 1):
            raise ri.error("features", "a node selects terms exactly when it has more than one class")
        # McCallum et al. 1998: every row a distribution over the node's terms, the weights too
        log_theta = (ri.distribution(nd, "log_theta", shape=(k, feats.size), log=True) if feats.size
                     else ri.array(nd, "log_theta", "float64", shape=(1, 0)))
        log_prior = ri.distribution(nd, "log_prior", shape=(k,), log=True)
        for name, a in (("log_theta", log_theta), ("log_prior", log_prior)):
            if not np.all(np.isfinite(a)):
                raise ri.error(name, "log-probabilities must be finite")
        lam = ri.array(nd, "lambdas", "float64", ndim=2)
        if lam.shape[0] != k or lam.shape[1] not in (0, i + 3):
            raise ri.error("lambdas", f"expected shape ({k}, 0) or ({k}, {i + 3}), got {lam.shape}")
        if lam.shape[1]:
            ri.distribution(nd, "lambdas", shape=(k, i + 3))
        models.append(NodeModel(node, tuple(classes), feats, log_prior, log_theta, lam, target))
    est.path_ = tuple(path)
    est.nodes_ = models


# --------------------------------------------------------------------------- the codecs
CODECS = (
    LearnerCodec("BernoulliNBClassifier", class_loader("hbnlab.models.naive_bayes", "BernoulliNBClassifier"),
                 ("N0", "n_features", "selection"), _nb_to, _nb_from),
    LearnerCodec("LinearSVMClassifier", class_loader("hbnlab.models.svm", "LinearSVMClassifier"),
                 ("C", "n_features", "selection", "binary", "random_state"), _svm_to, _svm_from),
    LearnerCodec("LogisticRegressionClassifier", class_loader("hbnlab.models.logistic", "LogisticRegressionClassifier"),
                 ("C", "n_features", "selection", "random_state"), _lr_to, _lr_from),
    LearnerCodec("MultinomialNBBinaryClassifier",
                 class_loader("hbnlab.models.multinomial_nb", "MultinomialNBBinaryClassifier"),
                 ("alpha", "binary", "n_features", "selection"), _mnb_to, _mnb_from),
    LearnerCodec("NoisyORBinaryClassifier", class_loader("hbnlab.models.or_gate", "NoisyORBinaryClassifier"),
                 ("weights", "counts", "leak", "n_features", "selection"), _or_to, _or_from),
    LearnerCodec("RocchioBinaryClassifier", class_loader("hbnlab.models.rocchio", "RocchioBinaryClassifier"),
                 ("beta", "gamma", "sublinear_tf", "n_features", "selection"), _rocchio_to, _rocchio_from),
    LearnerCodec("KNNBinaryClassifier", class_loader("hbnlab.models.knn", "KNNBinaryClassifier"),
                 ("k", "weighting", "n_features", "selection"), _knn_to, _knn_from),
    LearnerCodec("KDependenceBNClassifier", class_loader("hbnlab.models.kdb", "KDependenceBNClassifier"),
                 ("k", "alpha", "min_cmi", "block_size", "n_features", "selection"), _kdb_to, _kdb_from),
    LearnerCodec("HierarchicalShrinkageNBClassifier",
                 class_loader("hbnlab.models.hierarchical", "HierarchicalShrinkageNBClassifier"),
                 ("n_features", "selection", "shrinkage", "alpha", "held_out", "max_iter", "tol", "random_state"),
                 _hier_to, _hier_from),
    LearnerCodec("WordClusterNB", class_loader("hbnlab.models.word_cluster_nb", "WordClusterNB"),
                 ("n_clusters", "pool_size", "alpha"), _wcnb_to, _wcnb_from, binary=False),
    LearnerCodec("WordGroupNBClassifier", class_loader("hbnlab.models.word_cluster_nb", "WordGroupNBClassifier"),
                 ("n_clusters", "pool_size", "alpha", "n_features", "selection"), _wgnb_to, _wgnb_from),
)
