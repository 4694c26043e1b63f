"""LSMI: least-squares mutual information dimension reduction (Suzuki & Sugiyama 2013)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .core import CriterionEstimator
from .results import DensityReductionResults, cv_dimension_test


class LSMI(CriterionEstimator):
    """Sufficient dimension reduction by maximising squared-loss mutual information.

    Same basis module and Grassmann optimiser as :class:`~sdrstats.lsce.LSCE`; the density
    ratio ``p(z, y)/(p(z)p(y))`` is fitted with ``φ_k = K(z, u_k) L(y, v_k)``,
    ``Ĝ = (K_zᵀK_z) ∘ (L_yᵀL_y)/n²``, and ``SMI^ = ½ ĥᵀα̂ - ½`` is maximised. A categorical
    response uses the delta kernel ``L(y, v) = 1[y = v]``.

    Parameters
    ----------
    d, d_max, n_basis, sigma_grid, lambda_grid, n_folds, cv_every, n_restarts, warm_starts, max_iter, tol, select_by, n_jobs, progress, random_state
        As :func:`lsmi`, with the same defaults.

    Examples
    --------
    >>> import numpy as np
    >>> import sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((80, 3))
    >>> y = X[:, 0] + 0.2 * rng.standard_normal(80)
    >>> fit = sdr.LSMI(d=1, n_restarts=2, random_state=0, progress=False).fit(X, y)
    >>> fit.directions["Dir1"].abs().round(1).tolist()
    [1.0, 0.0, 0.0]
    """

    method: ClassVar[str] = "lsmi"
    criterion: ClassVar[str] = "smi"
    response: ClassVar[str] = "any"
    results_class = DensityReductionResults
    default_sigma_grid: ClassVar[np.ndarray] = np.logspace(-2, 2, 9)
    default_lambda_grid: ClassVar[np.ndarray] = np.logspace(-3, 1, 9)

    def cv_test(self, results: DensityReductionResults, **options: Any):
        return cv_dimension_test(results, **options)


def lsmi(
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
    """Least-squares mutual information (LSMI) dimension reduction.

    The response may be categorical (delta kernel). ``d=None`` chooses ``d`` by the
    held-out LSMI criterion.

    Parameters
    ----------
    formula : str
        ``"y ~ x1 + x2 + ..."``; ``"y ~ ."`` uses every other column; a factor response is
        categorical.
        Formula text is evaluated as Python (as in R and statsmodels): never pass one
        from an untrusted source. Column names are looked up as names, never run.
    data : pandas.DataFrame
        The columns the formula names.
    sigma_grid : array-like, optional
        Gaussian widths (standardised units), default ``logspace(-2, 2, 9)``.
    d, d_max, n_basis, lambda_grid, n_folds, cv_every, n_restarts, warm_starts, max_iter, tol, select_by, n_jobs, progress, random_state, missing
        As :func:`sdrstats.lsce`, with the same defaults.

    subset : str or array-like of bool, optional
        Rows to use, selected before anything else (R's ``subset``): a pandas query
        string such as ``"sex == 'f'"`` or a boolean mask, one entry per row of ``data``.
    Returns
    -------
    DensityReductionResults
        ``criterion`` is SMI^; ``conditional_density()`` fits LSCDE on the reduced predictors.

    References
    ----------
    Suzuki, T. and Sugiyama, M. Sufficient dimension reduction via squared-loss mutual
    information estimation. Neural Computation 25(3), 2013.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import sdrstats as sdr
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.standard_normal((80, 3)), columns=["x1", "x2", "x3"])
    >>> df["y"] = df.x2 + 0.2 * rng.standard_normal(80)
    >>> fit = sdr.lsmi("y ~ .", df, d=1, n_restarts=2, random_state=0, progress=False)
    >>> fit.directions.abs().idxmax().iloc[0]
    'x2'
    """
    return LSMI.from_formula(
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


__all__ = ["LSMI", "lsmi"]
