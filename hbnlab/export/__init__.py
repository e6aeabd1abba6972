"""Models and reports that leave hbnlab.

* :mod:`hbnlab.export.model_io` -- hbnlab model files (``.hbnlab``: a ZIP of ``model.json`` and
  ``arrays.npz``, never pickle; specified in ``FORMAT.md``): :func:`save_model`,
  :func:`load_model` (safe on untrusted files) -> :class:`LoadedModel` with a text pipeline;
* :mod:`hbnlab.export.bn_formats` -- BIF, XMLBIF and HUGIN ``.net`` exports of the
  Bayesian-network learners: :func:`export_bn`, :func:`network_from_model`;
* :mod:`hbnlab.export.report` -- :class:`ExperimentResult` and self-contained HTML / CSV /
  Markdown reports: :func:`build_report`, :func:`tables_csv`, :func:`markdown`;
* :mod:`hbnlab.export.atomic`, :mod:`hbnlab.export.render` -- atomic writes, Graphviz SVG.
* :mod:`hbnlab.export.escape` -- corpus data made safe for Markdown (:func:`~hbnlab.export.escape.md_escape`),
  Plotly labels (``plotly_text``) and CSV cells (``csv_cell``, ``csv_safe_frame``: no formula injection).
"""
from hbnlab.export.bn_formats import BNExportError, DiscreteNetwork, export_bn, network_from_model
from hbnlab.export.model_io import (
    FORMAT_VERSION,
    LoadedModel,
    LoadLimits,
    ModelFileError,
    TextPipeline,
    load_model,
    model_to_bytes,
    save_model,
)

_REPORT = ("ExperimentResult", "build_report", "tables_csv", "markdown", "write_report")


def __getattr__(name):  # the report module pulls in pandas / plotly: import it on first use
    if name in _REPORT:
        from hbnlab.export import report

        return getattr(report, name)
    raise AttributeError(f"module 'hbnlab.export' has no attribute {name!r}")


__all__ = ["save_model", "load_model", "model_to_bytes", "LoadedModel", "LoadLimits", "ModelFileError", "TextPipeline",
           "FORMAT_VERSION", "export_bn", "network_from_model", "DiscreteNetwork", "BNExportError", *_REPORT]
