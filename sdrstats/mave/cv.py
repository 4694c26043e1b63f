"""Cross-validated choice of the dimension, as R ``MAVE``'s ``mave.dim`` does.

For each ``k = 1..max_dim`` the targets are predicted by leave-one-out local-linear regression
on the ``k``-dimensional reduced predictors ``B_kᵀ Z`` (Xia et al. 2002, section 3.4):

.. math:: CV(k) = \\frac{1}{n m} \\sum_j \\sum_l \\{T_{jl} - \\hat a^{(-j)}_{jl}\\}^2,

with the Gaussian kernel at the ``k``-dimensional rule-of-thumb bandwidth
``c0 n^{-1/(k+4)}``; ``CV(0)`` predicts each target by the leave-one-out mean. The targets are
those of the fit: the response for the mean-subspace methods and kernel SIR, the ``y``-kernel
``φ((y − t_l)/b)`` for the central-subspace methods (so ``CV`` measures how well the reduced
predictors predict the conditional density), class indicators for labels. ``d̂`` minimises
``CV``; it may be 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .local import leave_one_out_residuals, rule_of_thumb


def cv_values(
    Z: np.ndarray,
    T: np.ndarray,
    bases: dict[int, np.ndarray],
    bandwidth: float | None,
    obs_weights: np.ndarray | None,
) -> pd.DataFrame:
    """CV table: rows ``d = 0..max_dim``, columns ``cv`` and ``bandwidth``."""
    n, m = T.shape
    w = np.ones(n) if obs_weights is None else obs_weights
    total = float(w.sum())
    loo_mean = (w @ T - w[:, None] * T) / (total - w)[:, None]
    rows = {0: (float(w @ np.sum((T - loo_mean) ** 2, axis=1)) / (total * m), np.nan)}
    for k in sorted(bases):
        h = bandwidth if bandwidth is not None else rule_of_thumb(n, k)
        resid = leave_one_out_residuals(Z @ bases[k], T, h, obs_weights)
        rows[k] = (float(w @ np.sum(resid**2, axis=1)) / (total * m), h)
    table = pd.DataFrame.from_dict(rows, orient="index", columns=["cv", "bandwidth"])
    table.index.name = "d"
    return table


def choose_dimension(table: pd.DataFrame) -> int:
    """The ``d`` with the smallest CV value (the smaller ``d`` on ties)."""
    values = table["cv"].to_numpy()
    return int(table.index[int(np.argmin(values))])


__all__ = ["cv_values", "choose_dimension"]
