"""Kernel-weighted local moments, batched over blocks of centres, for OPG and MAVE.

Every local-linear step solves, at each centre ``j``, a weighted least-squares problem

.. math:: \\min_{a_j, b_j} \\sum_i w_{ij} \\{T_i - a_j - b_j^\\top (D_i - D_j)\\}^2

for a matrix of targets ``T`` (one column per transformed response) and local coordinates
``D`` (the whitened predictors). The problems of all centres share one structure: their
weighted moments ``s0``, ``S1``, ``S2`` and right-hand sides, centred at ``D_j``, come from one
matrix product of the kernel weights with the columns ``[D, D⊗D, T, D⊗T]``, so there is no
Python loop over centres, only over blocks whose size keeps memory near ``block_bytes``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np


def blocks(
    n: int, per_row: int, block_bytes: float = 6.4e7, n_rows: int | None = None
) -> Iterator[slice]:
    """Slices of ``n`` centres so that a block's arrays stay near ``block_bytes``.

    A block of ``b`` centres holds a few ``(b, n_rows)`` kernel arrays (``n_rows`` defaults to
    ``n``: every row is a centre) and ``(b, per_row)`` results.

    Examples
    --------
    >>> [(s.start, s.stop) for s in blocks(10, 5, block_bytes=8 * 4 * 10 * 4)]
    [(0, 3), (3, 6), (6, 9), (9, 10)]
    """
    rows = n if n_rows is None else n_rows
    size = int(max(1, min(n, block_bytes // (8.0 * (4 * rows + per_row)))))
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


def kernel_block(
    V: np.ndarray, centres: slice, h: float, obs_weights: np.ndarray | None
) -> np.ndarray:
    """Gaussian weights ``ω_i exp(−‖V_i − V_j‖² / 2h²)``, centres ``j`` (rows) by all ``i``."""
    Vc = V[centres]
    sq = np.sum(Vc**2, axis=1)[:, None] + np.sum(V**2, axis=1)[None, :] - 2.0 * Vc @ V.T
    np.maximum(sq, 0.0, out=sq)
    W = np.exp(sq * (-0.5 / h**2))
    if obs_weights is not None:
        W *= obs_weights[None, :]
    return W


@dataclass
class LocalMoments:
    """Weighted local moments of one block of centres, in centred coordinates ``D_i - D_j``.

    ``s0`` (b,), ``s1`` (b, r), ``s2`` (b, r, r), ``wt`` = Σ w T (b, m), ``wdt`` = Σ w (D_i - D_j) T_iᵀ
    (b, r, m).
    """

    s0: np.ndarray
    s1: np.ndarray
    s2: np.ndarray
    wt: np.ndarray
    wdt: np.ndarray


def moment_features(D: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Columns ``[D, D⊗D, T, D⊗T]`` whose kernel-weighted sums give every local moment."""
    n, r = D.shape
    return np.concatenate(
        [
            D,
            (D[:, :, None] * D[:, None, :]).reshape(n, r * r),
            T,
            (D[:, :, None] * T[:, None, :]).reshape(n, -1),
        ],
        axis=1,
    )


def local_moments(
    W: np.ndarray,
    D: np.ndarray,
    T: np.ndarray,
    centres: slice | np.ndarray,
    features: np.ndarray | None = None,
) -> LocalMoments:
    """Moments of the local-linear normal equations for a block: one matrix product.

    ``W`` holds the kernel weights of the centres ``centres`` (rows) on every row of ``D``;
    ``features`` (from :func:`moment_features`) may be passed in when ``D`` and ``T`` do not
    change between blocks.
    """
    r, m = D.shape[1], T.shape[1]
    Dc = D[centres]
    F = moment_features(D, T) if features is None else features
    s0 = W.sum(axis=1)
    sums = W @ F
    s1 = sums[:, :r]
    s2 = sums[:, r : r + r * r].reshape(-1, r, r)
    wt = sums[:, r + r * r : r + r * r + m]
    wdt = sums[:, r + r * r + m :].reshape(len(s0), r, m)
    # centre at D_j: sum w (D_i - D_j)(D_i - D_j)^T = S2 - S1 Dj^T - Dj S1^T + s0 Dj Dj^T
    s2 = (
        s2
        - s1[:, :, None] * Dc[:, None, :]
        - Dc[:, :, None] * s1[:, None, :]
        + s0[:, None, None] * Dc[:, :, None] * Dc[:, None, :]
    )
    s1 = s1 - s0[:, None] * Dc
    wdt = wdt - Dc[:, :, None] * wt[:, None, :]
    return LocalMoments(s0, s1, s2, wt, wdt)


__all__ = ["blocks", "kernel_block", "LocalMoments", "moment_features", "local_moments"]
