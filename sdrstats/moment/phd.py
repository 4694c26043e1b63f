"""Principal Hessian directions (Li 1992; Cook 1998), with R ``dr``'s tests."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base.validation import Interval, Options
from ..fitting.estimator import Capabilities, EstimatorOutput
from ..results.fitted import DimensionTest, Results, choose_by_pvalues, hypothesis_labels
from ..stats.chi2 import chi2_sf, weighted_chi2_sf
from ..stats.moment_kernels import phd_kernel
from ._core import Standardized
from .chunked_phd import fit_phd
from .estimator import MomentEstimator, response_vector


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
    chunked_case_weights = True

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

    def fit_statistics(self, source: Any) -> tuple[EstimatorOutput, dict[str, Any]]:
        """Two passes over chunked data, three with Cook's tests (see
        :func:`sdrstats.moment.chunked_phd.fit_phd`).

        Parameters
        ----------
        source : sdrstats.scale.fit.ChunkedData
            The chunks.

        Returns
        -------
        tuple of (EstimatorOutput, dict)

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> parts = sdr.chunks_from([ais.iloc[:100], ais.iloc[100:]])
        >>> sdr.phd("lbm ~ log(wt) + log(ht)", parts).n  # calls fit_statistics
        202
        """
        if self.quadratic:
            raise ValueError(
                "phd with residuals='quadratic' (phdq) needs the rows in memory (a quadratic "
                "fit in the whitened predictors); load the data as a pandas DataFrame."
            )
        return fit_phd(self, source)

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

    def _residual(self, std: Standardized, Y: np.ndarray) -> np.ndarray:
        if self.quadratic:
            return self._quadratic_fit(std, Y)[1]
        case = getattr(std, "case_weights", None)
        if case is not None:  # R: phdy y − ȳ; phdres the residual of √w (y − ȳ) on Z
            y = response_vector(Y, "phd")
            r = y - y.mean()
            if self.options["residuals"]:
                v = np.sqrt(case) * r
                r = v - std.Z @ (std.Z.T @ v) / std.n
            return r
        y = response_vector(Y, "phd")
        w = std.weights
        ybar = y.mean() if w is None else w @ y / std.n
        r = y - ybar
        if self.options["residuals"]:
            Z = std.Z
            coef = (Z.T @ (r if w is None else r * w)) / std.n  # ZᵀWZ = n I
            r = r - Z @ coef
        return r

    def kernel(self, std, moments, Y):
        if self.quadratic:
            return self._quadratic_fit(std, Y)[0]
        Z, r = std.Z, self._residual(std, Y)
        case = getattr(std, "case_weights", None)
        if case is not None:  # R divides by the sum of the (rescaled) weights
            return phd_kernel(Z, r * case, float(case.sum()))
        w = std.weights
        return phd_kernel(Z, r if w is None else r * w, std.n)

    def asymptotic_test(
        self, results: Results, d_max: int | None = None, level: float = 0.05
    ) -> DimensionTest:
        """Li's normal-theory test; for phdres also Cook's general and independence tests.

        A fit from chunks computes them from the sums of its passes
        (:mod:`sdrstats.moment.chunked_phd`), equal to the in-memory tests.
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
        (``phdres`` only), from the fitted rows."""
        std, _ = results._prepared()
        r = self._residual(std, results.spec.Y)
        p, n = results.p, results.n
        var_r = r.var(ddof=1)
        if not self.options["residuals"]:
            return var_r, None, None
        case = getattr(std, "case_weights", None)
        if case is None:
            v = std.Z @ results.output.extras["raw_vectors"]
            sw, w = np.ones(n), np.ones(n)
        else:  # R's cov.ew.matrix: √w (x − x̄) on the unit directions, scaled to √n
            sw, w = np.sqrt(case), case
            v = ((results.spec.X - results.spec.X.mean(axis=0)) * sw[:, None]) @ (
                results.output.basis
            )
            v = np.sqrt(n) * v / np.linalg.norm(v, axis=0)
        pairs = [(i, j) for i in range(p) for j in range(i, p)]

        def features(resid: np.ndarray) -> np.ndarray:
            cols = [
                resid * (v[:, j] ** 2 - 1) if i == j else resid * np.sqrt(2) * v[:, i] * v[:, j]
                for i, j in pairs
            ]
            return np.column_stack(cols)

        def wcov(F: np.ndarray) -> np.ndarray:
            t = sw[:, None] * (F - w @ F / w.sum())
            return np.atleast_2d(t.T @ t / w.sum())

        return var_r, wcov(features(r - np.mean(sw * r))), wcov(features(np.ones(n)))


__all__ = ["PHD"]
