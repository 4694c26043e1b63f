"""Fixtures for every test and doctest (``tests/`` and the package's docstrings)."""

from __future__ import annotations

import os
import sys

import pytest

# Doctests and tests draw off-screen: the examples of the plotting docstrings need no backend
# line of their own.
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    """Close the figures a test or an example opened: pyplot keeps them, and more than 20
    open in one worker raise matplotlib's RuntimeWarning, an error in this suite."""
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
