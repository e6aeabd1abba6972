"""What a training job ran, as the workbench's widgets hold it: presets and "Use these settings".

One rule keeps the form honest (issue 38): **a preset submits its own job and changes nothing the
analyst set** -- not the config, not a widget -- and **"Use these settings"** on a finished job is
the one way a job's settings come back: it makes the job's config the session's and writes every
widget of the Training page (:data:`TRAINING_WIDGETS`); the other pages' widgets are forgotten
(:data:`hbnlab.app.state.SETTINGS_WIDGET_PREFIXES`), so each is built from the config again when its
page is next drawn.

:data:`TRAINING_WIDGETS` is the one table of the Training page's settings widgets and the setting
each shows; a test checks that every settings widget on the page is in it, so a widget added to the
page and not here fails a test instead of keeping an old value after "Use these settings".
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import streamlit as st

from hbnlab.app import corpus_data, job_client, state
from hbnlab.app.views.corpus import config_corpus_label
from hbnlab.pipeline.config import CLASSIFIERS, PRESETS, ExperimentConfig


@dataclass(frozen=True)
class JobSettings:
    """A training job's settings: its experiment config, the classes and classifiers it trained,
    the stage it was scored on and any per-class settings (a tuning job's best cells)."""

    config: ExperimentConfig
    classes: tuple
    classifiers: tuple
    stage: str = "test"
    class_settings: dict = field(default_factory=dict)

    @classmethod
    def of_job(cls, rec) -> JobSettings:
        """The settings of job record ``rec`` (its submitted parameters)."""
        params = rec.spec.params
        try:
            cfg = ExperimentConfig.from_dict(params["config"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"job #{rec.id} holds no readable experiment config ({exc})") from None
        classifiers = tuple(params.get("classifiers") or cfg.classifiers)
        return cls(cfg, tuple(params.get("classes") or ()), classifiers, str(params.get("stage", "test")),
                   dict(params.get("class_settings") or {}))

    def describe(self) -> str:
        """The settings in one line of words (Markdown: corpus data escaped by the caller's rule)."""
        cfg = self.config
        classes = ", ".join(self.classes) if self.classes else f"the {cfg.n_categories} most frequent classes"
        return (f"{', '.join(self.classifiers)} on {classes}; {cfg.n_features} {cfg.selection} terms per class "
                f"({cfg.scope}); {cfg.n_restarts} EM restarts; evaluated on the {self.stage} stage")


#: The Training page's settings widgets (widget key -> the value it shows for a job's settings).
TRAINING_WIDGETS = {
    "t_em_acceleration": lambda s: s.config.em_acceleration,
    "t_screen_iter": lambda s: s.config.screen_iter,
    "t_screen_keep": lambda s: s.config.screen_keep,
    "t_hnb_init": lambda s: s.config.hnb_init,
    "t_classes": lambda s: list(s.classes),
    "t_classifiers": lambda s: [c for c in s.classifiers if c in CLASSIFIERS],
    "t_restarts": lambda s: s.config.n_restarts,
    "t_hidden_states": lambda s: s.config.hidden_states,
    "t_tree_terms": lambda s: s.config.tree_terms,
    "t_children_select": lambda s: s.config.children_select,
    "t_objective": lambda s: s.config.objective,
    "t_seed": lambda s: s.config.random_state,
    "t_stage": lambda s: s.stage,
}


#: Fields a preset takes from the analyst's config: which documents are read and how they become
#: terms (the corpus and its reading options, the stop list, stemming, the minimum document frequency).
#: Everything else is the preset's own or the default, so a preset is the same run whatever the form
#: holds.
ANALYST_FIELD_PREFIXES = ("corpus", "synthetic_", "reuters_", "upload_", "stop", "stemming", "min_df")


def preset_changes(name: str, cfg: ExperimentConfig) -> dict:
    """The config changes of preset ``name`` (:data:`hbnlab.pipeline.config.PRESETS`) for the current
    config: the preset's corpus only in place of the built-in synthetic one (and when it is
    available); an upload or Reuters stays the corpus."""
    preset = PRESETS[name]
    changes = dict(preset.changes)
    if preset.corpus == "reuters" and cfg.corpus == "synthetic" and corpus_data.reuters_available():
        changes.update(corpus="reuters", reuters_dir="")
    return changes


def preset_config(name: str, cfg: ExperimentConfig) -> ExperimentConfig:
    """The config preset ``name`` runs: the analyst's documents and indexing
    (:data:`ANALYST_FIELD_PREFIXES`), the defaults, then the preset's changes
    (:func:`preset_changes`: the built-in synthetic corpus becomes Reuters-21578 when it
    is at hand).  The session's config is not changed."""
    fields = [f.name for f in dataclasses.fields(ExperimentConfig) if f.name.startswith(ANALYST_FIELD_PREFIXES)]
    base = ExperimentConfig(**{f: getattr(cfg, f) for f in fields})
    return base.replace(**preset_changes(name, cfg))


def use_settings(job_id: int) -> None:
    """"Use these settings" (a button's ``on_click``: it runs before the page draws its widgets):
    job ``job_id``'s config becomes the session's, every Training widget shows the job's settings
    and the other pages' settings widgets are forgotten (drawn from the config on their next run).

    Writing a widget's value through the session state (not dropping its key) also updates what
    the browser shows: a dropped key would leave the browser's old value, which it sends back on
    the next run."""
    settings = JobSettings.of_job(job_client.get_job(job_id))
    for key in [k for k in st.session_state if str(k).startswith(state.SETTINGS_WIDGET_PREFIXES)]:
        del st.session_state[key]
    for key, value_of in TRAINING_WIDGETS.items():
        st.session_state[key] = value_of(settings)
    state.load_config(settings.config)
    where = config_corpus_label(settings.config)
    note = f"Loaded the settings of job #{job_id} on {where}: {settings.describe()}."
    if settings.class_settings:
        note += (" It also had per-class settings (a tuning job's best cells) that the form cannot hold: Train "
                 "runs the form's common settings.")
    state.remember(state.SETTINGS_NOTE, note)


__all__ = ["JobSettings", "TRAINING_WIDGETS", "ANALYST_FIELD_PREFIXES", "preset_changes", "preset_config",
           "use_settings"]
