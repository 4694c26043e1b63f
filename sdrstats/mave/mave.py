"""MAVE, OPG and kernel SIR: the estimator and its formula function ``mave``."""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, ClassVar

import numpy as np

from ..base.budget import STEP_SECONDS, check_count
from ..base.parallel import blas_threads_for
from ..base.validation import Interval, Options, TooFewRowsError
from ..base.warnings import ConvergenceWarning
from ..fitting.estimator import Capabilities, Estimator, EstimatorOutput
from ..fitting.formula_functions import fit_formula, formula_doc
from ..results.fitted import DimensionTest, Results
from ..stats.linalg import canonical_basis
from .algorithms import backward_path, dimension_sequence, kernel_sir
from .cv import choose_dimension, cv_values
from .prepare import (
    CENTRAL_SUBSPACE,
    KERNEL_Y_POINTS,
    MEAN_SUBSPACE,
    VARIANTS,
    Y_TRANSFORMS,
    default_screen,
    default_y_points,
    make_targets,
    screening_utility,
    whiten,
)
from .results import MaveResults


def convergence_message(variant: str, d: int, stalled: list[int], max_iter: int) -> str:
    """The ConvergenceWarning text naming every dimension whose iterations did not reach tol."""
    dims = ", ".join(map(str, stalled))
    head = (
        f"mave ({variant}) iterations for d = {d} did not reach 'tol' within max_iter = "
        f"{max_iter} iterations"
        if d in stalled
        else f"mave ({variant}) iterations did not reach 'tol' within max_iter = {max_iter} "
        f"iterations for d = {dims} (the reported d = {d} did)"
    )
    others = [k for k in stalled if k != d]
    if d in stalled and others:
        head += f" (nor for d = {', '.join(map(str, others))})"
    return (
        f"{head}; raise 'max_iter' (e.g. max_iter={2 * max_iter}) or loosen 'tol'. These "
        "solutions enter the CV choice of d and directions_for(k); the summary's iteration "
        "table shows every dimension."
    )


class MAVE(Estimator):
    """Local-linear sufficient dimension reduction: OPG, MAVE and kernel SIR, as R ``MAVE``.

    The fit follows the compiled code of R ``MAVE`` 1.3.11 step by step (screening,
    standardisation, response transform, dimension path, bandwidths, centres, ridges,
    iterations); on identical data its directions equal R's to rounding (see Notes).

    Parameters
    ----------
    variant : {"csmave", "csopg", "meanmave", "meanopg", "ksir"}, default "csmave"
        ``"csmave"`` (default; Xia 2007) and ``"csopg"`` estimate the central subspace;
        ``"meanmave"`` and ``"meanopg"`` (Xia, Tong, Li & Zhu 2002) the central mean subspace;
        ``"ksir"`` is kernel sliced inverse regression (the Nadaraya–Watson inverse regression
        curve; not R's KSIR). Case is ignored (R's ``"csMAVE"`` works). R's ``MAVE`` calls
        this option ``method``; here ``method`` names the estimator only.
        R's own default is ``"csopg"``, which is faster.
    d : int, optional
        Dimension reported by ``directions`` and ``transform``; ``None`` (default) chooses it
        by ``d_rule``. With ``d`` given the CV table is computed only when asked for.
    d_max : int, default 10
        Solutions are kept for every dimension ``1..d_max`` (capped at the number of
        predictors kept by screening), available through ``directions_for(k)``; R's
        ``MAVE`` calls it ``max.dim``.
    screen : int, optional
        When there are more predictors than ``screen`` (default ``⌈n / log n⌉`` as in R), only
        the ``screen`` predictors with the largest distance correlation with the response
        (:func:`~sdrstats.mave.prepare.screening_utility`) enter the fit; the others get zero
        coefficients.
    bandwidth : float, optional
        Fixed Gaussian-kernel bandwidth on the reduced whitened predictors for every step.
        Default R's ``h = 1.2 · mean sd(ZB) · n^{-1/(k+4)}`` at dimension ``k``; either way the
        squared kernel scale at a centre is at least its ``2k``-th smallest squared distance.
    y_transform : {"indicator", "kernel"}
        How the central-subspace methods transform the response. ``"indicator"`` (default,
        R's): ``1(y < q)`` at ``y_points`` quantiles, reduced to the principal components
        carrying 99% of their variance. ``"kernel"``: Gaussian kernels ``φ((y − t)/b)`` of
        the standardised response at ``y_points`` quantiles (Xia 2007's density kernel). On
        the benchmark models the kernels' solutions were closer to the truth by 0.003–0.02
        in projection distance, most on R's heteroscedastic example
        (``benchmarks/bench_mave_cv.md``); the indicators are the default for parity with R.
    y_bandwidth : float, optional
        Bandwidth of the response kernel on the standardised response (``y_transform=
        "kernel"`` and kernel SIR); default ``1.06 n^{-1/5}``.
    y_points : int, optional
        Number of response quantiles of the transform; default R's ``max(min(99, n),
        ⌊n^0.6⌋)`` for the indicators, 10 for the kernels.
    max_iter : int, optional
        Iterations at each dimension of the path; default R's 5 for ``k ≤ 10``, 2 for
        ``10 < k < 20``, 1 beyond (50 when ``tol`` is given).
    tol : float, optional
        When given, the iterations at a dimension stop once the subspace moves less than
        ``tol`` (projection distance), and a :class:`~sdrstats.ConvergenceWarning` names the
        dimensions that did not get there within ``max_iter``. Default ``None``: R's fixed
        number of iterations; the summary shows the last move of every dimension.
    d_rule : {"cv", "bootstrap", "permutation"}
        The rule that chooses ``d`` when it is not given. ``"cv"`` (default): the minimiser
        over ``d = 0..d_max`` of R ``mave.dim``'s cross-validation criterion (its
        ``dim.min``; :mod:`sdrstats.mave.cv`), read from the solutions of the fit's own
        dimension path, so it costs a leave-one-out pass per ``d``; a minimum at ``d = 0``
        keeps ``d = 1`` with a warning. It seldom picks ``d = 0`` when the response does not
        depend on the predictors: ``test_dimension("permutation")`` tests that.
    random_state : int, SeedSequence or Generator, optional
        The fit's seed (MAVE itself draws nothing): the rules that resample, ``bootstrap()``
        and ``conditional_density()`` draw from streams derived from it. None draws one,
        which the summary prints.

    See Also
    --------
    mave : The formula function (``sdr.mave(formula, data)``).
    sdrstats.mave.results.MaveResults : What ``fit`` returns.
    sir, lsce : Methods that need no local smoothing, or model the whole density.

    Notes
    -----
    The predictors are standardised and whitened. OPG estimates the subspace from the outer
    products of local-linear slopes, ``U = Σ_j b_j b_jᵀ``; MAVE alternates the local fits
    ``(a_j, C_j)`` on ``Bᵀ(Z_i − Z_j)`` and the weighted least-squares update of ``B`` in
    ``Σ_j Σ_i w_ij ‖T_i − a_j − C_jᵀ Bᵀ(Z_i − Z_j)‖²``. ``T`` is the response (mean
    subspace) or the principal components of the indicators ``1(y < q_l)`` at many response
    quantiles (central subspace; see :func:`~sdrstats.mave.prepare.make_targets`). The
    dimension is reduced one step at a time, from ``p`` to 1, each step starting from the
    previous solution (:mod:`sdrstats.mave.algorithms`); the MAVE variants use MAVE steps
    for ``k ≤ 5`` and OPG steps above, as R does. Local fits are made at about 100 centres
    spread over the data (every observation when ``n ≤ 100``), so an iteration costs
    ``O(100 · n · p (p + r))`` for ``r`` target columns, on one BLAS thread (parallelism
    belongs to resampling's ``n_jobs``).

    Before anything is allocated the fit checks its budget (``sdr.set_config``): the
    response transform holds about ``6 n (L + p)`` floats for ``L = y_points`` quantiles
    (R's default ``L`` grows as ``n^0.6``: about 14 GiB at ``n = 200,000``), and ``max_iter``
    iterations at each dimension of the path are timed by the cost above; past the memory
    or time limit the fit is refused with the estimate, naming ``y_points`` or ``max_iter``.

    Checked against R ``MAVE`` 1.3.11 on R's own examples and on simulated data
    (``tests/reference/make_r_mave.R``, ``tests/test_r_mave.py``): the directions of every
    dimension agree to rounding (projection distance at most 7e-8, mostly below 1e-12; the
    test allows 1e-6), the CV values to 4e-13 relative and the chosen ``d`` exactly. One
    deliberate difference: for ``200 ≤ n < 300`` R forms its centres from pairs of rows and
    takes the member nearer the pair's mean, a tie its rounding breaks; sdrstats takes the
    first of the pair, so there the two agree only to the statistical error.

    References
    ----------
    :cite:t:`xia2002`; :cite:t:`xia2007`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal((200, 3))
    >>> y = np.sin(x[:, 0] + x[:, 1]) + 0.1 * rng.standard_normal(200)
    >>> fit = sdr.MAVE(variant="meanopg", d=1).fit(x, y)
    >>> fit.directions.round(1)["Dir1"].tolist()
    [0.7, 0.7, 0.0]
    """

    method = "mave"
    capabilities = Capabilities(cv_test=True, nested_directions=False)
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "variant": [Options(VARIANTS, ignore_case=True)],
        "d": [Interval(int, 1, None), None],
        "d_max": [Interval(int, 1, None)],
        "screen": [Interval(int, 1, None), None],
        "bandwidth": [Interval(float, 0, None, closed="neither"), None],
        "y_transform": [Options(Y_TRANSFORMS)],
        "y_bandwidth": [Interval(float, 0, None, closed="neither"), None],
        "y_points": [Interval(int, 2, None), None],
        "max_iter": [Interval(int, 1, None), None],
        "tol": [Interval(float, 0, None, closed="neither"), None],
        "d_rule": [Options(("cv", "bootstrap", "permutation"))],
        "random_state": ["random_state"],
    }
    results_class = MaveResults

    def __init__(
        self,
        *,
        variant: str = "csmave",
        d: int | None = None,
        d_max: int = 10,
        screen: int | None = None,
        bandwidth: float | None = None,
        y_transform: str = "indicator",
        y_bandwidth: float | None = None,
        y_points: int | None = None,
        max_iter: int | None = None,
        tol: float | None = None,
        d_rule: str = "cv",
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    def _check_options(self) -> None:
        o, variant = self.options, self.variant_name
        if o["y_transform"] == "kernel" and variant not in CENTRAL_SUBSPACE:
            raise ValueError(
                f"The 'y_transform' option of mave is for the central-subspace methods "
                f"(csmave, csopg); {variant} does not transform the response."
            )
        kernel = variant == "ksir" or o["y_transform"] == "kernel"
        if o["y_bandwidth"] is not None and not kernel:
            raise ValueError(
                f"The 'y_bandwidth' option of mave is for y_transform='kernel' or "
                f"variant='ksir'; {variant} transforms the response by indicators at its "
                "quantiles (see 'y_points')."
            )

    @property
    def variant_name(self) -> str:
        """The ``variant`` option in lower case (R's ``"csMAVE"`` is ``"csmave"``)."""
        return self.variant.lower()

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        n, p = X.shape
        if n < 10:
            raise TooFewRowsError(
                f"mave needs at least 10 observations for its local fits; got {n}."
            )
        d = self.options["d"]
        if d is not None and d > p:
            raise ValueError(f"The 'd' option of mave must be at most p = {p}; got {d}.")
        screen = self.options["screen"] or default_screen(n)
        if d is not None and d > screen:
            raise ValueError(
                f"The 'd' option of mave ({d}) exceeds the {screen} predictors kept by "
                "screening; raise 'screen' or lower 'd'."
            )
        self._check_budget(n, min(p, screen), categorical)

    def _check_budget(self, n: int, pk: int, categorical: bool) -> None:
        """Refuse, before anything is allocated, a fit whose response transform or
        iterations are past ``sdr.set_config``'s limits (see Notes of the class)."""
        o, variant = self.options, self.variant_name
        if variant in CENTRAL_SUBSPACE and not categorical:
            kernel = o["y_transform"] == "kernel"
            L = o["y_points"] or (KERNEL_Y_POINTS if kernel else default_y_points(n))
            # the n x L indicators (or kernels), their centred copy and principal components:
            # about 6 n x (L + p) float arrays at once (tracemalloc, n = 8,000 and 16,000)
            check_count(
                "mave",
                "y_points",
                L,
                unit="response quantiles",
                seconds_each=None,
                bytes_each=6 * 8.0 * n,
                fixed_bytes=6 * 8.0 * n * (pk + 10),
                at=f" at n = {n:,}",
                remedy="lower y_points (or fit on a random subsample of the rows)",
            )
        else:
            L = 1
        if variant == "ksir":
            return
        steps = len(dimension_sequence(pk, max(min(o["d_max"], pk), o["d"] or 1)))
        # one iteration: local fits at about 100 centres over n rows, O(100 n p (p + r)) for
        # r target columns (about 0.15 s at n = 16,000, p = 4 on a 2-core machine)
        per_iteration = max(2e-10 * 100 * n * pk * (pk + min(L, 100)), STEP_SECONDS)
        check_count(
            "mave",
            "max_iter",
            o["max_iter"] or (50 if o["tol"] is not None else 5),
            unit="iterations",
            seconds_each=steps * per_iteration,
            at=f" at each of the {steps} dimensions of the path, n = {n:,}",
        )

    # -- fitting -------------------------------------------------------------------------
    def _screen(self, X, Y, categorical, w) -> np.ndarray:
        n, p = X.shape
        keep = self.options["screen"] or default_screen(n)
        if p <= keep:
            return np.arange(p)
        utility = screening_utility(X, Y, categorical, w)
        return np.sort(np.argsort(-utility, kind="stable")[:keep])

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        # local systems of order p + 1: on two OpenBLAS threads on shared cores the blocked
        # products were 16x slower in bench_mave.py
        with blas_threads_for(X.shape[1] + 1):
            return self._fit_arrays(X, Y, weights)

    def _fit_arrays(
        self, X: np.ndarray, Y: np.ndarray, weights: np.ndarray | None
    ) -> EstimatorOutput:
        o = self.options
        variant = self.variant_name
        n, p = X.shape
        categorical = Y.ndim == 1 and Y.dtype.kind in "iu"
        w = None if weights is None else np.asarray(weights, dtype=float)
        kept = self._screen(X, Y, categorical, w)
        white = whiten(X[:, kept], w, "mave")
        Z = white.Z
        pk = Z.shape[1]
        d_max = max(min(o["d_max"], pk), o["d"] or 1)
        targets = make_targets(
            Y,
            variant,
            categorical,
            y_points=o["y_points"],
            y_bandwidth=o["y_bandwidth"],
            w=w,
            y_transform=o["y_transform"],
        )
        solutions: dict[int, Any] = {}
        if variant == "ksir":
            kernel_y = None if categorical else targets.y_std
            values, vectors = kernel_sir(Z, targets.T, kernel_y, targets.y_bandwidth, w)
            z_bases = {k: vectors[:, :k] for k in range(1, d_max + 1)}
            eigen = {k: values[:k] for k in z_bases}
        else:
            solutions = backward_path(
                Z,
                targets.T,
                variant,
                d_max,
                bandwidth=o["bandwidth"],
                max_iter=o["max_iter"],
                tol=o["tol"],
                obs_weights=w,
            )
            z_bases = {k: sol.basis for k, sol in solutions.items()}
            eigen = {k: sol.eigenvalues for k, sol in solutions.items()}
        bases = {}
        for k, zb in z_bases.items():
            full = np.zeros((p, k))
            full[kept] = white.back @ zb
            bases[k] = canonical_basis(full)
        # R's mave.data: the reduced predictors are the original predictors times the
        # directions (R's CV works on their ranks, which no shift or scale changes)
        cv_inputs = {
            "reduced": {k: X[:, kept] @ b[kept] for k, b in bases.items()},
            "targets": targets.cv_targets,
            "weights": w,
        }
        cv_table, cv_d = None, None
        d = o["d"]
        if d is None and o["d_rule"] == "cv":
            # the rule's table, read by test_dimension("cv"), which chooses the fit's d
            cv_table = cv_values(cv_inputs["reduced"], cv_inputs["targets"], w)
            cv_d = choose_dimension(cv_table)
            d = max(cv_d, 1)
        elif d is None:
            d = 1  # provisional: the fit's rule chooses among the bases of every dimension
        stalled = sorted(k for k, sol in solutions.items() if sol.converged is False)
        if stalled:
            limit = o["max_iter"] if o["max_iter"] is not None else 50
            warnings.warn(
                convergence_message(variant, d, stalled, limit),
                ConvergenceWarning,
                stacklevel=4,
            )
        center = X.mean(axis=0) if w is None else w @ X / w.sum()
        extras: dict[str, Any] = {
            "variant": variant,
            "bases": bases,
            "eigenvalues_by_dim": eigen,
            "d_max": d_max,
            "kept": kept,
            "bandwidths": {k: s.bandwidth for k, s in solutions.items()},
            "iterations": {k: s.iterations for k, s in solutions.items()},
            "changes": {k: s.changes[-1] for k, s in solutions.items()},
            "converged": {k: s.converged for k, s in solutions.items()},
            "tol": o["tol"],
            "y_bandwidth": targets.y_bandwidth,
            "y_points": targets.y_points if variant != "ksir" else None,
            "components": targets.components,
            "target_kind": targets.kind,
            "cv": cv_table,
            "cv_d": cv_d,
            "cv_inputs": cv_inputs,
        }
        return EstimatorOutput(
            basis=bases[d], d=d, eigenvalues=np.asarray(eigen[d]), center=center, extras=extras
        )

    def transform_arrays(self, output: EstimatorOutput, X: np.ndarray, d: int) -> np.ndarray:
        bases = output.extras["bases"]
        if d not in bases:
            raise ValueError(f"d must be between 1 and {max(bases)} (d_max); got {d}.")
        return (X - output.center) @ bases[d]

    @staticmethod
    def cv_table_of(output: EstimatorOutput) -> Any:
        """The fit's CV table, computed on first use when ``d`` was given."""
        extras = output.extras
        if extras["cv"] is None:
            inputs = extras["cv_inputs"]
            # local fits of order d + 1 for d = 1..d_max (the keys of "reduced")
            with blas_threads_for(max(inputs["reduced"], default=0) + 1):
                extras["cv"] = cv_values(inputs["reduced"], inputs["targets"], inputs["weights"])
        return extras["cv"]

    def output_for_dimension(
        self, output: EstimatorOutput, d: int, spec: Any, *, random_state: Any = None
    ) -> EstimatorOutput:
        """The ``d``-dimensional solution of the fit's path (every ``d <= d_max`` is kept)."""
        bases = output.extras["bases"]
        if d not in bases:
            return super().output_for_dimension(output, d, spec, random_state=random_state)
        eigen = output.extras["eigenvalues_by_dim"][d]
        return dataclasses.replace(output, basis=bases[d], d=d, eigenvalues=np.asarray(eigen))

    def cv_test(self, results: Results) -> DimensionTest:
        """R ``mave.dim``: the CV table for ``d = 0..d_max`` and the chosen ``d``
        (its minimiser, R's ``dim.min``)."""
        table = self.cv_table_of(results.output)
        kind = {
            "response": "response",
            "y-indicators": "response indicators",
            "y-kernel": "response kernels",
            "classes": "class indicators",
        }[results.output.extras["target_kind"]]
        if self.variant_name == "ksir" and not results.spec.categorical:
            kind = "response indicators"  # kernel SIR's CV uses R's transform
        return DimensionTest(
            table,
            choose_dimension(table),
            "cv",
            f"mave ({self.variant_name})",
            level=None,
            title=f"Cross-validation dimension choice for mave ({self.variant_name})",
            display_names={"cv": "CV", "bandwidth": "Bandwidth"},
            note=f"R mave.dim: leave-one-out local-constant prediction of the {kind} from the "
            "ranks of the d reduced predictors (L1 distance, kernel 1/(1 + u)^4), absolute "
            "error; d = 0: leave-one-out mean. Chosen d minimises CV.",
        )


@formula_doc(MAVE)
def mave(
    formula: str,
    data: Any,
    *,
    variant: str = "csmave",
    d: int | None = None,
    d_max: int = 10,
    screen: int | None = None,
    bandwidth: float | None = None,
    y_transform: str = "indicator",
    y_bandwidth: float | None = None,
    y_points: int | None = None,
    max_iter: int | None = None,
    tol: float | None = None,
    d_rule: str = "cv",
    random_state: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> MaveResults:
    """MAVE / OPG / kernel SIR from a formula, as R ``MAVE::mave``; see :class:`MAVE`.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    MaveResults

    See Also
    --------
    MAVE : The estimator, for arrays (``MAVE(...).fit(X, y)``).
    sdrstats.mave.results.MaveResults : What it returns.
    sir, lsce : Methods that need no local smoothing, or model the whole density.

    References
    ----------
    :cite:t:`xia2002`; :cite:t:`xia2007`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.mave("lbm ~ log(ssf) + log(wt) + log(ht)", ais, variant="meanopg", d_max=2)
    >>> fit.d, fit.directions_for(2).shape
    (1, (3, 2))
    """
    return fit_formula(MAVE, locals(), "mave")


__all__ = ["MAVE", "mave", "MEAN_SUBSPACE", "CENTRAL_SUBSPACE"]
