"""A URL value the config accepts is a value the page's widget can show (issue 30 item 6): the widgets
take their min / max from hbnlab.bounds, the config refuses the rest with a message naming it."""
from __future__ import annotations

import pytest
from app_testutil import no_exceptions, texts

from hbnlab import bounds

# (page, URL parameter, value, widget kind, widget key, what the widget shows: the value, or None
# when the config refuses it and the default stays)
CASES = [
    ("pages/training.py", "n_restarts", "1024", "number_input", "t_restarts", 1024),
    ("pages/training.py", "random_state", "99999999999", "number_input", "t_seed", None),
    ("pages/features.py", "min_df", "1000", "number_input", "f_min_df", 1000),
    ("pages/corpus.py", "synthetic_seed", "20000", "number_input", "synthetic_seed", 20000),
    ("pages/corpus.py", "synthetic_size", "20", "slider", "synthetic_size", 20),
    ("pages/features.py", "n_features", "3", "number_input", "f_n_features", 3),
    ("pages/features.py", "n_features", "1000", "number_input", "f_n_features", 1000),
    # the Structure page's sliders widen to a B / alpha the estimators accept beyond their usual range
    ("pages/structure.py", "B_or", "15", "slider", "B_or", 15),
    ("pages/structure.py", "alpha_or", "0.5", "slider", "alpha_or", 0.5),
]


@pytest.mark.parametrize("page, name, raw, kind, key, shown", CASES, ids=[f"{c[1]}={c[2]}" for c in CASES])
def test_url_values_are_shown_or_refused_never_a_crash(app, page, name, raw, kind, key, shown):
    app.query_params = {"synthetic_size": "600", name: raw}
    app.run()
    no_exceptions(app)
    warnings = texts(app, "warning")  # the first page of the session says which URL values it ignored
    app.switch_page(page).run()
    no_exceptions(app)
    widget = getattr(app, kind)(key=key)
    if shown is None:
        from hbnlab.pipeline.config import ExperimentConfig

        assert widget.value == getattr(ExperimentConfig(), name)
        assert any(f"URL parameter {name}={raw!r} ignored: {name} must be an integer in" in w for w in warnings), \
            warnings
    else:
        assert not any("ignored" in w for w in warnings), warnings
        assert widget.value == shown


def test_the_widgets_bounds_are_the_declared_bounds(app):
    """Every config field with a widget: the widget's min / max are the declared bound's, so the config
    (which checks the same bound) accepts exactly what the widget can show."""
    app.query_params = {"synthetic_size": "600"}
    app.run()
    expected = {("pages/corpus.py", "number_input", "synthetic_seed"): bounds.SEED,
                ("pages/corpus.py", "slider", "synthetic_size"): bounds.SYNTHETIC_SIZE,
                ("pages/features.py", "number_input", "f_min_df"): bounds.MIN_DF,
                ("pages/features.py", "number_input", "f_n_features"): bounds.N_FEATURES,
                ("pages/training.py", "number_input", "t_restarts"): bounds.N_RESTARTS,
                ("pages/training.py", "number_input", "t_seed"): bounds.SEED,
                ("pages/training.py", "number_input", "t_tree_terms"): bounds.TREE_TERMS,
                ("pages/training.py", "number_input", "t_screen_iter"): bounds.SCREEN_ITER,
                ("pages/training.py", "number_input", "t_screen_keep"): bounds.SCREEN_KEEP}
    for (page, kind, key), bound in expected.items():
        app.switch_page(page).run()
        no_exceptions(app)
        proto = getattr(app, kind)(key=key).proto
        assert (proto.min, proto.max) == (bound.lo, bound.hi), (key, proto.min, proto.max)
