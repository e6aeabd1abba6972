"""The Streamlit workbench's library side (the only package that imports Streamlit).

* :mod:`hbnlab.pipeline.config` -- the one experiment config object (no Streamlit);
* :mod:`hbnlab.app.state` -- session-state keys and the URL mirror of the config;
* :mod:`hbnlab.app.job_settings` -- what a training job ran as the widgets hold it: presets (a job of
  their own) and "Use these settings";
* :mod:`hbnlab.app.corpus_data` -- the corpus and the indexed experiment, cached, and what Corpus, Features and
  Structure show of them;
* :mod:`hbnlab.app.job_client` -- the background job client: submit, list, cancel, retry, resume, delete;
* :mod:`hbnlab.app.job_outputs` -- what a finished job produced, for the result pages;
* :mod:`hbnlab.app.lessons` -- the Learn page's lessons, cached;
* :mod:`hbnlab.app.views` -- the computations behind the pages, one module per page (no Streamlit);
* :mod:`hbnlab.app.charts` -- plotly figures (no Streamlit);
* :mod:`hbnlab.app.page` -- the page frame, the sidebar and errors shown as messages;
* :mod:`hbnlab.app.job_widgets` -- job pickers, the live job table and its actions;
* :mod:`hbnlab.app.widgets` -- step controls, class and validation pickers, table formats.

The background tasks the workbench submits are in :mod:`hbnlab.pipeline.tasks`.
"""
