"""Results of fits from accumulated statistics: what needs only the statistics works as for an
in-memory fit; what needs the rows raises an error saying to load the data in memory.

:class:`ChunkedMixin` goes before a family's results class (the moment family's
``ChunkedResults``, SPCA's ``ChunkedSPCAResults``); this module knows no family."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..design.formula import ModelSpec


class ChunkedMixin:
    """Overrides shared by the chunked results classes (mixed in before the method's class).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
    >>> isinstance(sdr.sir("lbm ~ log(wt) + log(ht)", parts, nslices=8), ChunkedMixin)
    True
    """

    def __init__(
        self,
        estimator: Any,
        spec: ModelSpec,
        output: Any,
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


#: The mixin under its earlier name.
_Chunked = ChunkedMixin


def ols_r2_from_moments(cov: np.ndarray, cov_xy: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """R²(OLS|dr) from moments: squared correlation of the OLS fit with ``span(X B_k)``.

    ``R²_k = cᵀB_k (B_kᵀ Σ B_k)⁻¹ B_kᵀ c / (cᵀ Σ⁻¹ c)`` with ``Σ = cov(x)``, ``c = cov(x, y)``,
    for ``k = 1..K`` (the same number :func:`sdrstats.core.results.ols_r2` computes from rows).

    Parameters
    ----------
    cov : ndarray of shape (p, p)
        Covariance of the predictors.
    cov_xy : ndarray of shape (p,)
        Covariance of the predictors with the response.
    basis : ndarray of shape (p, K)
        Directions.

    Returns
    -------
    ndarray of shape (K,)

    Examples
    --------
    >>> import numpy as np
    >>> ols_r2_from_moments(np.eye(2), np.array([1.0, 0.0]), np.eye(2)).tolist()
    [1.0, 1.0]
    """
    denom = float(cov_xy @ np.linalg.solve(cov, cov_xy))
    out = np.empty(basis.shape[1])
    for k in range(1, basis.shape[1] + 1):
        B = basis[:, :k]
        proj = B.T @ cov_xy
        out[k - 1] = float(proj @ np.linalg.solve(B.T @ cov @ B, proj)) / denom
    return out


__all__ = ["ChunkedMixin", "ols_r2_from_moments"]
