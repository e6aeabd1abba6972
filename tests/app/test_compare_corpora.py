"""Compare pairs two systems only when their jobs read one corpus: equal corpus fingerprints, not
merely equal document ids (two synthetic corpora of different seeds number their documents alike)."""
from __future__ import annotations

import numpy as np
import pytest
from app_testutil import wait_for_jobs

from hbnlab.app.views import compare
from hbnlab.app.views.results import TrainOutputs
from hbnlab.pipeline.config import ExperimentConfig

CLASSES, CLASSIFIERS = ["earn", "acq", "trade"], ["NB", "HBN-OR"]


def _outputs(job_id, seed, fingerprint, n=80, corpus_seed=None):
    """Scores and labels of a job on ``n`` documents with ids ``syn00001`` ... (the same ids for
    every seed, as the synthetic generator's); ``fingerprint`` identifies its corpus."""
    rng = np.random.default_rng(seed)
    Y = rng.random((n, len(CLASSES))) < 0.3
    Y[0] = True
    S = np.column_stack([np.clip(Y[:, j] * 0.5 + rng.random(n) * 0.6, 0, 1) for j in range(len(CLASSES))
                         for _ in CLASSIFIERS])
    corpus_seed = seed if corpus_seed is None else corpus_seed
    result = {"config": ExperimentConfig(corpus="synthetic", synthetic_seed=corpus_seed, synthetic_size=n).to_dict()}
    if fingerprint:
        result["fingerprint"] = fingerprint
    return TrainOutputs(job_id, result, S, [f"syn{i:05d}" for i in range(1, n + 1)],
                        [f"{c}|{k}" for c in CLASSES for k in CLASSIFIERS], list(CLASSES), list(CLASSIFIERS), Y, "test",
                        "synthetic", True, 30, [])


def test_jobs_of_different_corpora_with_the_same_ids_are_not_paired():
    a, b = _outputs(1, 0, "aaaa1111" + "0" * 56), _outputs(2, 7, "bbbb2222" + "0" * 56)
    assert a.doc_ids == b.doc_ids
    outputs = {1: a, 2: b}
    reason = compare.unpaired_reason(outputs, (1, "NB"), (2, "NB"))
    assert reason.startswith("#1 · NB and #2 · NB were trained on different corpora: "
                             "synthetic (seed 0, 80 documents), fingerprint aaaa1111; "
                             "synthetic (seed 7, 80 documents), fingerprint bbbb2222.")
    for call in (lambda: compare.paired(outputs, (1, "NB"), (2, "NB"), n_boot=50),
                 lambda: compare.aligned(outputs, [(1, "NB"), (2, "HBN-OR")])):
        with pytest.raises(ValueError) as exc:
            call()
        assert "were trained on different corpora" in str(exc.value) and "bbbb2222" in str(exc.value)

    # the table keeps both columns, each system scored on its own labels, the other corpus's
    # column marked and without a difference; a note names both corpora
    table = compare.side_by_side(outputs, [(1, "NB"), (1, "HBN-OR"), (2, "NB")])
    assert list(table.columns) == ["#1 · NB", "#1 · HBN-OR", "#2 · NB (other corpus)", "#1 · HBN-OR − #1 · NB"]
    np.testing.assert_allclose(table["#2 · NB (other corpus)"], b.breakeven_frame()["NB"])
    np.testing.assert_allclose(table["#1 · HBN-OR"], a.breakeven_frame()["HBN-OR"])
    (note,) = compare.corpus_notes(outputs, [(1, "NB"), (1, "HBN-OR"), (2, "NB")])
    assert note.startswith("#2 · NB was trained on another corpus (synthetic (seed 7, 80 documents), fingerprint "
                           "bbbb2222) than the reference #1 · NB (synthetic (seed 0, 80 documents), fingerprint "
                           "aaaa1111)")


def test_jobs_of_one_corpus_are_paired_as_before():
    fp = "cccc3333" + "0" * 56
    a, b = _outputs(1, 0, fp), _outputs(2, 1, fp, corpus_seed=0)   # other scores, one corpus
    outputs = {1: a, 2: b}
    assert compare.unpaired_reason(outputs, (1, "NB"), (2, "NB")) is None
    assert compare.corpus_notes(outputs, [(1, "NB"), (2, "NB")]) == []
    table = compare.side_by_side(outputs, [(1, "NB"), (2, "NB")])
    assert list(table.columns) == ["#1 · NB", "#2 · NB", "#2 · NB − #1 · NB"]
    boot, mc = compare.paired(outputs, (1, "NB"), (2, "NB"), n_boot=50)
    assert list(boot.index)[-2:] == ["micro", "macro"] and len(mc) == len(CLASSES)


def test_jobs_without_a_recorded_fingerprint_are_told_apart_by_corpus_name():
    a, b = _outputs(1, 0, None), _outputs(2, 7, None)
    assert compare.unpaired_reason({1: a, 2: b}, (1, "NB"), (2, "NB")) is None     # one name: paired, as before
    b.corpus_name = "reuters21578-modapte"
    assert "different corpora" in compare.unpaired_reason({1: a, 2: b}, (1, "NB"), (2, "NB"))


def test_services_give_no_paired_verdict_for_jobs_of_different_corpora(data_home):
    """Two real training jobs on synthetic corpora of seeds 0 and 7 (the same size: the same
    document ids): the services refuse the paired comparison with a message naming both."""
    from hbnlab.app import job_client, job_outputs

    base = ExperimentConfig(corpus="synthetic", synthetic_size=600, n_features=10, n_restarts=1)
    ids = [job_client.submit_train(cfg, classes=["alpha"], classifiers=["NB"])
           for cfg in (base, base.replace(synthetic_seed=7))]
    recs = wait_for_jobs(180, ids=ids)
    assert all(r.state == "done" for r in recs), [r.error for r in recs]
    first, second = ids
    a, b = job_outputs.train_outputs(first), job_outputs.train_outputs(second)
    assert a.doc_ids == b.doc_ids and a.result["fingerprint"] != b.result["fingerprint"]

    reason = job_outputs.unpaired_reason((first, "NB"), (second, "NB"))
    assert f"#{first} · NB and #{second} · NB were trained on different corpora" in reason
    assert "synthetic (seed 0, 600 documents)" in reason and "synthetic (seed 7, 600 documents)" in reason
    with pytest.raises(ValueError, match="trained on different corpora"):
        job_outputs.paired_comparison((first, "NB"), (second, "NB"), n_boot=200)
    table = job_outputs.compare_table([(first, "NB"), (second, "NB")])
    assert list(table.columns) == [f"#{first} · NB", f"#{second} · NB (other corpus)"]
    (note,) = job_outputs.compare_notes([(first, "NB"), (second, "NB")])
    assert "seed 7" in note and "seed 0" in note
