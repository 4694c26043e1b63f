"""Every plot of the package (matplotlib is imported only when a plot is drawn).

One contract holds for every plot function here and every ``plot()`` method of a result:

* **A Figure comes back.** Each returns the :class:`matplotlib.figure.Figure` it drew on;
  its panels are ``fig.axes``. Save it with ``fig.savefig("name.pdf")``.
* **Your Axes, if you have them.** ``ax=`` draws a one-panel plot into an Axes you made;
  ``axes=`` takes the grid of a multi-panel plot (the ``k x k`` Axes of a scatterplot matrix,
  the two of the bootstrap, calibration and stream plots). The figure returned is then yours.
* **Sized for print.** ``figsize=`` (inches) sizes a new figure. The defaults are a journal's
  single column, :data:`~sdrstats.plotting.style.COLUMN_WIDTH` = 3.4 in, for one panel, and
  a page width, :data:`~sdrstats.plotting.style.PAGE_WIDTH` = 7 in, for two panels or a
  scatterplot matrix; every text is at least 8 pt at that size.
* **Readable by everyone.** Colours are Okabe & Ito's colour-blind-safe palette
  (:data:`~sdrstats.plotting.style.PALETTE`), a continuous response is viridis, axes are
  labelled in words ("1 − trace correlation", "held-out CV score", "d") and p-values are on a
  log scale.
* **Repeatable.** A plot that resamples (``fit.plot("bootstrap")``, ``"dimension"`` with a
  resampling rule) takes ``random_state=`` like the call it draws, and defaults to the fit's.

:mod:`~sdrstats.plotting.results` draws fitted results: ``fit.plot()`` is R's ``plot.dr``, a
scatterplot matrix of the directions and the response (:func:`sufficient_summary_plot`).
:mod:`~sdrstats.plotting.inference` draws dimension rules and bootstrap distributions,
:mod:`~sdrstats.plotting.density` conditional densities and their calibration,
:mod:`~sdrstats.plotting.projection` rows on two reduced predictors coloured by the response,
and :mod:`~sdrstats.plotting.traces` an optimiser's objective and an online fit's stream.
"""

from .density import plot_calibration, plot_conditional_density, plot_density_fit
from .inference import plot_bootstrap, plot_dimension_test
from .projection import plot_projection
from .results import plot_3d, plot_results, scree_plot, sufficient_summary_plot
from .style import COLUMN_WIDTH, MIN_FONT_SIZE, PAGE_WIDTH, PALETTE
from .traces import plot_stream, plot_trace

__all__ = [
    "plot_results",
    "sufficient_summary_plot",
    "plot_3d",
    "scree_plot",
    "plot_dimension_test",
    "plot_bootstrap",
    "plot_calibration",
    "plot_conditional_density",
    "plot_density_fit",
    "plot_projection",
    "plot_trace",
    "plot_stream",
    "COLUMN_WIDTH",
    "PAGE_WIDTH",
    "MIN_FONT_SIZE",
    "PALETTE",
]
