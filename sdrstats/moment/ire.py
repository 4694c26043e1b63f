"""Inverse regression estimation (IRE; Cook & Ni 2005), with R ``dr``'s conventions.

IRE fits the slice-mean matrix of the whitened predictors by a rank-``d`` product ``B C`` in
the metric of its estimated asymptotic covariance, so the minimised discrepancy is itself a
χ² test of dimension. Everything is computed in the whitened ``z`` scale (R ``dr``'s "Q
coordinates") and mapped back to the predictors only for the reported directions.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base.budget import STEP_SECONDS, check_count, check_loops
from ..base.tables import Block, dir_labels
from ..base.validation import Interval, Options, check_int
from ..fitting.estimator import Capabilities, EstimatorOutput
from ..fitting.formula_functions import fit_formula, formula_doc
from ..results.fitted import DimensionTest, Results, choose_by_pvalues
from ..scale import is_chunked
from ..stats.linalg import canonical_basis, sym_eigh_desc
from ..stats.slicing import default_nslices
from ._core import Standardized
from ._ire_als import (
    CORRECTIONS,
    Discrepancy,
    chi2_upper,
    corrected_upper,
    factor_blocks,
    helmert_basis,
    importance_order,
    shared_discrepancy,
    solve_rounds,
)
from .ire_passes import RECOMPUTABLE, final_factors, fit_ire
from .methods import MomentEstimator, MomentResults
from .pire import fit_grouped, group_column, group_values, partial_coordinate_test

#: The line under the test table naming a small-sample version of the statistic.
CORRECTION_NOTES = {
    "F": "p-values: Yuan & Bentler's (1999) F version, T (n - df) / ((n - 1) df) ~ F(df, n - df).",
    "yuan_bentler": "p-values: Yuan & Bentler's (1997) T / (1 + T/n) ~ chi2(df).",
}


#: How a fit's dimension line names the p-values of a small-sample version of the statistic.
CORRECTION_NAMES = {
    "F": "F-version p-values (Yuan & Bentler 1999)",
    "yuan_bentler": "Yuan & Bentler (1997) p-values",
}


#: Rows per slice-mean moment below which the summary says the χ² test runs large.
SMALL_SAMPLE_ROWS = 20


def small_sample_note(n: int, extras: dict[str, Any]) -> str | None:
    """The summary's line when ``n`` is small for the number of slice-mean moments.

    IRE's tests weigh the ``m = p(h − 1)`` moments of ``vec(ζ)`` (summed over the groups of
    partial IRE) by the inverse of their covariance estimated from the same ``n`` rows. With
    fewer than :data:`SMALL_SAMPLE_ROWS` rows a moment the χ² reference rejects a true
    dimension well above its level (``benchmarks/bench_ire_size.md``).

    Examples
    --------
    >>> print(small_sample_note(500, {"dfs": {0: 48}}))
    n = 500 is small for the 48 slice-mean moments the tests weigh (p(h - 1); fewer than 20 rows a moment): the chi2 tests can reject a true dimension more often than their level (8-12% at level 0.05 with 6 rows a moment, in simulation). test_dimension(correction="F") is a small-sample version; fewer slices also help.
    >>> small_sample_note(2000, {"dfs": {0: 48}}) is None
    True
    """
    moments = extras.get("dfs", {}).get(0)
    if not moments or n >= SMALL_SAMPLE_ROWS * moments:
        return None
    return (
        f"n = {n} is small for the {moments} slice-mean moments the tests weigh (p(h - 1); "
        f"fewer than {SMALL_SAMPLE_ROWS} rows a moment): the chi2 tests can reject a true "
        "dimension more often than their level (8-12% at level 0.05 with 6 rows a moment, in "
        'simulation). test_dimension(correction="F") is a small-sample version; fewer '
        "slices also help."
    )


#: The share of the rows that IRE's default slicing allows as slice-mean moments p(h − 1).
MOMENTS_PER_ROW = 0.5


def default_ire_nslices(p: int, n: float | None = None) -> int:
    """IRE's default number of slices: R ``dr``'s ``max(8, p + 3)``, lowered when ``n`` rows
    are too few to estimate the covariance ``Γ_ζ`` of the ``p(h − 1)`` slice-mean moments.

    ``Γ_ζ`` is a covariance of ``p(h − 1)`` coordinates estimated from ``n`` rank-one
    terms, so it is singular when ``p(h − 1)`` reaches the number of distinct rows, and a
    bootstrap resample holds only about 63% of them (Efron & Tibshirani 1993). The default is
    the largest ``h`` up to R's with ``p(h − 1) ≤ n / 2`` (at least 3, two slice contrasts);
    an explicit ``nslices`` is always used as given, so R's numbers follow from it.

    Parameters
    ----------
    p : int
        Number of predictors.
    n : float, optional
        Number of rows (the sum of frequency weights); unknown: R's default.

    Returns
    -------
    int

    Examples
    --------
    >>> default_ire_nslices(8), default_ire_nslices(8, 93), default_ire_nslices(4, 202)
    (11, 6, 8)
    """
    h = default_nslices(p)
    if n is None:
        return h
    fitting = int(MOMENTS_PER_ROW * n // p) + 1
    return max(3, min(h, fitting))


def slicing_note(results: Results) -> str | None:
    """The summary's line when IRE's default slicing is below R ``dr``'s for the rows' count."""
    if results.estimator.options["nslices"] or results.estimator.options["cut_points"] is not None:
        return None
    r_default = default_nslices(results.p)
    h = len(results.output.extras.get("slice_sizes", ()))
    if not h or results.estimator.nslices_for(results.p, results.n) >= r_default:
        return None
    return (
        f"{h} slices, below R dr's default max(8, p + 3) = {r_default}: with n = {results.n} "
        f"rows the covariance of the p(h - 1) slice-mean moments is estimable (in bootstrap "
        f"resamples too) when p(h - 1) <= n/2. Pass nslices={r_default} for R's slicing."
    )


class IREResults(MomentResults):
    """Results of :class:`IRE`; the summary lists the solution of every dimension as R does.

    A fit of rows in memory keeps the Cholesky factor of its final ``Γ_ζ`` (``p(h − 1)``
    square) only within :data:`~sdrstats.base.budget.KEPT_BYTES` and never saves or pickles
    it: the coordinate tests recompute it from the fit's rows when first needed
    (:func:`~sdrstats.moment.ire_passes.final_factors`; see :class:`IRE`'s notes).

    Parameters
    ----------
    estimator, spec, output, call, random_state : Estimator, ModelSpec, EstimatorOutput, str, int
        As :class:`sdrstats.Results`; the method's formula function builds it.

    See Also
    --------
    ire : The method that returns it.
    sdrstats.moment.results.MomentResults : The moment methods' results.

    References
    ----------
    :cite:t:`cook2005`; :cite:t:`wen2007`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.ire("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d_max=2)
    >>> type(fit).__name__, sorted(fit.extras["solutions"])
    ('IREResults', [1, 2])
    """

    def __getstate__(self) -> dict[str, Any]:
        """Saved and pickled state: a fit of rows in memory leaves out its final ``Γ_ζ``
        factor (its rows give it again, see
        :func:`~sdrstats.moment.ire_passes.final_factors`); a fit on chunks keeps it."""
        state = super().__getstate__()
        output = state.get("output")
        extras = getattr(output, "extras", None)
        rows = getattr(getattr(self, "spec", None), "keeps_rows", False)
        if rows and isinstance(extras, dict) and set(RECOMPUTABLE) & set(extras):
            kept = {k: v for k, v in extras.items() if k not in RECOMPUTABLE}
            state["output"] = dataclasses.replace(output, extras=kept)
        return state

    def _summary_blocks(self) -> list[Block]:
        blocks = [b for b in super()._summary_blocks() if not b.title.startswith("Estimated")]
        slicing = slicing_note(self)
        if slicing:
            at = next((i + 1 for i, b in enumerate(blocks) if b.title.startswith("Method")), 0)
            blocks.insert(at, Block("Slicing", text=slicing))
        note = small_sample_note(self.n, self.output.extras)
        if note:
            at = next(
                (i + 1 for i, b in enumerate(blocks) if b.title.startswith("Large-sample")),
                len(blocks),
            )
            blocks.insert(at, Block("Small sample", text=note))
        blocks.append(Block("Solutions for various dimensions", text=""))
        for k, basis in sorted(self.output.extras["solutions"].items()):
            frame = pd.DataFrame(basis, index=self.x_names, columns=dir_labels(k))
            blocks.append(Block(f"Dimension = {k}", table=frame))
        return blocks


class IRE(MomentEstimator):
    """Inverse regression estimation (Cook & Ni 2005), as R ``dr``'s ``method = "ire"``.

    Parameters
    ----------
    nslices : int, optional
        Number of slices; default R ``dr``'s ``max(8, p + 3)``, lowered to the largest ``h``
        with ``p(h − 1) ≤ n/2`` when the rows are too few to estimate the covariance of the
        slice-mean moments (:func:`default_ire_nslices`; the summary says so). Given, it is
        used as is, as in R.
    slice_function : {"dr", "arc"}, default "dr"
        Slicing rule.
    d_max : int, default 4
        Largest dimension fitted and tested (capped at ``p − 1`` as R; R ``dr``'s ``numdir``,
        accepted as an alias). Dimensions
        ``d >= h − 1`` fit the slice means exactly; R reports them anyway (df <= 0).
    d : int, optional
        Dimension whose solution is reported by ``directions``; default chosen by ``d_rule``
        (the χ² tests at level 0.05).
    cut_points : sequence of float, optional
        Fixed slice boundaries instead of ``nslices`` (see :class:`~sdrstats.moment.SIR`).
    steps : int, default 1
        Re-estimations of ``Γ_ζ`` at the fitted span (as R). Bounded by the time limit
        (``sdr.set_config(max_time=...)``, see :meth:`check_budget`).
    tol : float, default 1e-6
        Relative change of the discrepancy that stops the iterations.
    max_iter : int, default 200
        Sweeps of alternating least squares before a ConvergenceWarning; bounded by the time
        limit as ``steps`` is.
    d_rule : {"asymptotic"}
        The rule choosing ``d`` when it is not given: Cook & Ni's χ² tests at level 0.05
        (the only rule IRE has, since it has no eigenvalues).
    random_state : int, SeedSequence or Generator, optional
        The fit's seed (IRE draws nothing): ``bootstrap()`` and ``conditional_density()``
        draw from streams derived from it. None draws one, which the summary prints.
    group : str, optional
        A column of ``data`` (or ``"~ G"``): partial IRE (Wen & Cook 2007), R's
        ``dr(..., group = ~G, method = "ire")``. One subspace is shared by the levels of the
        group; each level is sliced on its own (default ``nslices`` is then p, as R), and
        every level needs at least p rows. Only the formula function :func:`ire` fits it (its
        model spec carries the rows' levels, see :mod:`.pire`); refits on resampled rows
        (the bootstrap) keep each row's level; case weights are not available with it.

    See Also
    --------
    ire : The formula function (``sdr.ire(formula, data)``).
    sdrstats.moment.ire.IREResults : What ``fit`` returns.
    sir : The method whose slice means IRE refits optimally.

    Notes
    -----
    With ``ξ`` the p × h slice means of ``z``, ``f`` the slice fractions and ``A`` an
    orthonormal basis of the contrasts, ``ζ = ξ diag(f) A``. For each ``d`` IRE minimises

    .. math:: F_d(B, C) = n\\,\\mathrm{vec}(ζ − BC)ᵀ\\, Γ_ζ^{-1}\\, \\mathrm{vec}(ζ − BC)

    over p × d ``B`` and d × (h − 1) ``C`` by alternating least squares started at the first
    ``d`` SIR eigenvectors, re-estimates ``Γ_ζ`` with the slice means projected on the fitted
    span and minimises again. ``F_d ~ χ²((p−d)(h−1−d))`` tests "dD vs > dD"; "0D vs > 0D" is
    ``n vec(ζ)ᵀΓ_ζ^{-1}vec(ζ)`` with ``Γ_ζ`` estimated under independence (slice means set
    to zero), exactly as R ``dr`` computes it. The columns of each solution are ordered by
    importance through sequential one-dimensional fits.

    The stopping rule is R's (relative change of ``F`` below ``tol`` between sweeps). ALS
    converges linearly, so at the default ``tol = 1e-6`` a minimum can still be about 1e-4
    (relative) above the exact one, and the restricted fits of conditional coordinate tests
    then depend slightly on the predictors' scales; R's numbers carry the same error. Pass a
    smaller ``tol`` (and larger ``max_iter``) for the exact minimum.

    The fit is passes over the rows, the same in memory and on chunked and Dask data
    (``sdr.ire(formula, sdr.chunks_from(...))``, partial IRE included): the slice moments,
    then sums from which ``Γ_ζ`` follows (per-slice second moments and, through their
    symmetric pair products, the third and fourth moments ``Γ_ζ`` is made of; see
    :mod:`sdrstats.moment.ire_passes`). When every slicing has at least as many slices as
    predictors (R's defaults do) the rows are read **twice**: once for the moments, once for
    sums from which every ``Γ_ζ`` of every dimension and re-estimation step follows in closed
    form. With fewer slices than predictors each pass keeps only the spans it needs, and the
    rows are read ``steps + 3`` times (the moments; the first ``Γ_ζ``; one pass per
    re-estimation round, for all dimensions at once; the final ``Γ_ζ``). On chunks the exact
    slices come from passes over the response alone (per group for partial IRE), and the fit
    records the counts in ``row_passes`` and ``slicing_passes``.

    Most of the work is ``Γ_ζ``'s and does not shrink with the slicing's structure. Its
    fourth moments take about ``n p⁴/24`` products at R's default slicing (``n k² p²/4``
    along spans of ``k`` columns below it, for each span a round asks for), against ``n
    p²/2`` for one ``X.T @ X``: about 230 times the floor's products at p = 50, whatever the
    BLAS. Each ``Γ_ζ`` but the independence one (which comes from the slices' second moments
    in closed form) is then factored, and those the alternating least squares use are
    inverted: at p(h − 1) = 2,650 a Cholesky factorisation is about 14 floors and an inverse
    19, six and five of them a fit. The sweeps use the Kronecker structure of the
    discrepancy (see :mod:`sdrstats.moment._ire_als`), but each reads ``Γ^{-1}`` twice, and
    ALS takes a few hundred sweeps. At n = 1e5, p = 50 a fit costs some 600-800 ``X.T @ X``
    of CPU time with R's 54 slices and some 110 with ``nslices=10``.

    What a fit keeps: its rows (as every fit of rows in memory does), the slice-mean matrix
    ``ζ``, each dimension's solution, criterion and sweeps: all that ``summary()``,
    ``test_dimension()`` and ``bootstrap()`` read. The coordinate tests (and ``drop1``) also
    need the Cholesky factor of the final ``Γ_ζ``, ``p(h − 1)`` square (56 MB at p = 50 with
    R's 54 slices). The fit holds it only within
    :data:`~sdrstats.base.budget.KEPT_BYTES` (8 MiB, ``p(h − 1) ≤ 1,024``) and never saves
    it; past the budget, or after loading, the first test recomputes it from the rows (a pass
    of sums along the largest fitted dimension's span: the fit's factor to rounding, 1e-15 of
    its largest entry, in a sixth of the fit's CPU time at n = 1e5, p = 50) and keeps it
    beside the fit, in a weak-keyed map, while the fit lives
    (:func:`~sdrstats.moment.ire_passes.final_factors`). A fit on chunked data has no rows to
    recompute it from, so it keeps and saves the factor whatever its size.

    References
    ----------
    :cite:t:`cook2005`; :cite:t:`wen2007`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.ire("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d_max=2)
    >>> fit.test_dimension().table.index.tolist()
    ['0D vs > 0D', '1D vs > 1D', '2D vs > 2D']
    """

    method = "ire"
    capabilities = Capabilities(
        eigenvalues=False,
        asymptotic_test=True,
        from_statistics=True,
        case_weights=True,
        nested_directions=False,
    )
    results_class = IREResults
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **MomentEstimator._parameter_constraints,
        "steps": [Interval(int, 0, None)],
        "tol": [Interval(float, 0, None, closed="neither")],
        "max_iter": [Interval(int, 1, None)],
        "group": [str, None],
        "d_rule": [Options(("asymptotic",))],
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
        steps: int = 1,
        tol: float = 1e-6,
        max_iter: int = 200,
        group: str | None = None,
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    @classmethod
    def _fit_formula(
        cls,
        formula: str,
        data: Any,
        options: dict[str, Any],
        *,
        missing: str = "drop",
        subset: Any = None,
        weights: Any = None,
    ) -> Results:
        """Fit ``formula`` on ``data``; with ``group=`` the partial IRE of Wen & Cook (2007).

        Parameters
        ----------
        formula, data, options, missing, subset, weights
            As :meth:`sdrstats.fitting.estimator.Estimator.from_formula` (``options`` under
            their names, already translated); ``group`` names a
            column of ``data`` (see :func:`.pire.fit_grouped`).

        Returns
        -------
        IREResults

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.IRE.from_formula("lbm ~ log(wt) + log(ht) + log(hg)", ais, group="sex")
        >>> fit.extras["group_levels"]
        ['f', 'm']
        """
        options = dict(options)
        group = options.pop("group", None)
        if group is not None and is_chunked(data):
            options["group"] = group_column(group)  # read from every chunk (FormulaPlan)
            group = None
        if group is None:
            return super()._fit_formula(
                formula, data, options, missing=missing, subset=subset, weights=weights
            )
        if weights is not None:
            raise ValueError(
                "Partial IRE (group=) with case weights is not available; R dr itself fails "
                "on it when a weight is zero. Drop weights= or group=."
            )
        return fit_grouped(cls, formula, data, group, missing=missing, subset=subset, **options)

    def nslices_for(self, p: int, n: float | None = None) -> int:
        """The ``nslices`` option, or R ``dr``'s ``max(8, p + 3)`` lowered to keep ``Γ_ζ``
        estimable from ``n`` rows (see :func:`default_ire_nslices`)."""
        if self.options["nslices"]:
            return self.options["nslices"]
        return default_ire_nslices(p, n)

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        super()._check_data(X, Y, categorical)
        d, p = self.options["d"], X.shape[1]
        if p < 2:
            raise ValueError("ire needs at least two predictors (it fits dimensions below p).")
        if d is not None and d > p - 1:
            raise ValueError(f"The 'd' option of ire must be at most p - 1 = {p - 1}; got {d}.")
        self.check_budget(X.shape[0], p)

    def check_budget(self, n: int | None, p: int) -> None:
        """Refuse ``steps`` or ``max_iter`` whose predicted time is past ``sdr.set_config``'s
        limit, before the fit starts (``n`` None: not yet known, as for chunked data).

        A re-estimation step estimates ``Γ_ζ`` again (about ``n h p²`` flops; one more pass
        over chunked rows) and refits every dimension; each fit is at most ``max_iter + 1``
        sweeps of alternating least squares, at least :data:`~sdrstats.base.budget.STEP_SECONDS`
        each.
        """
        o = self.options
        h = self.nslices_for(p, n)
        dims = max(min(o["d_max"], p - 1), o["d"] or 1)
        at = f" at n = {n:,}" if n is not None else ""
        # a step at n = 60, p = 4: about 0.05 s (fits of 3 dimensions and their importance
        # orders, some 50 sweeps each), plus Γ_ζ over the rows
        per_step = max(1e-9 * (n or 0) * h * p * p, STEP_SECONDS) + 2 * dims * 50 * STEP_SECONDS
        check_count("ire", "steps", o["steps"], unit="re-estimation steps",
                    seconds_each=per_step, at=at)  # fmt: skip
        # each step fits every dimension and its importance order, up to max_iter sweeps each
        fits = 2 * dims * (o["steps"] + 1)
        check_loops("ire", {"max_iter": o["max_iter"]}, fits * STEP_SECONDS, unit="sweeps",
                    at=f" in each of {fits} fits{at}")  # fmt: skip

    def fit_output(
        self,
        spec: Any,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        """IRE of ``spec``'s rows; with ``group=``, partial IRE in the spec's groups.

        Parameters
        ----------
        spec : ModelSpec
            Rows, names, case weights and (partial IRE) the group of each row.
        weights : ndarray of shape (n,), optional
            Frequency weights (not with ``group=``).
        random_state : optional
            Unused (IRE is deterministic).

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> fit = sdr.ire("lbm ~ log(wt) + log(ht) + log(hg)", sdr.datasets.load("ais"))
        >>> fit.estimator.fit_output(fit.spec).extras["numdir"]
        2
        """
        if self.options["group"] is not None and spec.keeps_rows:
            group_values(self, spec.groups, spec.n, weights)
        return super().fit_output(spec, weights=weights, random_state=random_state)

    def fit_source(self, source: Any) -> EstimatorOutput:
        """IRE's passes over ``source``: the slice moments, then the sums every ``Γ_ζ``
        follows from (see :mod:`sdrstats.moment.ire_passes`); partial IRE with ``group=``.

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
        >>> fit = sdr.ire("lbm ~ log(wt) + log(ht) + log(hg)", parts)  # its passes read chunks
        >>> fit.row_passes
        2
        """
        if self.options["group"] is not None and source.keeps_rows:
            group_values(self, source.groups, source.n, source.frequency)
        return fit_ire(self, source)

    def solve(self, std: Standardized, moments: Any, f: np.ndarray, gammas: Any) -> EstimatorOutput:
        """IRE's fits from the slice moments and a source of ``Γ_ζ`` factors.

        ``gammas(requests)`` gives the factor of each request (see
        :func:`._ire_als.solve_rounds`), from the sums of passes over the rows
        (:mod:`.ire_passes`).
        """
        n, xi = std.n, moments.means.T
        p, h = xi.shape
        numdir = min(self.options["d_max"], p - 1)  # as R; d >= h - 1 gives exact fits
        d_report = self.options["d"]
        top = max(numdir, d_report or 0)
        tol, max_iter = self.options["tol"], self.options["max_iter"]
        zeta = (xi * f) @ helmert_basis(h)
        _, sir_vectors = sym_eigh_desc((xi * f) @ xi.T)
        solutions, criteria, iterations = solve_rounds(
            lambda factor: Discrepancy(zeta, factor, n),
            gammas,
            sir_vectors,
            top,
            self.options["steps"],
            tol,
            max_iter,
            importance_order,
        )
        (final_factor,) = gammas([solutions[numdir]])
        d = d_report or numdir
        raw = solutions[d]
        basis = canonical_basis(std.back_transform(raw))
        extras: dict[str, Any] = {
            "slice_sizes": moments.slices.sizes,
            "numdir": numdir,
            "zeta": zeta,
            "gamma_factor": final_factor,
            "raw_solutions": solutions,
            "solutions": {k: canonical_basis(std.back_transform(v)) for k, v in solutions.items()},
            "criteria": criteria,
            "iterations": iterations,
            "dfs": {k: (p - k) * (h - 1 - k) for k in criteria},
        }
        return EstimatorOutput(
            basis=basis,
            d=d,
            eigenvalues=None,
            criterion=criteria[d],
            center=std.mean,
            extras=extras,
        )

    def output_for_dimension(
        self, output: EstimatorOutput, d: int, spec: Any, *, random_state: Any = None
    ) -> EstimatorOutput:
        """The fit's ``d``-dimensional solution (every ``d`` up to ``d_max`` is fitted); a
        rule rejecting every dimension IRE can fit (at most ``p - 1``) gets the largest."""
        solutions, criteria = output.extras.get("solutions", {}), output.extras.get("criteria", {})
        if solutions and d >= spec.p:
            d = max(solutions)
        if d in solutions:
            return dataclasses.replace(
                output, basis=solutions[d], d=d, criterion=criteria.get(d, output.criterion)
            )
        return super().output_for_dimension(output, d, spec, random_state=random_state)

    # -- tests ---------------------------------------------------------------------------
    def asymptotic_test(
        self,
        results: Results,
        d_max: int | None = None,
        level: float = 0.05,
        correction: str | None = None,
    ) -> DimensionTest:
        """Cook & Ni's χ² tests "dD vs > dD" for d = 0..d_max (R ``dr``'s table).

        Parameters
        ----------
        results : Results
            The IRE fit.
        d_max : int, optional
            Largest hypothesis tested; default the fit's ``d_max``.
        level : float, default 0.05
            Level at which the smallest non-rejected ``d`` is chosen.
        correction : {None, "F", "yuan_bentler"}, default None
            None is R ``dr``'s χ² reference. The statistic weighs the ``p(h − 1)`` slice-mean
            moments by the inverse of their covariance estimated from the same rows, and the
            χ² reference rejects a true dimension too often unless ``n`` is large against
            that number: ``"F"`` (Yuan & Bentler 1999) and ``"yuan_bentler"`` (Yuan &
            Bentler 1997) are small-sample versions (see
            :func:`sdrstats.moment._ire_als.corrected_upper`; their size by simulation is in
            ``benchmarks/bench_ire_size.md``).

        Returns
        -------
        DimensionTest
        """
        if correction not in CORRECTIONS:
            raise ValueError(
                f"IRE's test: correction must be one of {list(CORRECTIONS)}; got {correction!r}."
            )
        ex = results.output.extras
        top = (
            ex["numdir"]
            if d_max is None
            else min(check_int(d_max, "d_max", self.method, low=0), ex["numdir"])
        )
        # "dD vs > dD" has df (p - d)(h - 1 - d): only d < h - 1 is a test (R also prints the
        # rows with df <= 0 when h is small; a 2-class response has one test, d = 0)
        h = len(ex["slice_sizes"])
        top = max(0, min(top, h - 2))
        rows = range(top + 1)
        stat = np.array([ex["criteria"][k] for k in rows])
        df = np.array([ex["dfs"][k] for k in rows])
        n = results.n
        pv = np.array([corrected_upper(s, k, n, correction) for s, k in zip(stat, df)])
        table = pd.DataFrame(
            {
                "stat": stat,
                "df": df,
                "p_value": pv,
                "iterations": [ex["iterations"][k] for k in rows],
            },
            index=[f"{k}D vs > {k}D" for k in rows],
        )
        return DimensionTest(
            table,
            choose_by_pvalues(pv, level),
            "asymptotic",
            self.method,
            level=level,
            title="Large-sample Marginal Dimension Tests",
            display_names={"stat": "Test", "p_value": "p.value", "iterations": "iter"},
            note=CORRECTION_NOTES.get(correction),
            decided_by=CORRECTION_NAMES.get(correction),
        )

    def coordinate_test_basis(
        self, results: Results, gamma: np.ndarray, d: int | None = None
    ) -> dict[str, Any]:
        """Coordinate test of ``span(gamma)`` (p × (p − r), the predictors kept).

        ``d=None``: the marginal test (Cook & Ni eq. 12), ``χ²(r(h−1))``; ``d=k``: the
        conditional test (eq. 14), ``F_joint − F_k ~ χ²(r·k)``. Both use ``Γ_ζ`` re-estimated
        at the largest fitted dimension, as R ``dr`` does.
        """
        factor = final_factors(results)
        if self.options["group"] is not None:
            return partial_coordinate_test(self, results, gamma, d, factor)
        ex = results.output.extras
        std, _ = results._prepared()
        zeta, n = ex["zeta"], results.n
        p, h1 = zeta.shape
        kept = std.whiten_direction(gamma)
        r = p - kept.shape[1]
        if d is None:
            full, _ = np.linalg.qr(kept, mode="complete")
            H = full[:, p - r :]
            W = factor_blocks(factor, H)  # G (I ⊗ H)
            v = (H.T @ zeta).reshape(-1, order="F")
            stat = float(n * v @ np.linalg.solve(W.T @ W, v))
            df = r * h1
        else:
            disc = shared_discrepancy(results, zeta, factor, n)
            tol, max_iter = self.options["tol"], self.options["max_iter"]
            if d in ex["criteria"] and d <= ex["numdir"]:
                free = ex["criteria"][d]
            else:
                free = disc.minimise(d, tol=tol, max_iter=max_iter)[1]
            joint = disc.minimise(d, T=kept, tol=tol, max_iter=max_iter)[1]
            stat, df = joint - free, r * d
        return {
            "statistic": stat,
            "df": df,
            "p_value": chi2_upper(stat, df),
            "p_values": {"chi2": chi2_upper(stat, df)},
            "weights": "chi2",
        }


@formula_doc(IRE)
def ire(
    formula: str,
    data: Any,
    *,
    nslices: int | None = None,
    slice_function: str = "dr",
    d_max: int = 4,
    d: int | None = None,
    d_rule: str = "asymptotic",
    cut_points: Any = None,
    steps: int = 1,
    tol: float = 1e-6,
    max_iter: int = 200,
    group: str | None = None,
    random_state: Any = None,
    numdir: int | None = None,
    weights: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> MomentResults:
    """Inverse regression estimation from a formula; see :class:`IRE` for the options.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {aliases}
    {weights}
    {missing}
    {subset}

    Returns
    -------
    MomentResults
        With R ``dr``'s IRE summary (the solution of every dimension).

    See Also
    --------
    IRE : The estimator, for arrays (``IRE(...).fit(X, y)``).
    sdrstats.moment.ire.IREResults : What it returns.
    sir : The method whose slice means IRE refits optimally.

    References
    ----------
    :cite:t:`cook2005`; :cite:t:`wen2007`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.ire("lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)", ais, nslices=8, d_max=2)
    >>> fit.directions.shape
    (4, 2)
    """
    return fit_formula(IRE, locals(), "ire")


__all__ = ["IRE", "IREResults", "ire"]
