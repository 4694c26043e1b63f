"""Plots of conditional densities and of LSCE/LSMI fits (matplotlib imported lazily)."""

from __future__ import annotations

from typing import Any

import numpy as np


def _axes(ax: Any, ncols: int = 1) -> tuple[Any, Any]:
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax.figure, ax
    fig = plt.figure(figsize=(5.5 * ncols, 4.2))
    return fig, fig.add_subplot(1, 1, 1, projection="3d" if ncols == 2 else None)


def plot_conditional_density(
    density: Any, newdata: Any = None, y_grid: Any = None, ax: Any = None, max_rows: int = 8
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
    max_rows : int, default 8
        Curves drawn at most.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=1)
    >>> ax = plot_conditional_density(fit.conditional_density(random_state=0), ais.head(3))
    >>> len(ax.lines)
    3
    """
    _, ax = _axes(ax)
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
    for label, curve in list(zip(index, curves))[:max_rows]:
        ax.plot(y_grid, curve, label=f"row {label}")
    ax.set_xlabel(density.y_names[0])
    ax.set_ylabel(f"p({density.y_names[0]} | x)")
    ax.set_title(f"Conditional density ({density.method})")
    ax.legend(fontsize="small")
    return ax


def plot_density_fit(
    results: Any, ax: Any = None, band: tuple[float, float] = (0.1, 0.9), response: int = 0
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
        Where to draw; default a new figure.
    band : tuple of float, default (0.1, 0.9)
        Lower and upper conditional quantiles of the band.
    response : int, default 0
        Which response, for a multivariate one.

    Returns
    -------
    matplotlib Axes or array of Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pandas as pd
    >>> import sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.standard_normal((80, 3)), columns=["x1", "x2", "x3"])
    >>> df["y"] = df.x1 + 0.2 * rng.standard_normal(80)
    >>> fit = sdr.lsce("y ~ .", df, d=1, n_restarts=2, random_state=0, progress=False)
    >>> ax = plot_density_fit(fit)
    """
    density = results.conditional_density()
    z = results.transform().to_numpy()
    y = results.spec.Y.reshape(results.n, -1)[:, response]
    two = z.shape[1] >= 2
    fig, ax = _axes(ax, ncols=2 if two else 1)
    name = results.spec.y_names[response]
    order = np.argsort(z[:, 0])
    if not two:
        mean = density.mean()
        mean = mean.iloc[:, response] if mean.ndim == 2 else mean
        quant = density.quantile(None, list(band), response=response)
        ax.scatter(z[:, 0], y, s=10, alpha=0.5, color="grey", label="data")
        ax.plot(z[order, 0], mean.to_numpy()[order], color="C0", label="conditional mean")
        ax.fill_between(
            z[order, 0],
            quant.iloc[order, 0],
            quant.iloc[order, 1],
            color="C0",
            alpha=0.2,
            label=f"{band[0]:.0%}-{band[1]:.0%} band",
        )
        ax.set_xlabel("Dir1")
        ax.legend(fontsize="small")
    else:
        mean = density.mean()
        mean = mean.iloc[:, response] if mean.ndim == 2 else mean
        ax.scatter(z[:, 0], z[:, 1], y, s=8, alpha=0.5, color="grey")
        ax.plot_trisurf(z[:, 0], z[:, 1], mean.to_numpy(), alpha=0.4, cmap="viridis")
        ax.set_xlabel("Dir1")
        ax.set_ylabel("Dir2")
    ax.set_title(f"{results.method}: {name} against the reduced predictors")
    if two:
        ax.set_zlabel(name)
    else:
        ax.set_ylabel(name)
    return ax


def plot_calibration(calibration: Any, bins: int = 10, fig: Any = None) -> Any:
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
    fig : matplotlib Figure, optional
        Where to draw (two axes are added); default a new figure.

    Returns
    -------
    matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais.iloc[::2], nslices=6, d=1)
    >>> cal = fit.conditional_density(random_state=0).calibration(ais.iloc[1::2])
    >>> fig = plot_calibration(cal)
    >>> [ax.get_xlabel() for ax in fig.axes]
    ['PIT', 'nominal coverage']
    """
    import matplotlib.pyplot as plt

    if fig is None:
        fig = plt.figure(figsize=(10, 4))
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    pit = calibration.pit.to_numpy()
    n = len(pit)
    left.hist(pit, bins=bins, range=(0, 1), density=True, color="C0", alpha=0.6)
    band = 2 * np.sqrt((1 / bins) * (1 - 1 / bins) / n) * bins
    left.axhspan(1 - band, 1 + band, color="grey", alpha=0.2, label="uniform ± 2 se")
    left.axhline(1.0, color="black", lw=1)
    left.set_xlabel("PIT")
    left.set_ylabel("density")
    left.set_title(f"PIT of {calibration.response} ({calibration.label})")
    left.legend(fontsize="small")
    levels = np.linspace(0.05, 0.95, 19)
    thirds = calibration.scores["third"].to_numpy()
    groups = [("overall", np.ones(n, bool))] + [
        (name, thirds == name) for name in ("lowest third", "middle third", "highest third")
    ]
    for k, (name, rows) in enumerate(groups):
        observed = [calibration.covered(c).to_numpy()[rows].mean() for c in levels]
        style = {"color": "black", "lw": 2} if k == 0 else {"color": f"C{k}", "lw": 1}
        right.plot(levels, observed, marker="o", ms=3, label=name, **style)
    right.plot([0, 1], [0, 1], ls=":", color="grey")
    right.set_xlabel("nominal coverage")
    right.set_ylabel("observed coverage")
    right.set_title(f"Central intervals (thirds of the {calibration.grouping})")
    right.legend(fontsize="small")
    fig.tight_layout()
    return fig


__all__ = ["plot_calibration", "plot_conditional_density", "plot_density_fit"]
