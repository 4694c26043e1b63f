"""SIR, SAVE, pHd, directional regression and cumulative slicing.

Each method is one kernel ``M`` on the shared standardise → slice → eigen path of
:mod:`sdrstats.moment._core` and, where R ``dr`` has one, one asymptotic dimension test. The
common estimator is in :mod:`.estimator` and pHd in :mod:`.phd` (re-exported here). Numbers follow R ``dr`` 3.0.11 (Weisberg 2002).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base.budget import (
    OPTIONAL_SECONDS,
    check_memory,
    check_time,
    time_text,
    warn_if_slow,
)
from ..base.validation import Interval, check_bool
from ..fitting.estimator import Capabilities, EstimatorOutput
from ..inference.dimension_test import sir_dimension_test
from ..results.fitted import DimensionTest, Results, choose_by_pvalues, hypothesis_labels
from ..stats.chi2 import chi2_sf
from ..stats.moment_kernels import save_kernel, sir_kernel
from ._core import SliceMoments, Standardized
from .cumulative import fit_cume
from .estimator import MomentEstimator, response_vector
from .partial import PartialSlicing, partial_dimension_test
from .phd import PHD
from .results import MomentResults
from .statistics import pair_covariance_block, pair_moments_fit, pair_moments_of_rows

#: The options of the partial methods (SIR's and SAVE's ``group=`` and ``pool=``).
PARTIAL_CONSTRAINTS: dict[str, list[Any]] = {"group": [str, None], "pool": ["boolean"]}


class SIR(PartialSlicing, MomentEstimator):
    """Sliced inverse regression (Li 1991): ``M = Σ_s f_s z̄_s z̄_sᵀ``.

    With ``group=``, partial SIR (Chiaromonte, Cook & Li 2002), R ``dr``'s
    ``dr(..., group = ~G, method = "sir")``: see :mod:`sdrstats.moment.partial`.

    Parameters
    ----------
    nslices : int, optional
        Number of slices; default ``max(8, p + 3)`` as in R ``dr``. With ``group=``, the
        number in every group, default 2 (R's default for the partial methods).
    slice_function : {"dr", "arc"}, default "dr"
        Slicing rule (R ``dr.slices`` or Arc's equal-count variant).
    d_max : int, default 4
        Largest dimension shown and tested (R ``dr``'s ``numdir``, accepted as an alias).
    d : int, optional
        Dimension reported by ``directions`` and ``transform``; default chosen by ``d_rule``.
    d_rule : {"asymptotic", "permutation", "ladle", "bootstrap", "ratio"}
        The rule that chooses ``d`` when it is not given; default ``"asymptotic"``, Li's
        (1991) χ² test at level 0.05, as R ``dr``'s summary.
    random_state : int, SeedSequence or Generator, optional
        The fit's seed (the fit itself draws nothing): the rules that resample,
        ``bootstrap()`` and ``conditional_density()`` draw from streams derived from it. None
        draws one, which the summary prints.
    cut_points : sequence of float, optional
        Given slice boundaries for a one-column response (see
        :func:`sdrstats.stats.slicing.make_slices`); overrides ``nslices``. Chunked and Dask fits
        slice by cut points, and equal the in-memory fit given the same ones.
    group : str, optional
        A column of ``data`` (or ``"~ G"``): partial SIR, one subspace shared by the levels
        of ``G``, each level whitened and sliced on its own rows. Only the formula function
        fits it (the model spec carries each row's level, or chunks their group column);
        its refits keep each row's level; case weights are not available with it.
    pool : bool, default False
        With ``group=``: whiten every level by the pooled within-level covariance instead
        of its own (R's ``pool = TRUE``).

    See Also
    --------
    sir : The formula function (``sdr.sir(formula, data)``).
    sdrstats.moment.results.MomentResults : What ``fit`` returns.
    save, directional_regression : See directions in which the response is symmetric.

    References
    ----------
    :cite:t:`li1991`; :cite:t:`weisberg2002`; :cite:t:`cook2004`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.SIR(nslices=8).fit(np.log(ais[["ssf", "wt", "hg"]]), ais["lbm"])
    >>> fit.slice_sizes
    array([25, 25, 25, 25, 27, 27, 30, 18])
    """

    method = "sir"
    checks_rows_in_pass = True
    capabilities = Capabilities(
        from_statistics=True, asymptotic_test=True, weighted_replicates=True, case_weights=True
    )
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **MomentEstimator._parameter_constraints,
        **PARTIAL_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        nslices: int | None = None,
        slice_function: str = "dr",
        d_max: int = 4,
        d: int | None = None,
        d_rule: str = "asymptotic",
        cut_points: Any = None,
        group: str | None = None,
        pool: bool = False,
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    def kernel(self, std: Standardized, moments: SliceMoments) -> np.ndarray:
        return sir_kernel(moments.fractions, moments.means)

    def asymptotic_test(
        self, results: Results, d_max: int | None = None, level: float = 0.05
    ) -> DimensionTest:
        """Li's (1991) χ² test: ``n Σ_{j>m} λ_j ~ χ²((p−m)(h−m−1))``; partial SIR's with
        ``group=`` (:func:`sdrstats.moment.partial.partial_dimension_test`)."""
        if self.partial:
            return partial_dimension_test(self, results, self._test_rows(results, d_max), level)
        p, n, h = results.p, results.n, len(results.slice_sizes)
        # df (p - m)(h - m - 1) is positive only for m < h - 1: with h slices SIR estimates at
        # most h - 1 directions, so larger hypotheses are not tests (a 2-class response: one row)
        return sir_dimension_test(
            results.output.eigenvalues, n, p, h, self._test_rows(results, d_max), level, self.method
        )


class SAVE(PartialSlicing, MomentEstimator):
    """Sliced average variance estimation (Cook & Weisberg 1991): ``M = Σ_s f_s (I − V_s)²``.

    ``V_s`` is the within-slice covariance of ``z`` with divisor ``n_s``. With ``group=``,
    partial SAVE (Shao 2007), R ``dr``'s ``dr(..., group = ~G, method = "save")``: see
    :mod:`sdrstats.moment.partial`.

    Parameters
    ----------
    nslices : int, optional
        Number of slices; default ``max(8, p + 3)`` as in R ``dr``. With ``group=``, the
        number in every group, default 2 (R's default for the partial methods).
    slice_function : {"dr", "arc"}, default "dr"
        Slicing rule, as :class:`SIR`.
    d_max : int, default 4
        Largest dimension shown and tested (R ``dr``'s ``numdir``, accepted as an alias).
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
    cut_points : sequence of float, optional
        Given slice boundaries; overrides ``nslices``.
    group : str, optional
        A column of ``data`` (or ``"~ G"``): partial SAVE, one subspace shared by the levels
        of ``G``, each level whitened and sliced on its own rows; as :class:`SIR`'s.
    pool : bool, default False
        With ``group=``: whiten every level by the pooled within-level covariance instead
        of its own (R's ``pool = TRUE``).

    See Also
    --------
    save : The formula function (``sdr.save(formula, data)``).
    sdrstats.moment.results.MomentResults : What ``fit`` returns.
    sir, directional_regression : The other slicing methods.

    References
    ----------
    :cite:t:`cook1991`; :cite:t:`shao2007`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.SAVE(nslices=8).fit(np.log(ais[["ssf", "wt", "hg"]]), ais["lbm"])
    >>> fit.eigenvalues.round(3).tolist()
    [0.899, 0.207, 0.075]
    """

    method = "save"
    checks_rows_in_pass = True
    second_moments = True
    #: A fit on chunks makes a second pass for the fourth moments of its general test.
    test_needs_pair_moments = True
    capabilities = Capabilities(
        from_statistics=True,
        asymptotic_test=True,
        weighted_replicates=True,
        case_weights=True,
        centered_bootstrap=True,
    )
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **MomentEstimator._parameter_constraints,
        **PARTIAL_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        nslices: int | None = None,
        slice_function: str = "dr",
        d_max: int = 4,
        d: int | None = None,
        d_rule: str = "asymptotic",
        cut_points: Any = None,
        group: str | None = None,
        pool: bool = False,
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    @staticmethod
    def _within(moments: SliceMoments) -> np.ndarray:
        mean_outer = moments.means[:, :, None] * moments.means[:, None, :]
        return moments.second - mean_outer

    def kernel(self, std: Standardized, moments: SliceMoments) -> np.ndarray:
        return save_kernel(moments.fractions, self._within(moments))

    def asymptotic_test_available(self, results: Results) -> bool:
        """The general test reads the rows in memory; a fit on chunks, the fourth moments its
        second pass accumulated (for ``p <= 70``).

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
        >>> fit = sdr.save("lbm ~ log(wt) + log(ht)", sdr.datasets.load("ais"))
        >>> fit.estimator.asymptotic_test_available(fit)
        True
        """
        extras = results.output.extras
        return self.partial or results.spec.keeps_rows or "pair_moments" in extras

    def asymptotic_test(
        self,
        results: Results,
        d_max: int | None = None,
        level: float = 0.05,
        general: bool | None = None,
    ) -> DimensionTest:
        """Shao, Cook & Weisberg (2007): normal-theory χ² and general (Bentler–Xie) p-values;
        partial SAVE's normal-theory test with ``group=``.

        ``d`` is read from the normal-theory p-values, which cost a few ``p × p`` products
        per hypothesis. The general-theory ones need the covariance of the ``p(p+1)/2`` pair
        products of the whitened predictors over the rows, about ``n (p(p+1)/2)²`` operations
        (a minute at ``n = 100,000``, ``p = 100``): they are computed when first asked and
        kept on the fit (:meth:`MomentResults.general_test_cache`).

        Parameters
        ----------
        results : Results
            The fit.
        d_max : int, optional
            Largest hypothesis tested; default R's count (``d_max`` of the fit, no direction
            whose eigenvalue is zero).
        level : float, default 0.05
            Level of the test that chooses ``d``.
        general : bool, optional
            Add the general-theory p-values (column ``p_value_general``). Default: when the
            fit already has them or they are predicted to take at most
            :data:`~sdrstats.base.budget.OPTIONAL_SECONDS`; otherwise the table says how to
            get them and what they would cost. ``True`` computes them whatever the cost
            (within the limits of :func:`sdrstats.set_config`); ``False`` leaves them out
            (the rule that chooses ``d`` needs only the normal-theory ones).

        Returns
        -------
        DimensionTest
        """
        if self.partial:
            return partial_dimension_test(self, results, self._test_rows(results, d_max), level)
        std, moments = results._prepared()
        theta_all = results.output.extras["raw_vectors"]
        A = np.eye(results.p)[None] - self._within(moments)
        f, n, p, h = moments.fractions, results.n, results.p, moments.slices.nslices
        rows = self._test_rows(results, d_max)
        stat, df, pv_normal = [], [], []
        for m in range(rows):
            theta = theta_all[:, m:]
            proj = theta.T @ A @ theta  # θᵀ A_s θ of every slice s
            t = n / 2 * float(np.sum(f[:, None, None] * proj**2))
            k = p - m
            dfm = (h - 1) * k * (k + 1) // 2
            stat.append(t)
            df.append(dfm)
            pv_normal.append(chi2_sf(t, dfm))
        columns = {"stat": stat, "df": df, "p_value": pv_normal}
        if general is not None:
            general = check_bool(general, "general", "SAVE's asymptotic test")
        cache = results.general_test_cache()
        missing = [m for m in range(rows) if m not in cache]
        extras: dict[str, Any] = {}
        if general is None:
            general = not missing or general_test_seconds(results, missing) <= OPTIONAL_SECONDS
            if not general:
                extras["left_out"] = general_left_out_line(results, missing)
        if general:
            if missing:
                cache.update(general_test_traces(results, missing))
            columns["p_value_general"] = [
                chi2_sf(t * tr / tr2, (h - 1) * tr**2 / tr2)
                for t, (tr, tr2) in zip(stat, (cache[m] for m in range(rows)))
            ]
        table = pd.DataFrame(columns, index=hypothesis_labels(rows))
        return DimensionTest(
            table,
            choose_by_pvalues(table["p_value"].to_numpy(), level),
            "asymptotic",
            self.method,
            level=level,
            title="Large-sample Marginal Dimension Tests",
            decided_by="normal-theory p-values",
            display_names={
                "stat": "Stat",
                "df": "df(Nor)",
                "p_value": "p.value(Nor)",
                "p_value_general": "p.value(Gen)",
            },
            note=extras.get("left_out"),
            extras=extras,
        )

    def dimension_choice(self, results: Results, choice: DimensionTest) -> DimensionTest:
        """The asymptotic test that chose ``d`` as the fit shows it (``fit.d_choice``).

        The rule ran on the normal-theory p-values only; the general-theory ones join its
        table as :meth:`asymptotic_test` adds them by default (kept on the fit, or predicted
        to be cheap).

        Parameters
        ----------
        results : Results
            The fit.
        choice : DimensionTest
            The test the fit's rule ran.

        Returns
        -------
        DimensionTest
            ``choice``, or the same test with the general-theory column.

        Examples
        --------
        >>> import sdrstats as sdr
        >>> fit = sdr.save("lbm ~ log(wt) + log(ht) + log(hg)", sdr.datasets.load("ais"))
        >>> fit.d_choice.table.columns.tolist()
        ['stat', 'df', 'p_value', 'p_value_general']
        """
        if self.partial or choice.rule != "asymptotic" or "p_value_general" in choice.table:
            return choice
        return self.asymptotic_test(results, d_max=len(choice.table), level=choice.level)


#: Seconds per ``n (p(p+1)/2)²`` of the general test's pair-product covariance (one BLAS
#: thread on a 2-core machine: 3.8 s at n = 100,000, p = 50; 59 s at p = 100).
GENERAL_SECONDS_EACH = 3e-11


def general_test_work(results: Results, ms: list[int]) -> tuple[float, float]:
    """(operations, bytes) of SAVE's general test for hypotheses ``ms``: the pair moments of
    the rows once (``n (p(p+1)/2)²``, a ``(p(p+1)/2)²`` matrix), or per hypothesis the
    covariance of the ``(p − m)²`` products (``n (p − m)⁴``) when that takes less memory;
    nothing for a fit on chunks that accumulated the pair moments."""
    if not ms or "pair_moments" in results.output.extras:
        return 0.0, 0.0
    n, p = results.n, results.p
    pairs = p * (p + 1) // 2
    if pair_moments_fit(n, p):
        return float(n) * pairs**2, 8.0 * pairs**2 * 2
    widest = (p - min(ms)) ** 2
    return float(n) * sum((p - m) ** 4 for m in ms), 8.0 * n * widest * 2


def general_test_seconds(results: Results, ms: list[int]) -> float:
    """Predicted seconds of SAVE's general test for hypotheses ``ms`` (0 when kept)."""
    work, _ = general_test_work(results, ms)
    return work * GENERAL_SECONDS_EACH if work else 0.0


def general_left_out_line(results: Results, ms: list[int]) -> str:
    """The one line a table without the general-theory p-values prints instead."""
    seconds = general_test_seconds(results, ms)
    return (
        f"p.value(Gen) is left out: the general-theory test would take about "
        f"{time_text(seconds)} at n = {results.n:,}, p = {results.p} (predicted); "
        'fit.test_dimension("asymptotic", general=True) computes it and keeps it on the fit.'
    )


def general_test_traces(results: Results, ms: list[int]) -> dict[int, tuple[float, float]]:
    """``(tr Σ_m, tr Σ_m²)`` of SAVE's general test (Shao, Cook & Weisberg 2007) for each
    hypothesis ``m`` in ``ms``: ``Σ_m = cov(vec(u uᵀ)) / 2`` for ``u`` the whitened predictors
    on eigenvectors ``m+1..p``, from the fit's own rows (or the pair moments a fit on chunks
    accumulated). Checked against the limits of :func:`sdrstats.set_config`; warns when
    predicted to take over a minute."""
    work, nbytes = general_test_work(results, ms)
    what = f"the general-theory test at n = {results.n:,}, p = {results.p}"
    if work:
        remedy = "use the normal-theory p-values (general=False)"
        check_memory("SAVE", nbytes, what, remedy)
        seconds = work * GENERAL_SECONDS_EACH
        check_time("SAVE", seconds, what, remedy)
        warn_if_slow("SAVE", seconds, what, "the normal-theory p-values cost nothing", 4)
    std, _ = results._prepared()
    theta_all = results.output.extras["raw_vectors"]
    n, p = results.n, results.p
    pair_moments = results.output.extras.get("pair_moments")
    if pair_moments is None and pair_moments_fit(n, p):
        # the rows' fourth moments once, in blocks of rows (as a fit on chunks has them)
        pair_moments = pair_moments_of_rows(std.Z @ theta_all)
    out = {}
    for m in ms:
        if pair_moments is None:
            u = std.Z @ theta_all[:, m:]
            outer = (u[:, :, None] * u[:, None, :]).reshape(len(u), -1)
            sigma = np.atleast_2d(np.cov(outer, rowvar=False)) / 2
        else:  # the same covariance from the accumulated fourth moments
            sigma = pair_covariance_block(pair_moments, m) / 2
        out[m] = (float(np.trace(sigma)), float(np.sum(sigma**2)))
    return out


class DirectionalRegression(MomentEstimator):
    """Directional regression (Li & Wang 2007).

    ``M = 2 Σ f_s E_s[zzᵀ]² + 2 (Σ f_s z̄_s z̄_sᵀ)² + 2 (Σ f_s z̄_sᵀ z̄_s)(Σ f_s z̄_s z̄_sᵀ) − 2I``.

    The literature abbreviates it DR; here its name is spelt out, because ``sdr.dr`` is R's
    ``dr()``, the front door to SIR, SAVE, pHd and IRE (:func:`sdrstats.dr`). R ``dr`` has no
    directional regression, so it has no large-sample test here either; its dimension is
    chosen by the permutation, ladle or bootstrap rules.

    Parameters
    ----------
    nslices : int, optional
        Number of slices; default ``max(8, p + 3)`` as in R ``dr``.
    slice_function : {"dr", "arc"}, default "dr"
        Slicing rule, as :class:`SIR`.
    d_max : int, default 4
        Largest dimension shown and tested (R ``dr``'s ``numdir``, accepted as an alias).
    d : int, optional
        Dimension reported by ``directions`` and ``transform``; default chosen by ``d_rule``.
    d_rule : {"permutation", "ladle", "bootstrap", "ratio"}
        The rule that chooses ``d`` when it is not given; default ``"permutation"``, Cook &
        Yin's (2001) permutation test at level 0.05 with 199 permutations (the method has no
        large-sample test). A fit on chunked or Dask data keeps no rows to permute: there
        the eigenvalue-ratio rule chooses (``fit.d_rule`` says so).
    random_state : int, SeedSequence or Generator, optional
        The fit's seed (the fit itself draws nothing): the rules that resample,
        ``bootstrap()`` and ``conditional_density()`` draw from streams derived from it. None
        draws one, which the summary prints.
    cut_points : sequence of float, optional
        Given slice boundaries; overrides ``nslices``.

    See Also
    --------
    SIR, SAVE : The slice moments it combines.
    directional_regression : The formula function.

    References
    ----------
    :cite:t:`li2007`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> X = np.log(ais[["ssf", "wt", "hg"]])
    >>> fit = sdr.DirectionalRegression(nslices=8).fit(X, ais["lbm"])
    >>> fit.eigenvalues.round(3).tolist()
    [6.756, 1.23, 0.275]
    """

    method = "directional_regression"
    checks_rows_in_pass = True
    second_moments = True
    capabilities = Capabilities(from_statistics=True, weighted_replicates=True, case_weights=True)

    def __init__(
        self,
        *,
        nslices: int | None = None,
        slice_function: str = "dr",
        d_max: int = 4,
        d: int | None = None,
        d_rule: str = "permutation",
        cut_points: Any = None,
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    def kernel(self, std: Standardized, moments: SliceMoments) -> np.ndarray:
        f, means, second = moments.fractions, moments.means, moments.second
        p = means.shape[1]
        sir = means.T @ (means * f[:, None])
        sq = ((second * f[:, None, None]) @ second).sum(axis=0)  # Σ f_s E_s[zzᵀ]², stacked
        return (
            2 * sq + 2 * sir @ sir + 2 * float(f @ np.sum(means**2, axis=1)) * sir - 2 * np.eye(p)
        )


class CUME(MomentEstimator):
    """Cumulative slicing estimation (Zhu, Zhu & Feng 2010).

    ``M = (1/n) Σ_i m(y_i) m(y_i)ᵀ`` with ``m(t) = (1/n) Σ_j z_j 1{y_j ≤ t}``; no slices to
    choose. Needs one continuous response.

    Parameters
    ----------
    d_max : int, default 4
        Directions shown (R ``dr``'s ``numdir``, accepted as an alias).
    d : int, optional
        Dimension reported by ``directions`` and ``transform``; default chosen by ``d_rule``.
    d_rule : {"permutation", "ladle", "bootstrap", "ratio"}
        The rule that chooses ``d`` when it is not given; default ``"permutation"``, Cook &
        Yin's (2001) permutation test at level 0.05 with 199 permutations (the method has no
        large-sample test). A fit on chunked or Dask data keeps no rows to permute: there
        the eigenvalue-ratio rule chooses (``fit.d_rule`` says so).
    random_state : int, SeedSequence or Generator, optional
        The fit's seed (the fit itself draws nothing): the rules that resample,
        ``bootstrap()`` and ``conditional_density()`` draw from streams derived from it. None
        draws one, which the summary prints.

    See Also
    --------
    cume : The formula function (``sdr.cume(formula, data)``).
    sdrstats.moment.results.MomentResults : What ``fit`` returns.
    sir : Slicing into a fixed number of slices instead of every cut point.

    References
    ----------
    :cite:t:`zhu2010`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.CUME().fit(np.log(ais[["ssf", "wt", "hg"]]), ais["lbm"])
    >>> fit.eigenvalues.round(3).tolist()
    [0.092, 0.002, 0.0]
    """

    method = "cume"
    checks_rows_in_pass = True
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "d_max": [Interval(int, 1, None)],
        "d": [Interval(int, 1, None), None],
        "d_rule": MomentEstimator._parameter_constraints["d_rule"],
        "random_state": ["random_state"],
    }
    uses_slices = False
    response = "continuous"
    capabilities = Capabilities(from_statistics=True, case_weights=True)

    def __init__(
        self,
        *,
        d_max: int = 4,
        d: int | None = None,
        d_rule: str = "permutation",
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    def fit_source(self, source: Any) -> EstimatorOutput:
        """CUME's passes over ``source`` (see :mod:`sdrstats.moment.cumulative`): the moments, then
        the cumulative sums over the rows sorted by the response.

        On chunks, each range of the response holding at most
        ``sdrstats.moment.cumulative.CUME_BATCH_ROWS`` rows is one pass; a Dask DataFrame is sorted
        by the response on the cluster; in memory, the rows are one chunk and one range.

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
        >>> fit = sdr.cume("lbm ~ log(wt) + log(ht)", parts)
        >>> bool(np.allclose(fit.eigenvalues, sdr.cume("lbm ~ log(wt) + log(ht)", ais).eigenvalues))
        True
        """
        return fit_cume(self, source)


__all__ = [
    "response_vector",
    "SIR",
    "SAVE",
    "PHD",
    "DirectionalRegression",
    "CUME",
    "MomentEstimator",
    "MomentResults",
]
