"""Conditional densities of the response given (reduced) predictors.

:class:`ConditionalDensity` (:mod:`.conditional`, with the queries of :mod:`.queries`) is a
Gaussian mixture in ``y`` whose weights depend on the predictors and, for the location-scale
model, whose components move and scale with them; every query (pdf, cdf, moments, quantiles,
draws) is exact. :mod:`.models` fits the LSCDE models (one width; separate widths for ``z``
and ``y``; the location-scale form) and chooses among them by held-out log-likelihood;
:mod:`.mixture` wraps them and ε-KDE and holds ``conditional_density_for``, the hook
``Results.conditional_density`` calls, so every fit's density comes from here.
:mod:`.calibration` scores a density on data with known responses (PIT, interval coverage,
CRPS, log score), :mod:`.conformal` widens the density's intervals to a finite-sample
coverage guarantee with held-out rows, and :mod:`.spread` models the location-scale
density's spread on the whole predictor space. The Gaussian kernels come from :mod:`sdrstats.stats.gaussian`, the
local-linear smoother from :mod:`sdrstats.stats.local_linear`.
"""

from .calibration import Calibration, mixture_crps
from .conditional import ConditionalDensity, Features
from .conformal import ConformalIntervals
from .mixture import (
    ESTIMATORS,
    MODELS,
    LocationScaleLSCDE,
    MixtureWeightsLSCDE,
    NeighbourWeights,
    conditional_density_for,
    fit_density,
    fit_eps_kde,
    fit_lscde,
)

__all__ = [
    "Calibration",
    "ConditionalDensity",
    "ConformalIntervals",
    "Features",
    "ESTIMATORS",
    "MODELS",
    "LocationScaleLSCDE",
    "MixtureWeightsLSCDE",
    "NeighbourWeights",
    "conditional_density_for",
    "fit_density",
    "fit_eps_kde",
    "fit_lscde",
    "mixture_crps",
]
