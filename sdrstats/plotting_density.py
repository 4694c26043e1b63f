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
    """One density curve per row of ``newdata`` (first ``max_rows``; first response)."""
    _, ax = _axes(ax)
    y_grid = density.default_grid() if y_grid is None else np.asarray(y_grid, dtype=float)
    if density.q > 1:
        # The first response's marginal: a mixture of the components' first coordinates.
        from scipy.stats import norm

        w = density.weights(newdata).to_numpy()
        curves = w @ norm.pdf(y_grid[None, :], density.means[:, :1], density.sd[0])
        index = density.weights(newdata).index
    else:
        curves = density.pdf(y_grid, newdata)
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
    """``y`` against the first reduced predictor (or the first two, as a 3-D scatter) with
    the conditional mean and a ``band`` quantile range along a grid of the predictor(s)."""
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


__all__ = ["plot_conditional_density", "plot_density_fit"]
