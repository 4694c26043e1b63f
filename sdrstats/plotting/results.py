"""Plots of fitted results (matplotlib is imported only when a plot is drawn).

``fit.plot()`` is R's ``plot.dr``: with two or more directions a scatterplot matrix of the
directions and the response (:func:`sufficient_summary_plot`), with one direction the response
against it with a lowess smoother, or, for a class response, a density and a strip of points
per class. ``"3d"`` draws the response over the first two directions in three dimensions,
``"scree"`` the eigenvalues with the asymptotic test's p-values, ``"dimension"`` a dimension
rule and ``"bootstrap"`` the bootstrap distances. Every plot returns its
:class:`~matplotlib.figure.Figure` and takes ``ax=`` (or ``axes=``) and ``figsize=``; see
:mod:`sdrstats.plotting`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .panels import class_densities, marked_scatter, scatter_smooth, scatterplot_matrix
from .style import (
    COLUMN_WIDTH,
    PAGE_WIDTH,
    axes_grid,
    colour,
    finish,
    legend,
    single_axes,
)


def _which(results: Any, which: Any) -> list[int]:
    """Direction numbers (1-based, as the ``Dir`` labels), checked."""
    if which is None:
        return list(range(1, int(results.d) + 1))
    chosen = [int(which)] if np.isscalar(which) else [int(j) for j in which]
    if not chosen or min(chosen) < 1:
        raise ValueError(f"which names directions by number, from 1 (Dir1); got {which!r}.")
    return chosen


def _response(results: Any) -> tuple[np.ndarray, str, list[Any] | None]:
    """The first response's values (class labels for a class response), name and classes."""
    spec = results.spec
    if spec.categorical:
        levels = list(spec.y_levels)
        return (
            np.asarray(levels, dtype=object)[np.asarray(spec.Y, dtype=int)],
            spec.y_names[0],
            levels,
        )
    return np.asarray(spec.Y, dtype=float).reshape(spec.n, -1)[:, 0], spec.y_names[0], None


def sufficient_summary_plot(
    results: Any,
    *,
    which: int | Sequence[int] | None = None,
    mark_by_y: bool = False,
    smoother: bool = True,
    ax: Any = None,
    axes: Any = None,
    figsize: Sequence[float] | None = None,
) -> Any:
    """R's ``plot.dr``: the response and the reduced predictors, as a scatterplot matrix.

    With two or more directions, a scatterplot matrix of ``Dir1..Dird`` and the response,
    with a lowess curve in the panels of the response against each direction. With
    ``mark_by_y`` (R's ``mark.by.y``), the response is not a column but the colour of the
    points (viridis, with a colour bar). A class response always colours the points, one
    colour per class. With one direction, the response against it with a lowess curve, or,
    for a class response, a density and a strip of points per class.

    Parameters
    ----------
    results : Results
        A fit that keeps its rows (``transform()`` without ``newdata``).
    which : int or sequence of int, optional
        The directions, by number from 1 (R's ``which``); default all ``d``.
    mark_by_y : bool, default False
        Colour the points by the response instead of adding it as a column.
    smoother : bool, default True
        Draw a lowess curve of the response on each direction.
    ax : matplotlib Axes, optional
        Where to draw the one-direction plot.
    axes : array of matplotlib Axes, optional
        A ``k x k`` grid for the matrix (``k`` directions, plus one for the response unless
        it marks the points).
    figsize : tuple of float, optional
        Size of a new figure in inches; default one column (3.4 in) for one panel, a page
        width (7 in) for a matrix of three or more variables.

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    plot_3d : The response over two directions in three dimensions.
    plot_results : Every kind of ``fit.plot()``.

    Examples
    --------
    .. plot::

       >>> import sdrstats as sdr
       >>> ais = sdr.datasets.load("ais")
       >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d=2)
       >>> fig = sufficient_summary_plot(fit)
       >>> [ax.get_xlabel() for ax in fig.axes[-3:]]
       ['Dir1', 'Dir2', 'lbm']
    """
    chosen = _which(results, which)
    reduced = results.transform(d=max(chosen))
    values, y_name, levels = _response(results)
    directions = [reduced.iloc[:, j - 1].to_numpy() for j in chosen]
    names = [str(reduced.columns[j - 1]) for j in chosen]
    if len(chosen) == 1:
        if axes is not None:
            raise TypeError("One direction draws one panel: pass ax=, not axes=.")
        fig, panel = single_axes(ax, figsize)
        if levels is not None:
            class_densities(panel, directions[0], values, levels, title=y_name)
            panel.set_title(f"{results.estimator.label}: {names[0]} by class")
        else:
            scatter_smooth(panel, directions[0], values, smoother=smoother)
            panel.set_ylabel(y_name)
            panel.set_title(f"{results.estimator.label}: summary plot")
            if smoother and panel.get_lines():
                legend(panel, loc="best")
        panel.set_xlabel(names[0])
        return finish(fig)
    marks = None if levels is None and not mark_by_y else values
    if marks is not None and len(chosen) == 2:  # one pair, marked: a single panel
        if axes is not None:
            raise TypeError("Two directions marked by the response draw one panel: pass ax=.")
        fig, panel = single_axes(ax, figsize, default=(COLUMN_WIDTH, 3.0))
        marked_scatter(panel, directions[0], directions[1], marks, levels, y_name)
        panel.set_xlabel(names[0])
        panel.set_ylabel(names[1])
        panel.set_title(f"{results.estimator.label}: directions marked by {y_name}")
        return finish(fig)
    if ax is not None:
        raise TypeError(
            f"The summary plot of {len(chosen)} directions is a scatterplot matrix: pass a "
            f"grid of Axes as axes=, choose one direction (which=1), or use kind='3d'."
        )
    columns, labels, response = list(directions), list(names), None
    if marks is None:
        columns.append(values)
        labels.append(y_name)
        response = len(columns) - 1
    k = len(columns)
    side = COLUMN_WIDTH if k <= 2 else PAGE_WIDTH
    fig, grid = axes_grid(axes, (k, k), figsize, (side, side), "The scatterplot matrix")
    mappable = scatterplot_matrix(
        grid,
        columns,
        labels,
        response=response,
        smoother=smoother,
        marks=marks,
        levels=levels,
        mark_name=y_name,
    )
    for j in range(k):  # the axis labels say which variable each column and row is
        grid[-1, j].set_xlabel(labels[j])
        grid[j, 0].set_ylabel(labels[j])
    if mappable is not None:
        fig.colorbar(mappable, ax=list(grid.ravel()), label=y_name, shrink=0.8)
    fig.suptitle(f"{results.estimator.label}: {y_name} and the directions")
    return finish(fig)


def plot_3d(
    results: Any,
    *,
    which: Sequence[int] = (1, 2),
    ax: Any = None,
    figsize: Sequence[float] | None = None,
) -> Any:
    """The response over two directions, in three dimensions (a class response: colours).

    Parameters
    ----------
    results : Results
        A fit with at least two directions.
    which : tuple of two int, default (1, 2)
        The directions on the horizontal axes, by number from 1.
    ax : matplotlib Axes, optional
        A 3-D Axes (``fig.add_subplot(projection="3d")``) to draw on.
    figsize : tuple of float, optional
        Size of a new figure in inches; default one column (3.4 x 3.2).

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    sufficient_summary_plot : The scatterplot matrix, ``fit.plot()``'s default.

    Examples
    --------
    .. plot::

       >>> import sdrstats as sdr
       >>> ais = sdr.datasets.load("ais")
       >>> fit = sdr.save("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, d=2)
       >>> fig = plot_3d(fit)
       >>> fig.axes[0].get_zlabel()
       'lbm'
    """
    chosen = _which(results, which)
    if len(chosen) != 2:
        raise ValueError(f"The 3-D plot takes two directions; which={which!r}.")
    reduced = results.transform(d=max(chosen))
    values, y_name, levels = _response(results)
    x, z = reduced.iloc[:, chosen[0] - 1], reduced.iloc[:, chosen[1] - 1]
    fig, panel = single_axes(ax, figsize, default=(COLUMN_WIDTH, 3.2), projection="3d")
    if levels is not None:
        for j, level in enumerate(levels):
            sel = values == level
            panel.scatter(
                x[sel], z[sel], np.zeros(sel.sum()), s=6, color=colour(j), label=str(level)
            )
        legend(panel, title=y_name, loc="upper left")
        panel.set_zlabel("")
    else:
        panel.scatter(x, z, values, s=6, color=colour(0), alpha=0.7)
        panel.set_zlabel(y_name)
    panel.set_xlabel(str(reduced.columns[chosen[0] - 1]))
    panel.set_ylabel(str(reduced.columns[chosen[1] - 1]))
    panel.set_title(f"{results.estimator.label}: 3-D summary plot")
    if ax is None:
        panel.set_box_aspect(None, zoom=0.8)  # keeps the z label inside a column-wide figure
    return finish(fig)


def scree_plot(results: Any, *, ax: Any = None, figsize: Sequence[float] | None = None) -> Any:
    """Eigenvalues by direction, with the asymptotic test's p-value of each hypothesis.

    Parameters
    ----------
    results : Results
        A fit with eigenvalues (moment methods).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    figsize : tuple of float, optional
        Size of a new figure in inches; default one column (3.4 x 2.8).

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    plot_dimension_test : The p-values of a dimension rule on a log scale.

    Examples
    --------
    .. plot::

       >>> import sdrstats as sdr
       >>> ais = sdr.datasets.load("ais")
       >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
       >>> scree_plot(fit).axes[0].get_ylabel()
       'eigenvalue'
    """
    ev = results.eigenvalues
    if ev is None:
        raise ValueError(f"{results.method} has no eigenvalues to plot.")
    fig, panel = single_axes(ax, figsize)
    idx = np.arange(1, len(ev) + 1)
    panel.plot(idx, ev.to_numpy(), "o-", color=colour(0), ms=4)
    panel.set_xticks(idx)
    panel.set_xlabel("direction")
    panel.set_ylabel("eigenvalue")
    panel.set_title(f"{results.estimator.label}: eigenvalues")
    if results.estimator.capabilities.asymptotic_test:
        rule_only = results._rule_options("asymptotic")  # the p-values that choose d
        table = results.test_dimension("asymptotic", **rule_only).table
        for m, p_value in enumerate(table["p_value"].to_numpy()[: len(ev)]):
            panel.annotate(
                f"p = {p_value:.2g}",
                (m + 1, ev.iloc[m]),
                textcoords="offset points",
                xytext=(0, 5),
                rotation=90,
                ha="center",
                va="bottom",
            )
        panel.set_ylim(top=float(ev.max()) * 2.1)  # room for the p-values above the points
    return finish(fig)


#: Every kind of ``fit.plot(kind)``, with the function that draws it.
KINDS = ("summary", "pairs", "3d", "scree", "dimension", "bootstrap")


def plot_results(results: Any, kind: str = "summary", **options: Any) -> Any:
    """Draw ``fit.plot(kind)``.

    Parameters
    ----------
    results : Results
        The fit.
    kind : {"summary", "pairs", "3d", "scree", "dimension", "bootstrap"}, default "summary"
        ``"summary"`` (R's ``plot.dr``) and ``"pairs"``: :func:`sufficient_summary_plot`;
        ``"3d"``: :func:`plot_3d`; ``"scree"``: :func:`scree_plot`; ``"dimension"``: the
        plot of ``fit.test_dimension(rule, ...)`` (:func:`plot_dimension_test`);
        ``"bootstrap"``: the plot of ``fit.bootstrap(...)`` (:func:`plot_bootstrap`).
    **options
        Passed to the plot (``ax``, ``axes``, ``figsize``, ``which``, ``mark_by_y``...); for
        ``"dimension"`` and ``"bootstrap"`` the others go to ``test_dimension`` or
        ``bootstrap`` (``rule``, ``B``, ``random_state``...).

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    sufficient_summary_plot : The default, R's ``plot.dr``.
    plot_3d, scree_plot, plot_dimension_test, plot_bootstrap : The other kinds.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> plot_results(fit, "scree").axes[0].get_title()
    'sir: eigenvalues'
    """
    if kind in ("summary", "pairs"):
        return sufficient_summary_plot(results, **options)
    if kind == "3d":
        return plot_3d(results, **options)
    if kind == "scree":
        return scree_plot(results, **options)
    if kind in ("dimension", "bootstrap"):
        drawing = {key: options.pop(key) for key in ("ax", "axes", "figsize") if key in options}
        if kind == "dimension":
            return results.test_dimension(options.pop("rule", None), **options).plot(**drawing)
        return results.bootstrap(**options).plot(**drawing)
    raise ValueError(f"kind must be one of {', '.join(map(repr, KINDS))}; got {kind!r}.")


__all__ = ["sufficient_summary_plot", "plot_3d", "scree_plot", "plot_results", "KINDS"]
