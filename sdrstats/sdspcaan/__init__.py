"""SDSPCAAN and its family (Shi, Wu, Huang, Wang & Lin 2020): one alternating solver, thin variants, formulas."""

from ._results import SDSPCAANResults
from .family import PCA, PCAN, SDSPCA, SDSPCAAN, SDSPCALPP, SPCAN, VPCA
from .formulas import pca, pcan, sdspca, sdspca_lpp, sdspcaan, spcan, vpca

__all__ = [
    "SDSPCAANResults",
    "SDSPCAAN",
    "SDSPCA",
    "SDSPCALPP",
    "SPCAN",
    "PCAN",
    "PCA",
    "VPCA",
    "sdspcaan",
    "sdspca",
    "sdspca_lpp",
    "spcan",
    "pcan",
    "pca",
    "vpca",
]
