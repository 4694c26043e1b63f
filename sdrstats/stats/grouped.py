"""Mergeable per-group sums of the predictors: the statistics the moment methods and linear SPCA
are functions of.

:class:`SliceStats` keeps, for every group (a slice of the response, a class, or the single
group of all rows), the total case weight, the sum of ``x − x̄`` and optionally the sum of
``(x − x̄)(x − x̄)ᵀ``, plus the overall mean and covariance and, for a numeric response, its
mean, sum of squares and cross-product with ``x``. One chunk of rows is summarised with the
same numerics as an in-memory fit (one BLAS cross-product where that keeps ~13 digits, blocked
centred passes otherwise); chunks, Dask partitions or bootstrap pieces combine by
:meth:`SliceStats.merge` in any order (Chan, Golub & LeVeque's pairwise update of centred sums).
The families turn the totals into their output: :mod:`sdrstats.moment.statistics` whitens them
into slice moments, :mod:`sdrstats.spca.statistics` forms ``Xᵀ H Δ``.

Groups are named by *keys* (slice numbers, cut-point intervals or class labels): every update
adds rows with their keys, so a slicing defined by cut points or class levels is the same on
every chunk. Case weights (frequency weights, bootstrap counts) enter every sum.

Notes
-----
For two sets with weights ``n_a, n_b``, means ``m_a, m_b`` and ``δ = m_b − m_a``: the merged mean
is ``m_a + δ n_b / n``, the centred cross-product ``C_a + C_b + (n_a n_b / n) δδᵀ``; a group's
sum about the new mean is ``S + n_s e`` and its cross-product ``Q + S eᵀ + e Sᵀ + n_s e eᵀ``
with ``e = m_old − m_new``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse

#: Rows per block in the blocked cross-product passes: a block stays in cache, so centring it
#: costs little and no n x p temporary is allocated.
BLOCK_ROWS = 2048
#: Largest ``|mean| / sd`` of a predictor for which group sums are taken on the raw rows and
#: centred afterwards (rounding error at most ~16 ulp of a deviation); larger ratios centre first.
RAW_SUM_RATIO = 16.0


def centred_crossprod(
    X: np.ndarray, center: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """``Σ_i w_i (x_i − c)(x_i − c)ᵀ`` by blocks of rows (no n x p temporary)."""
    n_rows, p = X.shape
    out = np.zeros((p, p))
    buf = np.empty((min(BLOCK_ROWS, n_rows), p))
    for start in range(0, n_rows, BLOCK_ROWS):
        stop = min(n_rows, start + BLOCK_ROWS)
        u = buf[: stop - start]
        np.subtract(X[start:stop], center, out=u)
        if weights is None:
            out += u.T @ u
        else:
            out += u.T @ (u * weights[start:stop, None])
    return out


#: ``np.take`` mode of the row gathers into a block buffer: the row indices come from a sort
#: or a mask of the same rows, so they are in range; numpy buffers ``out`` under the default
#: ``mode="raise"`` (a copy of every block, about three times the gather's cost) and writes in
#: place under ``"clip"``.
GATHER_MODE = "clip"

#: Rows per block of :func:`signed_crossprod`: the block's rows of each sign, gathered into
#: two buffers of this many rows (800 kB each at p = 50), stay in the core's own cache.
SIGNED_BLOCK_ROWS = 2048


def signed_crossprod(
    X: np.ndarray,
    center: np.ndarray,
    r: np.ndarray,
    *,
    slope: np.ndarray | None = None,
) -> np.ndarray:
    """``Σ_i r_i (x_i − c)(x_i − c)ᵀ`` for signed row weights ``r``, by blocks of rows.

    Each block of consecutive rows is read once: its rows with ``r > 0`` and those with
    ``r < 0`` are gathered into two buffers that stay in cache, centred and scaled by
    ``√|r|``, and each buffer adds (or subtracts) one symmetric rank-k update (BLAS syrk):
    ``Σ r u uᵀ = Σ₊ (√r u)(√r u)ᵀ − Σ₋ (√|r| u)(√|r| u)ᵀ``. The two updates together do half
    the arithmetic of the general product ``Uᵀ (U r)``, and at n = 1e5, p = 50 on one BLAS
    thread the pass takes about 2.25 times one ``X.T @ X`` against 2.7 for the general product
    on short blocks. Rows with ``r = 0`` add nothing and are skipped.

    With ``slope``, ``r`` (a float array the caller owns) holds ``y − ȳ`` on entry and each
    block's fitted values ``(x − c)·slope`` are subtracted from it while the block is in cache
    (pHd's OLS residuals without a pass of their own); on return it holds the residuals.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> signed_crossprod(X, np.zeros(2), np.array([2.0, -1.0, 0.5])).tolist()
    [[2.5, 0.5], [0.5, -0.5]]
    """
    n_rows, p = X.shape
    center = np.asarray(center, dtype=float)
    shift = bool(np.any(center))
    if slope is None:
        r = np.asarray(r, dtype=float)
    else:
        level = float(center @ slope)  # (x − c)·slope = x·slope − c·slope
    out = np.zeros((p, p))
    rows = min(SIGNED_BLOCK_ROWS, max(n_rows, 1))
    halves = ((1.0, np.empty((rows, p))), (-1.0, np.empty((rows, p))))
    for start in range(0, n_rows, SIGNED_BLOCK_ROWS):
        block = X[start : start + SIGNED_BLOCK_ROWS]
        rb = r[start : start + SIGNED_BLOCK_ROWS]
        if slope is not None:
            rb -= block @ slope - level
        root = np.sqrt(np.abs(rb))
        for sign, buf in halves:
            picked = np.flatnonzero(rb > 0 if sign > 0 else rb < 0)
            if not picked.size:
                continue
            u = np.take(block, picked, axis=0, out=buf[: picked.size], mode=GATHER_MODE)
            if shift:
                u -= center
            u *= root[picked, None]
            if sign > 0:
                out += u.T @ u
            else:
                out -= u.T @ u
    return (out + out.T) / 2


def _raw_precise(cov: np.ndarray, mean: np.ndarray) -> bool:
    """Whether sums about 0, centred afterwards, keep ~13 digits: every variance positive and
    finite and ``|mean| / sd <= RAW_SUM_RATIO`` (the subtraction cancels about ``2 log10(|x̄|/sd)``
    digits)."""
    var = np.diag(cov)
    if not np.all(np.isfinite(cov)) or np.any(var <= 0):
        return False
    return bool(np.max(np.abs(mean) / np.sqrt(var)) <= RAW_SUM_RATIO)


def _group_crossprods(
    X: np.ndarray,
    order: np.ndarray,
    bounds: np.ndarray,
    shift: np.ndarray | None,
    weights: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-group ``Σ w (x − shift)`` and ``Σ w (x − shift)(x − shift)ᵀ`` (``shift`` None: 0).

    Each group's rows (``order[bounds[s]:bounds[s+1]]``) are gathered by blocks into one
    buffer that stays in cache, and each block adds one symmetric rank-k update (BLAS syrk).
    """
    k, p = bounds.size - 1, X.shape[1]
    sums = np.zeros((k, p))
    cross = np.zeros((k, p, p))
    block = min(BLOCK_ROWS, max(order.size, 1))
    buf = np.empty((block, p))
    ones = np.ones(block)
    for s in range(k):
        for start in range(bounds[s], bounds[s + 1], BLOCK_ROWS):
            rows = order[start : min(bounds[s + 1], start + BLOCK_ROWS)]
            u = np.take(X, rows, axis=0, out=buf[: rows.size], mode=GATHER_MODE)
            if shift is not None:
                u -= shift
            if weights is None:
                sums[s] += ones[: rows.size] @ u
                cross[s] += u.T @ u
            else:
                w = weights[rows]
                sums[s] += w @ u
                cross[s] += u.T @ (u * w[:, None])
    return sums, cross


#: Rows per block of :func:`_single_group_sums` (a block stays in the core's own cache).
SINGLE_BLOCK_ROWS = 1024


def _single_group_sums(
    X: np.ndarray, weights: np.ndarray | None, rw: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``Σ w x``, ``Σ w x xᵀ`` and (``rw`` given) ``Σ rw x`` of all rows, by blocks of rows.

    Each block adds its symmetric rank-k update (BLAS syrk) and, while it is in cache, its
    column sums and response product as vector products with the row weights ``w`` and
    ``rw`` (BLAS gemv; one product with the stacked ``[w; rw]`` is a two-row gemm, which
    OpenBLAS runs 2-5 times slower than the two vector products): one read of the rows from
    memory where three whole-array products read them three times.

    Examples
    --------
    >>> X = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> total, cross, xy = _single_group_sums(X, None, np.array([1.0, -1.0]))
    >>> total.tolist(), cross.tolist(), xy.tolist()
    ([4.0, 6.0], [[10.0, 14.0], [14.0, 20.0]], [-2.0, -2.0])
    """
    n_rows, p = X.shape
    cross = np.zeros((p, p))
    stacked = np.empty((1 if rw is None else 2, n_rows))  # the rows' weights, then rw
    stacked[0] = 1.0 if weights is None else weights
    if rw is not None:
        stacked[1] = rw
    sums = np.zeros((stacked.shape[0], p))
    for start in range(0, n_rows, SINGLE_BLOCK_ROWS):
        stop = min(n_rows, start + SINGLE_BLOCK_ROWS)
        block = X[start:stop]
        if weights is None:
            cross += block.T @ block
        else:
            cross += block.T @ (block * weights[start:stop, None])
        for j in range(stacked.shape[0]):  # vector products: a 2-row gemm is 2-5x slower
            sums[j] += stacked[j, start:stop] @ block
    total, xy = sums[0], (None if rw is None else sums[1])
    return total, cross, xy


#: Most groups for which :func:`_blockwise_group_crossprods` gathers the rows block by block;
#: with more, each group's share of a block is too short for an efficient update.
LOCAL_GROUPS = 20


def _blockwise_group_crossprods(
    X: np.ndarray,
    codes: np.ndarray,
    k: int,
    shift: np.ndarray | None,
    weights: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_group_crossprods` for few groups, from consecutive blocks of rows.

    Each block (about 800 rows a group) is read once, its rows gathered by group (a stable
    radix sort of the block's codes) into a buffer that stays in cache, and each group's part
    adds one symmetric rank-k update: the rows are read in order instead of one sweep of the
    array per group.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    >>> sums, cross = _blockwise_group_crossprods(X, np.array([1, 0, 1]), 2, None, None)
    >>> sums.tolist(), cross[1].tolist()
    ([[0.0, 2.0], [2.0, 1.0]], [[2.0, 1.0], [1.0, 1.0]])
    """
    n_rows, p = X.shape
    sums = np.zeros((k, p))
    cross = np.zeros((k, p, p))
    # ~800 rows a group: each group's update is long enough for an efficient syrk (at n = 1e5,
    # p = 50, 10 groups: 1.69 against 1.77 times one X.T @ X with blocks of 4096 rows)
    rows = min(max(8192, 800 * k), 16384)
    buf = np.empty((min(rows, max(n_rows, 1)), p))
    ones = np.ones(buf.shape[0])
    small = codes.astype(np.uint8)  # k <= LOCAL_GROUPS: a radix sort
    bounds = np.zeros(k + 1, dtype=np.int64)
    for start in range(0, n_rows, rows):
        stop = min(n_rows, start + rows)
        block_codes = small[start:stop]
        order = np.argsort(block_codes, kind="stable")
        np.cumsum(np.bincount(block_codes, minlength=k), out=bounds[1:])
        u = np.take(X[start:stop], order, axis=0, out=buf[: stop - start], mode=GATHER_MODE)
        if shift is not None:
            u -= shift
        w = None if weights is None else weights[start:stop][order]
        for s in range(k):
            low, high = bounds[s], bounds[s + 1]
            if high == low:
                continue
            part = u[low:high]
            if w is None:
                sums[s] += ones[: high - low] @ part
                cross[s] += part.T @ part
            else:
                sums[s] += w[low:high] @ part
                cross[s] += part.T @ (part * w[low:high, None])
    return sums, cross


def _raw_covariance(X: np.ndarray, mean: np.ndarray, total: float) -> np.ndarray | None:
    """``XᵀX/n − x̄x̄ᵀ`` from one BLAS product, or None when that would lose digits.

    The subtraction cancels about ``2 log10(|x̄|/sd)`` digits; up to ``RAW_SUM_RATIO`` (16,
    under 3 digits) the result keeps ~13 significant digits, as the blocked centred pass does.
    Beyond that (or for a constant column) the caller centres first.
    """
    cov = X.T @ X / total - np.outer(mean, mean)
    var = np.diag(cov)
    if not np.all(np.isfinite(cov)) or np.any(var <= 0):
        return None
    if np.max(np.abs(mean) / np.sqrt(var)) > RAW_SUM_RATIO:
        return None
    return (cov + cov.T) / 2


def _scaled_covariance(
    X: np.ndarray, mean: np.ndarray, weights: np.ndarray | None, total: float
) -> np.ndarray:
    """Covariance with each column pre-divided by its largest deviation (guards over/underflow)."""
    Xc = X - mean
    peak = np.max(np.abs(Xc), axis=0)
    peak[peak == 0] = 1.0
    Xp = Xc / peak
    cross = Xp.T @ (Xp if weights is None else Xp * weights[:, None])
    return cross / total * peak[:, None] * peak[None, :]


def mean_and_covariance(
    X: np.ndarray, weights: np.ndarray | None = None
) -> tuple[float, np.ndarray, np.ndarray]:
    """Total weight, (weighted) mean and covariance with divisor ``n`` of the rows ``X``.

    A column with no spread gets variance 0 (the caller names it); an overflowing product
    falls back to pre-scaled columns.
    """
    n_rows = X.shape[0]
    if weights is None:
        total = float(n_rows)
        mean = X.mean(axis=0)
    else:
        total = float(weights.sum())
        mean = weights @ X / total
    cov = _raw_covariance(X, mean, total) if weights is None else None
    if cov is None:
        cov = centred_crossprod(X, mean, weights) / total
    diag = np.diag(cov)
    if not np.all(np.isfinite(cov)) or np.any(diag == 0):
        cov = _scaled_covariance(X, mean, weights, total)
    return total, mean, cov


def _indicator_product(indicator: Any, X: np.ndarray) -> np.ndarray:
    """``indicator @ X`` for a sparse group indicator; a column-major ``X`` (the formula
    front's) is taken a column at a time, as scipy would otherwise copy it to row-major."""
    if X.flags.c_contiguous or not X.flags.f_contiguous:
        return np.asarray(indicator @ X)
    return np.column_stack([indicator @ X[:, j] for j in range(X.shape[1])])


def group_order(codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Row order grouping the codes together, and each group's bounds in that order."""
    small = np.uint8 if k <= 2**8 else (np.uint16 if k <= 2**16 else None)
    # a stable sort of small integers is a radix sort: a few times faster than of int64
    order = np.argsort(codes if small is None else codes.astype(small), kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=k))])
    return order, bounds


class SliceStats:
    """Accumulator of per-group weights, sums and cross-products of ``x − x̄``.

    Parameters
    ----------
    p : int
        Number of predictors.
    second : bool, default False
        Keep one cross-product per group (SAVE, DR); otherwise only the total covariance.
    response : bool, default False
        Keep the mean and sums of squares of a one-column numeric response and its
        cross-product with ``x`` (R²(OLS|dr), pHd's residuals, linear SPCA).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X, keys = rng.standard_normal((100, 2)), rng.integers(0, 3, 100)
    >>> whole = SliceStats(2).update(X, keys)
    >>> halves = SliceStats(2).update(X[:50], keys[:50]).merge(SliceStats(2).update(X[50:], keys[50:]))
    >>> bool(np.allclose(whole.ordered().sums, halves.ordered().sums))
    True
    """

    def __init__(self, p: int, second: bool = False, response: bool = False) -> None:
        self.second = bool(second)
        self.response = bool(response)
        self.keys: list[Any] = []
        self._slot: dict[Any, int] = {}
        self.n = 0.0
        self.mean = np.zeros(p)
        self.cov = np.zeros((p, p))
        self.counts = np.zeros(0)
        self.sums = np.zeros((0, p))
        self.cross = np.zeros((0, p, p)) if second else None
        self.y_mean = 0.0
        self.y_squares = 0.0  # Σ w (y − ȳ)²
        self.xy = np.zeros(p)  # Σ w (x − x̄)(y − ȳ)
        self.n_chunks = 0

    @property
    def p(self) -> int:
        return self.mean.size

    # -- adding rows -------------------------------------------------------------------------
    def update(
        self,
        X: np.ndarray,
        keys: np.ndarray,
        y: np.ndarray | None = None,
        weights: np.ndarray | None = None,
    ) -> SliceStats:
        """Add the rows ``X`` with group keys ``keys`` (their response ``y``, case ``weights``)."""
        if X.shape[0] == 0:
            return self
        distinct, codes = np.unique(np.asarray(keys), return_inverse=True)
        return self.update_coded(X, codes.reshape(-1), distinct.tolist(), y, weights)

    def update_coded(
        self,
        X: np.ndarray,
        codes: np.ndarray,
        keys: list[Any],
        y: np.ndarray | None = None,
        weights: np.ndarray | None = None,
    ) -> SliceStats:
        """:meth:`update` with the rows' groups given as codes ``0..len(keys)-1``."""
        part = SliceStats(self.p, self.second, self.response)
        part._summarise(X, codes, list(keys), y, weights)
        return self.merge(part)

    def _summarise(
        self,
        X: np.ndarray,
        codes: np.ndarray,
        keys: list[Any],
        y: np.ndarray | None,
        w: np.ndarray | None,
    ) -> None:
        k, n_rows = len(keys), X.shape[0]
        self.keys, self._slot = list(keys), {key: j for j, key in enumerate(keys)}
        self.n_chunks = 1
        self.counts = np.bincount(codes, weights=w, minlength=k).astype(float)
        self.n = float(n_rows) if w is None else float(w.sum())
        rw = raw_xy = None  # the response's weighted deviations, and Σ rw x when found in passing
        if self.response and y is not None:
            v = np.asarray(y, dtype=float).reshape(-1)
            self.y_mean = float(v.mean() if w is None else w @ v / self.n)
            r = v - self.y_mean
            rw = r if w is None else r * w
        if self.second and not X.flags.c_contiguous:
            X = np.ascontiguousarray(X)  # the rows are gathered by slice: one copy, then fast
        if self.second:
            if k <= LOCAL_GROUPS:  # each block of rows gathered by group while in cache
                grouped = _blockwise_group_crossprods
                order, bounds = codes, k
            else:  # each group's rows gathered from the whole array
                grouped = _group_crossprods
                order, bounds = group_order(codes, k)
            # raw per-group sums and cross-products, centred afterwards when that keeps ~13
            # digits; the mean is the sums' total
            raw_sums, raw_cross = grouped(X, order, bounds, None, w)
            self.mean = mean = raw_sums.sum(axis=0) / self.n
            outer = raw_sums[:, :, None] * mean[None, None, :]
            cross = raw_cross - outer - np.swapaxes(outer, 1, 2)
            cross += self.counts[:, None, None] * np.outer(mean, mean)[None]
            cov = cross.sum(axis=0) / self.n
            if _raw_precise(cov, mean):
                self.sums = raw_sums - self.counts[:, None] * mean
                self.cross = cross
            else:  # centre first: raw sums would lose digits to a large mean
                self.sums, self.cross = grouped(X, order, bounds, mean, w)
                cov = self.cross.sum(axis=0) / self.n
            diag = np.diag(cov)
            if np.all(np.isfinite(cov)) and np.all(diag > 0):
                self.cov = (cov + cov.T) / 2
            else:  # a constant column, or sums that overflow: the careful total pass
                _, _, self.cov = mean_and_covariance(X, w)
        else:
            # Group sums by a sparse indicator product in CSC form (one entry per row of X):
            # the product streams through X once in row order, and the mean is their total.
            data = np.ones(n_rows) if w is None else w
            indicator = None
            if k == 1:  # one group (pHd, CUME): its sums and the response's in the same pass
                raw_sum, cross, raw_xy = _single_group_sums(X, w, rw)
                raw_sums = raw_sum[None]
            else:
                indicator = scipy.sparse.csc_matrix(
                    (data, codes, np.arange(n_rows + 1)), shape=(k, n_rows)
                )
                raw_sums = _indicator_product(indicator, X)
                cross = X.T @ X if w is None else X.T @ (X * w[:, None])
            self.mean = mean = raw_sums.sum(axis=0) / self.n
            cov = cross / self.n - np.outer(mean, mean)
            if _raw_precise(cov, mean):
                self.cov = (cov + cov.T) / 2
                self.sums = raw_sums - self.counts[:, None] * mean
            else:  # centre first: raw sums would lose digits to a large mean
                self.cov = centred_crossprod(X, mean, w) / self.n
                diag = np.diag(self.cov)
                if not np.all(np.isfinite(self.cov)) or np.any(diag == 0):
                    self.cov = _scaled_covariance(X, mean, w, self.n)
                centred = X - mean
                self.sums = (
                    (data @ centred)[None] if indicator is None else np.asarray(indicator @ centred)
                )
        if rw is not None:
            self.y_squares = float(r @ rw)
            if not _raw_precise(self.cov, mean):
                self.xy = (X - mean).T @ rw
            else:
                self.xy = (rw @ X if raw_xy is None else raw_xy) - mean * rw.sum()

    def _grow(self, key: Any) -> int:
        self._slot[key] = len(self.keys)
        self.keys.append(key)
        self.counts = np.append(self.counts, 0.0)
        self.sums = np.vstack([self.sums, np.zeros((1, self.p))])
        if self.second:
            self.cross = np.concatenate([self.cross, np.zeros((1, self.p, self.p))])
        return self._slot[key]

    def _recentre(self, new_mean: np.ndarray) -> None:
        """Express the group sums about ``new_mean`` instead of the current mean."""
        e = self.mean - new_mean
        if self.second:
            outer = self.sums[:, :, None] * e[None, None, :]
            self.cross += outer + np.swapaxes(outer, 1, 2)
            self.cross += self.counts[:, None, None] * np.outer(e, e)[None]
        self.sums = self.sums + self.counts[:, None] * e

    def merge(self, other: SliceStats) -> SliceStats:
        """Add another accumulator over disjoint rows into this one (in place)."""
        if other.p != self.p or other.second != self.second or other.response != self.response:
            raise ValueError(
                "Only accumulators of the same layout (predictors, second moments, response) "
                "can be merged."
            )
        if other.n == 0 and not other.keys:
            return self
        if self.n == 0 and not self.keys:
            self.__dict__.update(other._copy().__dict__)
            return self
        n = self.n + other.n
        delta = other.mean - self.mean
        mean = self.mean + delta * (other.n / n)
        cross = (
            self.cov * self.n
            + other.cov * other.n
            + np.outer(delta, delta) * (self.n * other.n / n)
        )
        d_y = other.y_mean - self.y_mean
        y_mean = self.y_mean + d_y * (other.n / n)
        self.y_squares += other.y_squares + d_y * d_y * (self.n * other.n / n)
        self.xy = self.xy + other.xy + delta * d_y * (self.n * other.n / n)
        theirs = other._copy()
        theirs._recentre(mean)
        self._recentre(mean)
        for j, key in enumerate(theirs.keys):
            slot = self._slot[key] if key in self._slot else self._grow(key)
            self.counts[slot] += theirs.counts[j]
            self.sums[slot] += theirs.sums[j]
            if self.second:
                self.cross[slot] += theirs.cross[j]
        self.n, self.mean, self.y_mean = n, mean, y_mean
        self.cov = (cross + cross.T) / (2 * n)
        self.n_chunks += other.n_chunks
        return self

    def _copy(self) -> SliceStats:
        out = SliceStats(self.p, self.second, self.response)
        out.__dict__.update(
            {
                k: (v.copy() if isinstance(v, (np.ndarray, list, dict)) else v)
                for k, v in self.__dict__.items()
            }
        )
        return out

    # -- moving rows between groups ------------------------------------------------------------
    def move(
        self,
        X: np.ndarray,
        source: Any,
        targets: np.ndarray,
        weights: np.ndarray | None = None,
    ) -> SliceStats:
        """Move rows ``X`` (already added, under the key ``source``) to the groups ``targets``.

        The rows' sums about the current mean leave ``source`` and join their targets; the
        overall moments do not change (the rows are the same). A one-pass slicing adds rows
        under a holding key while their slice is unknown and moves them once it is known.

        Examples
        --------
        >>> X = np.array([[1.0], [2.0], [4.0]])
        >>> stats = SliceStats(1).update(X, np.array([-1, -1, 0]))
        >>> moved = stats.move(X[:2], -1, np.array([0, 1])).drop(-1)
        >>> moved.ordered().counts.tolist(), moved.ordered().sums.round(6).tolist()
        ([2.0, 1.0], [[0.333333], [-0.333333]])
        """
        n_rows = X.shape[0]
        if n_rows == 0:
            return self
        targets = np.asarray(targets).reshape(-1)
        # runs of one target (rows sorted by the response come in few runs)
        starts = np.concatenate([[0], np.flatnonzero(targets[1:] != targets[:-1]) + 1])
        if starts.size > max(16, n_rows // 16):  # many runs: rows in groups by a stable sort
            order = np.argsort(targets, kind="stable")
            X, targets = X[order], targets[order]
            weights = None if weights is None else weights[order]
            starts = np.concatenate([[0], np.flatnonzero(targets[1:] != targets[:-1]) + 1])
        u = X - self.mean
        wu = u if weights is None else u * weights[:, None]
        sums = np.add.reduceat(wu, starts, axis=0)
        if weights is None:
            counts = np.diff(np.append(starts, n_rows)).astype(float)
        else:
            counts = np.add.reduceat(weights, starts)
        ends = np.append(starts[1:], n_rows)
        slot = self._slot[source]
        self.counts[slot] -= counts.sum()
        self.sums[slot] -= sums.sum(axis=0)
        for j, key in enumerate(targets[starts].tolist()):
            target = self._slot[key] if key in self._slot else self._grow(key)
            self.counts[target] += counts[j]
            self.sums[target] += sums[j]
            if self.second:
                a, b = starts[j], ends[j]
                cross = u[a:b].T @ wu[a:b]
                self.cross[target] += cross
                self.cross[slot] -= cross
        return self

    def regroup(self, mapping: dict[Any, Any]) -> SliceStats:
        """The same rows with each group's key replaced by ``mapping[key]`` (keys not in
        ``mapping`` kept); groups given the same key are pooled."""
        out = self._copy()
        new_keys = list(dict.fromkeys(mapping.get(key, key) for key in self.keys))
        slot = {key: j for j, key in enumerate(new_keys)}
        index = np.array([slot[mapping.get(key, key)] for key in self.keys], dtype=np.int64)
        k = len(new_keys)
        out.keys, out._slot = new_keys, slot
        out.counts = np.zeros(k)
        np.add.at(out.counts, index, self.counts)
        out.sums = np.zeros((k, self.p))
        np.add.at(out.sums, index, self.sums)
        if self.second:
            out.cross = np.zeros((k, self.p, self.p))
            np.add.at(out.cross, index, self.cross)
        return out

    def drop(self, key: Any) -> SliceStats:
        """Remove the group ``key`` (one emptied by :meth:`move`: its sums are rounding)."""
        if key not in self._slot:
            return self
        j = self._slot.pop(key)
        del self.keys[j]
        self._slot = {k: i for i, k in enumerate(self.keys)}
        self.counts = np.delete(self.counts, j)
        self.sums = np.delete(self.sums, j, axis=0)
        if self.second:
            self.cross = np.delete(self.cross, j, axis=0)
        return self

    # -- totals --------------------------------------------------------------------------------
    def ordered(self, order: list[Any] | None = None) -> SliceStats:
        """The groups in sorted key order (or ``order``), as the in-memory slicing numbers them."""
        keys = sorted(self.keys) if order is None else [k for k in order if k in self._slot]
        index = np.array([self._slot[k] for k in keys], dtype=np.int64)
        out = self._copy()
        out.keys = list(keys)
        out._slot = {k: i for i, k in enumerate(keys)}
        out.counts = self.counts[index]
        out.sums = self.sums[index]
        if self.second:
            out.cross = self.cross[index]
        return out

    def moments(self) -> tuple[float, np.ndarray, np.ndarray]:
        """Total weight, mean and covariance (divisor ``n``) of the rows."""
        return self.n, self.mean, self.cov

    def response_moments(self) -> tuple[float, float, np.ndarray]:
        """Mean and variance (divisor ``n``) of the response and its covariance with ``x``."""
        if not self.response:
            raise ValueError("No response moments were accumulated.")
        return self.y_mean, self.y_squares / self.n, self.xy / self.n


__all__ = [
    "SliceStats",
    "signed_crossprod",
    "GATHER_MODE",
    "centred_crossprod",
    "mean_and_covariance",
    "group_order",
    "BLOCK_ROWS",
    "RAW_SUM_RATIO",
]
