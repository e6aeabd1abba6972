"""The Streamlit workbench's library side (the only package that imports Streamlit).

* :mod:`hbnlab.pipeline.config` -- the one experiment config object (no Streamlit);
* :mod:`hbnlab.app.state` -- session-state keys and the URL mirror of the config;
* :mod:`hbnlab.app.job_settings` -- what a training job ran as the widgets hold it: presets (a job of
  their own) and "Use these settings";
* :mod:`hbnlab.app.services` -- cached loaders, the background job client, what pages call;
* :mod:`hbnlab.app.views` -- the computations behind the pages, one module per page (no Streamlit);
* :mod:`hbnlab.app.charts` -- plotly figures (no Streamlit);
* :mod:`hbnlab.app.widgets` -- page frame, pickers, the live job table.

The background tasks the workbench submits are in :mod:`hbnlab.pipeline.tasks`.
"""
