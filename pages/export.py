"""Export: trained models, the tables as CSV, a report and a Python script of a training job."""
import functools

import streamlit as st

from hbnlab.app import job_outputs, job_widgets, page, uploads, widgets
from hbnlab.app.views import export as views

cfg = page.page_frame("Export", "Download what a training job produced.")
job_id, out = job_widgets.finished_job_outputs(key="p_job")
prefix = f"hbnlab-job{job_id}" + ("-synthetic" if out.synthetic else "")

# The HTML report (plotly.js inlined, a figure per class, the trees drawn) and the CSV files are
# made when their button is pressed (a callable as the button's data), not on every run of the page.
st.subheader("Report")
with page.readable_errors():
    report_md = job_outputs.markdown_report(job_id)
c1, c2 = st.columns(2)
c1.download_button("Download the report (Markdown)", report_md, file_name=f"{prefix}-report.md",
                   mime="text/markdown", key="p_report_md", icon=":material/description:", on_click="ignore")
c2.download_button("Download the report (HTML)", functools.partial(job_outputs.html_report, job_id),
                   file_name=f"{prefix}-report.html", mime="text/html", key="p_report_html", icon=":material/html:",
                   on_click="ignore")
with st.expander("Preview"):
    st.markdown(report_md)

st.subheader("Tables (CSV)")
tables = job_outputs.export_table_makers(job_id)
cols = st.columns(len(tables))
for col, (name, make) in zip(cols, tables.items()):
    col.download_button(name, make, file_name=f"{prefix}-{name}", mime="text/csv", key=f"p_csv_{name}",
                        icon=":material/table:", on_click="ignore")

st.subheader("Models")
unit = job_widgets.unit_picker(out, key="p_unit")
info = out.unit(unit)
with page.readable_errors():  # a deleted or damaged model file: a message, not a traceback
    model = job_outputs.model_bytes(info["model"])
    networks = job_outputs.bn_files(info["model"])
st.download_button(f"Download the model {widgets.md_escape(' · '.join(job_outputs.unit_parts(unit)))}", model,
                   file_name=f"{prefix}-{uploads.safe_file_name(unit.replace('|', '-'))}.{job_outputs.MODEL_SUFFIX}",
                   mime="application/octet-stream", key="p_model", icon=":material/download:", on_click="ignore")
st.caption(job_outputs.MODEL_FORMAT_NOTE)
if networks:
    stem = f"{prefix}-{uploads.safe_file_name(unit.replace('|', '-'))}"
    for col, (fmt, text) in zip(st.columns(len(networks)), networks.items()):
        title, suffix, mime = job_outputs.BN_FILES[fmt]
        col.download_button(f"Bayesian network ({title})", text, file_name=f"{stem}{suffix}", mime=mime,
                            key=f"p_bn_{fmt}", icon=":material/account_tree:", on_click="ignore")
    st.caption("The model as a Bayesian network (class, hidden and term variables with their tables) for GeNIe, "
               "SamIam, pyAgrum or HUGIN: a term variable is 1 when the document contains the term.")
else:
    st.caption(f"{widgets.md_escape(info['classifier'])} has no Bayesian-network form: BIF, XMLBIF and HUGIN "
               "files exist for the HBN/HNB, naive Bayes, k-dependence, noisy-OR and greedy HNB learners.")

st.subheader("Settings and code")
st.download_button("Experiment settings (JSON)", views.settings_json(out), file_name=f"{prefix}-config.json",
                   mime="application/json", key="p_config", icon=":material/settings:", on_click="ignore")
script_name = f"{prefix}.py"
with page.readable_errors():  # a config written by another version: a message, not a traceback
    script = views.python_script(out, script_name)
st.download_button("What I just did, as Python", script, file_name=script_name, mime="text/x-python",
                   key="p_script", icon=":material/code:", on_click="ignore")
st.caption("A script that rebuilds this job with the hbnlab library -- the corpus read and indexed with the job's "
           "options and stop list, its terms, learners, settings and seed -- and prints its breakeven table. It names "
           "no path of this server: an uploaded corpus is read from the path given on its command line.")
with st.expander("The script"):
    st.code(script, language="python")
