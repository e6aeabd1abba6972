"""The Learn page: the teaching corpus, the traces of :mod:`hbnlab.clustering.trace` and
:mod:`hbnlab.bn.trace` on it, and the tables and DOT sources that show one step at a time.

Nothing here computes an algorithm: the traces come from the library, these functions only
lay their numbers out (data frames with labelled rows and columns, trees with the current step
highlighted).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

import numpy as np
import pandas as pd

from hbnlab.app.views.explain import probability_fill
from hbnlab.app.views.structure import stable_tree_dot
from hbnlab.bn.discriminative import (
    START_PSEUDO_COUNT,
    ConditionalFit,
    fit_conditional,
    learned_nodes,
    smoothed_tables,
)
from hbnlab.bn.inference import class_posterior, log_likelihood
from hbnlab.bn.params import TreeParameters
from hbnlab.bn.structure import CLASS, FEATURE, HIDDEN, TreeStructure, features_under
from hbnlab.bn.trace import EMTrace, InferenceTrace, trace_em, trace_inference
from hbnlab.clustering.trace import ClusteringStep, trace_construction
from hbnlab.pipeline.teaching import TeachingExample, teaching_example

#: the clusterings the lesson steps through, and a default alpha for each on the teaching corpus
LESSON_CLUSTERINGS = {"avg": "AVG", "or": "OR", "dep": "DEP"}
LESSON_ALPHA = {"avg": 0.1, "or": 0.1, "dep": 1.0}
LESSON_ALPHA_RANGE = {"avg": (0.0, 0.5, 0.01), "or": (0.0, 0.5, 0.01), "dep": (0.0, 10.0, 0.5)}

#: the precision of the prior around the EM tables in the lesson's conditional fit (16 documents)
LESSON_CLL_PENALTY = 1.0

FOCUS_FILL = "#f6c343"  # the features / nodes a step acts on
SCOPE_FILL = "#dbe9f6"  # the other features of the current ClusterFeatures call
DONE_FILL = "#e8e8e8"  # nodes whose message is computed (inference)


@dataclass(frozen=True)
class LessonSettings:
    """Everything the three lessons depend on (hashable: the cache key of the services)."""

    clustering: str = "avg"
    B: int = 3
    alpha: float = 0.1
    direction: str = "hbn"
    n_restarts: int = 5
    seed: int = 0

    def __post_init__(self):
        if self.clustering not in LESSON_CLUSTERINGS:
            raise ValueError(f"clustering must be one of {sorted(LESSON_CLUSTERINGS)}, got {self.clustering!r}")
        if self.direction not in ("hbn", "hnb"):
            raise ValueError(f"direction must be 'hbn' or 'hnb', got {self.direction!r}")

    @property
    def em_options(self) -> dict:
        """The thesis's EM set-up (sec. 3.2: relative tolerance 1e-4 on the log-likelihood of the
        cases), with a handful of restarts instead of 64 so that each can be followed."""
        return {"n_restarts": int(self.n_restarts), "random_state": int(self.seed)}


@dataclass(frozen=True)
class Lesson:
    """The example, its clustering trace, the tree, the EM trace and the fitted parameters."""

    example: TeachingExample
    settings: LessonSettings
    clustering: list
    tree: TreeStructure
    em: EMTrace
    conditional: ConditionalFit

    @property
    def params(self) -> TreeParameters:
        return self.em.result.params


def build_lesson(settings: LessonSettings) -> Lesson:
    """Run the three traces on the teaching corpus (16 documents, 8 terms: milliseconds)."""
    ex = teaching_example()
    steps = trace_construction(ex.X, ex.y, B=settings.B, clustering=settings.clustering, alpha=settings.alpha,
                               feature_names=ex.terms)
    tree = TreeStructure.from_nested(steps[-1].nested, feature_names=ex.terms, class_name=ex.class_name,
                                     direction=settings.direction, B=settings.B)
    em = trace_em(tree, ex.X, ex.y, **settings.em_options)
    cll = fit_conditional(smoothed_tables(em.result.params, ex.X, ex.y), ex.X, ex.y, penalty=LESSON_CLL_PENALTY)
    return Lesson(ex, settings, steps, tree, em, cll)


# --------------------------------------------------------------------------- corpus
def corpus_frame(ex: TeachingExample) -> pd.DataFrame:
    """One row per document: its text, its class and a 0/1 column per term."""
    X = ex.X.toarray().astype(int)
    df = pd.DataFrame({"#": np.arange(len(ex.texts)), "text": list(ex.texts), "trade": ex.y.astype(int)})
    for j, t in enumerate(ex.terms):
        df[t] = X[:, j]
    return df


def step_card_html(number: int, total: int, title: str, text: str, cites: str, *, kind: str = "",
                   unit: str = "Step", large: bool = False) -> str:
    """A card with the step's position, what happens and where in the thesis; every string is
    HTML-escaped (titles and texts name terms of the corpus).  ``large``: presentation mode (large
    type, black on white)."""
    z = _CARD_LARGE if large else _CARD
    badge = f'<span style="background:{FOCUS_FILL};border-radius:3px;padding:0 6px;margin-right:6px">{escape(kind)}' \
        "</span>" if kind else ""
    return (
        f'<div style="border-left:{z["border"]} solid {FOCUS_FILL};background:{z["background"]};border-radius:6px;'
        'padding:0.6rem 1rem;margin:0.2rem 0 0.6rem 0">'
        f'<div style="font-size:{z["meta"]};color:{z["muted"]}">{badge}{escape(unit)} {int(number)} of {int(total)} · '
        f'{escape(cites)}</div>'
        f'<div style="font-size:{z["title"]};font-weight:{z["weight"]};margin:0.25rem 0{z["ink"]}">'
        f'{escape(title)}</div>'
        f'<div style="font-size:{z["text"]};line-height:1.45{z["ink"]}">{escape(text)}</div></div>'
    )


_CARD = {"border": "5px", "background": "#fffaf0", "meta": "0.8rem", "title": "1.15rem", "text": "0.95rem",
         "weight": "600", "muted": "#555", "ink": ""}
_CARD_LARGE = {"border": "10px", "background": "#ffffff", "meta": "1.3rem", "title": "2.1rem", "text": "1.6rem",
               "weight": "700", "muted": "#000", "ink": ";color:#000"}


def _number(v: float, digits: int) -> str:
    if not np.isfinite(v):
        return ""
    if float(v).is_integer() and abs(v) < 10:
        return str(int(v))
    if v != 0 and abs(v) < 10.0 ** -digits:
        return f"{v:.1e}"
    return f"{v:.{digits}f}"


def matrix_html(frame: pd.DataFrame, chosen: tuple | None = None, *, digits: int = 4, caption: str = "",
                heat: bool = False, large: bool = False) -> str:
    """A compact HTML table of a step's matrix: labels escaped, empty cells blank, the chosen
    cell amber (``heat``: every cell coloured by its value as a probability).  Every number stays
    on screen (a data frame widget would scroll sideways).  ``large``: presentation mode (large
    black type, ruled cells)."""
    # large: as large as a narrow screen (a 1280-pixel projector) leaves room for an 8 x 8 matrix
    pad, font = ("5px 10px", "clamp(1rem, 1.05vw, 1.35rem)") if large else ("3px 8px", "0.85rem")
    rule = ";border:1px solid #000;color:#000" if large else ""
    th = f'style="padding:{pad};text-align:right;background:#f4f4f4;font-weight:600;white-space:nowrap{rule}"'
    # large: long column names (clusters, conditional probabilities) wrap rather than push the table wide
    th_col = th.replace("nowrap", "normal") if large else th
    head = "".join(f"<th {th_col}>{escape(str(c))}</th>" for c in frame.columns)
    body = []
    for r, (label, row) in enumerate(frame.iterrows()):
        cells = []
        for c, v in enumerate(row.to_numpy(dtype=float)):
            style = f"padding:{pad};text-align:right;font-variant-numeric:tabular-nums{rule}"
            if chosen is not None and (r, c) == tuple(chosen):
                style += f";background:{FOCUS_FILL};font-weight:700"
            elif not np.isfinite(v):
                style += ";background:#fafafa"
            elif heat:
                style += f";background:{probability_fill(v)}"
            text = _number(v, digits)
            cells.append(f'<td style="{style}">{text}</td>')
        body.append(f"<tr><th {th}>{escape(str(label))}</th>{''.join(cells)}</tr>")
    cap = (f'<caption style="caption-side:top;text-align:left;font-weight:600;padding:4px 0">{escape(caption)}'
           "</caption>") if caption else ""
    return (f'<div style="overflow-x:auto"><table style="border-collapse:collapse;font-size:{font}">{cap}'
            f"<tr><th {th}></th>{head}</tr>{''.join(body)}</table></div>")


# --------------------------------------------------------------------------- presentation mode
#: URL parameter of the presentation mode (``?present=1``) and the values that switch it on
PRESENT_PARAM = "present"
_TRUE = ("1", "true", "yes", "on")

#: Point size of the tree's node labels in presentation mode (the DOT source and the style sheet).
PRESENTATION_FONTSIZE = 26

#: The presentation mode's style sheet: large type, black on white, thick button borders, no
#: sidebar and no page title, the full width of the screen.  Static: nothing of the corpus or the URL goes into it.
#: Streamlit sets one small font size on everything inside a Graphviz chart, whatever the DOT
#: source says; the rule for ``svg text`` gives the labels the size the layout was made for.
PRESENTATION_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"] { display: none; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 1.2rem 2.5rem 2rem 2.5rem; }
[data-testid="stMain"] { background: #ffffff; color: #000000; }
[data-testid="stMain"] [data-testid="stHeading"] { display: none; }
[data-testid="stMain"] p, [data-testid="stMain"] li, [data-testid="stMain"] label,
[data-testid="stMain"] [data-testid="stWidgetLabel"] p { font-size: 1.4rem; color: #000000; }
[data-testid="stMain"] [data-testid="stCaptionContainer"],
[data-testid="stMain"] [data-testid="stCaptionContainer"] p { font-size: 1.3rem; color: #000000; opacity: 1; }
[data-testid="stMain"] [data-testid="stBaseButton-secondary"] { min-height: 3.4rem; border: 3px solid #000000;
  color: #000000; background: #ffffff; }
[data-testid="stMain"] [data-testid="stBaseButton-secondary"]:disabled { border-color: #999999; color: #767676; }
[data-testid="stMain"] button p, [data-testid="stMain"] button span { font-size: 1.5rem; font-weight: 700; }
[data-testid="stMain"] [data-testid="stBaseButton-primary"] { min-height: 3.4rem; border: 3px solid #000000;
  background: #000000; color: #ffffff; }
[data-testid="stMain"] [data-testid="stBaseButton-primary"] p,
[data-testid="stMain"] [data-testid="stBaseButton-primary"] span { color: #ffffff; }
[data-testid="stMain"] [data-testid="stProgress"] p { font-size: 1.5rem; font-weight: 700; color: #000000; }
[data-testid="stMain"] [data-testid="stMetricLabel"] p { font-size: 1.4rem; color: #000000; }
[data-testid="stMain"] [data-testid="stMetricValue"], [data-testid="stMain"] [data-testid="stMetricValue"] * {
  font-size: 2.6rem; color: #000000; }
[data-testid="stMain"] [data-testid="stSelectbox"] input { font-size: 1.3rem; color: #000000; }
[data-testid="stMain"] [data-testid="stSelectbox"] [role="group"] { min-height: 3rem; border: 2px solid #000000; }
[data-testid="stMain"] [data-testid="stGraphVizChart"] svg text { font-size: LABELpx !important; }
</style>""".replace("LABEL", str(PRESENTATION_FONTSIZE))


def url_flag(value) -> bool:
    """A URL parameter's value as on / off (``1``, ``true``, ``yes``, ``on``: on)."""
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else ""
    return str(value or "").strip().lower() in _TRUE


def presentation_dot(dot: str, fontsize: int = PRESENTATION_FONTSIZE) -> str:
    """A DOT source of :func:`stable_tree_dot` for a projector: node labels in ``fontsize`` points
    and black, thick lines, the nodes closer together.  The browser scales the drawing to the
    page's width, so the labels grow against the tree only as the spaces between nodes shrink."""
    dot = re.sub(r"(\n\s*node \[[^\]]*?)fontsize=[0-9.]+", rf"\g<1>fontsize={int(fontsize)}", dot, count=1)
    dot = dot.replace("  node [", '  node [fontcolor="#000000", penwidth=2, margin="0.12,0.06", ', 1)
    dot = dot.replace("  graph [", "  graph [nodesep=0.15, ranksep=0.35, ", 1)
    lines = dot.splitlines()
    at = next((k for k, line in enumerate(lines) if line.lstrip().startswith("node [")), 0)
    lines.insert(at + 1, '  edge [penwidth=2.5, arrowsize=1.3, color="#000000"];')
    return "\n".join(lines)


def tables_row_html(tables: list[str]) -> str:
    """HTML tables of :func:`matrix_html` side by side, each as wide as it needs, wrapping onto the next
    line when the row is full (none is cut off at the edge)."""
    cells = "".join(f'<div style="flex:0 0 auto">{t}</div>' for t in tables)
    return f'<div style="display:flex;flex-wrap:wrap;gap:0.8rem;align-items:flex-start">{cells}</div>'


# --------------------------------------------------------------------------- clustering
def _tree_of(nested, ex: TeachingExample, direction: str) -> TreeStructure:
    return TreeStructure.from_nested(nested, feature_names=ex.terms, class_name=ex.class_name, direction=direction)


def clustering_dot(step: ClusteringStep, ex: TeachingExample, direction: str = "hbn") -> str:
    """The tree as it stands after ``step``: the step's features (and hidden nodes made only of
    them) in amber, the other features of the current clustering call in blue."""
    tree = _tree_of(step.nested, ex, direction)
    focus, scope = set(step.focus), set(step.scope)
    fill = {}
    for i in range(tree.n_nodes):
        if tree.kind[i] == FEATURE:
            if tree.feature[i] in focus:
                fill[i] = FOCUS_FILL
            elif tree.feature[i] in scope:
                fill[i] = SCOPE_FILL
        elif tree.kind[i] == HIDDEN and step.kind == "merge" and set(features_under(tree, i)) == focus:
            fill[i] = FOCUS_FILL  # the cluster the merge made
    return stable_tree_dot(tree, node_fill=fill)


def step_matrix(step: ClusteringStep) -> pd.DataFrame | None:
    """The step's matrix with its row and column labels (empty cells: NaN)."""
    if step.matrix is None:
        return None
    return pd.DataFrame(step.matrix, index=list(step.row_labels), columns=list(step.col_labels))


def step_summary(steps: list[ClusteringStep]) -> pd.DataFrame:
    """All steps at a glance: number, kind, what happens, where in the thesis."""
    return pd.DataFrame({"step": np.arange(1, len(steps) + 1), "kind": [s.kind for s in steps],
                         "what happens": [s.title for s in steps], "thesis": [s.cites for s in steps]})


# --------------------------------------------------------------------------- EM
def _config_label(tree: TreeStructure, i: int, x: int) -> str:
    parents = tree.bn_parents(i)
    return ", ".join(f"{tree.names[c]}={(x >> j) & 1}" for j, c in enumerate(parents))


def cpt_frame(params: TreeParameters, i: int) -> pd.DataFrame:
    """The table of node ``i``: one row per parent configuration, P(node = 1 | configuration)."""
    tree = params.tree
    t = params.cpt(i)
    name = tree.names[i]
    if t.ndim == 1:
        return pd.DataFrame({f"P({name}=1)": [t[1]]}, index=["(no parents)"])
    if tree.direction == "hbn":
        rows = [_config_label(tree, i, x) for x in range(t.shape[0])]
    else:
        rows = [f"{tree.names[tree.up[i]]}={s}" for s in range(2)]
    return pd.DataFrame({f"P({name}=1 | x)": t[:, 1]}, index=pd.Index(rows, name="x"))


def em_table(trace: EMTrace, iteration: int) -> pd.DataFrame:
    """Per restart: its log-likelihood at ``iteration`` (or where it stopped), and its final one."""
    rows = []
    for r in range(trace.n_restarts):
        ll = trace.log_likelihoods(r)
        it = min(iteration, ll.size - 1)
        rows.append({"restart": r, "iteration": it, "log-likelihood": ll[it],
                     "stopped": iteration >= ll.size - 1, "final": ll[-1],
                     "best": r == trace.result.best_restart})
    return pd.DataFrame(rows)


def em_step_text(trace: EMTrace, restart: int, iteration: int) -> str:
    """What the EM run of ``restart`` does at ``iteration``."""
    settings = trace.result.settings
    last = trace.last_iteration(restart)
    it = min(int(iteration), last)
    ll = trace.log_likelihoods(restart)
    if it == 0:
        hbn = trace.tree.direction == "hbn"
        text = ("Iteration 0 is the random start: every row of a hidden node's table is drawn uniformly, the "
                + ("class table is 0.5 for every parent configuration and the feature marginals are the "
                   "term frequencies (their maximum-likelihood value, Proposition 2)." if hbn else
                   "class prior is 0.5 / 0.5 and the feature tables are random too (HNB, sec. 3.3).")
                + " The E-step computes the expected counts of every family and the log-likelihood.")
    else:
        text = (f"E-step with the tables of iteration {it - 1}'s M-step: expected counts of each node and its "
                f"parents over the {settings.get('n_documents', '')} documents (the hidden nodes are not "
                "observed); M-step: each row of a table becomes its expected counts, normalised. "
                f"The log-likelihood rose by {ll[it] - ll[it - 1]:.5f}.")
    if int(iteration) >= last:
        rule = (f"gain < {settings.get('tol', 0):g} x |log-likelihood|" if settings.get("stopping") == "relative"
                else f"gain < {settings.get('tol', 0):g}")
        text += f" This restart has stopped at iteration {last} ({rule}: the thesis's threshold 1e-4)."
        if restart == trace.result.best_restart:
            text += " Its final log-likelihood is the best of all restarts: these are the model's tables."
        else:
            best = trace.log_likelihoods(trace.result.best_restart)[-1]
            text += f" It ended {best - ll[-1]:.4f} below the best restart: a different local optimum."
    return text


# --------------------------------------------------------------------------- inference
def document_choices(ex: TeachingExample) -> list[int]:
    return list(range(len(ex.texts)))


def most_uncertain_document(lesson: Lesson) -> int:
    """The document whose class posterior is closest to 1/2 (the most instructive default: its
    messages are neither 0 nor 1)."""
    p = class_posterior(lesson.params, lesson.example.X)[:, 1]
    return int(np.argmin(np.abs(p - 0.5)))


def run_inference(lesson: Lesson, doc: int) -> InferenceTrace:
    return trace_inference(lesson.params, lesson.example.X[doc].toarray().ravel())


def inference_dot(params: TreeParameters, trace: InferenceTrace, x, upto: int) -> str:
    """The tree after the first ``upto + 1`` inference steps: observed features labelled with
    their value, each computed node with P(node = 1 | ...) and coloured by it, the current one
    outlined in amber."""
    tree = params.tree
    x = np.asarray(x).ravel()
    done = trace.steps[: upto + 1]
    labels, fill = {}, {}
    for i in tree.feature_nodes():
        v = int(x[tree.feature[i]] > 0)
        labels[i] = f"{tree.names[i]} = {v}"
        fill[i] = "#9fd3a8" if v else "#ffffff"
    for s in done:
        if s.phase == "up" and tree.kind[s.node] in (CLASS, HIDDEN) and s.library is not None:
            labels[s.node] = f"{tree.names[s.node]}\\nP(=1) = {s.message[1]:.3f}"
            fill[s.node] = probability_fill(s.message[1])
        elif s.phase == "down" and s.library is not None:
            labels[s.node] = f"{tree.names[s.node]}\\nP(=1 | doc) = {s.message[1]:.3f}"
            fill[s.node] = probability_fill(s.message[1])
    dot = stable_tree_dot(tree, node_fill=fill, node_label=labels).replace("\\\\n", "\\n")
    current = trace.steps[upto].node
    return _outline(dot, tree, current)


def _outline(dot: str, tree: TreeStructure, node: int) -> str:
    """Give node ``node`` a thick amber border in a DOT source of :func:`stable_tree_dot`."""
    out = []
    marker = _node_id(tree, node) + " ["
    for line in dot.splitlines():
        if line.strip().startswith(marker):
            line = line.replace("];", f', penwidth=4, color="{FOCUS_FILL}"];')
        out.append(line)
    return "\n".join(out)


def _node_id(tree: TreeStructure, i: int) -> str:
    name = tree.names[i].replace("\\", "\\\\").replace('"', '\\"')
    if tree.kind[i] == CLASS:
        return '"class"'
    return f'"hidden:{name}"' if tree.kind[i] == HIDDEN else f'"term:{tree.feature[i]}:{name}"'


def message_frame(step) -> pd.DataFrame:
    """The rows an inference step sums over, with their column names (index: row number); for an
    HBN node a last row ``sum`` holds the total of the products, the node's q(1)."""
    index = list(step.row_labels) or [f"x{r}" for r in range(len(step.rows))]
    frame = pd.DataFrame(step.rows, columns=list(step.columns), index=index)
    if list(step.columns)[-1] == "product":
        total = pd.DataFrame([[np.nan] * (len(step.columns) - 1) + [step.rows[:, -1].sum()]],
                             columns=frame.columns, index=["sum"])
        frame = pd.concat([frame, total])
    return frame


def inference_check(trace: InferenceTrace) -> pd.DataFrame:
    """Traced versus library posterior of every node the trace computed a probability for."""
    rows = [{"node": s.title.split(" = ")[0], "traced": s.message[1], "library": s.library,
             "|difference|": abs(s.message[1] - s.library)} for s in trace.steps if s.library is not None]
    return pd.DataFrame(rows)


__all__ = ["LESSON_ALPHA", "LESSON_ALPHA_RANGE", "LESSON_CLUSTERINGS", "Lesson", "LessonSettings", "build_lesson",
           "clustering_dot", "corpus_frame", "cpt_frame", "document_choices", "em_step_text", "em_table",
           "inference_check", "inference_dot", "learned_nodes", "matrix_html", "message_frame",
           "most_uncertain_document", "run_inference", "step_card_html", "step_matrix", "step_summary",
           "PRESENT_PARAM", "PRESENTATION_CSS", "PRESENTATION_FONTSIZE", "presentation_dot", "tables_row_html",
           "url_flag"]


# --------------------------------------------------------------------------- the two fits
def fit_summary(lesson: Lesson) -> pd.DataFrame:
    """The EM's tables, the same after one step with a prior (the start of the conditional fit) and
    the tables refitted for log P(c | f): what each objective scores on the teaching corpus, and how
    many documents each puts on the right side of 0.5."""
    ex = lesson.example
    rows = []
    for name, params in (("EM (the thesis)", lesson.params),
                         (f"EM + prior (pseudo-count {START_PSEUDO_COUNT:g}): the start", lesson.conditional.start),
                         ("conditional likelihood", lesson.conditional.params)):
        p1 = class_posterior(params, ex.X)[:, 1]
        rows.append({"fit": name,
                     "log P(c, f) (EM's objective)": log_likelihood(params, ex.X, ex.y),
                     "log P(c | f) (the decision's)": log_likelihood(params, ex.X, ex.y, conditional=True),
                     "documents right at 0.5": int(np.sum((p1 > 0.5) == (ex.y == 1)))})
    return pd.DataFrame(rows)


def posterior_comparison(lesson: Lesson) -> pd.DataFrame:
    """Per document: P(class | document) under each fit."""
    ex = lesson.example
    return pd.DataFrame({"#": np.arange(len(ex.texts)), "text": list(ex.texts), "trade": ex.y.astype(int),
                         "EM": class_posterior(lesson.params, ex.X)[:, 1],
                         "conditional": class_posterior(lesson.conditional.params, ex.X)[:, 1]})


def moved_parameters(lesson: Lesson, top: int = 8) -> pd.DataFrame:
    """The table entries P(node = 1 | x) the conditional fit moved most from its start, the start's
    value beside the new one: the parameters the decision needed changed."""
    em_p, cl_p = lesson.conditional.start, lesson.conditional.params
    tree = em_p.tree
    rows = []
    for i in learned_nodes(tree):
        a, b = cpt_frame(em_p, i), cpt_frame(cl_p, i)
        for label, p0, p1 in zip(a.index, a.iloc[:, 0], b.iloc[:, 0]):
            rows.append({"table": a.columns[0], "x": label, "start": p0, "conditional": p1, "moved": abs(p1 - p0)})
    frame = pd.DataFrame(rows).sort_values("moved", ascending=False, kind="stable")
    return frame.head(top).reset_index(drop=True)
