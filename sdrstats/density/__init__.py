"""Conditional densities of the response given (reduced) predictors.

:class:`ConditionalDensity` (:mod:`.conditional`, with the queries of :mod:`.queries`) is a
Gaussian mixture in ``y`` whose weights depend on the predictors; :mod:`.mixture` fits the
mixtures (LSCDE at a fixed projection, ε-KDE) and holds ``conditional_density_for``, the hook
``Results.conditional_density`` calls. The Gaussian kernels come from :mod:`sdrstats.stats.gaussian`.
"""

from .conditional import ConditionalDensity, Features
from .mixture import (
    ESTIMATORS,
    MixtureWeightsLSCDE,
    NeighbourWeights,
    conditional_density_for,
    fit_density,
    fit_eps_kde,
    fit_lscde,
)

__all__ = [
    "ConditionalDensity",
    "Features",
    "ESTIMATORS",
    "MixtureWeightsLSCDE",
    "NeighbourWeights",
    "conditional_density_for",
    "fit_density",
    "fit_eps_kde",
    "fit_lscde",
]
