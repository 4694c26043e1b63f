"""SIR, SAVE, pHd, directional regression and cumulative slicing.

Each method is one kernel ``M`` on the shared standardise → slice → eigen path of
:mod:`sdrstats.moment._core`, and, where R ``dr`` has one, one asymptotic dimension test.
Numbers follow R ``dr`` 3.0.11 (see METHODS.md §1).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .._base import Estimator, EstimatorOutput
from .._stats import chi2_sf, weighted_chi2_sf
from .._validation import check_choice, check_int
from ..results import DimensionTest, Results, choose_by_pvalues, hypothesis_labels
from ..slicing import default_nslices, make_slices
from ._core import SliceMoments, Standardized, eigen_directions, slice_moments, standardize
from .results import MomentResults


class MomentEstimator(Estimator):
    """Common path of the moment methods (not used directly)."""

    params: ClassVar[dict[str, Any]] = {
        "nslices": None,
        "slice_function": "dr",
        "numdir": 4,
        "d": None,
        "cut_points": None,
    }
    uses_slices: ClassVar[bool] = True
    second_moments: ClassVar[bool] = False
    by_abs: ClassVar[bool] = False
    results_class = MomentResults

    def _check_options(self) -> None:
        o = self.options
        name = self.method
        check_int(o["nslices"], "nslices", name, low=2, allow_none=True)
        check_choice(o["slice_function"], "slice_function", name, ["dr", "arc"])
        check_int(o["numdir"], "numdir", name, low=1)
        check_int(o["d"], "d", name, low=1, allow_none=True)

    def nslices_for(self, p: int) -> int:
        return self.options["nslices"] or default_nslices(p)

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        n, p = X.shape
        if n <= p:
            raise ValueError(
                f"{self.method} needs more observations than predictors; got n = {n} and "
                f"p = {p}. Remove predictors, or use a method for p >= n (lasso_sir, spca)."
            )
        d = self.options["d"]
        if d is not None and d > p:
            raise ValueError(f"The 'd' option of {self.method} must be at most p = {p}; got {d}.")
        if self.uses_slices and not categorical:
            h = self.nslices_for(p)
            if h > n / 2:
                raise ValueError(
                    f"The 'nslices' option of {self.method} must be at most n/2 = {n // 2} so "
                    f"that slices hold at least two cases; got {h}."
                )

    def _slices(self, Y: np.ndarray, p: int):
        categorical = Y.ndim == 1 and Y.dtype.kind in "iu"
        slices = make_slices(Y, self.nslices_for(p), function=self.options["slice_function"],
                             categorical=categorical, cut_points=self.options["cut_points"])
        if slices.nslices < 2:
            raise ValueError(
                f"The response has a single value, so {self.method} finds only one slice; it "
                "needs a response that varies."
            )
        return slices

    def _prepare(self, X: np.ndarray, Y: np.ndarray, weights: np.ndarray | None = None
                 ) -> tuple[Standardized, SliceMoments | None]:
        std = standardize(X, weights)
        if not self.uses_slices:
            return std, None
        slices = self._slices(Y, X.shape[1])
        return std, slice_moments(std, slices, second=self.second_moments)

    def kernel(self, std: Standardized, moments: SliceMoments | None, Y: np.ndarray
               ) -> np.ndarray:
        raise NotImplementedError

    def _fit(self, X: np.ndarray, Y: np.ndarray, *, weights: np.ndarray | None = None,
             random_state: Any = None) -> EstimatorOutput:
        std, moments = self._prepare(X, Y, weights)
        M = self.kernel(std, moments, Y)
        values, vectors, basis = eigen_directions(std, M, by_abs=self.by_abs)
        p = X.shape[1]
        d = self.options["d"] or min(self.options["numdir"], p)
        extras: dict[str, Any] = {"M": M, "raw_vectors": vectors}
        if moments is not None:
            extras["slice_sizes"] = moments.slices.sizes
        return EstimatorOutput(basis=basis, d=d, eigenvalues=values, center=std.mean,
                               extras=extras)

    def _test_rows(self, results: Results, numdir: int | None) -> int:
        numdir = results.options["numdir"] if numdir is None else numdir
        return min(results.p, check_int(numdir, "numdir", self.method, low=1))


def _response_vector(Y: np.ndarray, method: str) -> np.ndarray:
    if Y.ndim == 2 and Y.shape[1] > 1:
        raise ValueError(f"{method} needs a single response column; got {Y.shape[1]}.")
    return Y.reshape(-1).astype(float)


class SIR(MomentEstimator):
    """Sliced inverse regression (Li 1991): ``M = Σ_s f_s z̄_s z̄_sᵀ``.

    Parameters
    ----------
    nslices : int, optional
        Number of slices; default ``max(8, p + 3)`` as in R ``dr``.
    slice_function : {"dr", "arc"}
        Slicing rule (R ``dr.slices`` or Arc's equal-count variant).
    numdir : int
        Directions shown and tested (default 4).
    d : int, optional
        Dimension reported by ``directions`` and ``transform``; default ``numdir`` (capped at p).
    cut_points : sequence of float, optional
        Given slice boundaries for a one-column response (see
        :func:`sdrstats.slicing.make_slices`); overrides ``nslices``. Chunked and Dask fits
        slice by cut points, and equal the in-memory fit given the same ones.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.SIR(nslices=8).fit(np.log(ais[["ssf", "wt", "hg"]]), ais["lbm"])
    >>> fit.slice_sizes
    array([25, 25, 25, 25, 27, 27, 30, 18])
    """

    method = "sir"

    def kernel(self, std, moments, Y):
        m = moments.means
        return m.T @ (m * moments.fractions[:, None])

    def asymptotic_test(self, results: Results, numdir: int | None = None,
                        level: float = 0.05) -> DimensionTest:
        """Li's (1991) χ² test: ``n Σ_{j>m} λ_j ~ χ²((p−m)(h−m−1))``."""
        ev = np.sort(np.asarray(results.output.eigenvalues))
        p, n, h = results.p, results.n, len(results.slice_sizes)
        rows = self._test_rows(results, numdir)
        stat = np.array([n * ev[: p - m].sum() for m in range(rows)])
        df = np.array([(p - m) * (h - m - 1) for m in range(rows)])
        pv = np.array([chi2_sf(s, k) for s, k in zip(stat, df)])
        table = pd.DataFrame({"stat": stat, "df": df, "p_value": pv},
                             index=hypothesis_labels(rows))
        return DimensionTest(table, choose_by_pvalues(pv, level), "asymptotic", self.method,
                             level=level, title="Large-sample Marginal Dimension Tests",
                             display_names={"stat": "Stat", "p_value": "p.value"})


class SAVE(MomentEstimator):
    """Sliced average variance estimation (Cook & Weisberg 1991): ``M = Σ_s f_s (I − V_s)²``.

    ``V_s`` is the within-slice covariance of ``z`` with divisor ``n_s``.

    Parameters
    ----------
    nslices : int, optional
        Number of slices; default ``max(8, p + 3)`` as in R ``dr``.
    slice_function : {"dr", "arc"}, default "dr"
        Slicing rule, as :class:`SIR`.
    numdir : int, default 4
        Directions shown and tested.
    d : int, optional
        Dimension reported by ``directions`` and ``transform``; default ``numdir`` (capped at p).
    cut_points : sequence of float, optional
        Given slice boundaries; overrides ``nslices``.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.SAVE(nslices=8).fit(np.log(ais[["ssf", "wt", "hg"]]), ais["lbm"])
    >>> fit.eigenvalues.round(3).tolist()
    [0.899, 0.207, 0.075]
    """

    method = "save"
    second_moments = True

    @staticmethod
    def _within(moments: SliceMoments) -> np.ndarray:
        mean_outer = moments.means[:, :, None] * moments.means[:, None, :]
        return moments.second - mean_outer

    def kernel(self, std, moments, Y):
        p = moments.means.shape[1]
        A = np.eye(p)[None] - self._within(moments)
        return np.einsum("s,sij,sjk->ik", moments.fractions, A, A)

    def asymptotic_test(self, results: Results, numdir: int | None = None,
                        level: float = 0.05) -> DimensionTest:
        """Shao, Cook & Weisberg (2007): normal-theory χ² and general (Bentler–Xie) p-values."""
        std, moments = results._prepared()
        theta_all = results.output.extras["raw_vectors"]
        A = np.eye(results.p)[None] - self._within(moments)
        f, n, p, h = moments.fractions, results.n, results.p, moments.slices.nslices
        rows = self._test_rows(results, numdir)
        Z = std.Z
        stat, df, pv_normal, pv_general = [], [], [], []
        for m in range(rows):
            theta = theta_all[:, m:]
            proj = np.einsum("ai,sab,bj->sij", theta, A, theta)
            t = n / 2 * float(np.sum(f[:, None, None] * proj**2))
            k = p - m
            dfm = (h - 1) * k * (k + 1) // 2
            u = Z @ theta
            outer = (u[:, :, None] * u[:, None, :]).reshape(len(u), -1)
            sigma = np.atleast_2d(np.cov(outer, rowvar=False)) / 2
            tr, tr2 = np.trace(sigma), float(np.sum(sigma**2))
            stat.append(t)
            df.append(dfm)
            pv_normal.append(chi2_sf(t, dfm))
            pv_general.append(chi2_sf(t * tr / tr2, (h - 1) * tr**2 / tr2))
        table = pd.DataFrame({"stat": stat, "df": df, "p_value": pv_normal,
                              "p_value_general": pv_general}, index=hypothesis_labels(rows))
        return DimensionTest(
            table, choose_by_pvalues(table["p_value"].to_numpy(), level), "asymptotic",
            self.method, level=level, title="Large-sample Marginal Dimension Tests",
            display_names={"stat": "Stat", "df": "df(Nor)", "p_value": "p.value(Nor)",
                           "p_value_general": "p.value(Gen)"},
        )


class PHD(MomentEstimator):
    """Principal Hessian directions (Li 1992; Cook 1998): ``M = (1/n) Σ r_i z_i z_iᵀ``.

    Parameters
    ----------
    residuals : bool
        ``True`` (default, R's ``phdres``): ``r`` are the OLS residuals of y on X;
        ``False`` (``phdy``): ``r = y − ȳ``.
    numdir, d : int
        As :class:`SIR`. Eigenvalues keep their sign and are ordered by decreasing ``|λ|``.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.PHD().fit(np.log(ais[["ssf", "wt", "hg"]]), ais["lbm"])
    >>> fit.eigenvalues.round(3).tolist()
    [2.892, -1.347, 0.221]
    """

    method = "phd"
    params: ClassVar[dict[str, Any]] = {"residuals": True, "numdir": 4, "d": None}
    uses_slices = False
    by_abs = True
    response = "continuous"

    def _check_options(self) -> None:
        check_int(self.options["numdir"], "numdir", self.method, low=1)
        check_int(self.options["d"], "d", self.method, low=1, allow_none=True)
        if not isinstance(self.options["residuals"], bool):
            raise TypeError("The 'residuals' option of phd must be True (phdres) or False (phdy).")

    @property
    def label(self) -> str:
        return "phdres" if self.options["residuals"] else "phdy"

    def _residual(self, std: Standardized, Y: np.ndarray) -> np.ndarray:
        y = _response_vector(Y, "phd")
        w = std.weights
        ybar = y.mean() if w is None else w @ y / std.n
        r = y - ybar
        if self.options["residuals"]:
            Z = std.Z
            coef = (Z.T @ (r if w is None else r * w)) / std.n  # ZᵀWZ = n I
            r = r - Z @ coef
        return r

    def kernel(self, std, moments, Y):
        Z, r = std.Z, self._residual(std, Y)
        rw = r if std.weights is None else r * std.weights
        return Z.T @ (Z * rw[:, None]) / std.n

    def asymptotic_test(self, results: Results, numdir: int | None = None,
                        level: float = 0.05) -> DimensionTest:
        """Li's normal-theory test; for phdres also Cook's general and independence tests."""
        std, _ = results._prepared()
        r = self._residual(std, results.spec.Y)
        ev = np.asarray(results.output.eigenvalues)
        p, n = results.p, results.n
        var_r = r.var(ddof=1)
        rows = self._test_rows(results, numdir)
        abs_sorted = np.sort(np.abs(ev))
        stat = np.array([n * np.sum(abs_sorted[: p - m] ** 2) / (2 * var_r) for m in range(rows)])
        df = np.array([(p - m) * (p - m + 1) // 2 for m in range(rows)])
        pv = np.array([chi2_sf(s, k) for s, k in zip(stat, df)])
        columns: dict[str, Any] = {"stat": stat, "df": df, "p_value": pv}
        names = {"stat": "Stat", "p_value": "Normal theory"}
        if self.options["residuals"]:
            v = std.Z @ results.output.extras["raw_vectors"]
            pairs = [(i, j) for i in range(p) for j in range(i, p)]
            first = np.array([i for i, _ in pairs])

            def features(resid: np.ndarray) -> np.ndarray:
                cols = [resid * (v[:, j] ** 2 - 1) if i == j else resid * np.sqrt(2) * v[:, i] * v[:, j]
                        for i, j in pairs]
                return np.column_stack(cols)

            gamma = np.atleast_2d(np.cov(features(r - r.mean()), rowvar=False, ddof=0))
            general = []
            for m in range(rows):
                keep = first >= m
                weights = np.linalg.eigvalsh(gamma[np.ix_(keep, keep)]) / (2 * var_r)
                general.append(weighted_chi2_sf(stat[m], weights))
            indep_gamma = np.atleast_2d(np.cov(features(np.ones(n)), rowvar=False, ddof=0))
            indep = [weighted_chi2_sf(stat[0], np.linalg.eigvalsh(indep_gamma) / 2)]
            columns["p_value_indep"] = indep + [np.nan] * (rows - 1)
            columns["p_value_general"] = general
            names.update({"p_value_indep": "Indep. test", "p_value_general": "General theory"})
        table = pd.DataFrame(columns, index=hypothesis_labels(rows))
        return DimensionTest(table, choose_by_pvalues(pv, level), "asymptotic", self.label,
                             level=level, title="Large-sample Marginal Dimension Tests",
                             display_names=names)


class DR(MomentEstimator):
    """Directional regression (Li & Wang 2007).

    ``M = 2 Σ f_s E_s[zzᵀ]² + 2 (Σ f_s z̄_s z̄_sᵀ)² + 2 (Σ f_s z̄_sᵀ z̄_s)(Σ f_s z̄_s z̄_sᵀ) − 2I``.

    Parameters
    ----------
    nslices : int, optional
        Number of slices; default ``max(8, p + 3)`` as in R ``dr``.
    slice_function : {"dr", "arc"}, default "dr"
        Slicing rule, as :class:`SIR`.
    numdir : int, default 4
        Directions shown and tested.
    d : int, optional
        Dimension reported by ``directions`` and ``transform``; default ``numdir`` (capped at p).
    cut_points : sequence of float, optional
        Given slice boundaries; overrides ``nslices``.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.DR(nslices=8).fit(np.log(ais[["ssf", "wt", "hg"]]), ais["lbm"])
    >>> fit.eigenvalues.round(3).tolist()
    [6.756, 1.23, 0.275]
    """

    method = "dr"
    second_moments = True

    def kernel(self, std, moments, Y):
        f, means, second = moments.fractions, moments.means, moments.second
        p = means.shape[1]
        sir = means.T @ (means * f[:, None])
        sq = np.einsum("s,sij,sjk->ik", f, second, second)
        return 2 * sq + 2 * sir @ sir + 2 * float(f @ np.sum(means**2, axis=1)) * sir - 2 * np.eye(p)


class CUME(MomentEstimator):
    """Cumulative slicing estimation (Zhu, Zhu & Feng 2010).

    ``M = (1/n) Σ_i m(y_i) m(y_i)ᵀ`` with ``m(t) = (1/n) Σ_j z_j 1{y_j ≤ t}``; no slices to
    choose. Needs one continuous response.

    Parameters
    ----------
    numdir : int, default 4
        Directions shown.
    d : int, optional
        Dimension reported by ``directions`` and ``transform``; default ``numdir`` (capped at p).

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.CUME().fit(np.log(ais[["ssf", "wt", "hg"]]), ais["lbm"])
    >>> fit.eigenvalues.round(3).tolist()
    [0.092, 0.002, 0.0]
    """

    method = "cume"
    params: ClassVar[dict[str, Any]] = {"numdir": 4, "d": None}
    uses_slices = False
    response = "continuous"

    def _check_options(self) -> None:
        check_int(self.options["numdir"], "numdir", self.method, low=1)
        check_int(self.options["d"], "d", self.method, low=1, allow_none=True)

    def kernel(self, std, moments, Y):
        y = _response_vector(Y, "cume")
        if np.unique(y).size < 2:
            raise ValueError("The response has a single value; cume needs a response that varies.")
        Z = std.Z
        w = np.ones(len(y)) if std.weights is None else std.weights
        values, inverse = np.unique(y, return_inverse=True)
        grouped = np.zeros((values.size, Z.shape[1]))
        np.add.at(grouped, inverse, Z * w[:, None])
        cumulative = np.cumsum(grouped, axis=0) / std.n  # m(t) at each distinct value
        group_w = np.bincount(inverse, weights=w, minlength=values.size)
        return cumulative.T @ (cumulative * group_w[:, None]) / std.n


__all__ = ["SIR", "SAVE", "PHD", "DR", "CUME", "MomentEstimator", "MomentResults"]
