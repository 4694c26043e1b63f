"""Results of fits from accumulated statistics: what needs only the statistics works as for an
in-memory fit; what needs the rows raises an error saying to load the data in memory."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._base import EstimatorOutput
from ..formula import ModelSpec
from ..moment.methods import SIR, MomentResults
from ..spca.spca import SPCAResults
from ..summary import Block
from .stats import ols_r2_from_moments


class _Chunked:
    """Overrides shared by the chunked results classes (mixed in before the method's class)."""

    def __init__(
        self,
        estimator: Any,
        spec: ModelSpec,
        output: EstimatorOutput,
        *,
        call: str,
        n_rows: int,
        prepared: Any,
        r2_moments: Any,
    ) -> None:
        super().__init__(estimator, spec, output, call=call)
        self.n_rows = n_rows
        self._chunk_prepared = prepared
        self._r2_moments = r2_moments

    @property
    def n(self) -> int:
        return self.n_rows

    def _rows_needed(self, what: str) -> ValueError:
        return ValueError(
            f"{what} needs the rows, which a fit on chunked or Dask data does not keep; load "
            "the data (or a sample) with pandas and fit in memory for this."
        )

    def transform(self, newdata: Any = None, d: int | None = None) -> pd.DataFrame:
        """Reduced predictors of ``newdata``; the training rows were not kept.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the columns the formula uses (required).
        d : int, optional
            Number of directions; default the fit's ``d``.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", parts, nslices=8)
        >>> fit.transform(ais.head(2)).shape
        (2, 2)
        """
        if newdata is None:
            raise self._rows_needed("transform() of the training rows")
        return super().transform(newdata, d)

    def bootstrap(self, *args: Any, **kwargs: Any) -> Any:
        """Not available: resampling needs the rows, which a chunked fit does not keep.

        Parameters
        ----------
        *args, **kwargs
            As :meth:`sdrstats.Results.bootstrap`.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
        >>> sdr.sir("lbm ~ log(wt) + log(ht)", parts, nslices=8).bootstrap(B=10)
        Traceback (most recent call last):
        ...
        ValueError: The bootstrap needs the rows, which a fit on chunked or Dask data ...
        """
        raise self._rows_needed("The bootstrap")

    def plot(self, *args: Any, **kwargs: Any) -> Any:
        """Not available: the plots draw the rows, which a chunked fit does not keep.

        Parameters
        ----------
        *args, **kwargs
            As :meth:`sdrstats.Results.plot`.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
        >>> sdr.sir("lbm ~ log(wt) + log(ht)", parts, nslices=8).plot()
        Traceback (most recent call last):
        ...
        ValueError: Plotting needs the rows, which a fit on chunked or Dask data does not keep; ...
        """
        raise self._rows_needed("Plotting")

    def _dimension_rules(self) -> dict[str, Any]:
        return {}

    def _method_line(self) -> str:
        return super()._method_line()[:-1] + f", from {self.output.extras['n_chunks']} chunks."

    def _eigen_table(self, k: int) -> pd.DataFrame | None:
        ev = np.asarray(self.output.eigenvalues[:k], dtype=float)
        rows = {getattr(self, "eigen_label", "Eigenvalues"): ev}
        if self._r2_moments is not None:
            cov, cov_xy = self._r2_moments
            rows["R^2(OLS|dr)"] = ols_r2_from_moments(cov, cov_xy, self.output.basis[:, :k])
        return pd.DataFrame(rows, index=self.directions_for(k).columns).T


class ChunkedResults(_Chunked, MomentResults):
    """A moment fit computed from accumulated statistics; the rows are not kept.

    Everything that needs only the statistics works as for an in-memory fit (directions,
    eigenvalues, summary, ``transform(newdata)``, SIR's asymptotic test, pickling);
    what needs the rows (``transform()`` of the training rows, bootstrap, permutation tests,
    SAVE/pHd's tests) raises an error saying to load the data in memory.

    Parameters
    ----------
    estimator, spec, output, call
        As :class:`sdrstats.Results`; a formula function given chunked data builds it.
    n_rows : int
        Rows used.
    prepared, r2_moments
        Accumulated statistics the predictor tests and the summary's R² need.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
    >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", parts, nslices=8)
    >>> type(fit).__name__, fit.n
    ('ChunkedResults', 202)
    """

    def _dimension_rules(self) -> dict[str, Any]:
        if isinstance(self.estimator, SIR):
            return {"asymptotic": lambda **kw: self.estimator.asymptotic_test(self, **kw)}
        return {}

    def _prepared(self) -> Any:
        return self._chunk_prepared

    def _summary_blocks(self) -> list[Block]:
        k = self._numdir()
        blocks = [Block("Call", text=self.call), Block("Method", text=self._method_line())]
        if self.slice_sizes is not None:
            blocks.append(Block("Slice Sizes", text=" ".join(map(str, self.slice_sizes)) + " "))
        blocks.append(
            Block("Estimated Basis Vectors for Central Subspace", table=self.directions_for(k))
        )
        blocks.append(Block("", table=self._eigen_table(k)))
        if "asymptotic" in self._dimension_rules():
            test = self.test_dimension("asymptotic")
            blocks.append(Block(test.title, table=test.display_table()))
        return blocks


class ChunkedSPCAResults(_Chunked, SPCAResults):
    """A supervised-PCA fit (linear or class response kernel) from accumulated statistics.

    Parameters
    ----------
    estimator, spec, output, call
        As :class:`sdrstats.Results`; ``sdr.spca`` given chunked data builds it.
    n_rows, prepared, r2_moments
        As :class:`ChunkedResults`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
    >>> type(sdr.spca("sex ~ ht + wt + lbm", parts, d=1)).__name__
    'ChunkedSPCAResults'
    """


__all__ = ["ChunkedResults", "ChunkedSPCAResults"]
