"""Explain: why did the model give this document this score?"""
import streamlit as st

from hbnlab.app import charts, corpus_data, job_outputs, job_widgets, page, state, widgets
from hbnlab.app.views import explain as views

cfg = page.page_frame("Explain", "Pick a test document: see the model's terms in the text, the tree coloured "
                         "by P(node = 1 | document) with each subtree's contribution, and the terms that push "
                         "the score up and down.")
job_id, out = job_widgets.finished_job_outputs(key="x_job")

c1, c2 = st.columns([1, 2])
with c1:
    unit = job_widgets.unit_picker(out, key="x_unit")
label, classifier = job_outputs.unit_parts(unit)
with c2:
    query = st.text_input("Find a document by id or text", key="x_query",
                          placeholder=f"e.g. a word typical of {label}",
                          help="A document id, or words the document holds as whole words (any order and case: "
                               "oil finds Oil, not boil); \"a phrase\" in double quotes as written.")
docs = job_outputs.ranked_documents(job_id, unit, query)
st.caption(f"{len(docs)} evaluation document(s), highest P({widgets.md_escape(label)} | document) first")
st.dataframe(docs.head(200), hide_index=True, height=220, key="x_docs",
             column_config={"score": st.column_config.NumberColumn(f"P({label} | doc)", format="%.3f")})
if docs.empty:
    st.stop()
ids = docs["doc_id"].tolist()
st.session_state["x_doc"] = views.pick_document(ids, (job_id, unit), state.recall(state.EXPLAIN_DOC),
                                                state.recall(state.EXPLAIN_SHOWN), st.session_state.get("x_doc"))
doc_id = st.selectbox("Document", ids, key="x_doc")
state.remember(state.EXPLAIN_DOC, doc_id)
state.remember(state.EXPLAIN_SHOWN, (job_id, unit, doc_id))

with page.readable_errors():
    ex = job_outputs.explain(job_id, unit, doc_id)
verdict = st.success if (ex.probability >= 0.5) == ex.true_label else st.warning
verdict(widgets.md_escape(ex.verdict))
if ex.certainty:
    st.info(widgets.md_escape(ex.certainty), icon=":material/priority_high:")
m = st.columns(3)
m[0].metric(f"P({widgets.md_escape(label)} | document)", ex.probability_text)
m[1].metric("log-odds", ex.log_odds_text)
m[2].metric(f"labelled {widgets.md_escape(label)}", "yes" if ex.true_label else "no")

left, right = st.columns([1, 1]) if ex.tree_dot else st.columns([3, 2])
with left:
    st.markdown("**The document** — the model's terms are marked (red pushes towards the class, blue away; "
                "the deepest shade: the term makes the model certain)")
    st.html(ex.text_html)
    present = ex.terms[ex.terms["present"]]
    bars = views.chart_terms(ex.terms)
    if bars.empty:
        st.caption("No term has a finite contribution to chart: the model is certain of this document and the "
                   "evidence of each term named in the note above makes it so on its own. The table of all terms "
                   "below gives the log-odds without each one.")
    else:
        st.plotly_chart(charts.term_effects(bars, title="Terms pushing the score up and down"), key="x_terms_chart")
    st.caption(f"Contributions: {widgets.md_escape(ex.method)}. {len(present)} of the model's {len(ex.terms)} "
               "terms occur in the text; bars marked (absent), hatched, are terms that do not occur: the bar is "
               "the effect of their absence.")
if ex.tree_dot:
    with right:
        st.markdown("**The tree for this document** — fill: P(node = 1 | document). Δ = the class log-odds "
                    "with the evidence under the node minus the log-odds without it: Δ > 0 means that "
                    "evidence pushes towards the class, Δ < 0 away from it; \"decides\": that evidence makes "
                    "the model certain.")
        left_right = st.toggle("Draw left to right", value=True, key="x_lr")
        st.graphviz_chart(corpus_data.tree_dot(ex.tree_dot, left_right), width="stretch")
    with st.expander("Node table"):
        st.dataframe(views.shown_frame(ex.nodes), hide_index=True, key="x_nodes")
with st.expander("All terms of the model"):
    st.dataframe(views.shown_frame(ex.terms), hide_index=True, key="x_terms")
