"""A small sweep on Reuters-21578 ModApte (slow: indexing the corpus)."""
from __future__ import annotations

import numpy as np
import pytest

from hbnlab.experiments import sweep as sw

pytestmark = pytest.mark.slow


def test_reuters_has_the_thesis_90_categories(reuters_corpus):
    cats = sw.resolve_categories(reuters_corpus, "all")
    assert len(cats) == 90 and cats[:3] == ["earn", "acq", "money-fx"]
    assert sw.resolve_categories(reuters_corpus, "top10")[-1] == "corn"


def test_reuters_final_only_sweep_matches_direct_fits(reuters_corpus, tmp_path):
    from hbnlab.evaluation import breakeven_point
    from hbnlab.jobs import LocalProcessRunner
    from hbnlab.models.catalog import make_classifier
    from hbnlab.pipeline.data import prepare

    config = sw.SweepConfig(categories=("earn", "trade", "income"), clusterings=("avg", "dep"), final_only=True,
                            n_restarts=8, random_state=0)
    data = sw.prepare_sweep_data(reuters_corpus, config)
    assert data.corpus_info["n_train"] == 7770 and data.corpus_info["n_test"] == 3019
    with LocalProcessRunner(tmp_path / "runs", max_workers=2) as runner:
        result = sw.run_sweep(config, data, runner, sweep_id="reuters-small", timeout=600)
    assert result.state == "done", result.errors
    table = result.table
    assert [r["classifier"] for r in table["rows"]] == ["HBN-AVG", "HBN-DEP", "NB"]
    assert [(r["classifier"], r["micro"], r["macro"]) for r in table["reference"]] == [
        ("NBayes", 73.485, 26.407), ("OR-eq12", 66.649, 55.917), ("OR-eq17", 76.555, 54.370)]
    assert table["rows"][0]["configs"] == {"B=7 alpha=0.05 nf=30": 3}
    assert table["per_class"]["HBN-AVG"]["earn"] > 90  # thesis Table 4.10: 95.4
    # oracle: the direct fit on the full term matrix, same seed
    pdata = prepare(reuters_corpus, categories=["earn", "trade", "income"])
    j = 1
    est = make_classifier("HBN-DEP", 30, {"n_restarts": 8}, random_state=sw.cell_seed(0, "trade", "HBN-DEP"))
    est.fit(pdata.X_train, pdata.Y_train[:, j].astype(np.int8), selected_features=pdata.ranked_features(j)[:30])
    expected = 100 * breakeven_point(pdata.Y_test[:, j], est.decision_function(pdata.X_test))
    assert table["per_class"]["HBN-DEP"]["trade"] == pytest.approx(expected, abs=1e-9)
    md = sw.format_table_markdown(table)
    assert "| OR-eq17 (de Campos et al.) | all | 76.6 | 54.4 |" in md
