"""LSMI: least-squares mutual information dimension reduction (Suzuki & Sugiyama 2013)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..fitting.formula_functions import fit_formula, formula_doc
from .core import SHARED_DOC, CriterionEstimator
from .results import DensityReductionResults, cv_dimension_test


class LSMI(CriterionEstimator):
    __doc__ = """Sufficient dimension reduction by maximising squared-loss mutual information.

    Same basis module and Grassmann optimiser as :class:`~sdrstats.lsce.LSCE`; the density
    ratio ``p(z, y)/(p(z)p(y))`` is fitted with ``φ_k = K(z, u_k) L(y, v_k)``,
    ``Ĝ = (K_zᵀK_z) ∘ (L_yᵀL_y)/n²``, and ``SMI^ = ½ ĥᵀα̂ - ½`` is maximised. A categorical
    response uses the delta kernel ``L(y, v) = 1[y = v]``.

    Parameters
    ----------
    sigma_grid : array-like, optional
        Gaussian widths (standardised units), default ``logspace(-2, 2, 9)``. When
        cross-validation picks an end of the default grid, the grid is extended by its own
        logarithmic step on that side (up to 3 points); a σ still at an end, or at an end of
        a grid given here, raises a :class:`~sdrstats.TuningWarning`.
    {shared}
    See Also
    --------
    lsmi : The formula function (``sdr.lsmi(formula, data)``).
    sdrstats.lsce.results.DensityReductionResults : What ``fit`` returns.
    lsce, lscde : The conditional-entropy method and the density estimate.

    References
    ----------
    :cite:t:`suzuki2013`.

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
    """.replace("{shared}", SHARED_DOC)

    method: ClassVar[str] = "lsmi"
    criterion: ClassVar[str] = "smi"
    response: ClassVar[str] = "any"
    results_class = DensityReductionResults
    default_sigma_grid: ClassVar[np.ndarray] = np.logspace(-2, 2, 9)
    default_lambda_grid: ClassVar[np.ndarray] = np.logspace(-3, 1, 9)

    def cv_test(self, results: DensityReductionResults, **options: Any):
        return cv_dimension_test(results, **options)


@formula_doc(LSMI)
def lsmi(
    formula: str,
    data: Any,
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
    missing: str = "drop",
    subset: Any = None,
) -> DensityReductionResults:
    """Least-squares mutual information (LSMI) dimension reduction.

    The response may be categorical (delta kernel); ``"y ~ ."`` uses every other column.
    ``d=None`` chooses ``d`` by a nested search scored by LSCDE's held-out criterion
    (``d_rule``). See :class:`LSMI`.

    Parameters
    ----------
    {formula}
    {data}
    {options}
    {missing}
    {subset}

    Returns
    -------
    DensityReductionResults
        ``criterion`` is SMI^; ``conditional_density()`` fits the density layer's default model
        (:func:`sdrstats.lscde`) on the reduced predictors.

    See Also
    --------
    LSMI : The estimator, for arrays (``LSMI(...).fit(X, y)``).
    sdrstats.lsce.results.DensityReductionResults : What it returns.
    lsce, lscde : The conditional-entropy method and the density estimate.

    References
    ----------
    :cite:t:`suzuki2013`.

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
    return fit_formula(LSMI, locals(), "lsmi")


__all__ = ["LSMI", "lsmi"]
