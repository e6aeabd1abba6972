"""Evaluation: breakeven per class x classifier, PR curves, 11-point precision, F1@k, thresholds."""
import streamlit as st

from hbnlab.app import charts, job_outputs, job_widgets, page, state, widgets

cfg = page.page_frame("Evaluation", "Precision/recall breakeven per class with micro and macro averages "
                         "(thesis sec. 4.1.3), ranking measures of de Campos et al., and decision thresholds.")
job_id, out = job_widgets.finished_job_outputs(key="e_job")
split = "test set" if out.stage == "test" else "validation split"
st.caption(f"Job #{job_id} · {widgets.md_escape(out.corpus_name)} · evaluated on the {split} "
           f"({len(out.doc_ids)} documents)")

st.subheader("Breakeven (%)")
table = job_outputs.breakeven_table(job_id)
if out.compare_with_thesis():
    st.caption("Columns `thesis ...`: Karčiauskas (2002), Table 4.10, beside ours.")
st.dataframe(table, key="e_breakeven", height=widgets.table_height(table),
             column_config={c: st.column_config.NumberColumn(format="%.1f") for c in table.columns})
for note in out.baseline_notes(table):
    if note.below_nb:
        st.warning(note.text(split), icon=":material/warning:")
    else:
        st.caption(note.text(split))
st.plotly_chart(charts.breakeven_bars(table), key="e_bars")

st.subheader("Accuracy (%) and confusions")
not_single = out.single_label_problem()
if not_single:
    st.info(f"Accuracy: n/a. {widgets.md_escape(not_single)}.", icon=":material/info:")
else:
    accuracy = job_outputs.accuracy_table(job_id)
    st.dataframe(accuracy, key="e_accuracy", column_config={"accuracy": st.column_config.NumberColumn(format="%.1f")})
    st.caption("One-of-n accuracy: each document is given the class with the highest score (ties: the first "
               "class); the share given its true class. It equals micro F1@1 below.")
    c1, c2 = st.columns([2, 3])
    cm_classifier = c1.selectbox("Confusions of", out.classifiers, key="e_cm_classifier",
                                 on_change=widgets.forget, args=("e_confusion", "e_cm_doc"))
    matrix, confusions = job_outputs.confusions(job_id, cm_classifier)
    clicked = c1.dataframe(confusions, hide_index=True, key=f"e_confusions:{cm_classifier}", on_select="rerun",
                           selection_mode="single-row", height=widgets.table_height(confusions),
                           column_config={"share of true": st.column_config.NumberColumn(format="%.2f")})
    widgets.follow_row(clicked, "e_confusion", forget=("e_cm_doc",))
    c2.plotly_chart(charts.confusion_heatmap(matrix, out.classes, title=f"{cm_classifier}: true class x given "
                                             "class (diagonal left out)"), key="e_cm_chart")
    if confusions.empty:
        st.success(f"{widgets.md_escape(cm_classifier)} gives every evaluation document its true class.")
    else:
        cells = list(confusions.itertuples(index=False))
        cell = st.selectbox("Documents of the confusion (or click a row above)", range(len(cells)), key="e_confusion",
                            format_func=lambda k: f"{cells[k].true} given {cells[k].given} ({cells[k].documents})",
                            on_change=widgets.forget, args=("e_cm_doc",))
        true, given = cells[cell].true, cells[cell].given
        docs = job_outputs.confused_documents(job_id, cm_classifier, true, given)
        st.dataframe(docs, hide_index=True, key="e_cm_docs", height=widgets.table_height(docs),
                     column_config={c: st.column_config.NumberColumn(format="%.3f") for c in docs.columns[1:]})
        c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
        doc_id = c1.selectbox("Document", docs["doc_id"].tolist(), key="e_cm_doc")
        if c2.button(f"Open in Explain ({widgets.md_escape(given)} model)", key="e_open_explain",
                     icon=":material/lightbulb:"):
            state.remember(state.EXPLAIN_DOC, doc_id)
            st.session_state["x_unit"] = f"{given}|{cm_classifier}"  # the Explain page's model picker
            st.switch_page("pages/explain.py")

st.subheader("Ranking measures (%)")
ranking = job_outputs.ranking_table(job_id)
st.dataframe(ranking, key="e_ranking", height=widgets.table_height(ranking),
             column_config={c: st.column_config.NumberColumn(format="%.1f") for c in ranking.columns})
st.caption("11-point average precision and F1@k rank the trained classes for each document "
           "(de Campos et al., sec. 4); they need at least two classes.")

st.subheader("Precision-recall curves")
c1, c2 = st.columns(2)
label = c1.selectbox("Class", out.classes, key="e_class")
curves = job_outputs.pr_curves(job_id, label)
c1.plotly_chart(charts.pr_curves(curves, title=f"{label}: precision-recall, breakeven marked"), key="e_pr")
with c2:
    classifier = st.selectbox("Classifier", out.classifiers, key="e_classifier")
    threshold = st.slider("Decision threshold on P(class | document)", 0.0, 1.0, 0.5, 0.01, key="e_threshold")
    stats = job_outputs.threshold_stats(job_id, label, classifier, threshold)
    m = st.columns(3)
    m[0].metric("precision", f"{stats['precision']:.3f}")
    m[1].metric("recall", f"{stats['recall']:.3f}")
    m[2].metric("F1", f"{stats['F1']:.3f}")
    st.caption(f"{stats['assigned']} documents assigned to {widgets.md_escape(label)}; {stats['positives']} truly are.")
    t, p, r, f1 = job_outputs.threshold_curve(job_id, label, classifier)
    st.plotly_chart(charts.threshold_curve(t, p, r, f1, current=threshold, title=f"{classifier} on {label}"),
                    key="e_threshold_curve")
