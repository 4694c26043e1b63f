"""Cumulative slicing estimation (CUME; Zhu, Zhu & Feng 2010) as passes over the rows.

``M = (1/n) Σ_i m(y_i) m(y_i)ᵀ`` with ``m(t) = (1/n) Σ_j z_j 1{y_j ≤ t}``. With the rows
sorted by the response, ``n m(t)`` at the ``k``-th distinct value is the running sum ``C_k`` of
``z`` up to it, so ``M = (1/n³) Σ_k c_k C_k C_kᵀ`` (``c_k`` the rows at that value). Since ``z =
(x − x̄) W`` for the p × p whitening ``W``, the running sums are taken of ``x − x̄`` and only the
p × p result is whitened: ``M = Wᵀ (Σ_k c_k C_k C_kᵀ) W / n³``.

The passes, the same in memory and on chunks: the moments (:class:`~.statistics.MomentStatistics`
with one group, or R's case-weighted sums), then :class:`CumulativeSums` over consecutive
ranges of the response in increasing order, each range's running sums starting where the
previous range's ended. In memory the rows are one chunk and one range; on chunks each range
holds at most :data:`CUME_BATCH_ROWS` rows (their sums are held until the range is read); on
Dask the rows are sorted across the cluster and each partition is one range.

With weights (a bootstrap's frequency weights, or R's case weights ``w``, whose rows are ``√w
x``), ``C_k`` is the running sum of ``w (row − mean)`` and ``c_k`` the weight at the value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base.contract import EstimatorOutput
from ..design.weights import ZERO_WEIGHT
from ..stats.grouped import GATHER_MODE
from .statistics import MomentStatistics, SliceRule, check_rows, output_from_kernel, rowless_extras
from .weights import CaseWeightedStatistics

#: Rows whose sums one pass of a chunked CUME fit holds (p floats each).
CUME_BATCH_ROWS = 2**18
#: Sorted rows per block of :func:`cumulative_cross` (a block stays in the shared cache; its
#: 16 planes of 512 rows in the core's own): at n = 1e5, p = 50 the pass takes 2.58-2.61 times
#: one ``X.T @ X`` against 2.73-2.79 with blocks of 2048 rows, whose updates are shorter.
CUME_BLOCK_ROWS = 8192
#: Runs a block of :func:`cumulative_cross` is cut into: the running sums go down the runs
#: side by side, one vector addition of a whole plane of rows per step.
RUN_PLANES = 16


def plane_layout(positions: np.ndarray, planes: int = RUN_PLANES) -> np.ndarray:
    """The order that lays ``len(positions)`` consecutive sorted rows (a multiple of
    ``planes``) out as ``planes`` planes of ``len / planes`` rows: plane ``i`` holds row ``i``
    of every run of ``planes`` consecutive rows.

    Examples
    --------
    >>> plane_layout(np.arange(8), planes=4).tolist()
    [0, 4, 1, 5, 2, 6, 3, 7]
    """
    return positions.reshape(-1, planes).T.reshape(-1)


def running_planes(u: np.ndarray, start: np.ndarray, planes: int = RUN_PLANES) -> np.ndarray:
    """In place: rows ``u`` in :func:`plane_layout` become ``start`` plus their running sums in
    sorted order; returns the running sum after the last row.

    Each run of ``planes`` consecutive rows is summed down the planes (``planes − 1`` vector
    additions of whole planes, where a cumulative sum down the rows is a strided loop in
    numpy), then every run is shifted by the total of the runs before it.

    Examples
    --------
    >>> u = np.arange(1.0, 9.0)[plane_layout(np.arange(8), planes=2)][:, None]
    >>> last = running_planes(u, np.zeros(1), planes=2)
    >>> u[plane_layout(np.arange(8), planes=2).argsort(), 0].tolist(), float(last[0])
    ([1.0, 3.0, 6.0, 10.0, 15.0, 21.0, 28.0, 36.0], 36.0)
    """
    m, p = u.shape
    runs = u.reshape(planes, m // planes, p)
    for i in range(1, planes):
        runs[i] += runs[i - 1]
    totals = runs[-1]
    offsets = np.cumsum(totals, axis=0)  # a short cumulative sum: one row per run
    offsets -= totals
    offsets += start
    runs += offsets
    return runs[-1, -1].copy()


def cumulative_cross(
    rows: np.ndarray,
    values: np.ndarray,
    shift: np.ndarray,
    weights: np.ndarray | None = None,
    running: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``Σ_k c_k C_k C_kᵀ`` over the distinct ``values`` of rows in any order, and the last
    running sum.

    ``C_k = running + Σ_{j: values_j ≤ v_k} w_j (rows_j − shift)`` and ``c_k`` the total weight
    at ``v_k`` (``w`` default 1). The rows are gathered in sorted order by blocks that stay in
    cache, laid out as planes (:func:`plane_layout`), centred (and weighted), summed in place
    (:func:`running_planes`) and added up by one symmetric rank-k update (BLAS syrk) per
    block: the sum over rows does not depend on their order in the block. Tied values keep
    only the last row of their run, weighted by the run's total.

    Examples
    --------
    >>> rows = np.array([[1.0], [2.0], [3.0]])
    >>> cross, last = cumulative_cross(rows, np.array([3.0, 1.0, 2.0]), np.zeros(1))
    >>> float(cross[0, 0]), float(last[0])  # C = 2, 5, 6
    (65.0, 6.0)
    """
    m, p = rows.shape
    running = np.zeros(p) if running is None else np.asarray(running, dtype=float).copy()
    cross = np.zeros((p, p))
    if m == 0:
        return cross, running
    if not rows.flags.c_contiguous:
        rows = np.ascontiguousarray(rows)
    order = np.argsort(values)  # the order among tied values does not matter
    ordered = values[order]
    ends = np.ones(m, dtype=bool)
    ends[:-1] = ordered[1:] != ordered[:-1]
    plain = weights is None and bool(ends.all())
    if not plain:  # each run's total weight at its last row, 0 elsewhere
        w_sorted = np.ones(m) if weights is None else np.asarray(weights, dtype=float)[order]
        starts = np.flatnonzero(np.r_[True, ends[:-1]])
        end_weight = np.zeros(m)
        end_weight[ends] = np.add.reduceat(w_sorted, starts)
    buf = np.empty((min(CUME_BLOCK_ROWS, m), p))
    for start in range(0, m, CUME_BLOCK_ROWS):
        stop = min(m, start + CUME_BLOCK_ROWS)
        # the block's rows in plane layout, the last (stop − start) % RUN_PLANES in order
        whole = start + (stop - start) // RUN_PLANES * RUN_PLANES
        laid = np.arange(start, stop)
        laid[: whole - start] = plane_layout(laid[: whole - start])
        u = np.take(rows, order[laid], axis=0, out=buf[: stop - start], mode=GATHER_MODE)
        u -= shift
        if weights is not None:
            u *= w_sorted[laid, None]
        if whole > start:
            running = running_planes(u[: whole - start], running)
        if whole < stop:  # fewer rows than planes: summed down the rows
            tail = u[whole - start :]
            np.cumsum(tail, axis=0, out=tail)
            tail += running
            running = tail[-1].copy()
        if plain:
            cross += u.T @ u
        else:
            keep = ends[laid]
            kept = u[keep]
            cross += kept.T @ (kept * end_weight[laid][keep, None])
    return (cross + cross.T) / 2, running


class CumulativeSums:
    """The rows of one range ``[low, high)`` of the response, for :func:`cumulative_cross`.

    ``update(X, y[, w])`` keeps the rows inside the range (no copy when all are);
    ``finish(running)`` sorts them and returns their ``Σ_k c_k C_k C_kᵀ`` and the last running
    sum. ``rescale`` (R's case weights, ``c``): the rows are ``√(c w) x`` and the weights ``c w``
    of the rows of weight above ``1e-30``; otherwise ``w`` are frequency weights.

    Parameters
    ----------
    low, high : float
        The range of the response.
    shift : ndarray of shape (p,)
        The mean the rows are centred at.
    rescale : float, optional
        ``c`` of R's case weights.
    """

    def __init__(
        self, low: float, high: float, shift: np.ndarray, rescale: float | None = None
    ) -> None:
        self.low, self.high, self.shift, self.rescale = low, high, shift, rescale
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]] = []

    def update(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> CumulativeSums:
        y = np.asarray(y, dtype=float).reshape(-1)
        inside = (y >= self.low) & (y < self.high)
        if self.rescale is not None:
            inside &= w > ZERO_WEIGHT
        if not inside.all():
            X, y = X[inside], y[inside]
            w = None if w is None else w[inside]
        if self.rescale is not None:
            w = self.rescale * w
            X = X * np.sqrt(w)[:, None]
        if y.size:
            self.parts.append((X, y, w))
        return self

    def merge(self, other: CumulativeSums) -> CumulativeSums:
        self.parts.extend(other.parts)
        return self

    @property
    def n_values(self) -> int:
        return sum(part[1].size for part in self.parts)

    def finish(self, running: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``Σ_k c_k C_k C_kᵀ`` of the range's rows and the running sum after them."""
        if not self.parts:
            p = self.shift.size
            return np.zeros((p, p)), np.zeros(p) if running is None else running
        if len(self.parts) == 1:
            rows, values, weights = self.parts[0]
        else:
            rows = np.vstack([part[0] for part in self.parts])
            values = np.concatenate([part[1] for part in self.parts])
            given = [part[2] for part in self.parts]
            weights = None if given[0] is None else np.concatenate(given)
        return cumulative_cross(rows, values, self.shift, weights, running)


def _partition_rows(part: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Design rows, response and case weights (if any) of a partition of the sorted rows."""
    weights = None
    if "__w__" in part.columns:
        weights = part["__w__"].to_numpy(dtype=float)
        part = part.drop(columns="__w__")
    return part.to_numpy(dtype=float), part.index.to_numpy(dtype=float), weights


def partition_total(part: pd.DataFrame, mean: np.ndarray, rescale: float | None) -> np.ndarray:
    """The sum of ``w (row − mean)`` over one partition of the rows sorted by the response."""
    X, y, w = _partition_rows(part)
    acc = CumulativeSums(-np.inf, np.inf, mean, rescale).update(X, y, w)
    total = np.zeros(mean.size)
    for rows, _, weights in acc.parts:
        u = rows - mean
        total += (u if weights is None else u * weights[:, None]).sum(axis=0)
    return total


def partition_cume(
    part: pd.DataFrame, offset: np.ndarray, mean: np.ndarray, rescale: float | None
) -> np.ndarray:
    """``Σ_k c_k C_k C_kᵀ`` over the distinct responses of a partition of the sorted rows
    (``offset`` carries the earlier partitions' running sum)."""
    X, y, w = _partition_rows(part)
    return CumulativeSums(-np.inf, np.inf, mean, rescale).update(X, y, w).finish(offset)[0]


def _kernel(source: Any, std: Any, rescale: float | None) -> np.ndarray:
    """``M`` from the cumulative sums over the rows sorted by the response."""
    p = source.p
    if std.ill_conditioned:
        # nearly collinear predictors, rows in memory: the running sums of the whitened rows
        # (whitening their cross-product would square the condition number)
        y = np.asarray(source.Y, dtype=float).reshape(-1)
        weights = source.case_weights if source.case_weighted else source.frequency
        cross, _ = cumulative_cross(std.Z, y, np.zeros(p), weights)
        return cross / std.n**3
    if source.can_sort:
        cross = source.sorted_scan(partition_total, partition_cume, std.mean, rescale)
    else:
        cross, running = np.zeros((p, p)), None
        for low, high in source.response_ranges(CUME_BATCH_ROWS):
            part = source.reduce(CumulativeSums(low, high, std.mean, rescale))
            if part.n_values:
                piece, running = part.finish(running)
                cross += piece
    return std.whiten_moments(cross / std.n**3)


def fit_cume(estimator: Any, source: Any) -> EstimatorOutput:
    """CUME of the rows of ``source``: the moments, then the cumulative sums (module notes)."""
    p, single = source.p, SliceRule(single=True)
    rescale = None
    if source.case_weighted:
        acc: Any = source.reduce(
            CaseWeightedStatistics(
                p,
                single,
                response=not source.keeps_rows,
                column=source.weights,
                rescaled=source.keeps_rows,
                keep_rows=source.keeps_rows,
            )
        )
        rescale = acc.rescale  # raises when every weight is zero
        check_rows(estimator, acc.n, p, acc, source)
        std = acc.standardized(source.x_names)
    else:
        acc = source.reduce(
            MomentStatistics(
                estimator,
                p,
                single,
                second=False,
                response=not source.keeps_rows,
                keep_rows=source.keeps_rows,
            )
        )
        check_rows(estimator, acc.n, p, acc, source)
        std, _ = acc.prepared(source.x_names)
    if source.keeps_rows and not np.ptp(np.asarray(source.Y, dtype=float)) > 0:
        raise ValueError("The response has a single value; cume needs a response that varies.")
    M = _kernel(source, std, rescale)
    output = output_from_kernel(estimator, std, None, (M + M.T) / 2)
    if source.case_weighted:
        output.center = acc.center()  # R's dr.direction centres x by its plain mean
    return rowless_extras(output, source, acc, (std, None))


__all__ = [
    "CUME_BATCH_ROWS",
    "CumulativeSums",
    "cumulative_cross",
    "fit_cume",
    "partition_cume",
    "partition_total",
]
