"""The Tuning page's job picker is pinned only by a choice in it: submitting a grid and waiting for
it leaves the picker following the newest job (it used to say "Pinned to job #1")."""
from __future__ import annotations

from app_testutil import no_exceptions, wait_for_jobs


def _grid(app, alphas: str) -> None:
    app.selectbox(key="u_algo").set_value("HBN-OR")
    app.multiselect(key="u_classes").set_value(["alpha"])
    app.multiselect(key="u_B").set_value([3])
    app.text_input(key="u_alpha").input(alphas)
    app.multiselect(key="u_nf").set_value([10])
    app.button(key="FormSubmitter:tune_form-Run the grid").click().run()
    no_exceptions(app)


def _captions(app) -> list[str]:
    return [c.value for c in app.caption]


def test_a_submitted_tuning_job_is_followed_not_pinned(app):
    from hbnlab.app.job_widgets import job_picker_key

    app.query_params = {"synthetic_size": "600", "n_features": "10", "n_restarts": "1"}
    app.run()
    app.switch_page("pages/tuning.py").run()
    no_exceptions(app)
    _grid(app, "0, 0.1")
    (first,) = wait_for_jobs(240)
    assert first.state == "done", first.error
    app.run()
    no_exceptions(app)
    assert "Following the newest finished job; choose another to pin it." in _captions(app)
    assert not any(c.startswith("Pinned to") for c in _captions(app)), _captions(app)

    # a second grid: the picker moves on to it; choosing the first pins that one, as before
    _grid(app, "0.05")
    recs = wait_for_jobs(240)
    second = max(r.id for r in recs)
    app.run()
    no_exceptions(app)
    assert app.selectbox(key=job_picker_key("u_job", second)).value == second
    assert not any(c.startswith("Pinned to") for c in _captions(app)), _captions(app)
    app.selectbox(key=job_picker_key("u_job", second)).set_value(first.id).run()
    no_exceptions(app)
    assert f"Pinned to job #{first.id}; the newest finished job is #{second}." in _captions(app)
