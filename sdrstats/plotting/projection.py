"""Rows on two reduced predictors, coloured by the response (matplotlib imported when drawn).

Used by ``plot()`` of the supervised-PCA family (spca, kspca, bpca, kdr) and of SDSPCAAN, and
usable with any fitted result that has ``transform``. A fit with one direction has no second
axis: it is drawn as the one-direction summary plot (a density and a strip of points per
class, or the response against the direction).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .panels import class_densities, marked_scatter, scatter_smooth
from .style import COLUMN_WIDTH, finish, single_axes


def _response_of(results: Any, newdata: Any) -> np.ndarray | None:
    """The response of the plotted rows: class labels or numbers; ``None`` if absent."""
    spec = results.spec
    if newdata is None:
        if spec.categorical:
            return np.asarray([str(v) for v in spec.y_levels], dtype=object)[spec.Y]
        return np.asarray(spec.Y, dtype=float).reshape(spec.n, -1)[:, 0]
    name = spec.y_names[0]
    if not hasattr(newdata, "columns") or name not in newdata.columns:
        return None
    column = newdata[name]
    return column.astype(str).to_numpy() if spec.categorical else column.to_numpy(dtype=float)


def plot_projection(
    results: Any,
    newdata: Any = None,
    *,
    which: Sequence[int] = (1, 2),
    ax: Any = None,
    figsize: Sequence[float] | None = None,
    title: str | None = None,
    s: float = 10.0,
) -> Any:
    """Two reduced predictors against each other, coloured by class or by the response.

    With one direction (``d = 1``) there is no second axis: a class response gets a density
    and a strip of points per class along ``Dir1``, a numeric one is drawn against ``Dir1``
    with a lowess curve.

    Parameters
    ----------
    results : Results
        A fitted result.
    newdata : DataFrame, optional
        Rows to project; default the training rows. Without the response column the points
        are drawn in one colour.
    which : tuple of two int, default (1, 2)
        The reduced predictors on the axes, by number from 1 (``Dir1``, ``Dir2``).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    figsize : tuple of float, optional
        Size of a new figure in inches; default one column (3.4 x 3.0).
    title : str, optional
        Default ``"<method>: projection"`` (``"<method>: Dir1 by class"`` with one
        direction).
    s : float, default 10
        Marker size.

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    sufficient_summary_plot : The response and the directions as R's ``plot.dr`` draws them.

    Examples
    --------
    .. plot::

       >>> import sdrstats as sdr
       >>> ais = sdr.datasets.load("ais")
       >>> fig = sdr.spca("sex ~ ht + wt + lbm + bmi", ais, d=2, add_identity=1.0).plot()
       >>> fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
       ('Dir1', 'Dir2')
    """
    which = tuple(int(j) for j in which)
    if len(which) != 2 or min(which) < 1:
        raise ValueError(
            f"which must name two reduced predictors by number, from 1 (Dir1); got {which!r}."
        )
    spec = results.spec
    one = results.d == 1
    if not one and max(which) > results.d:
        raise ValueError(f"which {which!r} needs d >= {max(which)}; the fit has d = {results.d}.")
    reduced = results.transform(newdata, d=1 if one else max(which))
    response = _response_of(results, newdata)
    fig, panel = single_axes(ax, figsize, default=(COLUMN_WIDTH, 3.0))
    label = results.estimator.label
    if one:
        x = reduced.iloc[:, 0].to_numpy()
        if spec.categorical and response is not None:
            levels = [str(v) for v in spec.y_levels]
            class_densities(panel, x, response, levels, title=spec.y_names[0])
            default = f"{label}: Dir1 by class"
        elif response is not None:
            scatter_smooth(panel, x, response, size=s)
            panel.set_ylabel(spec.y_names[0])
            default = f"{label}: {spec.y_names[0]} against Dir1"
        else:
            class_densities(panel, x, np.zeros(len(x)), [0], title="rows")
            default = f"{label}: Dir1"
        panel.set_xlabel("Dir1")
        panel.set_title(default if title is None else title)
        return finish(fig)
    x = reduced.iloc[:, which[0] - 1].to_numpy()
    y = reduced.iloc[:, which[1] - 1].to_numpy()
    levels = [str(v) for v in spec.y_levels] if spec.categorical else None
    marked_scatter(panel, x, y, response, levels, spec.y_names[0], size=s)
    panel.set_xlabel(str(reduced.columns[which[0] - 1]))
    panel.set_ylabel(str(reduced.columns[which[1] - 1]))
    panel.set_title(f"{label}: projection" if title is None else title)
    return finish(fig)


__all__ = ["plot_projection"]
