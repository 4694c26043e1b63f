"""Results class shared by the supervised-PCA family (projection plot, HSIC wording)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.tables import Block
from ..results.fitted import Results


class ProjectionResults(Results):
    """A fit of the supervised-PCA family.

    Adds a projection plot (``plot()`` defaults to a scatter of the first two reduced
    predictors coloured by the response) and method-specific summary blocks.

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; the method's formula function builds it.

    See Also
    --------
    spca, kspca, bpca, kdr : The methods whose results build on it.
    sdrstats.plotting.plot_projection : Its default plot.

    References
    ----------
    :cite:t:`barshan2011`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.spca("sex ~ ht + wt + lbm + bmi", ais, add_identity=1.0, d=2)
    >>> isinstance(fit, ProjectionResults), fit.transform().shape
    (True, (202, 2))
    """

    eigen_label = "Eigenvalues"
    eigen_note: str | None = None

    def _method_line(self) -> str:
        details = self.output.extras.get("method_details")
        head = f"{self.method}" + (f" ({details})" if details else "")
        return f"{head}, n = {self.n}, p = {self.p}{self._chunks_note()}."

    def _eigen_table(self, k: int) -> pd.DataFrame | None:
        table = super()._eigen_table(k)
        if table is not None:
            table = table.rename(index={"Eigenvalues": self.eigen_label})
        return table

    def _extra_blocks(self) -> list[Block]:
        return []

    def _summary_blocks(self) -> list[Block]:
        blocks = super()._summary_blocks()
        if self.eigen_note:
            blocks.append(Block("", text=self.eigen_note))
        return blocks + self._extra_blocks()

    def plot(self, kind: str = "projection", **options: Any) -> Any:
        """Plots; by default the rows on two reduced predictors, coloured by the response.

        Parameters
        ----------
        kind : str, default "projection"
            ``"projection"``: scatter of two reduced predictors coloured by the response (see
            :func:`sdrstats.plotting.projection.plot_projection`); other kinds go to the
            shared plotting layer (:meth:`sdrstats.Results.plot`).
        **options
            Passed to the plot (``newdata``, ``which``, ``ax``, ``figsize``, ...).

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fig = sdr.spca("sex ~ ht + wt + lbm + bmi", ais, add_identity=1.0).plot()
        """
        if not self.spec.keeps_rows:
            raise self.rows_needed("Plotting")
        if kind == "projection":
            from ..plotting.projection import plot_projection

            return plot_projection(self, **options)
        return super().plot(kind=kind, **options)


def weighted_center(X: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Column means (weighted if ``weights``) and the centred matrix."""
    mean = X.mean(axis=0) if weights is None else weights @ X / weights.sum()
    return mean, X - mean


__all__ = ["ProjectionResults", "weighted_center"]
