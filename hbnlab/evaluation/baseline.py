"""The baseline check: every HBN / HNB result beside naive Bayes, logistic regression and the linear
SVM with the same terms, and a plain warning when the tree model is below naive Bayes.

One function serves every place a tree model's result is shown (the command line's Table 4.10,
the Evaluation page, the report), so they say the same thing in the same words.
"""
from __future__ import annotations

from dataclasses import dataclass

#: the learners a tree model is checked against, by catalogue name
NB, LR, SVM = "NB", "LR", "SVM"


def _is_tree(name: str) -> bool:
    return str(name).upper().startswith(("HBN-", "HNB-"))


@dataclass(frozen=True)
class BaselineNote:
    """One tree row against the baselines with the same number of terms.

    ``below_nb`` is True when the tree row's micro breakeven is below naive Bayes's.
    """

    classifier: str
    n_features: object
    micro: float
    nb: float | None
    svm: float | None
    lr: float | None = None

    @property
    def below_nb(self) -> bool:
        return self.nb is not None and self.micro < self.nb

    def text(self, where: str = "") -> str:
        terms = f" ({self.n_features} terms)" if self.n_features is not None else ""
        on = f" on the {where}" if where else ""
        if self.nb is None:
            return (f"{self.classifier}{terms}: no naive Bayes with the same terms to compare with{on}; "
                    f"train NB beside it")
        svm = ("" if self.lr is None else f", logistic regression {self.lr:.1f}") + \
            ("" if self.svm is None else f", the linear SVM {self.svm:.1f}")
        if self.below_nb:
            advice = ("Choose between them on validation (training-0 -> validation or the Tuning page), not on "
                      "the test set." if "test" in where else
                      "Naive Bayes does better here at these terms.")
            return (f"Warning: {self.classifier}{terms} is below naive Bayes with the same terms{on}: micro "
                    f"breakeven {self.micro:.1f} against {self.nb:.1f}{svm}. {advice}")
        return (f"{self.classifier}{terms}: micro breakeven {self.micro:.1f}{on}, naive Bayes with the same "
                f"terms {self.nb:.1f}{svm}.")


def baseline_notes(rows) -> list[BaselineNote]:
    """``rows``: mappings with ``classifier``, ``n_features`` and ``micro`` (micro breakeven, %).

    One note per tree row (HBN-* / HNB-*), compared with the NB, LR and SVM rows of the same
    ``n_features`` (the first of each when there are several).  Rows are matched on the number of
    terms as given: ``"per class"`` matches ``"per class"`` only.
    """
    rows = list(rows)

    def first(name, n):
        for r in rows:
            if str(r["classifier"]).upper() == name and r.get("n_features") == n:
                return float(r["micro"])
        return None

    return [BaselineNote(str(r["classifier"]), r.get("n_features"), float(r["micro"]),
                         first(NB, r.get("n_features")), first(SVM, r.get("n_features")),
                         first(LR, r.get("n_features")))
            for r in rows if _is_tree(r["classifier"])]


__all__ = ["BaselineNote", "baseline_notes"]
