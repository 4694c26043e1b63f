"""Cross-validated choice of the dimension, as R ``MAVE``'s ``mave.dim`` does.

For each ``k = 1..max_dim`` the targets are predicted by leave-one-out local-linear regression
on the ``k``-dimensional reduced predictors ``B_kᵀ Z`` (Xia et al. 2002, section 3.4):

.. math:: CV(k) = \\frac{1}{n} \\sum_j L_j(k), \\qquad
          L_j(k) = \\frac{1}{m} \\sum_l \\{T_{jl} - \\hat a^{(-j)}_{jl}\\}^2,

with the Gaussian kernel; the bandwidth of each ``k`` is itself chosen by the same
leave-one-out criterion among ``{0.75, 1, 1.5, 2} × c0 n^{-1/(k+4)}`` (the ``k``-dimensional
rule of thumb), so every ``k`` is compared at its best smoothing (a fixed ``bandwidth``
option is used as given). ``CV(0)`` predicts each target by the leave-one-out mean. The
targets are those of the fit: the response for the mean-subspace methods and kernel SIR, the
``y``-kernel ``φ((y − t_l)/b)`` for the central-subspace methods (so ``CV`` measures how well
the reduced predictors predict the conditional density), class indicators for labels.

Choice of ``d`` (``cv_rule``):

* ``"min"`` — the minimiser of ``CV`` (R ``mave.dim``'s ``dim.min``);
* ``"1se"`` (default) — the one-standard-error rule (Breiman, Friedman, Olshen & Stone 1984;
  Hastie, Tibshirani & Friedman 2009, §7.10): the smallest ``k`` whose ``CV(k)`` exceeds the
  minimum by at most the standard error of the paired difference ``L_j(k) − L_j(k_min)``.
  On the classic MAVE example the minimiser often overfits the mean subspace (heteroscedastic
  noise makes ``CV(2) ≈ CV(1)``), while the rule keeps the true ``d`` in most seeds for both
  kinds of method (``benchmarks/papers/mave_accuracy.md``).

``d̂`` may be 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .local import leave_one_out_residuals, rule_of_thumb

#: Multiples of the rule-of-thumb bandwidth searched by the CV of each dimension.
BANDWIDTH_MULTIPLIERS = (0.75, 1.0, 1.5, 2.0)
CV_RULES = ("1se", "min")


def cv_values(
    Z: np.ndarray,
    T: np.ndarray,
    bases: dict[int, np.ndarray],
    bandwidth: float | None,
    obs_weights: np.ndarray | None,
) -> pd.DataFrame:
    """CV table: rows ``d = 0..max_dim``; columns ``cv``, ``se`` and ``bandwidth``.

    ``se`` is the standard error of the paired per-observation loss difference between each
    ``d`` and the minimiser (0 at the minimiser).
    """
    n, m = T.shape
    w = np.ones(n) if obs_weights is None else obs_weights
    total = float(w.sum())
    loo_mean = (w @ T - w[:, None] * T) / (total - w)[:, None]
    losses = {0: np.sum((T - loo_mean) ** 2, axis=1) / m}
    chosen_h: dict[int, float] = {0: np.nan}
    for k in sorted(bases):
        V = Z @ bases[k]
        if bandwidth is not None:
            grid = [bandwidth]
        else:
            grid = [c * rule_of_thumb(n, k) for c in BANDWIDTH_MULTIPLIERS]
        best: tuple[float, float, np.ndarray] | None = None
        for h in grid:
            loss = np.sum(leave_one_out_residuals(V, T, h, obs_weights) ** 2, axis=1) / m
            value = float(w @ loss) / total
            if best is None or value < best[0]:
                best = (value, h, loss)
        losses[k], chosen_h[k] = best[2], best[1]
    cv = {k: float(w @ loss) / total for k, loss in losses.items()}
    k_min = min(cv, key=lambda k: (cv[k], k))
    se = {}
    for k, loss in losses.items():
        diff = loss - losses[k_min]
        mean = float(w @ diff) / total
        se[k] = float(np.sqrt(w @ (diff - mean) ** 2 / total / total))
    table = pd.DataFrame(
        {"cv": cv, "se": se, "bandwidth": chosen_h}, index=pd.Index(sorted(cv), name="d")
    )
    return table


def choose_dimension(table: pd.DataFrame, rule: str = "1se") -> int:
    """The chosen ``d``: ``"min"`` minimises CV; ``"1se"`` is the one-standard-error rule."""
    values = table["cv"].to_numpy()
    d_min = int(table.index[int(np.argmin(values))])
    if rule == "min":
        return d_min
    within = table.index[values - values.min() <= table["se"].to_numpy()]
    return int(min(within))


__all__ = ["cv_values", "choose_dimension", "BANDWIDTH_MULTIPLIERS", "CV_RULES"]
