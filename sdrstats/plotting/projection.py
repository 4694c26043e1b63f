"""Scatter of a 2-D projection coloured by the response (matplotlib imported when drawn).

Used by ``plot()`` of the supervised-PCA family (spca, kspca, bpca, kdr) and usable with any
fitted result that has ``transform``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def plot_projection(
    results: Any,
    newdata: Any = None,
    dims: tuple[int, int] = (0, 1),
    ax: Any = None,
    title: str | None = None,
    s: float = 14.0,
) -> Any:
    """Scatter of two reduced predictors, coloured by class (or by a numeric response).

    Parameters
    ----------
    results : Results
        A fitted result.
    newdata : DataFrame, optional
        Rows to project (they must contain the response); default the training rows.
    dims : tuple of two ints, default (0, 1)
        Which reduced predictors to plot; with ``d = 1`` the second axis is a jitter-free
        zero line.
    ax : matplotlib Axes, optional
    title : str, optional
        Default ``"<method>: 2-D projection"``.
    s : float
        Marker size.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> ax = sdr.spca("sex ~ ht + wt + lbm + bmi", ais, add_identity=1.0).plot()
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('Dir1', 'Dir2')
    """
    import matplotlib.pyplot as plt

    if len(dims) != 2 or min(dims) < 0:
        raise ValueError(f"dims must be two reduced-predictor indices (from 0); got {dims!r}.")
    k = max(dims) + 1
    if k > results.d and results.d > 1:
        raise ValueError(f"dims {dims!r} need d >= {k}; the fit has d = {results.d}.")
    reduced = results.transform(newdata, d=min(k, results.d))
    spec = results.spec
    if newdata is None:
        y_codes = spec.Y
    else:
        y_codes = None  # colour by the response column of newdata when present
    if ax is None:
        ax = plt.figure(figsize=(5, 4.5)).add_subplot(111)
    x = reduced.iloc[:, dims[0]].to_numpy()
    yv = reduced.iloc[:, dims[1]].to_numpy() if reduced.shape[1] > dims[1] else np.zeros(len(x))
    if spec.categorical:
        if y_codes is None:
            values = newdata[spec.y_names[0]].astype(str).to_numpy()
            labels = [str(v) for v in spec.y_levels]
        else:
            labels = [str(v) for v in spec.y_levels]
            values = np.asarray(labels, dtype=object)[y_codes]
        for j, level in enumerate(labels):
            sel = values == level
            ax.scatter(x[sel], yv[sel], s=s, color=f"C{j % 10}", label=level, alpha=0.8)
        ax.legend(title=spec.y_names[0], fontsize="small")
    else:
        colour = (
            spec.Y.reshape(spec.n, -1)[:, 0]
            if y_codes is not None
            else np.asarray(newdata[spec.y_names[0]], dtype=float)
        )
        points = ax.scatter(x, yv, c=colour, s=s, cmap="viridis", alpha=0.8)
        ax.figure.colorbar(points, ax=ax, label=spec.y_names[0])
    ax.set_xlabel(reduced.columns[dims[0]])
    ax.set_ylabel(reduced.columns[dims[1]] if reduced.shape[1] > dims[1] else "")
    ax.set_title(title or f"{results.method}: 2-D projection")
    return ax


__all__ = ["plot_projection"]
