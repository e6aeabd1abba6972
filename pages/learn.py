"""Learn: step through a clustering, EM and inference on a corpus small enough to see every number."""
import streamlit as st

from hbnlab.app import charts, services, widgets
from hbnlab.app.views import learn as L

widgets.page_frame("Learn", "Step through how an HBN classifier is built and used (Karčiauskas, 2002): the "
                   "clustering that makes the tree, EM that learns its tables, and inference for one document. "
                   "It runs on its own built-in corpus of 16 one-line snippets and 8 terms, whatever corpus "
                   "is loaded.")

c1, c2, c3, c4 = st.columns(4)
clustering = c1.selectbox("Clustering", list(L.LESSON_CLUSTERINGS), format_func=L.LESSON_CLUSTERINGS.get,
                          key="learn_clustering", help="AVG (thesis sec. 3.5), OR (sec. 3.6), DEP (sec. 3.7)")
B = c2.slider("Branching factor B", min_value=2, max_value=4, value=3, key="learn_B")
lo, hi, step = L.LESSON_ALPHA_RANGE[clustering]
alpha = c3.slider("alpha", min_value=lo, max_value=hi, value=L.LESSON_ALPHA[clustering], step=step,
                  key=f"learn_alpha_{clustering}")
direction = c4.radio("Arcs", ["hbn", "hnb"], format_func=str.upper, horizontal=True, key="learn_direction",
                     help="HBN: arcs toward the class (ch. 2); HNB: away from it (sec. 3.3)")
settings = L.LessonSettings(clustering=clustering, B=B, alpha=float(alpha), direction=direction)
with widgets.readable_errors():
    lesson = services.lesson(settings)
ex = lesson.example

with st.expander(f"The teaching corpus: {len(ex.texts)} documents, {len(ex.terms)} terms, class 'trade'"):
    st.dataframe(L.corpus_frame(ex), hide_index=True, key="learn_corpus")

tab1, tab2, tab3 = st.tabs([":material/account_tree: 1 · Clustering", ":material/autorenew: 2 · EM",
                            ":material/calculate: 3 · Inference"])

with tab1:
    steps = lesson.clustering
    k = widgets.step_controls("learn_clu_step", len(steps))
    s = steps[k]
    left, right = st.columns([1, 1])
    with left:
        st.graphviz_chart(L.clustering_dot(s, ex, direction), width="stretch")
        st.caption("Amber: what this step acts on; blue: the other features of the current clustering call.")
    with right:
        st.html(L.step_card_html(k + 1, len(steps), s.title, s.text, s.cites, kind=s.kind))
        frame = L.step_matrix(s)
        if frame is not None:
            st.html(L.matrix_html(frame, s.chosen, caption=s.matrix_name))
    with st.expander("All steps"):
        st.dataframe(L.step_summary(steps), hide_index=True, key="learn_clu_all")

with tab2:
    em = lesson.em
    best = em.result.best_restart
    c1, c2 = st.columns([1, 3], vertical_alignment="bottom")
    restart = c1.selectbox("Restart", list(range(em.n_restarts)), index=best, key="learn_em_restart",
                           format_func=lambda r: f"restart {r}" + (" (best)" if r == best else ""))
    c2.caption(f"{em.n_restarts} restarts from random tables, each run until the log-likelihood gains less than "
               "1e-4 of itself; the best final value is kept (the thesis uses 64).")
    it = widgets.step_controls("learn_em_step", em.n_iterations, label="Iteration", first=0)
    shown = min(it, em.last_iteration(restart))
    st.html(L.step_card_html(
        it, em.n_iterations - 1, f"Restart {restart}, iteration {shown}: log-likelihood "
        f"{em.log_likelihoods(restart)[shown]:.4f}", L.em_step_text(em, restart, it),
        "thesis sec. 3.2 (after fig. 3.4), Proposition 2; restarts as Chickering and Heckerman (1997)",
        kind="EM", unit="Iteration"))
    left, right = st.columns([3, 2])
    with left:
        st.plotly_chart(charts.em_restart_curves([em.log_likelihoods(r) for r in range(em.n_restarts)],
                                                 iteration=it, best=best, selected=restart), key="learn_em_chart")
        st.dataframe(L.em_table(em, it), hide_index=True, key="learn_em_table",
                     column_config={"log-likelihood": st.column_config.NumberColumn(format="%.4f"),
                                    "final": st.column_config.NumberColumn(format="%.4f")})
    with right:
        st.graphviz_chart(L.clustering_dot(lesson.clustering[-1], ex, direction), width="stretch")
    params = em.params(restart, it)
    st.markdown(f"**The tables of restart {restart} at iteration {shown}** (cells coloured by the probability)")
    nodes = L.learned_nodes(lesson.tree)
    cols = st.columns(min(len(nodes), 3))
    for j, i in enumerate(nodes):
        cols[j % len(cols)].html(L.matrix_html(L.cpt_frame(params, i), digits=3, heat=True))

with tab3:
    doc = st.selectbox("Document", L.document_choices(ex), key="learn_doc",
                       index=L.document_choices(ex).index(services.lesson_default_document(settings)),
                       format_func=lambda d: f"#{d} ({'trade' if ex.y[d] else 'not trade'}): {ex.texts[d]}")
    trace = services.lesson_inference(settings, doc)
    k = widgets.step_controls("learn_inf_step", len(trace.steps))
    s = trace.steps[k]
    left, right = st.columns([2, 3])
    with left:
        st.graphviz_chart(L.inference_dot(lesson.params, trace, ex.X[doc].toarray(), k), width="stretch")
        st.caption("Green: observed terms; fill: P(node = 1) once computed; amber border: this step.")
    with right:
        st.html(L.step_card_html(k + 1, len(trace.steps), s.title, s.text, s.cites, kind=s.phase))
        st.html(L.matrix_html(L.message_frame(s), caption="the terms of the sum" if s.phase == "up" else ""))
        m1, m2 = st.columns(2)
        m1.metric(f"P({lesson.tree.names[0]} = 1 | document)", f"{trace.posterior[1]:.6f}")
        m2.metric("library (hbnlab.bn.inference)", f"{trace.library_posterior[1]:.6f}",
                  delta=f"|difference| {trace.max_abs_difference:.1e}", delta_color="off")
    with st.expander("Every node: traced versus the library's exact inference"):
        st.dataframe(L.inference_check(trace), hide_index=True, key="learn_inf_check")
