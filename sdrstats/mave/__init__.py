"""Local-linear SDR (R ``MAVE``): OPG, MAVE, density-based MAVE and kernel SIR."""

from .mave import MAVE, mave
from .results import MaveResults

__all__ = ["MAVE", "mave", "MaveResults"]
