"""Every plot of the package (matplotlib is imported only when a plot is drawn).

:mod:`~sdrstats.plotting.results` draws fitted results (summary plot, scree, tests),
:mod:`~sdrstats.plotting.inference` dimension rules and bootstrap distributions,
:mod:`~sdrstats.plotting.density` conditional densities and :mod:`~sdrstats.plotting.projection`
2-D projections coloured by the response.
"""

from .density import plot_calibration, plot_conditional_density, plot_density_fit
from .inference import plot_bootstrap, plot_dimension_test
from .projection import plot_projection
from .results import plot_results, scree_plot, sufficient_summary_plot

__all__ = [
    "plot_results",
    "sufficient_summary_plot",
    "scree_plot",
    "plot_dimension_test",
    "plot_bootstrap",
    "plot_calibration",
    "plot_conditional_density",
    "plot_density_fit",
    "plot_projection",
]
