"""Moment methods: SIR, SAVE, pHd, directional regression, cumulative slicing (and IRE)."""

from .formulas import cume, dr, phd, save, sir
from .ire import IRE, ire
from .methods import CUME, DR, PHD, SAVE, SIR, MomentResults
from .reweighting import dr_weights

__all__ = [
    "SIR",
    "SAVE",
    "PHD",
    "DR",
    "CUME",
    "MomentResults",
    "sir",
    "save",
    "phd",
    "dr",
    "cume",
    "IRE",
    "ire",
    "dr_weights",
]
