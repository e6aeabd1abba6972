"""Fixtures of the sweep tests: a small synthetic corpus, its sweep data, and runners."""
from __future__ import annotations

import pytest
from sweep_helpers import TINY

from hbnlab.experiments import sweep as sw


@pytest.fixture(scope="session")
def syn_corpus():
    from hbnlab.corpus import make_synthetic_corpus

    return make_synthetic_corpus(n_documents=900, n_classes=3, n_noise_words=120, random_state=3)


@pytest.fixture(scope="session")
def tiny_config() -> sw.SweepConfig:
    return sw.SweepConfig(**TINY)


@pytest.fixture(scope="session")
def syn_protocol(syn_corpus):
    from hbnlab.pipeline.data import prepare

    return prepare(syn_corpus, categories=syn_corpus.categories(min_train=1, min_test=1))


@pytest.fixture(scope="session")
def syn_data(syn_protocol, tiny_config) -> sw.SweepData:
    return sw.SweepData.from_protocol(syn_protocol, max(tiny_config.n_features))


@pytest.fixture(scope="module")
def local_runner(tmp_path_factory):
    from hbnlab.jobs import LocalProcessRunner

    runner = LocalProcessRunner(tmp_path_factory.mktemp("sweep-local") / "runs", max_workers=2, poll_interval=0.05)
    yield runner
    runner.shutdown(wait=False, interrupt=True)


@pytest.fixture(scope="module")
def dask_runner(tmp_path_factory):
    import os

    import dask
    import distributed  # noqa: F401  (load its config defaults before overriding one)

    from hbnlab.jobs import DaskRunner

    # as `hbnlab sweep --dask` does: no MALLOC_TRIM_THRESHOLD_ in the workers (2x faster EM).  An
    # earlier LocalCluster in this test process leaves the variable in os.environ (distributed's
    # nannies set it in the process that spawns the workers), so drop it for this cluster.
    saved = os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        runner = DaskRunner(tmp_path_factory.mktemp("sweep-dask") / "runs", n_workers=2, threads_per_worker=1,
                            poll_interval=0.05)
    assert all("MALLOC_TRIM_THRESHOLD_" not in env
               for env in runner.client.run(lambda: dict(__import__("os").environ)).values())
    yield runner
    runner.shutdown(wait=False, interrupt=True)
    if saved is not None:
        os.environ["MALLOC_TRIM_THRESHOLD_"] = saved
