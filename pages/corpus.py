"""Corpus: the synthetic generator, Reuters-21578 or an upload; summary and document browser."""
from pathlib import Path

import streamlit as st

from hbnlab import bounds
from hbnlab.app import charts, corpus_data, page, reuters_source, state, widgets
from hbnlab.app.views.features import indexing_note
from hbnlab.pipeline.config import SYNTHETIC_MODELS, UPLOAD_ENCODINGS

cfg = page.page_frame("Corpus", "Choose the documents to work on. Everything downstream uses this corpus.")
shown = cfg.corpus_spec()

SOURCES = {"synthetic": "Synthetic (embedded generator)", "reuters": "Reuters-21578 ModApte", "upload": "Upload a file"}
source = st.radio("Source", list(SOURCES), index=list(SOURCES).index(cfg.corpus), format_func=SOURCES.get,
                  horizontal=True, key="corpus_source")

if source == "synthetic":
    model = st.radio("Generator", SYNTHETIC_MODELS, index=SYNTHETIC_MODELS.index(cfg.synthetic_model),
                     format_func={"groups": "planted word groups", "hierarchy": "topic hierarchy (dotted classes)"}.get,
                     horizontal=True, key="synthetic_model")
    c1, c2 = st.columns(2)
    seed = c1.number_input("Generator seed", min_value=bounds.SEED.lo, max_value=bounds.SEED.hi,
                           value=cfg.synthetic_seed, step=1, key="synthetic_seed")
    size = c2.slider("Documents", min_value=bounds.SYNTHETIC_SIZE.lo, max_value=bounds.SYNTHETIC_SIZE.hi,
                     value=cfg.synthetic_size, step=10, key="synthetic_size")
    cfg = state.change_corpus(corpus="synthetic", synthetic_seed=int(seed), synthetic_size=int(size),
                              synthetic_model=model)
elif source == "reuters":
    copies = reuters_source.reuters_copies()
    OTHER = "Another folder on the server ..."
    # the options are their own labels (a format_func would not survive every rerun of a test client)
    by_label = {f"{path}  ({label})": str(path) for label, path in copies}
    current = str(Path(cfg.reuters_dir).expanduser().resolve()) if cfg.reuters_dir.strip() else ""
    if copies:
        options = [*by_label, OTHER]
        at = [i for i, lab in enumerate(options[:-1]) if by_label[lab] == current]
        picked = st.selectbox("Reuters-21578 on this server", options, index=at[0] if at else 0, key="reuters_copy")
    else:
        st.info(reuters_source.no_copy_advice())
        picked = OTHER
    reuters_dir = by_label.get(picked, "")
    if picked == OTHER:
        reuters_dir = st.text_input("Folder holding reut2-000.sgm ... reut2-021.sgm", key="reuters_dir",
                                    value="" if current in by_label.values() else cfg.reuters_dir)
    c1, c2 = st.columns(2)
    load = c1.button("Load Reuters-21578", type="primary", key="load_reuters")
    fetch = c2.button("Download into the cache", key="fetch_reuters")
    if load and picked == OTHER and (problem := reuters_source.typed_folder_problem(reuters_dir)):
        st.error(problem, icon=":material/folder_off:")
        load = False
    if load:
        new = cfg.replace(corpus="reuters", reuters_dir=reuters_dir.strip())
        with page.progress_task("Parsing Reuters-21578 ...") as report:
            corpus_data.load_corpus(new, progress=report)
        cfg = state.change_corpus(corpus="reuters", reuters_dir=reuters_dir.strip())
    if fetch:
        with page.progress_task("Downloading Reuters-21578 ...") as report:
            path = corpus_data.fetch_reuters(report)
        st.success(f"Reuters-21578 is in {widgets.md_escape(path)} (checksums verified).")
        cfg = state.change_corpus(corpus="reuters", reuters_dir=str(path))
    if cfg.corpus != "reuters":
        st.info("Press **Load Reuters-21578** to use it.")
        st.stop()
else:
    with st.expander("Table columns", expanded=False):
        c = st.columns(5)
        cols = {k: c[i].text_input(k, value=getattr(cfg, f"upload_{k}_column"), key=f"upload_{k}")
                for i, k in enumerate(("text", "labels", "split", "id", "title"))}
        st.caption("split: a column with train / test (empty: the column 'split' when the table has one, else a "
                   "seeded 75/25 split); id: the column 'id' when present; title: optional. A ZIP holding "
                   "train.csv and test.csv is split by the file names.")
    encoding = st.selectbox("Encoding", UPLOAD_ENCODINGS, index=UPLOAD_ENCODINGS.index(cfg.upload_encoding),
                            key="upload_encoding",
                            help="auto: detected file by file (byte-order mark, UTF-16, UTF-8, cp1252, a detector's "
                                 "guess). A named encoding reads every file strictly with it.")
    strip = st.checkbox("Strip newsgroup headers, quoted replies and signatures", value=cfg.upload_newsgroup_strip,
                        key="upload_newsgroup_strip",
                        help="For mail and Usenet messages: removes the header block up to the first blank line "
                             "(when it starts with a field such as From:), lines quoting an earlier message ('>' "
                             "or '|', 'In article ... writes:', '... wrote:') and a short signature after '--', so "
                             "that no class is learned from a poster's name or host. Off: the texts as read.")
    uploaded = st.file_uploader("CSV / TSV / JSONL / Parquet table (a text and a labels column) or a ZIP (one "
                                "table or one folder per class)", type=list(corpus_data.UPLOAD_TYPES),
                                key="corpus_upload")
    if uploaded is not None:
        reading = {"upload_encoding": encoding, **{f"upload_{k}_column": v.strip() for k, v in cols.items()}}
        with page.progress_task(f"Reading {uploaded.name} ...", lazy=True) as report:
            path = corpus_data.store_upload(uploaded.getvalue(), uploaded.name, cfg.replace(**reading).upload_options(),
                                         progress=report)
            reading.update(corpus="upload", upload_path=str(path))
            corpus_data.load_corpus(cfg.replace(**reading), progress=report)  # the server's first parse, same bar
        new = state.change_corpus(**reading)
        if new.corpus_spec() != cfg.corpus_spec():
            state.flash(f"Read {widgets.md_escape(uploaded.name)}.")
        cfg = new
    if cfg.corpus != "upload":
        st.info("Upload a file to use it.")
        st.stop()
    cfg = state.change_corpus(upload_newsgroup_strip=bool(strip))

corpus = page.load_corpus(cfg)
if cfg.corpus_spec() != shown:
    st.rerun()  # the corpus changed in this run: redraw everything (sidebar included) for it
ov = corpus_data.overview(cfg)
page.synthetic_notice(ov["synthetic"])
st.subheader(widgets.md_escape(ov["label"]))
m = st.columns(4)
m[0].metric("documents", ov["n_documents"])
m[1].metric("training", ov["n_train"])
m[2].metric("test", ov["n_test"])
m[3].metric("classes", ov["n_categories"])
st.caption(f"split: {widgets.md_escape(ov['split_source'])}")
try:  # the indexing the Features page uses; a corpus it cannot use yet keeps the rest of this page
    with st.spinner("Indexing ..."):
        n_empty, note = indexing_note(corpus_data.term_index(cfg))
except ValueError as e:
    n_empty, note = 0, f"Indexing: not possible yet ({widgets.md_escape(str(e))})"
(st.warning if n_empty else st.caption)(note)
if ov["newsgroup_strip"]:
    st.caption(widgets.md_escape(ov["newsgroup_strip"]))
if len(ov["encodings"]):
    n_replaced = len(ov["replaced_files"])
    with st.expander(f"Encodings: {ov['n_decoded_files']} files, {n_replaced} with replacement characters",
                     expanded=bool(n_replaced)):
        st.dataframe(ov["encodings"], hide_index=True, key="encoding_table")
        if n_replaced:
            st.warning("These files held bytes that automatic detection could not read; each became U+FFFD (�). "
                       "The table says where the first ones are. If the whole upload is in one encoding you know, "
                       "choose it in the Encoding field.")
            st.dataframe(ov["replaced_files"], hide_index=True, key="replaced_table")
if len(ov["skipped_files"]):
    n_binary = ov["n_binary_files"]
    with st.expander(f"Skipped: {len(ov['skipped_files'])} files not read as documents, {n_binary} of them binary",
                     expanded=bool(n_binary)):
        if n_binary:
            st.warning("Binary files (images, PDFs, executables, archives ...) are not text: they were skipped, not "
                       "tokenised.")
        st.dataframe(ov["skipped_files"], hide_index=True, key="skipped_table")

left, right = st.columns(2)
with left:
    st.plotly_chart(charts.documents_per_class(ov["classes"].head(40), title="Documents per class (top 40)"),
                    key="chart_classes")
    st.plotly_chart(charts.labels_per_document(ov["labels_per_document"]), key="chart_labels")
with right:
    st.plotly_chart(charts.length_histogram(ov["lengths"]), key="chart_lengths")
    st.dataframe(ov["classes"], hide_index=True, height=260, key="class_table")

st.subheader("Document browser")
c1, c2 = st.columns([3, 1])
query = c1.text_input("Search by id or text", key="doc_query", placeholder="an id, or words (all must occur)",
                      help="Every word must occur, in any order; put a phrase in double quotes to find it as written.")
split = c2.selectbox("Split", ["all", "train", "test"], key="doc_split")
found = corpus_data.search_documents(cfg, query, split)
st.caption(f"{len(found)} document(s) shown")
st.dataframe(found, hide_index=True, height=260, key="doc_table")
if len(found):
    doc_id = st.selectbox("Show document", found["id"].tolist(), key="doc_show")
    doc = corpus_data.document(cfg, doc_id)
    with st.container(border=True):
        labels = widgets.md_escape(", ".join(sorted(doc.labels)) or "(none)")
        st.markdown(f"**{widgets.md_escape(doc.id)}** · {doc.split} · labels: {labels}")
        if ov["synthetic"]:
            st.caption("Synthetic document (pseudo-words from the planted model)")
        st.text(doc.full_text[:5000])
