"""A URL value past every bound, however long (issue 37 item 4): a 400-digit ``n_restarts`` was an
OverflowError of the bound check that crashed every page of the session; it is a URL warning naming
the parameter, and the page keeps the default."""
from __future__ import annotations

from app_testutil import no_exceptions, texts


def test_a_400_digit_url_value_is_ignored_with_a_warning_not_a_crash(app):
    huge = "9" * 400
    app.query_params = {"synthetic_size": "600", "n_restarts": huge, "random_state": huge}
    app.run()
    no_exceptions(app)
    warnings = texts(app, "warning")
    for name in ("n_restarts", "random_state"):
        assert any(f"URL parameter {name}=" in w and f"{name} must be an integer in" in w for w in warnings), warnings
    app.switch_page("pages/training.py").run()
    no_exceptions(app)
    from hbnlab.pipeline.config import ExperimentConfig

    assert app.number_input(key="t_restarts").value == ExperimentConfig().n_restarts
