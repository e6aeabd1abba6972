"""Compare says its numbers as a reader expects (no "p = 0.000", no "−0.0") and says when the jobs'
class sets differ: the top table then covers the classes every job has, the paired box the pair's."""
from __future__ import annotations

import numpy as np
import pandas as pd
from app_testutil import displayed, no_exceptions, shown, wait_for_jobs

from hbnlab.app.views import compare
from hbnlab.app.views.results import TrainOutputs
from hbnlab.pipeline.config import ExperimentConfig


def _outputs(job_id, classes, classifiers=("NB", "HBN-OR"), n=60, seed=0):
    rng = np.random.default_rng(seed)
    Y = rng.random((n, len(classes))) < 0.3
    Y[0] = True
    S = rng.random((n, len(classes) * len(classifiers)))
    columns = [f"{c}|{k}" for c in classes for k in classifiers]
    return TrainOutputs(job_id, {"config": {"n_features": 30}}, S, [str(i) for i in range(n)], columns, list(classes),
                        list(classifiers), Y, "test", "synthetic", True, 30, [])


def test_signed_differences_never_read_minus_zero():
    assert [compare.signed_text(x) for x in (-0.04, 0.04, 0.0, -0.0, -1.06, 2, 0.05, np.nan)] == \
        ["0.0", "0.0", "0.0", "0.0", "−1.1", "+2.0", "+0.1", ""]


def test_p_values_below_what_is_shown_say_so():
    assert compare.p_text(0.0, 1000) == "< 0.001"
    assert compare.p_text(0.0, 200) == "< 0.005"      # no resample of 200 reached it: p < 1/200, not < 0.001
    assert compare.p_text(0.0, 2000) == "< 0.001"
    assert compare.p_text(0.0004) == "< 0.001"
    assert compare.p_text(0.0421, 1000) == "0.042"
    assert compare.p_text(np.nan) == ""


def test_the_verdict_says_p_below_and_no_minus_zero():
    boot = pd.DataFrame({"A": [80.0, 70.0], "B": [79.96, 73.0], "B - A": [-0.04, 3.0], "low": [-0.03, 1.2],
                         "high": [0.9, 4.81], "p": [0.0, 0.0], "resamples": [1000, 1000]}, index=["micro", "macro"])
    text = compare.verdict(boot, "#1 · NB", "#1 · HBN-OR")
    assert text == ("micro breakeven #1 · HBN-OR 0.0 points against #1 · NB (0.0 to +0.9, p < 0.001): a difference "
                    "the resampling supports; macro breakeven #1 · HBN-OR +3.0 points against #1 · NB (+1.2 to "
                    "+4.8, p < 0.001): a difference the resampling supports.")
    shown_boot = compare.bootstrap_frame(boot, "#1 · NB", "#1 · HBN-OR")
    assert list(shown_boot["p"]) == ["< 0.001", "< 0.001"] and shown_boot["difference"].dtype == float


def test_different_class_sets_are_named_in_the_table_and_in_the_paired_box():
    outputs = {1: _outputs(1, ["earn", "acq", "trade"]), 2: _outputs(2, ["earn", "acq"], ("NB",))}
    systems = [(1, "NB"), (1, "HBN-OR"), (2, "NB")]
    (note,) = compare.class_notes(outputs, systems)
    assert note == ("The jobs were trained on different classes: the table covers the 2 they all have ('earn', "
                    "'acq'), its micro and macro rows too; job #1 also has 'trade', left out here.")
    assert list(compare.side_by_side(outputs, systems).index) == ["earn", "acq", "micro", "macro"]
    pair = compare.pair_class_note(outputs, systems, (1, "NB"), (1, "HBN-OR"))
    assert pair.startswith("This comparison covers the 3 classes both #1 · NB and #1 · HBN-OR have, the table above "
                           "the 2 every chosen system has ('earn', 'acq')")
    assert compare.pair_class_note(outputs, systems, (1, "NB"), (2, "NB")) is None
    assert compare.class_notes(outputs, systems[:2]) == []
    assert compare.pair_class_note(outputs, systems[:2], (1, "NB"), (1, "HBN-OR")) is None


def test_compare_page_shows_the_class_notes_and_readable_numbers(app):
    from hbnlab.app import job_client

    base = ExperimentConfig(corpus="synthetic", synthetic_size=600, n_features=10, n_restarts=1, B_or=3)
    first = job_client.submit_train(base, classes=["alpha", "bravo"], classifiers=["NB", "HBN-OR"])
    second = job_client.submit_train(base, classes=["alpha"], classifiers=["NB"])
    assert all(r.state == "done" for r in wait_for_jobs(240, ids=[first, second]))
    app.session_state["hbnlab.config"] = base
    app.run()
    app.switch_page("pages/compare.py").run()
    no_exceptions(app)
    app.multiselect(key="c_systems").set_value([f"#{first} · NB", f"#{first} · HBN-OR", f"#{second} · NB"]).run()
    app.selectbox(key="c_other").set_value(f"#{first} · HBN-OR").run()
    no_exceptions(app)
    warnings = [shown(w.value) for w in app.warning]
    assert any(w.startswith("The jobs were trained on different classes: the table covers the 1 they all have "
                            f"('alpha'), its micro and macro rows too; job #{first} also has 'bravo'")
               for w in warnings), warnings
    assert any(w.startswith(f"This comparison covers the 2 classes both #{first} · NB and #{first} · HBN-OR have")
               for w in warnings), warnings
    shown_cells = [str(v) for df in app.dataframe for v in displayed(df).to_numpy().ravel()]
    assert shown_cells and not any(v in ("-0.0", "−0.0", "0.000", "+0.0") for v in shown_cells), shown_cells
    verdict = " ".join(i.value for i in app.info)
    assert "points against" in verdict and "p = 0.000" not in verdict and "−0.0" not in verdict
    # the baseline check: the HBN system beside its own job's NB with the same terms
    notes = warnings + [shown(c.value) for c in app.caption]
    assert any(n.startswith(f"#{first} · ") and "HBN-OR (10 terms)" in n and "naive Bayes" in n for n in notes), notes
