"""Training: background jobs for classes x classifiers, live EM progress, cancel / retry / resume."""
import streamlit as st

from hbnlab import bounds
from hbnlab.app import charts, corpus_data, job_client, job_outputs, job_settings, job_widgets, page, state, widgets
from hbnlab.app.views.corpus import config_corpus_label
from hbnlab.models.catalog import CLUSTERINGS, tree_learner_name
from hbnlab.pipeline.config import (
    CHILDREN_SELECT_CHOICES,
    CLASSIFIERS,
    EM_ACCELERATIONS,
    HIDDEN_STATES_CHOICES,
    HNB_INITS,
    MAX_TABLE_ROWS,
    OBJECTIVE_CHOICES,
    OBJECTIVE_LABELS,
    PRESETS,
    SCREEN_ITER_RANGE,
    SCREEN_KEEP_RANGE,
    TREE_TERMS_MAX,
)

cfg = page.page_frame("Training", "Training runs in background worker processes: keep using the workbench, "
                         "reload the page or open a second tab — the jobs and their models are kept on disk.")
data = page.load_experiment(cfg)
page.synthetic_notice(data.synthetic)

st.markdown("**Presets** — one click trains a ready-made run, evaluated on the test set; the form below keeps "
            "your settings (to continue from a preset, press *Use these settings* on its job when it has finished)")
for col, (name, preset) in zip(st.columns(len(PRESETS)), PRESETS.items()):
    if col.button(preset.title, key=f"t_preset_{name}", help=preset.description, icon=":material/bolt:",
                  width="stretch"):
        run = job_settings.preset_config(name, cfg)
        with page.readable_errors():
            classes = page.load_experiment(run).categories
            job_id, already = job_widgets.submit_job(
                job_client.submit_train, run, classes=classes, stage="test",
                label=f"{preset.title}: {', '.join(run.classifiers)} on {', '.join(classes)}")
        state.remember(state.LAST_TRAIN_JOB, job_id)
        where = widgets.md_escape(config_corpus_label(run))
        what = widgets.md_escape(job_settings.JobSettings(run, tuple(classes), run.classifiers).describe())
        state.remember(state.TRAIN_NOTE, (already or f"Submitted job #{job_id} ({preset.title}) on {where}: {what}. "
                                                     "Your settings and the form below are unchanged.", job_id))
        st.rerun()

with st.expander("EM speed (HBN/HNB learners)", icon=":material/speed:",
                 expanded=cfg.em_acceleration != "none" or cfg.screen_iter > 0 or cfg.hnb_init != "random"):
    c1, c2, c3 = st.columns(3)
    acceleration = c1.selectbox(
        "Acceleration", EM_ACCELERATIONS, index=EM_ACCELERATIONS.index(cfg.em_acceleration), key="t_em_acceleration",
        format_func={"none": "none (plain EM)", "squarem": "SQUAREM"}.get,
        help="SQUAREM jumps ahead along the path of two EM steps: it takes fewer E-steps to meet the same "
             "stopping rule, most of all for the hierarchical naive Bayes (HNB). The thesis uses plain EM.")
    screen_iter = c2.number_input(
        "Screen restarts after N E-steps (0 = off)", min_value=SCREEN_ITER_RANGE[0], max_value=SCREEN_ITER_RANGE[1],
        value=cfg.screen_iter, key="t_screen_iter",
        help="After N E-steps only the restarts with the highest likelihood go on; the weaker ones are dropped "
             "early. The HNB 3-6 times faster, the HBN up to 3 times, but the restart that would end best is "
             "not always among the early "
             "leaders: on Reuters at 100 terms it lowered the validation breakeven of 2 of 4 classes by 2-6 "
             "points (benchmarks/results/em_acceleration.md). The thesis runs every restart to the end (0).")
    screen_keep = c3.number_input(
        "Keep the best", min_value=SCREEN_KEEP_RANGE[0], max_value=SCREEN_KEEP_RANGE[1], value=cfg.screen_keep,
        key="t_screen_keep", disabled=not screen_iter,
        help="How many of the EM restarts go on after the screening (all of them when this is at least the "
             "number of restarts).")
    hnb_init = st.radio(
        "HNB start", HNB_INITS, index=HNB_INITS.index(cfg.hnb_init), key="t_hnb_init", horizontal=True,
        format_func={"random": "random restarts (thesis)", "hbn": "from the HBN on the same tree"}.get,
        help="Where the hierarchical naive Bayes's EM starts. 'From the HBN' fits the HBN first, with the EM "
             "restarts set below (cheap: its feature tables are fixed), and runs one HNB restart from its "
             "posterior. On Reuters its validation breakeven matched the random restarts' and the whole fit took "
             "a fraction of their time; with 8 restarts, less than a 64-restart HBN "
             "(benchmarks/results/hnb_start.txt).")
    st.caption("For the training and tuning jobs of the HBN/HNB learners. All are off in the thesis: plain EM, "
               "every restart run until it meets the stopping rule, random starting points.")
    with page.readable_errors():
        cfg = state.update_config(em_acceleration=acceleration, screen_iter=int(screen_iter),
                                  screen_keep=int(screen_keep), hnb_init=hnb_init)

with st.form("train_form", enter_to_submit=False):  # Enter in a number field must not start a job
    c1, c2 = st.columns(2)
    # every class with training and test documents; the Features page's set first, as the default
    usable = corpus_data.load_corpus(cfg).categories(min_train=1, min_test=1)
    offered = list(data.categories) + [c for c in usable if c not in data.categories]
    if any(c not in offered for c in st.session_state.get("t_classes", [])):  # loaded settings of a changed corpus
        st.session_state["t_classes"] = [c for c in st.session_state["t_classes"] if c in offered]
    classes = c1.multiselect("Classes", offered, default=data.categories, key="t_classes",
                             help="The Features page's classes are chosen; any other class with training and "
                                  "test documents can be added (it joins the experiment's classes).")
    chosen = c2.multiselect("Classifiers", CLASSIFIERS, default=[c for c in cfg.classifiers if c in CLASSIFIERS],
                            key="t_classifiers")
    c1, c2, c3, c4 = st.columns(4)
    n_restarts = c1.number_input("EM restarts (thesis: 64)", min_value=bounds.N_RESTARTS.lo,
                                 max_value=bounds.N_RESTARTS.hi, value=cfg.n_restarts, key="t_restarts")
    hidden_states = c2.selectbox(
        "Hidden states", HIDDEN_STATES_CHOICES, index=HIDDEN_STATES_CHOICES.index(cfg.hidden_states),
        key="t_hidden_states", format_func=lambda k: {2: "2 (binary, thesis)", "auto": "auto (BIC)",
                                                       "auto-holdout": "auto (held-out)"}.get(k, str(k)),
        help="Each hidden node's number of states in the HBN/HNB learners. The thesis's are binary: a hidden "
             "node passes its whole subtree to its parent as one bit. More states keep more of it, at more cost "
             "per EM iteration; 'auto' chooses per node by BIC on the training data, 'auto (held-out)' by the "
             "likelihood of a held-out quarter (several extra EM fits). Compare them on the Tuning page.")
    tree_terms = c3.number_input(
        "Terms in the tree (0: all, thesis)", min_value=0, max_value=TREE_TERMS_MAX, value=cfg.tree_terms,
        key="t_tree_terms",
        help="How many of the selected terms the HBN/HNB tree holds: the ones that tell most about the class. "
             "Every other selected term is a child of the class, as in naive Bayes, so a weak term adds its own "
             "evidence instead of passing through a one-bit hidden node. With at most this many terms the model "
             "is the thesis's; 0 puts every term in the tree. On Reuters and OHSUMED validation the thesis's "
             "HBN-OR fell from 81.5 / 61.9 at 30 terms to 76.0 / 54.0 at 300; with 50 terms in the tree it "
             "scored 78.1 / 74.7 (benchmarks/results/hbn_any_corpus.md).")
    children_select = c3.selectbox(
        "Naive-Bayes children", CHILDREN_SELECT_CHOICES, index=CHILDREN_SELECT_CHOICES.index(cfg.children_select),
        key="t_children_select",
        format_func={"auto": "auto (all; with EM: OR, DEP cross-validated)", "all": "all",
                     "cv": "cross-validated", "cv-max": "cross-validated (best)"}.get,
        help="With more selected terms than the tree holds: which of the others the HBN/HNB keeps as children "
             "of the class. 'cross-validated' keeps the strongest k, k chosen by a 3-fold cross-validation "
             "inside the training documents (the most terms within one standard error of the best breakeven); "
             "'all' keeps every one. 'auto' is what held up on Reuters and OHSUMED cross-validation: all of "
             "them when the tables are fitted for the conditional likelihood (the fit weighs each child); "
             "with EM, cross-validated for OR and DEP, all for AVG.")
    objective = c4.selectbox(
        "Parameter fit", OBJECTIVE_CHOICES, index=OBJECTIVE_CHOICES.index(cfg.objective), key="t_objective",
        format_func=OBJECTIVE_LABELS.get,
        help="What the HBN/HNB tables are fitted for. EM (the thesis's) maximises the likelihood of the class "
             "and the terms together. 'Conditional likelihood' starts from EM's tables and refits them, and the "
             "naive-Bayes children, for the probability of the right class given the terms, under a prior "
             "around EM's tables whose strength an inner cross-validation of the training documents chooses. "
             "The model stays the same Bayesian network and no table entry is 0 or 1.")
    seed = c4.number_input("random_state", min_value=bounds.SEED.lo, max_value=bounds.SEED.hi, value=cfg.random_state,
                           key="t_seed")
    stage = st.radio("Fit / evaluate on", ["test", "validation"], horizontal=True, key="t_stage",
                     format_func={"test": "training → test",
                                  "validation": f"{cfg.cv}-fold cross-validation" if cfg.cv
                                  else "training-0 → validation"}.get,
                     help=f"Validation: {data.validation_description()} (chosen on the Tuning page).")
    st.caption("HBN/HNB settings (B, alpha per algorithm) come from the Structure page: "
               + ", ".join(f"{a}: B={cfg.structure_params(a)[0]}, alpha={cfg.structure_params(a)[1]:g}"
                           for a in (tree_learner_name(c) for c in CLUSTERINGS)))
    submitted = st.form_submit_button("Train", type="primary", icon=":material/play_arrow:")
big = cfg.large_tables(chosen)
if big:
    def _tables(rows_ok) -> str:
        return "; ".join(f"{n} (B = {cfg.structure_params(n)[0]}) has a table of {rows:,} rows"
                         for n, rows in big.items() if rows_ok(rows))

    refused, slow = _tables(lambda r: r > MAX_TABLE_ROWS), _tables(lambda r: r <= MAX_TABLE_ROWS)
    head = f"Hidden nodes of {cfg.hidden_states} states: "
    if refused:
        st.warning(head + refused + f", more than the {MAX_TABLE_ROWS:,} a fit accepts: training it is refused. "
                   "An HBN node's table grows as k ** B; a smaller B (Structure page) or fewer states keeps it "
                   "small.", icon=":material/block:")
    if slow:
        st.warning(head + slow + ". An HBN node's table grows as k ** B, and EM goes through every row for every "
                   "distinct document: expect a long fit and much memory (cancel its job below if that is not "
                   "what you meant). A smaller B (Structure page) or 2 states keeps it small.",
                   icon=":material/hourglass_top:")
note = None
if submitted:
    if not classes or not chosen:
        st.error("Choose at least one class and one classifier.")
    else:
        extra = [c for c in classes if c not in data.categories]
        with page.readable_errors():
            cfg = state.update_config(classifiers=tuple(chosen), n_restarts=int(n_restarts),
                                      hidden_states=hidden_states, tree_terms=int(tree_terms),
                                      children_select=children_select, objective=objective,
                                      random_state=int(seed),
                                      **({"categories": tuple(data.categories) + tuple(extra)} if extra else {}))
            if extra:  # the experiment now indexes and scores the added classes too
                data = page.load_experiment(cfg)
        with page.readable_errors():
            job_id, already = job_widgets.submit_job(job_client.submit_train, cfg, classes=classes, classifiers=chosen,
                                                 stage=stage)
        state.remember(state.LAST_TRAIN_JOB, job_id)
        note = already or f"Submitted training job #{job_id}: {', '.join(chosen)} on {len(classes)} class(es)."
job_widgets.submission_note(state.TRAIN_NOTE, note, job_id if note else None)
loaded = state.recall(state.SETTINGS_NOTE)
if loaded:
    st.info(widgets.md_escape(loaded), icon=":material/settings_backup_restore:")
    state.remember(state.SETTINGS_NOTE, None)

st.subheader("Jobs")
job_widgets.job_table(key="train_jobs")
job_widgets.live_em_traces()

st.subheader("Finished jobs: their settings and EM log-likelihood traces")
done = job_client.finished_train_jobs()
job_id = job_widgets.job_picker(done, key="t_trace_job", label="Finished training job", session_key=state.EVAL_JOB)
if job_id is None:
    st.caption("Traces appear here when a training job has finished.")
else:
    c1, c2 = st.columns([4, 1], vertical_alignment="center")
    with page.readable_errors():
        c1.caption(f"Job #{job_id}: " + widgets.md_escape(job_settings.JobSettings.of_job(job_client.get_job(job_id))
                                                          .describe()) + ".")
    c2.button("Use these settings", key="t_use_settings", on_click=job_settings.use_settings, args=(job_id,),
              icon=":material/settings_backup_restore:", width="stretch",
              help="Load this job's whole config into the workbench: corpus, indexing and terms (Features), B and "
                   "alpha (Structure), and every field of the form above; Train then runs them again.")
    with page.readable_errors():
        traces = job_outputs.em_traces(job_id)
        units = job_outputs.train_outputs(job_id).units_frame()
    st.dataframe(widgets.points_styler(units, points=["breakeven (%)", "seconds", "log-likelihood"],
                                       whole=["EM iterations"]), hide_index=True, key="t_units")
    if traces:
        pick = st.multiselect("Models", list(traces), default=list(traces)[:1], key="t_trace_units")
        st.plotly_chart(charts.em_traces({k: traces[k] for k in pick}), key="t_traces")
    else:
        st.caption("The models of this job have no EM (naive Bayes, SVM, ...).")
