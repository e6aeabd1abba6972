"""The hbnlab workbench: ``streamlit run app.py``.

Builds the navigation over the pages in ``pages/`` and holds the home page.  Pages are thin
recipes; the logic lives in :mod:`hbnlab.app` and the core packages.
"""
from pathlib import Path

import streamlit as st

from hbnlab.app import corpus_data, job_widgets, page, state
from hbnlab.pipeline.config import ExperimentConfig

#: Static files the app ships: the favicon is one of them (sent inline as a data URL), so no browser
#: asks a font server for it as it would for a ":material/..." page icon; the app works offline.
ASSETS = Path(__file__).parent / "assets"

st.set_page_config(page_title="hbnlab workbench", page_icon=str(ASSETS / "hbnlab-icon.svg"), layout="wide")
st.logo(str(ASSETS / "hbnlab-logo.svg"))

#: (path, title, icon, what it is for, navigation group)
PAGES = [
    ("pages/corpus.py", "Corpus", ":material/library_books:",
     "choose the synthetic corpus, Reuters-21578 or an upload", "Data"),
    ("pages/features.py", "Features", ":material/filter_alt:", "indexing and term selection", "Data"),
    ("pages/structure.py", "Structure", ":material/account_tree:", "the HBN tree of a class, live as B and alpha move",
     "Model"),
    ("pages/training.py", "Training", ":material/model_training:", "background EM training with live progress",
     "Model"),
    ("pages/tuning.py", "Tuning", ":material/tune:", "B x alpha grids on the validation split", "Model"),
    ("pages/evaluation.py", "Evaluation", ":material/leaderboard:", "breakeven, PR curves, 11-point precision, F1@k",
     "Results"),
    ("pages/explain.py", "Explain", ":material/lightbulb:", "why did the model say trade for this document?",
     "Results"),
    ("pages/compare.py", "Compare", ":material/compare_arrows:",
     "jobs side by side, with how sure each difference is", "Results"),
    ("pages/export.py", "Export", ":material/download:", "models, tables and reports", "Results"),
    ("pages/learn.py", "Learn", ":material/school:",
     "step through a clustering, EM and inference on a 16-document corpus", "Learn"),
]


def home():
    cfg = page.page_frame("hbnlab workbench")
    st.markdown(
        "**hbnlab** builds hierarchical Bayesian network (HBN) text classifiers: the terms that best "
        "predict a class are clustered into a tree whose hidden nodes summarise groups of related terms "
        "(Karčiauskas, 2002). The tree comes from the AVG, OR or DEP clustering algorithms and its parameters "
        "from EM with many random restarts, next to naive Bayes, SVM, noisy-OR and other Bayesian-network "
        "neighbours. This workbench takes you from a corpus to an explained prediction: pick a corpus, select "
        "terms, look at the tree, train in the background, evaluate and ask the model why."
    )
    if st.button("Start with the synthetic corpus", type="primary", icon=":material/play_circle:",
                 key="start_synthetic"):
        state.reset_config(ExperimentConfig())
        with page.readable_errors():
            with st.spinner("Generating the synthetic corpus ..."):
                corpus_data.load_corpus(state.get_config())
        state.flash("Loaded the embedded synthetic corpus (generated documents, not real text) with the "
                    "default settings. Next: Features, then Structure.")
        st.switch_page("pages/corpus.py")
    st.caption(f"Current corpus: {page.corpus_description(cfg)}")

    st.subheader("Background jobs")
    job_widgets.job_table(key="home_jobs", actions=False, limit=10)

    st.subheader("Pages")
    cols = st.columns(2)
    for k, (path, title, icon, what, _group) in enumerate(PAGES):
        with cols[k % 2]:
            st.page_link(path, label=f"{title} — {what}", icon=icon)


sections = {"": [st.Page(home, title="Home", icon=":material/home:", default=True)]}
for path, title, icon, _what, group in PAGES:
    sections.setdefault(group, []).append(st.Page(path, title=title, icon=icon))
nav = st.navigation(sections)
st.session_state[state.APP_NAVIGATION] = True
nav.run()
