"""Compare: finished jobs side by side, and how sure each difference is."""
import streamlit as st

from hbnlab.app import job_outputs, page, widgets

cfg = page.page_frame("Compare", "Two or more trained classifiers on the same documents: breakeven per class "
                         "side by side, and whether a difference is more than the luck of which documents "
                         "happen to be in the test set.")
labels = job_outputs.comparable_systems()
names = job_outputs.system_labels()
if len(labels) < 2:
    st.info("Compare needs at least two trained classifiers: train a job with two classifiers, or two jobs, "
            "on the Training page.")
    st.stop()
default = list(labels)[:2]
chosen = st.multiselect("Systems (the first is the reference)", list(labels), default=default, key="c_systems",
                        format_func=lambda k: names.get(k, k),
                        help="A system is one classifier of one finished job. Systems trained on the reference's "
                             "corpus are compared document by document; one trained on another corpus is shown, "
                             "marked, but not paired.")
if len(chosen) < 2:
    st.info("Choose at least two systems.")
    st.stop()
picked = [labels[k] for k in chosen]
with page.readable_errors():
    table = job_outputs.compare_table(picked)
    notes = job_outputs.compare_notes(picked)
st.subheader("Breakeven (%) side by side")
for note in notes:
    st.warning(widgets.md_escape(note), icon=":material/swap_horiz:")
st.dataframe(widgets.points_styler(table, signed=[c for c in table.columns if "−" in c],
                                   points=[c for c in table.columns if "−" not in c]),
             key="c_table", height=widgets.table_height(table))
st.caption("Row `accuracy`: one-of-n accuracy, the share of documents whose highest-scoring class is their true "
           "one." if "accuracy" in table.index else "Accuracy: n/a, some documents have none or several of the "
           "compared classes (it needs a single-label corpus with every class trained).")
with page.readable_errors():
    for job_id, classifier in picked:
        for note in job_outputs.baseline_notes([(job_id, classifier)]):
            text = widgets.md_escape(f"#{job_id} · {note.text()}")
            if note.below_nb:
                st.warning(text, icon=":material/warning:")
            else:
                st.caption(text)

st.subheader("How sure is the difference?")
c1, c2, c3 = st.columns([2, 1, 1])
other = c1.selectbox("Against the reference", chosen[1:], key="c_other", format_func=lambda k: names.get(k, k))
n_boot = c2.select_slider("Resamples", [200, 500, 1000, 2000], value=1000, key="c_boot")
threshold = c3.slider("McNemar threshold on P(class | document)", 0.05, 0.95, 0.5, 0.05, key="c_threshold")
with page.readable_errors():
    unpaired = job_outputs.unpaired_reason(labels[chosen[0]], labels[other])
if unpaired:
    st.warning(widgets.md_escape(unpaired), icon=":material/block:")
    st.stop()
with page.readable_errors():
    boot, mc = job_outputs.paired_comparison(labels[chosen[0]], labels[other], n_boot=n_boot, threshold=threshold)
st.info(job_outputs.compare_verdict(boot, chosen[0], other))
pair_note = job_outputs.pair_class_note(picked, labels[chosen[0]], labels[other])
if pair_note:
    st.warning(widgets.md_escape(pair_note), icon=":material/rule:")
st.dataframe(widgets.points_styler(job_outputs.bootstrap_frame(boot, chosen[0], other),
                                   signed=["difference", "95% low", "95% high"], points=[chosen[0], other]),
             key="c_boot_table")
st.caption(f"Paired bootstrap: the evaluation documents are resampled with replacement {n_boot} times (seeded), "
           "both systems scored on each resample; the interval holds the middle 95% of the differences and p is "
           "the share of resampled differences at least as far from the observed one as it is from 0. A class "
           "with few positives has a wide interval: a 1-point difference there means little.")
with st.expander("McNemar's test per class (decisions at the threshold)"):
    st.dataframe(widgets.points_styler(mc, p=["p"]), key="c_mcnemar")
    st.caption("Of the documents on which exactly one system decides right, is either right more often than a "
               "coin would be? (exact binomial test, McNemar 1947)")
