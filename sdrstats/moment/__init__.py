"""Moment methods: SIR, SAVE, pHd, directional regression, cumulative slicing, IRE, and R's
``dr()`` over those R ``dr`` has."""

from .dispatcher import dr
from .formulas import cume, directional_regression, phd, save, sir
from .ire import IRE, ire
from .methods import CUME, PHD, SAVE, SIR, DirectionalRegression, MomentResults
from .reweighting import dr_weights

__all__ = [
    "SIR",
    "SAVE",
    "PHD",
    "DirectionalRegression",
    "CUME",
    "MomentResults",
    "sir",
    "save",
    "phd",
    "directional_regression",
    "cume",
    "IRE",
    "ire",
    "dr_weights",
    "dr",
]
