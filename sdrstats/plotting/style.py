"""The house style of every plot: sizes, fonts, colours and words (matplotlib imported lazily).

Every plot function of :mod:`sdrstats.plotting` and every ``plot()`` method follows one
contract:

* it returns the :class:`matplotlib.figure.Figure` it drew on;
* ``ax=`` (one panel) or ``axes=`` (a grid, or the two panels of a two-panel plot) draws
  into Axes the caller made, on the caller's figure, which is returned;
* ``figsize=`` (inches) sizes the figure the plot makes when no Axes are given. The
  defaults fit a journal's single column (:data:`COLUMN_WIDTH`, 3.4 in) or a full page width
  (:data:`PAGE_WIDTH`, 7 in), and every text is at least :data:`MIN_FONT_SIZE` points at
  that size, so a figure goes into a paper without resizing.

Colours are the Okabe & Ito palette, distinguishable with every common colour-vision
deficiency; continuous colour scales are viridis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Width of one column of a two-column journal page, in inches.
COLUMN_WIDTH = 3.4
#: Width of a full page of text, in inches.
PAGE_WIDTH = 7.0
#: Smallest text on a figure at its default size, in points.
MIN_FONT_SIZE = 8.0
#: Titles, in points.
TITLE_FONT_SIZE = 9.0
#: Okabe & Ito's colour-blind-safe palette (blue, vermilion, bluish green, orange, reddish
#: purple, sky blue, yellow, black), in the order the plots use it.
PALETTE = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#E69F00",
    "#CC79A7",
    "#56B4E9",
    "#F0E442",
    "#000000",
)
#: Colour map of a continuous response.
CONTINUOUS_CMAP = "viridis"
#: Grey of the data points under a fitted curve.
POINT_GREY = "#7f7f7f"

#: Words for the names a table or an option uses, as an axis or legend says them.
WORDS = {
    "projection": "projection distance",
    "det": "determinant distance",
    "trace_correlation": "1 − trace correlation",
    "cv": "held-out CV score",
    "cv_score": "held-out CV score",
    "p_value": "p-value",
    "p_value_general": "p-value (general theory)",
    "p_value_indep": "p-value (independence)",
    "k": "d",
}


def colour(j: int) -> str:
    """The ``j``-th colour of :data:`PALETTE` (cycling)."""
    return PALETTE[j % len(PALETTE)]


def words(name: Any) -> str:
    """The words for a column or option name (the name itself when it has none)."""
    return WORDS.get(str(name), str(name).replace("_", " "))


def new_figure(figsize: Sequence[float] | None, default: tuple[float, float]) -> Any:
    """A new figure of ``figsize`` (default ``default``) with the house layout."""
    import matplotlib.pyplot as plt

    return plt.figure(
        figsize=tuple(figsize) if figsize is not None else default, layout="constrained"
    )


def single_axes(
    ax: Any,
    figsize: Sequence[float] | None,
    default: tuple[float, float] = (COLUMN_WIDTH, 2.8),
    projection: str | None = None,
) -> tuple[Any, Any]:
    """The figure and Axes to draw one panel on: ``ax`` if given, else a new figure's."""
    if ax is not None:
        if isinstance(ax, np.ndarray) or isinstance(ax, (list, tuple)):
            raise TypeError(
                "ax= takes one matplotlib Axes; this plot draws a single panel. "
                f"Got {type(ax).__name__}."
            )
        if projection == "3d" and getattr(ax, "name", None) != "3d":
            raise ValueError(
                "This plot is three-dimensional: pass a 3-D Axes "
                "(fig.add_subplot(projection='3d')) or no ax."
            )
        return ax.figure, ax
    fig = new_figure(figsize, default)
    return fig, fig.add_subplot(1, 1, 1, projection=projection)


def axes_grid(
    axes: Any,
    shape: tuple[int, int],
    figsize: Sequence[float] | None,
    default: tuple[float, float],
    what: str,
    **subplots: Any,
) -> tuple[Any, np.ndarray]:
    """The figure and a ``shape`` array of Axes: ``axes`` if given (checked), else new ones."""
    if axes is not None:
        grid = np.asarray(axes, dtype=object)
        if grid.size != shape[0] * shape[1]:
            raise ValueError(
                f"{what} needs {shape[0] * shape[1]} Axes (a {shape[0]} x {shape[1]} grid); "
                f"axes= holds {grid.size}."
            )
        grid = grid.reshape(shape)
        return grid.flat[0].figure, grid
    fig = new_figure(figsize, default)
    grid = np.asarray(fig.subplots(*shape, squeeze=False, **subplots), dtype=object)
    return fig, grid


def finish(fig: Any) -> Any:
    """Raise every text of ``fig`` to :data:`MIN_FONT_SIZE` points (titles to the title size).

    Tick labels are set through ``tick_params``, so ticks matplotlib makes later (at draw time)
    follow too. Returns ``fig``.
    """
    for ax in fig.axes:
        ax.tick_params(labelsize=MIN_FONT_SIZE)
        if getattr(ax, "name", None) == "3d":
            ax.zaxis.label.set_fontsize(max(ax.zaxis.label.get_fontsize(), MIN_FONT_SIZE))
        for label in (ax.xaxis.label, ax.yaxis.label):
            label.set_fontsize(max(label.get_fontsize(), MIN_FONT_SIZE))
        ax.title.set_fontsize(max(ax.title.get_fontsize(), TITLE_FONT_SIZE))
        legend = ax.get_legend()
        if legend is not None:
            for text in [*legend.get_texts(), legend.get_title()]:
                text.set_fontsize(max(text.get_fontsize(), MIN_FONT_SIZE))
        for text in ax.texts:
            text.set_fontsize(max(text.get_fontsize(), MIN_FONT_SIZE))
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None:
        suptitle.set_fontsize(max(suptitle.get_fontsize(), TITLE_FONT_SIZE))
    return fig


def legend(ax: Any, **options: Any) -> Any:
    """A legend in the house style (no frame, the smallest text size)."""
    options.setdefault("frameon", False)
    options.setdefault("fontsize", MIN_FONT_SIZE)
    return ax.legend(**options)


__all__ = [
    "COLUMN_WIDTH",
    "PAGE_WIDTH",
    "MIN_FONT_SIZE",
    "TITLE_FONT_SIZE",
    "PALETTE",
    "CONTINUOUS_CMAP",
    "WORDS",
    "colour",
    "words",
    "new_figure",
    "single_axes",
    "axes_grid",
    "finish",
    "legend",
]
