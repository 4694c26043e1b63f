"""The batch fits' data checks, applied to a stream: on its first rows, its initial batch,
every later chunk and the running state.

A batch fit sees all rows before it starts; a stream sees them a chunk at a time, so each
check runs where its data first exist:

* the first chunk fixes ``p``: ``d`` must be at most ``p`` (as the moment methods require);
* the initial batch is a batch: a constant response is refused as
  :func:`~sdrstats.base.validation.refuse_constant_response` refuses it, ``nslices`` must be at most
  ``n/2`` (the moment methods' rule), a constant predictor and (nearly) collinear or duplicated
  predictors are refused with the moment methods' messages and thresholds
  (:data:`~sdrstats.stats.linalg.COLLINEAR_RCOND`, warning below
  :data:`~sdrstats.stats.linalg.WARN_RCOND`). With ``init_size <= p`` collinearity cannot be told from
  the rank deficiency every such batch has, so only duplicated columns are refused then;
* every later chunk must be on the scale of the stream: a column whose values lie more than
  :data:`MAX_SCALE_RATIO` standard deviations of the initial batch from the running mean is
  refused, naming the column and both scales (a chunk in other units would otherwise drive the
  recursion to overflow and NaN directions);
* after every chunk the running state must be finite; if it is not, the chunk is refused and
  the state is left as it was before it.
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np

from ..base.validation import refuse_constant_response
from ..base.warnings import CollinearityWarning
from ..stats.linalg import COLLINEAR_RCOND, WARN_RCOND, collinear_columns

#: A later chunk may not lie further than this many initial-batch standard deviations from the
#: running mean (a factor no stream in one set of units reaches; a chunk in other units, or a
#: value off by many orders of magnitude, does).
MAX_SCALE_RATIO = 1e8


def check_first_rows(p: int, d: int, method: str) -> None:
    """``d`` directions need at least ``d`` predictors."""
    if d > p:
        raise ValueError(f"The 'd' option of {method} must be at most p = {p}; got {d}.")


def check_initial_batch(
    X: np.ndarray,
    y: np.ndarray,
    *,
    x_names: list[str],
    y_names: list[str],
    categorical: bool,
    nslices: int,
    method: str,
) -> None:
    """The batch checks on the initial batch (see the module docstring)."""
    n, p = X.shape
    if not categorical:
        spec = types.SimpleNamespace(categorical=False, Y=y.reshape(n, 1), y_names=y_names)
        refuse_constant_response(spec, method)
        if nslices > n / 2:
            raise ValueError(
                f"The 'nslices' option of {method} must be at most init_size/2 = {n // 2} so "
                f"that the slices of the initial batch hold at least two cases; got {nslices}. "
                "Use fewer slices or a larger init_size."
            )
    mean = X.mean(axis=0)
    Xc = X - mean
    var = np.einsum("ij,ij->j", Xc, Xc) / n
    constant = np.flatnonzero(var <= 0)
    if constant.size:
        raise ValueError(
            f"Predictor {x_names[constant[0]]!r} is constant in the initial batch of {method} "
            f"({n} rows); remove it from the formula, or raise init_size if it varies later."
        )
    scaled = Xc / np.sqrt(var)
    corr = scaled.T @ scaled / n
    corr = (corr + corr.T) / 2
    if n > p:
        evals = np.linalg.eigvalsh(corr)
        rcond = max(evals[0], 0.0) / evals[-1] if evals[-1] > 0 else 0.0
        if rcond < COLLINEAR_RCOND:
            listed = [x_names[j] for j in collinear_columns(corr)] or x_names[-1:]
            raise ValueError(
                f"The predictors are (nearly) collinear: {listed} are linear combinations of the "
                f"others (reciprocal condition number {rcond:.1e} in the initial batch of "
                f"{method}); drop or combine them."
            )
        if rcond < WARN_RCOND:
            warnings.warn(
                f"The predictors are nearly collinear (condition number {1 / rcond:.1e} of their "
                f"correlation matrix in the initial batch of {method}); directions along the "
                "collinear combination are poorly determined.",
                CollinearityWarning,
                stacklevel=5,
            )
        return
    upper = np.triu(np.abs(corr), k=1)
    pairs = np.argwhere(upper >= 1 - 1e-12)
    if pairs.size:
        first, second = (x_names[j] for j in pairs[0])
        raise ValueError(
            f"The predictors are (nearly) collinear: [{first!r}, {second!r}] are duplicates "
            f"(correlation 1 in the initial batch of {method}); drop or combine them."
        )


def check_chunk_scale(
    X: np.ndarray, mean: np.ndarray, scale: np.ndarray | None, x_names: list[str], method: str
) -> None:
    """Refuse a chunk with a column far beyond the stream's scale (see the module docstring)."""
    if scale is None or X.shape[0] == 0:
        return
    with np.errstate(over="ignore", invalid="ignore"):
        # two column reductions, no n x p temporary (a fifth of the cost of |X - mean|)
        spread = np.maximum(X.max(axis=0) - mean, mean - X.min(axis=0)) / scale
    bad = np.flatnonzero(~(spread <= MAX_SCALE_RATIO))
    if bad.size:
        j = int(bad[0])
        peak = float(np.max(np.abs(X[:, j])))
        raise ValueError(
            f"Predictor {x_names[j]!r} of this chunk has values of magnitude {peak:.1e}, "
            f"{spread[j]:.1e} standard deviations ({scale[j]:.3g}) of the initial batch of "
            f"{method} from its mean: every chunk of a stream must be in the same units. Rescale "
            "the chunk like the first ones, or remove its outlying rows."
        )


def check_running_state(state: dict[str, Any], method: str) -> None:
    """Refuse a chunk after which the running statistics or estimates are not finite."""
    for key in ("mean", "slice_sums", "lam", "beta", "eta", "sigma", "sigma_inv"):
        value = state.get(key)
        if value is not None and not np.all(np.isfinite(value)):
            raise ValueError(
                f"After this chunk the running estimate of {method} is not finite ({key!r} "
                "overflowed); the chunk was not applied. Check its scale against the earlier "
                "chunks, or lower learning_rate."
            )


__all__ = [
    "MAX_SCALE_RATIO",
    "check_first_rows",
    "check_initial_batch",
    "check_chunk_scale",
    "check_running_state",
]
