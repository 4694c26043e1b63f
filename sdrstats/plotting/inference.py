"""Plots of the inference results: dimension rules and bootstrap distributions.

matplotlib is imported inside the functions, so the package works without it.
:func:`plot_dimension_test` is re-exported by :mod:`sdrstats.plotting.results` and called by
``DimensionTest.plot``; :func:`plot_bootstrap` by ``BootstrapResult.plot``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from .style import PAGE_WIDTH, axes_grid, colour, finish, legend, single_axes, words


def _row_dimensions(index: Any) -> np.ndarray:
    """The dimension each row of a test's table stands for, as x positions.

    Rows are numbers (``k``), hypotheses (``"1D vs >= 2D"``: the null's dimension) or labels
    such as ``"d = 2"``: the first integer in the label. Placing rows at their dimension,
    rather than at their order, puts the chosen-d marker on the chosen row whatever dimension
    the table starts at.
    """
    values = []
    for label in index:
        if isinstance(label, (int, np.integer)):
            values.append(int(label))
            continue
        found = re.search(r"\d+", str(label))
        if found is None:
            return np.arange(len(index))
        values.append(int(found.group()))
    return np.asarray(values)


def log_p_axis(ax: Any, floor: float) -> None:
    """A log scale for p-values: labelled decades only, from below ``floor`` up to 1."""
    from matplotlib.ticker import LogLocator, NullFormatter

    ax.set_yscale("log")
    low = 10.0 ** np.floor(np.log10(min(floor, 0.01)))
    ax.set_ylim(low, 1.6)
    ax.yaxis.set_major_locator(LogLocator(base=10.0, numticks=6))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _p_value_floor(p_values: np.ndarray) -> float:
    """Where a p-value of 0 is drawn on the log axis: a decade below the smallest positive."""
    positive = p_values[np.isfinite(p_values) & (p_values > 0)]
    return float(positive.min()) / 10 if positive.size else 1e-16


def plot_dimension_test(
    test: Any, *, ax: Any = None, figsize: Sequence[float] | None = None
) -> Any:
    """Plot a :class:`~sdrstats.DimensionTest`: its criterion by dimension, the chosen d marked.

    Tests with p-values (asymptotic, permutation) show each hypothesis's p-value on a log
    scale, at the dimension of its null, with the level; the ladle shows its criterion
    ``g = f + φ`` and both parts; the bootstrap rule the mean replicate distance (± one sd);
    other criteria (held-out CV scores) their first numeric column. A dotted vertical line
    marks the chosen ``d``, on the row of that dimension.

    Parameters
    ----------
    test : DimensionTest
        The rule's result (``fit.test_dimension(...)``).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    figsize : tuple of float, optional
        Size of a new figure in inches; default one column (3.4 x 2.8).

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    sdrstats.DimensionTest.plot : The same plot as a method.
    scree_plot : The eigenvalues the asymptotic tests are built on.

    Examples
    --------
    .. plot::

       >>> import sdrstats as sdr
       >>> ais = sdr.datasets.load("ais")
       >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais)
       >>> fig = plot_dimension_test(fit.test_dimension("asymptotic"))
       >>> fig.axes[0].get_ylabel(), fig.axes[0].get_yscale()
       ('p-value', 'log')
    """
    fig, ax = single_axes(ax, figsize)
    table = test.table
    if test.rule == "ladle":
        k = table.index.to_numpy()
        ax.plot(k, table["g"], "o-", color=colour(0), ms=4, label="g = f + φ")
        ax.plot(k, table["f"], "s--", color=colour(1), ms=3, label="f: bootstrap variability")
        ax.plot(k, table["phi"], "^--", color=colour(2), ms=3, label="φ: eigenvalue part")
        ax.set_ylabel("ladle criterion")
    elif test.rule == "bootstrap" and "mean_distance" in table:
        k = table.index.to_numpy()
        ax.errorbar(
            k, table["mean_distance"], yerr=table["sd"], fmt="o-", capsize=3, ms=4, color=colour(0)
        )
        ax.set_ylabel(f"mean bootstrap {words(test.extras.get('distance', 'distance'))}")
    elif "p_value" in table:
        m = _row_dimensions(table.index)
        columns = [c for c in table.columns if str(c).startswith("p_value")]
        floor = _p_value_floor(table[columns].to_numpy(dtype=float).ravel())
        for j, column in enumerate(columns):
            p = table[column].to_numpy(dtype=float)
            ax.plot(
                m,
                np.where(p > 0, p, floor),
                "os^"[j % 3] + "-",
                color=colour(j),
                ms=4,
                label=words(column),
            )
            if (p == 0).any():  # below what floating point holds: drawn at the floor
                ax.plot(m[p == 0], np.full((p == 0).sum(), floor), "v", color=colour(j), ms=6)
        log_p_axis(ax, floor)
        if test.level is not None:
            ax.axhline(
                test.level, color="grey", linestyle="--", lw=1, label=f"level {test.level:g}"
            )
        ax.set_xticks(m)
        ax.set_ylabel("p-value")
    else:
        column = next(c for c in table.columns if np.issubdtype(table[c].dtype, np.number))
        k = _row_dimensions(table.index)
        ax.plot(k, table[column], "o-", color=colour(0), ms=4)
        ax.set_xticks(k)
        ax.set_ylabel(words(column))
    rows = _row_dimensions(table.index) if test.rule not in ("ladle", "bootstrap") else k
    if len(rows) <= 12:  # a tick on every row: the marker sits on a labelled row
        ax.set_xticks(sorted({*np.asarray(rows).tolist(), int(test.d)}))
    else:
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("d under the null hypothesis" if "p_value" in table else "d")
    ax.axvline(test.d, color=colour(1), linestyle=":", lw=1.5, label=f"chosen d = {test.d}")
    ax.set_title(f"{test.method}: {test.rule} rule")
    legend(ax, loc="best")
    return finish(fig)


def plot_bootstrap(
    result: Any,
    *,
    ax: Any = None,
    axes: Any = None,
    figsize: Sequence[float] | None = None,
) -> Any:
    """Histogram of a bootstrap's distances and box plots of the per-direction ``|cos|``.

    Parameters
    ----------
    result : BootstrapResult
        The bootstrap (``fit.bootstrap(...)``).
    ax : matplotlib Axes, optional
        One Axes: draw the histogram of the distances only.
    axes : sequence of two matplotlib Axes, optional
        Where to draw the histogram and the box plots; default a new figure of both.
    figsize : tuple of float, optional
        Size of a new figure in inches; default a page width (7 x 3).

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    sdrstats.BootstrapResult.plot : The same plot as a method.

    Examples
    --------
    .. plot::

       >>> import sdrstats as sdr
       >>> ais = sdr.datasets.load("ais")
       >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, d=2)
       >>> fig = fit.bootstrap(B=30, random_state=0, progress=False).plot()
       >>> len(fig.axes)
       2
    """
    title = f"Bootstrap of {result.method} (B = {result.B}, d = {result.d})"
    if ax is not None:
        if axes is not None:
            raise TypeError("Pass ax= (the histogram only) or axes= (both panels), not both.")
        fig, left = single_axes(ax, None)
        right = None
    else:
        fig, grid = axes_grid(axes, (1, 2), figsize, (PAGE_WIDTH, 3.0), "The bootstrap plot")
        left, right = grid[0, 0], grid[0, 1]
    dist = result.distances[~np.isnan(result.distances)]
    left.hist(dist, bins=min(30, max(5, dist.size // 10)), color=colour(0), alpha=0.8)
    left.axvline(
        result.mean, color=colour(1), linestyle=":", lw=1.5, label=f"mean {result.mean:.3g}"
    )
    left.set_xlabel(f"{words(result.distance)} to the full-sample subspace")
    left.set_ylabel("replicates")
    legend(left, loc="best")
    if right is None:
        left.set_title(title)
        return finish(fig)
    cos = [c[~np.isnan(c)] for c in result.cosines.T]
    right.boxplot(cos, medianprops={"color": colour(1)}, flierprops={"markersize": 3})
    right.set_xticks(np.arange(1, result.d + 1))
    right.set_xticklabels(list(result.stability.index))
    right.set_ylim(-0.02, 1.02)
    right.set_ylabel("|cos| with the\nfull-sample direction")
    fig.suptitle(title)
    return finish(fig)


__all__ = ["plot_dimension_test", "plot_bootstrap"]
