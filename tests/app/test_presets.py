"""A Training preset fills the form and trains it once: the form then shows what ran, a later Train
runs what the form shows, and a corpus of the user's own (an upload) stays the corpus."""
from __future__ import annotations

from app_testutil import no_exceptions, submit_training

WORDS = {"wheat": "wheat grain harvest farm crop", "crude": "oil crude barrel refinery pipeline",
         "gold": "gold mine ounce bullion silver", "money": "bank rate dollar interest currency"}


def _own_csv() -> bytes:
    rows = ["id,text,labels,split"]
    for label, text in WORDS.items():
        for i in range(10):
            rows.append(f"{label}{i},{text} {text} doc{i},{label},{'test' if i >= 7 else 'train'}")
    return ("\n".join(rows) + "\n").encode("utf-8")


def _recorder(monkeypatch):
    from hbnlab.app import services

    submitted = []
    monkeypatch.setattr(services, "submit_train", lambda cfg, **kw: submitted.append((cfg, kw)) or len(submitted))
    return submitted


def test_the_demo_preset_fills_the_form_and_a_later_train_runs_what_the_form_shows(app, monkeypatch):
    monkeypatch.delenv("HBNLAB_REUTERS_DIR", raising=False)
    submitted = _recorder(monkeypatch)
    app.query_params = {"synthetic_size": "600", "n_features": "10"}
    app.run()
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    assert app.number_input(key="t_restarts").value == 64
    app.button(key="t_preset_demo").click().run()
    no_exceptions(app)
    cfg, kw = submitted[-1]
    assert cfg.n_restarts == 16 and cfg.classifiers == ("HBN-OR", "NB") and len(kw["classes"]) == 3
    # the form shows what the preset ran, not the settings it held before
    assert app.number_input(key="t_restarts").value == 16
    assert app.multiselect(key="t_classifiers").value == ["HBN-OR", "NB"]
    assert app.multiselect(key="t_classes").value == kw["classes"]
    assert app.session_state["hbnlab.config"].n_restarts == 16
    assert any("The form below now holds its settings" in s.value for s in app.success)

    # a plain Train afterwards runs exactly what the form shows
    submit_training(app, ["NB"], restarts=64, classes=kw["classes"][:2])
    no_exceptions(app)
    cfg, kw = submitted[-1]
    assert cfg.n_restarts == 64 and kw["classifiers"] == ["NB"] and kw["classes"] == submitted[0][1]["classes"][:2]
    assert app.number_input(key="t_restarts").value == 64


def test_a_preset_on_an_uploaded_corpus_keeps_the_upload(app, monkeypatch):
    from hbnlab.app import services

    monkeypatch.setattr(services, "reuters_available", lambda: True)
    submitted = _recorder(monkeypatch)
    path = services.store_upload(_own_csv(), "own.csv", {"id_column": "id", "split_column": "split"})
    app.query_params = {"corpus": "upload", "upload_path": str(path), "upload_id_column": "id",
                        "upload_split_column": "split", "n_features": "5", "min_df": "1"}
    app.run()
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    app.button(key="t_preset_demo").click().run()
    no_exceptions(app)
    cfg, kw = submitted[-1]
    assert (cfg.corpus, cfg.upload_path) == ("upload", str(path))
    assert set(kw["classes"]) <= set(WORDS) and len(kw["classes"]) == 3
    now = app.session_state["hbnlab.config"]
    assert (now.corpus, now.upload_path) == ("upload", str(path))
    assert app.query_params["corpus"] == ["upload"] or app.query_params["corpus"] == "upload"


def test_the_demo_preset_still_moves_the_synthetic_corpus_to_reuters_when_it_is_at_hand():
    from hbnlab.app import services
    from hbnlab.pipeline.config import ExperimentConfig

    real = services.reuters_available
    try:
        services.reuters_available = lambda: True
        assert services.preset_changes("demo", ExperimentConfig())["corpus"] == "reuters"
        upload = ExperimentConfig(corpus="upload", upload_path="/x/own.csv")
        assert "corpus" not in services.preset_changes("demo", upload)
        services.reuters_available = lambda: False
        assert "corpus" not in services.preset_changes("demo", ExperimentConfig())
    finally:
        services.reuters_available = real
