"""R ``dr``'s case weights (``dr(..., weights=)``), followed exactly for parity.

R's rule is peculiar: negative weights are an error, rows with ``w <= 1e-30`` are dropped and
the rest rescaled to ``w_i = n w_i / Σw`` with ``n`` the rows *before* dropping. The predictors are whitened through the QR of the
rows ``√w_i x_i`` centred by their plain column means (``Z = √n Q``, so the rows of ``Z``
already carry ``√w``), slices come from ``y`` as without weights (sizes are counts), and the
slice statistics weight ``z`` again by ``w``: SIR's slice means are ``Σ w z / Σ w``; SAVE's
within-slice matrix is ``((n_s − 1)/W_s)`` times the sample covariance of ``√w_i z_i``
(zero when ``W_s <= 1``). These are not frequency weights (a weight of 2 is not a repeated
row); the bootstrap's multinomial counts are, and are a different path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..design.weights import ZERO_WEIGHT, check_case_weights, rescale
from ._core import SliceMoments, Standardized, constant_column_error, standardize


def case_weighted_prepare(
    est: Any, X: np.ndarray, Y: np.ndarray, w: np.ndarray, names: list[str] | None = None
) -> tuple[Standardized, SliceMoments | None]:
    """R's standardisation and slice moments under case weights ``w`` (already rescaled);
    ``names`` label the predictors in errors."""
    error = constant_column_error(X, names)  # √w x of a constant x varies: refuse it as unweighted
    if error is not None:
        raise error
    sw = np.sqrt(w)
    std = standardize(X * sw[:, None], names=names)  # plain centring of √w x, divisor n: R's Z
    std.case_weights = w
    if not est.uses_slices:
        return std, None
    slices = est._slices(Y, X.shape[1])
    Z = std.Z
    h, p = slices.nslices, Z.shape[1]
    counts = np.bincount(slices.labels, weights=w, minlength=h)
    if np.any(counts <= 0):
        raise ValueError("A slice has no weight; use fewer slices.")
    means = np.zeros((h, p))
    second = np.zeros((h, p, p)) if est.second_moments else None
    for s in range(h):
        rows = slices.labels == s
        means[s] = w[rows] @ Z[rows] / counts[s]
        if second is not None:
            u = Z[rows] * sw[rows, None]
            n_s = int(rows.sum())
            within = np.zeros((p, p))
            if counts[s] > 1 and n_s > 1:
                within = (n_s - 1) / counts[s] * np.atleast_2d(np.cov(u, rowvar=False))
            # stored as E_s[zzᵀ] so that E_s[zzᵀ] − z̄ z̄ᵀ is R's within-slice matrix
            second[s] = within + np.outer(means[s], means[s])
    return std, SliceMoments(counts / counts.sum(), means, second, slices)


__all__ = ["ZERO_WEIGHT", "case_weighted_prepare", "check_case_weights", "rescale"]
