"""Training's table of a finished job's models reads as numbers a reader expects: a learner without
EM (naive Bayes) has blank EM cells, not "None", and breakevens have one decimal, not four."""
from __future__ import annotations

import re

from app_testutil import displayed, no_exceptions, wait_for_jobs

from hbnlab.pipeline.config import ExperimentConfig


def test_models_table_shows_blanks_and_one_decimal(app):
    from hbnlab.app import job_client

    cfg = ExperimentConfig(corpus="synthetic", synthetic_size=600, n_features=10, n_restarts=2, B_or=3)
    job = job_client.submit_train(cfg, classes=["alpha"], classifiers=["HBN-OR", "NB"])
    assert all(r.state == "done" for r in wait_for_jobs(240, ids=[job]))
    app.session_state["hbnlab.config"] = cfg
    app.run()
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    (element,) = [d for d in app.dataframe if "EM iterations" in d.value.columns]
    values, text = element.value, displayed(element)
    nb = list(values["classifier"]).index("NB")
    hbn = 1 - nb
    assert text.loc[nb, "EM iterations"] == "" and text.loc[nb, "log-likelihood"] == ""
    assert "None" not in text.to_numpy().ravel().tolist()
    for row in (nb, hbn):
        assert re.fullmatch(r"\d+\.\d", text.loc[row, "breakeven (%)"]), text.loc[row, "breakeven (%)"]
        assert float(text.loc[row, "breakeven (%)"]) == round(values["breakeven (%)"].iloc[row], 1)
    assert re.fullmatch(r"\d+", text.loc[hbn, "EM iterations"])
    assert re.fullmatch(r"-?\d+\.\d", text.loc[hbn, "log-likelihood"])
