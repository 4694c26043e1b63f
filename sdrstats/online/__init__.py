"""Lasso-SIR and online (sparse) SIR for data streams (Cheng & Cui 2020; Lin, Zhao & Liu 2019)."""

from .lasso_sir import LassoSIR, LassoSIRResults, lasso_sir
from .online_sir import OnlineSIR, OnlineSIRResults
from .sources import iter_chunks, online_sir

__all__ = [
    "LassoSIR",
    "LassoSIRResults",
    "lasso_sir",
    "OnlineSIR",
    "OnlineSIRResults",
    "online_sir",
    "iter_chunks",
]
