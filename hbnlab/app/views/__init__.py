"""The computations behind the pages, on plain data (no Streamlit in this package).

Pages never do arithmetic: they call :mod:`hbnlab.app.corpus_data` and :mod:`hbnlab.app.job_outputs`,
which cache these functions.
Keeping them free of Streamlit lets the tests call them directly (tests/app/test_analysis.py).
One module per page:

* :mod:`~hbnlab.app.views.corpus` -- corpus summaries and the document browser;
* :mod:`~hbnlab.app.views.features` -- the term table of a class;
* :mod:`~hbnlab.app.views.structure` -- tree summaries and DOT sources with stable node ids;
* :mod:`~hbnlab.app.views.results` -- :class:`TrainOutputs`, a finished "train" job's scores
  aligned with the evaluation labels, and every table of the Evaluation page (breakeven per
  class x classifier with micro / macro rows and, on Reuters ModApte, thesis Table 4.10 beside
  ours; 11-point average precision; F1@k; PR curves; threshold statistics);
* :mod:`~hbnlab.app.views.explain` -- :func:`explain_document`: highlighted text, the tree
  coloured by P(node = 1 | document), each subtree's contribution to the log-odds, the terms
  pushing the score up and down;
* :mod:`~hbnlab.app.views.compare` -- finished jobs side by side with paired bootstrap intervals
  and McNemar's test of their differences;
* :mod:`~hbnlab.app.views.jobs` -- the job table, progress lines, the tuning grid;
* :mod:`~hbnlab.app.views.export` -- CSV files, the Markdown report and the data of the HTML
  report.
* :mod:`~hbnlab.app.views.learn` -- the Learn page: the teaching corpus, the clustering / EM /
  inference traces laid out one step at a time (imported as a module, not re-exported).

Report tables (breakeven, CSV and Markdown text) are made by :mod:`hbnlab.export.report`, the one
place that builds them for the CLI, the HTML report and the workbench.
"""
from hbnlab.app.views.corpus import SYNTHETIC_BADGE, corpus_label, corpus_overview, search_documents
from hbnlab.app.views.explain import Explanation, explain_document, highlight_html
from hbnlab.app.views.export import experiment_result, export_table_makers, export_tables, markdown_report
from hbnlab.app.views.features import feature_table, score_format, selected_terms_overview
from hbnlab.app.views.jobs import jobs_frame, per_class_tuning_frame, progress_text, tuning_frame
from hbnlab.app.views.results import TrainOutputs
from hbnlab.app.views.structure import dot_layout, model_dot, model_summary, stable_tree_dot, tree_summary

__all__ = ["corpus_overview", "corpus_label", "search_documents", "feature_table", "score_format",
           "selected_terms_overview",
           "tree_summary", "stable_tree_dot", "dot_layout", "model_dot", "model_summary", "TrainOutputs", "Explanation",
           "explain_document",
           "highlight_html", "jobs_frame", "progress_text", "tuning_frame", "per_class_tuning_frame", "export_tables",
           "export_table_makers",
           "experiment_result", "markdown_report", "SYNTHETIC_BADGE"]
