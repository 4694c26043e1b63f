"""Plots of conditional densities and of LSCE/LSMI fits (matplotlib imported lazily)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .style import COLUMN_WIDTH, PAGE_WIDTH, axes_grid, colour, finish, legend, single_axes


def plot_conditional_density(
    density: Any,
    newdata: Any = None,
    y_grid: Any = None,
    *,
    ax: Any = None,
    figsize: Any = None,
    max_rows: int = 8,
) -> Any:
    """One density curve per row of ``newdata`` (first ``max_rows``; first response).

    Parameters
    ----------
    density : ConditionalDensity
        The fitted conditional density.
    newdata : pandas.DataFrame or array-like, optional
        Rows of predictors (default the training rows).
    y_grid : array-like, optional
        Response values; default ``density.default_grid()``.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    figsize : tuple of float, optional
        Size of a new figure in inches; default one column (3.4 x 2.8).
    max_rows : int, default 8
        Curves drawn at most.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
    >>> fig = plot_conditional_density(fit.conditional_density(random_state=0), ais.head(3))
    >>> len(fig.axes[0].lines)
    3
    """
    fig, ax = single_axes(ax, figsize)
    if y_grid is None:
        y_grid = density.default_grid(newdata=newdata)
    y_grid = np.asarray(y_grid, dtype=float)
    if density.q > 1:
        # The first response's marginal: a mixture of the components' first coordinates.
        from scipy.stats import norm

        parts = density.components(newdata)
        w, means, sd = parts["weights"], parts["means"][:, :, 0], parts["sd"][:, :, 0]
        curves = np.einsum(
            "rk,rkm->rm", w, norm.pdf(y_grid[None, None, :], means[:, :, None], sd[:, :, None])
        )
        index = density.weights(newdata).index
    else:
        curves = density.pdf(newdata, y_grid)
        index = density.features(newdata)[1]
    for j, (label, curve) in enumerate(list(zip(index, curves))[:max_rows]):
        ax.plot(y_grid, curve, color=colour(j), lw=1.5, label=f"row {label}")
    ax.set_xlabel(density.y_names[0])
    ax.set_ylabel(f"p({density.y_names[0]} | x)")
    ax.set_title(f"Conditional density ({density.method})")
    legend(ax, loc="best")
    return finish(fig)


def plot_density_fit(
    results: Any,
    *,
    ax: Any = None,
    figsize: Any = None,
    band: tuple[float, float] = (0.1, 0.9),
    response: int = 0,
) -> Any:
    """``y`` against the reduced predictors with the conditional mean and a quantile band.

    With one reduced predictor a scatter of ``y`` against it; with two or more a 3-D scatter
    on the first two, with the conditional mean and the ``band`` quantile range along a grid
    of the predictor(s).

    Parameters
    ----------
    results : DensityReductionResults or Results
        A fit with a continuous response (its ``conditional_density()`` is drawn).
    ax : matplotlib Axes, optional
        Where to draw (a 3-D Axes with two or more reduced predictors); default a new figure.
    figsize : tuple of float, optional
        Size of a new figure in inches; default one column (3.4 x 2.8; 3.4 x 3.2 in 3-D).
    band : tuple of float, default (0.1, 0.9)
        Lower and upper conditional quantiles of the band.
    response : int, default 0
        Which response, for a multivariate one.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.standard_normal((80, 3)), columns=["x1", "x2", "x3"])
    >>> df["y"] = df.x1 + 0.2 * rng.standard_normal(80)
    >>> fit = sdr.lsce("y ~ .", df, d=1, n_restarts=2, random_state=0, progress=False)
    >>> fig = plot_density_fit(fit)
    """
    density = results.conditional_density()
    z = results.transform().to_numpy()
    y = results.spec.Y.reshape(results.n, -1)[:, response]
    two = z.shape[1] >= 2
    if two:
        fig, ax = single_axes(ax, figsize, default=(COLUMN_WIDTH, 3.2), projection="3d")
        ax.set_box_aspect(None, zoom=0.8)
    else:
        fig, ax = single_axes(ax, figsize)
    name = results.spec.y_names[response]
    order = np.argsort(z[:, 0])
    if not two:
        mean = density.mean()
        mean = mean.iloc[:, response] if mean.ndim == 2 else mean
        quant = density.quantile(None, list(band), response=response)
        ax.scatter(z[:, 0], y, s=8, alpha=0.5, color="grey", linewidths=0, label="data")
        ax.plot(z[order, 0], mean.to_numpy()[order], color=colour(0), label="conditional mean")
        ax.fill_between(
            z[order, 0],
            quant.iloc[order, 0],
            quant.iloc[order, 1],
            color=colour(0),
            alpha=0.2,
            label=f"{band[0]:.0%}-{band[1]:.0%} band",
        )
        ax.set_xlabel("Dir1")
        legend(ax, loc="best")
    else:
        mean = density.mean()
        mean = mean.iloc[:, response] if mean.ndim == 2 else mean
        ax.scatter(z[:, 0], z[:, 1], y, s=6, alpha=0.5, color="grey")
        ax.plot_trisurf(z[:, 0], z[:, 1], mean.to_numpy(), alpha=0.4, cmap="viridis")
        ax.set_xlabel("Dir1")
        ax.set_ylabel("Dir2")
    ax.set_title(f"{results.method}: fitted conditional density")
    if two:
        ax.set_zlabel(name)
    else:
        ax.set_ylabel(name)
    return finish(fig)


def plot_calibration(
    calibration: Any, bins: int = 10, *, axes: Any = None, figsize: Any = None
) -> Any:
    """PIT histogram and observed against nominal central-interval coverage.

    Left: the histogram of the probability integral transform (flat for a calibrated
    density; a U shape means intervals too narrow, a hump too wide) with the band of two
    binomial standard errors around the uniform height. Right: the share of rows inside
    the central ``c`` interval against ``c``, overall and in each third of the calibration's
    grouping (the rows' local spread by default), with the diagonal.

    Parameters
    ----------
    calibration : Calibration
        From :meth:`sdrstats.ConditionalDensity.calibration`.
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
    >>> fig = plot_calibration(cal)
    >>> [ax.get_xlabel() for ax in fig.axes]
    ['PIT', 'nominal coverage']
    """
    fig, grid = axes_grid(axes, (1, 2), figsize, (PAGE_WIDTH, 2.8), "The calibration plot")
    left, right = grid[0, 0], grid[0, 1]
    pit = calibration.pit.to_numpy()
    n = len(pit)
    left.hist(pit, bins=bins, range=(0, 1), density=True, color=colour(0), alpha=0.6)
    band = 2 * np.sqrt((1 / bins) * (1 - 1 / bins) / n) * bins
    left.axhspan(1 - band, 1 + band, color="grey", alpha=0.2, label="uniform ± 2 se")
    left.axhline(1.0, color="black", lw=1)
    left.set_xlabel("PIT")
    left.set_ylabel("density")
    left.set_title(f"PIT of {calibration.response}\n({calibration.label})")
    legend(left, loc="best")
    levels = np.linspace(0.05, 0.95, 19)
    thirds = calibration.scores["third"].to_numpy()
    groups = [("overall", np.ones(n, bool))] + [
        (name, thirds == name) for name in ("lowest third", "middle third", "highest third")
    ]
    for k, (name, rows) in enumerate(groups):
        observed = [calibration.covered(c).to_numpy()[rows].mean() for c in levels]
        style = {"color": "black", "lw": 2} if k == 0 else {"color": colour(k), "lw": 1}
        right.plot(levels, observed, marker="o", ms=3, label=name, **style)
    right.plot([0, 1], [0, 1], ls=":", color="grey")
    right.set_xlabel("nominal coverage")
    right.set_ylabel("observed coverage")
    right.set_title(f"Central intervals\n(by thirds of the {calibration.grouping})")
    legend(right, loc="best")
    return finish(fig)


__all__ = ["plot_calibration", "plot_conditional_density", "plot_density_fit"]
