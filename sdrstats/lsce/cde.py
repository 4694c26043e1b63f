"""LSCDE at a fixed projection and ε-KDE: fitting, and the formula front ``lscde``/``eps_kde``.

Both work on standardised predictors ``z`` and a standardised response and return a
:class:`~sdrstats.density.ConditionalDensity` on the original response scale.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from .._parallel import as_seed_sequence
from .._validation import check_int, check_positive_grid
from ..density import Features, MixtureWeightsLSCDE, NeighbourWeights
from ..formula import parse
from .basis import BasisProblem, choose_centres, make_folds, squared_distances
from .core import select_hyperparameters, standardise_response

LSCDE_SIGMAS = np.logspace(-1.5, 1.5, 9)
LSCDE_LAMBDAS = np.logspace(-3, 1, 9)
EPS_QUANTILES = np.array([0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.65, 1.0])
BANDWIDTH_FACTORS = np.array([0.1, 0.2, 0.35, 0.6, 1.0])


def _check_common(Z: np.ndarray, n_folds: int, what: str) -> None:
    n = len(Z)
    if not np.all(np.isfinite(Z)):
        raise ValueError(f"{what} got non-finite predictor values; remove those rows first.")
    if n < 2 * n_folds:
        raise ValueError(
            f"{what} needs at least 2 * n_folds = {2 * n_folds} observations for "
            f"{n_folds}-fold cross-validation; got n = {n}. Lower 'n_folds' or add data."
        )


def fit_lscde(
    Z: np.ndarray,
    Ys: np.ndarray,
    *,
    sigma_grid: Any = None,
    lambda_grid: Any = None,
    n_basis: int = 100,
    n_folds: int = 5,
    random_state: Any = None,
) -> dict[str, Any]:
    """LSCDE (Sugiyama et al. 2010) of standardised ``Ys`` given standardised ``Z``.

    (σ, λ) minimise the K-fold held-out squared loss over the grids (defaults
    ``logspace(-1.5, 1.5, 9)`` and ``logspace(-3, 1, 9)``); centres are ``min(n_basis, n)``
    random rows. Returns the centres, ``α̂``, σ, λ and the CV score.
    """
    check_int(n_basis, "n_basis", "lscde", low=2)
    check_int(n_folds, "n_folds", "lscde", low=2)
    _check_common(Z, n_folds, "lscde")
    sigmas = check_positive_grid(
        LSCDE_SIGMAS if sigma_grid is None else sigma_grid, "sigma_grid", "lscde"
    )
    lams = check_positive_grid(
        LSCDE_LAMBDAS if lambda_grid is None else lambda_grid, "lambda_grid", "lscde"
    )
    rng = np.random.default_rng(as_seed_sequence(random_state))
    n, d = Z.shape
    problem = BasisProblem(Z, Ys, choose_centres(n, n_basis, rng), "sce")
    identity = np.eye(d)
    with threadpool_limits(1, user_api="blas"):
        sigma, lam, cv = select_hyperparameters(
            problem, identity, sigmas, lams, make_folds(n, n_folds, rng)
        )
        alpha = problem.solve(identity, sigma, lam, gradient=False).alpha
    return {
        "centres_z": problem.Xc,
        "centres_y": problem.Yc,
        "alpha": alpha,
        "sigma": sigma,
        "lambda": lam,
        "cv_score": cv,
    }


def fit_eps_kde(
    Z: np.ndarray, Ys: np.ndarray, *, eps_grid: Any = None, bandwidth_grid: Any = None
) -> dict[str, Any]:
    """ε-neighbour KDE: ``p̂(y|z)`` = Gaussian KDE (bandwidth ``h``) of the responses of the
    training rows within distance ε of ``z``; (ε, h) minimise the leave-one-out squared loss
    ``(1/2n) Σ ∫ p̂_{-i}(y|z_i)² dy - (1/n) Σ p̂_{-i}(y_i|z_i)``.

    Default grids: ε at quantiles (2 %...100 %) of the pairwise distances of ``z``; ``h`` =
    (0.1...1) x the normal-reference bandwidth of the standardised response.
    """
    n, q = Ys.shape
    dist2 = squared_distances(Z, Z)
    if eps_grid is None:
        off = np.sqrt(dist2[np.triu_indices(n, 1)])
        eps_grid = np.quantile(off, EPS_QUANTILES)
    eps_grid = check_positive_grid(eps_grid, "eps_grid", "eps_kde")
    if bandwidth_grid is None:
        ref = (4.0 / (q + 2)) ** (1 / (q + 4)) * n ** (-1 / (q + 4))
        bandwidth_grid = ref * BANDWIDTH_FACTORS
    hs = check_positive_grid(bandwidth_grid, "bandwidth_grid", "eps_kde")
    dy2 = squared_distances(Ys, Ys)
    best = (np.inf, None, None)
    table = np.zeros((len(eps_grid), len(hs)))
    for a, eps in enumerate(eps_grid):
        A = (dist2 <= eps * eps).astype(float)
        np.fill_diagonal(A, 0.0)
        empty = A.sum(axis=1) == 0
        A[empty] = 1.0  # the marginal KDE of the other rows, as in prediction
        A[empty, np.flatnonzero(empty)] = 0.0
        counts = A.sum(axis=1)
        for b, h in enumerate(hs):
            k1 = np.exp(-dy2 / (2 * h * h)) / (np.sqrt(2 * np.pi) * h) ** q
            k2 = np.exp(-dy2 / (4 * h * h)) / (2 * np.sqrt(np.pi) * h) ** q
            sq = np.einsum("ij,ij->i", A @ k2, A) / counts**2
            at = np.einsum("ij,ij->i", A, k1) / counts
            table[a, b] = 0.5 * sq.mean() - at.mean()
            if table[a, b] < best[0]:
                best = (table[a, b], eps, h)
    return {
        "eps": float(best[1]),
        "bandwidth": float(best[2]),
        "cv_score": float(best[0]),
        "cv_table": table,
        "eps_grid": eps_grid,
        "bandwidth_grid": hs,
    }


def fit_density(
    estimator: str,
    features: Features,
    Y: np.ndarray,
    y_names: list[str],
    *,
    label: str,
    random_state: Any = None,
    **options: Any,
):
    """Fit ``estimator`` ("lscde" or "eps_kde") on ``features()`` and wrap the density."""
    if Y.ndim == 1 and Y.dtype.kind in "iu":
        raise ValueError("A conditional density needs a continuous response; got class labels.")
    Ys, y_mean, y_scale = standardise_response(np.asarray(Y, dtype=float), label)
    Z, _ = features()
    common = {"y_names": y_names, "method": label}
    if estimator == "lscde":
        allowed = {"sigma_grid", "lambda_grid", "n_basis", "n_folds"}
        _reject_unknown(options, allowed, "lscde")
        fit = fit_lscde(Z, Ys, random_state=random_state, **options)
        return MixtureWeightsLSCDE(
            features,
            fit["centres_z"],
            fit["alpha"],
            fit["sigma"],
            means=y_mean + fit["centres_y"] * y_scale,
            sd=fit["sigma"] * y_scale,
            tuning={"sigma": fit["sigma"], "lambda": fit["lambda"], "cv_score": fit["cv_score"]},
            **common,
        )
    _reject_unknown(options, {"eps_grid", "bandwidth_grid"}, "eps_kde")
    _check_common(Z, 1, "eps_kde")
    with threadpool_limits(1, user_api="blas"):  # n x n products: one thread avoids contention
        fit = fit_eps_kde(Z, Ys, **options)
    return NeighbourWeights(
        features,
        Z,
        fit["eps"],
        means=y_mean + Ys * y_scale,
        sd=fit["bandwidth"] * y_scale,
        tuning={"eps": fit["eps"], "bandwidth": fit["bandwidth"], "cv_score": fit["cv_score"]},
        **common,
    )


def _reject_unknown(options: dict[str, Any], allowed: set[str], name: str) -> None:
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise TypeError(
            f"{name} got unknown option(s) {unknown}; valid options are "
            f"{sorted(allowed | {'random_state', 'd'})}."
        )


def _front(
    estimator: str,
    formula_or_fit: Any,
    data: Any,
    missing: str,
    random_state: Any,
    options: dict[str, Any],
):
    from ..density import conditional_density_for
    from ..results import Results

    if isinstance(formula_or_fit, Results):
        return conditional_density_for(
            formula_or_fit, estimator, random_state=random_state, **options
        )
    if not isinstance(formula_or_fit, str):
        raise TypeError(
            f"{estimator} takes a formula string and data, or a fitted SDR result; "
            f"got {type(formula_or_fit).__name__}."
        )
    if data is None:
        raise TypeError(f"{estimator}({formula_or_fit!r}) needs data=.")
    spec = parse(formula_or_fit, data, missing=missing)
    X = spec.X
    shift, scale = X.mean(axis=0), X.std(axis=0, ddof=1)
    if np.any(scale <= 0):
        const = [spec.x_names[j] for j in np.flatnonzero(scale <= 0)]
        raise ValueError(f"Predictor(s) {const} are constant; drop them from the formula.")
    return fit_density(
        estimator,
        Features(spec, shift, scale),
        spec.Y,
        spec.y_names,
        label=f"None/{estimator}",
        random_state=random_state,
        **options,
    )


def lscde(
    formula_or_fit: Any,
    data: Any = None,
    *,
    sigma_grid: Any = None,
    lambda_grid: Any = None,
    n_basis: int = 100,
    n_folds: int = 5,
    random_state: Any = None,
    missing: str = "drop",
):
    """Least-squares conditional density estimation (Sugiyama et al. 2010).

    Without reduction from a formula (``lscde("y ~ .", df)``: every predictor standardised),
    or on the reduced predictors of a fit (``lscde(fit)``).

    Parameters
    ----------
    formula_or_fit : str or Results
        A formula such as ``"y ~ ."`` (with ``data``), or a fitted result whose reduced
        predictors are used. Formula text is evaluated as Python (as in R and statsmodels):
        never pass one from an untrusted source. Column names are looked up as names, never run.
    data : DataFrame, optional
        Needed with a formula.
    sigma_grid, lambda_grid : array-like, optional
        Candidate Gaussian widths (standardised units) and ridge penalties; defaults
        ``logspace(-1.5, 1.5, 9)`` and ``logspace(-3, 1, 9)``; chosen by K-fold CV.
    n_basis : int, default 100
        Number of Gaussian centres (random rows).
    n_folds : int, default 5
    random_state : int, SeedSequence or Generator, optional
    missing : {"drop", "raise"}, default "drop"

    Returns
    -------
    ConditionalDensity

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> dens = sdr.lscde("lbm ~ ht + wt", ais, random_state=0)
    >>> dens.pdf([60.0, 70.0], ais.iloc[:2]).shape
    (2, 2)
    """
    opts = {
        "sigma_grid": sigma_grid,
        "lambda_grid": lambda_grid,
        "n_basis": n_basis,
        "n_folds": n_folds,
    }
    return _front("lscde", formula_or_fit, data, missing, random_state, opts)


def eps_kde(
    formula_or_fit: Any,
    data: Any = None,
    *,
    eps_grid: Any = None,
    bandwidth_grid: Any = None,
    missing: str = "drop",
):
    """ε-neighbour kernel conditional density estimation, ε and bandwidth by LS-CV.

    ``p̂(y|x)`` is the Gaussian KDE of the responses of the training rows whose standardised
    (reduced) predictors lie within ε of ``x``'s; with none, the marginal KDE.

    Parameters
    ----------
    formula_or_fit : str or Results
        A formula such as ``"y ~ ."`` (with ``data``), or a fitted result whose reduced
        predictors are used. Formula text is evaluated as Python (as in R and statsmodels):
        never pass one from an untrusted source. Column names are looked up as names, never run.
    data : DataFrame, optional
    eps_grid : array-like, optional
        Candidate radii (standardised units); default: quantiles of the pairwise distances.
    bandwidth_grid : array-like, optional
        Candidate response bandwidths (standardised units); default (0.1...1) x the
        normal-reference bandwidth.
    missing : {"drop", "raise"}, default "drop"

    Returns
    -------
    ConditionalDensity

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> dens = sdr.eps_kde("lbm ~ ht + wt", ais)
    >>> bool(dens.tuning["eps"] > 0)
    True
    """
    opts = {"eps_grid": eps_grid, "bandwidth_grid": bandwidth_grid}
    return _front("eps_kde", formula_or_fit, data, missing, None, opts)


__all__ = ["fit_lscde", "fit_eps_kde", "fit_density", "lscde", "eps_kde"]
