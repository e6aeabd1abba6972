"""Structure: the HBN / HNB tree of a class, redrawn live as B and alpha move (no EM)."""
import time

import streamlit as st

from hbnlab.app import corpus_data, page, state, widgets
from hbnlab.app.views import structure as views
from hbnlab.models.catalog import TABLE_4_1
from hbnlab.pipeline.config import ALPHA_RANGE, B_RANGE, STRUCTURE_ALGORITHMS, clustering_of, slider_range

cfg = page.page_frame("Structure", "The network a tree learner fits for a class: the tree the clustering "
                         "algorithm builds over its terms (thesis figs 3.3-3.12) and the naive-Bayes children of the "
                         "class. Structure only: parameters are learnt on Training.")
data = page.load_experiment(cfg)
page.synthetic_notice(data.synthetic)

c1, c2 = st.columns(2)
algorithm = c1.selectbox("Algorithm", STRUCTURE_ALGORITHMS, index=STRUCTURE_ALGORITHMS.index(cfg.algorithm),
                         key="s_algorithm", help="HBN: arcs toward the class; HNB: the same tree, arcs away from it")
with c2:
    label = widgets.class_picker(cfg, data, key="s_class")
cfg = state.update_config(algorithm=algorithm)

clustering = clustering_of(algorithm)
B0, a0 = cfg.structure_params(algorithm)
lo, hi, step = slider_range(ALPHA_RANGE[clustering], float(a0))  # a URL's value beyond the slider widens it
B_lo, B_hi = slider_range(B_RANGE, int(B0))
default_B, default_a = TABLE_4_1[clustering]


def reset_defaults():
    state.set_config(state.get_config().with_structure_params(algorithm, default_B, default_a))
    st.session_state.pop(f"B_{clustering}", None)
    st.session_state.pop(f"alpha_{clustering}", None)


c1, c2, c3 = st.columns([2, 2, 1], vertical_alignment="bottom")
B = c1.slider("Branching factor B", min_value=B_lo, max_value=B_hi, value=B0, step=1,
              key=f"B_{clustering}", help="at most B nodes below the class and below every hidden node")
alpha_help = ("mutual information importance (DEP)" if clustering == "dep" else "cluster size penalty")
alpha = c2.slider(f"alpha ({alpha_help})", min_value=lo, max_value=hi, value=float(a0), step=step,
                  key=f"alpha_{clustering}", format="%.3f" if clustering != "dep" else "%.0f")
c3.button("Table 4.1 defaults", on_click=reset_defaults, key="s_reset", width="stretch",
          help=f"the thesis's Table 4.1 setting for {clustering.upper()}: B = {default_B}, alpha = {default_a:g}")
cfg = state.set_config(state.get_config().with_structure_params(algorithm, B, alpha))

t0 = time.perf_counter()
with page.readable_errors():
    tree = corpus_data.structure(cfg, label, algorithm)
ms = 1000 * (time.perf_counter() - t0)

left_right = st.toggle("Draw left to right (top-down is the thesis's layout)", value=True, key="s_lr")
st.graphviz_chart(corpus_data.tree_dot(tree["dot"], left_right), width="content" if left_right else "stretch")
s = tree["summary"]
st.caption(f"{algorithm} for class **{widgets.md_escape(label)}** · B = {B}, alpha = {alpha:g} · "
           f"{s['features']} terms in the tree, {s['hidden nodes']} hidden nodes, depth {s['depth']} · terms directly "
           f"at the class: {widgets.md_escape(', '.join(s['features at the class']) or 'none')} · built in {ms:.0f} ms")
if s["naive-Bayes children"]:
    st.caption(f"Training fits this network: the tree holds the {s['features']} of the {cfg.n_features} selected terms "
               f"with the highest I(F; C) (Training's \"Terms in the tree\": {cfg.tree_terms}); the other "
               f"{s['naive-Bayes children']} are naive-Bayes children of the class (dashed), each adding its own "
               f"evidence — {views.children_rule_text(s['children rule'])} (\"Naive-Bayes children\": "
               f"{cfg.children_select}).")
    with st.expander(f"The {s['naive-Bayes children']} naive-Bayes children of the class, strongest first"):
        st.write(widgets.md_escape(", ".join(s["children"])))
else:
    st.caption(f"Training fits this tree over all {s['features']} selected terms (the thesis's model; Training's "
               f"\"Terms in the tree\": {cfg.tree_terms or 'all'}).")
with st.expander("Tree as text"):
    st.code(tree["text"], language=None)
