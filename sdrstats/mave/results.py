"""Results of the MAVE family: one basis per dimension, the CV table, the fitting details."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..base.tables import Block, dir_labels
from ..results.fitted import Results

VARIANT_NAMES = {
    "csmave": "csMAVE (MAVE for the central subspace; Xia 2007)",
    "csopg": "csOPG (outer product of gradients for the central subspace; Xia 2007)",
    "meanmave": "meanMAVE (MAVE, central mean subspace; Xia et al. 2002)",
    "meanopg": "meanOPG (outer product of gradients, central mean subspace; Xia et al. 2002)",
    "ksir": "KSIR (kernel sliced inverse regression)",
}


class MaveResults(Results):
    """A fitted MAVE/OPG/KSIR model.

    The ``k``-dimensional solutions of these methods are iterated separately and are not
    nested, so every basis for ``k = 1..d_max`` is kept: ``directions_for(k)`` returns the
    ``k``-dimensional solution (not the first ``k`` columns of another one), and
    ``transform(d=k)`` uses it.

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; the method's formula function builds it.

    See Also
    --------
    mave : The method that returns it.

    References
    ----------
    :cite:t:`xia2002`; :cite:t:`xia2007`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> from sdrstats.simulate import mave_classic
    >>> df, truth = mave_classic(150, random_state=0)
    >>> fit = sdr.mave("y ~ .", df, variant="meanopg", d_max=2)
    >>> fit.directions_for(1).shape, fit.directions_for(2).shape, fit.cv_table.index.tolist()
    ((5, 1), (5, 2), [0, 1, 2])
    """

    @property
    def variant(self) -> str:
        """The method option: ``csmave``, ``csopg``, ``meanmave``, ``meanopg`` or ``ksir``."""
        return self.output.extras["variant"]

    @property
    def d_max(self) -> int:
        """Largest dimension fitted (``directions_for(k)`` for ``k = 1..d_max``)."""
        return int(self.output.extras["d_max"])

    def directions_for(self, k: int) -> pd.DataFrame:
        """Basis of the ``k``-dimensional solution (predictors × Dir1..Dirk).

        MAVE iterates each dimension separately, so these are not the first ``k`` columns of
        a larger solution.

        Parameters
        ----------
        k : int
            Dimension, from 1 to ``d_max``.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.mave("lbm ~ log(ssf) + log(wt) + log(ht)", ais, variant="meanopg", d_max=2)
        >>> fit.directions_for(2).round(2)
                  Dir1  Dir2
        log(ssf) -0.13  0.77
        log(wt)   0.99  0.09
        log(ht)   0.04  0.64
        """
        bases = self.output.extras["bases"]
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k not in bases:
            raise ValueError(
                f"k must be an integer between 1 and d_max = {self.d_max}; got {k!r}. "
                "Refit with a larger 'd_max' for more dimensions."
            )
        return pd.DataFrame(bases[k], index=self.x_names, columns=dir_labels(int(k)))

    @property
    def all_directions(self) -> pd.DataFrame:
        """The ``d_max``-dimensional solution."""
        return self.directions_for(self.d_max)

    @property
    def cv_table(self) -> pd.DataFrame:
        """CV value for ``d = 0..d_max`` (R ``mave.dim``'s ``cv0`` and ``cv``)."""
        return self.estimator.cv_table_of(self.output).copy()

    @property
    def screened_out(self) -> list[str]:
        """Predictors removed by screening (zero coefficients in every direction)."""
        kept = set(int(i) for i in self.output.extras["kept"])
        return [name for i, name in enumerate(self.x_names) if i not in kept]

    def _method_line(self) -> str:
        ex = self.output.extras
        lines = [f"{VARIANT_NAMES[self.variant]}, n = {self.n}, p = {self.p}."]
        if self.screened_out:
            lines.append(
                f"Screening (distance correlation) kept {len(ex['kept'])} of {self.p} predictors."
            )
        if ex["iterations"]:
            lines.append(
                "Gaussian kernel on the reduced whitened predictors; dimension reduced step by "
                "step from the number of predictors to 1 (R MAVE)."
            )
        if ex["target_kind"] == "y-indicators":
            lines.append(
                f"Response: indicators at {ex['y_points']} quantiles, {ex['components']} "
                "principal components (99% of their variance)."
            )
        if ex["y_bandwidth"] is not None:
            where = f" at {ex['y_points']} quantiles" if ex["target_kind"] == "y-kernel" else ""
            lines.append(
                f"Response kernel bandwidth {ex['y_bandwidth']:.4g}{where} (standardised response)."
            )
        return "\n".join(lines)

    def _refinement_table(self) -> pd.DataFrame | None:
        ex = self.output.extras
        if not ex["iterations"]:
            return None
        dims = sorted(ex["iterations"])
        table = pd.DataFrame(
            {
                "bandwidth": [float(ex["bandwidths"][k]) for k in dims],
                "iterations": [int(ex["iterations"][k]) for k in dims],
                "last change": [float(ex["changes"][k]) for k in dims],
            },
            index=pd.Index(dims, name="d"),
        )
        if ex["tol"] is not None:
            table["converged"] = ["yes" if ex["converged"][k] else "no" for k in dims]
        return table

    def _summary_blocks(self) -> list[Block]:
        blocks = [Block("Call", text=self.call), Block("Method", text=self._method_line())]
        refinement = self._refinement_table()
        if refinement is not None:
            blocks.append(Block("Iterations by dimension", table=refinement))
        test = self.test_dimension("cv")
        blocks.append(Block(test.title, table=test.display_table()))
        blocks.append(Block("", text=test._footer()))
        blocks.append(
            Block(f"Estimated basis vectors, d = {self.d}", table=self.directions_for(self.d))
        )
        ev = self.output.eigenvalues
        if ev is not None:
            label = "Eigenvalues" if self.variant == "ksir" else "Gradient variance (eigenvalues)"
            blocks.append(
                Block(
                    "",
                    table=pd.DataFrame({label: np.asarray(ev, float)}, index=dir_labels(len(ev))).T,
                )
            )
        return blocks


__all__ = ["MaveResults", "VARIANT_NAMES"]
