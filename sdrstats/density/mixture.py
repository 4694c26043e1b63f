"""The conditional-density mixtures and their fitting: LSCDE at a fixed projection and ε-KDE.

Both work on standardised predictors ``z`` and a standardised response and return a
:class:`~sdrstats.density.ConditionalDensity` on the original response scale; LSCDE's models
(one width, separate widths, location-scale; chosen by held-out log-likelihood by default)
are fitted in :mod:`.models` and wrapped here.
:func:`conditional_density_for` is what ``Results.conditional_density`` calls; the LSCE family's
``lscde``/``eps_kde`` formula functions and its own density use the same pieces. This module
sits below the method families and imports none of them.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ..base.budget import check_memory
from ..base.parallel import as_seed_sequence, call_seed
from ..base.validation import check_int, check_positive_grid, unknown_options_error
from ..base.warnings import TuningWarning
from ..stats.gaussian import (
    SIGMA_EXTENSIONS,
    BasisProblem,
    choose_centres,
    choose_tuning,
    edge_message,
    make_folds,
    squared_distances,
    standardise_response,
)
from .conditional import ConditionalDensity, Features, Parts
from .models import (
    LSCDE_LAMBDAS,
    LSCDE_SIGMAS,
    MODELS,
    TAIL_SD,
    check_basis_memory,
    fit_lscde_models,
)

ESTIMATORS = ("lscde", "eps_kde")

EPS_QUANTILES = np.array([0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.65, 1.0])
BANDWIDTH_FACTORS = np.array([0.1, 0.2, 0.35, 0.6, 1.0])


def _check_common(Z: np.ndarray, n_folds: int, what: str, rule: str = "") -> None:
    n = len(Z)
    if not np.all(np.isfinite(Z)):
        raise ValueError(f"{what} got non-finite predictor values; remove those rows first.")
    if n < 2 * n_folds:
        if rule:
            raise ValueError(
                f"{what} needs at least {2 * n_folds} observations {rule}; got n = {n}. Add data."
            )
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
    ``logspace(-1.5, 1.5, 9)``, extended beyond an end that is chosen, and
    ``logspace(-3, 1, 9)``); centres are ``min(n_basis, n)`` random rows. Returns the
    centres, ``α̂``, σ, λ and the CV score.
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
    check_basis_memory(n, n_basis)
    problem = BasisProblem(Z, Ys, choose_centres(n, n_basis, rng), "sce")
    identity = np.eye(d)
    with threadpool_limits(1, user_api="blas"):
        tuning = choose_tuning(
            problem,
            identity,
            sigmas,
            lams,
            make_folds(n, n_folds, rng),
            extend=SIGMA_EXTENSIONS if sigma_grid is None else 0,
        )
        sigma, lam, cv = tuning.sigma, tuning.lam, tuning.cv
        alpha = problem.solve(identity, sigma, lam, gradient=False).alpha
    if tuning.at_edge:
        warnings.warn(
            edge_message("lscde", tuning.at_edge, sigma, sigma_grid is not None),
            TuningWarning,
            stacklevel=4,
        )
    return {
        "centres_z": problem.Xc,
        "centres_y": problem.Yc,
        "alpha": alpha,
        "sigma": sigma,
        "lambda": lam,
        "cv_score": cv,
        "cv_table": tuning.scores,
        "sigma_grid": tuning.sigmas,
        "lambda_grid": lams,
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
    # pairwise distances of z and of y, the neighbour indicator and two kernel matrices:
    # about 7.5 n x n float arrays at once (tracemalloc, n = 1000)
    check_memory(
        "eps_kde",
        8.0 * 8.0 * n * n,
        f"its n x n distance and kernel matrices at n = {n:,}",
        "use lscde (memory grows with n times its basis size) or a random subsample",
    )
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


def _fit_density(
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
        allowed = {"sigma_grid", "lambda_grid", "n_basis", "n_folds", "model"}
        _reject_unknown(options, allowed, "lscde")
        _check_common(Z, options.get("n_folds", 5), "lscde")
        # A reduced fit's spread may follow directions beyond its own: offer all predictors.
        predictors = features.predictors() if features.results is not None else None
        name, fit, table = fit_lscde_models(
            Z, Ys, y_scale=y_scale, random_state=random_state, predictors=predictors, **options
        )
        problem = fit["problem"]
        if name == "location_scale":
            density = LocationScaleLSCDE(
                features,
                problem.Xc,
                fit["alpha"],
                fit["sigma_z"],
                location=fit["location"],
                log_scale=fit["log_scale"],
                log_scale_range=fit["log_scale_range"],
                e_shift=fit["e_shift"],
                e_scale=fit["e_scale"],
                y_mean=y_mean,
                y_scale=y_scale,
                tail_weight=fit["tail_weight"],
                spread=fit["spread"],
                means=problem.Yc,
                sd=component_widths(fit, Ys.shape[1]),
                tuning=fit["tuning"],
                **common,
            )
        else:
            density = MixtureWeightsLSCDE(
                features,
                problem.Xc,
                fit["alpha"],
                fit["sigma_z"],
                means=y_mean + problem.Yc * y_scale,
                sd=component_widths(fit, Ys.shape[1]) * y_scale,
                tuning=fit["tuning"],
                **common,
            )
        density.cv_grid = fit["cv_grid"]
        density.width_choice = fit.get("width_choice")
        if name == "location_scale":
            density.scale_choice = fit["scale_choice"]
            density.heteroscedasticity_pvalue = fit["heteroscedasticity_pvalue"]
        density.model = name
        density.heldout_log_score = fit["heldout_log_score"]
        density.model_choice = table
        density.n_folds = options.get("n_folds", 5)
        return density
    _reject_unknown(options, {"eps_grid", "bandwidth_grid"}, "eps_kde")
    # leave-one-out CV of (ε, h): as LSCDE's default 5-fold CV, at least 10 rows, so that
    # every held-out row has neighbours to be predicted from (3 rows gave a CV'd constant)
    _check_common(Z, 5, "eps_kde", rule="to choose ε and its bandwidth by cross-validation")
    with threadpool_limits(1, user_api="blas"):  # n x n products: one thread avoids contention
        fit = fit_eps_kde(Z, Ys, **options)
    density = NeighbourWeights(
        features,
        Z,
        fit["eps"],
        means=y_mean + Ys * y_scale,
        sd=fit["bandwidth"] * y_scale,
        tuning={"eps": fit["eps"], "bandwidth": fit["bandwidth"], "cv_score": fit["cv_score"]},
        **common,
    )
    density.cv_grid = _cv_frame(fit, "eps", "bandwidth")
    density.model = "eps_kde"
    return density


def component_widths(fit: dict[str, Any], q: int) -> np.ndarray:
    """The components' sds in standardised units: σ_y for all ``(q,)``, or one row per
    component ``(K, q)`` with adaptive widths."""
    factors = fit.get("width_factors")
    if factors is None:
        return np.full(q, fit["sigma_y"])
    return fit["sigma_y"] * np.repeat(np.asarray(factors, float)[:, None], q, axis=1)


def _cv_frame(fit: dict[str, Any], rows: str, cols: str) -> pd.DataFrame:
    """The held-out criterion over the tuning grid: rows ``rows`` values, columns ``cols``."""
    return pd.DataFrame(
        fit["cv_table"],
        index=pd.Index(np.asarray(fit[f"{rows}_grid"], float), name=rows),
        columns=pd.Index(np.asarray(fit[f"{cols}_grid"], float), name=cols),
    )


def _reject_unknown(options: dict[str, Any], allowed: set[str], name: str) -> None:
    unknown = [k for k in options if k not in allowed]
    if unknown:
        raise unknown_options_error(
            f"{name}() (a fit's conditional_density())",
            unknown,
            sorted(allowed | {"d", "random_state"}),
        )


class MixtureWeightsLSCDE(ConditionalDensity):
    """LSCDE / LSCE weights ``w_k(z) ∝ α̃_k exp(-||z - u_k||²/2σ²)`` (Tangkaratt et al. 2015, eq. 10)."""

    def __init__(
        self, features: Features, centres_z: np.ndarray, alpha: np.ndarray, sigma: float, **kw: Any
    ) -> None:
        super().__init__(features, **kw)
        keep = np.asarray(alpha) > 0
        if not keep.any():
            raise ValueError(
                "Every basis weight is <= 0, so the density is undefined; "
                "try a larger 'lambda_grid' or more data."
            )
        self.centres_z, self.log_alpha = centres_z[keep], np.log(np.asarray(alpha)[keep])
        self.means, self.sigma = self.means[keep], float(sigma)
        if self.component_sd.ndim == 2:
            self.component_sd = self.component_sd[keep]

    def _weights(self, Z: np.ndarray) -> np.ndarray:
        # In logs, so rows far from every centre still get the nearest components.
        logw = self.log_alpha - squared_distances(Z, self.centres_z) / (2 * self.sigma**2)
        logw -= logw.max(axis=1, keepdims=True)
        w = np.exp(logw)
        return w / w.sum(axis=1, keepdims=True)


class LocationScaleLSCDE(MixtureWeightsLSCDE):
    """``p(y | z) = Σ_k w_k(z) N(y; a(z) + b(z) m_k, b(z)² σ_y²)``: an LSCDE mixture of the
    standardised residual mapped back through the fitted location and scale.

    ``a(z) = ȳ + s_y (m(z) + s̃(z) μ_e)`` and ``b(z) = s_y s̃(z) σ_e``, where ``m`` and
    ``log s̃`` are the local-linear fits (standardised response units), ``μ_e, σ_e`` the
    mean and sd of the residuals ``e = r / s̃`` and ``ȳ, s_y`` the response's mean and sd.
    A last, defensive component of weight ``ε = 1/n`` with mean 0 and sd ``TAIL_SD`` (10) in
    the residual's units keeps the density of a row beyond the data, where the local fits
    extrapolate, from collapsing (Hesterberg 1995).

    References
    ----------
    Sugiyama, M., Takeuchi, I., Suzuki, T., Kanamori, T., Hachiya, H. and Okanohara, D.
    Least-squares conditional density estimation. IEICE Transactions on Information and
    Systems E93-D(3), 2010.

    Hesterberg, T. Weighted average importance sampling and defensive mixture
    distributions. Technometrics 37(2), 1995.
    """

    def __init__(
        self,
        features: Features,
        centres_z: np.ndarray,
        alpha: np.ndarray,
        sigma: float,
        *,
        location: Any,
        log_scale: Any,
        log_scale_range: np.ndarray,
        e_shift: np.ndarray,
        e_scale: np.ndarray,
        y_mean: np.ndarray,
        y_scale: np.ndarray,
        tail_weight: float = 0.0,
        spread: Any = None,
        **kw: Any,
    ) -> None:
        super().__init__(features, centres_z, alpha, sigma, **kw)
        self.spread = spread
        # The defensive component (Hesterberg 1995): weight ε, mean 0, sd TAIL_SD in the
        # residual's units, so that a row far outside the data is not scored as impossible.
        self.tail_weight = float(tail_weight)
        if self.tail_weight > 0:
            q = self.means.shape[1]
            self.component_sd = np.vstack(
                [np.broadcast_to(self.component_sd, self.means.shape), np.full((1, q), TAIL_SD)]
            )
            self.means = np.vstack([self.means, np.zeros((1, q))])
            self.n_tail = 1
        self.location, self.log_scale = location, log_scale
        self.log_scale_range = np.asarray(log_scale_range, dtype=float)
        self.e_shift, self.e_scale = np.asarray(e_shift, float), np.asarray(e_scale, float)
        self.y_mean, self.y_scale = np.asarray(y_mean, float), np.asarray(y_scale, float)

    def _weights(self, Z: np.ndarray) -> np.ndarray:
        w = super()._weights(Z)
        if self.tail_weight <= 0:
            return w
        eps = self.tail_weight
        return np.hstack([(1.0 - eps) * w, np.full((len(w), 1), eps)])

    def __setstate__(self, state: dict[str, Any]) -> None:
        state.setdefault("spread", None)
        super().__setstate__(state)

    @property
    def spread_directions(self) -> pd.DataFrame | None:
        """Directions of the predictors along which the spread ``s(x)`` changes, found from
        the residuals: beyond the fit's, or the spread's own in place of the fit's
        (``self.spread.alone``) (predictors x Spread1..k, unit columns; ``None``: the spread
        follows the reduced predictors alone, or no spread model)."""
        if self.spread is None:
            return None
        spec = self.features.spec if self.features.results is None else self.features.results.spec
        names = list(getattr(spec, "x_names", [])) or [
            f"x{j + 1}" for j in range(len(self.spread.basis))
        ]
        return self.spread.frame(names)

    def _parts(self, newdata: Any = None) -> Parts:
        Z, index = self.features(newdata)
        S = Z
        if self.spread is not None:  # the spread follows directions beyond the fit's
            S = self.spread.scale_inputs(Z, self.features.predictors(newdata))
        loc, scale = self._location_scale(Z, S)
        return Parts(self._weights(Z), loc, scale, index)

    def _location_scale(self, Z: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m = self.location.predict(Z)
        g = np.clip(self.log_scale.predict(S), self.log_scale_range[0], self.log_scale_range[1])
        s = np.exp(g)
        return self.y_mean + self.y_scale * (m + s * self.e_shift), self.y_scale * s * self.e_scale

    def _affine(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.spread is not None:
            raise ValueError("this density's spread needs the predictors; call _parts(newdata)")
        return self._location_scale(Z, Z)

    def _affine_rows(self) -> bool:
        return True


class NeighbourWeights(ConditionalDensity):
    """ε-KDE weights: equal on training rows with ``||z - z_j|| <= ε`` (all rows if none)."""

    def __init__(self, features: Features, train_z: np.ndarray, eps: float, **kw: Any) -> None:
        super().__init__(features, **kw)
        self.train_z, self.eps = train_z, float(eps)

    def _weights(self, Z: np.ndarray) -> np.ndarray:
        w = (squared_distances(Z, self.train_z) <= self.eps**2).astype(float)
        w[w.sum(axis=1) == 0] = 1.0
        return w / w.sum(axis=1, keepdims=True)


def conditional_density_for(
    results: Any, estimator: str = "lscde", **options: Any
) -> ConditionalDensity:
    """Conditional density of a fit's response given its reduced predictors.

    Parameters
    ----------
    results : Results
        Any SDR fit with a continuous response.
    estimator : {"lscde", "eps_kde"}
    **options
        ``d`` (default the fit's), ``random_state`` (default the fit's
        ``"conditional_density"`` stream, :meth:`sdrstats.Results.stream`) and the
        estimator's options: for LSCDE ``model`` (``"auto"``, the default, chooses between
        ``"location_scale"`` and ``"separate"`` by held-out log-likelihood; ``"single"`` is
        LSCDE with one width as published), ``sigma_grid``, ``lambda_grid``, ``n_basis``,
        ``n_folds`` (:mod:`sdrstats.density.models`); for ε-KDE :func:`fit_eps_kde`'s.

    Notes
    -----
    The location and the mixture weights use the fit's ``d`` reduced predictors. The
    location-scale model's spread may also follow directions of *all* the predictors that
    the fit's miss, or its own directions in their place (a reduction for the mean need not
    see where the noise grows; :mod:`sdrstats.density.spread`): the density's
    ``spread_directions`` lists them and its summary says when the density uses more
    directions than the fit's ``d``.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> fit = sdr.sir("lbm ~ ht + wt + rcc + wcc", ais, nslices=6, d=1)
    >>> dens = fit.conditional_density("lscde", random_state=0)
    >>> round(float(dens.mean(ais.iloc[:1]).iloc[0]), 1) > 0
    True
    """
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}; got {estimator!r}.")
    if results.spec.categorical:
        raise ValueError(
            f"A conditional density needs a continuous response; {results.spec.y_names} is "
            "categorical (class probabilities are not densities)."
        )
    d = int(options.pop("d", results.d))
    # Unseeded, the density draws its centres and folds from the fit's stream of this call
    # kind, so a seeded fit gives the same density every time it is asked.
    options["random_state"] = call_seed(results, options.get("random_state"), "conditional_density")
    reduced = results.transform(d=d).to_numpy()
    shift, scale = reduced.mean(axis=0), reduced.std(axis=0, ddof=1)
    if np.any(scale <= 0):
        raise ValueError("A reduced predictor of this fit is constant; no density can use it.")
    features = Features(results.spec, shift, scale, results=results, d=d)
    return fit_density(
        estimator,
        features,
        results.spec.Y,
        results.spec.y_names,
        label=f"{results.method}/{estimator}",
        **options,
    )


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
    """Fit ``estimator`` ("lscde" or "eps_kde") on ``features()`` and wrap the density; the
    density records ``random_state`` as its seed (the stream of its ``sample``)."""
    density = _fit_density(
        estimator, features, Y, y_names, label=label, random_state=random_state, **options
    )
    density.random_state = random_state
    return density


__all__ = [
    "ESTIMATORS",
    "MODELS",
    "LocationScaleLSCDE",
    "MixtureWeightsLSCDE",
    "NeighbourWeights",
    "conditional_density_for",
    "fit_density",
    "fit_eps_kde",
    "fit_lscde",
]
