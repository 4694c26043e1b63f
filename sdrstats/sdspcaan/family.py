"""SDSPCAAN and its family as thin variants of one alternating solver (Shi, Wu, Huang, Wang & Lin 2020).

Each estimator only says which terms of the objective are on (see
:mod:`sdrstats.sdspcaan.solver`); PCA and vPCA are the trivial members (a singular value
decomposition). All members z-score the predictors with the training mean and standard
deviation (``ddof=1``, MATLAB's ``zscore``; a constant column is centred only), take a
categorical response as a one-hot matrix, and report the projection ``W`` (p x d; the method's paper calls the dimension k):
``directions`` are its columns in the original predictor scale (unit length, canonical sign)
and ``transform(newdata)`` is ``z(newdata) W``, the coordinates the method itself uses.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np

from ..base.budget import check_count, check_memory
from ..base.validation import Interval, Options
from ..design.formula import ModelSpec
from ..fitting.estimator import Capabilities, Estimator, EstimatorOutput
from ..inference.cv import cv_dimension
from ..inference.dimension_test import DimensionTest
from ..stats.linalg import canonical_basis
from ._results import SDSPCAANResults
from .solver import SolverConfig, one_hot, solve
from .tuning import WEIGHT_GRID, tune_weights

#: The options the alternating solver itself takes.
SOLVER_OPTIONS = frozenset(f.name for f in dataclasses.fields(SolverConfig))

#: How the alternating members' ``"cv"`` rule reads ``d`` from the CV errors (see
#: :func:`sdrstats.inference.cv.cv_dimension`): the smallest ``d`` within one standard error
#: of the minimum. Their candidates are fitted on the rows the rule predicts, which makes a
#: larger ``d`` look better than it is; the plain minimiser overshot on single-index data.
CV_CHOICE = "1se"


def zscore(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centred and scaled predictors, their mean and scale (1 for a constant column)."""
    center = X.mean(axis=0)
    scale = X.std(axis=0, ddof=1) if X.shape[0] > 1 else np.ones(X.shape[1])
    scale = np.where(scale > 0, scale, 1.0)
    return (X - center) / scale, center, scale


class ProjectionFamily(Estimator):
    """Common shape of the family: options check, z-scoring, output (not used directly)."""

    response: ClassVar[str] = "categorical"
    results_class = SDSPCAANResults
    #: Constraints of every option of the family (a member checks those it has).
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "d": [Interval(int, 1, None), None],
        "d_rule": [Options(("ratio", "ladle", "permutation", "bootstrap", "cv"))],
        "d_max": [Interval(int, 1, None), None],
        "alpha": [Interval(float, 0, None)],
        "beta": [Interval(float, 0, None)],
        "delta": [Interval(float, 0, None)],
        "n_neighbors": [Interval(int, 1, None)],
        "lam": [Interval(float, 0, None, closed="neither")],
        "tol": [Interval(float, 0, None, closed="neither")],
        "max_iter": [Interval(int, 1, None)],
        "eigensolver": [Options(("auto", "eigh", "arpack", "lobpcg"))],
        "iteration": [Options(("authors", "fixed_weights"))],
        "tune": [Options(("holdout", "cv")), None],
        "weight_grid": ["positive grid"],
        "n_folds": [Interval(int, 2, None)],
        "random_state": ["random_state"],
        "n_jobs": ["n_jobs", None],
        "progress": ["boolean"],
    }
    #: The weights ``tune`` chooses (none for the members without them).
    tuned_weights: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "ratio",
        d_max: int | None = None,
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    def _check_response(self, spec: ModelSpec) -> None:
        if self.response == "categorical" and not spec.categorical:
            raise ValueError(
                f"{self.method} needs class labels, but the response {spec.y_names} is "
                f"continuous. For a continuous response use spca (supervised PCA); if the "
                f"numbers are class codes, wrap the response as C({spec.y_names[0]})."
            )

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        name = self.method
        n, p = X.shape
        if not np.all(np.isfinite(X)):
            col = int(np.argmax(~np.isfinite(X).all(axis=0)))
            raise ValueError(
                f"{name}: predictor column {col} has infinite or missing values; remove those "
                "rows or transform the column before fitting."
            )
        d = self.options["d"]
        if d is not None and d > min(n, p):
            raise ValueError(
                f"The 'd' option of {name} must be at most min(n, p) = {min(n, p)} "
                f"(n = {n} rows, p = {p} predictors); got {d}. Choose a smaller d."
            )
        if categorical and self.response == "categorical":
            counts = np.bincount(np.asarray(Y, dtype=np.int64).reshape(-1))
            if np.count_nonzero(counts) < 2:
                raise ValueError(f"{name} needs at least two classes in the response.")
            small = np.flatnonzero((counts > 0) & (counts < 2))
            if small.size:
                raise ValueError(
                    f"{name}: class code(s) {small.tolist()} have a single sample; every class "
                    "needs at least two samples. Drop or merge the rare classes."
                )

    def fit_spec(self, spec: ModelSpec, call: str | None = None) -> SDSPCAANResults:
        self._check_response(spec)
        if spec.categorical and self.response == "categorical":
            counts = np.bincount(np.asarray(spec.Y, dtype=np.int64), minlength=len(spec.y_levels))
            single = [spec.y_levels[i] for i in np.flatnonzero(counts == 1)]
            if single:
                raise ValueError(
                    f"{self.method}: class(es) {single} of {spec.y_names[0]!r} have a single "
                    "sample; every class needs at least two samples. Drop or merge them."
                )
        return super().fit_spec(spec, call=call)

    def _projection(
        self, X: np.ndarray, Y: np.ndarray, **weights: float
    ) -> tuple[np.ndarray, dict[str, Any]]:
        raise NotImplementedError

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
    ) -> EstimatorOutput:
        if weights is not None:
            raise ValueError(f"{self.method} does not take observation weights.")
        tuning = None
        if self.options.get("tune") is not None:
            tuning = tune_weights(self, np.asarray(X, dtype=float), Y, random_state)
        Xs, center, scale = zscore(np.asarray(X, dtype=float))
        if self.response == "categorical":
            _, codes = np.unique(np.asarray(Y).reshape(-1), return_inverse=True)
            Ymat = one_hot(codes)
        else:
            Ymat = None
        W, extras = self._projection(Xs, Ymat, **(tuning["chosen"] if tuning else {}))
        if tuning is not None:
            extras["tuning"] = tuning
        original = W / scale[:, None]  # the same linear map acting on unscaled x - mean
        basis = canonical_basis(original)
        signs = np.sign(np.sum(basis * original, axis=0))
        signs[signs == 0] = 1.0
        extras.update(projection=W * signs, scale=scale)
        d = self.options["d"]
        return EstimatorOutput(
            basis=basis,
            d=int(d) if d is not None else 1,  # d=None: the rule chooses among the columns
            eigenvalues=extras.pop("eigenvalues", None),
            center=center,
            criterion=extras.get("objective"),
            extras=extras,
        )

    def transform_arrays(self, output: EstimatorOutput, X: np.ndarray, d: int) -> np.ndarray:
        W = output.extras["projection"]
        return ((X - output.center) / output.extras["scale"]) @ W[:, :d]


class _Alternating(ProjectionFamily):
    """A member solved by :func:`sdrstats.sdspcaan.solver.solve`."""

    capabilities = Capabilities(nested_directions=False, cv_test=True)
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **ProjectionFamily._parameter_constraints,
        "d_rule": [Options(("cv", "bootstrap"))],
    }

    def cv_test(
        self, results: Any, *, d_max: int | None = None, choice: str = CV_CHOICE
    ) -> DimensionTest:
        """The ``"cv"`` rule with the family's choice of ``d`` (default one standard error).

        Parameters
        ----------
        results : SDSPCAANResults
            The fit.
        d_max : int, optional
            Largest candidate; default the fit's ``d_max``, else 4 (below ``p``).
        choice : {"1se", "min"}, default "1se"
            ``"1se"``: the smallest ``d`` whose leave-one-out error is within one standard
            error of the least; ``"min"``: the least (see
            :func:`sdrstats.inference.cv.cv_dimension`).

        Returns
        -------
        DimensionTest

        Examples
        --------
        >>> import sdrstats as sdr
        >>> ais = sdr.datasets.load("ais")
        >>> fit = sdr.sdspca("sex ~ ht + wt + lbm + rcc", ais, random_state=0)
        >>> fit.d_choice.describe()
        'cross-validation with the one-standard-error rule'
        """
        return cv_dimension(results, d_max=d_max, choice=choice)

    def fit_output(
        self, spec: ModelSpec, *, weights: np.ndarray | None = None, random_state: Any = None
    ) -> EstimatorOutput:
        """The fit at ``d``; with ``d=None`` the candidates of ``d_rule`` (see
        :meth:`~sdrstats.fitting.estimator.Estimator.fit_candidates`).

        Parameters
        ----------
        spec : ModelSpec
            The rows.
        weights : None
            Not taken (the family has no observation weights).
        random_state : optional
            Seed of ``tune``'s folds.

        Returns
        -------
        EstimatorOutput

        Examples
        --------
        >>> import sdrstats as sdr
        >>> from sdrstats.design.formula import parse
        >>> spec = parse("sex ~ ht + wt + lbm", sdr.datasets.load("ais"))
        >>> sorted(sdr.SDSPCA().fit_output(spec).extras["by_dimension"])
        [1, 2]
        """
        if self.options["d"] is None:
            return self.fit_candidates(spec, weights=weights, random_state=random_state)
        return super().fit_output(spec, weights=weights, random_state=random_state)

    switches: ClassVar[dict[str, Any]] = {}

    def _projection(
        self, X: np.ndarray, Y: np.ndarray, **weights: float
    ) -> tuple[np.ndarray, dict[str, Any]]:
        options = {**self.options, **weights}
        options["k"] = options.pop("d")  # the solver follows the paper's k
        options = {name: value for name, value in options.items() if name in SOLVER_OPTIONS}
        config = SolverConfig(**{**options, **self.switches})
        n = X.shape[0]
        if config.graph != "none":
            # the neighbour search's n x n distances and their sorted copy, the graph and the
            # solver's dense blocks: peak about 4.2 n x n float arrays (tracemalloc, n = 1000)
            check_memory(
                self.method,
                4.5 * 8.0 * n * n,
                f"its n x n distance and similarity matrices at n = {n:,}",
                "fit on a random subsample of the rows (stratified by class), or use sdspca "
                "(no graph: its cost grows with n * p)",
            )
        # an iteration: a p x p eigenproblem, n x p products and, with a graph, n x n ones
        p = X.shape[1]
        work = p**3 + n * p * (config.k + 1) + (n * n if config.graph != "none" else 0)
        check_count(self.method, "max_iter", config.max_iter, unit="iterations",
                    seconds_each=1e-9 * work, at=f" at n = {n:,}")  # fmt: skip
        result = solve(X, Y, config)
        extras = {
            "similarity": result.similarity,
            "objective_trace": result.objective_trace,
            "objective": float(result.objective_trace[-1]),
            "n_iter": result.n_iter,
            "converged": result.converged,
            "lam": result.lam,
            "scales": result.scales,
            "timings": result.timings,
            "rejected_objective": result.rejected_objective,
            "eigenvalues": result.eigenvalues,
            "iteration": result.iteration,
        }
        return result.W, extras


_SHARED_DOC = """
    d : int, optional
        Reduced dimension, at most ``min(n, p)`` (the method's paper calls it ``k``);
        ``None`` (default) chooses it by ``d_rule``.
    d_rule : {"cv", "bootstrap"}
        The rule that chooses ``d`` when it is not given. ``"cv"`` (default) fits every
        ``d = 1..d_max`` and scores how well its projected rows predict the class out of
        sample (leave-one-out kernel prediction of the class indicators,
        :func:`sdrstats.inference.cv.cv_dimension`; ``d = 0`` is the class proportions),
        then keeps the smallest ``d`` whose error is within one standard error of the least
        (the one-standard-error rule; the standard error is that of the row-wise loss
        differences from the least, so the comparison is paired). The candidates are fitted
        on the rows they predict, which flatters a larger ``d``; the plain minimiser is
        ``fit.test_dimension("cv", choice="min")``. ``d_max`` fits (and ``d_max`` tunings
        with ``tune``). ``"bootstrap"`` is Ye & Weiss's rule (slow).
    d_max : int, optional
        Largest ``d`` the rule tries; default 4 (below p).
    tol : float, default 1e-3
        The stopping threshold (see ``iteration``; for the members without ``iteration``, the
        objective's relative decrease); also the threshold on Laplacian eigenvalue sums that
        drives λ.
    max_iter : int, default 100
        Iteration limit (Shi et al. 2020 use 500); reaching it warns with ``ConvergenceWarning``.
    eigensolver : {"auto", "eigh", "arpack", "lobpcg"}, default "auto"
        Q-step solver for the k smallest eigenvectors of Z: partial dense
        ``scipy.linalg.eigh(subset_by_index=...)``, Lanczos (ARPACK) on Z's diagonal plus
        low-rank form started from the previous Q, or LOBPCG warm-started at the previous Q
        (falls back to ARPACK). "auto": eigh up to dimension 800, else ARPACK. Z is n x n for
        SDSPCAAN, SDSPCA and SDSPCA-LPP, and r x r for SPCAN and PCAN (r the rank of the
        centred predictors, at most p: their Q is kept in the column space of X), so for
        these two the option matters only when p is large. ARPACK and LOBPCG need k well
        below the dimension (``3 k < dim``); otherwise dense eigh solves the Q-step, and an
        explicit ``"arpack"`` or ``"lobpcg"`` warns that it was not used.
"""


_ITERATION_DOC = """
    iteration : {"authors", "fixed_weights"}, default "authors"
        ``"authors"``: the loop of the authors' published code. Before every Q-step the
        trace scales are recomputed from the current ``Q`` and graph (``β' = β tr(XX^T)/tr(D)``,
        ``δ' = δ tr(XX^T)/tr(XX^T L XX^T)``); it stops as their code does, with an adaptive
        graph when their objective falls by less than ``tol`` (returning that last ``Q``, even
        if the objective rose), otherwise when ``Q`` moves by less than ``tol`` in spectral
        norm (column signs matched first). Every iterate equals the authors' MATLAB code run
        under Octave to 3e-10 in projection distance on the test suite's problems, and so
        does the final fit, except where an eigenvector's sign flip delayed the authors'
        SDSPCA stop (one case of nine). The weights move, so no single objective is minimised
        and ``objective_trace`` need not fall.
        ``"fixed_weights"``: the scales are computed once, at ``Q0`` and its graph, so the
        solver minimises one objective (24) with fixed weights: every accepted iteration
        lowers it, it stops when the relative decrease is below ``tol``, and it returns the
        best iterate. Use it when the fixed-weight problem itself is wanted; the two differ
        (projection distance 0.01-1.4 on the test suite's problems, mostly because the
        authors' rule stops after one or two Q-steps there).
"""


_TUNE_DOC = """
    tune : {None, "holdout", "cv"}, default None
        Choose the weights (``alpha``, ``beta`` and, where the method has it, ``delta``;
        their given values are then ignored) over every combination of ``weight_grid``, by the
        balanced classification accuracy (mean per-class recall) of a 1-nearest-neighbour
        classifier on the standardised projected features of held-out rows -- the protocol
        of Shi et al. (2020). The rows of each class are dealt at random into ``n_folds``
        folds; ``"cv"`` fits every combination on all folds but one and scores it on that one,
        in turn (mean BCA over folds); ``"holdout"`` holds out one fold only. The best
        combination (the first in grid order on a tie) is refitted on all rows; the fit's
        ``tuning`` table has every combination's score. ``d`` is not tuned. Cost:
        ``len(weight_grid) ** w`` fits (``w`` = 3 weights, 2 for SDSPCA) per held-out fold,
        each on ``(n_folds - 1) / n_folds`` of the rows, plus the final fit: 125 x 5 = 625
        fits with the defaults and ``"cv"``, 125 with ``"holdout"``. ``bootstrap()`` tunes
        again in every replicate; to resample with the chosen weights fixed, refit with them.
    weight_grid : sequence of float, default (0.01, 0.1, 1, 10, 100)
        The candidates of each weight, each multiplied by its trace scale (the paper's grid).
    n_folds : int, default 5
        Folds of ``tune`` (every class needs at least ``n_folds`` rows, and two left in each
        training part).
    random_state : int, SeedSequence or Generator, optional
        Seeds the folds of ``tune`` (nothing else in the fit is random); the rules that
        resample and ``bootstrap()`` draw from streams derived from it. None draws one, which
        the summary prints.
    n_jobs : int, default 1
        Workers over the grid's fits (results do not depend on it).
    progress : bool, default True
        A progress bar over the grid's fits (shown for long grids only).
"""


class SDSPCAAN(_Alternating):
    __doc__ = f"""Supervised discriminative sparse PCA with adaptive neighbours (Shi et al. 2020).

    Minimises eq. (24) of Shi et al. (2020) over an orthonormal ``Q`` (n x k) and a similarity graph ``S``;
    ``W = X^T Q``. Needs a categorical response.

    Parameters
    ----------
    alpha, beta, delta : float, default 1
        Weights of the label, sparsity and graph terms, as :class:`SDSPCAAN`.
        Weights of the label, sparsity and adaptive-neighbour terms, each multiplied by its
        trace scale (``tr(XX^T)/tr(YY^T)``, ``tr(XX^T)/tr(D)``, ``tr(XX^T)/tr(XX^T L XX^T)``,
        the last two at every iteration or at the start: see ``iteration``).
    n_neighbors : int, default 15
        Neighbours per row of ``S`` (capped at ``n - 2``).
    lam : float, default 10
        Starting λ of the label term of the graph; adapted until ``S`` has ``c`` components.
    {_SHARED_DOC}{_ITERATION_DOC}{_TUNE_DOC}
    See Also
    --------
    sdspcaan : The formula function (``sdr.sdspcaan(formula, data)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What ``fit`` returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    Notes
    -----
    Cost per iteration: a new graph changes only the p x p block ``X^T L X`` of
    ``Z = β'D + [X, Y] C [X, Y]^T`` (O(n p k + n p²)); past 800 rows Z is never formed and
    ARPACK finds the k smallest eigenvectors through products costing O(n (p + c) k); the
    S-step builds the n x n projected distances (O(n² k)) and picks neighbours with
    ``argpartition``. Memory O(n²) for those distances. n = 2000, p = 256, k = 50 takes about
    1.6 s on one core with the authors' iteration (2 Q-steps) and 3.7 s with fixed weights (6
    iterations; ``benchmarks/bench_sdspcaan.md``). ``tune`` multiplies the cost by the number
    of fits it makes (see ``tune``).

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.SDSPCAAN(d=2).fit(ais[["ht", "wt", "lbm", "rcc", "hg", "ssf"]], ais["sex"])
    >>> fit.directions.shape, bool(fit.converged)
    ((6, 2), True)
    """
    method = "sdspcaan"
    tuned_weights: ClassVar[tuple[str, ...]] = ("alpha", "beta", "delta")
    switches: ClassVar[dict[str, Any]] = {"graph": "adaptive"}

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "cv",
        d_max: int | None = None,
        alpha: float = 1.0,
        beta: float = 1.0,
        delta: float = 1.0,
        n_neighbors: int = 15,
        lam: float = 10.0,
        tol: float = 1e-3,
        max_iter: int = 100,
        eigensolver: str = "auto",
        iteration: str = "authors",
        tune: str | None = None,
        weight_grid: Any = WEIGHT_GRID,
        n_folds: int = 5,
        random_state: Any = None,
        n_jobs: int | None = 1,
        progress: bool = True,
    ) -> None:
        self._set_options(locals())


class SDSPCA(_Alternating):
    __doc__ = f"""Supervised discriminative sparse PCA (Feng et al. 2019): SDSPCAAN with δ = 0.

    Parameters
    ----------
    alpha, beta : float, default 1
        Trace-scaled weights of the label and sparsity terms.
    {_SHARED_DOC}{_ITERATION_DOC}{_TUNE_DOC}
    See Also
    --------
    sdspca : The formula function (``sdr.sdspca(formula, data)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What ``fit`` returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.SDSPCA(d=2).fit(ais[["ht", "wt", "lbm", "rcc"]], ais["sex"])
    >>> fit.similarity is None
    True
    """
    method = "sdspca"
    tuned_weights: ClassVar[tuple[str, ...]] = ("alpha", "beta")
    switches: ClassVar[dict[str, Any]] = {"graph": "none", "delta": 0.0}

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "cv",
        d_max: int | None = None,
        alpha: float = 1.0,
        beta: float = 1.0,
        tol: float = 1e-3,
        max_iter: int = 100,
        eigensolver: str = "auto",
        iteration: str = "authors",
        tune: str | None = None,
        weight_grid: Any = WEIGHT_GRID,
        n_folds: int = 5,
        random_state: Any = None,
        n_jobs: int | None = 1,
        progress: bool = True,
    ) -> None:
        self._set_options(locals())


class SDSPCALPP(_Alternating):
    __doc__ = f"""SDSPCA-LPP: SDSPCAAN with the graph fixed at its first value (Shi et al. 2020).

    The graph is the adaptive-neighbour graph of the starting projection; unlike the authors'
    code (which stopped after one pass and so returned scaled PCA) the Q-step iterates to
    convergence. Options as :class:`SDSPCAAN`.

    Parameters
    ----------
    alpha, beta, delta : float, default 1
        Weights of the label, sparsity and graph terms, as :class:`SDSPCAAN`.
    n_neighbors : int, default 15
        Neighbours per row of the graph, as :class:`SDSPCAAN`.
    lam : float, default 10
        Starting weight of the graph's label term, as :class:`SDSPCAAN`.
    {_SHARED_DOC}{_ITERATION_DOC}{_TUNE_DOC}
    See Also
    --------
    sdspca_lpp : The formula function (``sdr.sdspca_lpp(formula, data)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What ``fit`` returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.SDSPCALPP(d=2).fit(ais[["ht", "wt", "lbm", "rcc"]], ais["sex"])
    >>> fit.similarity.shape
    (202, 202)
    """
    method = "sdspca_lpp"
    tuned_weights: ClassVar[tuple[str, ...]] = ("alpha", "beta", "delta")
    switches: ClassVar[dict[str, Any]] = {"graph": "fixed"}

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "cv",
        d_max: int | None = None,
        alpha: float = 1.0,
        beta: float = 1.0,
        delta: float = 1.0,
        n_neighbors: int = 15,
        lam: float = 10.0,
        tol: float = 1e-3,
        max_iter: int = 100,
        eigensolver: str = "auto",
        iteration: str = "authors",
        tune: str | None = None,
        weight_grid: Any = WEIGHT_GRID,
        n_folds: int = 5,
        random_state: Any = None,
        n_jobs: int | None = 1,
        progress: bool = True,
    ) -> None:
        self._set_options(locals())


class SPCAN(_Alternating):
    __doc__ = f"""Supervised PCAN: only the adaptive-neighbour terms of SDSPCAAN, with F = Y.

    Shi et al. (2020) implement it by removing the first three terms of (24). Minimised over all of
    R^n, that objective puts Q in the null space of ``X^T`` whenever n > p (W = 0), so Q is kept
    in the column space of X.

    Parameters
    ----------
    n_neighbors : int, default 15
        Neighbours per row of the graph, as :class:`SDSPCAAN`.
    lam : float, default 10
        Starting weight of the graph's label term, as :class:`SDSPCAAN`.
    random_state : int, SeedSequence or Generator, optional
        The fit's seed (the fit draws nothing): the rules that resample and ``bootstrap()``
        draw from streams derived from it. None draws one, which the summary prints.
    {_SHARED_DOC}
    See Also
    --------
    spcan : The formula function (``sdr.spcan(formula, data)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What ``fit`` returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> small = ais.iloc[::3]  # 68 rows keep the example quick
    >>> fit = sdr.SPCAN(d=2).fit(small[["ht", "wt", "lbm", "rcc"]], small["sex"])
    >>> fit.transform().shape
    (68, 2)
    """
    method = "spcan"
    switches: ClassVar[dict[str, Any]] = {"global_terms": False, "graph": "adaptive"}

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "cv",
        d_max: int | None = None,
        n_neighbors: int = 15,
        lam: float = 10.0,
        tol: float = 1e-3,
        max_iter: int = 100,
        eigensolver: str = "auto",
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())


class PCAN(_Alternating):
    __doc__ = f"""Projected clustering with adaptive neighbours (Nie et al. 2014), unsupervised.

    As :class:`SPCAN` but F is the ``c`` smallest eigenvectors of the Laplacian instead of the
    labels; the response only gives ``c``, the number of clusters (its classes).

    Parameters
    ----------
    n_neighbors : int, default 15
        Neighbours per row of the graph, as :class:`SDSPCAAN`.
    lam : float, default 10
        Starting weight of the graph's label term, as :class:`SDSPCAAN`.
    random_state : int, SeedSequence or Generator, optional
        The fit's seed (the fit draws nothing): the rules that resample and ``bootstrap()``
        draw from streams derived from it. None draws one, which the summary prints.
    {_SHARED_DOC}
    See Also
    --------
    pcan : The formula function (``sdr.pcan(formula, data)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What ``fit`` returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> small = ais.iloc[::3]  # 68 rows keep the example quick
    >>> fit = sdr.PCAN(d=2).fit(small[["ht", "wt", "lbm", "rcc"]], small["sex"])
    >>> fit.directions.shape
    (4, 2)
    """
    method = "pcan"
    switches: ClassVar[dict[str, Any]] = {
        "global_terms": False,
        "graph": "adaptive",
        "supervised_graph": False,
    }

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "cv",
        d_max: int | None = None,
        n_neighbors: int = 15,
        lam: float = 10.0,
        tol: float = 1e-3,
        max_iter: int = 100,
        eigensolver: str = "auto",
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())


class PCA(ProjectionFamily):
    """PCA on the z-scored predictors: ``W = R_{1:k}``, the top right singular vectors.

    The response is not used (any response is accepted).

    Parameters
    ----------
    d : int, optional
        Number of components, at most ``min(n, p)``; ``None`` (default) chooses it by
        ``d_rule``. Every component is computed whatever ``d`` is (one singular value
        decomposition), so ``eigenvalues`` lists them all.
    d_rule : {"ratio", "ladle", "permutation", "bootstrap", "cv"}
        The rule that chooses ``d`` when it is not given. ``"ratio"`` (default): the
        eigenvalue-ratio rule of Ahn & Horenstein (2013), ``d`` maximising
        ``λ_k / λ_{k+1}`` for ``k <= d_max``
        (:func:`sdrstats.inference.ratio.eigenvalue_ratio`): no resampling, and made for
        principal components, whose eigenvalues beyond the dimension are a noise level
        rather than zero. ``"ladle"`` (Luo & Li 2016) also suits PCA.
    d_max : int, optional
        Largest ``d`` the rule tries; default ``p - 2`` for ``p <= 10``, ``floor(p / log p)``
        beyond (at least 1).
    random_state : int, SeedSequence or Generator, optional
        The fit's seed (PCA draws nothing): the rules that resample and ``bootstrap()`` draw
        from streams derived from it. None draws one, which the summary prints.

    See Also
    --------
    pca : The formula function (``sdr.pca(formula, data)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What ``fit`` returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.PCA(d=2).fit(ais[["ht", "wt", "lbm", "rcc"]], ais["ssf"])
    >>> fit.eigenvalues.round(2).tolist()
    [2.97, 0.73, 0.25, 0.05]
    >>> fit.directions.shape
    (4, 2)
    """

    method = "pca"
    response: ClassVar[str] = "any"
    scale_by_singular_values: ClassVar[bool] = False

    def _projection(
        self, X: np.ndarray, Y: Any, **weights: float
    ) -> tuple[np.ndarray, dict[str, Any]]:
        _, sv, Rt = np.linalg.svd(X, full_matrices=False)
        W = Rt.T  # every component: d (given or chosen) takes the first d
        if self.scale_by_singular_values:
            W = W * sv
        # eigenvalues of the correlation matrix, the variances of the components
        return W, {"eigenvalues": sv**2 / (X.shape[0] - 1)}


class VPCA(PCA):
    """The variant PCA of gLPCA/SDSPCA: ``W = R_{1:k} Σ_{1:k}``.

    ``W = X^T Q`` with ``Q`` the top-k left singular vectors. Same directions as
    :class:`PCA`; ``transform`` scales each component by its singular value.

    Parameters
    ----------
    d : int, optional
        Number of components; ``None`` (default) chooses it by ``d_rule``, as :class:`PCA`.
    d_rule : {"ratio", "ladle", "permutation", "bootstrap", "cv"}
        The rule that chooses ``d`` when it is not given, as :class:`PCA` (default
        ``"ratio"``).
    d_max : int, optional
        Largest ``d`` the rule tries, as :class:`PCA`.
    random_state : int, SeedSequence or Generator, optional
        The fit's seed, as :class:`PCA`.

    See Also
    --------
    vpca : The formula function (``sdr.vpca(formula, data)``).
    sdrstats.sdspcaan._results.SDSPCAANResults : What ``fit`` returns.
    sdspcaan, sdspca, sdspca_lpp, spcan, pcan, pca, vpca : The family's members.

    References
    ----------
    :cite:t:`shi2020`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.VPCA(d=2).fit(ais[["ht", "wt", "lbm", "rcc"]], ais["ssf"])
    >>> fit.directions.shape
    (4, 2)
    """

    method = "vpca"
    scale_by_singular_values = True


__all__ = [
    "ProjectionFamily",
    "SDSPCAAN",
    "SDSPCA",
    "SDSPCALPP",
    "SPCAN",
    "PCAN",
    "PCA",
    "VPCA",
    "zscore",
]
