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


#: Rows per block of :func:`signed_crossprod` (a block and its two halves stay in cache).
SIGNED_BLOCK_ROWS = 1024


def signed_crossprod(X: np.ndarray, center: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``Σ_i r_i (x_i − c)(x_i − c)ᵀ`` for signed row weights ``r``, by blocks of rows.

    Each block is centred and scaled by ``√|r|`` in cache, then split by the sign of ``r``:
    the sum is the difference of two symmetric rank-k updates (BLAS syrk), half the work of
    the general product ``Uᵀ (U r)``, with no n x p temporary.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> signed_crossprod(X, np.zeros(2), np.array([2.0, -1.0, 0.5])).tolist()
    [[2.5, 0.5], [0.5, -0.5]]
    """
    n_rows, p = X.shape
    out = np.zeros((p, p))
    r = np.asarray(r, dtype=float)
    root = np.sqrt(np.abs(r))
    negative = r < 0
    block = min(SIGNED_BLOCK_ROWS, max(n_rows, 1))
    buf = np.empty((block, p))
    up = np.empty((block, p))
    down = np.empty((block, p))
    for start in range(0, n_rows, block):
        stop = min(n_rows, start + block)
        u = buf[: stop - start]
        np.subtract(X[start:stop], center, out=u)
        u *= root[start:stop, None]
        neg = negative[start:stop]
        low = np.flatnonzero(neg)
        high = np.flatnonzero(~neg)
        a = np.take(u, high, axis=0, out=up[: high.size])
        b = np.take(u, low, axis=0, out=down[: low.size])
        out += a.T @ a
        out -= b.T @ b
    return out


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
    order = np.argsort(codes, kind="stable")
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
        if self.second:
            # one pass: the groups' centred cross-products add up to the total one
            self.n = float(n_rows) if w is None else float(w.sum())
            self.mean = X.mean(axis=0) if w is None else w @ X / self.n
        else:
            self.n, self.mean, self.cov = mean_and_covariance(X, w)
        mean = self.mean
        if not self.second:
            # Group sums by a sparse indicator product in CSC form (one entry per row of X):
            # the product streams through X once in row order.
            data = np.ones(n_rows) if w is None else w
            indicator = scipy.sparse.csc_matrix(
                (data, codes, np.arange(n_rows + 1)), shape=(k, n_rows)
            )
            sd = np.sqrt(np.clip(np.diag(self.cov), 0.0, None))
            with np.errstate(divide="ignore", invalid="ignore"):
                raw_ok = np.all(sd > 0) and np.max(np.abs(mean) / sd) <= RAW_SUM_RATIO
            if raw_ok:
                self.sums = _indicator_product(indicator, X) - self.counts[:, None] * mean
            else:  # centre first: raw sums would lose digits to a large mean
                self.sums = np.asarray(indicator @ (X - mean))
        else:
            order, bounds = group_order(codes, k)
            p = X.shape[1]
            self.sums = np.zeros((k, p))
            self.cross = np.zeros((k, p, p))
            for s in range(k):
                for start in range(bounds[s], bounds[s + 1], BLOCK_ROWS):
                    rows = order[start : min(bounds[s + 1], start + BLOCK_ROWS)]
                    u = X[rows] - mean
                    uw = u if w is None else u * w[rows, None]
                    self.sums[s] += uw.sum(axis=0)
                    self.cross[s] += u.T @ uw
            cov = self.cross.sum(axis=0) / self.n
            diag = np.diag(cov)
            if np.all(np.isfinite(cov)) and np.all(diag > 0):
                self.cov = (cov + cov.T) / 2
            else:  # a constant column, or sums that overflow: the careful total pass
                _, _, self.cov = mean_and_covariance(X, w)
        if self.response and y is not None:
            v = np.asarray(y, dtype=float).reshape(-1)
            self.y_mean = float(v.mean() if w is None else w @ v / self.n)
            r = v - self.y_mean
            rw = r if w is None else r * w
            self.y_squares = float(r @ rw)
            self.xy = (X - mean).T @ rw

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
    "centred_crossprod",
    "mean_and_covariance",
    "group_order",
    "BLOCK_ROWS",
    "RAW_SUM_RATIO",
]
