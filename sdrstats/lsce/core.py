"""The fitting path shared by LSCE and LSMI: standardise, restarts on the Grassmann
manifold with (σ, λ) re-selected by cross-validation, choice of ``d`` by cross-validation.

:class:`CriterionEstimator` is the common :class:`~sdrstats.fitting.estimator.Estimator`; LSCE and LSMI
differ only in the criterion name and the default grids.
"""

from __future__ import annotations

import sys
import warnings
from functools import partial
from typing import Any, ClassVar

import numpy as np
from threadpoolctl import threadpool_limits

from ..base.budget import check_count, check_loops, warn_if_slow
from ..base.parallel import ANNOUNCE_SECONDS, announce, effective_n_jobs, parallel_map, spawn_seeds
from ..base.validation import Interval, Options, TooFewRowsError, check_positive_grid
from ..base.warnings import ConvergenceWarning, TuningWarning
from ..fitting.estimator import Capabilities, Estimator, EstimatorOutput
from ..stats.gaussian import (
    SIGMA_EXTENSIONS,
    BasisProblem,
    Tuning,
    WidthScores,
    choose_centres,
    choose_tuning,
    choose_widths,
    edge_message,
    make_folds,
    select_hyperparameters,
    split_sigma,
    standardise_response,
    width_edge_messages,
)
from ..stats.grassmann import grassmann_minimize, orthogonal_complement, random_orthonormal_rows
from ..stats.linalg import canonical_basis, whiten
from ..stats.moment_kernels import starting_directions

#: Where LSCE's search for (σ_z, σ_y, λ) starts at a restart's first projection.
WIDTHS_START = (1.0, 0.4, 0.01)


def run_restart(
    problem: BasisProblem, settings: dict[str, Any], task: tuple[int, str, Any]
) -> dict[str, Any]:
    """One restart ``(d, start, W0 or seed)``: optimise ``W`` from a warm start (``start`` is
    "sir", "save" or "phd" and ``W0`` its directions) or from a random ``W`` drawn from the
    seed (``start = "random"``), re-selecting σ, λ every ``cv_every`` updates."""
    # Small dense problems (b x b with b <= 100): one BLAS thread is many times faster than
    # several competing for the cores, and parallelism comes from running restarts side by side.
    with threadpool_limits(1, user_api="blas"):
        return _restart(problem, settings, *task)


def _restart(
    problem: BasisProblem, settings: dict[str, Any], d: int, start: str, payload: Any
) -> dict[str, Any]:
    if start == "random":
        W0 = random_orthonormal_rows(d, problem.X.shape[1], np.random.default_rng(payload))
    else:
        W0 = np.asarray(payload, dtype=float)
    sigmas, lams, folds = settings["sigmas"], settings["lams"], settings["folds"]
    if settings["widths"] == "separate":
        state = {"tuning": None}

        def tune(W: np.ndarray) -> Tuning:
            # Coordinate descent from the last choice: a few dozen scores per re-selection.
            prev = state["tuning"]
            start = WIDTHS_START if prev is None else (*split_sigma(prev.sigma), prev.lam)
            t = choose_widths(
                problem, W, sigmas, sigmas, lams, folds, extend=settings["extend"], start=start
            )
            return Tuning((t.sigma_z, t.sigma_y), t.lam, t.cv, t.at_edge)

    else:
        tune = partial(
            choose_tuning,
            problem,
            sigmas=sigmas,
            lams=lams,
            folds=folds,
            extend=settings["extend"],
        )
        state = {}
    state["tuning"] = tune(W0)

    def fun(W: np.ndarray) -> tuple[float, np.ndarray]:
        t = state["tuning"]
        fit = problem.solve(W, t.sigma, t.lam)
        return fit.value, fit.gradient

    def callback(iteration: int, W: np.ndarray) -> bool:
        if iteration % settings["cv_every"]:
            return False
        old = state["tuning"][:2]
        state["tuning"] = tune(W)
        return state["tuning"][:2] != old

    res = grassmann_minimize(
        fun, W0, max_iter=settings["max_iter"], tol=settings["tol"], callback=callback
    )
    # Tangkaratt et al.'s step 4: the model chosen by CV at the final W, refitted on all samples.
    final_tuning = tune(res.W)
    final = problem.solve(res.W, final_tuning.sigma, final_tuning.lam, gradient=False)
    sigma_z, sigma_y = split_sigma(final_tuning.sigma)
    return {
        "d": d,
        "start": start,
        "W": res.W,
        "value": final.value,
        "sigma": sigma_z,
        "sigma_y": sigma_y,
        "lambda": final_tuning.lam,
        "cv_score": final_tuning.cv,
        "sigma_at_edge": final_tuning.at_edge,
        "n_iter": res.n_iter,
        "converged": res.converged,
        "trace": res.trace,
    }


def restart_tasks(
    Xw: np.ndarray,
    Ys: np.ndarray,
    dims: list[int],
    n_restarts: int,
    seeds: list[Any],
    warm_starts: bool,
) -> list[tuple[int, str, Any]]:
    """For each ``d``: the SIR, SAVE and pHd directions of the whitened data first (when
    ``warm_starts``), then random starts, ``n_restarts`` in all. Random start ``i`` always uses
    ``seeds[i]``, so a restart's result does not depend on how many warm starts precede it."""
    tasks: list[tuple[int, str, Any]] = []
    for d in dims:
        warm = list(starting_directions(Xw, Ys, d).items()) if warm_starts else []
        chosen = [(d, name, W0) for name, W0 in warm[:n_restarts]]
        chosen += [(d, "random", seeds[i]) for i in range(n_restarts - len(chosen))]
        tasks += chosen
    return tasks


#: Starts optimised for each candidate ``d`` while choosing it (the best by held-out score
#: among the SIR/SAVE/pHd directions and the nested starts), and the looser relative
#: tolerance of those optimisations; the fit at the chosen ``d`` uses the options as given.
SELECTION_STARTS = 2
SELECTION_TOL = 1e-4


def selection_grid(grid: np.ndarray) -> np.ndarray:
    """The grid with the geometric midpoint of each neighbouring pair inserted.

    With two widths the held-out criterion of a 3-dimensional ``z`` sits between the
    default grid's points (LSMI's steps by a factor of 3.2), and one grid step decided
    between ``d = 2`` and ``d = 3`` on ``bench_dimension.py``'s ``three`` model.
    """
    grid = np.sort(np.asarray(grid, dtype=float))
    if len(grid) < 2:
        return grid
    mids = np.sqrt(grid[:-1] * grid[1:])
    return np.sort(np.concatenate([grid, mids]))


def selection_starts(
    Xw: np.ndarray, Ys: np.ndarray, d: int, previous: np.ndarray | None
) -> dict[str, np.ndarray]:
    """Starts for candidate ``d``: the leading ``d`` SIR, SAVE and pHd directions, and
    (``previous``, the directions chosen for ``d - 1``) the nested starts: ``previous``
    plus the leading direction of each kernel in the predictors' part orthogonal to it."""
    starts = {name: W0 for name, W0 in starting_directions(Xw, Ys, d).items()}
    if previous is not None:
        complement = orthogonal_complement(previous)
        for name, v in starting_directions(Xw @ complement.T, Ys, 1).items():
            starts[f"nested+{name}"] = np.vstack([previous, v @ complement])
    return starts


#: Parameters of LSCE and LSMI other than ``sigma_grid`` (each class lists its own grid).
SHARED_DOC = """d : int, optional
        Dimension of the subspace (``1 <= d < p``). ``None`` chooses it by ``d_rule``.
    d_rule : {"cv", "bootstrap"}
        The rule that chooses ``d`` when it is not given. ``"cv"`` (default): a nested
        sequential search scored by LSCDE's held-out criterion (``n_folds`` folds). For
        ``d = 1, 2, ...`` the leading ``d`` SIR, SAVE and pHd directions and the nested
        starts (the directions chosen for ``d - 1`` plus the leading SIR, SAVE or pHd
        direction orthogonal to them) are scored, the best
        ``SELECTION_STARTS = 2`` optimised (relative tolerance ``1e-4``), and ``d``'s score
        is the better one's. While choosing, ``z`` and ``y`` get separate widths (σ_z, σ_y,
        on the σ grid with its geometric midpoints added): with one common width a
        3-dimensional ``z`` lost to the best plane even at the true subspace. The search
        stops at the first ``d`` whose score falls by no more than one standard error of
        the fall over the folds (the one-standard-error rule, :cite:t:`hastie2009`, towards
        the smaller ``d``) and keeps the ``d`` before it. Then the published algorithm
        (``n_restarts`` restarts, one width) fits the chosen ``d`` only, so the directions
        equal those of a fit given that ``d``; ``fit.cv_table`` and
        ``fit.test_dimension("cv")`` show the scores, their falls (``gain``) and standard
        errors (``gain_se``). LSMI's candidates are fitted by its own criterion but
        scored by LSCDE's held-out criterion: its held-out SMI falls with ``d`` at n = 400
        even at the true subspace. At n = 500, p = 10 (``benchmarks/bench_dimension.md``)
        the choice and the fit at the chosen ``d`` take about 6 s on an idle 2-core machine
        (12-19 s while other jobs share it; the earlier rule, ``n_restarts`` restarts for
        every ``d``, took 20 s idle and 145 s at load 8), and ``test_dimension("cv")`` on a
        fit given ``d`` 3-6 s. At n = 400, p = 6 it chose the true ``d`` in 29, 30 and 26
        of 30 data sets (LSCE) and 30, 30 and 18 of 30 (LSMI) on models with d = 1, 2
        and 3.
        The directions are fitted on all rows and only (σ, λ) are cross-validated, so the
        score flatters larger ``d``; the one-standard-error stop counters it.
        ``"bootstrap"``: Ye & Weiss's rule, refitting each candidate on resamples (slow).
    d_max : int, optional
        Largest ``d`` tried when ``d=None``; default ``min(p - 1, 5)``.
    n_basis : int, default 100
        Gaussian centres: ``min(n_basis, n)`` random rows; they move with ``W``. The fit holds
        about ``16 n b`` floats for ``b = min(n_basis, n)`` (``n_basis = n`` at n = 200,000:
        about 4.7 TiB) and is refused past ``sdr.set_config(max_memory=...)`` before it
        starts.
    lambda_grid : array-like, optional
        Ridge penalties, default ``logspace(-3, 1, 9)``.
    n_folds : int, default 5
        Folds of the cross-validation choosing (σ, λ).
    cv_every : int, default 5
        Re-select (σ, λ) after every ``cv_every`` gradient updates.
    n_restarts : int, default 5
        Starts of the optimisation at the fitted ``d`` (given, or chosen by ``d_rule``):
        with ``warm_starts`` the first three are the leading ``d`` directions of SIR, SAVE
        and pHd on the whitened data, the rest random orthonormal ``W``. (Tangkaratt et al.
        used 20 random starts; with warm starts 5 reach their accuracy in a quarter of the
        time, ``benchmarks/papers/lsce_artificial.md``.) Restarts and ``max_iter`` are
        bounded by the time limit (``sdr.set_config(max_time=...)``, a day by default): a
        fit predicted to take longer is refused before it starts, with the estimate.
    warm_starts : bool, default True
        Start from the SIR, SAVE and pHd directions (deterministic and cheap); ``False``
        gives purely random starts, as Tangkaratt et al.
    max_iter : int, default 100
        Gradient steps per restart; a restart that reaches it triggers a
        :class:`~sdrstats.ConvergenceWarning`.
    tol : float, default 1e-6
        Relative decrease of the criterion below which a restart has converged.
    select_by : {"cv", "criterion"}, default "cv"
        Which restart to keep: the smallest held-out CV score, or the best final criterion
        (Tangkaratt et al.'s rule). Criterion values at different (σ, λ) are not on one
        scale, and a restart that ends at a small σ in a wrong direction can reach the best
        criterion; the held-out score is comparable across restarts. Measured on the LSCE
        paper's toys (``benchmarks/papers/lsce_artificial.md``, 20 draws each at n = 100 with
        10 restarts) keeping by CV gave mean Error_DR 0.18 (a) and 0.05 (b) against 0.30 and
        0.20 by SCE^, and never worse at n = 300, hence the default.
    n_jobs : int, default 1
        Restarts run on this many workers (results do not depend on it).
    progress : bool, default True
        One progress bar over all restarts (shown for long fits only).
    random_state : int, SeedSequence or Generator, optional
        Seeds centres, folds and the random starts.
"""


class CriterionEstimator(Estimator):
    __doc__ = f"""Common options and fitting path of LSCE and LSMI (not used directly).

    Parameters
    ----------
    sigma_grid : array-like, optional
        Gaussian widths (standardised units); the default grid is the method's (see
        :class:`LSCE`, :class:`LSMI`). When cross-validation picks an end of the default
        grid, the grid is extended by its own logarithmic step on that side (up to 3
        points); a σ still at an end, or at an end of a grid given here, raises a
        :class:`~sdrstats.TuningWarning`.
    {SHARED_DOC}"""

    criterion: ClassVar[str] = "sce"
    default_sigma_grid: ClassVar[np.ndarray] = np.logspace(-1.5, 1.5, 9)
    default_lambda_grid: ClassVar[np.ndarray] = np.logspace(-3, 1, 9)
    #: ``"single"``: one Gaussian width for z and y, re-selected with λ over the full grid
    #: (Tangkaratt et al. 2015). ``"separate"`` (LSCE only): widths σ_z and σ_y, with λ,
    #: re-selected by coordinate descent on the grid. A subclass may set it; measured on the
    #: LSCE paper's toys it is about twice as fast and no more accurate
    #: (``benchmarks/bench_density.md``).
    widths: ClassVar[str] = "single"
    capabilities = Capabilities(eigenvalues=False, cv_test=True, nested_directions=False)
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "d": [Interval(int, 1, None), None],
        "d_rule": [Options(("cv", "bootstrap"))],
        "d_max": [Interval(int, 1, None), None],
        "n_basis": [Interval(int, 2, None)],
        "sigma_grid": ["positive grid", None],
        "lambda_grid": ["positive grid", None],
        "n_folds": [Interval(int, 2, None)],
        "cv_every": [Interval(int, 1, None)],
        "n_restarts": [Interval(int, 1, None)],
        "warm_starts": ["boolean"],
        "max_iter": [Interval(int, 1, None)],
        "tol": [Interval(float, 0, None, closed="neither")],
        "select_by": [Options(("cv", "criterion"))],
        "n_jobs": ["n_jobs", None],
        "progress": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        d: int | None = None,
        d_rule: str = "cv",
        d_max: int | None = None,
        n_basis: int = 100,
        sigma_grid: Any = None,
        lambda_grid: Any = None,
        n_folds: int = 5,
        cv_every: int = 5,
        n_restarts: int = 5,
        warm_starts: bool = True,
        max_iter: int = 100,
        tol: float = 1e-6,
        select_by: str = "cv",
        n_jobs: int | None = 1,
        progress: bool = True,
        random_state: Any = None,
    ) -> None:
        self._set_options(locals())

    def grids(self) -> tuple[np.ndarray, np.ndarray]:
        o = self.options
        sig = self.default_sigma_grid if o["sigma_grid"] is None else o["sigma_grid"]
        lam = self.default_lambda_grid if o["lambda_grid"] is None else o["lambda_grid"]
        return (
            check_positive_grid(sig, "sigma_grid", self.method),
            check_positive_grid(lam, "lambda_grid", self.method),
        )

    def candidate_dims(self, p: int) -> list[int]:
        d, d_max = self.options["d"], self.options["d_max"]
        if d is not None:
            return [d]
        if self.options["d_rule"] != "cv":
            return [1]  # provisional: the rule refits its candidates, then the chosen d
        return list(range(1, min(p - 1, d_max if d_max is not None else 5) + 1))

    def _check_data(self, X: np.ndarray, Y: np.ndarray, categorical: bool) -> None:
        n, p = X.shape
        name = self.method
        if not (np.all(np.isfinite(X)) and (categorical or np.all(np.isfinite(Y)))):
            raise ValueError(
                f"{name} got non-finite values (inf or NaN) in the predictors or response; "
                "remove or impute those rows first."
            )
        if p < 2:
            raise ValueError(f"{name} reduces p >= 2 predictors; got p = {p}. Use lscde instead.")
        d, d_max = self.options["d"], self.options["d_max"]
        if d is not None and d >= p:
            raise ValueError(
                f"The 'd' option of {name} must be less than the number of predictors p = {p} "
                f"(d = p is no reduction: use lscde); got d = {d}."
            )
        if d_max is not None and d_max >= p:
            raise ValueError(
                f"The 'd_max' option of {name} must be less than p = {p}; got {d_max}."
            )
        k = self.options["n_folds"]
        if n < 2 * k:
            raise TooFewRowsError(
                f"{name} needs at least 2 * n_folds = {2 * k} observations for {k}-fold "
                f"cross-validation; got n = {n}. Lower 'n_folds' or add observations."
            )
        self._check_budget(n, p)

    def _check_budget(self, n: int, p: int) -> None:
        """Refuse ``n_basis``, ``n_restarts`` or ``max_iter`` past ``sdr.set_config``'s memory
        or time limit, before anything is allocated (see ``n_basis`` and ``n_restarts``)."""
        o, name = self.options, self.method
        b = min(o["n_basis"], n)
        # the n x b basis, its gradient and CV blocks: about 16 n x b float arrays at once,
        # plus b x b systems (tracemalloc, n = 1,000 and 2,000, b = 100 and 400)
        check_count(name, "n_basis", b, unit="basis functions", seconds_each=None,
                    bytes_each=16 * 8.0 * (n + b), at=f" at n = {n:,}",
                    remedy="lower n_basis (or fit on a random subsample of the rows)")  # fmt: skip
        workers = max(1, min(effective_n_jobs(o["n_jobs"]), o["n_restarts"]))
        # a restart: about 0.22 ms a row at b = 100 and max_iter = 100 on a 2-core machine,
        # growing as b^1.5 (b = 400: 8x) and with the gradient steps
        restart = 2.2e-4 * n * (b / 100) ** 1.5 * (o["max_iter"] / 100)
        dims = self.candidate_dims(p)
        check_count(name, "n_restarts", o["n_restarts"], unit="restarts", seconds_each=None,
                    bytes_each=2048.0 * len(dims), at=f" for each d in {dims}")  # fmt: skip
        # d = None: the choice optimises SELECTION_STARTS starts for each candidate d (fewer
        # when it stops early), then n_restarts restarts fit the chosen d
        share = 1 + (SELECTION_STARTS * len(dims) / o["n_restarts"] if len(dims) > 1 else 0)
        check_loops(name, {"n_restarts": o["n_restarts"], "max_iter": o["max_iter"]},
                    share * restart / o["max_iter"] / workers, unit="gradient steps",
                    at=f" for d in {dims} at n = {n:,}")  # fmt: skip

    def _prepare(self, X: np.ndarray, Y: np.ndarray, weights: np.ndarray | None):
        if weights is not None:
            w = np.asarray(weights)
            if np.any(w < 0) or not np.allclose(w, np.round(w)):
                raise ValueError(
                    f"{self.method} accepts only integer case weights (resampling counts); "
                    "got non-integer or negative weights."
                )
            reps = np.round(w).astype(int)
            X, Y = np.repeat(X, reps, axis=0), np.repeat(Y, reps, axis=0)
        Xw, x_mean, root = whiten(X, self.method, ddof=1)
        categorical = Y.ndim == 1 and Y.dtype.kind in "iu"
        if categorical:
            Ys, y_mean, y_scale = Y, None, None
        else:
            Ys, y_mean, y_scale = standardise_response(Y, self.method)
        return Xw, Ys, x_mean, root, y_mean, y_scale

    def dimension_choice(
        self, spec: Any, *, random_state: Any = None
    ) -> tuple[int, list[dict[str, Any]]]:
        """``d_rule="cv"``'s choice and table on ``spec``'s rows without the fit at the
        chosen ``d`` (what ``test_dimension("cv")`` needs); the same centres, folds and
        numbers as a fit with ``d=None`` and this ``random_state``."""
        return self._fit(spec.X, spec.Y, random_state=random_state, choice_only=True)

    def _fit(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        random_state: Any = None,
        choice_only: bool = False,
    ) -> Any:
        o = self.options
        Xw, Ys, x_mean, root, y_mean, y_scale = self._prepare(X, Y, weights)
        n, p = Xw.shape
        setup_seed, *restart_seeds = spawn_seeds(random_state, 1 + o["n_restarts"])
        setup = np.random.default_rng(setup_seed)
        problem = BasisProblem(Xw, Ys, choose_centres(n, o["n_basis"], setup), self.criterion)
        sigmas, lams = self.grids()
        settings = {
            "sigmas": sigmas,
            "lams": lams,
            "folds": make_folds(n, o["n_folds"], setup),
            "cv_every": o["cv_every"],
            "max_iter": o["max_iter"],
            "tol": o["tol"],
            "extend": SIGMA_EXTENSIONS if o["sigma_grid"] is None else 0,
            "widths": self.widths if self.criterion == "sce" else "single",
        }
        dims = self.candidate_dims(p)
        if len(dims) > 1 or choice_only:
            d, cv_table = self._choose_d(problem, Xw, Ys, settings, dims)
            if choice_only:
                return d, cv_table
        else:
            d, cv_table = dims[0], None
        tasks = restart_tasks(Xw, Ys, [d], o["n_restarts"], restart_seeds, o["warm_starts"])
        # about 1.1 ms a row for 5 restarts on a 2-core machine (n = 8000, d = 1: 8.7 s),
        # linear in the rows (b basis functions) and the restarts
        warn_if_slow(
            self.method,
            1.1e-3 * n * len(tasks) / 5 / max(1, min(o["n_jobs"] or 1, len(tasks))),
            f"{len(tasks)} restarts for d = {d} at n = {n:,}",
            "lower n_restarts, or raise n_jobs",
            stacklevel=4,
        )
        runs = parallel_map(
            partial(run_restart, problem, settings),
            tasks,
            n_jobs=o["n_jobs"],
            progress=o["progress"],
            desc=f"{self.method} restarts",
            count_option=("n_restarts", o["n_restarts"]),
        )
        # Tangkaratt et al. keep the restart with the smallest SCE^ (select_by="criterion"); values
        # at different (σ, λ) are not on one scale, so "cv" compares held-out scores instead.
        key = "value" if o["select_by"] == "criterion" else "cv_score"
        chosen = min(runs, key=lambda r: r[key])
        separate = settings["widths"] == "separate"
        if cv_table is None:
            cv_table = [
                {
                    "d": d,
                    "cv_score": chosen["cv_score"],
                    "sigma": chosen["sigma"],
                    **({"sigma_y": chosen["sigma_y"]} if separate else {}),
                    "lambda": chosen["lambda"],
                    "criterion": self.report(chosen["value"]),
                }
            ]
        user_grid = o["sigma_grid"] is not None
        if separate:
            texts = width_edge_messages(
                self.method, chosen["sigma_at_edge"], chosen["sigma"], chosen["sigma_y"], user_grid
            )
        elif chosen["sigma_at_edge"]:
            texts = [edge_message(self.method, chosen["sigma_at_edge"], chosen["sigma"], user_grid)]
        else:
            texts = []
        for text in texts:
            warnings.warn(text, TuningWarning, stacklevel=4)
        stalled = sum(not r["converged"] for r in runs)
        if stalled:
            warnings.warn(
                f"{stalled} of {len(runs)} {self.method} restarts stopped at max_iter = "
                f"{o['max_iter']} before the objective changed by less than tol = {o['tol']:g}; "
                "increase 'max_iter' or loosen 'tol'.",
                ConvergenceWarning,
                stacklevel=4,
            )
        output = self._output(
            problem, chosen, runs, cv_table, separate, x_mean, root, y_mean, y_scale
        )
        output.extras["cv_choice"] = d
        return output

    def _choose_d(
        self,
        problem: BasisProblem,
        Xw: np.ndarray,
        Ys: Any,
        settings: dict[str, Any],
        dims: list[int],
    ) -> tuple[int, list[dict[str, Any]]]:
        """``d_rule="cv"``: the nested sequential search over ``dims`` (see ``d_rule``).

        For each ``d`` in turn, every start of :func:`selection_starts` is scored by LSCDE's
        held-out criterion with separate widths for ``z`` and ``y``; the best
        ``SELECTION_STARTS`` are optimised by the method's own criterion (two widths
        re-selected along the way, relative tolerance ``SELECTION_TOL``) and the better
        held-out score is ``d``'s. The search stops at the first ``d`` whose score falls by
        no more than the standard error of the fall over the folds and returns the ``d``
        before it, with the table of every ``d`` scored.
        """
        o = self.options
        n = problem.n
        select = {
            **settings,
            "sigmas": selection_grid(settings["sigmas"]),
            "widths": "separate",
            "tol": max(o["tol"], SELECTION_TOL),
        }
        # about 0.45 s a candidate d at n = 500, b = 100 on one core of a 2-core machine
        # (bench_dimension.py), linear in the rows and b^1.5 in the basis size
        b = len(problem.centres)
        each = 0.45 * n / 500 * (b / 100) ** 1.5 * SELECTION_STARTS
        predicted = each * len(dims) / max(1, min(effective_n_jobs(o["n_jobs"]), SELECTION_STARTS))
        talk = o["progress"] and predicted > ANNOUNCE_SECONDS
        if talk:
            announce(
                f"{self.method} choice of d",
                predicted,
                f"up to {len(dims)} candidate d, {SELECTION_STARTS} optimised starts each",
            )
        # the score of a candidate d: LSCDE's held-out criterion (for LSMI too, whose own
        # held-out SMI falls with d even at the true subspace at n = 400)
        scoring = (
            problem
            if problem.criterion == "sce"
            else BasisProblem(problem.X, problem.Y, problem.centres, "sce")
        )

        def held_out(W: np.ndarray) -> Any:
            return choose_widths(
                scoring, W, select["sigmas"], select["sigmas"], select["lams"], select["folds"],
                extend=select["extend"], start=WIDTHS_START,
            )  # fmt: skip

        table: list[dict[str, Any]] = []
        previous, previous_folds, chosen = None, np.zeros(0), dims[0]
        for d in dims:
            starts = selection_starts(Xw, Ys, d, previous)
            scored = sorted(starts.items(), key=lambda item: held_out(item[1]).cv)
            tasks = [(d, name, W0) for name, W0 in scored[:SELECTION_STARTS]]
            runs = parallel_map(
                partial(run_restart, problem, select), tasks, n_jobs=o["n_jobs"], progress=False
            )
            if scoring is not problem:  # re-tune each run's W for the LSCDE score
                for run in runs:
                    t = held_out(run["W"])
                    run.update(
                        cv_score=t.cv, sigma=t.sigma_z, sigma_y=t.sigma_y, **{"lambda": t.lam}
                    )
            best = min(runs, key=lambda r: r["cv_score"])
            per_fold = WidthScores(scoring, best["W"], select["folds"]).fold_scores(
                best["sigma"], best["sigma_y"], [best["lambda"]]
            )[:, 0]
            if previous is None:
                gain, gain_se = np.nan, np.nan
            else:
                # paired over the folds: the same held-out rows score both dimensions
                diff = previous_folds - per_fold
                gain, gain_se = diff.mean(), diff.std(ddof=1) / np.sqrt(len(diff))
            table.append(
                {
                    "d": d,
                    "cv_score": best["cv_score"],
                    "gain": gain,
                    "gain_se": gain_se,
                    "sigma": best["sigma"],
                    "sigma_y": best["sigma_y"],
                    "lambda": best["lambda"],
                    "criterion": self.report(best["value"]),
                }
            )
            if talk:
                sys.stderr.write(f"{self.method}: d = {d} scored {best['cv_score']:.5g}\n")
            if previous is not None and not gain > gain_se:
                break
            chosen, previous, previous_folds = d, best["W"], per_fold
        return chosen, table

    def report(self, value: float) -> float:
        """The reported criterion from the minimised value (SCE^ as is, SMI^ negated)."""
        return value if self.criterion == "sce" else -value

    def _output(
        self, problem, chosen, runs, cv_table, separate, x_mean, root, y_mean, y_scale
    ) -> EstimatorOutput:
        W, d = chosen["W"], chosen["d"]
        raw = root @ W.T
        basis = canonical_basis(raw)
        # z_j = s_j * ((x - x̄) · basis_j): the per-column factor taking transform() to z.
        z_scale = np.einsum("ij,ij->j", raw, basis)
        final = problem.solve(
            W, (chosen["sigma"], chosen["sigma_y"]), chosen["lambda"], gradient=False
        )
        extras = {
            "W": W,
            "whitener": root,
            "z_scale": z_scale,
            "sigma": chosen["sigma"],
            "sigma_y": chosen["sigma_y"],
            "widths": "separate" if separate else "single",
            "lambda": chosen["lambda"],
            "alpha": final.alpha,
            "centres_z": problem.Xc @ W.T,
            "centres_y": problem.Yc,
            "y_mean": y_mean,
            "y_scale": y_scale,
            "cv_score": chosen["cv_score"],
            "trace": chosen["trace"],
            "n_iter": chosen["n_iter"],
            "converged": chosen["converged"],
            "start": chosen["start"],
            "cv_table": cv_table,
            "restarts": [
                {
                    "d": r["d"],
                    "start": r["start"],
                    "criterion": self.report(r["value"]),
                    "cv_score": r["cv_score"],
                    "sigma": r["sigma"],
                    **({"sigma_y": r["sigma_y"]} if separate else {}),
                    "lambda": r["lambda"],
                    "n_iter": r["n_iter"],
                    "converged": r["converged"],
                }
                for r in runs
            ],
            # Original-scale directions of every restart, so the restart rules can be compared.
            "restart_bases": [canonical_basis(root @ r["W"].T) for r in runs],
        }
        return EstimatorOutput(
            basis=basis, d=d, criterion=self.report(final.value), center=x_mean, extras=extras
        )


__all__ = [
    "CriterionEstimator",
    "run_restart",
    "restart_tasks",
    "select_hyperparameters",
    "whiten",
    "standardise_response",
]
