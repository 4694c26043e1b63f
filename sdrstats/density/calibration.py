"""How well a conditional density's probabilities match data whose responses are known.

:class:`Calibration` holds, for each row of the data it was given,

- the probability integral transform ``u_i = F(y_i | x_i)`` (uniform on (0, 1) for the true
  density) and a Kolmogorov-Smirnov test of its uniformity;
- whether ``y_i`` falls in the central 50, 80 and 95 % intervals (``u_i`` between
  ``(1 - c)/2`` and ``(1 + c)/2``), overall and within thirds of a *model-free* estimate of
  the local spread: the mean absolute residual ``|y_j - ŷ_j|`` of the ``k`` nearest other
  rows in all the (whitened) predictors, ``k`` by leave-one-out cross-validation. Grouping
  by the model's own predicted sd would hide a density that cannot see where the noise
  grows (its belief is then flat, and so are its thirds); the local spread of the data
  shows it. A group off its nominal coverage by more than binomial error allows (an exact
  binomial test, Bonferroni over the groups and levels at 1 %) raises a
  :class:`~sdrstats.CalibrationWarning`;
- the continuous ranked probability score, in closed form for a Gaussian mixture
  (Grimit et al. 2006), and the logarithmic score ``log p(y_i | x_i)``.

Both scores are proper (Gneiting and Raftery 2007): the true density has the best expected
value. The PIT of data the density was fitted on is not uniform even for a good fit; use
fresh rows.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy.special import ndtr

from ..base.persistence import Registered
from ..base.tables import Block, Summary
from ..base.warnings import CalibrationWarning

#: Central-interval levels reported.
LEVELS = (0.5, 0.8, 0.95)
THIRDS = ("lowest third", "middle third", "highest third")
#: Family-wise level of the binomial tests behind a calibration warning (Bonferroni over
#: the three thirds and three levels).
WARN_LEVEL = 0.01
#: Neighbours tried for the local spread (each capped at a third of the rows).
NEIGHBOURS = (5, 10, 20, 40, 80, 160)
#: What the thirds can be of.
GROUPINGS = {"local": "local spread", "predicted": "predicted sd"}


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
        One row per observation: ``pit``, ``log_density``, ``crps``, ``predicted_sd``,
        ``local_spread`` (the data's own, model-free), ``group`` (the values the rows are
        grouped by) and ``third`` (its third among the rows).
    response : str
        The response scored.
    method : str
        The density's label.
    model : str, optional
        The density's model (``"location_scale"``, ``"single"``...).
    grouping : str, default "local spread"
        What the thirds are thirds of.

    Attributes
    ----------
    pit : pandas.Series
        ``F(y_i | x_i)``.
    uniformity : Uniformity
        Kolmogorov-Smirnov statistic and p-value of the PIT values against U(0, 1).
    coverage : pandas.DataFrame
        Share of rows inside the central 50, 80 and 95 % intervals, overall and by third of
        the grouping (the local spread by default); column ``n`` counts the rows.
    off_nominal : pandas.DataFrame
        The thirds and levels whose coverage is off nominal by more than binomial error
        allows: coverage, nominal level, rows and the exact binomial test's p-value
        (Bonferroni-adjusted over the nine); empty for a calibrated density.
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
        self,
        scores: pd.DataFrame,
        response: str,
        method: str,
        model: str | None = None,
        grouping: str = "local spread",
    ) -> None:
        self.scores = scores
        self.response = response
        self.method = method
        self.model = model
        self.grouping = grouping
        #: Neighbours behind the local spread (``None`` when it was not estimated).
        self.neighbours: int | None = None

    def __setstate__(self, state: dict[str, Any]) -> None:
        scores = state["scores"]
        if "spread" in scores.columns and "group" not in scores.columns:  # before the grouping
            state["scores"] = scores.rename(columns={"spread": "predicted_sd"}).assign(
                group=scores["spread"]
            )
            state.setdefault("grouping", "predicted sd")
        state.setdefault("grouping", "local spread")
        state.setdefault("neighbours", None)
        self.__dict__.update(state)

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
        from scipy.stats import kstest  # here: scipy.stats takes 0.3 s to import

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
            (f"{name} of {self.grouping}", (self.scores["third"] == name).to_numpy())
            for name in THIRDS
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
    def off_nominal(self) -> pd.DataFrame:
        from scipy.stats import binomtest  # here: scipy.stats is slow to import

        rows = []
        tests = len(THIRDS) * len(LEVELS)
        for name in THIRDS:
            inside = (self.scores["third"] == name).to_numpy()
            n = int(inside.sum())
            if n == 0:
                continue
            for level in LEVELS:
                hits = int(self.covered(level).to_numpy()[inside].sum())
                p = min(1.0, tests * binomtest(hits, n, level).pvalue)
                if p < WARN_LEVEL:
                    rows.append((f"{name} of {self.grouping}", level, hits / n, n, p))
        return pd.DataFrame(rows, columns=["group", "level", "coverage", "n", "p_value"])

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
        off = self.off_nominal
        verdict = (
            "Every third covers within binomial error of nominal (exact binomial tests, "
            f"Bonferroni over the nine at {WARN_LEVEL:g})."
            if off.empty
            else "Off nominal by more than binomial error allows: "
            + "; ".join(
                f"{r.group}, {r.level:g} interval covers {r.coverage:.3f} (p = {r.p_value:.2g})"
                for r in off.itertuples()
            )
            + "."
        )
        text = (
            f"{self.label} density of {self.response} on {self.n} rows.\n"
            f"Mean log predictive density = {self.log_score:.4f} (larger is better); "
            f"mean CRPS = {self.crps:.4g} (smaller is better).\n"
            f"PIT uniformity: Kolmogorov-Smirnov D = {test.statistic:.4f}, "
            f"p-value = {test.p_value:.4g}.\n"
            f"Largest gap between observed and nominal coverage: "
            f"{np.max(np.abs(worst.to_numpy() - np.array(LEVELS))):.3f} (binomial standard "
            f"error of 80 % coverage in a third of the rows: {se:.3f}).\n{verdict}"
        )
        return Summary(
            [
                Block("Calibration", text=text),
                Block(
                    "Central-interval coverage (columns: nominal level; rows: all rows and "
                    f"thirds of the {GROUPING_TEXT.get(self.grouping, self.grouping)})",
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


GROUPING_TEXT = {
    "local spread": (
        "local spread: the mean absolute residual of the nearest other rows in all the "
        "predictors, model-free"
    ),
    "predicted sd": "density's predicted conditional sd",
}


def spread_thirds(spread: np.ndarray) -> np.ndarray:
    """Label each row by the third of ``spread`` it falls in (ties to the lower third)."""
    cuts = np.quantile(spread, [1 / 3, 2 / 3])
    return np.array(THIRDS, dtype=object)[np.searchsorted(cuts, spread, side="left")]


def local_spread(
    X: np.ndarray, abs_resid: np.ndarray, reference: np.ndarray
) -> tuple[np.ndarray, int]:
    """Model-free local spread of each row: the mean of ``abs_resid`` over its ``k`` nearest
    *other* rows in the predictors ``X``, whitened by the covariance of ``reference`` (the
    training rows). ``k`` from :data:`NEIGHBOURS` (at most a third of the rows) minimises the
    leave-one-out squared error of predicting each row's own ``abs_resid``: a k-nearest-
    neighbour regression of the absolute residuals on every predictor, so it sees a spread
    that changes along any direction, whatever the density assumed."""
    from .spread import whiten_predictors

    white = whiten_predictors(np.asarray(reference, dtype=float))
    W = (np.asarray(X, dtype=float) - white.centre) @ white.root
    m = len(W)
    ks = [k for k in NEIGHBOURS if k <= max((m - 1) // 3, 1)] or [max(m - 1, 1)]
    k_max = min(max(ks), m - 1)
    from scipy.spatial import cKDTree  # here: scipy.spatial pulls in scipy.stats' deps

    _, idx = cKDTree(W).query(W, k=min(k_max + 1, m))
    idx = idx.reshape(m, -1)
    # Drop each row itself (not always first when rows are tied).
    own = idx == np.arange(m)[:, None]
    idx = np.take_along_axis(idx, np.argsort(own, axis=1, kind="stable"), axis=1)[:, :k_max]
    sums = np.cumsum(abs_resid[idx], axis=1)
    errors = [np.mean((abs_resid - sums[:, k - 1] / k) ** 2) for k in ks]
    k = ks[int(np.argmin(errors))]
    return sums[:, k - 1] / k, k


def calibrate(
    density: Any, newdata: Any, response: int | str = 0, by: Any = "local"
) -> Calibration:
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
    mean, var = density._moments(parts)
    predicted = np.sqrt(var[:, j])
    local, k = local_spread(
        density.features.predictors(newdata),
        np.abs(y[:, j] - mean[:, j]),
        density.features.predictors(),
    )
    if isinstance(by, str):
        if by not in GROUPINGS:
            raise ValueError(
                f"by must be one of {sorted(GROUPINGS)} or one value per row of newdata; "
                f"got {by!r}."
            )
        group, grouping = (local if by == "local" else predicted), GROUPINGS[by]
    else:
        group, grouping = np.asarray(by, dtype=float).reshape(-1), "given values"
        if len(group) != len(y):
            raise ValueError(
                f"by has {len(group)} values but newdata has {len(y)} rows; give one value "
                "per row (or 'local' or 'predicted')."
            )
    loc = None if parts.loc is None else parts.loc[:, j]
    scale = None if parts.scale is None else parts.scale[:, j]
    scores = pd.DataFrame(
        {
            "pit": density._marginal_cdf_at(parts, y, j),
            "log_density": density._log_pdf_at_parts(parts, y),
            "crps": mixture_crps(
                y[:, j], parts.w, density.means[:, j], density._sds[:, j], loc, scale
            ),
            "predicted_sd": predicted,
            "local_spread": local,
            "group": group,
            "third": spread_thirds(group),
        },
        index=parts.index,
    )
    cal = Calibration(scores, name, density.method, getattr(density, "model", None), grouping)
    cal.neighbours = k
    off = cal.off_nominal
    if not off.empty:
        cells = "; ".join(
            f"{r.group}: {r.level:g} interval covers {r.coverage:.3f}" for r in off.itertuples()
        )
        warnings.warn(
            f"The density's intervals miss their nominal coverage by more than binomial "
            f"error allows ({cells}; exact binomial tests, Bonferroni at {WARN_LEVEL:g}). "
            "Its spread does not follow the data's there: try another model or more "
            "directions, or widen the intervals with conformal=.",
            CalibrationWarning,
            stacklevel=3,
        )
    return cal


__all__ = [
    "Calibration",
    "LEVELS",
    "Uniformity",
    "calibrate",
    "local_spread",
    "mixture_crps",
    "spread_thirds",
]
