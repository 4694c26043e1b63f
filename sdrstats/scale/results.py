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
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", parts, nslices=8, d=2)
        >>> fit.transform(ais.head(2)).shape
        (2, 2)
        """
        if newdata is None:
            raise self._rows_needed("transform() of the training rows")
        return super().transform(newdata, d)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__() if hasattr(super(), "__getstate__") else None
        state = dict(self.__dict__ if state is None else state)
        state.pop("_data_source", None)  # the chunks or Dask DataFrame stay with the caller
        return state

    def bootstrap(
        self,
        B: int = 200,
        d: int | None = None,
        distance: str = "projection",
        random_state: Any = None,
        n_jobs: int = 1,
        progress: bool = True,
        scheme: str = "poisson",
    ) -> Any:
        """Poisson bootstrap of the subspace in one more pass over the chunks or partitions.

        Available for the methods with weighted replicates (SIR, SAVE, DR): every row gets a
        Poisson(1) count per replicate from a counter-based generator keyed by
        ``random_state``, the replicate and the row's position, each chunk or partition adds
        its rows' weighted slice sums for all ``B`` replicates, and the ``B`` fits are
        finished from the merged sums. The result equals ``fit.bootstrap(scheme="poisson")``
        of the same fit in memory, replicate by replicate (see
        :func:`sdrstats.inference.bootstrap`).

        Parameters
        ----------
        B, d, distance, random_state, n_jobs, progress : optional
            As :meth:`sdrstats.Results.bootstrap`; ``n_jobs`` spreads the ``B`` finishing
            eigen-problems (a Dask pass runs where the partitions live).
        scheme : {"poisson"}, default "poisson"
            The only scheme of data that are not in memory: a multinomial resample needs
            ``n`` before the first row is read and random access to the rows.

        Returns
        -------
        BootstrapResult

        Notes
        -----
        The pass holds ``B × h × (1 + p + p(p+1)/2)`` sums per chunk or partition (``h``
        slices): memory ``O(B h p²)`` per worker (21 MB at B = 200, h = 10, p = 50), plus a
        block of rows' features (at most 16 MB) and their counts. The data source must be
        re-readable (a list, a function, a file, a Dask DataFrame); a fit that was pickled or
        loaded no longer holds it.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
        >>> fit = sdr.sir("lbm ~ log(wt) + log(ht)", parts, nslices=8, d=1)
        >>> boot = fit.bootstrap(B=20, random_state=0, progress=False)
        >>> memory = sdr.sir("lbm ~ log(wt) + log(ht)", ais, nslices=8, d=1).bootstrap(
        ...     B=20, random_state=0, progress=False, scheme="poisson")
        >>> bool(np.allclose(boot.distances, memory.distances, atol=1e-9))
        True
        """
        if scheme == "multinomial":
            raise ValueError(
                "The 'scheme' option 'multinomial' is not available for a fit on chunked or "
                "Dask data: drawing n rows with replacement needs n before the first row is "
                "read and random access to the rows. Use scheme='poisson' (the default here), "
                "or load the data with pandas."
            )
        if scheme != "poisson":
            raise ValueError(
                f"The 'scheme' option of bootstrap must be 'poisson' for a fit on chunked or "
                f"Dask data; got {scheme!r}."
            )
        if self.estimator.replicate_kernel(self) is None:
            raise self._rows_needed(f"The bootstrap of {self.method}")
        from ..inference.bootstrap import bootstrap

        return bootstrap(
            self,
            B=B,
            d=d,
            distance=distance,
            random_state=random_state,
            n_jobs=n_jobs,
            progress=progress,
            scheme="poisson",
        )

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
        """The rules that need no rows: the eigenvalue ratio (every other resamples them)."""
        from ..inference.ratio import eigenvalue_ratio

        if self.output.eigenvalues is None:
            return {}
        return {"ratio": lambda **kw: eigenvalue_ratio(self, **kw)}

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
    for ``k = 1..K`` (the same number :func:`sdrstats.results.fitted.ols_r2` computes from rows).

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
    # pseudo-inverses, as the rows' least-squares fit: a constant or collinear predictor
    # (which a method without whitening, SPCA, accepts) leaves the fit and R² defined
    denom = float(cov_xy @ np.linalg.pinv(cov, rcond=1e-12, hermitian=True) @ cov_xy)
    out = np.full(basis.shape[1], np.nan)
    if not denom > 0 or not np.isfinite(denom):
        return out  # the response is uncorrelated with every predictor (or constant)
    for k in range(1, basis.shape[1] + 1):
        B = basis[:, :k]
        proj = B.T @ cov_xy
        inner = np.linalg.pinv(B.T @ cov @ B, rcond=1e-12, hermitian=True)
        out[k - 1] = float(proj @ inner @ proj) / denom
    return out


__all__ = ["ChunkedMixin", "ols_r2_from_moments"]
