"""How well a conditional density's probabilities match data whose responses are known.

:class:`Calibration` holds, for each row of the data it was given,

- the probability integral transform ``u_i = F(y_i | x_i)`` (uniform on (0, 1) for the true
  density) and a Kolmogorov-Smirnov test of its uniformity;
- whether ``y_i`` falls in the central 50, 80 and 95 % intervals (``u_i`` between
  ``(1 - c)/2`` and ``(1 + c)/2``), overall and within thirds of the predicted spread (the
  conditional standard deviation), where a density with one width for every ``x`` fails;
- the continuous ranked probability score, in closed form for a Gaussian mixture
  (Grimit et al. 2006), and the logarithmic score ``log p(y_i | x_i)``.

Both scores are proper (Gneiting and Raftery 2007): the true density has the best expected
value. The PIT of data the density was fitted on is not uniform even for a good fit; use
fresh rows.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy.special import ndtr
from scipy.stats import kstest

from ..base.persistence import Registered
from ..base.tables import Block, Summary

#: Central-interval levels reported.
LEVELS = (0.5, 0.8, 0.95)
THIRDS = ("lowest third", "middle third", "highest third")


def _crps_kernel(mu: np.ndarray, sd: np.ndarray | float) -> np.ndarray:
    """``A(μ, σ²) = 2σ φ(μ/σ) + μ (2Φ(μ/σ) - 1)``, the mean ``|X|`` of ``X ~ N(μ, σ²)``."""
    z = mu / sd
    return 2.0 * sd * np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi) + mu * (2.0 * ndtr(z) - 1.0)


def mixture_crps(
    y: np.ndarray,
    weights: np.ndarray,
    means: np.ndarray,
    sd: float | np.ndarray,
    loc: np.ndarray | None = None,
    scale: np.ndarray | None = None,
) -> np.ndarray:
    """CRPS of ``y_i`` under ``Σ_k w_ik N(loc_i + scale_i m_k, (scale_i s)²)``.

    ``CRPS = Σ_k w_k A(y - μ_k, σ_k²) - ½ Σ_kl w_k w_l A(μ_k - μ_l, σ_k² + σ_l²)``
    (Grimit et al. 2006); with every component scaled by ``scale_i`` both sums scale by it.

    Parameters
    ----------
    y : ndarray (rows,)
    weights : ndarray (rows, K)
    means : ndarray (K,)
    sd : float or ndarray (K,)
        The components' sd (before ``scale``): common, or one per component.
    loc, scale : ndarray (rows,), optional
        A location-scale map of the mixture (default 0 and 1).

    Returns
    -------
    ndarray (rows,)

    References
    ----------
    Grimit, E. P., Gneiting, T., Berrocal, V. J. and Johnson, N. A. The continuous ranked
    probability score for circular variables and its application to mesoscale forecast
    ensemble verification. Quarterly Journal of the Royal Meteorological Society 132, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> # One standard normal component: CRPS(N(0,1), 0) = 2φ(0) - 1/√π.
    >>> round(float(mixture_crps(np.zeros(1), np.ones((1, 1)), np.zeros(1), 1.0)[0]), 6)
    0.233695
    """
    e = y if loc is None else (y - loc) / scale
    sd = np.broadcast_to(np.asarray(sd, dtype=float), means.shape)
    first = np.einsum("rk,rk->r", weights, _crps_kernel(e[:, None] - means[None, :], sd))
    pair_sd = np.sqrt(sd[:, None] ** 2 + sd[None, :] ** 2)
    pair = _crps_kernel(means[:, None] - means[None, :], pair_sd)
    second = 0.5 * np.einsum("rk,rk->r", weights @ pair, weights)
    out = first - second
    return out if scale is None else scale * out


class Uniformity(NamedTuple):
    """Kolmogorov-Smirnov test of the PIT values against the uniform distribution."""

    statistic: float
    p_value: float
    n: int


class Calibration(Registered):
    """PIT, interval coverage and proper scores of a conditional density on known data.

    Made by :meth:`sdrstats.ConditionalDensity.calibration`.

    Parameters
    ----------
    scores : pandas.DataFrame
        One row per observation: ``pit``, ``log_density``, ``crps``, ``spread`` (the
        predicted conditional sd) and ``third`` (its third among the rows).
    response : str
        The response scored.
    method : str
        The density's label.
    model : str, optional
        The density's model (``"location_scale"``, ``"single"``...).

    Attributes
    ----------
    pit : pandas.Series
        ``F(y_i | x_i)``.
    uniformity : Uniformity
        Kolmogorov-Smirnov statistic and p-value of the PIT values against U(0, 1).
    coverage : pandas.DataFrame
        Share of rows inside the central 50, 80 and 95 % intervals, overall and by third of
        the predicted spread; column ``n`` counts the rows.
    crps : float
        Mean continuous ranked probability score (response units; smaller is better).
    log_score : float
        Mean log predictive density (larger is better).

    See Also
    --------
    ConditionalDensity.calibration : The call that returns it.
    sdrstats.plotting.plot_calibration : Its plot.

    References
    ----------
    :cite:t:`gneiting2007calibration`; :cite:t:`gneiting2007`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais.iloc[::2], nslices=6, d=1)
    >>> cal = fit.conditional_density(random_state=0).calibration(ais.iloc[1::2])
    >>> cal.coverage.columns.tolist()
    [0.5, 0.8, 0.95, 'n']
    >>> bool(0 < cal.crps < 5)
    True
    """

    def __init__(
        self, scores: pd.DataFrame, response: str, method: str, model: str | None = None
    ) -> None:
        self.scores = scores
        self.response = response
        self.method = method
        self.model = model

    @property
    def label(self) -> str:
        """The density's label and model, as the summary and plots name it."""
        return self.method if self.model is None else f"{self.method}, {self.model}"

    @property
    def pit(self) -> pd.Series:
        return self.scores["pit"]

    @property
    def n(self) -> int:
        return len(self.scores)

    @property
    def uniformity(self) -> Uniformity:
        test = kstest(self.pit.to_numpy(), "uniform")
        return Uniformity(float(test.statistic), float(test.pvalue), self.n)

    def covered(self, level: float) -> pd.Series:
        """Whether each ``y_i`` lies in the central ``level`` interval of ``p(y | x_i)``.

        Parameters
        ----------
        level : float
            Nominal coverage, strictly between 0 and 1.

        Returns
        -------
        pandas.Series of bool

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais.iloc[::2], nslices=6, d=1)
        >>> cal = fit.conditional_density(random_state=0).calibration(ais.iloc[1::2])
        >>> bool(cal.covered(0.8).mean() == cal.coverage.loc["overall", 0.8])
        True
        """
        if not 0 < level < 1:
            raise ValueError(f"level must lie strictly between 0 and 1; got {level!r}.")
        u = self.pit
        return (u > (1 - level) / 2) & (u < (1 + level) / 2)

    @property
    def coverage(self) -> pd.DataFrame:
        groups = [("overall", np.ones(self.n, bool))] + [
            (f"{name} of spread", (self.scores["third"] == name).to_numpy()) for name in THIRDS
        ]
        table = pd.DataFrame(
            {
                level: [float(self.covered(level).to_numpy()[g].mean()) for _, g in groups]
                for level in LEVELS
            },
            index=[name for name, _ in groups],
        )
        table["n"] = [int(g.sum()) for _, g in groups]
        return table

    @property
    def crps(self) -> float:
        return float(self.scores["crps"].mean())

    @property
    def log_score(self) -> float:
        return float(self.scores["log_density"].mean())

    def summary(self) -> Summary:
        """Scores, the uniformity test of the PIT and the coverage table.

        Returns
        -------
        Summary

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais.iloc[::2], nslices=6, d=1)
        >>> cal = fit.conditional_density(random_state=0).calibration(ais.iloc[1::2])
        >>> print(cal.summary())  # doctest: +ELLIPSIS
        <BLANKLINE>
        Calibration:
        ...
        """
        test = self.uniformity
        worst = self.coverage.drop(columns="n")
        se = np.sqrt(0.8 * 0.2 / max(self.n / 3, 1))
        text = (
            f"{self.label} density of {self.response} on {self.n} rows.\n"
            f"Mean log predictive density = {self.log_score:.4f} (larger is better); "
            f"mean CRPS = {self.crps:.4g} (smaller is better).\n"
            f"PIT uniformity: Kolmogorov-Smirnov D = {test.statistic:.4f}, "
            f"p-value = {test.p_value:.4g}.\n"
            f"Largest gap between observed and nominal coverage: "
            f"{np.max(np.abs(worst.to_numpy() - np.array(LEVELS))):.3f} (binomial standard "
            f"error of 80 % coverage in a third of the rows: {se:.3f})."
        )
        return Summary(
            [
                Block("Calibration", text=text),
                Block(
                    "Central-interval coverage (columns: nominal level; rows: all rows and "
                    "thirds of the predicted conditional sd)",
                    table=self.coverage,
                ),
            ]
        )

    def plot(self, bins: int = 10, *, axes: Any = None, figsize: Any = None) -> Any:
        """PIT histogram and observed against nominal coverage (overall and by third).

        Parameters
        ----------
        bins : int, default 10
            Bins of the PIT histogram.
        axes : sequence of two matplotlib Axes, optional
            Where to draw the histogram and the coverage curves; default a new figure.
        figsize : tuple of float, optional
            Size of a new figure in inches; default a page width (7 x 2.8).

        Returns
        -------
        matplotlib Figure

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais.iloc[::2], nslices=6, d=1)
        >>> cal = fit.conditional_density(random_state=0).calibration(ais.iloc[1::2])
        >>> len(cal.plot().axes)
        2
        """
        from ..plotting.density import plot_calibration

        return plot_calibration(self, bins=bins, axes=axes, figsize=figsize)

    def __str__(self) -> str:
        return str(self.summary())

    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()

    def __repr__(self) -> str:
        return (
            f"<Calibration: {self.label} of {self.response}, n = {self.n}; log score "
            f"{self.log_score:.4g}, CRPS {self.crps:.4g}, 80 % coverage "
            f"{self.coverage.loc['overall', 0.8]:.3f}>"
        )


def spread_thirds(spread: np.ndarray) -> np.ndarray:
    """Label each row by the third of ``spread`` it falls in (ties to the lower third)."""
    cuts = np.quantile(spread, [1 / 3, 2 / 3])
    return np.array(THIRDS, dtype=object)[np.searchsorted(cuts, spread, side="left")]


def calibrate(density: Any, newdata: Any, response: int | str = 0) -> Calibration:
    """The :class:`Calibration` of ``density`` on ``newdata`` (see
    :meth:`sdrstats.ConditionalDensity.calibration`)."""
    j = density._response_index(response)
    name = density.y_names[j]
    missing = [c for c in density.y_names if c not in getattr(newdata, "columns", [])]
    if missing:
        raise ValueError(
            f"calibration needs the response column(s) {missing} in newdata, to compare the "
            "density with the responses observed."
        )
    y = density._y_points(newdata[density.y_names].to_numpy(dtype=float))
    parts = density._parts(newdata)
    if not np.all(np.isfinite(y)):
        raise ValueError("the response column(s) of newdata hold non-finite values.")
    spread = np.sqrt(density._moments(parts)[1][:, j])
    loc = None if parts.loc is None else parts.loc[:, j]
    scale = None if parts.scale is None else parts.scale[:, j]
    scores = pd.DataFrame(
        {
            "pit": density._marginal_cdf_at(parts, y, j),
            "log_density": density._log_pdf_at_parts(parts, y),
            "crps": mixture_crps(
                y[:, j], parts.w, density.means[:, j], density._sds[:, j], loc, scale
            ),
            "spread": spread,
            "third": spread_thirds(spread),
        },
        index=parts.index,
    )
    return Calibration(scores, name, density.method, getattr(density, "model", None))


__all__ = ["Calibration", "LEVELS", "Uniformity", "calibrate", "mixture_crps", "spread_thirds"]
