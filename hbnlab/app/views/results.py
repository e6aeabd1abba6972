"""The Evaluation page: a finished train job's scores aligned with the labels of its split, and
every table and curve the page shows.

:class:`TrainOutputs` gives the breakeven per class x classifier with micro / macro rows (built by
:func:`hbnlab.export.report.breakeven_by_classifier`, with thesis Table 4.10 beside ours on
Reuters ModApte test), the ranking measures (11-point average precision, F1@k), PR curves,
threshold statistics, per-document scores and the models' table.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from hbnlab.evaluation.single_label import (
    confused_rows,
    confusion_matrix,
    largest_confusions,
    one_of_n_accuracy,
    single_label_problem,
)
from hbnlab.experiments import paper_values as pv
from hbnlab.export.report import breakeven_by_classifier
from hbnlab.pipeline.config import ExperimentConfig


def _f1(p, r):
    p, r = np.asarray(p, float), np.asarray(r, float)
    s = p + r
    return np.divide(2 * p * r, s, out=np.zeros_like(s), where=s > 0)


@dataclass
class TrainOutputs:
    """A finished train job's evaluation scores aligned with the labels of its split.

    ``S[:, k]`` holds P(class | document) of unit ``columns[k]`` (``"class|classifier"``) for
    the evaluation documents ``doc_ids``; ``Y[:, j]`` is the truth for ``classes[j]``.
    """

    job_id: int
    result: dict
    S: np.ndarray
    doc_ids: list
    columns: list
    classes: list
    classifiers: list
    Y: np.ndarray
    stage: str
    corpus_name: str
    synthetic: bool
    n_features: int
    units: list = field(default_factory=list)
    #: The job's config, parsed once (None for a config another version wrote: shown as stored).
    config: ExperimentConfig | None = None

    @classmethod
    def build(cls, job_id, result, S, doc_ids, columns, data, config: ExperimentConfig | None = None) -> TrainOutputs:
        stage = result.get("stage", "test")
        Y_eval, eval_docs = data.evaluation(stage)
        ids = [d.id for d in eval_docs]
        if ids != list(doc_ids):
            raise ValueError(f"job {job_id}: its evaluation documents differ from the current corpus "
                             f"({len(doc_ids)} vs {len(ids)} documents); reload the corpus it was trained on")
        classes = list(result["classes"])
        Y = Y_eval[:, [data.category_index(c) for c in classes]]
        return cls(job_id, result, np.asarray(S, float), list(doc_ids), list(columns), classes,
                   list(result["classifiers"]), Y.astype(bool), stage, result.get("corpus", ""),
                   bool(result.get("synthetic")), int(result["config"].get("n_features", 30)),
                   list(result.get("units", [])), config if config is not None else parse_config(result))

    # ---------------------------------------------------------------- lookups
    def job_config(self) -> ExperimentConfig:
        """The job's config (ValueError when its stored form cannot be read by this version)."""
        if self.config is None:
            raise ValueError(f"job {self.job_id}: its stored config cannot be read by this version")
        return self.config

    def unit(self, key: str) -> dict:
        for u in self.units:
            if f"{u['class']}|{u['classifier']}" == key:
                return u
        raise KeyError(f"job {self.job_id} has no model {key!r}; it has {self.columns}")

    def column(self, label: str, classifier: str) -> int:
        return self.columns.index(f"{label}|{classifier}")

    def scores_of(self, classifier: str) -> np.ndarray:
        """(n_documents, n_classes) scores of one classifier, columns in ``classes`` order."""
        return self.S[:, [self.column(c, classifier) for c in self.classes]]

    def y_of(self, label: str) -> np.ndarray:
        return self.Y[:, self.classes.index(label)]

    def compare_with_thesis(self) -> bool:
        """Thesis Table 4.10 applies: Reuters ModApte, test split, the thesis's ten classes (its
        micro and macro averages describe those ten only), one number of terms for every class."""
        from hbnlab.pipeline.corpus_spec import is_reuters_modapte

        return (is_reuters_modapte(self.corpus_name) and self.stage == "test"
                and sorted(self.classes) == sorted(pv.THESIS_CLASSES) and not self.result.get("class_settings")
                and (self.config is None or self.config.stopwords == "thesis"))

    # ---------------------------------------------------------------- tables
    def breakeven_frame(self) -> pd.DataFrame:
        """Breakeven (%) per class x classifier with micro and macro rows (thesis sec. 4.1.3:
        micro pools every decision of the classes, macro averages the per-class values).
        On Reuters ModApte test, a ``thesis <name>`` column from Table 4.10 follows each of ours."""
        refs = None
        if self.compare_with_thesis():
            refs = {name: pv.table_4_10_row(name, self.n_features) for name in self.classifiers}
        return breakeven_by_classifier(self.Y, {name: self.scores_of(name) for name in self.classifiers}, self.classes,
                                       refs, reference_column="thesis {}", index_name="class")

    def baseline_notes(self, table: pd.DataFrame | None = None) -> list:
        """The baseline check of every HBN / HNB classifier of the job: its micro breakeven beside
        NB's and SVM's of the same job (the same terms), :func:`hbnlab.evaluation.baseline.baseline_notes`.
        ``table``: :meth:`breakeven_frame` when the caller has it already."""
        from hbnlab.evaluation.baseline import baseline_notes

        table = self.breakeven_frame() if table is None else table
        terms = "per class" if self.result.get("class_settings") else self.n_features
        return baseline_notes({"classifier": name, "n_features": terms, "micro": float(table.loc["micro", name])}
                              for name in self.classifiers)

    def ranking_frame(self, ks=(1, 3, 5)) -> pd.DataFrame:
        """Per classifier: micro / macro breakeven, one-of-n accuracy (only when every document has
        exactly one of the classes, :meth:`single_label_problem`), 11-point average precision and F1@k
        (micro and macro), in percent (de Campos et al., sec. 4).  The ranking measures rank the
        trained classes for each document, so they need at least two classes."""
        from hbnlab.evaluation import eleven_point_average_precision, f1_at_k, macro_breakeven, micro_breakeven

        rows = []
        n = len(self.classes)
        for name in self.classifiers:
            S = self.scores_of(name)
            row = {"classifier": name, "micro breakeven": 100 * micro_breakeven(self.Y, S),
                   "macro breakeven": 100 * macro_breakeven(self.Y, S)}
            if self.single_label_problem() is None:
                row["accuracy"] = 100 * one_of_n_accuracy(self.Y, S)
            if n >= 2:
                row["11-pt avg precision"] = 100 * float(eleven_point_average_precision(self.Y, S))
                for k in ks:
                    if k <= n:
                        row[f"F1@{k} micro"] = 100 * float(f1_at_k(self.Y, S, k, average="micro"))
                        row[f"F1@{k} macro"] = 100 * float(f1_at_k(self.Y, S, k, average="macro"))
            rows.append(row)
        return pd.DataFrame(rows).set_index("classifier")

    # ---------------------------------------------------------------- one-of-n decisions
    def single_label_problem(self) -> str | None:
        """``None`` when every evaluation document has exactly one of the job's classes (accuracy and
        the confusion matrix apply), else why not, in words."""
        problem = single_label_problem(self.Y, what="evaluation documents")
        if problem is None:
            return None
        return (f"{problem}; accuracy and the confusion matrix need exactly one of the trained classes per "
                f"document (a single-label corpus with every class trained)")

    def accuracy_frame(self) -> pd.DataFrame:
        """Per classifier: one-of-n accuracy (%), the documents given their true class, and all
        documents (the class with the highest score wins, ties to the first class).  ``accuracy``
        is NaN when :meth:`single_label_problem` says it does not apply."""
        n = len(self.doc_ids)
        rows = []
        for name in self.classifiers:
            acc = one_of_n_accuracy(self.Y, self.scores_of(name))
            rows.append({"classifier": name, "accuracy": 100 * acc,
                         "right": None if np.isnan(acc) else int(round(acc * n)), "documents": n})
        return pd.DataFrame(rows).set_index("classifier")

    def confusion(self, classifier: str) -> np.ndarray:
        """The one-of-n confusion matrix of ``classifier`` (rows: true class, columns: given class,
        in ``classes`` order); ValueError naming why on a job that is not single-label."""
        return confusion_matrix(self.Y, self.scores_of(classifier))

    def confusion_frame(self, classifier: str) -> pd.DataFrame:
        """The confusions of ``classifier``, largest first (:func:`largest_confusions`)."""
        return largest_confusions(self.confusion(classifier), self.classes)

    def confused_documents(self, classifier: str, true: str, given: str) -> pd.DataFrame:
        """The evaluation documents of class ``true`` given ``given`` by ``classifier``, highest
        P(given | document) first, with P(true | document) beside it (``true == given``: the right ones)."""
        S = self.scores_of(classifier)
        i, j = self.classes.index(true), self.classes.index(given)
        rows = confused_rows(self.Y, S, i, j)
        df = pd.DataFrame({"doc_id": [self.doc_ids[r] for r in rows], f"P({given})": S[rows, j],
                           f"P({true})": S[rows, i]})
        if true == given:
            df = df.iloc[:, :2]
        return df.sort_values(f"P({given})", ascending=False, kind="stable").reset_index(drop=True)

    def pr_curve(self, label: str, classifier: str):
        """``(precision, recall, breakeven)`` of one unit (breakeven as a fraction)."""
        from hbnlab.evaluation import breakeven_point, pr_curve

        y, s = self.y_of(label), self.S[:, self.column(label, classifier)]
        p, r, _ = pr_curve(y, s)
        return p, r, float(breakeven_point(y, s))

    def threshold_curve(self, label: str, classifier: str):
        """``(thresholds, precision, recall, f1)`` of assigning the class where score >= t."""
        from hbnlab.evaluation import pr_curve

        p, r, t = pr_curve(self.y_of(label), self.S[:, self.column(label, classifier)])
        p, r = p[:-1], r[:-1]  # drop the appended (P=1, R=0) point: it has no threshold
        return t, p, r, _f1(p, r)

    def threshold_stats(self, label: str, classifier: str, threshold: float) -> dict:
        from hbnlab.evaluation import precision_recall_f1_at_threshold

        y, s = self.y_of(label), self.S[:, self.column(label, classifier)]
        p, r, f1 = precision_recall_f1_at_threshold(y, s, float(threshold))
        return {"precision": p, "recall": r, "F1": f1, "assigned": int((s >= threshold).sum()),
                "positives": int(y.sum())}

    def document_scores(self) -> pd.DataFrame:
        df = pd.DataFrame(self.S, columns=self.columns)
        df.insert(0, "doc_id", self.doc_ids)
        for j, c in enumerate(self.classes):
            df[f"true:{c}"] = self.Y[:, j].astype(int)
        return df

    def units_frame(self) -> pd.DataFrame:
        rows = []
        for u in self.units:
            rows.append({"class": u["class"], "classifier": u["classifier"],
                         "breakeven (%)": 100 * u.get("breakeven", np.nan), "seconds": u.get("seconds"),
                         "EM iterations": u.get("n_iter"), "converged": u.get("converged"),
                         "log-likelihood": u.get("loglik")})
        return pd.DataFrame(rows)

    def ranked_documents(self, label: str, classifier: str, limit: int = 50) -> pd.DataFrame:
        s = self.S[:, self.column(label, classifier)]
        order = np.argsort(-s, kind="stable")[:limit]
        return pd.DataFrame({"doc_id": [self.doc_ids[i] for i in order], "score": s[order],
                             "true": self.y_of(label)[order].astype(bool)})


def parse_config(result: dict) -> ExperimentConfig | None:
    """``result["config"]`` as an :class:`~hbnlab.pipeline.config.ExperimentConfig`, None when
    absent or written by another version."""
    try:
        return ExperimentConfig.from_dict(result["config"])
    except (KeyError, TypeError, ValueError):
        return None
