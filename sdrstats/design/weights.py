"""Case weights as R ``dr`` takes them: validation and R's drop-and-rescale rule.

Generic (no method family): the formula front and the estimator base use it; the moment family
applies the weights (:mod:`sdrstats.moment.case_weights`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: R ``dr`` drops rows whose weight is at most this.
ZERO_WEIGHT = 1e-30


def check_weight_shape(weights: Any, n_rows: int) -> np.ndarray:
    """Case weights as floats, one per row of the data (values are checked on the fitted rows)."""
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("The 'weights' option must be numbers, one per row.") from None
    if w.shape != (n_rows,):
        raise ValueError(
            f"The 'weights' option needs one weight per row ({n_rows}); got shape {w.shape}."
        )
    return w


def check_case_weights(weights: Any, n_rows: int) -> np.ndarray:
    """Validate case weights: one finite, non-negative number per row, not all zero."""
    w = check_weight_shape(weights, n_rows)
    if np.isnan(w).any():
        raise ValueError(
            f"The 'weights' option has {int(np.isnan(w).sum())} NaN value(s); give every row a "
            "weight (0 drops it)."
        )
    if np.isinf(w).any():
        raise ValueError("The 'weights' option has infinite value(s); weights must be finite.")
    if (w < 0).any():
        raise ValueError(
            f"The 'weights' option has {int((w < 0).sum())} negative value(s); weights must be "
            ">= 0 (R dr: 'Negative weights')."
        )
    if not (w > ZERO_WEIGHT).any():
        raise ValueError("The 'weights' option is zero for every row; nothing is left to fit.")
    return w


def rescale(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows kept (``w > 1e-30``) and their weights rescaled to sum to ``len(w)`` (R)."""
    keep = w > ZERO_WEIGHT
    kept = w[keep]
    # R rescales by the number of rows *before* the zero weights are dropped (dim(X)[1] in
    # dr()), so the kept weights sum to more than the rows kept when some are dropped.
    return keep, w.size * kept / kept.sum()


__all__ = ["ZERO_WEIGHT", "check_case_weights", "check_weight_shape", "rescale"]
