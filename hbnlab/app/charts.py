"""Plotly figures of the workbench (no Streamlit here: pages hand the figures to ``st.plotly_chart``).

Each function takes plain data (lists, arrays, data frames) and returns a ``plotly`` figure;
none computes a measure -- the numbers come from :mod:`hbnlab.evaluation` via
:mod:`hbnlab.app.views`.  Plotly renders a subset of HTML in titles, tick labels, legend names and
hover text, so every text that may hold corpus data (class names, terms, titles) goes through
:func:`hbnlab.export.escape.plotly_text` here.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from hbnlab.export.escape import plotly_text

_LAYOUT = dict(margin=dict(l=40, r=20, t=50, b=40), template="plotly_white", height=360)


def _fig(title: str, **layout) -> go.Figure:
    fig = go.Figure()
    fig.update_layout(title=plotly_text(title), **{**_LAYOUT, **layout})
    return fig


def _texts(values) -> list[str]:
    return [plotly_text(v) for v in values]


def length_histogram(lengths: Mapping[str, Sequence[int]], *, title: str = "Document length (tokens)",
                     nbins: int = 40) -> go.Figure:
    """Overlaid histograms of document lengths, one trace per split."""
    fig = _fig(title, barmode="overlay", xaxis_title="tokens per document", yaxis_title="documents")
    for name, values in lengths.items():
        fig.add_trace(go.Histogram(x=np.asarray(values), name=plotly_text(name), opacity=0.6, nbinsx=nbins))
    return fig


def documents_per_class(table: pd.DataFrame, *, title: str = "Documents per class") -> go.Figure:
    """Grouped bars of a ``class, train, test`` table."""
    fig = _fig(title, barmode="group", xaxis_title="class", yaxis_title="documents")
    for split in ("train", "test"):
        if split in table:
            fig.add_trace(go.Bar(x=_texts(table["class"]), y=table[split], name=split))
    return fig


def labels_per_document(counts: Mapping[int, int], *, title: str = "Labels per document") -> go.Figure:
    fig = _fig(title, xaxis_title="number of labels", yaxis_title="documents", height=300)
    keys = sorted(counts)
    fig.add_trace(go.Bar(x=[str(k) for k in keys], y=[counts[k] for k in keys], name="documents"))
    return fig


def feature_scores(terms: Sequence[str], scores: Sequence[float], *, title: str, score_name: str) -> go.Figure:
    """Horizontal bars of the selected terms, best at the top."""
    n = len(terms)
    fig = _fig(title, xaxis_title=score_name, height=max(300, 18 * n + 100))
    fig.add_trace(go.Bar(x=list(scores)[::-1], y=_texts(terms)[::-1], orientation="h", name=plotly_text(score_name)))
    fig.update_yaxes(type="category")
    return fig


def breakeven_bars(table: pd.DataFrame, *, title: str = "Breakeven by class (%)") -> go.Figure:
    """Grouped bars: one group per row of ``table`` (classes, micro, macro), one bar per column
    (classifier).  Columns whose name starts with ``thesis`` are drawn hatched."""
    fig = _fig(title, barmode="group", yaxis_title="breakeven (%)", yaxis_range=[0, 100])
    for col in table.columns:
        pattern = dict(shape="/") if str(col).startswith("thesis") else None
        fig.add_trace(go.Bar(x=_texts(table.index), y=table[col], name=plotly_text(col),
                             marker_pattern=pattern))
    return fig


def pr_curves(curves: Mapping[str, tuple], *, title: str) -> go.Figure:
    """Precision-recall curves with their breakeven points.

    ``curves[name] = (precision, recall, breakeven)``; the breakeven point (P = R = b) is marked.
    """
    fig = _fig(title, xaxis_title="recall", yaxis_title="precision", xaxis_range=[0, 1.02],
               yaxis_range=[0, 1.02], height=420)
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="P = R",
                             line=dict(dash="dot", color="#bbbbbb"), hoverinfo="skip"))
    for name, (precision, recall, b) in curves.items():
        fig.add_trace(go.Scatter(x=np.asarray(recall), y=np.asarray(precision), mode="lines", name=plotly_text(name),
                                 line_shape="hv"))
        fig.add_trace(go.Scatter(x=[b], y=[b], mode="markers", marker=dict(size=11, symbol="x"),
                                 name=f"{plotly_text(name)} breakeven {100 * b:.1f}%"))
    return fig


def threshold_curve(thresholds: Sequence[float], precision: Sequence[float], recall: Sequence[float],
                    f1: Sequence[float], *, current: float | None = None, title: str) -> go.Figure:
    """Precision, recall and F1 against the decision threshold, the chosen threshold as a line."""
    fig = _fig(title, xaxis_title="threshold on P(class | document)", yaxis_range=[0, 1.02])
    for name, y in (("precision", precision), ("recall", recall), ("F1", f1)):
        fig.add_trace(go.Scatter(x=np.asarray(thresholds), y=np.asarray(y), mode="lines", name=name))
    if current is not None:
        fig.add_vline(x=current, line_dash="dash", line_color="#444444")
    return fig


def em_traces(traces: Mapping[str, Sequence[Sequence[float]]], *, title: str = "EM log-likelihood per restart",
              max_restarts: int = 64) -> go.Figure:
    """One line per EM restart (x = iteration); ``traces[name]`` is a list of per-restart traces.
    The best final value of each unit is drawn thicker."""
    fig = _fig(title, xaxis_title="EM iteration", yaxis_title="log-likelihood", height=420)
    for key, runs in traces.items():
        name = plotly_text(key)
        runs = [np.asarray(r, dtype=float) for r in runs if len(r)][:max_restarts]
        if not runs:
            continue
        best = int(np.argmax([r[-1] for r in runs]))
        for k, r in enumerate(runs):
            fig.add_trace(go.Scatter(
                x=np.arange(1, r.size + 1), y=r, mode="lines", legendgroup=name, showlegend=(k == best),
                name=name if len(runs) == 1 else f"{name} (best of {len(runs)})", opacity=1.0 if k == best else 0.35,
                line=dict(width=3 if k == best else 1)))
    return fig


def em_restart_curves(curves: Sequence[Sequence[float]], *, iteration: int, best: int, selected: int | None = None,
                      title: str = "Log-likelihood per EM iteration, one line per restart",
                      large: bool = False) -> go.Figure:
    """Small multi-restart EM chart for the Learn page: one line per restart (x = iteration, 0 =
    the random start), dots where each restart started and stopped, the current iteration as a dashed
    line; the best restart is thick, the selected one thicker than the rest.

    Two panels share the iteration axis: the upper one holds every value from the random start
    (iteration 0) on, the lower one zooms on the climb after it, so that the optima the restarts
    reach stay apart although the start lies far below them.  ``large``: type and lines for a
    projector."""
    from plotly.colors import qualitative
    from plotly.subplots import make_subplots

    runs = [np.asarray(ll, dtype=float) for ll in curves]
    palette = (qualitative.Dark24 if large else qualitative.Plotly)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.07, row_heights=[0.4, 0.6])
    fig.update_layout(title=plotly_text(title), **{**_LAYOUT, "height": 500 if large else 420},
                      legend=dict(orientation="h", y=-0.18))
    for r, ll in enumerate(runs):
        if not ll.size:
            continue
        width = (4 if r == best else (2.5 if r == selected else 1.5)) * (1.5 if large else 1)
        name = f"restart {r}" + (" (best)" if r == best else "")
        x = np.arange(ll.size)
        color = palette[r % len(palette)]
        style = dict(legendgroup=str(r), opacity=1.0 if r in (best, selected) else 0.6)
        for row in (1, 2):
            fig.add_trace(go.Scatter(x=x, y=ll, mode="lines", name=name, showlegend=row == 1,
                                     line=dict(width=width, color=color), **style), row=row, col=1)
            # where the restart stopped, and (upper panel) where it started
            ends = [0, ll.size - 1] if row == 1 else [ll.size - 1]
            fig.add_trace(go.Scatter(x=ends, y=ll[ends], mode="markers", showlegend=False, hoverinfo="skip",
                                     marker=dict(size=12 if large else 8, color=color), **style), row=row, col=1)
    fig.add_vline(x=iteration, line_dash="dash", line_color="#000000" if large else "#444444", row="all", col=1)
    longest = max((ll.size for ll in runs), default=1)
    # half an iteration of room on each side: the points of iteration 0 and of the last one are whole
    fig.update_xaxes(range=[-0.5, max(longest - 0.5, iteration + 0.5)], dtick=max(1, longest // 10))
    fig.update_xaxes(title_text="EM iteration (0 = the random start)", row=2, col=1)
    values = np.concatenate([ll for ll in runs if ll.size]) if any(ll.size for ll in runs) else np.zeros(1)
    fig.update_yaxes(range=_padded(values.min(), values.max()), title_text="log-lik.", row=1, col=1)
    later = [v for ll in runs for v in ll[1:]]
    if later:
        fig.update_yaxes(range=_padded(min(later), max(later)), title_text="log-lik. (zoom)", row=2, col=1)
    fig.update_layout(margin=dict(l=70, r=20, t=60, b=40))
    if large:
        fig.update_layout(font=dict(size=20, color="#000000"), title_font=dict(size=24),
                          margin=dict(l=110, r=20, t=60, b=40))
    return fig


def _padded(bottom: float, top: float) -> list[float]:
    """An axis range around ``[bottom, top]`` with a margin, so that markers on the edges stay whole."""
    span = max(float(top) - float(bottom), 1e-6)
    return [float(bottom) - 0.08 * span, float(top) + 0.08 * span]


def tuning_heatmap(cells: pd.DataFrame, *, value: str = "micro", best: tuple | None = None,
                   title: str = "Validation micro breakeven (%)") -> go.Figure:
    """Heatmap of a B x alpha grid (one ``n_features``); the best cell outlined in red.  With the
    columns ``vs_best_low`` / ``vs_best_high`` / ``tied_with_best`` (a tune job's paired bootstrap
    against the best cell), the hover text gives each cell's interval and the cells whose interval
    holds 0 are outlined in grey: their difference to the best is within resampling noise."""
    pivot = cells.pivot_table(index="B", columns="alpha", values=value, aggfunc="max").sort_index()
    alphas = [f"{a:g}" for a in pivot.columns]
    fig = _fig(title, xaxis_title="alpha", yaxis_title="B", height=380)
    hover = None
    if {"vs_best_low", "vs_best_high"} <= set(cells.columns):
        lo = cells.pivot_table(index="B", columns="alpha", values="vs_best_low", aggfunc="max").reindex_like(pivot)
        hi = cells.pivot_table(index="B", columns="alpha", values="vs_best_high", aggfunc="max").reindex_like(pivot)
        hover = np.vectorize(lambda v, a, b: "" if np.isnan(v) else
                             f"{v:.2f}%<br>minus the best cell: {a:+.2f} to {b:+.2f} (95% paired bootstrap)")(
            pivot.values, lo.values, hi.values)
    fig.add_trace(go.Heatmap(z=pivot.values, x=alphas, y=[str(b) for b in pivot.index], colorscale="Viridis",
                             text=np.vectorize(lambda v: "" if np.isnan(v) else f"{v:.1f}")(pivot.values),
                             texttemplate="%{text}", colorbar=dict(title="%"),
                             customdata=hover, hovertemplate="B=%{y}, alpha=%{x}<br>%{customdata}<extra></extra>"
                             if hover is not None else None))
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category")
    if "tied_with_best" in cells.columns:
        tied = cells[cells["tied_with_best"].astype(bool)]
        if best is not None:
            tied = tied[~((tied["B"] == best[0]) & np.isclose(tied["alpha"], best[1]))]
        if len(tied):
            fig.add_trace(go.Scatter(x=[f"{a:g}" for a in tied["alpha"]], y=[str(b) for b in tied["B"]],
                                     mode="markers", name="within noise of the best",
                                     marker=dict(symbol="square-open", size=30, color="#b0b0b0", line=dict(width=2))))
    if best is not None:
        B, a = best
        fig.add_trace(go.Scatter(x=[f"{a:g}"], y=[str(B)], mode="markers", name="best",
                                 marker=dict(symbol="square-open", size=34, color="red", line=dict(width=3))))
    # the legend under the plot, clear of the colour bar
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.28, xanchor="left", x=0))
    return fig


def term_effects(table: pd.DataFrame, *, title: str) -> go.Figure:
    """Horizontal bars of per-term contributions to the log-odds (red up, blue down); with a
    ``present`` column, terms absent from the document are labelled "(absent)" and drawn hatched:
    their bar is the effect of the term *not* occurring."""
    t = table.sort_values("contribution")
    colors = np.where(t["contribution"] >= 0, "#c0392b", "#2e86c1")
    present = t["present"].to_numpy(bool) if "present" in t else np.ones(len(t), bool)
    names = [term if p else f"{term} (absent)" for term, p in zip(t["term"], present)]
    fig = _fig(title, xaxis_title="contribution to the class log-odds", height=max(300, 18 * len(t) + 100))
    fig.add_trace(go.Bar(x=t["contribution"], y=_texts(names), orientation="h", marker_color=colors,
                         marker_pattern_shape=np.where(present, "", "/"), name="contribution"))
    fig.update_yaxes(type="category")
    return fig


def confusion_heatmap(C, classes: Sequence[str], *, title: str, max_classes: int = 40) -> go.Figure:
    """Heatmap of a one-of-n confusion matrix (rows: true class, columns: given class); the diagonal is
    blanked so that the colours show the confusions.  Past ``max_classes`` classes only the classes
    of the largest confusions are drawn (the table beside it lists every one)."""
    C = np.asarray(C, dtype=np.int64)
    keep = np.arange(len(classes))
    if len(classes) > max_classes:
        off = C - np.diag(np.diag(C))
        keep = np.sort(np.argsort(-(off.sum(axis=0) + off.sum(axis=1)), kind="stable")[:max_classes])
    names = _texts([classes[i] for i in keep])
    sub = C[np.ix_(keep, keep)].astype(float)
    shown = sub.copy()
    np.fill_diagonal(shown, np.nan)
    side = max(360, 22 * len(keep) + 160)
    fig = _fig(title, xaxis_title="given class (highest score)", yaxis_title="true class", height=side)
    fig.add_trace(go.Heatmap(z=shown, x=names, y=names, colorscale="Reds", colorbar=dict(title="documents"),
                             text=[[f"{int(v)}" if v else "" for v in row] for row in sub], texttemplate="%{text}",
                             hovertemplate="true %{y}, given %{x}: %{text} document(s)<extra></extra>"))
    fig.update_xaxes(type="category", tickangle=-45)
    fig.update_yaxes(type="category", autorange="reversed")
    return fig


__all__ = ["length_histogram", "documents_per_class", "labels_per_document", "feature_scores", "breakeven_bars",
           "pr_curves", "threshold_curve", "em_traces", "em_restart_curves", "tuning_heatmap", "term_effects",
           "confusion_heatmap"]
