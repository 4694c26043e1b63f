"""Local-linear regression with a Gaussian product kernel, bandwidths by leave-one-out CV.

At a point ``q`` the fit minimises ``Σ_j K(z_j - q) (t_j - a - bᵀ(z_j - q))²`` and returns
``â``, with ``K(u) = exp(-Σ_l u_l² / 2h_l²)`` on standardised predictors: one bandwidth per
predictor, ``h_l = ∞`` dropping predictor ``l`` from the window (the fit is then linear in
it). The fit is linear in ``t``, ``t̂ = H t``, and the leave-one-out residual is
``(t_i - t̂_i) / (1 - H_ii)`` with ``H_ii = (A_i^{-1})_{00}`` (``A_i`` the weighted
normal-equation matrix at ``z_i``, whose own kernel weight is 1), so the CV score of a
bandwidth costs one pass over the data.

The bandwidths minimise the mean squared leave-one-out residual: first one common
bandwidth (every other grid value, then the two neighbours of the best), then each
predictor's in turn with the others held: the grid values one step either side of the
current one and ``∞``, re-centred on the best until it stays, sweeping the predictors
(at most twice) until nothing changes. Above ``CV_ROWS`` rows the criterion is the mean
over ``CV_ROWS`` evenly spaced rows (each still left out of a fit on all the others). Every
weighted moment of the normal equations comes from one product of the kernel weights with
the rows' features ``[1, z, z zᵀ, t, z tᵀ]``. On the density benchmark's six models
(n = 400, p = 2 and 5, three draws each) this search reaches the held-out log scores of
the wider one it replaced (two steps either side, three sweeps, the whole grid first;
mean difference below 0.01) with about half the scores.

A ridge of ``min(h_l, 1)²`` on slope ``l`` (the weight of one point at distance ``h_l``
pulling that slope to zero; the nearest point's weight is 1; capped at one standard
deviation so that a nearly global window keeps its slope) keeps ``A_i`` invertible and the
slope tame where the window holds one or two points, such as beyond the data, where the
fit falls back towards a local constant (ridged local polynomials, Seifert and Gasser
1996); in a window of many points it is negligible. Rows are processed in blocks, so memory
stays ``O(block · n)``.

The conditional densities use it for the location ``m(z)`` and the log-scale ``log s(z)`` of
the response (Fan and Gijbels 1996; Yu and Jones 2004 on smoothing log squared residuals).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ..base.persistence import Registered

#: Default candidate bandwidths in standardised units: a tenth of an sd to nearly global.
LL_BANDWIDTHS = np.logspace(-1.0, np.log10(5.0), 9)
#: Ridge on slope ``l``, in units of ``min(h_l, 1)²`` (one point's worth of kernel weight).
RIDGE = 1.0
#: Rows whose leave-one-out residuals choose the bandwidths (all rows up to this many).
CV_ROWS = 200
#: The same for a noisy response (a log-scale): on the density benchmark's six models
#: (n = 400, p = 2 and 5, three draws each) the held-out likelihood on 100 rows chose
#: windows whose densities' mean log score on new draws was within 0.003 nats of those
#: chosen on 200 (0.016 at most, on one model), at a third less of the default's cost.
NOISY_CV_ROWS = 100
ANISOTROPIC = True
#: A predictor's bandwidth is searched over its grid neighbours this many steps either way
#: (and ∞), re-centred until the best is the centre.
WINDOW = 1
#: Elements of one block of the kernel matrix (rows x training points).
BLOCK_ELEMENTS = 2_000_000
#: The same for the fit at every training row once the bandwidths are chosen: blocks that
#: stay in cache (the kernel is formed in several passes over the block), about a third
#: faster at n = 400 than one block of all rows.
FIT_BLOCK_ELEMENTS = 50_000


def _blocks(rows: int, n: int, elements: int = BLOCK_ELEMENTS):
    size = max(1, elements // max(n, 1))
    for start in range(0, rows, size):
        yield slice(start, min(rows, start + size))


def min_points(n: int, d: int, noisy: bool = False) -> int:
    """Nearest points a window must hold within one bandwidth: ``5(d + 1)``, enough for a
    well-posed local plane; for a ``noisy`` response such as a log absolute residual
    (variance about 1.2 whatever the scale) ``min(50, n / 8)`` if more, so that each local
    fit averages tens of points. At most a fifth of the data.

    On ``y = x1 + (0.2 + |x2|) ε`` (n = 400, 8 draws) the density's mean log score on new
    draws rose from -1.305 with 15 points to -1.287 with 50, and 80 points gained little
    (-1.282) while over-covering more where the noise is smallest."""
    k = 5 * (d + 1)
    if noisy:
        k = max(k, min(50, n // 8))
    return int(min(k, max(n // 5, d + 2)))


def _kernel(
    Q: np.ndarray,
    Z: np.ndarray,
    h: np.ndarray,
    need: float = 0.0,
    sq: np.ndarray | None = None,
    work: tuple[np.ndarray, np.ndarray] | None = None,
    training: bool = False,
) -> np.ndarray:
    """``exp(-Σ_l (q_l - z_l)² / 2h_l²)`` (rows x n) scaled by each row's largest entry
    (in logs, so a row far from every point keeps its nearest ones; a training row's own
    weight is 1 either way, so with ``training`` (every row of ``Q`` a row of ``Z``) the
    scaling is skipped). A row whose weights sum to less than ``need`` has its window
    widened until its ``⌈need⌉``-th nearest point lies within one bandwidth (weight
    ``e^{-1/2}``): in sparse regions, beyond the data and at its edges the fit then rests on
    enough points (a nearest-neighbour bandwidth as a floor), not on the one or two that a
    fixed window holds there. ``sq`` may hold the squared differences ``(q_l - z_l)²``
    (predictors x rows x n; with several predictors their sum follows as one more).
    ``work``: two arrays of the result's shape to compute in (the result is the second),
    so that repeated calls allocate nothing."""
    finite = np.isfinite(h)
    inv = np.where(finite, 0.5 / np.where(finite, h, 1.0) ** 2, 0.0)
    used = np.flatnonzero(inv > 0)
    shape = (len(Q), len(Z))
    if len(used) == 0:
        return np.ones(shape)
    logk, K = (np.empty(shape), np.empty(shape)) if work is None else work
    if sq is not None and len(used) == len(h) and np.all(inv == inv[0]) and len(sq) > len(h):
        np.multiply(sq[-1], -inv[0], out=logk)  # one bandwidth: the summed squares are last
    elif sq is not None:
        np.multiply(sq[used[0]], -inv[used[0]], out=logk)
        for l in used[1:]:
            logk -= np.multiply(sq[l], inv[l], out=K)
    else:
        logk[:] = 0.0
        for l in used:  # in place: fresh arrays of this size cost more than the arithmetic
            np.subtract(Q[:, l, None], Z[None, :, l], out=K)
            np.square(K, out=K)
            K *= inv[l]
            logk -= K
    if not training:
        logk -= logk.max(axis=1, keepdims=True)
    np.maximum(logk, -40.0, out=K)  # below e^-40 a weight counts for nothing
    np.exp(K, out=K)
    k = int(np.ceil(need))
    if 0 < k <= len(Z):
        sparse = np.flatnonzero(K.sum(axis=1) < need)
        if len(sparse):
            wide = logk[sparse]
            kth = -np.partition(wide, len(Z) - k, axis=1)[:, len(Z) - k]
            wide /= np.maximum(2.0 * kth, 1.0)[:, None]
            np.maximum(wide, -40.0, out=wide)
            K[sparse] = np.exp(wide, out=wide)
    return K


def _features(Z: np.ndarray, T: np.ndarray) -> np.ndarray:
    """``[1, z, z_k z_l (k <= l), t, z tᵀ]`` of each training row
    (n x (1 + d + d(d+1)/2 + m + dm)): one product with the kernel weights gives every
    weighted moment of the normal equations (``z zᵀ`` is symmetric: its upper triangle)."""
    n, d = Z.shape
    m = T.shape[1]
    upper = np.triu_indices(d)
    return np.hstack(
        [
            np.ones((n, 1)),
            Z,
            Z[:, upper[0]] * Z[:, upper[1]],
            T,
            (Z[:, :, None] * T[:, None, :]).reshape(n, d * m),
        ]
    )


@functools.cache  # the same few (d, m) at every score of a bandwidth search
def _moment_index(d: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns of :func:`_features`' moments that form the normal-equation matrix
    ``[[Σw, Σw zᵀ], [Σw z, Σw z zᵀ]]`` (flattened) and its right-hand side
    ``[Σw tᵀ; Σw z tᵀ]`` (flattened)."""
    full = np.empty((d + 1, d + 1), dtype=int)
    full[0, 0] = 0
    full[0, 1:] = full[1:, 0] = np.arange(1, d + 1)
    upper = np.triu_indices(d)
    pairs = np.empty((d, d), dtype=int)
    pairs[upper] = pairs[upper[1], upper[0]] = 1 + d + np.arange(len(upper[0]))
    full[1:, 1:] = pairs
    at = 1 + d + len(upper[0])
    rhs = np.empty((d + 1, m), dtype=int)
    rhs[0] = at + np.arange(m)
    rhs[1:] = at + m + np.arange(d * m).reshape(d, m)
    full, rhs = full.ravel(), rhs.ravel()
    full.flags.writeable = rhs.flags.writeable = False  # shared by every call
    return full, rhs


def _local_solve(
    K: np.ndarray,
    Q: np.ndarray,
    F: np.ndarray,
    m: int,
    h: np.ndarray,
    P: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Fitted values at the query rows ``Q`` (r x m) and the hat diagonal (r,) from the
    kernel weights ``K`` (r x n) between ``Q`` and the training rows, whose
    :func:`_features` are ``F``.

    The weighted least squares in ``[1, z]`` with the ridge on the slopes has the same
    solution ``(a, b)`` as the one centred at the query point (a ridge on the slopes does
    not see the shift), so the fit at ``q`` is ``p_qᵀ A^{-1} B`` with ``p_q = [1, q]``,
    ``A`` and ``B`` the uncentred weighted moments, and the hat diagonal ``p_qᵀ A^{-1} p_q``
    (the row's own weight is 1): one solve per row with one right-hand side. ``P``: the
    rows ``[1, q]`` when the caller keeps them."""
    r, d = Q.shape
    M = (K @ F.astype(K.dtype, copy=False)).astype(float)
    full, rhs = _moment_index(d, m)
    A = M[:, full].reshape(r, d + 1, d + 1)
    # the ridge on the slopes' diagonal (A's flat positions d + 2, 2(d + 2), ...: a view)
    A.reshape(r, -1)[:, d + 2 :: d + 2] += RIDGE * np.minimum(h, 1.0) ** 2
    if P is None:
        P = np.empty((r, d + 1))
        P[:, 0] = 1.0
        P[:, 1:] = Q
    x = np.linalg.solve(A, P[:, :, None])[:, :, 0]
    B = M[:, rhs].reshape(r, d + 1, m)
    return np.einsum("ri,rim->rm", x, B), np.einsum("ri,ri->r", x, P)


def loo_fit(
    Z: np.ndarray,
    T: np.ndarray,
    h: np.ndarray,
    rows: np.ndarray | None = None,
    sq: np.ndarray | None = None,
    need: int = 0,
    work: tuple[np.ndarray, np.ndarray] | None = None,
    kernel: np.ndarray | None = None,
    F: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Fit ``t̂`` (rows x m) and hat diagonal ``H_ii`` at the training ``rows`` (default all)
    with bandwidths ``h`` (one per predictor) and windows of at least ``need`` points;
    ``sq`` and ``work`` as :func:`_kernel` (one block). ``kernel``: the weights of all
    ``rows`` already formed (:class:`_LooKernels`); ``F``: ``_features(Z, T)``."""
    rows = np.arange(len(Z)) if rows is None else rows
    fitted = np.empty((len(rows), T.shape[1]))
    hat = np.empty(len(rows))
    F = _features(Z, T) if F is None else F
    if kernel is not None:
        fitted[:], hat[:] = _local_solve(kernel, Z[rows], F, T.shape[1], h)
        return fitted, hat
    blocks = (
        [slice(0, len(rows))] if sq is not None else _blocks(len(rows), len(Z), FIT_BLOCK_ELEMENTS)
    )
    for block in blocks:
        Q = Z[rows[block]]
        K = _kernel(Q, Z, h, need, sq, work if sq is not None else None, training=True)
        fitted[block], hat[block] = _local_solve(K, Q, F, T.shape[1], h)
    return fitted, hat


class _LooKernels:
    """The kernel weights of the training ``rows`` against every training row for the
    bandwidth search, from the squared differences ``sq`` (predictors x rows x n, their sum
    last): the same weights as :func:`_kernel` (floored at ``e^{-40}``, sparse windows
    widened to ``need`` points; a training row's own weight is 1, so no row needs
    rescaling), built with fewer passes. While one predictor's bandwidth moves with the
    others held, the others' summed log-weights are kept and each candidate adds its own
    predictor's."""

    def __init__(self, sq: np.ndarray, need: float, n_pred: int) -> None:
        self.sq, self.need, self.d = sq, need, n_pred
        shape = sq.shape[1:]
        self.logk = np.empty(shape, np.float32)
        self.K = np.empty(shape, np.float32)
        self.held: tuple[tuple[int, float], ...] | None = None
        self.partial = np.empty(shape, np.float32)
        self.common_kth: np.ndarray | None = None  # each row's k-th nearest summed square

    def __call__(self, h: np.ndarray, moving: int | None = None) -> np.ndarray:
        # 0.5 / h² in single precision, 0 for h = ∞ (in Python: a handful of numbers)
        inv = [np.float32(0.5 / (v * v)) if v < np.inf else np.float32(0.0) for v in h]
        used = [l for l, v in enumerate(inv) if v > 0]
        logk, K, sq = self.logk, self.K, self.sq
        if len(used) == 0:
            K[:] = 1.0
            return K
        common = len(used) == self.d and all(v == inv[0] for v in inv) and len(sq) > self.d
        if common:
            np.multiply(sq[-1], -inv[0], out=logk)  # one bandwidth: the summed squares
        elif moving is None:
            np.multiply(sq[used[0]], -inv[used[0]], out=logk)
            for l in used[1:]:
                logk -= np.multiply(sq[l], inv[l], out=K)
        else:
            held = tuple((int(l), float(inv[l])) for l in used if l != moving)
            if held != self.held:
                self.partial[:] = 0.0
                for l, v in held:
                    self.partial -= np.multiply(sq[l], v, out=K)
                self.held = held
            if inv[moving] > 0:
                np.multiply(sq[moving], -inv[moving], out=logk)
                logk += self.partial
            else:
                logk[:] = self.partial
        np.maximum(logk, -40.0, out=K)  # below e^-40 a weight counts for nothing
        np.exp(K, out=K)
        k = math.ceil(self.need)
        n = K.shape[1]
        if 0 < k <= n:
            sparse = np.flatnonzero(K.sum(axis=1) < self.need)
            if len(sparse):
                every = len(sparse) == len(K)  # every row: in place, no copies
                wide = logk if every else logk[sparse]
                if common:
                    # one bandwidth scales every row's summed squares alike, and their
                    # order with them: the k-th nearest's, sorted once, times -inv is
                    # exactly the k-th largest log-weight
                    if self.common_kth is None:
                        self.common_kth = np.sort(sq[-1], axis=1)[:, k - 1]
                    kth = -np.multiply(
                        self.common_kth if every else self.common_kth[sparse], -inv[0]
                    )
                else:
                    # the k-th largest: a (vectorised) sort of these rows costs less than
                    # a partition
                    kth = -np.sort(wide, axis=1)[:, n - k]
                wide /= np.maximum(2.0 * kth, 1.0)[:, None]
                np.maximum(wide, -40.0, out=wide)
                if every:
                    np.exp(wide, out=K)
                else:
                    K[sparse] = np.exp(wide, out=wide)
        return K


def loo_score(
    Z: np.ndarray,
    t: np.ndarray,
    h: np.ndarray,
    rows: np.ndarray,
    sq: np.ndarray | None = None,
    need: int = 0,
    scale_of: np.ndarray | None = None,
    work: tuple[np.ndarray, np.ndarray] | None = None,
    kernel: np.ndarray | None = None,
    F: np.ndarray | None = None,
) -> float:
    """Leave-one-out loss of column ``t`` at ``rows`` (``inf`` where a window holds a
    single point and leaving it out is undefined): the mean squared leave-one-out residual,
    or with ``scale_of`` (residuals whose log-scale ``t`` is) :func:`scale_loss`.
    ``kernel`` and ``F`` as :func:`loo_fit`."""
    fitted, hat = loo_fit(Z, t[:, None], h, rows, sq, need, work, kernel, F)
    if np.any(hat >= 1.0 - 1e-8):
        return np.inf
    loo_resid = (t[rows] - fitted[:, 0]) / (1.0 - hat)
    if scale_of is not None:
        return scale_loss(scale_of[rows], t[rows] - loo_resid)
    return float(np.mean(loo_resid**2))


def scale_loss(resid: np.ndarray, g: np.ndarray) -> float:
    """Negative mean Gaussian log-likelihood of residuals ``r`` with log-scale ``g`` up to
    a constant, the constant profiled out: ``mean(g) + ½ log mean(r² e^{-2g})`` (the
    quasi-likelihood of a variance function, consistent whatever the residuals' law)."""
    return float(np.mean(g) + 0.5 * np.log(np.mean(resid**2 * np.exp(-2.0 * g))))


def choose_bandwidths(
    Z: np.ndarray,
    t: np.ndarray,
    grid: np.ndarray,
    rows: np.ndarray,
    need: int = 0,
    max_sweeps: int = 2,
    scale_of: np.ndarray | None = None,
    common: dict[tuple[float, ...], float] | None = None,
) -> tuple[np.ndarray, dict[tuple[float, ...], float]]:
    """Per-predictor bandwidths minimising the leave-one-out error of ``t`` (see the module
    notes): the best common bandwidth on ``grid``, then for each predictor in turn the best
    of ``grid`` and ``∞`` with the others held, until a sweep changes nothing. Returns the
    bandwidths and every score computed. ``common``: scores of common bandwidths already
    computed on a rotation of ``Z`` (a window with one bandwidth does not depend on the
    axes)."""
    d = Z.shape[1]
    memo: dict[tuple[float, ...], float] = {} if common is None else dict(common)
    sq = None
    if len(rows) * len(Z) * d <= 4 * BLOCK_ELEMENTS:
        # predictors x rows x n, each predictor's block contiguous (broadcasting the
        # transposes would leave it strided, and every pass over it several times slower)
        sq = np.empty((d + (d > 1), len(rows), len(Z)), np.float32)
        diff, Q = np.empty((len(rows), len(Z))), Z[rows]  # one predictor's, in double
        for l in range(d):
            np.subtract(Q[:, l, None], Z[None, :, l], out=diff)
            np.square(diff, out=sq[l], casting="same_kind")
        if d > 1:
            sq[:d].sum(axis=0, out=sq[d])
    # The scores only rank bandwidths: their kernels in single precision (the weighted
    # moments are summed in it and solved in double), the fits themselves in double.
    work = (
        np.empty((len(rows), len(Z)), np.float32),
        np.empty((len(rows), len(Z)), np.float32),
    )
    kernels = None if sq is None else _LooKernels(sq, need, d)
    F = _features(Z, t[:, None])
    if kernels is not None:  # the kernels are single precision: their products too
        F = F.astype(np.float32)

    Q, t_rows = Z[rows], t[rows]
    P = np.hstack([np.ones((len(rows), 1)), Q])  # the rows' [1, z], kept for every score
    r_rows = None if scale_of is None else scale_of[rows]

    def score(h: np.ndarray, moving: int | None = None) -> float:
        key = tuple(float(v) for v in h)
        if key not in memo:
            if kernels is None:
                memo[key] = loo_score(Z, t, h, rows, sq, need, scale_of, work, None, F)
                return memo[key]
            # loo_score's numbers, with the rows and their [1, z] kept
            fitted, hat = _local_solve(kernels(h, moving), Q, F, 1, h, P)
            if np.any(hat >= 1.0 - 1e-8):
                memo[key] = np.inf
            else:
                loo_resid = (t_rows - fitted[:, 0]) / (1.0 - hat)
                if r_rows is not None:
                    memo[key] = scale_loss(r_rows, t_rows - loo_resid)
                else:
                    memo[key] = float(np.mean(loo_resid**2))
        return memo[key]

    # The common bandwidth: every other grid value, then the neighbours of the best.
    common = {i: score(np.full(d, grid[i])) for i in range(0, len(grid), 2)}
    best = min(common, key=common.get)
    for i in (best - 1, best + 1):
        if 0 <= i < len(grid):
            common[i] = score(np.full(d, grid[i]))
    i = min(common, key=common.get)
    if not np.isfinite(common[i]):
        raise ValueError(
            "local-linear smoothing found no bandwidth with a defined leave-one-out error; "
            "the predictors take too few distinct values. Add data."
        )
    values = np.append(grid, np.inf)
    pos = np.full(d, i)
    if d == 1 or not ANISOTROPIC:
        return values[pos], memo
    top = len(values) - 1  # the index of ∞
    for _ in range(max_sweeps):
        moved = False
        for l in range(d):
            while True:
                if pos[l] == top:
                    options = [top - 1, top]
                else:
                    near = range(max(pos[l] - WINDOW, 0), min(pos[l] + WINDOW, top - 1) + 1)
                    options = sorted({*near, top})
                trials = [np.where(np.arange(d) == l, k, pos) for k in options]
                scores = [score(values[trial], l) for trial in trials]
                k = options[int(np.argmin(scores))]
                if k == pos[l]:
                    break
                pos[l], moved = k, True
        if not moved:
            break
    return values[pos], memo


def curvature_axes(Z: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Orthonormal axes along which ``t`` curves: the eigenvectors of
    ``Σ_i (t_i - t̄) z_i z_iᵀ / n`` (principal Hessian directions, Li 1992, of ``t``), by
    decreasing absolute eigenvalue. A window with one bandwidth per axis can then be narrow
    across a ridge or kink of ``t`` and wide along it, whatever the orientation of ``Z``."""
    Zc = Z - Z.mean(axis=0)
    M = (Zc * (t - t.mean())[:, None]).T @ Zc / len(Z)
    values, vectors = np.linalg.eigh(M)
    return vectors[:, np.argsort(-np.abs(values))]


class LocalLinear(Registered):
    """A fitted local-linear smoother of the columns of ``T`` on ``Z``.

    Parameters
    ----------
    Z : ndarray (n, d)
        Standardised predictors.
    T : ndarray (n,) or (n, m)
        Responses, smoothed column by column.
    bandwidths : array-like, optional
        Candidate bandwidths (standardised units), default :data:`LL_BANDWIDTHS`; each
        column gets one bandwidth per predictor (see the module notes).
    noisy : bool, default False
        The response is noisy whatever its mean (a log absolute residual): windows hold
        more points (:func:`min_points`).
    rotate : bool, default False
        Also try the window's axes on each column's :func:`curvature_axes` (a rotation of
        ``Z``; the local-linear fit itself does not depend on the axes, only the window
        does) and keep the axes with the smaller leave-one-out error: each set of axes gets
        the common bandwidth and one sweep of per-axis steps, and the search goes on
        (a second sweep) only on the axes ahead.
    scale_of : ndarray (n, m), optional
        Residuals whose log-scale the columns of ``T`` are (``T = log |r|``): the bandwidths
        then maximise the residuals' held-out Gaussian likelihood (:func:`scale_loss`),
        which the few very small residuals, far out in the left tail of ``log |r|``, do not
        dominate as they do the squared error.

    Attributes
    ----------
    bandwidth : ndarray (m, d)
        The chosen bandwidths of each column (``inf``: that axis outside the window).
    rotation : ndarray (m, d, d)
        The axes the bandwidths apply to: the window of column ``c`` is on ``Z @ rotation[c]``.
    fitted : ndarray (n, m)
        In-sample fit.
    loo_residuals : ndarray (n, m)
        ``(t_i - t̂_i) / (1 - H_ii)``: each row's residual from the fit without it.

    References
    ----------
    Fan, J. and Gijbels, I. Local Polynomial Modelling and Its Applications. Chapman & Hall,
    1996.

    Seifert, B. and Gasser, T. Finite-sample variance of local polynomials: analysis and
    solutions. Journal of the American Statistical Association 91(433), 1996.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.uniform(-2, 2, (200, 2))
    >>> t = np.sin(2 * z[:, 0]) + 0.1 * rng.standard_normal(200)
    >>> smooth = LocalLinear(z, t)
    >>> bool(np.abs(smooth.predict(np.array([[0.5, 0.0]]))[0, 0] - np.sin(1.0)) < 0.1)
    True
    >>> bool(smooth.bandwidth[0, 1] > smooth.bandwidth[0, 0])  # z2 is irrelevant: wider
    True
    """

    def __init__(
        self,
        Z: np.ndarray,
        T: np.ndarray,
        bandwidths: Any = None,
        noisy: bool = False,
        rotate: bool = False,
        scale_of: np.ndarray | None = None,
    ) -> None:
        Z = np.asarray(Z, dtype=float)
        T = np.asarray(T, dtype=float)
        self.Z = Z
        self.T = T.reshape(len(T), -1)
        grid = np.asarray(LL_BANDWIDTHS if bandwidths is None else bandwidths, dtype=float)
        n, m = self.T.shape
        d = Z.shape[1]
        self.min_points = min_points(n, d, noisy)
        cv_rows = NOISY_CV_ROWS if noisy else CV_ROWS
        rows = np.unique(np.linspace(0, n - 1, min(n, cv_rows)).round().astype(int))
        self.bandwidth = np.empty((m, d))
        self.rotation = np.broadcast_to(np.eye(d), (m, d, d)).copy()
        self.fitted = np.empty_like(self.T)
        self.loo_residuals = np.empty_like(self.T)
        resid = None if scale_of is None else np.asarray(scale_of, float).reshape(n, -1)
        for c in range(m):
            t = self.T[:, c]
            r = None if resid is None else resid[:, c]
            axes = [np.eye(d)] + ([curvature_axes(Z, t)] if rotate and d > 1 else [])
            # With two sets of axes, each gets the common bandwidth and one sweep, and only
            # the better goes on sweeping (its search replayed from its scores): the
            # loser's later sweeps cannot change which axes are kept unless they would
            # overtake, which on the density benchmark's models they did not.
            sweeps = 1 if len(axes) > 1 else 2
            best = (np.inf, None, None, None)
            common = None
            for R in axes:
                h, memo = choose_bandwidths(
                    Z @ R, t, grid, rows, self.min_points, sweeps, scale_of=r, common=common
                )
                common = {k: v for k, v in memo.items() if len(set(k)) == 1}
                score = memo[tuple(float(v) for v in h)]
                if score < best[0]:
                    best = (score, h, R, memo)
            _, h, R, memo = best
            if sweeps < 2:
                h, _ = choose_bandwidths(
                    Z @ R, t, grid, rows, self.min_points, 2, scale_of=r, common=memo
                )
            self.bandwidth[c], self.rotation[c] = h, R
            fitted, hat = loo_fit(
                Z @ self.rotation[c], t[:, None], self.bandwidth[c], need=self.min_points
            )
            self.fitted[:, c] = fitted[:, 0]
            safe = np.maximum(1.0 - hat, 1e-8)
            self.loo_residuals[:, c] = (t - fitted[:, 0]) / safe

    def loo_fitted(self) -> np.ndarray:
        """``t̂_{-i}(z_i)``: each training row's fit from the other rows (n x m)."""
        return self.T - self.loo_residuals

    def predict(self, Q: np.ndarray) -> np.ndarray:
        """Fitted values at the rows of ``Q`` (r x m).

        Weights are formed in logs and scaled by each row's largest, so a point far from
        every training row still gets the fit of its nearest ones.
        """
        Q = np.asarray(Q, dtype=float)
        out = np.empty((len(Q), self.T.shape[1]))
        for c, h in enumerate(self.bandwidth):
            R = self.rotation[c]
            Zr, Qr = self.Z @ R, Q @ R
            F = _features(Zr, self.T[:, c : c + 1])
            for block in _blocks(len(Q), len(self.Z)):
                K = _kernel(Qr[block], Zr, h, self.min_points)
                out[block, c] = _local_solve(K, Qr[block], F, 1, h)[0][:, 0]
        return out


__all__ = [
    "LL_BANDWIDTHS",
    "LocalLinear",
    "choose_bandwidths",
    "curvature_axes",
    "loo_fit",
    "loo_score",
    "scale_loss",
]
