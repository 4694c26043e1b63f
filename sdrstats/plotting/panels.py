"""Panels drawn from arrays: the pieces the result plots are made of (no fitted results here).

:func:`scatter_smooth` is the sufficient summary plot's panel (a response against one reduced
predictor, with a lowess curve), :func:`class_densities` the one-direction picture of a class
response (a density and a strip of points per class) and :func:`scatterplot_matrix` R's
``pairs`` as ``plot.dr`` draws it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .style import CONTINUOUS_CMAP, MIN_FONT_SIZE, colour, legend

#: Markers added to the colours when there are more classes than colours.
MARKERS = ("o", "s", "^", "D", "v", "P")
#: Share of the data range added on each side of a panel.
PAD = 0.06


def class_style(j: int) -> dict[str, Any]:
    """Colour and marker of the ``j``-th class: the palette first, then new markers."""
    return {"color": colour(j), "marker": MARKERS[(j // 8) % len(MARKERS)]}


def lowess_curve(x: np.ndarray, y: np.ndarray, frac: float = 2 / 3) -> np.ndarray | None:
    """Sorted ``(x, fitted)`` of a lowess of ``y`` on ``x``; ``None`` with too few points."""
    keep = np.isfinite(x) & np.isfinite(y)
    if keep.sum() <= 5 or np.ptp(x[keep]) == 0:
        return None
    from statsmodels.nonparametric.smoothers_lowess import lowess

    return lowess(y[keep], x[keep], frac=frac, return_sorted=True)


def scatter_smooth(
    ax: Any, x: np.ndarray, y: np.ndarray, *, smoother: bool = True, size: float = 8.0
) -> None:
    """``y`` against ``x`` with a lowess smoother (R's ``panel.smooth``)."""
    ax.scatter(x, y, s=size, color=colour(0), alpha=0.6, linewidths=0)
    curve = lowess_curve(np.asarray(x, float), np.asarray(y, float)) if smoother else None
    if curve is not None:
        ax.plot(curve[:, 0], curve[:, 1], color=colour(1), lw=1.5, label="lowess")


def class_densities(
    ax: Any, values: np.ndarray, labels: np.ndarray, levels: Sequence[Any], title: str
) -> None:
    """One kernel density curve per class and, under them, a strip of each class's points.

    The strips sit below zero, one row per class, so every point is seen even where the
    densities overlap or a class is too small for a density.
    """
    from scipy.stats import gaussian_kde

    values = np.asarray(values, dtype=float)
    span = np.ptp(values) or 1.0
    grid = np.linspace(values.min() - 0.1 * span, values.max() + 0.1 * span, 256)
    curves = {}
    for level in levels:
        chosen = values[labels == level]
        if chosen.size > 2 and np.ptp(chosen) > 0:
            curves[level] = gaussian_kde(chosen)(grid)
    top = max((c.max() for c in curves.values()), default=1.0)
    step = top / (2.5 * max(len(levels), 1))
    rng = np.random.default_rng(0)  # the strip's vertical jitter only; fixed so plots repeat
    for j, level in enumerate(levels):
        style = class_style(j)
        chosen = values[labels == level]
        base = -(j + 1) * step
        jitter = rng.uniform(-0.3, 0.3, chosen.size) * step
        ax.scatter(
            chosen,
            base + jitter,
            s=6,
            alpha=0.7,
            linewidths=0,
            color=style["color"],
            marker=style["marker"],
        )
        if level in curves:
            ax.plot(
                grid,
                curves[level],
                color=style["color"],
                lw=1.5,
                label=f"{level} (n = {chosen.size})",
            )
        else:
            ax.plot([], [], color=style["color"], lw=1.5, label=f"{level} (n = {chosen.size})")
    ax.axhline(0.0, color="black", lw=0.5)
    ax.set_ylim(-(len(levels) + 0.7) * step, top * 1.45)  # headroom for the legend
    ax.set_ylabel("density")
    legend(ax, title=title, loc="best")


def marked_scatter(
    ax: Any,
    x: np.ndarray,
    y: np.ndarray,
    marks: np.ndarray | None,
    levels: Sequence[Any] | None,
    name: str,
    size: float = 8.0,
) -> None:
    """``y`` against ``x``, the points coloured by class (a legend) or by a number (a colour bar)."""
    if marks is None:
        ax.scatter(x, y, s=size, alpha=0.8, linewidths=0, **class_style(0))
    elif levels is not None:
        for j, level in enumerate(levels):
            sel = marks == level
            ax.scatter(
                x[sel], y[sel], s=size, alpha=0.8, linewidths=0, label=str(level), **class_style(j)
            )
        legend(ax, title=name, loc="best", markerscale=1.5)
    else:
        points = ax.scatter(x, y, c=marks, s=size, cmap=CONTINUOUS_CMAP, alpha=0.8, linewidths=0)
        ax.figure.colorbar(points, ax=ax, label=name)


def _limits(values: np.ndarray) -> tuple[float, float]:
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    pad = PAD * (high - low or 1.0)
    return low - pad, high + pad


def scatterplot_matrix(
    grid: np.ndarray,
    columns: Sequence[np.ndarray],
    names: Sequence[str],
    *,
    response: int | None = None,
    smoother: bool = True,
    marks: np.ndarray | None = None,
    levels: Sequence[Any] | None = None,
    mark_name: str = "",
) -> Any:
    """R's ``pairs``: every column against every other, names on the diagonal.

    Parameters
    ----------
    grid : ndarray of Axes, shape (k, k)
    columns : sequence of k arrays
    names : sequence of k str
    response : int, optional
        Index of the response column: its row's panels (the response against each
        direction) get a lowess curve when ``smoother``.
    smoother : bool
    marks : ndarray, optional
        Colour the points by these values: class labels when ``levels`` is given (one
        palette colour each), else a continuous value (viridis, with a colour bar).
    levels : sequence, optional
        The classes of ``marks``.
    mark_name : str
        Title of the legend or colour bar.

    Returns
    -------
    The colour mapping drawn (for a colour bar), or ``None``.
    """
    k = len(columns)
    limits = [_limits(np.asarray(c, dtype=float)) for c in columns]
    mappable = None
    for i in range(k):  # row: the vertical variable
        for j in range(k):  # column: the horizontal variable
            ax = grid[i, j]
            ax.set_xlim(limits[j])
            if i == j:
                ax.set_ylim(0, 1)
                ax.text(
                    0.5,
                    0.5,
                    names[i],
                    transform=ax.transAxes,
                    ha="center",
                    va="center",
                    fontsize=MIN_FONT_SIZE + 2,
                )
            else:
                ax.set_ylim(limits[i])
                x, y = np.asarray(columns[j], float), np.asarray(columns[i], float)
                if marks is not None and levels is not None:
                    for c, level in enumerate(levels):
                        sel = marks == level
                        style = class_style(c)
                        ax.scatter(
                            x[sel], y[sel], s=5, alpha=0.7, linewidths=0, label=str(level), **style
                        )
                elif marks is not None:
                    mappable = ax.scatter(
                        x, y, c=marks, s=5, cmap=CONTINUOUS_CMAP, alpha=0.8, linewidths=0
                    )
                else:
                    scatter_smooth(ax, x, y, smoother=smoother and i == response, size=5)
            # R's pairs: each variable's ticks once, on an outer side free of the diagonal
            bottom, left = i == k - 1 and j != k - 1, j == 0 and i != 0
            top, right = i == 0 and j == k - 1, j == k - 1 and i == 0
            ax.tick_params(
                labelbottom=bottom,
                labelleft=left,
                labeltop=top,
                labelright=right,
                bottom=bottom or i != j,
                left=left or i != j,
                top=top,
                right=right,
            )
            if i == j:
                ax.set_yticks([])
                if not (top or bottom):
                    ax.set_xticks([])
    if marks is not None and levels is not None:
        handles, labels = grid[0, 1].get_legend_handles_labels()
        fig = grid[0, 0].figure
        engine = fig.get_layout_engine()
        outside = engine is not None and type(engine).__name__ == "ConstrainedLayoutEngine"
        fig.legend(
            handles,
            labels,
            title=mark_name,
            loc="outside right upper" if outside else "upper right",
            frameon=False,
            fontsize=MIN_FONT_SIZE,
            title_fontsize=MIN_FONT_SIZE,
            markerscale=2,
        )
    return mappable


__all__ = ["class_densities", "class_style", "lowess_curve", "scatter_smooth", "scatterplot_matrix"]
