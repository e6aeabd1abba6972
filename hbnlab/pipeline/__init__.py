"""What every frontend shares: the command line, the workbench, manifests and sweeps.

* :mod:`~hbnlab.pipeline.config` -- :class:`ExperimentConfig`, the one experiment configuration;
* :mod:`~hbnlab.pipeline.corpus_spec` -- the data home, the Reuters directory, corpora by name or spec;
* :mod:`~hbnlab.pipeline.data` -- :class:`ProtocolData`: a corpus indexed and scored the thesis's way;
* :mod:`~hbnlab.pipeline.store` -- the parsed and indexed corpora kept in the data home for every process;
* :mod:`~hbnlab.pipeline.fit` -- :func:`fit_unit`: one learner on one category;
* :mod:`~hbnlab.pipeline.tasks` -- the workbench's background jobs (train, tune).
"""
