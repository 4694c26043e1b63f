"""Per-slice sufficient statistics, accumulated over chunks and merged across workers.

A moment method needs, per slice ``s``: the weight ``n_s``, the sum of the rows and (SAVE, DR)
the sum of their outer products. They are kept about a fixed ``shift`` (the mean of the first
chunk), which keeps the sums of squares accurate when a predictor's mean is large compared
with its spread. Merging two accumulators with the same shift is adding their arrays, so chunks
and Dask partitions combine in any order; :meth:`SliceStats.finish` turns the totals into the
:class:`~sdrstats.moment._core.Standardized` and
:class:`~sdrstats.moment._core.SliceMoments` objects the in-memory kernels take.

Notes
-----
With ``u = x − shift``, totals ``n = Σ n_s``, ``S = Σ_s Σ_{i∈s} u_i`` and
``Q = Σ_s Σ_{i∈s} u_i u_iᵀ``, the mean is ``shift + S/n`` and the covariance (divisor ``n``)
``Q/n − (S/n)(S/n)ᵀ``. Slice ``s``'s centred sum is ``S_s − n_s c`` and its centred
cross-product ``Q_s − S_s cᵀ − c S_sᵀ + n_s c cᵀ`` with ``c = S/n``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse

from ..moment._core import (
    SliceMoments,
    Standardized,
    slice_moments_from_sums,
    standardize_moments,
)
from ..slicing import Slices


class SliceStats:
    """Accumulator of per-slice counts, sums and cross-products of ``x − shift``.

    Parameters
    ----------
    shift : ndarray of shape (p,)
        Fixed centre of the sums (the first chunk's mean).
    second : bool
        Keep one cross-product per slice (SAVE, DR); otherwise only their total.
    y_shift : float, optional
        Centre of the response sums (kept for a one-column numeric response: its mean,
        variance and covariance with ``x`` give R²(OLS|dr) and pHd's residuals).
    """

    def __init__(self, shift: np.ndarray, second: bool = False, y_shift: float | None = None):
        self.shift = np.asarray(shift, dtype=float)
        self.second = bool(second)
        p = self.shift.size
        self.keys: list[Any] = []
        self._slot: dict[Any, int] = {}
        self.counts = np.zeros(0)
        self.sums = np.zeros((0, p))
        self.cross = np.zeros((0, p, p)) if second else np.zeros((p, p))
        self.y_shift = y_shift
        self.y_sum = 0.0
        self.y_squares = 0.0
        self.xy = np.zeros(p)
        self.n_chunks = 0
        self.n_dropped = 0  # rows dropped for missing values

    @property
    def p(self) -> int:
        return self.shift.size

    @property
    def n(self) -> float:
        return float(self.counts.sum())

    def _slots(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Slot of each distinct key of the chunk (new keys get new slots) and row codes."""
        distinct, codes = np.unique(keys, return_inverse=True)
        slots = np.empty(distinct.size, dtype=np.int64)
        for j, key in enumerate(distinct.tolist()):
            if key not in self._slot:
                self._grow(key)
            slots[j] = self._slot[key]
        return slots, codes.reshape(-1)

    def _grow(self, key: Any) -> None:
        self._slot[key] = len(self.keys)
        self.keys.append(key)
        p = self.p
        self.counts = np.append(self.counts, 0.0)
        self.sums = np.vstack([self.sums, np.zeros((1, p))])
        if self.second:
            self.cross = np.concatenate([self.cross, np.zeros((1, p, p))])

    def update(self, X: np.ndarray, keys: np.ndarray, y: np.ndarray | None = None) -> SliceStats:
        """Add the rows ``X`` with slice keys ``keys`` (and their response ``y``)."""
        if X.shape[0] == 0:
            return self
        self.n_chunks += 1
        slots, codes = self._slots(np.asarray(keys))
        u = X - self.shift
        k = slots.size
        indicator = scipy.sparse.csr_matrix(
            (np.ones(codes.size), (codes, np.arange(codes.size))), shape=(k, codes.size)
        )
        self.counts[slots] += np.bincount(codes, minlength=k)
        self.sums[slots] += np.asarray(indicator @ u)
        if self.second:
            for j, slot in enumerate(slots):
                block = u[codes == j]
                self.cross[slot] += block.T @ block
        else:
            self.cross += u.T @ u
        if y is not None and self.y_shift is not None:
            v = np.asarray(y, dtype=float).reshape(-1) - self.y_shift
            self.y_sum += float(v.sum())
            self.y_squares += float(v @ v)
            self.xy += u.T @ v
        return self

    def merge(self, other: SliceStats) -> SliceStats:
        """Add another accumulator over disjoint rows (same shift) into this one."""
        if not np.array_equal(self.shift, other.shift) or self.second != other.second:
            raise ValueError("Only accumulators with the same shift and layout can be merged.")
        for j, key in enumerate(other.keys):
            if key not in self._slot:
                self._grow(key)
            slot = self._slot[key]
            self.counts[slot] += other.counts[j]
            self.sums[slot] += other.sums[j]
            if self.second:
                self.cross[slot] += other.cross[j]
        if not self.second:
            self.cross += other.cross
        self.y_sum += other.y_sum
        self.y_squares += other.y_squares
        self.xy += other.xy
        self.n_chunks += other.n_chunks
        self.n_dropped += other.n_dropped
        return self

    # -- results ------------------------------------------------------------------------
    def ordered(self, order: list[Any] | None = None) -> SliceStats:
        """The slots in sorted key order (or ``order``), as the in-memory slicing numbers them."""
        keys = sorted(self.keys) if order is None else [k for k in order if k in self._slot]
        index = np.array([self._slot[k] for k in keys], dtype=np.int64)
        out = SliceStats(self.shift, self.second, self.y_shift)
        out.keys = list(keys)
        out._slot = {k: i for i, k in enumerate(keys)}
        out.counts = self.counts[index]
        out.sums = self.sums[index]
        out.cross = self.cross[index] if self.second else self.cross.copy()
        out.y_sum, out.y_squares, out.xy = self.y_sum, self.y_squares, self.xy.copy()
        out.n_chunks, out.n_dropped = self.n_chunks, self.n_dropped
        return out

    def moments(self) -> tuple[float, np.ndarray, np.ndarray]:
        """Total weight, mean and covariance (divisor ``n``) of the rows."""
        n = self.n
        centre = self.sums.sum(axis=0) / n
        total_cross = self.cross.sum(axis=0) if self.second else self.cross
        cov = total_cross / n - np.outer(centre, centre)
        return n, self.shift + centre, (cov + cov.T) / 2

    def standardized(self, names: list[str] | None = None) -> Standardized:
        """Mean, scale and whitening factor, with the in-memory fit's checks and errors."""
        n, mean, cov = self.moments()
        return standardize_moments(n, mean, cov, names)

    def finish(self, names: list[str] | None = None) -> tuple[Standardized, SliceMoments]:
        """The ``Standardized`` and ``SliceMoments`` of the accumulated rows."""
        std = self.standardized(names)
        centre = std.mean - self.shift
        sums = self.sums - self.counts[:, None] * centre
        second = None
        if self.second:
            outer_sc = self.sums[:, :, None] * centre[None, None, :]
            second = (
                self.cross
                - outer_sc
                - np.swapaxes(outer_sc, 1, 2)
                + self.counts[:, None, None] * np.outer(centre, centre)[None]
            )
        sizes = np.rint(self.counts).astype(np.int64)
        slices = Slices(np.zeros(0, dtype=np.int64), sizes)
        return std, slice_moments_from_sums(std, self.counts, sums, second, slices)

    def response_moments(self) -> tuple[float, float, np.ndarray]:
        """Mean and variance (divisor ``n``) of the response and its covariance with ``x``."""
        if self.y_shift is None:
            raise ValueError("No response moments were accumulated.")
        n = self.n
        ybar = self.y_sum / n
        centre = self.sums.sum(axis=0) / n
        var = self.y_squares / n - ybar**2
        cov_xy = self.xy / n - centre * ybar
        return self.y_shift + ybar, var, cov_xy


class ResidualCross:
    """``Σ r_i (x_i − x̄)(x_i − x̄)ᵀ`` over chunks, for pHd's second pass."""

    def __init__(self, mean: np.ndarray, ybar: float, coef: np.ndarray | None) -> None:
        self.mean = mean
        self.ybar = ybar
        self.coef = coef  # OLS slope of y on x (phdres), or None (phdy)
        self.total = np.zeros((mean.size, mean.size))

    def update(self, X: np.ndarray, y: np.ndarray) -> ResidualCross:
        u = X - self.mean
        r = np.asarray(y, dtype=float).reshape(-1) - self.ybar
        if self.coef is not None:
            r = r - u @ self.coef
        self.total += u.T @ (u * r[:, None])
        return self

    def merge(self, other: ResidualCross) -> ResidualCross:
        self.total += other.total
        return self


def ols_r2_from_moments(cov: np.ndarray, cov_xy: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """R²(OLS|dr) from moments: squared correlation of the OLS fit with ``span(X B_k)``.

    ``R²_k = cᵀB_k (B_kᵀ Σ B_k)⁻¹ B_kᵀ c / (cᵀ Σ⁻¹ c)`` with ``Σ = cov(x)``, ``c = cov(x, y)``,
    for ``k = 1..K`` (the same number :func:`sdrstats.results.ols_r2` computes from rows).
    """
    denom = float(cov_xy @ np.linalg.solve(cov, cov_xy))
    out = np.empty(basis.shape[1])
    for k in range(1, basis.shape[1] + 1):
        B = basis[:, :k]
        proj = B.T @ cov_xy
        out[k - 1] = float(proj @ np.linalg.solve(B.T @ cov @ B, proj)) / denom
    return out


__all__ = ["SliceStats", "ResidualCross", "ols_r2_from_moments"]
