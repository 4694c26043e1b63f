"""Case weights as R ``dr`` takes them: validation and R's drop-and-rescale rule.

Generic (no method family): the formula front and the estimator base use it; the moment family
applies the weights (:mod:`sdrstats.moment.case_weights`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

#: R ``dr`` drops rows whose weight is at most this.
ZERO_WEIGHT = 1e-30
#: The largest weight may be at most this many times the smallest kept one (the spread a pass
#: over chunks can track too): beyond, the rows of small weight fall below the rounding of
#: sums in double precision (about 1e-16) times the largest, and the fit rests on a few rows
#: (R computes it anyway, with collinearity or garbage). Inverse-probability and survey
#: weights span a few orders of magnitude; a row meant to count for nothing takes weight 0.
MAX_WEIGHT_SPREAD = 1e12


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
    kept = w[w > ZERO_WEIGHT]
    top, least = int(np.argmax(w)), float(kept.min())
    if w[top] > MAX_WEIGHT_SPREAD * least:
        raise ValueError(
            f"The 'weights' option gives row {top} (0-based, among the fitted rows) a weight of "
            f"{w[top]:.3g}, {w[top] / least:.3g} times the smallest weight {least:.3g}: the "
            "rows of small weight would count for nothing next to it (weights spanning more "
            f"than {MAX_WEIGHT_SPREAD:.0e} exceed double precision). Check the largest weights; "
            "give rows to leave out a weight of 0."
        )
    return w


def rescale(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows kept (``w > 1e-30``) and their weights rescaled to sum to ``len(w)`` (R)."""
    keep = w > ZERO_WEIGHT
    kept = w[keep]
    # R rescales by the number of rows *before* the zero weights are dropped (dim(X)[1] in
    # dr()), so the kept weights sum to more than the rows kept when some are dropped.
    return keep, w.size * kept / kept.sum()


def chunk_weights(values: np.ndarray, column: str, where: str) -> np.ndarray:
    """The case weights of one chunk's complete rows as floats, checked as in memory.

    Examples
    --------
    >>> chunk_weights(np.array([1, 0.5]), "w", "chunk 1").tolist()
    [1.0, 0.5]
    """
    w = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    text = np.isnan(w) & ~pd.isna(pd.Series(values)).to_numpy()
    if text.any():
        raise ValueError(
            f"The 'weights' column {column!r} of {where} holds {values[np.argmax(text)]!r}; "
            "weights must be numbers."
        )
    problems = [
        (np.isnan(w), "NaN value(s); give every row a weight (0 drops it)"),
        (np.isinf(w), "infinite value(s); weights must be finite"),
        (w < 0, "negative value(s); weights must be >= 0 (R dr: 'Negative weights')"),
    ]
    for bad, what in problems:
        if bad.any():
            raise ValueError(
                f"The 'weights' column {column!r} has {int(bad.sum())} {what}, in {where}."
            )
    return w


__all__ = [
    "MAX_WEIGHT_SPREAD",
    "ZERO_WEIGHT",
    "check_case_weights",
    "chunk_weights",
    "check_weight_shape",
    "rescale",
]
