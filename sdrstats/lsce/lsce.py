"""LSCE: least-squares conditional entropy (Tangkaratt, Xie & Sugiyama 2015)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .core import CriterionEstimator
from .results import DensityReductionResults, cv_dimension_test


class LSCE(CriterionEstimator):
    """Sufficient dimension reduction by minimising squared-loss conditional entropy.

    For a projection ``W`` (d x p, orthonormal rows, acting on whitened predictors) LSCE fits
    the LSCDE model ``b(z, y) = αᵀφ(z, y)`` on ``z = Wx`` with Gaussian basis functions and
    minimises the analytic estimate ``SCE^ = ½ α̂ᵀĜα̂ - ĥᵀα̂`` by natural-gradient descent on
    the Grassmann manifold.

    Parameters
    ----------
    d, d_max, n_basis, sigma_grid, lambda_grid, n_folds, cv_every, n_restarts, warm_starts, max_iter, tol, select_by, n_jobs, progress, random_state
        As :func:`lsce`, with the same defaults.

    Examples
    --------
    >>> import numpy as np
    >>> import sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((80, 3))
    >>> y = X[:, 0] + 0.2 * rng.standard_normal(80)
    >>> fit = sdr.LSCE(d=1, n_restarts=2, random_state=0, progress=False).fit(X, y)
    >>> fit.directions["Dir1"].abs().round(1).tolist()
    [1.0, 0.0, 0.0]
    """

    method: ClassVar[str] = "lsce"
    criterion: ClassVar[str] = "sce"
    response: ClassVar[str] = "continuous"
    results_class = DensityReductionResults
    default_sigma_grid: ClassVar[np.ndarray] = np.logspace(-1.5, 1.5, 9)
    default_lambda_grid: ClassVar[np.ndarray] = np.logspace(-3, 1, 9)

    def cv_test(self, results: DensityReductionResults, **options: Any):
        return cv_dimension_test(results, **options)


def lsce(
    formula: str,
    data: Any,
    *,
    d: int | None = None,
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
    n_jobs: int = 1,
    progress: bool = True,
    random_state: Any = None,
    missing: str = "drop",
    subset: Any = None,
) -> DensityReductionResults:
    """Least-squares conditional entropy (LSCE) dimension reduction with its density.

    Parameters
    ----------
    formula : str
        ``"y ~ x1 + x2 + ..."``; ``"y ~ ."`` uses every other column; ``"y1 + y2 ~ ."`` is a
        multivariate response.
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
    d : int, optional
        Dimension of the subspace (``1 <= d < p``). ``None`` chooses it by cross-validation
        over ``1..d_max``: the held-out LSCDE criterion of the best restart for each ``d``.
        That fits ``n_restarts`` restarts for each candidate ``d``: with the defaults about
        3 s of one core at n = 400, p = 5 (``d_max = 4``), against about 0.6 s for a given
        ``d = 2`` (``benchmarks/bench_lsce.md``).
    d_max : int, optional
        Largest ``d`` tried when ``d=None``; default ``min(p - 1, 5)``.
    n_basis : int, default 100
        Gaussian centres: ``min(n_basis, n)`` random rows; they move with ``W``.
    sigma_grid : array-like, optional
        Gaussian widths (standardised units), default ``logspace(-1.5, 1.5, 9)``. When
        cross-validation picks an end of the default grid, the grid is extended by its own
        logarithmic step on that side (up to 3 points); a σ still at an end, or at an end of
        a grid given here, raises a :class:`~sdrstats.TuningWarning`.
    lambda_grid : array-like, optional
        Ridge penalties, default ``logspace(-3, 1, 9)``.
    n_folds : int, default 5
        Folds of the cross-validation choosing (σ, λ).
    cv_every : int, default 5
        Re-select (σ, λ) after every ``cv_every`` gradient updates.
    n_restarts : int, default 5
        Starts of the optimisation for each ``d``: with ``warm_starts`` the first three are
        the leading ``d`` directions of SIR, SAVE and pHd on the whitened data, the rest
        random orthonormal ``W``. (The seed used 20 random starts; with warm starts 5 reach
        the seed's accuracy in a quarter of the time, ``benchmarks/papers/lsce_artificial.md``.)
    warm_starts : bool, default True
        Start from the SIR, SAVE and pHd directions (deterministic and cheap); ``False``
        gives the seed's purely random starts.
    max_iter : int, default 100
        Gradient steps per restart; a restart that reaches it triggers a
        :class:`~sdrstats.ConvergenceWarning`.
    tol : float, default 1e-6
        Relative decrease of SCE^ below which a restart has converged.
    select_by : {"cv", "criterion"}, default "cv"
        Which restart to keep: the smallest held-out CV score, or the smallest final SCE^
        (the seed's rule). SCE^ values at different (σ, λ) are not on one scale, and a
        restart that ends at a small σ in a wrong direction can reach the lowest SCE^; the
        held-out score is comparable across restarts. Measured on the seed's toys
        (``benchmarks/papers/lsce_artificial.md``, 20 draws each at n = 100 with 10 restarts)
        keeping by CV gave mean Error_DR 0.18 (a) and 0.05 (b) against 0.30 and 0.20 by SCE^,
        and never worse at n = 300, hence the default.
    n_jobs : int, default 1
        Restarts run on this many workers (results do not depend on it).
    progress : bool, default True
        One progress bar over all restarts (shown for long fits only).
    random_state : int, SeedSequence or Generator, optional
        Seeds centres, folds and the random starts.
    missing : {"drop", "raise"}, default "drop"
    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.

    Returns
    -------
    DensityReductionResults
        With ``directions``, ``criterion`` (SCE^), ``sigma``, ``lambda_``, ``cv_table``,
        ``conditional_density()`` (the fitted LSCDE model on the reduced predictors).

    Notes
    -----
    Predictors are whitened and each response standardised; ``z = W x̃`` then has unit
    variance. With ``K_z[i,k] = exp(-||z_i - u_k||²/2σ²)`` and centres ``(u_k, v_k)``,
    ``Ĝ = (√π σ)^q (K_zᵀK_z/n) ∘ exp(-||v_k - v_k'||²/4σ²)``, ``ĥ = mean_i K_z[i] ∘ K_y[i]``,
    ``α̂ = (Ĝ + λI)^{-1}ĥ``. The gradient goes through both ``z_i`` and the centres ``u_k``.

    The density (seed eq. 10) is a mixture of Gaussians in ``y`` centred at the centres'
    responses, all of width σ times the response's sd, weighted by a Gaussian window of the
    same σ in ``z``. One width cannot follow a noise level that changes with ``x``: on
    ``y = x1 + (0.2 + |x2|)ε`` (n = 400) the 10-90 % intervals cover about 80 % of new draws
    overall, but about 95 % where the noise sd is 0.2 and 45-72 % where it exceeds 1.7, and
    where few centres lie (``|x2| = 2``) the mixture can show several peaks
    (``tests/test_density_heteroscedastic.py``).

    References
    ----------
    Tangkaratt, V., Xie, N. and Sugiyama, M. Conditional density estimation with
    dimensionality reduction via squared-loss conditional entropy minimization. Neural
    Computation 27(1), 2015.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.standard_normal((80, 3)), columns=["x1", "x2", "x3"])
    >>> df["y"] = df.x1 + 0.2 * rng.standard_normal(80)
    >>> fit = sdr.lsce("y ~ .", df, d=1, n_restarts=2, random_state=0, progress=False)
    >>> fit.directions.abs().idxmax().iloc[0]
    'x1'
    """
    return LSCE.from_formula(
        formula,
        data,
        missing=missing,
        subset=subset,
        d=d,
        d_max=d_max,
        n_basis=n_basis,
        sigma_grid=sigma_grid,
        lambda_grid=lambda_grid,
        n_folds=n_folds,
        cv_every=cv_every,
        n_restarts=n_restarts,
        warm_starts=warm_starts,
        max_iter=max_iter,
        tol=tol,
        select_by=select_by,
        n_jobs=n_jobs,
        progress=progress,
        random_state=random_state,
    )


__all__ = ["LSCE", "lsce"]
