"""Principal Hessian directions (Li 1992; Cook 1998), with R ``dr``'s three tests.

pHd's passes over the rows, the same in memory (one chunk) and on chunks or Dask partitions:

1. the moments of the predictors and the response (with R's case weights, their weighted
   sums, :class:`~.weights.CaseWeightedStatistics`), which give the whitening and the OLS fit
   of the residuals (``phdres``);
2. ``Σ r ω (x − x̄)(x − x̄)ᵀ`` (``ω`` R's case weight or a frequency weight, else 1; the rows
   ``√w x`` under case weights), ``Σ r``, ``Σ r²`` and ``Σ √ω r``: the kernel ``M`` is this
   p × p sum whitened, and the residuals' mean and variance give Li's normal-theory test;
3. for ``phdres``'s general and independence tests only, once the directions are known: the
   weighted mean and covariance of the per-row products ``q = (r̃ v_i v_j)_{i<=j}`` with ``r̃``
   itself, and of ``(v_i v_j)_{i<=j}`` (``v`` the whitened predictors on the eigenvectors, ``r̃``
   the centred residual). Cook's general test uses the covariance of ``e_ij = r̃ (v_j² − 1)``,
   ``r̃ √2 v_i v_j``, and the independence test that of the same products with ``r̃ = 1``;
   both are linear maps of these covariances (with case weights, R rescales ``v`` to length
   ``√n``, also a linear map, by the column norms accumulated in the same pass). In memory the
   pass is made when a test is asked for; on chunks it is made with the fit, for ``p <=
   MAX_PAIR_P`` (above it, only the normal-theory test).

R's ``phdq`` (the quadratic fit in the whitened predictors) needs the rows in memory.

References
----------
Li, K.-C. (1992). On principal Hessian directions for data visualization and dimension
reduction: another application of Stein's lemma. JASA 87, 1025-1039.

Cook, R. D. (1998). Principal Hessian directions revisited. JASA 93, 84-94.

Weisberg, S. (2002). Dimension reduction regression in R. Journal of Statistical Software
7(1).
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import scipy.linalg

from ..base.validation import Interval, Options
from ..base.warnings import SDRWarning
from ..design.weights import ZERO_WEIGHT
from ..fitting.estimator import Capabilities, EstimatorOutput
from ..results.fitted import DimensionTest, Results, choose_by_pvalues, hypothesis_labels
from ..stats.chi2 import chi2_sf, weighted_chi2_sf
from ..stats.grouped import BLOCK_ROWS, RAW_SUM_RATIO, signed_crossprod
from . import statistics
from ._core import Standardized
from .estimator import MomentEstimator, response_vector
from .statistics import (
    MomentStatistics,
    SliceRule,
    check_rows,
    output_from_kernel,
    pairs_accumulated,
    rowless_extras,
)
from .weights import CaseWeightedStatistics


class PhdRows:
    """Per-row predictors in the whitening's frame and residuals ``r`` of a pHd fit, from the
    first pass's moments (picklable, so Dask workers compute them alike).

    Unweighted: ``x``, ``r = y − ȳ`` less ``z·b`` (``phdres``), ``ω`` the frequency weights
    if any. With R's case weights ``w = c w⁰``: ``√w x``, ``r = y − ȳ`` (``phdy``) or
    ``√w (y − ȳ) − z·b`` (``phdres``), ``ω = w``. ``z = (row − mean) W`` whitens either.
    """

    def __init__(
        self,
        std: Standardized,
        y_mean: float,
        coef: np.ndarray | None,
        rescale: float | None = None,
    ) -> None:
        self.mean, self.scale, self.chol = std.mean, std.scale, std.chol
        # np.linalg.inv of the p x p factor, not scipy's triangular solver: the same to
        # rounding, without waking scipy's LAPACK threads for a tiny problem
        self.whitening = np.linalg.inv(std.chol).T / std.scale[:, None]
        #: nearly collinear predictors: whiten the rows, not their cross-product
        self.whiten_rows = bool(std.ill_conditioned)
        self.y_mean, self.coef, self.rescale = y_mean, coef, rescale
        self.slope = None if coef is None else self.whitening @ coef  # z·b = (row − mean)·slope
        #: the fitted values from the raw rows keep ~13 digits (|mean| / sd small)
        self.raw = bool(np.max(np.abs(std.mean) / std.scale) <= RAW_SUM_RATIO)

    def whiten(self, rows: np.ndarray) -> np.ndarray:
        """``z`` of rows in the whitening's frame."""
        if self.whiten_rows:
            scaled = (rows - self.mean) / self.scale
            return scipy.linalg.solve_triangular(self.chol, scaled.T, lower=True).T
        return (rows - self.mean) @ self.whitening

    def __call__(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> tuple:
        """Rows kept, their rows in the whitening's frame, ``r``, ``√ω`` and ``ω`` (the last
        two None without weights; ``√ω`` None for frequency weights)."""
        y = np.asarray(y, dtype=float).reshape(-1)
        sw = None
        omega = w
        rows = X
        if self.rescale is not None:
            keep = w > ZERO_WEIGHT
            if not keep.all():
                X, y = X[keep], y[keep]
            omega = self.rescale * w[keep]
            sw = np.sqrt(omega)
            rows = X * sw[:, None]
        r = y - self.y_mean
        if self.slope is not None:
            if self.whiten_rows:
                fitted = self.whiten(rows) @ self.coef
            elif self.raw:  # no n x p temporary: the product of the rows, shifted after
                fitted = rows @ self.slope - float(self.mean @ self.slope)
            else:
                fitted = (rows - self.mean) @ self.slope
            r = (r if sw is None else sw * r) - fitted
        return X, rows, r, sw, omega


class PhdResiduals:
    """The second pass: ``Σ r ω (row − mean)(row − mean)ᵀ``, ``Σ r``, ``Σ r²``, ``Σ √ω r``."""

    def __init__(self, rows: PhdRows) -> None:
        self.rows = rows
        p = rows.mean.size
        self.cross = np.zeros((p, p))
        self.n, self.sum, self.squares, self.root_sum = 0, 0.0, 0.0, 0.0

    def update(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> PhdResiduals:
        found = self.rows
        if w is None and found.raw and found.slope is not None and not found.whiten_rows:
            # unweighted OLS residuals: the cross-product's pass subtracts the fitted values
            # block by block, so the rows are read once for both
            r = np.asarray(y, dtype=float).reshape(-1) - found.y_mean  # a new array
            self.cross += signed_crossprod(X, found.mean, r, slope=found.slope)
            self._add_sums(r, None)
            return self
        _, rows, r, sw, omega = found(X, y, w)
        rw = r if omega is None else r * omega
        if self.rows.whiten_rows:
            self.cross += signed_crossprod(self.rows.whiten(rows), np.zeros(rows.shape[1]), rw)
        else:
            self.cross += signed_crossprod(rows, self.rows.mean, rw)
        self._add_sums(r, sw)
        return self

    def _add_sums(self, r: np.ndarray, sw: np.ndarray | None) -> None:
        self.n += r.size
        self.sum += float(r.sum())
        self.squares += float(r @ r)
        self.root_sum += float(r.sum() if sw is None else sw @ r)

    def merge(self, other: PhdResiduals) -> PhdResiduals:
        self.cross += other.cross
        self.n += other.n
        self.sum += other.sum
        self.squares += other.squares
        self.root_sum += other.root_sum
        return self

    def kernel(self, total: float) -> np.ndarray:
        """``M = (1/total) Σ r ω z zᵀ``."""
        if self.rows.whiten_rows:
            M = self.cross / total
        else:
            W = self.rows.whitening
            M = W.T @ self.cross @ W / total
        return (M + M.T) / 2

    def variance(self) -> float:
        """``var(r)`` with divisor ``n − 1`` (R's ``var``)."""
        mean = self.sum / self.n
        return (self.squares - self.n * mean * mean) / (self.n - 1)


class WeightedMoments:
    """Weighted mean and centred cross-product of rows, by blocks, merged pairwise (Chan,
    Golub & LeVeque 1979)."""

    def __init__(self, k: int) -> None:
        self.total = 0.0
        self.mean = np.zeros(k)
        self.cross = np.zeros((k, k))

    def update(self, Q: np.ndarray, omega: np.ndarray | None) -> None:
        for start in range(0, Q.shape[0], BLOCK_ROWS):
            block = Q[start : start + BLOCK_ROWS]
            w = None if omega is None else omega[start : start + BLOCK_ROWS]
            part = WeightedMoments(Q.shape[1])
            part.total = float(block.shape[0] if w is None else w.sum())
            part.mean = (block.sum(axis=0) if w is None else w @ block) / part.total
            u = block - part.mean
            part.cross = u.T @ (u if w is None else u * w[:, None])
            self.merge(part)

    def merge(self, other: WeightedMoments) -> WeightedMoments:
        if other.total == 0:
            return self
        total = self.total + other.total
        delta = other.mean - self.mean
        self.cross += other.cross + np.outer(delta, delta) * (self.total * other.total / total)
        self.mean = self.mean + delta * (other.total / total)
        self.total = total
        return self

    def covariance(self) -> np.ndarray:
        """Divisor the total weight (R's ``cov.ew.matrix``)."""
        return self.cross / self.total


class PhdFeatures:
    """The third pass: moments of the products behind Cook's general and independence tests.

    ``v`` is ``z`` on the eigenvectors (unweighted), or ``√w (x − x̄)`` on the unit directions
    (case weights: R's ``cov.ew.matrix``, rescaled at the end by the column norms).
    ``residuals`` (in memory only) gives each row's residual instead of the rows' OLS fit
    (R's ``phdq``: the Pearson residuals of the quadratic fit).
    """

    def __init__(
        self,
        rows: PhdRows,
        shift: float,
        vectors: np.ndarray,
        center: np.ndarray | None = None,
        residuals: np.ndarray | None = None,
    ) -> None:
        self.rows, self.shift, self.vectors, self.center = rows, shift, vectors, center
        self.residuals = residuals
        p = vectors.shape[1]
        self.first, self.second = np.triu_indices(p)
        k = self.first.size
        self.general = WeightedMoments(k + 1)  # (r̃ v_i v_j, r̃)
        self.indep = WeightedMoments(k)  # (v_i v_j)
        self.norms = np.zeros(p)

    def update(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> PhdFeatures:
        X, rows, r, sw, omega = self.rows(X, y, w)
        if self.residuals is not None:
            r = self.residuals
        if sw is None:
            v = self.rows.whiten(rows) @ self.vectors
            omega = None  # the tests of an unweighted fit weigh its rows alike
        else:
            v = ((X - self.center) @ self.vectors) * sw[:, None]
        for start in range(0, v.shape[0], BLOCK_ROWS):
            vb = v[start : start + BLOCK_ROWS]
            rb = r[start : start + BLOCK_ROWS] - self.shift
            ob = None if omega is None else omega[start : start + BLOCK_ROWS]
            products = vb[:, self.first] * vb[:, self.second]
            self.general.update(np.column_stack([products * rb[:, None], rb]), ob)
            self.indep.update(products, ob)
            self.norms += np.sum(vb * vb, axis=0)
        return self

    def merge(self, other: PhdFeatures) -> PhdFeatures:
        self.general.merge(other.general)
        self.indep.merge(other.indep)
        self.norms += other.norms
        return self

    def covariances(self, n: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Covariances of Cook's general and independence products (``n``: rescale ``v`` to
        length ``√n``, as R does under case weights)."""
        p = self.vectors.shape[1]
        d = np.ones(p) if n is None else np.sqrt(n / self.norms)
        diagonal = self.first == self.second
        scale = np.where(diagonal, 1.0, np.sqrt(2.0)) * d[self.first] * d[self.second]
        shift = -diagonal.astype(float)  # e_jj = r̃ (v_j² − 1): minus r̃
        C = self.general.covariance()
        pairs, cross, resid = C[:-1, :-1], C[:-1, -1], C[-1, -1]
        gamma = np.outer(scale, scale) * pairs
        side = np.outer(scale * cross, shift)
        gamma += side + side.T + resid * np.outer(shift, shift)
        indep = np.outer(scale, scale) * self.indep.covariance()
        return (gamma + gamma.T) / 2, (indep + indep.T) / 2


class PhdPasses:
    """pHd's first two passes over a source: what the fit and the tests both start from."""

    def __init__(self, estimator: Any, source: Any) -> None:
        residuals = bool(estimator.options["residuals"]) and not estimator.quadratic
        p = source.p
        single = SliceRule(single=True)
        if source.case_weighted:
            acc: Any = source.reduce(
                CaseWeightedStatistics(
                    p,
                    single,
                    response=True,
                    column=source.weights,
                    rescaled=source.keeps_rows,
                    keep_rows=source.keeps_rows,
                )
            )
            c = acc.rescale  # raises when every weight is zero
            check_rows(estimator, acc.n, p, acc, source)
            std = acc.standardized(source.x_names)
            ols = acc.ols_parts()
            coef = np.linalg.solve(std.chol, c * ols["g0"] / std.scale) if residuals else None
            self.rows = PhdRows(std, ols["y_mean"], coef, rescale=c)
            self.total = c * acc.w_sum  # R divides by the sum of the rescaled weights
        else:
            acc = source.reduce(
                MomentStatistics(
                    estimator, p, single, second=False, response=True, keep_rows=source.keeps_rows
                )
            )
            check_rows(estimator, acc.n, p, acc, source)
            std, _ = acc.prepared(source.x_names)
            y_mean, _, cov_xy = acc.stats.response_moments()
            coef = np.linalg.solve(std.chol, cov_xy / std.scale) if residuals else None
            self.rows = PhdRows(std, y_mean, coef)
            self.total = std.n
        self.acc, self.std = acc, std
        self.weighted = source.case_weighted
        self.residuals: PhdResiduals | None = None
        if not estimator.quadratic:
            self.residuals = source.reduce(PhdResiduals(self.rows))

    def tests(
        self, source: Any, output: EstimatorOutput, residuals: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The third pass: covariances of Cook's general and independence products."""
        if residuals is not None:  # phdq's Pearson residuals, rows in memory
            sw = np.sqrt(self.std.case_weights) if self.weighted else 1.0
            shift = float(np.mean(sw * residuals))
        else:
            resid = self.residuals
            shift = (resid.root_sum if self.weighted else resid.sum) / resid.n
        if self.weighted:
            center = self.acc.center()
            features = PhdFeatures(self.rows, shift, output.basis, center, residuals)
        else:
            features = PhdFeatures(self.rows, shift, output.extras["raw_vectors"], None, residuals)
        found = source.reduce(features)
        return found.covariances(self.acc.n if self.weighted else None)


class PHD(MomentEstimator):
    """Principal Hessian directions (Li 1992; Cook 1998): ``M = (1/n) Σ r_i z_i z_iᵀ``.

    Parameters
    ----------
    residuals : bool or {"linear", "quadratic"}, default True
        ``True`` or ``"linear"`` (default, R's ``phdres``): ``r`` are the OLS residuals of y
        on X; ``False`` (``phdy``): ``r = y − ȳ``; ``"quadratic"`` (R's ``phdq``, Li 1992):
        ``M`` is the Hessian of the full quadratic OLS fit of y on ``z`` (``M_jj`` the
        coefficient of ``z_j²``, ``M_jk`` half that of ``z_j z_k``), and the tests use the
        Pearson residuals of that fit.
    d_max : int, default 4
        Largest dimension shown and tested (R ``dr``'s ``numdir``, accepted as an alias).
        Eigenvalues keep their sign and are ordered by decreasing ``|λ|``.
    d : int, optional
        Dimension reported by ``directions`` and ``transform``; default chosen by ``d_rule``.
    d_rule : {"asymptotic", "permutation", "ladle", "bootstrap", "ratio"}
        The rule that chooses ``d`` when it is not given; default ``"asymptotic"``, the
        large-sample test at level 0.05 on its normal-theory p-values (as R ``dr``'s
        summary).
    random_state : int, SeedSequence or Generator, optional
        The fit's seed (the fit itself draws nothing): the rules that resample,
        ``bootstrap()`` and ``conditional_density()`` draw from streams derived from it. None
        draws one, which the summary prints.

    See Also
    --------
    phd : The formula function (``sdr.phd(formula, data)``).
    sdrstats.moment.results.MomentResults : What ``fit`` returns.
    sir, save : Slicing methods; pHd sees only curvature in the mean.

    References
    ----------
    :cite:t:`li1992`; :cite:t:`cook1998`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.PHD().fit(np.log(ais[["ssf", "wt", "hg"]]), ais["lbm"])
    >>> fit.eigenvalues.round(3).tolist()
    [2.892, -1.347, 0.221]
    """

    method = "phd"
    checks_rows_in_pass = True
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "residuals": ["boolean", Options(("linear", "quadratic"))],
        "d_max": [Interval(int, 1, None)],
        "d": [Interval(int, 1, None), None],
        "d_rule": MomentEstimator._parameter_constraints["d_rule"],
        "random_state": ["random_state"],
    }
    uses_slices = False
    by_abs = True
    response = "continuous"
    capabilities = Capabilities(from_statistics=True, asymptotic_test=True, case_weights=True)

    def __init__(
        self,
        *,
        residuals: bool | str = True,
        d_max: int = 4,
        d: int | None = None,
        d_rule: str = "asymptotic",
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        super()._check_data(X, Y, categorical)
        n, p = X.shape
        terms = 1 + 2 * p + p * (p - 1) // 2
        if self.quadratic and n <= terms:
            # more coefficients than rows: the quadratic fit interpolates, its Hessian is not
            # identified and its residuals are zero (R's phdq stops here too)
            raise ValueError(
                f"phd with residuals='quadratic' (phdq) fits {terms} quadratic terms in "
                f"p = {p} predictors (1 + 2p + p(p-1)/2), which needs more than {terms} rows; "
                f"got n = {n}. Use fewer predictors, or residuals=True (phdres)."
            )

    @property
    def quadratic(self) -> bool:
        """True for R's ``phdq`` (the Hessian of the full quadratic fit)."""
        return self.options["residuals"] == "quadratic"

    @property
    def label(self) -> str:
        if self.quadratic:
            return "phdq"
        return "phdres" if self.options["residuals"] else "phdy"

    def _quadratic_fit(self, std: Standardized, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Hessian ``M`` and Pearson residuals of the full quadratic OLS fit of y on ``z``."""
        y = response_vector(Y, "phd")
        Z = std.Z
        n, p = Z.shape
        upper = [(j, k) for j in range(p) for k in range(j + 1, p)]
        design = np.column_stack([np.ones(n), Z, Z**2] + [Z[:, j] * Z[:, k] for j, k in upper])
        case = getattr(std, "case_weights", None)
        sw = np.ones(n) if case is None else np.sqrt(case)
        coef = np.linalg.lstsq(design * sw[:, None], y * sw, rcond=None)[0]
        M = np.diag(coef[1 + p : 1 + 2 * p])
        for c, (j, k) in zip(coef[1 + 2 * p :], upper):
            M[j, k] = M[k, j] = c / 2
        return M, sw * (y - design @ coef)

    def _quadratic_source(self, source: Any) -> Any:
        if not source.keeps_rows:
            raise ValueError(
                "phd with residuals='quadratic' (phdq) needs the rows in memory (a quadratic "
                "fit in the whitened predictors); load the data as a pandas DataFrame."
            )
        return source

    def fit_source(self, source: Any) -> EstimatorOutput:
        """pHd's passes over ``source`` (see the module notes): the moments, then the kernel
        and the residuals' sums; on chunks, a third pass for Cook's tests (``phdres``).

        Parameters
        ----------
        source : RowsInMemory or sdrstats.scale.fit.ChunkedData
            The rows.

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
        >>> sdr.phd("lbm ~ log(wt) + log(ht)", parts).n  # its passes read the chunks
        202
        """
        if self.quadratic:
            self._quadratic_source(source)
        passes = PhdPasses(self, source)
        std = passes.std
        if self.quadratic:
            M = self._quadratic_fit(std, source.Y)[0]
        else:
            M = passes.residuals.kernel(passes.total)
        output = output_from_kernel(self, std, None, M)
        if passes.weighted:
            output.center = passes.acc.center()  # R's dr.direction centres x by its plain mean
        if source.keeps_rows:
            return output
        tests: dict[str, Any] = {"var_r": passes.residuals.variance()}
        if self.options["residuals"] and pairs_accumulated(source.p):
            tests["gamma"], tests["indep_gamma"] = passes.tests(source, output)
        elif self.options["residuals"]:
            warnings.warn(
                f"pHd's general and independence tests on chunked or Dask data accumulate the "
                f"covariance of p(p+1)/2 residual products, done for p <= {statistics.MAX_PAIR_P}; with "
                f"p = {source.p} the test tables show the normal-theory test only. Fit in "
                "memory for the other two.",
                SDRWarning,
                stacklevel=7,
            )
        output.extras["phd_moments"] = tests
        return rowless_extras(output, source, passes.acc, (std, None))

    def asymptotic_test_available(self, results: Results) -> bool:
        """Li's and Cook's tests read the rows in memory; a fit on chunks, its passes' sums.

        Parameters
        ----------
        results : Results
            The fit.

        Returns
        -------
        bool

        Examples
        --------
        >>> import sdrstats as sdr
        >>> fit = sdr.phd("lbm ~ log(wt) + log(ht)", sdr.datasets.load("ais"))
        >>> fit.estimator.asymptotic_test_available(fit)
        True
        """
        return results.spec.keeps_rows or "phd_moments" in results.output.extras

    def asymptotic_test(
        self, results: Results, d_max: int | None = None, level: float = 0.05
    ) -> DimensionTest:
        """Li's normal-theory test; for phdres also Cook's general and independence tests.

        In memory the tests' third pass reads the rows when the test is asked for; a fit from
        chunks made it with the fit. Both are the same accumulators (see the module notes).
        """
        chunked = results.output.extras.get("phd_moments")
        if chunked is not None:
            var_r = chunked["var_r"]
            gamma, indep_gamma = chunked.get("gamma"), chunked.get("indep_gamma")
        else:
            var_r, gamma, indep_gamma = self._test_moments(results)
        ev = np.asarray(results.output.eigenvalues)
        p, n = results.p, results.n
        rows = self._test_rows(results, d_max)
        abs_sorted = np.sort(np.abs(ev))
        stat = np.array([n * np.sum(abs_sorted[: p - m] ** 2) / (2 * var_r) for m in range(rows)])
        df = np.array([(p - m) * (p - m + 1) // 2 for m in range(rows)])
        pv = np.array([chi2_sf(s, k) for s, k in zip(stat, df)])
        columns: dict[str, Any] = {"stat": stat, "df": df, "p_value": pv}
        names = {"stat": "Stat", "p_value": "Normal theory"}
        if gamma is not None:
            first = np.array([i for i in range(p) for _ in range(i, p)])
            general = []
            for m in range(rows):
                keep = first >= m
                weights = np.linalg.eigvalsh(gamma[np.ix_(keep, keep)]) / (2 * var_r)
                general.append(weighted_chi2_sf(stat[m], weights))
            indep = [weighted_chi2_sf(stat[0], np.linalg.eigvalsh(indep_gamma) / 2)]
            columns["p_value_indep"] = indep + [np.nan] * (rows - 1)
            columns["p_value_general"] = general
            names.update({"p_value_indep": "Indep. test", "p_value_general": "General theory"})
        table = pd.DataFrame(columns, index=hypothesis_labels(rows))
        return DimensionTest(
            table,
            choose_by_pvalues(pv, level),
            "asymptotic",
            self.label,
            level=level,
            title="Large-sample Marginal Dimension Tests",
            display_names=names,
            decided_by="normal-theory p-values",
        )

    def _test_moments(self, results: Results) -> tuple[float, np.ndarray | None, np.ndarray | None]:
        """``var(r)`` and the covariances of Cook's general and independence products
        (``phdres`` and ``phdq``), from passes over the fitted rows."""
        source = self.source_of(results.spec)
        passes = PhdPasses(self, source)
        pearson = None
        if self.quadratic:
            pearson = self._quadratic_fit(passes.std, source.Y)[1]
            var_r = float(np.var(pearson, ddof=1))
        else:
            var_r = passes.residuals.variance()
        if not self.options["residuals"]:
            return var_r, None, None
        gamma, indep_gamma = passes.tests(source, results.output, pearson)
        return var_r, gamma, indep_gamma


__all__ = ["PHD"]
