"""Case weights that make the predictors closer to elliptically symmetric (R ``dr.weights``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.budget import check_count
from ..base.parallel import as_seed_sequence, check_random_state
from ..base.validation import check_float, check_int
from ..design.formula import parse, select_rows
from ..fitting.formula_functions import checks_option_names

_PLACEHOLDER = "dr_weights_response_"


@checks_option_names
def dr_weights(
    formula: str,
    data: Any,
    *,
    sigma: float = 1.0,
    n_samples: int | None = None,
    random_state: Any = None,
    subset: Any = None,
) -> pd.Series:
    """Weights toward elliptically contoured predictors, as R's ``dr.weights``.

    Pass them to a moment method as ``weights=`` (Cook & Nachtsheim 1994). The predictors of the formula's right-hand side are standardised by a robust centre and
    covariance, ``z = (x - m) S^{-1/2}``. Then ``n_samples`` points are drawn from
    ``N(0, sigma² I)``; each point adds one to the weight of the row nearest to it (ties
    share). The weights are the fractions scaled to sum to the number of rows, so rows in
    sparse regions of the predictor cloud (its tails, its gaps) get weight zero or small, and
    the weighted predictors look like a sample from an elliptical distribution, which the
    linearity condition of SIR, SAVE and pHd asks for.

    Parameters
    ----------
    formula : str
        A formula whose right-hand side names the predictors (``"y ~ x1 + x2"`` or
        ``"~ x1 + x2"``); the response, if any, is not used. Formula text is evaluated as
        Python (as in R and statsmodels): never pass one from an untrusted source.
    data : pandas.DataFrame
        The columns the formula names.
    sigma : float, default 1.0
        Scale of the sampling distribution in standardised units (Cook & Nachtsheim
        discuss its choice).
    n_samples : int, optional
        Points drawn; default ``10 n`` (R's default).
    random_state : int, Generator or None
        Seed of the draws. The robust covariance (minimum covariance determinant,
        :class:`sklearn.covariance.MinCovDet`) draws its own starts from the same seed.
    subset : str or array-like of bool, optional
        Rows to use, as in the formula functions; the others get NaN (R's NA).

    Returns
    -------
    pandas.Series
        One weight per row of ``data`` (same index): NaN for rows outside ``subset`` or with
        a missing predictor, which a fit with the same ``subset`` drops anyway.

    See Also
    --------
    sdrstats.sir : A moment method that takes the weights (``weights=``).
    sdrstats.dr : R's ``dr()``, which takes them too.

    Notes
    -----
    R's ``dr.weights`` takes the centre and covariance from ``MASS::cov.rob``, whose default
    is the minimum volume ellipsoid; here the minimum covariance determinant of
    scikit-learn (R: ``dr.weights(..., method = "mcd")``). Both are random searches, so R
    and sdrstats agree in distribution, not draw by draw.

    References
    ----------
    :cite:t:`cook1994`; :cite:t:`weisberg2002`.

    Examples
    --------
    >>> import sdrstats as sdr
    >>> ais = sdr.datasets.load("ais")
    >>> w = sdr.dr_weights("lbm ~ ht + wt + rcc", ais, random_state=0)
    >>> round(float(w.sum()), 6), len(w)
    (202.0, 202)
    >>> fit = sdr.sir("lbm ~ ht + wt + rcc", ais, weights=w)
    >>> "using weights" in str(fit.summary())
    True
    """
    from sklearn.covariance import MinCovDet
    from sklearn.neighbors import NearestNeighbors

    sigma = check_float(sigma, "sigma", "dr_weights", low=0.0, strict_low=True)
    check_int(n_samples, "n_samples", "dr_weights", low=1, allow_none=True)
    check_random_state(random_state)
    if not isinstance(formula, str):
        raise TypeError(
            f"formula must be a string such as '~ x1 + x2'; got {type(formula).__name__}."
        )
    frame = select_rows(data, subset)
    if formula.strip().startswith("~"):  # one-sided, as R allows: a placeholder response
        frame = frame.assign(**{_PLACEHOLDER: 0.0})
        formula = _PLACEHOLDER + " " + formula
    spec = parse(formula, frame, missing="drop")
    X, (n, p) = spec.X, spec.X.shape
    # the draws and their nearest rows' distances and indices
    check_count("dr_weights", "n_samples", n_samples or 10 * n, unit="draws", seconds_each=None,
                bytes_each=8.0 * (p + 6), at=f" in p = {p} dimensions")  # fmt: skip
    rng = np.random.default_rng(as_seed_sequence(random_state))
    robust = MinCovDet(random_state=int(rng.integers(2**31 - 1))).fit(X)
    values, vectors = np.linalg.eigh(robust.covariance_)
    if values[0] <= 1e-12 * values[-1]:
        raise ValueError(
            "The predictors' robust covariance is singular (collinear predictors, or a factor "
            "with a rare level); drop or combine predictors before computing dr_weights."
        )
    Z = (X - robust.location_) @ vectors / np.sqrt(values)
    draws = rng.standard_normal((n_samples or 10 * n, p)) * sigma
    # every row at the smallest distance wins a share (R splits ties equally)
    distances, nearest = NearestNeighbors(n_neighbors=min(2, n)).fit(Z).kneighbors(draws)
    wins = np.zeros(n)
    tied = (distances.shape[1] > 1) & (distances[:, -1] == distances[:, 0])
    np.add.at(wins, nearest[~tied, 0], 1.0)
    np.add.at(wins, nearest[tied].ravel(), 0.5)
    weights = n * wins / draws.shape[0]
    out = pd.Series(np.nan, index=data.index, name="dr_weights")
    out.loc[spec.index] = weights
    return out


__all__ = ["dr_weights"]
