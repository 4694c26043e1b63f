"""The Gaussian basis of LSCE, LSMI and LSCDE, under its historical name.

The code lives in :mod:`sdrstats.stats.gaussian`, below the method families, because the generic
conditional densities use it too.
"""

from ..stats.gaussian import (
    CRITERIA,
    BasisProblem,
    QuadraticFit,
    choose_centres,
    gaussian_kernel,
    make_folds,
    squared_distances,
)

__all__ = [
    "CRITERIA",
    "BasisProblem",
    "QuadraticFit",
    "gaussian_kernel",
    "squared_distances",
    "make_folds",
    "choose_centres",
]
