"""hbnlab: hierarchical Bayesian network classifiers for text, and a workbench to tune them.

The core (everything except :mod:`hbnlab.app`) never imports Streamlit.

``__version__`` is the one place the version is written: ``pyproject.toml`` reads it
(``[tool.setuptools.dynamic]``), model files and reports record it, and it moves with every
released change that can change a number (``CHANGELOG.md``; a default that changes numbers goes
through :mod:`hbnlab._deprecation` first).
"""
__version__ = "0.6.0"
