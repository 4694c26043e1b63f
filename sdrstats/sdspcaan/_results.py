"""Results of the SDSPCAAN family: the projection, the learned graph and the solver's trace."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..base.tables import Block, dir_labels
from ..results.fitted import Results


class SDSPCAANResults(Results):
    """A fitted member of the SDSPCAAN family.

    Adds to the common contract the solver's outputs: :attr:`projection` (the raw ``W`` on the
    z-scored predictors, whose columns ``transform`` uses), :attr:`similarity` (the learned
    sparse graph ``S``), :attr:`objective_trace`, :attr:`n_iter`, :attr:`converged`,
    :attr:`lam` (final λ) and :attr:`timings` (seconds per step).

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; the method's formula function builds it.

    See Also
    --------
    sdspcaan, sdspca, pca : Methods that return it.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.pca("sex ~ ht + wt + lbm", ais, d=1)
    >>> type(fit).__name__, fit.directions.shape
    ('SDSPCAANResults', (3, 1))
    """

    @property
    def k(self) -> int:
        """The reduced dimension (this family's name for ``d``)."""
        return self.d

    @property
    def projection(self) -> pd.DataFrame:
        """``W`` (p x k) acting on the z-scored predictors: ``transform`` is ``z(x) W``."""
        W = self.extras["projection"]
        return pd.DataFrame(W, index=self.x_names, columns=dir_labels(W.shape[1]))

    @property
    def similarity(self) -> sp.csr_matrix | None:
        """The learned similarity graph (n x n, sparse, symmetric); None without a graph."""
        return self.extras.get("similarity")

    @property
    def objective_trace(self) -> np.ndarray:
        """Objective at the start and after every iteration.

        With ``iteration="fixed_weights"`` (and for SPCAN and PCAN) one objective, after every
        accepted iteration, non-increasing; with the authors' iteration the objective as their
        code evaluates it, each value at that iteration's weights (it need not fall).
        """
        return np.asarray(self.extras.get("objective_trace", []), dtype=float)

    @property
    def tuning(self) -> pd.DataFrame | None:
        """Every weight combination ``tune`` tried, with its held-out BCA (mean and sd over
        the held-out folds); None when the weights were given."""
        tuning = self.extras.get("tuning")
        if tuning is None:
            return None
        table = pd.DataFrame(tuning["grid"], columns=tuning["names"])
        table["bca"] = tuning["bca"]
        table["bca_sd"] = tuning["bca_sd"]
        return table

    @property
    def n_iter(self) -> int:
        return int(self.extras.get("n_iter", 0))

    @property
    def converged(self) -> bool:
        return bool(self.extras.get("converged", True))

    @property
    def lam(self) -> float | None:
        return self.extras.get("lam")

    @property
    def timings(self) -> dict[str, float]:
        return dict(self.extras.get("timings", {}))

    def _numdir(self) -> int:
        return max(1, min(self.d, 4))

    @property
    def basis_title(self) -> str:  # type: ignore[override]
        """The directions' heading: principal components for PCA, a projection otherwise
        (these methods estimate a projection for classification, not a central subspace)."""
        if self.method == "pca":
            return "Principal Component Directions"
        return "Estimated Projection Directions"

    def _reduced_name(self) -> str:
        return "components" if self.method == "pca" else "projection"

    def _eigen_label(self) -> str:
        return "Component variances" if self.method == "pca" else "Q-step criterion values"

    def _eigen_note(self) -> str | None:
        if self.method == "pca":
            return (
                "Component variances: eigenvalues of the predictors' correlation matrix, the "
                "variance of each component of the z-scored predictors."
            )
        return (
            "Q-step criterion values: the smallest eigenvalues of the last Q-step's matrix "
            "(Shi et al. 2020, eq. 24: minus the variance and class terms, plus the sparsity "
            "and graph penalties), whose eigenvectors give the projection. They are not "
            "variances: the more negative, the more the direction holds variance and class "
            "separation."
        )

    def _method_line(self) -> str:
        classes = len(self.spec.y_levels) if self.spec.y_levels is not None else "-"
        return f"{self.method}, n = {self.n}, p = {self.p}, classes = {classes}."

    def _summary_blocks(self) -> list[Block]:
        blocks = super()._summary_blocks()
        trace = self.objective_trace
        if trace.size:
            lines = [
                f"Iterations: {self.n_iter}; converged: {self.converged}; "
                f"objective {trace[0]:.6g} -> {trace[-1]:.6g}."
            ]
            scales = self.extras.get("scales", {})
            shown = ", ".join(f"{name}' = {value:.4g}" for name, value in scales.items() if value)
            if shown and self.extras.get("iteration") == "authors":
                lines.append(
                    "Iteration: the authors' (weights rescaled by their traces every "
                    f"iteration); at the last one: {shown}."
                )
            elif shown:
                lines.append(f"Trace-scaled weights (fixed at the start): {shown}.")
            if self.similarity is not None:
                lines.append(
                    f"Similarity graph: {self.similarity.nnz} non-zeros; "
                    f"final lambda = {self.lam:.4g}."
                )
            blocks.append(Block("Alternating solver", text="\n".join(lines)))
        tuning = self.extras.get("tuning")
        if tuning is not None:
            chosen = ", ".join(f"{k} = {v:g}" for k, v in tuning["chosen"].items())
            best = int(np.argmax(tuning["bca"]))
            text = (
                f"Weights chosen by 1-NN balanced accuracy on a {tuning['how']}: {chosen} "
                f"(x their trace scales); held-out BCA {tuning['bca'][best]:.3f}"
                + (
                    f" (sd {tuning['bca_sd'][best]:.3f} over folds)"
                    if tuning["bca_sd"].any()
                    else ""
                )
                + f"; {len(tuning['bca'])} combinations, {tuning['n_fits']} fits, "
                f"{100 * tuning['converged']:.0f}% of them converged."
            )
            blocks.append(Block("Tuning", text=text))
        return blocks

    def plot(self, kind: str = "projection", **options: Any) -> Any:
        """Plots; by default the rows on Dir1 x Dir2 coloured by class.

        Parameters
        ----------
        kind : str, default "projection"
            ``"projection"``: the rows on Dir1 x Dir2 coloured by class (see
            :func:`sdrstats.plotting.projection.plot_projection` for the options);
            ``"objective"``: the objective at each iteration of the alternating solver; other
            kinds as :meth:`Results.plot`.
        **options
            Passed to the plot (``newdata``, ``which``, ``ax``, ``figsize``, ...).

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sdspcaan("sex ~ ht + wt + lbm + rcc + hg + ssf", ais, d=2)
        >>> fig = fit.plot("objective")
        """
        if kind == "projection":
            from ..plotting.projection import plot_projection

            return plot_projection(self, **options)
        if kind == "objective":
            from ..plotting.traces import plot_trace

            return plot_trace(
                np.arange(self.objective_trace.size),
                {"objective": self.objective_trace},
                xlabel="iteration",
                ylabel="objective",
                title=f"{self.estimator.label}: objective",
                **options,
            )
        return super().plot(kind=kind, **options)


__all__ = ["SDSPCAANResults"]
