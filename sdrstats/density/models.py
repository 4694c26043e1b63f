"""LSCDE models whose spread follows the predictors, and the choice among them.

Three LSCDE models of ``p(y | z)`` on standardised (reduced) predictors ``z``:

- ``"single"``: LSCDE as published (Sugiyama et al. 2010): one Gaussian width σ for the
  window in ``z`` and the components in ``y``; (σ, λ) by K-fold CV of the squared loss over
  the full grid.
- ``"separate"``: widths σ_z for ``z`` and σ_y for ``y``, chosen jointly with λ by the same
  CV criterion (coordinate descent on the grid, :func:`~sdrstats.stats.gaussian.choose_widths`).
- ``"location_scale"``: ``y = m(z) + s(x) e``. The location ``m`` is a local-linear fit of
  the standardised response on ``z`` (per-axis leave-one-out CV bandwidths,
  :class:`~sdrstats.stats.local_linear.LocalLinear`). The log-scale ``log s`` is chosen by
  :func:`~sdrstats.density.spread.choose_scale`: a constant when a Breusch-Pagan test of
  the leave-one-out residuals finds no heteroscedasticity, else the best by held-out
  likelihood of a local-linear fit of the log absolute residuals on ``z``, on ``z``
  with one or two *spread directions* of all the predictors (for a reduced fit: the
  spread may change along directions the fit's ``d`` directions miss), or on the spread's
  own directions in place of ``z``. The standardised
  residual ``e = (y - m(z))/s(x)`` gets a separate-widths LSCDE given ``z``.
  The squared loss is nearly flat in the residual density's component width and spread, so
  σ_y, one for all components or adaptive (Abramson 1982), and a spread factor are then
  chosen by held-out log-likelihood with the one-standard-error rule towards the smoother
  density (:func:`choose_component_width`; the same for ``"separate"``'s σ_y), so that a
  smooth conditional law is not rendered as a comb of narrow components. A defensive component of weight ``1/n`` and sd :data:`TAIL_SD` (residual
  units) keeps rows beyond the data from scoring as impossible (Hesterberg 1995). A Gaussian
  mixture in ``e`` stays one in ``y`` (means ``m + s μ_k``, sds ``s σ_k``), so every query
  stays exact.

``model="auto"`` (the default) fits ``"separate"`` and ``"location_scale"`` on the same
centres and folds and keeps the one with the larger held-out mean log density, a proper
score (Gneiting and Raftery 2007): each row is scored by the model refitted without its fold,
with no centre at a held-out row; the location-scale model uses each row's leave-one-out
location and scale. The component-width search (:func:`choose_component_width`) is the
costly part of that score, so the two are first ranked by a coarse one (two widths, see
:data:`COARSE_STEPS`); the better gets the full search, and the other too when its coarse
score comes within :data:`COARSE_MARGIN` of the first's full score.

References
----------
Abramson, I. S. On bandwidth variation in kernel estimates: a square root law. Annals of
Statistics 10(4), 1982.

Hastie, T., Tibshirani, R. and Friedman, J. The Elements of Statistical Learning, 2nd ed.
Springer, 2009.

Jones, M. C. On correcting for variance inflation in kernel density estimation.
Computational Statistics & Data Analysis 11(1), 1991.

Sugiyama, M., Takeuchi, I., Suzuki, T., Kanamori, T., Hachiya, H. and Okanohara, D.
Least-squares conditional density estimation. IEICE Transactions on Information and Systems
E93-D(3), 2010.

Tangkaratt, V., Xie, N. and Sugiyama, M. Conditional density estimation with dimensionality
reduction via squared-loss conditional entropy minimization. Neural Computation 27(1), 2015.

Gneiting, T. and Raftery, A. E. Strictly proper scoring rules, prediction, and estimation.
Journal of the American Statistical Association 102(477), 2007.

Hesterberg, T. Weighted average importance sampling and defensive mixture distributions.
Technometrics 37(2), 1995.

Li, K.-C. On principal Hessian directions for data visualization and dimension reduction:
another application of Stein's lemma. Journal of the American Statistical Association
87(420), 1992.
"""

from __future__ import annotations

import functools
import warnings
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import ThreadpoolController

from ..base.budget import check_count
from ..base.parallel import as_seed_sequence
from ..base.validation import check_choice, check_int, check_positive_grid
from ..base.warnings import TuningWarning
from ..stats.gaussian import (
    SIGMA_EXTENSIONS,
    BasisProblem,
    WidthScores,
    choose_centres,
    choose_tuning,
    choose_widths,
    edge_message,
    heldout_log_density,
    heldout_log_density_widths,
    make_folds,
    width_edge_messages,
)
from ..stats.local_linear import LocalLinear
from ..stats.rank_cv import one_se_choice
from .deferred import DeferredTable
from .spread import choose_scale

MODELS = ("auto", "location_scale", "separate", "single")
#: Candidates of ``model="auto"``.
AUTO_CANDIDATES = ("location_scale", "separate")
LSCDE_SIGMAS = np.logspace(-1.5, 1.5, 9)
LSCDE_LAMBDAS = np.logspace(-3, 1, 9)
#: Where the search for (σ_z, σ_y, λ) starts: a response varies with z, so a moderate
#: window; a standardised residual hardly does, so a wide one.
START_Y = (1.0, 0.4, 0.01)
START_E = (5.6, 0.4, 0.1)
#: A log-scale predicted beyond the training fit's range by more than this is clipped.
LOG_SCALE_MARGIN = 1.0


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """One controller per process: ``threadpool_limits`` scans the loaded libraries on
    every call (about 0.6 ms, a few per cent of a default ``lscde`` fit)."""
    return ThreadpoolController()


def check_lscde_options(
    sigma_grid: Any, lambda_grid: Any, n_basis: int, n_folds: int, model: str
) -> tuple[np.ndarray, np.ndarray]:
    check_int(n_basis, "n_basis", "lscde", low=2)
    check_int(n_folds, "n_folds", "lscde", low=2)
    check_choice(model, "model", "lscde", MODELS)
    sigmas = check_positive_grid(
        LSCDE_SIGMAS if sigma_grid is None else sigma_grid, "sigma_grid", "lscde"
    )
    lams = check_positive_grid(
        LSCDE_LAMBDAS if lambda_grid is None else lambda_grid, "lambda_grid", "lscde"
    )
    return sigmas, lams


def check_basis_memory(n: int, n_basis: int) -> None:
    """Refuse an LSCDE basis past ``sdr.set_config(max_memory=...)`` before it is built:
    about ``16 n b`` floats for ``b = min(n_basis, n)`` (its n x b kernels, their CV and
    gradient blocks; tracemalloc, as LSCE's)."""
    b = min(n_basis, n)
    check_count("lscde", "n_basis", b, unit="basis functions", seconds_each=None,
                bytes_each=16 * 8.0 * (n + b), at=f" at n = {n:,}",
                remedy="lower n_basis (or fit on a random subsample of the rows)")  # fmt: skip


def setup(
    Z: np.ndarray, Ys: np.ndarray, n_basis: int, n_folds: int, random_state: Any
) -> tuple[BasisProblem, np.ndarray]:
    """Centres, then folds, from one generator (the order LSCDE has always drawn them)."""
    check_basis_memory(len(Z), n_basis)
    rng = np.random.default_rng(as_seed_sequence(random_state))
    problem = BasisProblem(Z, Ys, choose_centres(len(Z), n_basis, rng), "sce")
    return problem, make_folds(len(Z), n_folds, rng)


def _warn_edge(at_edge: str, sigma: float, user_grid: bool) -> None:
    if at_edge:
        warnings.warn(edge_message("lscde", at_edge, sigma, user_grid), TuningWarning, stacklevel=2)


def _warn_width_edge(tuning: Any, user_grid: bool) -> None:
    for text in width_edge_messages(
        "lscde", tuning.at_edge, tuning.sigma_z, tuning.sigma_y, user_grid
    ):
        warnings.warn(text, TuningWarning, stacklevel=2)


def fit_single(problem: BasisProblem, folds: np.ndarray, sigmas, lams, user_grid: bool) -> dict:
    """LSCDE with one width (Sugiyama et al. 2010): (σ, λ) over the full grid."""
    identity = np.eye(problem.X.shape[1])
    tuning = choose_tuning(
        problem, identity, sigmas, lams, folds, extend=0 if user_grid else SIGMA_EXTENSIONS
    )
    _warn_edge(tuning.at_edge, tuning.sigma, user_grid)
    alpha = problem.solve(identity, tuning.sigma, tuning.lam, gradient=False).alpha
    cv_grid = pd.DataFrame(
        tuning.scores,
        index=pd.Index(np.asarray(tuning.sigmas, float), name="sigma"),
        columns=pd.Index(np.asarray(lams, float), name="lambda"),
    )
    return {
        "alpha": alpha,
        "sigma_z": tuning.sigma,
        "sigma_y": tuning.sigma,
        "lambda": tuning.lam,
        "cv_score": tuning.cv,
        "cv_grid": cv_grid,
        "tuning": {"sigma": tuning.sigma, "lambda": tuning.lam, "cv_score": tuning.cv},
    }


def fit_separate(
    problem: BasisProblem,
    folds: np.ndarray,
    sigmas,
    lams,
    user_grid: bool,
    scorer: WidthScores | None = None,
    start: tuple[float, float, float] = START_Y,
) -> dict:
    """LSCDE with widths σ_z, σ_y and λ chosen jointly by the K-fold CV criterion."""
    identity = np.eye(problem.X.shape[1])
    tuning = choose_widths(
        problem,
        identity,
        sigmas,
        sigmas,
        lams,
        folds,
        extend=0 if user_grid else SIGMA_EXTENSIONS,
        scorer=scorer,
        start=start,
    )
    _warn_width_edge(tuning, user_grid)
    order = np.argsort(tuning.table[:, 3], kind="quicksort")  # sort_values' order, cheaper
    table = DeferredTable(
        pd.DataFrame, tuning.table[order], columns=["sigma_z", "sigma_y", "lambda", "cv_score"]
    )
    sz, sy, lam, cv = tuning.sigma_z, tuning.sigma_y, tuning.lam, tuning.cv
    alpha = problem.solve(identity, (sz, sy), lam, gradient=False).alpha
    return {
        "alpha": alpha,
        "sigma_z": sz,
        "sigma_y": sy,
        "lambda": lam,
        "cv_score": cv,
        "cv_grid": table,
        "tuning": {"sigma_z": sz, "sigma_y": sy, "lambda": lam, "cv_score": cv},
    }


def fit_location_scale(
    problem: BasisProblem,
    folds: np.ndarray,
    sigmas,
    lams,
    user_grid: bool,
    y_scale: np.ndarray,
    z_cache: WidthScores | None = None,
    predictors: np.ndarray | None = None,
    random_state: Any = None,
    refine: bool = True,
) -> dict:
    """Location by local-linear smoothing on ``z``, the log-scale chosen by
    :func:`~sdrstats.density.spread.choose_scale` (constant, on ``z``, or on ``z`` and
    spread directions of ``predictors``), then separate-widths LSCDE of the standardised
    residual given ``z`` (same centres and folds as ``problem``). ``refine=False`` stops
    before the full search of the residual density's component width: the fit then holds
    ``coarse_score`` (:func:`choose_component_width`'s ``coarse`` score) and ``finish``,
    which completes it."""
    Z, Ys = problem.X, problem.Y
    location = LocalLinear(Z, Ys)
    resid = location.loo_residuals
    scale = choose_scale(Z, resid, predictors, random_state=random_state)
    log_scale = scale.smoother
    g_range = np.vstack(
        [
            log_scale.fitted.min(axis=0) - LOG_SCALE_MARGIN,
            log_scale.fitted.max(axis=0) + LOG_SCALE_MARGIN,
        ]
    )
    e = resid / np.exp(log_scale.fitted)
    e_shift, e_scale = e.mean(axis=0), e.std(axis=0, ddof=1)
    E = (e - e_shift) / e_scale
    e_problem = BasisProblem(Z, E, problem.centres, "sce")
    # same z and centres as z_cache's scorer: share its kernel products
    shared = None if z_cache is None else z_cache.z_sides
    scorer = WidthScores(e_problem, np.eye(Z.shape[1]), folds, z_sides=shared)
    # Held-out scoring: each row's leave-one-out log-scale, its residual standardised by it.
    g_loo = np.clip(log_scale.loo_fitted(), g_range[0], g_range[1])
    E_loo = (resid / np.exp(g_loo) - e_shift) / e_scale
    log_jacobian = -(g_loo + np.log(e_scale)).sum(axis=1) - np.log(y_scale).sum()
    fit = fit_separate(
        e_problem,
        folds,
        sigmas,
        lams,
        user_grid,
        scorer=scorer,
        start=START_E,
    )
    # The residual density's component width and spread, by held-out log-likelihood with
    # the one-standard-error rule (see choose_component_width).
    tail = 1.0 / len(Z)
    # held-out scores per width, shared by the coarse and the full search; the refits start
    # from the squared-loss search's kernel products
    known: dict = {"parts": {"z_sides": scorer.z_sides}}
    width_args = (e_problem, folds, fit, sigmas, E_loo, log_jacobian, SPREAD_FACTORS, tail)

    def finish() -> dict:
        score, sy, c, factors, widths = choose_component_width(*width_args, known=known)
        fit["width_factors"] = factors
        if sy != fit["sigma_y"]:
            fit["sigma_y"] = fit["tuning"]["sigma_y"] = float(sy)
            fit["alpha"] = e_problem.solve(
                np.eye(Z.shape[1]), (fit["sigma_z"], sy), fit["lambda"], gradient=False
            ).alpha
        fit["width_choice"] = widths
        fit["tail_weight"] = tail
        fit["heldout_log_score"] = score
        fit["tuning"]["spread_factor"] = float(c)
        fit["e_scale"] = e_scale * c
        return fit

    fit.update(
        problem=e_problem,
        location=location,
        log_scale=log_scale,
        log_scale_range=g_range,
        e_shift=e_shift,
        spread=scale.spread,
        scale_choice=scale.deferred_table,
        heteroscedasticity_pvalue=scale.pvalue,
    )
    fit["tuning"].update(
        location_bandwidth=_one_or_list(location.bandwidth),
        log_scale=scale.name,
        scale_bandwidth=None if log_scale.bandwidth is None else _one_or_list(log_scale.bandwidth),
    )
    if not refine:
        fit["coarse_score"] = choose_component_width(*width_args, known=known, coarse=True)
        fit["finish"] = finish
        return fit
    return finish()
    return fit


#: Component widths tried around the squared-loss choice, in half steps of the σ grid:
#: from half a step narrower to two steps wider (the squared loss errs narrow: on the
#: density benchmark's models a step narrower was never kept).
WIDTH_STEPS = (-1, 0, 1, 2, 3, 4)
#: The widths of the coarse score that ranks ``model="auto"``'s candidates before the
#: better gets the full search: the squared-loss choice and one grid step wider. On the
#: density benchmark's six models (SIR's directions, two draws each) and LSCE's toy (a)
#: its best score was within 0.06 nats of the full search's (0.15 once, where the other
#: model led by 1.1).
COARSE_STEPS = (0, 2)
#: The other candidate gets the full search too when its coarse score comes within this
#: many nats of the full score of the first.
COARSE_MARGIN = 0.05


def abramson_widths(values: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Abramson's (1982) square-root law: each centre's width factor
    ``(f(v_k) / G)^{-1/2}``, ``f`` a Gaussian kernel density of ``values`` (scipy's
    ``gaussian_kde``, Scott's bandwidth) and ``G`` the geometric mean of ``f`` over the
    centres, so the factors' geometric mean is 1: components where the data are sparse
    (a long tail) are wider, those in the bulk narrower. Kept within [0.2, 5]."""
    from scipy.stats import gaussian_kde  # here: scipy.stats is slow to import

    pilot = gaussian_kde(values.T)(centres.T)
    log_f = np.log(np.maximum(pilot, 1e-300))
    return np.clip(np.exp(-0.5 * (log_f - log_f.mean())), 0.2, 5.0)


def choose_component_width(
    problem: BasisProblem,
    folds: np.ndarray,
    fit: dict,
    sigmas: np.ndarray,
    values: np.ndarray | None,
    log_jacobian: Any,
    factors: tuple[float, ...] = (1.0,),
    tail: float = 0.0,
    *,
    known: dict | None = None,
    coarse: bool = False,
) -> Any:
    """The components' width σ_y, fixed or adaptive, and a spread factor ``c`` of the
    values, by held-out log-likelihood with the one-standard-error rule towards the wider.

    The squared loss that chose ``fit``'s σ_y is nearly flat in it, and its minimum can sit
    at a width far below the conditional law's own spread: the density is then a comb of
    narrow components, spiky and multimodal where the law is smooth, most of all in a long
    tail where the centres are sparse. Here σ_y runs over half steps of the σ grid around
    that choice (:data:`WIDTH_STEPS`; σ_z and λ held), with one width for every component
    or with Abramson's (1982) adaptive widths ``σ_y λ_k`` (:func:`abramson_widths`), each
    scored by the K-fold held-out mean log density of ``values`` (n x q, standardised
    units; default the problem's own response), with a defensive component of weight
    ``tail``. With several ``factors`` each width is scored at the factor ``c`` that gives
    the mixture the values' variance (the centres' spread plus the components' width;
    Jones 1991's variance correction), the one factor to choose once the width is kept.
    Of the candidates within one standard error of the best (the standard error of the
    mean paired difference of the rows' scores; Hastie, Tibshirani and Friedman 2009,
    section 7.10; :func:`~sdrstats.stats.rank_cv.one_se_choice`) the widest is kept,
    adaptive before fixed at the same σ_y: the smoothest density that gives up less than
    the score's own noise. A candidate that scores some row as impossible (a log density of
    ``-inf``, or not a number) is left out of the comparison (its table row has no standard
    error); if every candidate does, the squared loss's σ_y is kept, one width. Then ``c``
    is the best of ``factors`` and the variance-matching one at that width, by a local
    search from the variance-matching one (the score has one peak in ``c``: on the density
    benchmark's six models, 48 densities of ``lscde`` and SIR, the search kept the factor a
    scan of all of them kept).

    Returns the score, σ_y, ``c``, the width factors (``None``: one width) and the table of
    scores. With ``coarse``, only the widths of :data:`COARSE_STEPS` are scored (one width
    and adaptive, each at its variance-matching factor) and the best score is returned: a
    cheap score to rank models by before one of them gets the full search. ``known`` (a dict kept by the caller for
    one ``problem``, ``fit`` and ``values``) keeps the rows' scores of each width scored,
    so that a full search after a coarse one scores only the widths it has not.
    """
    identity = np.eye(problem.X.shape[1])
    targets = problem.Y if values is None else values
    step = float(sigmas[1] / sigmas[0]) if len(sigmas) > 1 else 1.0  # the grid's ratio
    known = {} if known is None else known
    if "adaptive" not in known:
        known["adaptive"] = abramson_widths(problem.Y, problem.Yc)
    adaptive = known["adaptive"]
    spread_target = targets.var(axis=0).mean()
    cache: dict = known.setdefault("parts", {})  # σ_z is held: its kernel products, once

    def scores(sy: float, *candidates: tuple[np.ndarray | None, list[float]]) -> list[tuple]:
        """(mean, c, rows' scores) of the best factor in ``cs`` for each ``(widths, cs)``
        of ``candidates``, all from the same refits at ``sy``."""
        pairs = [(widths, c) for widths, cs in candidates for c in cs]
        logp = heldout_log_density(
            problem, identity, (fit["sigma_z"], sy), fit["lambda"], folds,
            [targets / c for _, c in pairs], [widths for widths, _ in pairs], cache,
        )  # fmt: skip
        out, start = [], 0
        for _, cs in candidates:
            out.append(best_factor(logp[start : start + len(cs)], cs))
            start += len(cs)
        return out

    def best_factor(logp: list[np.ndarray], cs: list[float]) -> tuple:
        best: tuple | None = None  # the first factor even when every score is -inf
        for lp, c in zip(logp, cs):
            if tail > 0:  # the defensive component enters the score as the density
                v = targets / c
                log_tail = -0.5 * ((v / TAIL_SD) ** 2).sum(axis=1) - v.shape[1] * np.log(
                    np.sqrt(2 * np.pi) * TAIL_SD
                )
                lp = np.logaddexp(np.log1p(-tail) + lp, np.log(tail) + log_tail)
            lp = lp + log_jacobian - targets.shape[1] * np.log(c)
            mean = float(np.mean(lp))
            mean = -np.inf if np.isnan(mean) else mean
            if best is None or mean > best[0]:
                best = (mean, float(c), lp)
        return best

    def best_spread(sy: float, widths: np.ndarray | None, kept: tuple) -> tuple:
        """(mean, c, rows' scores) of the best of ``factors`` and the variance-matching
        factor (``kept``'s, already scored) at ``sy``: a local search over them in
        order, from the matching factor to the better neighbour while the score rises
        (ties to the smaller factor)."""
        grid = sorted({*factors, kept[3]})
        done = {grid.index(kept[3]): tuple(kept[2:])}
        i = grid.index(kept[3])
        while True:
            near = [j for j in (i - 1, i + 1) if 0 <= j < len(grid)]
            todo = [j for j in near if j not in done]
            if todo:
                for j, out in zip(todo, scores(sy, *[(widths, [grid[j]]) for j in todo])):
                    done[j] = out
            best = max([i, *near], key=lambda j: (done[j][0], -j))
            if best == i:
                return done[i]
            i = best

    def matched(sy: float, widths: np.ndarray | None) -> list[float]:
        # The factor that gives the mixture (centres' spread plus the components' width) the
        # values' variance, when a factor is chosen at all.
        if len(factors) == 1:
            return [factors[0]]
        comps = (sy if widths is None else sy * widths) ** 2
        return [float(np.sqrt(spread_target / (problem.Yc.var(axis=0).mean() + np.mean(comps))))]

    # Widths first, each at its variance-matching factor (one score per width; one width
    # and the adaptive widths share the refits at each σ_y) ...
    steps = COARSE_STEPS if coarse else WIDTH_STEPS
    widths_tried = [fit["sigma_y"] * step ** (j / 2) for j in steps]
    kinds = (None, adaptive)
    todo = [sy for sy in widths_tried if sy not in known]
    cs = [[matched(sy, w)[0] for w in kinds] for sy in todo]
    if todo:
        logps = heldout_log_density_widths(
            problem, identity, fit["sigma_z"], todo, fit["lambda"], folds,
            [[targets / c for c in row] for row in cs], list(kinds), cache,
        )  # fmt: skip
        for sy, logp, row in zip(todo, logps, cs):
            known[sy] = [best_factor([lp], [c]) for lp, c in zip(logp, row)]
    at = {sy: known[sy] for sy in widths_tried}
    if coarse:
        return max(score for sy in widths_tried for score, *_ in at[sy])
    rows = [
        (sy, k == 1, *at[sy][k]) for k, widths in enumerate((None, adaptive)) for sy in widths_tried
    ]
    # Widest first, adaptive before fixed at the same σ_y: the one-se rule keeps the first
    # within one standard error of the best. A candidate with a row it scores as impossible
    # (or not a number) is not compared: its mean is no score, and its paired standard
    # error is no error.
    order = sorted(range(len(rows)), key=lambda i: (-rows[i][0], not rows[i][1]))
    finite = [i for i in order if np.all(np.isfinite(rows[i][4]))]
    se = np.full(len(rows), np.nan)
    if finite:
        first, finite_se = one_se_choice(-np.column_stack([rows[i][4] for i in finite]))
        keep = finite[first]
        se[finite] = finite_se
    else:  # no width scores every row: the squared loss's, one width
        keep = next(i for i, r in enumerate(rows) if r[0] == fit["sigma_y"] and not r[1])
    sy, is_adaptive = rows[keep][0], rows[keep][1]
    widths = adaptive if is_adaptive else None
    # ... then the factor at the width kept.
    score, c, _ = rows[keep][2:] if len(factors) == 1 else best_spread(sy, widths, rows[keep])
    table = DeferredTable(_width_table, [r[:4] for r in rows], se, keep)
    return score, float(sy), float(c), widths, table


def _width_table(rows: list[tuple], se: np.ndarray, keep: int) -> pd.DataFrame:
    """:func:`choose_component_width`'s candidates: width, adaptive, score, factor."""
    return pd.DataFrame(
        {
            "sigma_y": [r[0] for r in rows],
            "adaptive": [r[1] for r in rows],
            "held-out log score": [r[2] for r in rows],
            "spread factor": [r[3] for r in rows],
            "se of difference": se,
            "kept": ["*" if i == keep else "" for i in range(len(rows))],
        }
    )


#: The sd of the location-scale model's defensive component (weight 1/n), in units of the
#: standardised residual: wide enough that a row whose residual is tens of sds out (a local
#: fit extrapolating beyond the data) keeps a log density of tens, not thousands.
TAIL_SD = 10.0
#: Factors tried on the spread of the residual density ``e -> c e``, kept by held-out
#: log-likelihood. On ``y = x1 + (0.2 + |x2|) ε`` (n = 400, 8 draws, 4,000 test draws each)
#: the mean log score rose from -1.289 without them to -1.278, and the 80 % intervals'
#: coverage varied less between draws (sd 0.023 instead of 0.030, means 0.80).
SPREAD_FACTORS = (0.8, 0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.2)


def _one_or_list(values: np.ndarray) -> list[float] | list[list[float]]:
    """Bandwidths per predictor (a list per response when there are several)."""
    rows = [[float(v) for v in row] for row in np.atleast_2d(values)]
    return rows[0] if len(rows) == 1 else rows


def _heldout(
    problem: BasisProblem,
    folds: np.ndarray,
    values: np.ndarray | None,
    log_jacobian: Any,
    sigma_z: float,
    sigma_y: float,
    lam: float,
) -> float:
    """Held-out mean log density (original response scale) at ``(σ_z, σ_y, λ)``."""
    identity = np.eye(problem.X.shape[1])
    logp = heldout_log_density(problem, identity, (sigma_z, sigma_y), lam, folds, values)
    return float(np.mean(logp + log_jacobian))


def _finish_separate(
    problem: BasisProblem,
    folds: np.ndarray,
    fit: dict,
    sigmas: np.ndarray,
    y_scale: np.ndarray,
    known: dict,
    coarse: bool = False,
) -> Any:
    """The separate-widths model's component width by held-out log score
    (:func:`choose_component_width`; with ``coarse`` only its coarse score)."""
    out = choose_component_width(
        problem, folds, fit, sigmas, None, -np.log(y_scale).sum(), known=known, coarse=coarse
    )
    if coarse:
        return out
    score, sy, _, factors, widths = out
    fit["width_factors"] = factors
    if sy != fit["sigma_y"]:
        fit["sigma_y"] = fit["tuning"]["sigma_y"] = sy
        fit["alpha"] = problem.solve(
            np.eye(problem.X.shape[1]), (fit["sigma_z"], sy), fit["lambda"], gradient=False
        ).alpha
    fit["heldout_log_score"], fit["width_choice"] = score, widths
    return fit


def fit_lscde_models(
    Z: np.ndarray,
    Ys: np.ndarray,
    *,
    model: str = "auto",
    sigma_grid: Any = None,
    lambda_grid: Any = None,
    n_basis: int = 100,
    n_folds: int = 5,
    y_scale: Any = 1.0,
    random_state: Any = None,
    predictors: np.ndarray | None = None,
) -> tuple[str, dict, DeferredTable]:
    """Fit the LSCDE model(s) ``model`` asks for; return the chosen name, its fit and the
    table of held-out mean log densities (one row per model fitted; built when called). ``predictors`` (all
    predictors of a reduced fit) lets the location-scale model's spread follow directions
    beyond ``Z``."""
    sigmas, lams = check_lscde_options(sigma_grid, lambda_grid, n_basis, n_folds, model)
    seed = as_seed_sequence(random_state)
    problem, folds = setup(Z, Ys, n_basis, n_folds, seed)
    # The spread directions' permutations: a stream of their own, so that centres and folds
    # stay those of the same seed.
    spread_seed = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, 1))
    user = sigma_grid is not None
    names = AUTO_CANDIDATES if model == "auto" else (model,)
    fits: dict[str, dict] = {}
    y_scale = np.asarray(y_scale, dtype=float).reshape(-1)
    # With two candidates each first gets a coarse score of its component width
    # (choose_component_width's coarse); only the better gets the full search, and the
    # other too only if its coarse score comes within COARSE_MARGIN of the first's full
    # score (the full search reuses the coarse one's scores: nothing is scored twice).
    refine = len(names) == 1
    # small dense solves: one thread is fastest
    with _blas_controller().limit(limits=1, user_api="blas"):
        scorer = WidthScores(problem, np.eye(Z.shape[1]), folds)
        plain = partial(_heldout, problem, folds, None, -np.log(y_scale).sum())
        caught: dict[str, list] = {}
        for name in names:
            # A candidate's tuning warnings matter only if it is the model kept.
            with warnings.catch_warnings(record=True) as caught[name]:
                warnings.simplefilter("always")
                if name == "location_scale":
                    fits[name] = fit_location_scale(
                        problem,
                        folds,
                        sigmas,
                        lams,
                        user,
                        y_scale,
                        scorer,
                        predictors,
                        spread_seed,
                        refine=refine,
                    )
                    continue
                if name == "single":  # LSCDE as published: (σ, λ) by the squared loss alone
                    fits[name] = fit_single(problem, folds, sigmas, lams, user)
                    fit = fits[name]
                    fit["heldout_log_score"] = plain(fit["sigma_z"], fit["sigma_y"], fit["lambda"])
                    continue
                fit = fits[name] = fit_separate(problem, folds, sigmas, lams, user, scorer=scorer)
                known = {"parts": {"z_sides": scorer.z_sides}}
                finish = partial(_finish_separate, problem, folds, fit, sigmas, y_scale, known)
                if refine:
                    finish()
                else:
                    fit["coarse_score"] = finish(coarse=True)
                    fit["finish"] = finish
        if not refine:
            order = sorted(names, key=lambda k: -fits[k]["coarse_score"])
            for k in names:
                fits[k]["heldout_log_score"] = fits[k]["coarse_score"]
            fits[order[0]].pop("finish")()
            for k in order[1:]:
                if fits[k]["heldout_log_score"] > fits[order[0]]["heldout_log_score"] - (
                    COARSE_MARGIN
                ):
                    fits[k].pop("finish")()
            for k in names:
                fits[k].pop("finish", None)
                fits[k].pop("coarse_score")
    table = DeferredTable(
        _model_table,
        [fits[k]["heldout_log_score"] for k in names],
        [fits[k]["cv_score"] for k in names],
        list(names),
    )
    chosen = max(names, key=lambda k: fits[k]["heldout_log_score"])
    for caught_warning in caught[chosen]:
        warnings.warn(caught_warning.message, caught_warning.category, stacklevel=5)
    fits[chosen].setdefault("problem", problem)
    return chosen, fits[chosen], table


def _model_table(scores: list[float], cv: list[float], names: list[str]) -> pd.DataFrame:
    """:func:`fit_lscde_models`' table: each model's held-out log score and CV loss."""
    return pd.DataFrame(
        {"held-out log score": scores, "CV squared loss": cv},
        index=pd.Index(names, name="model"),
    )


__all__ = [
    "AUTO_CANDIDATES",
    "TAIL_SD",
    "MODELS",
    "check_lscde_options",
    "fit_location_scale",
    "fit_lscde_models",
    "fit_separate",
    "fit_single",
    "setup",
]
