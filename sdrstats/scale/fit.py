"""Moment-method fits from chunks or Dask partitions: passes over the data, then the kernels.

The driver is shared by both kinds of data; a *backend* only knows how to read the first
partition, run a function on every partition and merge the results, and find slice cut points
of a continuous response. Supported: SIR, SAVE and DR (one pass over per-slice sums, plus a
pass over the response when it has to be sliced), pHd (two passes: the mean, covariance and
OLS fit, then the residual-weighted cross-product), SPCA with a linear or class response
kernel (one pass), and on Dask only CUME (the rows sorted by the response across the cluster,
then two passes over the sorted partitions). IRE re-weights the rows at each step and is not
available; neither is CUME on a chunk source (sorting needs memory for all rows).
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._base import EstimatorOutput
from .._linalg import canonical_sign
from .._warnings import MissingValueWarning
from ..formula import ModelSpec
from ..moment._core import eigen_directions
from ..moment.methods import CUME, DR, PHD, SAVE, SIR, MomentResults
from ..slicing import check_cut_points, cut_labels, make_slices
from ..spca.spca import SPCA, check_rank, top_eigen
from .chunks import ChunkPlan, ChunkSource
from .results import ChunkedResults, ChunkedSPCAResults
from .stats import ResidualCross, SliceStats

SUPPORTED = (SIR, SAVE, DR, PHD, CUME, SPCA)


@dataclass
class SliceRule:
    """How a partition's rows get their slice keys (picklable, sent to workers)."""

    shift: np.ndarray
    y_shift: float | None
    second: bool
    cuts: np.ndarray | None  # None: class labels (or one slice when ``single``)
    single: bool = False

    def keys(self, y: np.ndarray) -> np.ndarray:
        if self.single:
            return np.zeros(len(y), dtype=np.int64)
        if self.cuts is None:
            return np.asarray(y).reshape(-1)
        return cut_labels(np.asarray(y, dtype=float).reshape(-1), self.cuts)


def slice_part(plan: ChunkPlan, chunk: pd.DataFrame, where: str, rule: SliceRule) -> SliceStats:
    """Per-slice statistics of one chunk."""
    X, y, dropped = plan.arrays(chunk, where)
    stats = SliceStats(rule.shift, rule.second, rule.y_shift)
    stats.update(X, rule.keys(y), None if rule.y_shift is None else y)
    stats.n_dropped = dropped
    return stats


def residual_part(
    plan: ChunkPlan,
    chunk: pd.DataFrame,
    where: str,
    mean: np.ndarray,
    ybar: float,
    coef: np.ndarray | None,
) -> ResidualCross:
    """pHd's residual-weighted cross-product over one chunk."""
    X, y, _ = plan.arrays(chunk, where)
    return ResidualCross(mean, ybar, coef).update(X, y)


class LocalChunks:
    """Backend for a :class:`ChunkSource`: chunks are read and reduced in this process."""

    def __init__(self, source: ChunkSource) -> None:
        self.source = source
        self.description = source.description
        self._pending = iter(source)
        try:
            self._first = next(self._pending)
        except StopIteration:
            raise ValueError(f"{source.description} gave no chunks; a fit needs rows.") from None

    def first(self) -> pd.DataFrame:
        return self._first

    def _chunks(self):
        if self._pending is not None:
            chunks, self._pending = itertools.chain([self._first], self._pending), None
            return chunks
        return iter(self.source)

    def map_reduce(self, fn: Any, plan: ChunkPlan, *args: Any) -> Any:
        """``fn(plan, chunk, where, *args)`` of every chunk, merged."""
        total = None
        for k, chunk in enumerate(self._chunks()):
            part = fn(plan, chunk, f"chunk {k + 1}", *args)
            total = part if total is None else total.merge(part)
        return total

    def response_cuts(self, plan: ChunkPlan, nslices: int) -> np.ndarray:
        """Cut points reproducing R ``dr``'s slicing of the whole response exactly."""
        y = np.concatenate(
            [plan.response(chunk, f"chunk {k + 1}") for k, chunk in enumerate(self._chunks())]
        )
        return dr_cut_points(y, nslices)


def dr_cut_points(y: np.ndarray, nslices: int) -> np.ndarray:
    """Cut points that slice ``y`` exactly as ``make_slices(y, nslices)`` does.

    R ``dr``'s slices never split tied values, so each slice is a range of values and its
    largest value is a cut point.
    """
    sizes = make_slices(y, nslices).sizes
    ordered = np.sort(y)
    return ordered[np.cumsum(sizes)[:-1] - 1]


def fit_chunked(
    cls: type, formula: str, data: Any, *, missing: str = "drop", **options: Any
) -> MomentResults:
    """Fit a moment method on a :class:`ChunkSource` or a Dask DataFrame."""
    estimator = cls(**options)
    if type(estimator) not in SUPPORTED:
        raise ValueError(
            f"{estimator.method} is not available for chunked or Dask data (it needs the rows "
            "in memory). Chunked fits support sir, save, "
            "dr, phd, spca (linear or class response kernel) and, on Dask, cume; load the data "
            "with pandas for the others."
        )
    if isinstance(data, ChunkSource):
        backend: Any = LocalChunks(data)
    else:
        from .dask import DaskFrame

        backend = DaskFrame(data)
    plan = ChunkPlan(formula, backend.first(), missing)
    estimator._check_response(plan.spec)
    X0 = plan.spec.X
    p = X0.shape[1]
    numeric = not plan.categorical
    if numeric and len(plan.y_names) > 1:
        raise ValueError(
            f"Chunked and Dask fits take one response column; got {plan.y_names}. Fit each "
            "response separately or load the data in memory for nested slicing."
        )
    y_shift = float(plan.spec.Y.mean()) if numeric else None
    names = plan.x_names
    if isinstance(estimator, SPCA):
        return _fit_spca(estimator, backend, plan, y_shift, formula, options)
    if isinstance(estimator, CUME) and not hasattr(backend, "cume_cross"):
        raise ValueError(
            "cume needs the rows sorted by the response, which a chunk source cannot do in "
            "bounded memory; use a Dask DataFrame (sorted across the cluster) or load the data "
            "in memory."
        )
    if isinstance(estimator, (PHD, CUME)):
        rule = SliceRule(X0.mean(axis=0), y_shift, False, None, single=True)
        stats = backend.map_reduce(slice_part, plan, rule)
        stats = stats.ordered()
        _check_rows(estimator, stats.n, p)
        std = stats.standardized(names)
        ybar, var_y, cov_xy = stats.response_moments()
        if isinstance(estimator, CUME):
            if var_y <= 0:
                raise ValueError(
                    "The response has a single value; cume needs a response that varies."
                )
            M = std.whiten_moments(backend.cume_cross(plan, std.mean) / std.n**3)
        else:
            _, _, cov = stats.moments()
            coef = np.linalg.solve(cov, cov_xy) if estimator.options["residuals"] else None
            cross = backend.map_reduce(residual_part, plan, std.mean, ybar, coef)
            M = std.whiten_moments(cross.total / std.n)
        M = (M + M.T) / 2
        moments = None
    else:
        cuts = None
        if numeric:
            cuts = _cut_points(estimator, backend, plan, p)
        rule = SliceRule(X0.mean(axis=0), y_shift, estimator.second_moments, cuts)
        stats = backend.map_reduce(slice_part, plan, rule)
        stats = stats.ordered(plan.level_order)
        _check_rows(estimator, stats.n, p)
        if stats.counts.size < 2:
            raise ValueError(
                f"The response has a single value, so {estimator.method} finds only one slice; "
                "it needs a response that varies."
            )
        std, moments = stats.finish(names)
        M = estimator.kernel(std, moments, None)
    values, vectors, basis = eigen_directions(std, M, by_abs=estimator.by_abs)
    d = estimator.options["d"] or min(estimator.options["numdir"], p)
    extras: dict[str, Any] = {"M": M, "raw_vectors": vectors, "n_chunks": stats.n_chunks}
    if moments is not None:
        extras["slice_sizes"] = moments.slices.sizes
    output = EstimatorOutput(basis=basis, d=d, eigenvalues=values, center=std.mean, extras=extras)
    if stats.n_dropped:
        if missing == "raise":  # pragma: no cover - ChunkPlan raises first
            raise ValueError(f"{stats.n_dropped} rows have missing values.")
        warnings.warn(
            f"Dropped {stats.n_dropped} rows with missing values over {stats.n_chunks} chunks.",
            MissingValueWarning,
            stacklevel=4,
        )
    spec = ModelSpec(
        X=np.empty((0, p)),
        Y=np.empty((0,)),
        x_names=names,
        y_names=plan.y_names,
        index=pd.RangeIndex(0),
        y_levels=list(stats.keys) if plan.categorical else None,
        formula=plan.formula,
        design_info=plan.spec.design_info,
        design_columns=plan.design_columns,
        n_dropped=stats.n_dropped,
        rhs=plan.rhs,
        source=plan.x_source,
    )
    shown = ", ".join(
        f"{k}={v!r}"
        for k, v in options.items()
        if not isinstance(v, np.ndarray) and v != cls.params.get(k)
    )
    call = f"{cls.method}({formula!r}, {backend.description}{', ' + shown if shown else ''})"
    r2 = None
    if numeric:
        _, _, cov = stats.moments()
        r2 = (cov, stats.response_moments()[2])
    return ChunkedResults(
        estimator,
        spec,
        output,
        call=call,
        n_rows=int(round(stats.n)),
        prepared=(std, moments),
        r2_moments=r2,
    )


def _call(cls: type, formula: str, backend: Any, options: dict[str, Any]) -> str:
    shown = ", ".join(
        f"{k}={v!r}"
        for k, v in options.items()
        if not isinstance(v, np.ndarray) and v != cls.params.get(k)
    )
    return f"{cls.method}({formula!r}, {backend.description}{', ' + shown if shown else ''})"


def _spec(plan: ChunkPlan, stats: SliceStats) -> ModelSpec:
    p = len(plan.x_names)
    return ModelSpec(
        X=np.empty((0, p)),
        Y=np.empty((0,)),
        x_names=plan.x_names,
        y_names=plan.y_names,
        index=pd.RangeIndex(0),
        y_levels=list(stats.keys) if plan.categorical else None,
        formula=plan.formula,
        design_info=plan.spec.design_info,
        design_columns=plan.design_columns,
        n_dropped=stats.n_dropped,
        rhs=plan.rhs,
        source=plan.x_source,
    )


def _warn_dropped(stats: SliceStats) -> None:
    if stats.n_dropped:
        warnings.warn(
            f"Dropped {stats.n_dropped} rows with missing values over {stats.n_chunks} chunks.",
            MissingValueWarning,
            stacklevel=5,
        )


def _fit_spca(
    estimator: SPCA,
    backend: Any,
    plan: ChunkPlan,
    y_shift: float | None,
    formula: str,
    options: dict[str, Any],
) -> ChunkedSPCAResults:
    """SPCA with a linear (numeric response) or class (delta/linear) response kernel.

    ``Ψ = Xᵀ H Δ`` is ``n cov(x, y)`` for a numeric response and the centred class sums of
    ``x`` for a categorical one; ``add_identity = a`` adds ``√a`` times a Cholesky factor of
    ``Σ (x − x̄)(x − x̄)ᵀ``, which leaves ``Ψ Ψᵀ`` as in memory.
    """
    o = estimator.options
    categorical = plan.categorical
    kernel = o["kernel_y"] or ("delta" if categorical else "linear")
    if kernel not in ("linear", "delta") or (kernel == "delta" and not categorical):
        raise ValueError(
            f"spca on chunked or Dask data supports kernel_y='linear' (numeric or class "
            f"response) and 'delta' (class response); got kernel_y={kernel!r}. The rbf kernel "
            "needs the rows in memory."
        )
    X0 = plan.spec.X
    rule = SliceRule(X0.mean(axis=0), y_shift, False, None, single=not categorical)
    stats = backend.map_reduce(slice_part, plan, rule).ordered(plan.level_order)
    n, mean, cov = stats.moments()
    if n < 3:
        raise ValueError(f"spca needs at least 3 observations; got {int(n)}.")
    if categorical:
        if stats.counts.size < 2:
            raise ValueError("The response has a single class; spca needs a response that varies.")
        psi = (stats.sums - np.outer(stats.counts, mean - stats.shift)).T
    else:
        _, var_y, cov_xy = stats.response_moments()
        if var_y <= 0:
            raise ValueError("The response is constant; spca needs a response that varies.")
        psi = n * cov_xy[:, None]
    if o["add_identity"] > 0:
        psi = np.hstack([psi, np.sqrt(o["add_identity"] * n) * np.linalg.cholesky(cov)])
    values, vectors, route = top_eigen(psi, o["solver"])
    why = f"kernel_y = {kernel!r}" + (
        f" with {psi.shape[1]} classes" if categorical else " with 1 response column(s)"
    )
    d = check_rank(o["d"], len(values), estimator.method, why)
    extras = {
        "kernel_y": kernel,
        "solver": route,
        "rank": len(values),
        "method_details": f"kernel_y = {kernel}, {route} solver",
        "n_chunks": stats.n_chunks,
    }
    output = EstimatorOutput(
        basis=canonical_sign(vectors),
        d=d,
        eigenvalues=values / (n - 1) ** 2,
        center=mean,
        extras=extras,
    )
    _warn_dropped(stats)
    r2 = None if categorical else (cov, stats.response_moments()[2])
    return ChunkedSPCAResults(
        estimator,
        _spec(plan, stats),
        output,
        call=_call(type(estimator), formula, backend, options),
        n_rows=int(round(n)),
        prepared=None,
        r2_moments=r2,
    )


def _check_rows(estimator: Any, n: float, p: int) -> None:
    if n <= p:
        raise ValueError(
            f"{estimator.method} needs more observations than predictors; got n = {int(n)} and "
            f"p = {p}."
        )
    d = estimator.options["d"]
    if d is not None and d > p:
        raise ValueError(f"The 'd' option of {estimator.method} must be at most p = {p}; got {d}.")


def _cut_points(estimator: Any, backend: Any, plan: ChunkPlan, p: int) -> np.ndarray:
    given = estimator.options["cut_points"]
    if given is not None:
        return check_cut_points(given)
    if estimator.options["slice_function"] != "dr":
        raise ValueError(
            "slice_function='arc' splits tied responses by rank, which chunked and Dask fits "
            "cannot do; use slice_function='dr' or give cut_points."
        )
    return backend.response_cuts(plan, estimator.nslices_for(p))


__all__ = ["fit_chunked", "dr_cut_points", "SliceRule"]
