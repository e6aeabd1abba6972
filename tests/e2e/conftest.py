"""Fixtures of the browser tests: ``server`` (``streamlit run app.py`` on a free port of 127.0.0.1
with a private data home) is shared by every e2e module."""
from test_workbench_e2e import server  # noqa: F401 - re-exported as a fixture
