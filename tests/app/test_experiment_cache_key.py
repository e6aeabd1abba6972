"""The workbench caches the indexed experiment by the config fields that decide it
(``corpus_data._DATA_FIELDS``): a field that changes which documents are loaded, or how they are
indexed and split, and is missing from that key would hand one config the other's data."""
from __future__ import annotations

import dataclasses

from hbnlab.app import corpus_data
from hbnlab.pipeline.config import ExperimentConfig

#: A value different from the default for each field whose change the corpus must see.
CHANGED = {"corpus": "upload", "upload_path": "/x/y.csv", "synthetic_seed": 1, "synthetic_size": 600,
           "synthetic_model": "hierarchy", "reuters_dir": "/r", "upload_text_column": "t",
           "upload_labels_column": "l", "upload_split_column": "s", "upload_id_column": "i",
           "upload_title_column": "h", "upload_encoding": "latin-1", "upload_newsgroup_strip": True}


def test_every_field_of_the_corpus_spec_is_in_the_experiment_key():
    base = ExperimentConfig()
    upload = base.replace(corpus="upload", upload_path="/x/y.csv")
    missing = []
    for f in dataclasses.fields(ExperimentConfig):
        if f.name not in CHANGED:
            continue
        for cfg in (base, upload):
            try:
                other = cfg.replace(**{f.name: CHANGED[f.name]})
            except ValueError:
                continue
            if other.corpus_spec() != cfg.corpus_spec() and f.name not in corpus_data._DATA_FIELDS:
                missing.append(f.name)
    assert not missing, f"fields that change the corpus but not the experiment cache key: {sorted(set(missing))}"


def test_the_newsgroup_stripping_changes_the_experiment_key():
    cfg = ExperimentConfig(corpus="upload", upload_path="/x/y.csv")
    assert corpus_data._experiment_key(cfg) != corpus_data._experiment_key(cfg.replace(upload_newsgroup_strip=True))
