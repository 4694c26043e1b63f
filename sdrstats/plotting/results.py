"""Plots of fitted results (matplotlib is imported only when a plot is drawn).

``fit.plot("summary")`` is the sufficient summary plot: the response against the first one or
two reduced predictors, with a lowess smoother (statsmodels) for one predictor. ``"scree"``
shows the eigenvalues with the asymptotic test p-values where the method has them.
Dimension-test and bootstrap plots live beside the inference layer and are re-exported here.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _axes(ax: Any = None, projection: str | None = None) -> Any:
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax
    fig = plt.figure(figsize=(6, 4.5))
    return fig.add_subplot(111, projection=projection)


def sufficient_summary_plot(
    results: Any, dims: int | None = None, ax: Any = None, smoother: bool = True
) -> Any:
    """Response against the first ``dims`` (1 or 2) reduced predictors.

    A categorical response is drawn as colour on the first two reduced predictors.

    Parameters
    ----------
    results : Results
        A fit with a ``transform``.
    dims : {1, 2}, optional
        Reduced predictors on the axes; default ``min(d, 2)``.
    ax : matplotlib Axes, optional
        Where to draw (a 3-D Axes for ``dims=2`` with a continuous response); default new.
    smoother : bool, default True
        Add a lowess curve (one reduced predictor, continuous response).

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
    >>> sufficient_summary_plot(fit).get_xlabel()
    'Dir1'
    """
    reduced = results.transform(d=min(results.d, 2) if dims is None else dims)
    k = reduced.shape[1]
    spec = results.spec
    if spec.categorical:
        ax = _axes(ax)
        labels = np.asarray(spec.y_levels, dtype=object)[spec.Y]
        second = reduced.iloc[:, 1] if k > 1 else np.zeros(len(reduced))
        for level in spec.y_levels:
            sel = labels == level
            ax.scatter(reduced.iloc[sel, 0], np.asarray(second)[sel], s=12, label=str(level))
        ax.set_xlabel(reduced.columns[0])
        ax.set_ylabel(reduced.columns[1] if k > 1 else "")
        ax.legend(title=spec.y_names[0], fontsize="small")
        ax.set_title(f"{results.estimator.label}: sufficient summary plot")
        return ax
    y = spec.Y.reshape(spec.n, -1)[:, 0]
    if k == 1:
        ax = _axes(ax)
        x = reduced.iloc[:, 0].to_numpy()
        ax.scatter(x, y, s=10, alpha=0.7)
        if smoother and len(x) > 5:
            from statsmodels.nonparametric.smoothers_lowess import lowess

            fitted = lowess(y, x, frac=2 / 3, return_sorted=True)
            ax.plot(fitted[:, 0], fitted[:, 1], color="C3", lw=2, label="lowess")
            ax.legend(fontsize="small")
        ax.set_xlabel(reduced.columns[0])
    else:
        ax = _axes(ax, projection="3d")
        ax.scatter(reduced.iloc[:, 0], reduced.iloc[:, 1], y, s=8)
        ax.set_xlabel(reduced.columns[0])
        ax.set_ylabel(reduced.columns[1])
        ax.set_zlabel(spec.y_names[0])
    if k == 1:
        ax.set_ylabel(spec.y_names[0])
    ax.set_title(f"{results.estimator.label}: sufficient summary plot")
    return ax


def scree_plot(results: Any, ax: Any = None) -> Any:
    """Eigenvalues by direction, annotated with the asymptotic test p-values if any.

    Parameters
    ----------
    results : Results
        A fit with eigenvalues (moment methods).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> scree_plot(fit).get_ylabel()
    'eigenvalue'
    """
    ev = results.eigenvalues
    if ev is None:
        raise ValueError(f"{results.method} has no eigenvalues to plot.")
    ax = _axes(ax)
    idx = np.arange(1, len(ev) + 1)
    ax.plot(idx, ev.to_numpy(), "o-")
    ax.set_xticks(idx)
    ax.set_xlabel("direction")
    ax.set_ylabel("eigenvalue")
    ax.set_title(f"{results.estimator.label}: eigenvalues")
    if results.estimator.capabilities.asymptotic_test:
        table = results.test_dimension("asymptotic").table
        for m, p_value in enumerate(table["p_value"].to_numpy()):
            ax.annotate(
                f"p={p_value:.2g}",
                (m + 1, ev.iloc[m]),
                textcoords="offset points",
                xytext=(4, 6),
                fontsize="x-small",
            )
    return ax


def plot_results(results: Any, kind: str = "summary", **options: Any) -> Any:
    """Dispatch ``fit.plot(kind)``: ``"summary"``, ``"scree"`` or ``"bootstrap"``.

    Parameters
    ----------
    results : Results
        The fit.
    kind : {"summary", "scree", "bootstrap"}, default "summary"
        :func:`sufficient_summary_plot`, :func:`scree_plot` or the bootstrap's plot.
    **options
        Passed to the plot; for ``"bootstrap"`` also to :meth:`Results.bootstrap`.

    Returns
    -------
    matplotlib Axes or array of Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8)
    >>> plot_results(fit, "scree").get_title()
    'sir: eigenvalues'
    """
    if kind == "summary":
        return sufficient_summary_plot(results, **options)
    if kind == "scree":
        return scree_plot(results, **options)
    if kind == "bootstrap":
        ax = options.pop("ax", None)
        return results.bootstrap(**options).plot(ax=ax)
    raise ValueError(f"kind must be 'summary', 'scree' or 'bootstrap'; got {kind!r}.")


__all__ = ["sufficient_summary_plot", "scree_plot", "plot_results"]
