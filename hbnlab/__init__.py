"""hbnlab: hierarchical Bayesian network classifiers for text, and a workbench to tune them.

The core (everything except :mod:`hbnlab.app`) never imports Streamlit.
"""
__version__ = "0.1.0"
