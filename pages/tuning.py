"""Tuning: B x alpha (x number of terms x hidden states) grids on the training-0 / validation split."""
import streamlit as st

from hbnlab.app import charts, job_client, job_outputs, job_widgets, page, state, widgets
from hbnlab.pipeline.config import HIDDEN_STATES_CHOICES, STRUCTURE_ALGORITHMS, clustering_of, costly_tuning_cells

cfg = page.page_frame("Tuning", "The thesis tunes B and alpha by validation micro breakeven: fit on "
                         "training-0, measure on the validation split (sec. 4.2.1).")
cfg = widgets.validation_picker(cfg, key="u_validation")
data = page.load_experiment(cfg)
page.synthetic_notice(data.synthetic)
untunable = widgets.validation_notice(data)

available = list(STRUCTURE_ALGORITHMS)
with st.form("tune_form"):
    c1, c2 = st.columns(2)
    algorithm = c1.selectbox("Classifier", available,
                             index=available.index(cfg.algorithm) if cfg.algorithm in available else 0, key="u_algo")
    classes = c2.multiselect("Classes", data.categories, default=[c for c in data.categories if c not in untunable],
                             key="u_classes")
    grid = job_outputs.alpha_grid(clustering_of(algorithm))
    c1, c2, c3, c4 = st.columns(4)
    B_values = c1.multiselect("B values", list(range(2, 13)), default=[3, 5, 7, 9], key="u_B")
    alpha_text = c2.text_input("alpha values (comma separated)", value=", ".join(f"{a:g}" for a in grid),
                               key="u_alpha", help="thesis grids: AVG 0-0.12, OR 0-0.2, DEP 0-300")
    nf_values = c3.multiselect("Terms per class", [10, 20, 30, 60, 100, 200, 300], default=[cfg.n_features]
                               if cfg.n_features in (10, 20, 30, 60, 100, 200, 300) else [30], key="u_nf")
    k_values = c4.multiselect("Hidden states", HIDDEN_STATES_CHOICES, default=[cfg.hidden_states], key="u_k",
                              help="Each hidden node's number of states (2: binary, the thesis's; auto: chosen "
                                   "per node by BIC; auto-holdout: by a held-out quarter of training-0). More "
                                   "states cost more per fit.")
    st.caption(("Every term in the tree (the thesis's model)" if not cfg.tree_terms else
                f"The tree holds the {cfg.tree_terms} strongest terms; above that many terms per class the others "
                "are naive-Bayes children of the class"
                + {"auto": " (OR and DEP keep the strongest k of them, k cross-validated; AVG all)",
                   "all": "", "cv": " (the strongest k of them, k cross-validated)",
                   "cv-max": " (the strongest k of them, k cross-validated)"}[cfg.children_select])
               + " (Training page: Terms in the tree, Naive-Bayes children). B and alpha shape the tree only.")
    submitted = st.form_submit_button("Run the grid", type="primary", icon=":material/grid_on:")
note = None
job_id = None
PENDING = "hbnlab.tune_pending"  # a grid with costly cells, waiting for the user's go-ahead


def _submit(grid: dict):
    job, already = job_widgets.submit_job(job_client.submit_tune, cfg, grid["algorithm"], grid["B"], grid["alphas"],
                                      grid["nf"], grid["classes"], hidden_states_values=grid["k"])
    cells = len(grid["B"]) * len(grid["alphas"]) * len(grid["nf"]) * len(grid["k"] or [cfg.hidden_states])
    return job, already or f"Submitted tuning job #{job}: {cells} cells x {len(grid['classes'])} classes."


if submitted:
    state.remember(PENDING, None)
    with page.readable_errors(stop=False):
        alphas = job_outputs.parse_alpha_values(alpha_text, clustering_of(algorithm))
        if not B_values or not nf_values or not k_values or not classes:
            raise ValueError("choose at least one B value, one number of terms, one number of hidden states and "
                             "one class")
        k_grid = [k for k in HIDDEN_STATES_CHOICES if k in k_values]
        grid = {"algorithm": algorithm, "B": sorted(B_values), "alphas": alphas, "nf": sorted(nf_values),
                "classes": list(classes), "k": None if k_grid == [cfg.hidden_states] else k_grid}
        if costly_tuning_cells(algorithm, grid["B"], k_grid):
            state.remember(PENDING, grid)
        else:
            job_id, note = _submit(grid)
GO = "hbnlab.tune_go"  # the pending grid, confirmed by its button (a callback: the rerun starts it)


def _confirm():
    state.remember(GO, state.recall(PENDING))
    state.remember(PENDING, None)


if state.recall(GO):
    confirmed = state.recall(GO)
    state.remember(GO, None)
    with page.readable_errors(stop=False):
        job_id, note = _submit(confirmed)
pending = state.recall(PENDING)
if pending:
    costly = costly_tuning_cells(pending["algorithm"], pending["B"], pending["k"] or [cfg.hidden_states])
    named = "; ".join(f"B = {B} with {k} hidden states: tables of {rows:,} rows, about {times:g}x the grid's "
                      "median cell" for B, k, rows, times in costly)
    st.warning(f"Some cells of this grid cost far more than the others (EM goes through every row of a node's "
               f"table for every distinct document, and an HBN table has k ** B rows): {named}. Each may take "
               f"minutes where the others take seconds. Run the grid anyway, or drop those B values or hidden "
               f"states and press Run the grid again.", icon=":material/hourglass_top:")
    st.button("Run the grid anyway", key="u_run_costly", on_click=_confirm)
job_widgets.submission_note(state.TUNE_NOTE, note, job_id)

st.subheader("Jobs")
job_widgets.job_table(kind="tune", key="tune_jobs")

st.subheader("Validation breakeven")
done = [r for r in job_client.list_jobs("tune") if r.state == "done" and r.result]
job_id = job_widgets.job_picker(done, key="u_job", label="Finished tuning job", session_key=state.TUNE_JOB)
if job_id is None:
    st.caption("The heatmap appears when a tuning job has finished.")
    st.stop()
result = job_client.get_job(job_id).result
cells = job_outputs.tuning_cells(job_id)
best = result["best"]
best_k = str(best.get("hidden_states", 2))
several_k = cells["hidden_states"].nunique() > 1
for (nf, k), sub in cells.groupby(["n_features", "hidden_states"], sort=False):
    mark = (best["B"], best["alpha"]) if (best["n_features"], best_k) == (nf, k) else None
    states = f", hidden states {k}" if several_k or k != "2" else ""
    st.plotly_chart(charts.tuning_heatmap(sub, best=mark, title=f"{result['classifier']}: validation micro "
                                          f"breakeven (%), {nf} terms per class{states}"), key=f"u_heat_{nf}_{k}")
states = f", hidden states {best_k}" if several_k or best_k != "2" else ""
st.success(f"Best cell: B = {best['B']}, alpha = {best['alpha']:g}, {best['n_features']} terms{states} — "
           f"validation micro breakeven {best['micro']:.1f}% (macro {best['macro']:.1f}%).")
if "tied_with_best" in cells:
    n_tied = int(cells["tied_with_best"].sum()) - 1
    st.caption(f"Cells outlined in grey ({n_tied} of {len(cells) - 1} others) are within resampling noise of "
               "the best: the 95% paired-bootstrap interval of their difference to the best cell, over the "
               "validation documents, holds 0 (hover a cell for its interval). Do not read a ranking into them.")
if st.button("Train the best cell on the full training set", type="primary", key="u_train_best"):
    new = state.set_config(job_outputs.config_with_cell(result))
    with page.readable_errors():
        tid, already = job_widgets.submit_job(job_client.submit_train, new, classes=result["classes"],
                                          classifiers=[result["classifier"]])
    state.remember(state.LAST_TRAIN_JOB, tid)
    st.success(already or f"Submitted training job #{tid} with B = {best['B']}, alpha = {best['alpha']:g}{states}; "
               "follow it on the Training page.")
per_class = job_outputs.per_class_frame(result)
if not per_class.empty:
    st.subheader("Each class's own best cell")
    st.dataframe(per_class, hide_index=True, key="u_per_class", column_config=widgets.per_class_columns())
    st.caption(f"Choosing B, alpha, the number of terms{' and the hidden states' if several_k else ''} for each "
               f"class on its own gives a validation micro "
               f"breakeven of {result['per_class_micro']:.1f}% (best common cell: {best['micro']:.1f}%). Both are "
               "measured on the documents they were chosen on; the per-class figure, with more choices, is the "
               "more optimistic of the two — the test split decides.")
    if st.button("Train each class with its own best cell", key="u_train_per_class"):
        with page.readable_errors():
            tid, already = job_widgets.submit_job(
                job_client.submit_train, job_outputs.config_with_cell(result), classes=result["classes"],
                classifiers=[result["classifier"]], class_settings=job_outputs.per_class_settings(result),
                label=f"train {result['classifier']}, each class with its own best cell")
        state.remember(state.LAST_TRAIN_JOB, tid)
        st.success(already or f"Submitted training job #{tid}; follow it on the Training page.")
with st.expander("All cells"):
    st.dataframe(cells, hide_index=True, key="u_cells")
