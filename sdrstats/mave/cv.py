"""Cross-validated choice of the dimension: R ``MAVE``'s ``mave.dim``.

For each ``k = 1..d_max`` the reduced predictors ``u_i = B_kᵀ x_i`` (the fitted
``k``-dimensional directions on the original predictors, as R's ``mave.data``) are replaced by
their ranks, ``r_i = (rank(u_i) − 1)/(n + 1)`` column by column (ties get the mean rank), and
each row of the transformed response ``K`` (R's ``ky``: the response for the mean-subspace
methods, the indicator transform of :func:`~sdrstats.mave.prepare.make_targets` for the
central-subspace methods) is predicted by a leave-one-out local-constant fit:

.. math:: \\hat K_i = \\frac{\\sum_{l \\ne i} k_{il} K_l}{\\sum_{l \\ne i} k_{il} + 10^{-6}},
          \\qquad k_{il} = \\Bigl(1 + \\frac{\\lVert r_i - r_l\\rVert_1}{h}\\Bigr)^{-4},
          \\qquad h = \\frac{\\overline{\\mathrm{sd}}(r)}{n^{1/(k+4)}},

with the L1 distance and ``sd`` the mean of the columns' standard deviations of the ranks.
The loss is the absolute error, averaged over the columns of ``K``:
``CV(k) = (1/n) Σ_i L_i(k)``, ``L_i(k) = mean_c |K̂_ic − K_ic|``. ``CV(0)`` (no directions)
is ``(1 + 1/n) · mean |K|`` with ``K`` centred (the leave-one-out mean predicts ``K_i`` with
error ``n/(n − 1) · |K_i − K̄|``). R's ``mave.dim`` centres nothing for the mean-subspace
methods, so its ``cv0`` is ``mean |y|``; the two agree for a centred response, and R's makes
``d = 0`` unreachable for a response far from zero.

Choice of ``d`` (``cv_rule``): ``"min"`` (default) — the minimiser (R's ``dim.min``; the first
one in a tie). ``d̂`` may be 0.

On models with known truth (``benchmarks/bench_mave_cv.md``, 20 seeds each) this criterion
chose the true ``d`` in 90–100% of the seeds whenever the response depends on the predictors,
R's ``predict.mave`` example included, where the local-linear squared-error CV that sdrstats
used before found it in 25%. It seldom answers ``d = 0`` when there is no dependence (the
absolute error of a local average beats that of the mean even then, most of all for the
bounded indicator transform of the central-subspace methods); test for any dependence with
``test_dimension("permutation")``.

References: Xia, Tong, Li & Zhu (2002), section 3.4, for the cross-validation of the
dimension; R package ``MAVE`` (Hang & Xia, 2021) for this criterion.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.rank_cv import cv_values, null_losses, rank_cv_losses, tied_ranks

CV_RULES = ("min",)


def choose_dimension(table: pd.DataFrame, rule: str = "min") -> int:
    """The chosen ``d``: the first minimiser of the CV column (R's ``which.min``)."""
    return int(table.index[int(np.argmin(table["cv"].to_numpy()))])


__all__ = [
    "CV_RULES",
    "choose_dimension",
    "cv_values",
    "null_losses",
    "rank_cv_losses",
    "tied_ranks",
]
