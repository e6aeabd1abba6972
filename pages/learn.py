"""Learn: step through a clustering, EM and inference on a corpus small enough to see every number.

A presentation mode (the toggle, or ``?present=1`` in the URL) is for a projector: large type,
black on white, the settings folded away, one section and one step per screen, and the arrow keys
press Previous / Next."""
import streamlit as st

from hbnlab.app import charts, lessons, page, widgets
from hbnlab.app.views import learn as L

INTRO = ("Step through how an HBN classifier is built and used (Karčiauskas, 2002): the clustering that makes the "
         "tree, EM that learns its tables, and inference for one document. It runs on its own built-in corpus of "
         "16 one-line snippets and 8 terms, whatever corpus is loaded.")
PRESENT = "learn_present"
SECTION = "learn_section"  # the section shown in presentation mode (0, 1, 2)
SECTIONS = [":material/account_tree: 1 · Clustering", ":material/autorenew: 2 · EM",
            ":material/calculate: 3 · Inference", ":material/balance: 4 · Fit for the decision"]

if PRESENT not in st.session_state:
    st.session_state[PRESENT] = L.url_flag(st.query_params.get(L.PRESENT_PARAM))
present = bool(st.session_state[PRESENT])

page.page_frame("Learn")
if present:
    # one bar: the settings folded into a pop-over, the three sections, the switch
    st.html(L.PRESENTATION_CSS)
    bar = st.columns([1.4, 2, 2, 2, 2, 2], vertical_alignment="center")
    settings_box = bar[0].popover("Settings", icon=":material/tune:", width="stretch")
    section_places, switch = bar[1:5], bar[5]
else:
    head, switch = st.columns([5, 1.2], vertical_alignment="center")
    head.caption(INTRO)
    settings_box, section_places = st.container(), []
switch.toggle("Presentation mode", key=PRESENT, help="For a projector: large type, high contrast, one step per "
              "screen; the arrow keys ← → go back and forth. A link with ?present=1 opens the page this way.")
if present:
    st.query_params[L.PRESENT_PARAM] = "1"
elif L.PRESENT_PARAM in st.query_params:
    del st.query_params[L.PRESENT_PARAM]

# presentation mode shows one section at a time, so that its Previous / Next are the only ones the arrow
# keys reach; plain buttons choose it (tabs and segmented controls take the arrow keys once clicked)
section = int(st.session_state.get(SECTION, 0))
for k, (place, label) in enumerate(zip(section_places, SECTIONS)):
    place.button(label, key=f"{SECTION}_{k}", type="primary" if k == section else "secondary", width="stretch",
                 on_click=st.session_state.__setitem__, args=(SECTION, k))


def dot(source: str) -> str:
    return L.presentation_dot(source) if present else source


with settings_box:
    # in the pop-over of presentation mode one under the other
    c1, c2, c3, c4 = [st.container()] * 4 if present else st.columns(4)
    clustering = c1.selectbox("Clustering", list(L.LESSON_CLUSTERINGS), format_func=L.LESSON_CLUSTERINGS.get,
                              key="learn_clustering", help="AVG (thesis sec. 3.5), OR (sec. 3.6), DEP (sec. 3.7)")
    B = c2.slider("Branching factor B", min_value=2, max_value=4, value=3, key="learn_B")
    lo, hi, step = L.LESSON_ALPHA_RANGE[clustering]
    alpha = c3.slider("alpha", min_value=lo, max_value=hi, value=L.LESSON_ALPHA[clustering], step=step,
                      key=f"learn_alpha_{clustering}")
    direction = c4.radio("Arcs", ["hbn", "hnb"], format_func=str.upper, horizontal=True, key="learn_direction",
                         help="HBN: arcs toward the class (ch. 2); HNB: away from it (sec. 3.3)")
settings = L.LessonSettings(clustering=clustering, B=B, alpha=float(alpha), direction=direction)
with page.readable_errors():
    lesson = lessons.lesson(settings)
ex = lesson.example

if not present:
    with st.expander(f"The teaching corpus: {len(ex.texts)} documents, {len(ex.terms)} terms, class 'trade'"):
        st.dataframe(L.corpus_frame(ex), hide_index=True, key="learn_corpus")

if present:
    places = [st.container() for _ in SECTIONS]
    shown = [k == section for k in range(len(SECTIONS))]
else:
    places = st.tabs(SECTIONS)
    shown = [True] * len(SECTIONS)


def clustering_section() -> None:
    steps = lesson.clustering
    k = widgets.step_controls("learn_clu_step", len(steps), arrow_keys=present)
    s = steps[k]
    card = L.step_card_html(k + 1, len(steps), s.title, s.text, s.cites, kind=s.kind, large=present)
    frame = L.step_matrix(s)
    if present:
        st.html(card)
    wide = frame is not None and frame.shape[1] > 4  # the InfoLoss matrices: more room for the table
    left, right = st.columns(([2, 3] if wide else [3, 2]) if present else [1, 1])
    with left:
        st.graphviz_chart(dot(L.clustering_dot(s, ex, direction)), width="stretch")
        st.caption("Amber: what this step acts on; blue: the other features of the current clustering call.")
    with right:
        if not present:
            st.html(card)
        if frame is not None:
            st.html(L.matrix_html(frame, s.chosen, caption=s.matrix_name, large=present))
    if not present:
        with st.expander("All steps"):
            st.dataframe(L.step_summary(steps), hide_index=True, key="learn_clu_all")


def em_section() -> None:
    em = lesson.em
    best = em.result.best_restart
    c1, c2 = st.columns([1, 5] if present else [1, 3], vertical_alignment="bottom")
    restart = c1.selectbox("Restart", list(range(em.n_restarts)), index=best, key="learn_em_restart",
                           format_func=lambda r: f"restart {r}" + (" (best)" if r == best else ""))
    if present:
        with c2:  # the restart beside the step controls: one row fewer on the screen
            it = widgets.step_controls("learn_em_step", em.n_iterations, label="Iteration", first=0, arrow_keys=True)
    else:
        c2.caption(f"{em.n_restarts} restarts from random tables, each run until the log-likelihood gains less "
                   "than 1e-4 of itself; the best final value is kept (the thesis uses 64).")
        it = widgets.step_controls("learn_em_step", em.n_iterations, label="Iteration", first=0)
    shown_it = min(it, em.last_iteration(restart))
    st.html(L.step_card_html(
        it, em.n_iterations - 1, f"Restart {restart}, iteration {shown_it}: log-likelihood "
        f"{em.log_likelihoods(restart)[shown_it]:.4f}", L.em_step_text(em, restart, it),
        "thesis sec. 3.2 (after fig. 3.4), Proposition 2; restarts as Chickering and Heckerman (1997)",
        kind="EM", unit="Iteration", large=present))
    chart = charts.em_restart_curves([em.log_likelihoods(r) for r in range(em.n_restarts)], iteration=it,
                                     best=best, selected=restart, large=present)
    params = em.params(restart, it)
    nodes = L.learned_nodes(lesson.tree)
    tables = [L.matrix_html(L.cpt_frame(params, i), digits=3, heat=True, large=present) for i in nodes]
    heading = f"**The tables of restart {restart} at iteration {shown_it}** (cells coloured by the probability)"
    if present:
        left, right = st.columns([1, 1])
        left.plotly_chart(chart, key="learn_em_chart", theme=None)  # the figure's own large type
        right.markdown(heading)
        right.html(L.tables_row_html(tables))
        return
    left, right = st.columns([3, 2])
    with left:
        st.plotly_chart(chart, key="learn_em_chart")
        st.dataframe(L.em_table(em, it), hide_index=True, key="learn_em_table",
                     column_config={"log-likelihood": st.column_config.NumberColumn(format="%.4f"),
                                    "final": st.column_config.NumberColumn(format="%.4f")})
    with right:
        st.graphviz_chart(L.clustering_dot(lesson.clustering[-1], ex, direction), width="stretch")
    st.markdown(heading)
    cols = st.columns(min(len(nodes), 3))
    for j, html in enumerate(tables):
        cols[j % len(cols)].html(html)


def inference_section() -> None:
    doc = st.selectbox("Document", L.document_choices(ex), key="learn_doc",
                       index=L.document_choices(ex).index(lessons.lesson_default_document(settings)),
                       format_func=lambda d: f"#{d} ({'trade' if ex.y[d] else 'not trade'}): {ex.texts[d]}")
    trace = lessons.lesson_inference(settings, doc)
    k = widgets.step_controls("learn_inf_step", len(trace.steps), arrow_keys=present)
    s = trace.steps[k]
    card = L.step_card_html(k + 1, len(trace.steps), s.title, s.text, s.cites, kind=s.phase, large=present)
    if present:
        st.html(card)
    left, right = st.columns([3, 2] if present else [2, 3])
    with left:
        st.graphviz_chart(dot(L.inference_dot(lesson.params, trace, ex.X[doc].toarray(), k)), width="stretch")
        st.caption("Green: observed terms; fill: P(node = 1) once computed; amber border: this step.")
    with right:
        if not present:
            st.html(card)
        st.html(L.matrix_html(L.message_frame(s), caption="the terms of the sum" if s.phase == "up" else "",
                              large=present))
        m1, m2 = st.columns(2)
        m1.metric(f"P({lesson.tree.names[0]} = 1 | document)", f"{trace.posterior[1]:.6f}")
        m2.metric("library (hbnlab.bn.inference)", f"{trace.library_posterior[1]:.6f}",
                  delta=f"|difference| {trace.max_abs_difference:.1e}", delta_color="off")
    if not present:
        with st.expander("Every node: traced versus the library's exact inference"):
            st.dataframe(L.inference_check(trace), hide_index=True, key="learn_inf_check")


def conditional_section() -> None:
    st.markdown("**The same tree, its tables fitted two ways.** EM maximises log P(c, f): it models the terms as "
                "much as the class, and its maximum-likelihood tables hold entries of 0 and 1. A prior (one "
                "pseudo-count per entry) takes them off 0 and 1; refitting the tables from there for "
                "log P(c | f), the probability of the right class given the terms, held near the start by a "
                "prior, moves the entries the decision depends on (Greiner & Zhou 2002; Roos et al. 2005). On "
                "16 documents EM already separates the classes: the prior costs training fit, which the "
                "conditional fit wins back where the decision needs it; on a real corpus it ranks test "
                "documents better.")
    st.dataframe(L.fit_summary(lesson), hide_index=True, key="learn_cll_summary",
                 column_config={c: st.column_config.NumberColumn(format="%.3f")
                                for c in ("log P(c, f) (EM's objective)", "log P(c | f) (the decision's)")})
    left, right = st.columns([3, 2])
    with left:
        st.caption("P(trade | document) under each fit")
        st.dataframe(L.posterior_comparison(lesson), hide_index=True, key="learn_cll_posteriors",
                     column_config={c: st.column_config.ProgressColumn(c, min_value=0.0, max_value=1.0, format="%.3f")
                                    for c in ("EM", "conditional")})
    with right:
        st.caption("The table entries that moved most")
        st.dataframe(L.moved_parameters(lesson), hide_index=True, key="learn_cll_moved",
                     column_config={c: st.column_config.NumberColumn(format="%.3f")
                                    for c in ("start", "conditional", "moved")})


for place, show, draw in zip(places, shown, (clustering_section, em_section, inference_section,
                                             conditional_section)):
    if show:
        with place:
            draw()
