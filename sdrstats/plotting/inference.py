"""Plots of the inference results: dimension rules and bootstrap distributions.

matplotlib is imported inside the functions, so the package works without it.
:func:`plot_dimension_test` is re-exported by :mod:`sdrstats.plotting.results` and called by
``DimensionTest.plot``; :func:`plot_bootstrap` by ``BootstrapResult.plot``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np


def _axes(ax: Any, ncols: int = 1) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(1, ncols, figsize=(4.5 * ncols, 3.5))
    return ax


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


def plot_dimension_test(test: Any, ax: Any = None) -> Any:
    """Plot a :class:`~sdrstats.DimensionTest`.

    Tests with p-values (asymptotic, permutation) show each hypothesis's p-value against the
    level; the ladle shows ``g = f + phi`` and its two parts against ``k``; the bootstrap rule
    shows the mean replicate distance (± one sd) against ``k``; other criteria (cv) plot
    their first numeric column. The chosen ``d`` is marked.

    Parameters
    ----------
    test : DimensionTest
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais)
    >>> ax = plot_dimension_test(fit.test_dimension("asymptotic"))
    >>> ax.get_ylabel()
    'p-value'
    """
    ax = _axes(ax)
    table = test.table
    if test.rule == "ladle":
        k = table.index.to_numpy()
        ax.plot(k, table["g"], "o-", color="C0", label="g = f + phi")
        ax.plot(k, table["f"], "s--", color="C1", alpha=0.7, label="f (bootstrap)")
        ax.plot(k, table["phi"], "^--", color="C2", alpha=0.7, label="phi (eigenvalue)")
        ax.set_xlabel("k")
        ax.set_ylabel("ladle criterion")
    elif test.rule == "bootstrap" and "mean_distance" in table:
        k = table.index.to_numpy()
        ax.errorbar(k, table["mean_distance"], yerr=table["sd"], fmt="o-", capsize=3)
        ax.set_xlabel("k")
        ax.set_ylabel(f"mean bootstrap {test.extras.get('distance', 'distance')}")
    elif "p_value" in table:
        m = _row_dimensions(table.index)
        ax.plot(m, table["p_value"], "o-", label="p-value")
        if test.level is not None:
            ax.axhline(test.level, color="grey", linestyle=":", label=f"level {test.level:g}")
        ax.set_xticks(m)
        ax.set_xticklabels([str(label) for label in table.index], rotation=30, ha="right")
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel("p-value")
    else:
        column = next(c for c in table.columns if np.issubdtype(table[c].dtype, np.number))
        k = _row_dimensions(table.index)
        ax.plot(k, table[column], "o-")
        ax.set_xticks(k)
        ax.set_xticklabels([str(label) for label in table.index])
        ax.set_xlabel(str(table.index.name or "k"))
        ax.set_ylabel(str(column))
    if test.rule in ("ladle", "bootstrap"):
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.axvline(test.d, color="C3", linestyle=":", label=f"chosen d = {test.d}")
    else:
        ax.axvline(test.d, color="C3", linestyle=":", label=f"chosen d = {test.d}")
    ax.set_title(f"{test.rule} rule for {test.method}: d = {test.d}")
    ax.legend(fontsize="small")
    return ax


def plot_bootstrap(result: Any, ax: Any = None) -> Any:
    """Histogram of a bootstrap's distances and box plots of the per-direction ``|cos|``.

    Parameters
    ----------
    result : BootstrapResult
    ax : matplotlib Axes or sequence of two, optional
        Two Axes (or none: a new figure) get the histogram and the box plots; a single
        Axes gets the histogram only.

    Returns
    -------
    ndarray of two matplotlib Axes, or the single Axes given

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, d=2)
    >>> axes = fit.bootstrap(B=30, random_state=0, progress=False).plot()
    >>> len(axes)
    2
    """
    single = ax is not None and hasattr(ax, "hist")
    axes = [ax, None] if single else _axes(ax, ncols=2)
    left, right = axes[0], axes[1]
    dist = result.distances[~np.isnan(result.distances)]
    left.hist(dist, bins=min(30, max(5, dist.size // 10)), color="C0", alpha=0.8)
    left.axvline(result.mean, color="C3", linestyle=":", label=f"mean {result.mean:.3g}")
    left.set_xlabel(f"{result.distance} distance to the full-sample subspace")
    left.set_ylabel("replicates")
    left.legend(fontsize="small")
    if single:  # one Axes given: the distance histogram only
        left.set_title(f"Bootstrap of {result.method} (B = {result.B}, d = {result.d})")
        return left
    cos = [c[~np.isnan(c)] for c in result.cosines.T]
    right.boxplot(cos)
    right.set_xticks(np.arange(1, result.d + 1))
    right.set_xticklabels(list(result.stability.index))
    right.set_ylim(-0.02, 1.02)
    right.set_ylabel("|cos| with the full-sample direction")
    left.figure.suptitle(f"Bootstrap of {result.method} (B = {result.B}, d = {result.d})")
    return np.asarray(axes)


__all__ = ["plot_dimension_test", "plot_bootstrap"]
