"""Local-linear SDR as R ``MAVE`` computes it: OPG, MAVE and kernel SIR."""

from .mave import MAVE, mave
from .results import MaveResults

__all__ = ["MAVE", "mave", "MaveResults"]
