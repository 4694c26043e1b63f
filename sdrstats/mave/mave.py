"""MAVE, OPG and kernel SIR: the estimator and its formula function ``mave``."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
from threadpoolctl import threadpool_limits

from ..core.estimator import Capabilities, Estimator, EstimatorOutput
from ..core.results import DimensionTest, Results
from ..core.validation import check_choice, check_float, check_int
from ..core.warnings import ConvergenceWarning, SDRWarning
from ..stats.linalg import canonical_basis
from .algorithms import initial_opg, kernel_sir, refined_mave, refined_opg
from .cv import CV_RULES, choose_dimension, cv_values
from .prepare import (
    CENTRAL_SUBSPACE,
    MEAN_SUBSPACE,
    VARIANTS,
    default_screen,
    make_targets,
    screening_utility,
    whiten,
)
from .results import MaveResults


def convergence_message(variant: str, d: int, stalled: list[int], max_iter: int) -> str:
    """The ConvergenceWarning text naming every dimension whose refinement stalled."""
    dims = ", ".join(map(str, stalled))
    head = (
        f"mave ({variant}) refinement for d = {d} did not converge within max_iter = "
        f"{max_iter} iterations"
        if d in stalled
        else f"mave ({variant}) refinement did not converge within max_iter = {max_iter} "
        f"iterations for d = {dims} (the reported d = {d} converged)"
    )
    others = [k for k in stalled if k != d]
    if d in stalled and others:
        head += f" (nor for d = {', '.join(map(str, others))})"
    return (
        f"{head}; raise 'max_iter' (e.g. max_iter={2 * max_iter}) or loosen 'tol'. "
        "Unconverged solutions enter the CV choice of d and directions_for(k); the "
        "summary's refinement table shows every dimension."
    )


class MAVE(Estimator):
    """Local-linear sufficient dimension reduction: OPG, MAVE and kernel SIR (R ``MAVE``).

    Parameters
    ----------
    method : {"csmave", "csopg", "meanmave", "meanopg", "ksir"}
        ``"csmave"`` (default; density-based MAVE, Xia 2007) and ``"csopg"`` estimate the
        central subspace; ``"meanmave"`` and ``"meanopg"`` (Xia, Tong, Li & Zhu 2002) the
        central mean subspace; ``"ksir"`` is kernel sliced inverse regression. Case is ignored
        (R's ``"csMAVE"`` works). R's own default is ``"csopg"``, which is faster.
    d : int, optional
        Dimension reported by ``directions`` and ``transform``; ``None`` (default) chooses it
        by cross-validation (:mod:`sdrstats.mave.cv`) among ``1..max_dim`` (a CV minimum at
        ``d = 0`` is reported by ``test_dimension("cv")`` and the fit keeps ``d = 1``).
    max_dim : int
        Solutions are computed for every dimension ``1..max_dim`` (default 10, capped at the
        number of predictors kept by screening), available through ``directions_for(k)``.
    screen : int, optional
        When there are more predictors than ``screen`` (default ``⌊n / log n⌋`` as in R), only
        the ``screen`` predictors with the largest SIRS utility (Zhu, Li, Li & Zhu 2011; see
        :func:`~sdrstats.mave.prepare.screening_utility`) enter the fit; the others get zero
        coefficients.
    bandwidth : float, optional
        Fixed Gaussian-kernel bandwidth on the whitened predictors for every step. Default:
        Xia et al.'s (2002) schedule, ``h0 = 1.06 n^{-1/(max(p,3)+4)}`` for the first OPG step,
        then shrunk by ``n^{-1/(2(max(p,3)+4))}`` per refinement down to ``1.06 n^{-1/(k+4)}``.
    y_bandwidth : float, optional
        Bandwidth of the response kernel (central-subspace methods and kernel SIR) on the
        standardised response; default ``1.06 n^{-1/5}``.
    y_points : int
        Number of response quantiles at which the central-subspace methods place the response
        kernel (default 10). On the classic MAVE example 10, 20 and 50 points gave mean
        projection distances within 0.002 of each other (``benchmarks/bench_mave.py``) while
        the cost grows linearly with the number of points.
    max_iter : int
        Refinement iterations per dimension (default 50). When the refinement of any
        dimension ``1..max_dim`` hits it, one :class:`~sdrstats.ConvergenceWarning` names
        those dimensions (their solutions enter the CV choice of ``d`` and
        ``directions_for(k)``); the summary's refinement table shows convergence for every
        dimension (solutions beyond the true dimension are poorly determined and may wander).
    tol : float
        Refinement stops when the subspace moves less than ``tol`` (projection distance)
        between iterations at the final bandwidth (default ``1e-3``; the iterations contract
        geometrically, so the remaining error is of the same order, far below the
        statistical error at any practical ``n``).
    cv_rule : {"1se", "min"}
        How cross-validation picks ``d`` from its table (:mod:`sdrstats.mave.cv`): the
        one-standard-error rule (default) or the plain minimiser (R ``mave.dim``'s
        ``dim.min``).

    Notes
    -----
    OPG estimates the subspace from the average outer product of local-linear gradients,
    ``M = (1/n) Σ_j Σ_k b_jk b_jkᵀ``; MAVE minimises
    ``Σ_j Σ_i w_ij Σ_k {T_ik − a_jk − c_jkᵀ Bᵀ(Z_i − Z_j)}²`` over ``B`` and the local fits by
    alternating least squares, starting from OPG. ``T`` holds the response (mean subspace) or
    the response kernel at ``m`` points (central subspace); see
    :func:`~sdrstats.mave.prepare.make_targets`. The solutions for different ``k`` are refined
    separately and are not nested. Cost: ``O(n² p m)`` per iteration, memory ``O(n)`` per
    block of centres, on one BLAS thread (parallelism belongs to resampling's ``n_jobs``).

    References
    ----------
    Xia, Y., Tong, H., Li, W. K. & Zhu, L.-X. (2002). An adaptive estimation of dimension
    reduction space. JRSS B 64, 363–410. Xia, Y. (2007). A constructive approach to the
    estimation of dimension reduction directions. Ann. Statist. 35, 2654–2690.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal((200, 3))
    >>> y = np.sin(x[:, 0] + x[:, 1]) + 0.1 * rng.standard_normal(200)
    >>> fit = sdr.MAVE(method="meanopg", d=1).fit(x, y)
    >>> fit.directions.round(1)["Dir1"].tolist()
    [0.7, 0.7, 0.0]
    """

    method = "mave"
    capabilities = Capabilities(cv_test=True)
    params: ClassVar[dict[str, Any]] = {
        "method": "csmave",
        "d": None,
        "max_dim": 10,
        "screen": None,
        "bandwidth": None,
        "y_bandwidth": None,
        "y_points": 10,
        "max_iter": 50,
        "tol": 1e-3,
        "cv_rule": "1se",
    }
    results_class = MaveResults

    def _check_options(self) -> None:
        o = self.options
        if isinstance(o["method"], str):
            o["method"] = o["method"].lower()
        check_choice(o["method"], "method", "mave", VARIANTS)
        check_int(o["d"], "d", "mave", low=1, allow_none=True)
        check_int(o["max_dim"], "max_dim", "mave", low=1)
        check_int(o["screen"], "screen", "mave", low=1, allow_none=True)
        check_float(o["bandwidth"], "bandwidth", "mave", low=0, strict_low=True, allow_none=True)
        check_float(
            o["y_bandwidth"], "y_bandwidth", "mave", low=0, strict_low=True, allow_none=True
        )
        check_int(o["y_points"], "y_points", "mave", low=2)
        check_int(o["max_iter"], "max_iter", "mave", low=1)
        check_float(o["tol"], "tol", "mave", low=0, strict_low=True)
        check_choice(o["cv_rule"], "cv_rule", "mave", CV_RULES)

    @property
    def variant(self) -> str:
        return self.options["method"]

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        n, p = X.shape
        if n < 10:
            raise ValueError(f"mave needs at least 10 observations for its local fits; got {n}.")
        d = self.options["d"]
        if d is not None and d > p:
            raise ValueError(f"The 'd' option of mave must be at most p = {p}; got {d}.")
        screen = self.options["screen"] or default_screen(n)
        if d is not None and d > screen:
            raise ValueError(
                f"The 'd' option of mave ({d}) exceeds the {screen} predictors kept by "
                "screening; raise 'screen' or lower 'd'."
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
        # one BLAS thread: the blocked products are too small to gain from threads, and two
        # OpenBLAS threads on shared cores were 16x slower in bench_mave.py
        with threadpool_limits(limits=1, user_api="blas"):
            return self._fit_arrays(X, Y, weights)

    def _fit_arrays(
        self, X: np.ndarray, Y: np.ndarray, weights: np.ndarray | None
    ) -> EstimatorOutput:
        o = self.options
        variant = self.variant
        n, p = X.shape
        categorical = Y.ndim == 1 and Y.dtype.kind in "iu"
        w = None if weights is None else np.asarray(weights, dtype=float)
        kept = self._screen(X, Y, categorical, w)
        white = whiten(X[:, kept], w, "mave")
        Z = white.Z
        pk = Z.shape[1]
        max_dim = max(min(o["max_dim"], pk), o["d"] or 1)
        targets = make_targets(
            Y, variant, categorical, y_points=o["y_points"], y_bandwidth=o["y_bandwidth"], w=w
        )
        solutions: dict[int, Any] = {}
        if variant == "ksir":
            kernel_y = None if categorical else targets.y_std
            values, vectors = kernel_sir(Z, targets.T, kernel_y, targets.y_bandwidth, w)
            z_bases = {k: vectors[:, :k] for k in range(1, max_dim + 1)}
            eigen = {k: values[:k] for k in z_bases}
            h0 = None
        else:
            values, vectors, h0 = initial_opg(Z, targets.T, o["bandwidth"], w)
            refine = refined_mave if variant in ("csmave", "meanmave") else refined_opg
            z_bases, eigen = {}, {}
            for k in range(1, max_dim + 1):
                if k == pk:  # the whole predictor space: nothing to refine
                    z_bases[k], eigen[k] = vectors, values
                    continue
                sol = refine(
                    Z,
                    targets.T,
                    k,
                    vectors,
                    bandwidth=o["bandwidth"],
                    max_iter=o["max_iter"],
                    tol=o["tol"],
                    obs_weights=w,
                )
                solutions[k] = sol
                z_bases[k], eigen[k] = sol.basis, sol.eigenvalues
        cv_targets = targets.T if variant in CENTRAL_SUBSPACE or categorical else targets.y_std
        cv_table = cv_values(Z, cv_targets, z_bases, o["bandwidth"], w)
        cv_d = choose_dimension(cv_table, o["cv_rule"])
        d = o["d"]
        if d is None:
            d = max(cv_d, 1)
            if cv_d == 0:
                warnings.warn(
                    "Cross-validation prefers d = 0 (no dependence of the response on the "
                    "predictors); the fit reports d = 1. See fit.test_dimension('cv').",
                    SDRWarning,
                    stacklevel=4,
                )
        stalled = sorted(k for k, sol in solutions.items() if not sol.converged)
        if stalled:
            warnings.warn(
                convergence_message(variant, d, stalled, o["max_iter"]),
                ConvergenceWarning,
                stacklevel=4,
            )
        bases = {}
        for k, zb in z_bases.items():
            full = np.zeros((p, k))
            full[kept] = white.back @ zb
            bases[k] = canonical_basis(full)
        center = X.mean(axis=0) if w is None else w @ X / w.sum()
        extras: dict[str, Any] = {
            "variant": variant,
            "bases": bases,
            "eigenvalues_by_dim": eigen,
            "max_dim": max_dim,
            "kept": kept,
            "initial_eigenvalues": values,
            "initial_bandwidth": h0,
            "bandwidths": {k: s.bandwidth for k, s in solutions.items()},
            "iterations": {k: s.iterations for k, s in solutions.items()},
            "converged": {k: s.converged for k, s in solutions.items()},
            "y_bandwidth": targets.y_bandwidth,
            "y_points": targets.T.shape[1] if targets.kind == "y-kernel" else None,
            "target_kind": targets.kind,
            "cv": cv_table,
            "cv_d": cv_d,
        }
        return EstimatorOutput(
            basis=bases[d], d=d, eigenvalues=np.asarray(eigen[d]), center=center, extras=extras
        )

    def transform_arrays(self, output: EstimatorOutput, X: np.ndarray, d: int) -> np.ndarray:
        bases = output.extras["bases"]
        if d not in bases:
            raise ValueError(f"d must be between 1 and {max(bases)} (max_dim); got {d}.")
        return (X - output.center) @ bases[d]

    def cv_test(self, results: Results, rule: str | None = None) -> DimensionTest:
        """R ``mave.dim``: the CV table for ``d = 0..max_dim`` and the chosen ``d``.

        ``rule`` (``"1se"`` or ``"min"``) re-reads the same table with another choice rule;
        default the fit's ``cv_rule``.
        """
        rule = self.options["cv_rule"] if rule is None else rule
        check_choice(rule, "rule", "the cv dimension test", CV_RULES)
        table = results.output.extras["cv"]
        kind = (
            "response kernel"
            if self.variant in CENTRAL_SUBSPACE
            else "class indicators"
            if results.spec.categorical
            else "response"
        )
        return DimensionTest(
            table,
            choose_dimension(table, rule),
            "cv",
            f"mave ({self.variant})",
            level=None,
            title=f"Cross-validation dimension choice for mave ({self.variant})",
            display_names={"cv": "CV", "se": "SE(diff)", "bandwidth": "Bandwidth"},
            note=f"Leave-one-out local-linear prediction of the {kind} from d reduced "
            "predictors (d = 0: leave-one-out mean). "
            + (
                "Chosen d: smallest d within one SE of the minimum."
                if rule == "1se"
                else "Chosen d minimises CV."
            ),
            extras={"cv_rule": rule},
        )


def mave(
    formula: str,
    data: Any,
    *,
    method: str = "csmave",
    d: int | None = None,
    max_dim: int = 10,
    screen: int | None = None,
    bandwidth: float | None = None,
    y_bandwidth: float | None = None,
    y_points: int = 10,
    max_iter: int = 50,
    tol: float = 1e-3,
    cv_rule: str = "1se",
    missing: str = "drop",
    subset: Any = None,
) -> MaveResults:
    """MAVE / OPG / kernel SIR from a formula, as R ``MAVE::mave``; see :class:`MAVE`.

    Parameters
    ----------
    formula : str
        A patsy formula with one continuous response, ``"y ~ x1 + log(x2)"``.
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    method : {"csmave", "csopg", "meanmave", "meanopg", "ksir"}, default "csmave"
        Which estimator (see :class:`MAVE`).
    d : int, optional
        Reported dimension; default chosen by cross-validation among ``1..max_dim``.
    max_dim, screen, bandwidth, y_bandwidth, y_points, max_iter, tol, cv_rule
        Options of :class:`MAVE`, with the defaults shown in the signature.
    missing : {"drop", "raise"}, default "drop"
        Rows with a missing value are dropped with a :class:`~sdrstats.MissingValueWarning`,
        or raise.
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.

    Returns
    -------
    MaveResults

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.mave("lbm ~ log(ssf) + log(wt) + log(ht)", ais, method="meanopg", max_dim=2)
    >>> fit.d, fit.directions_for(2).shape
    (2, (3, 2))
    """
    return MAVE.from_formula(
        formula,
        data,
        missing=missing,
        subset=subset,
        method=method,
        d=d,
        max_dim=max_dim,
        screen=screen,
        bandwidth=bandwidth,
        y_bandwidth=y_bandwidth,
        y_points=y_points,
        max_iter=max_iter,
        tol=tol,
        cv_rule=cv_rule,
    )


__all__ = ["MAVE", "mave", "MEAN_SUBSPACE", "CENTRAL_SUBSPACE"]
