"""LSCE, LSMI and LSCDE: one Gaussian-basis module, one Grassmann optimiser (Tangkaratt, Xie & Sugiyama 2015)."""

from ..density import ConditionalDensity
from .cde import eps_kde, lscde
from .density_fit import DensityFit
from .lsce import LSCE, lsce
from .lsmi import LSMI, lsmi
from .results import DensityReductionResults

__all__ = [
    "ConditionalDensity",
    "DensityFit",
    "LSCE",
    "LSMI",
    "lsce",
    "lsmi",
    "lscde",
    "eps_kde",
    "DensityReductionResults",
]
