"""Curves along an iteration or a stream: an optimiser's objective, an online fit's trace.

:func:`plot_trace` draws one or more named curves against a common axis (the alternating
solver's objective by iteration); :func:`plot_stream` the two panels of an online fit, its
tracked eigenvalues and the distance between successive estimates, against the rows seen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .style import PAGE_WIDTH, axes_grid, colour, finish, legend, single_axes, words


def plot_trace(
    x: Any,
    curves: Mapping[str, Any],
    *,
    xlabel: str,
    ylabel: str,
    title: str = "",
    log: bool = False,
    ax: Any = None,
    figsize: Sequence[float] | None = None,
) -> Any:
    """Named curves against ``x``, one colour each (a legend when there are several).

    Parameters
    ----------
    x : array-like
        The common horizontal values (iterations, rows seen).
    curves : mapping of str to array-like
        The curves, by the name the legend gives them.
    xlabel, ylabel : str
        Axis labels, in words.
    title : str, optional
        The panel's title.
    log : bool, default False
        A log scale for the vertical axis.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    figsize : tuple of float, optional
        Size of a new figure in inches; default one column (3.4 x 2.8).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    .. plot::

       >>> import sdrstats as sdr
       >>> ais = sdr.datasets.load("ais")
       >>> fit = sdr.sdspcaan("sex ~ ht + wt + lbm + rcc + hg + ssf", ais, d=2)
       >>> fig = fit.plot("objective")
       >>> fig.axes[0].get_xlabel()
       'iteration'
    """
    fig, panel = single_axes(ax, figsize)
    x = np.asarray(x)
    for j, (name, values) in enumerate(curves.items()):
        panel.plot(
            x, np.asarray(values, dtype=float), "o-", ms=3, lw=1.2, color=colour(j), label=name
        )
    if log:
        panel.set_yscale("log")
    panel.set_xlabel(xlabel)
    panel.set_ylabel(ylabel)
    if title:
        panel.set_title(title)
    if len(curves) > 1:
        legend(panel, loc="best")
    return finish(fig)


def plot_stream(
    eigenvalues: Any,
    steps: Any,
    *,
    distance: str = "projection",
    title: str = "",
    axes: Any = None,
    figsize: Sequence[float] | None = None,
) -> Any:
    """An online fit along its stream: the tracked eigenvalues and how far each estimate moved.

    Parameters
    ----------
    eigenvalues : pandas.DataFrame
        One column per tracked eigenvalue, indexed by the rows seen.
    steps : pandas.Series
        Distance between each recorded estimate of the subspace and the one before it,
        indexed by the rows seen (the first estimate has none).
    distance : str, default "projection"
        The subspace distance of ``steps`` (see :func:`sdrstats.subspace_distance`).
    title : str, optional
        The figure's title.
    axes : sequence of two matplotlib Axes, optional
        Where to draw the two panels; default a new figure.
    figsize : tuple of float, optional
        Size of a new figure in inches; default a page width (7 x 2.8).

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    sdrstats.online.OnlineSIRResults.plot : This plot of a stream.

    Examples
    --------
    .. plot::

       >>> import numpy as np, sdrstats as sdr
       >>> rng = np.random.default_rng(0)
       >>> X = rng.standard_normal((4000, 6))
       >>> y = X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(4000)
       >>> stream = sdr.OnlineSIR(d=1, init_size=200, block_size=100)
       >>> for start in range(0, 4000, 250):
       ...     _ = stream.partial_fit(X[start:start + 250], y[start:start + 250])
       >>> fig = stream.results().plot()
       >>> [ax.get_xlabel() for ax in fig.axes]
       ['rows seen', 'rows seen']
    """
    fig, grid = axes_grid(axes, (1, 2), figsize, (PAGE_WIDTH, 2.8), "The stream plot")
    left, right = grid[0, 0], grid[0, 1]
    for j, column in enumerate(eigenvalues.columns):
        left.plot(
            eigenvalues.index,
            eigenvalues[column],
            "o-",
            ms=3,
            lw=1.2,
            color=colour(j),
            label=f"λ{j + 1}",
        )
    left.set_xlabel("rows seen")
    left.set_ylabel("tracked eigenvalue")
    if eigenvalues.shape[1] > 1:
        legend(left, loc="best")
    moved = steps.dropna()
    positive = moved[moved > 0]
    right.plot(positive.index, positive.to_numpy(), "o-", ms=3, lw=1.2, color=colour(0))
    if len(positive):
        right.set_yscale("log")
    right.set_xlabel("rows seen")
    right.set_ylabel(f"{words(distance)} to the\nprevious estimate")
    if title:
        fig.suptitle(title)
    return finish(fig)


__all__ = ["plot_trace", "plot_stream"]
