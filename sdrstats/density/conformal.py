"""Split-conformal prediction intervals from a fitted conditional density.

The density's central interval ``[q_lo(x), q_hi(x)]`` (its ``α/2`` and ``1 - α/2``
quantiles) covers ``1 - α`` of new responses only as far as the density is right.
Conformalized quantile regression (Romano, Patterson and Candès 2019) corrects it with rows
the density was not fitted on: on ``m`` calibration rows the scores

.. math:: E_i = \\max\\{q_{lo}(x_i) - y_i,\\; y_i - q_{hi}(x_i)\\}

(negative inside the interval) give ``Q``, their ``⌈(1 - α)(m + 1)⌉``-th smallest, and
``[q_lo(x) - Q, q_hi(x) + Q]`` covers a new response with probability at least ``1 - α``
whatever the density, for exchangeable rows, and at most ``1 - α + 1/(m + 1)`` when the
scores have no ties (Lei et al. 2018, theorem 2.2). The locally weighted form (Lei et al.
2018, section 5.2) divides each score by the density's own interval width
``w(x) = q_hi(x) - q_lo(x)``, a function of the reduced predictors (and of any spread
directions), and gives ``[q_lo - Q w, q_hi + Q w]``: the correction then grows where the
density says the response is more spread, with the same finite-sample guarantee.

References
----------
Romano, Y., Patterson, E. and Candès, E. J. Conformalized quantile regression. Advances in
Neural Information Processing Systems 32, 2019.

Lei, J., G'Sell, M., Rinaldo, A., Tibshirani, R. J. and Wasserman, L. Distribution-free
predictive inference for regression. Journal of the American Statistical Association
113(523), 2018.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.persistence import Registered


def check_level(level: float) -> float:
    level = float(level)
    if not 0 < level < 1:
        raise ValueError(f"level must lie strictly between 0 and 1; got {level!r}.")
    return level


def density_interval(
    density: Any, newdata: Any, level: float, response: int | str = 0
) -> pd.DataFrame:
    """The density's central ``level`` interval: columns ``lower`` and ``upper``."""
    level = check_level(level)
    q = density.quantile(newdata, [(1 - level) / 2, (1 + level) / 2], response=response)
    return pd.DataFrame(
        {"lower": q.iloc[:, 0].to_numpy(), "upper": q.iloc[:, 1].to_numpy()}, index=q.index
    )


class ConformalIntervals(Registered):
    """Split-conformal intervals of a conditional density, calibrated on held-out rows.

    Made by :meth:`sdrstats.ConditionalDensity.conformal`; see :mod:`sdrstats.density.conformal`
    for the construction.

    Parameters
    ----------
    density : ConditionalDensity
        The fitted density.
    calibration : pandas.DataFrame
        Rows with the predictors and the response, not used to fit the density (nor the
        reduction it sits on).
    level : float, default 0.8
        Nominal coverage ``1 - α``.
    weighted : bool, default False
        Divide the scores by the density's interval width (the locally weighted form).
    response : int or str, default 0
        Which response, for a multivariate one.

    Attributes
    ----------
    scores : pandas.Series
        The calibration rows' conformity scores (negative: inside the density's interval).
    adjustment : float
        ``Q``: the ``⌈level (m + 1)⌉``-th smallest score (``inf`` when ``m`` is too small
        for the level: fewer than ``level / (1 - level)`` rows).
    m : int
        Calibration rows.

    References
    ----------
    Romano, Y., Patterson, E. and Candès, E. J. Conformalized quantile regression. Advances
    in Neural Information Processing Systems 32, 2019.

    Lei, J., G'Sell, M., Rinaldo, A., Tibshirani, R. J. and Wasserman, L. Distribution-free
    predictive inference for regression. Journal of the American Statistical Association
    113(523), 2018.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais.iloc[:120], nslices=6, d=1)
    >>> dens = fit.conditional_density(random_state=0)
    >>> conf = dens.conformal(ais.iloc[120:160], level=0.8)
    >>> conf.m, conf.interval(ais.iloc[160:162]).columns.tolist()
    (40, ['lower', 'upper'])
    """

    def __init__(
        self,
        density: Any,
        calibration: Any,
        level: float = 0.8,
        weighted: bool = False,
        response: int | str = 0,
    ) -> None:
        self.density = density
        self.level = check_level(level)
        self.weighted = bool(weighted)
        self.response = response
        j = density._response_index(response)
        name = density.y_names[j]
        if name not in getattr(calibration, "columns", []):
            raise ValueError(
                f"conformal calibration rows need the response column {name!r}: the scores "
                "compare the density's interval with the responses observed."
            )
        y = calibration[name].to_numpy(dtype=float)
        if not np.all(np.isfinite(y)):
            raise ValueError("the response column of the calibration rows holds non-finite values.")
        band = density_interval(density, calibration, self.level, response)
        lower, upper = band["lower"].to_numpy(), band["upper"].to_numpy()
        scores = np.maximum(lower - y, y - upper)
        if self.weighted:
            scores = scores / self._width(lower, upper)
        self.scores = pd.Series(scores, index=band.index, name="score")
        self.m = len(scores)
        rank = int(np.ceil(self.level * (self.m + 1)))
        self.adjustment = float(np.inf if rank > self.m else np.sort(scores)[rank - 1])

    @staticmethod
    def _width(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        # A width of zero (a degenerate density) would make the score infinite.
        return np.maximum(upper - lower, np.finfo(float).tiny)

    def interval(self, newdata: Any = None) -> pd.DataFrame:
        """The conformal interval of each row of ``newdata``: columns ``lower``, ``upper``.

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like, optional
            Rows of predictors (default the density's training rows).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais.iloc[:120], nslices=6, d=1)
        >>> conf = fit.conditional_density(random_state=0).conformal(ais.iloc[120:160])
        >>> band = conf.interval(ais.iloc[160:])
        >>> bool((band["upper"] > band["lower"]).all())
        True
        """
        band = density_interval(self.density, newdata, self.level, self.response)
        lower, upper = band["lower"].to_numpy(), band["upper"].to_numpy()
        Q = self.adjustment
        step = Q * self._width(lower, upper) if self.weighted else np.full(len(lower), Q)
        return pd.DataFrame({"lower": lower - step, "upper": upper + step}, index=band.index)

    def __repr__(self) -> str:
        form = "locally weighted" if self.weighted else "plain"
        return (
            f"<ConformalIntervals: {form}, level {self.level:g}, m = {self.m} calibration "
            f"rows, adjustment {self.adjustment:.4g}>"
        )


__all__ = ["ConformalIntervals", "check_level", "density_interval"]
