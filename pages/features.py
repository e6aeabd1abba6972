"""Features: indexing options, the term scoring method, the number of terms, local or global."""
import streamlit as st

from hbnlab import bounds
from hbnlab.app import charts, corpus_data, page, state, widgets
from hbnlab.app.views.features import OWN_LIST, indexing_note, stop_list_choice, stop_list_label, stop_words_setting
from hbnlab.pipeline.config import SELECTION_METHODS, SELECTION_SCOPES, STEMMING, STOPWORDS

cfg = page.page_frame("Features", "How texts become binary term vectors, and which terms each classifier sees.")
corpus = page.load_corpus(cfg)

METHODS = {"ig": "information gain (thesis)", "chi2": "chi-square", "mi": "pointwise mutual information",
           "df": "document frequency", "fisher": "Fisher's discrimination index"}
with st.form("features_form", border=True):
    st.markdown("**Indexing** (thesis sec. 4.1.2: letters only, function words removed, no stemming, "
                "terms of one training document dropped)")
    c1, c2, c3 = st.columns(3)
    stop_choices = (*STOPWORDS, OWN_LIST)
    stop_choice = c1.selectbox("Stop words", stop_choices, index=stop_choices.index(stop_list_choice(cfg.stopwords)),
                               key="f_stopwords", format_func=stop_list_label,
                               help="Every list removes who, what, where, when, why and how: a corpus of questions "
                                    "may need 'none'.")
    stop_file = c1.file_uploader("Own stop list (with 'own list')", type=["txt"], key="f_stop_file",
                                 help="UTF-8 text, one word per line; lines starting with # are comments.")
    stemming = c2.selectbox("Stemming", STEMMING, index=STEMMING.index(cfg.stemming), key="f_stemming")
    min_df = c3.number_input("Minimum document frequency", min_value=bounds.MIN_DF.lo, max_value=bounds.MIN_DF.hi,
                             value=cfg.min_df, key="f_min_df")
    st.markdown("**Selection**")
    c1, c2, c3 = st.columns(3)
    selection = c1.selectbox("Scoring", SELECTION_METHODS, index=SELECTION_METHODS.index(cfg.selection),
                             format_func=METHODS.get, key="f_selection")
    n_features = c2.number_input("Terms per class", min_value=bounds.N_FEATURES.lo, max_value=bounds.N_FEATURES.hi,
                                 value=cfg.n_features, step=5, key="f_n_features")
    scope = c3.radio("Scope", SELECTION_SCOPES, index=SELECTION_SCOPES.index(cfg.scope), horizontal=True,
                     key="f_scope", help="local: the best terms of each class (thesis); global: one set for all")
    usable = corpus.categories(min_train=1, min_test=1)
    st.markdown("**Classes** (empty: the most frequent ones)")
    c1, c2 = st.columns([3, 1])
    categories = c1.multiselect("Classes", usable, default=[c for c in cfg.categories if c in usable],
                                key="f_categories")
    n_categories = c2.number_input("Most frequent", min_value=1, max_value=max(1, len(usable)),
                                   value=min(cfg.n_categories, max(1, len(usable))), key="f_n_categories")
    if st.form_submit_button("Apply", type="primary"):
        with page.readable_errors():
            stopwords = stop_words_setting(stop_choice, cfg.stopwords, stop_file and stop_file.getvalue(),
                                           stop_file.name if stop_file else "")
        cfg = state.update_config(stopwords=stopwords, stemming=stemming, min_df=int(min_df), selection=selection,
                                  n_features=int(n_features), scope=scope, categories=tuple(categories),
                                  n_categories=int(n_categories))

data = page.load_experiment(cfg)
page.synthetic_notice(data.synthetic)
m = st.columns(4)
m[0].metric("terms in the vocabulary", data.info["n_terms"])
m[1].metric("training documents", data.info["n_train"])
m[2].metric("classes", len(data.categories))
m[3].metric("terms per class", cfg.n_features)
n_empty, note = indexing_note(data)
(st.warning if n_empty else st.caption)(note)

label = widgets.class_picker(cfg, data, key="f_class")
table = corpus_data.feature_table(state.get_config(), label)
left, right = st.columns([3, 2])
with left:
    st.dataframe(table, hide_index=True, height=520, key="feature_table",
                 column_config={"rank": st.column_config.NumberColumn(width="small"),
                                "score": st.column_config.NumberColumn(
                                    format=corpus_data.feature_score_format(table["score"]), width="small"),
                                "docs in class": st.column_config.NumberColumn("in class", help="training documents "
                                                                               "of the class with the term"),
                                "docs outside": st.column_config.NumberColumn("outside", help="training documents "
                                                                              "outside the class with the term"),
                                "P(term | class)": st.column_config.NumberColumn("P(t | c)", format="%.3f"),
                                "P(term | not class)": st.column_config.NumberColumn("P(t | not c)", format="%.3f")})
with right:
    st.plotly_chart(charts.feature_scores(table["term"].tolist(), table["score"].tolist(),
                                          title=f"Selected terms for {label}", score_name=METHODS[cfg.selection]),
                    key="feature_chart")
with st.expander("Selected terms of every class"):
    st.dataframe(corpus_data.feature_overview(state.get_config()), key="feature_overview")
