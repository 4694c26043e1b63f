"""OPG, MAVE and kernel SIR on whitened predictors (arrays only).

Notation: ``Z`` (n, p) whitened predictors, ``T`` (n, m) targets — the standardised response
columns for the mean-subspace methods, the Gaussian ``y``-kernel ``φ_b(y_i − t_k)`` at ``m``
response quantiles ``t_k`` for the central-subspace methods (Xia 2007), class indicators for a
categorical response. A ``k``-dimensional solution is a ``p × k`` orthonormal matrix in ``Z``
coordinates.

Refinement (Xia et al. 2002, section 3; Xia 2007, section 3): the first OPG step localises with
a ``p``-dimensional kernel of bandwidth ``h0 = c0 n^{-1/(p0+4)}``; each refinement localises on
the current ``k`` directions, ``w_ij = K_h(Bᵀ(Z_i − Z_j))``, with ``h`` shrunk by
``r_n = n^{-1/(2(p0+4))}`` per iteration until it reaches ``c0 n^{-1/(k+4)}``, and iterates until
the subspace moves less than ``tol`` (projection distance) or ``max_iter`` is reached.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .local import (
    blocks,
    kernel_block,
    local_moments,
    moment_features,
    outer_product_of_gradients,
    rule_of_thumb,
    shrink_factor,
    solve_local,
)


@dataclass
class Solution:
    """The ``k``-dimensional solution in ``Z`` coordinates and how it was reached."""

    basis: np.ndarray
    eigenvalues: np.ndarray
    iterations: int
    converged: bool
    bandwidth: float
    changes: list[float] = field(default_factory=list)


def top_eigenvectors(M: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Leading ``k`` eigenpairs of a symmetric matrix, decreasing."""
    values, vectors = np.linalg.eigh((M + M.T) / 2.0)
    order = np.argsort(-values, kind="stable")[:k]
    return values[order], vectors[:, order]


def subspace_change(a: np.ndarray, b: np.ndarray) -> float:
    """Projection distance between two orthonormal bases."""
    return float(np.linalg.norm(a @ a.T - b @ b.T))


def _bandwidths(n: int, p: int, k: int, fixed: float | None) -> tuple[float, float, float]:
    if fixed is not None:
        return fixed, fixed, 1.0
    return rule_of_thumb(n, max(p, 3)), rule_of_thumb(n, k), shrink_factor(n, p)


def refined_opg(
    Z: np.ndarray,
    T: np.ndarray,
    k: int,
    start: np.ndarray,
    *,
    bandwidth: float | None,
    max_iter: int,
    tol: float,
    obs_weights: np.ndarray | None,
) -> Solution:
    """Refined OPG (Xia et al. 2002 rOPG; Xia 2007 csOPG) for dimension ``k``."""
    n, p = Z.shape
    h, h_floor, rate = _bandwidths(n, p, k, bandwidth)
    basis = start[:, :k]
    changes: list[float] = []
    converged = False
    values = np.zeros(k)
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is reported
        h = max(h * rate, h_floor)
        M = outer_product_of_gradients(Z, T, Z @ basis, h, obs_weights)
        values, new = top_eigenvectors(M, k)
        changes.append(subspace_change(basis, new))
        basis = new
        if changes[-1] < tol and h <= h_floor:
            converged = True
            break
    return Solution(basis, values, it, converged, h, changes)


def _mave_step(
    Z: np.ndarray, T: np.ndarray, basis: np.ndarray, h: float, obs_weights: np.ndarray | None
) -> np.ndarray:
    """One MAVE iteration: local fits on ``Z B`` given ``B``, then ``B`` given the fits.

    Returns the new ``B`` before orthonormalisation.
    """
    n, p = Z.shape
    k = basis.shape[1]
    V = Z @ basis
    lhs = np.zeros((k, p, k, p))
    rhs = np.zeros((p, k))
    local_features = moment_features(V, T)
    no_targets = np.empty((n, 0))
    full_features = moment_features(Z, no_targets)
    per_row = local_features.shape[1] + full_features.shape[1] + n * k
    for blk in blocks(n, per_row):
        W = kernel_block(V, blk, h, obs_weights)
        intercept, slopes = solve_local(local_moments(W, V, T, blk, local_features))
        full = local_moments(W, Z, no_targets, blk, full_features)
        omega = np.ones(W.shape[0]) if obs_weights is None else obs_weights[blk]
        C = np.einsum("jam,jbm->jab", slopes, slopes) * omega[:, None, None]
        # B-step normal equations (column-major vec(B)): Σ_j C_j ⊗ S_j vec(B) = Σ_j vec(G_j),
        # G_j = Σ_i w_ij (Z_i − Z_j) e_ijᵀ with e_ij = c_j (T_i − a_j) ∈ R^k; expanding it
        # avoids the (p × m) moment Σ_i w_ij Z_i T_iᵀ: cost n² k (m + p) instead of n² p m.
        lhs += np.einsum("jlm,jab->lamb", C, full.s2)
        b = W.shape[0]
        e = (T @ slopes.reshape(b * k, -1).T).reshape(n, b, k)  # e[i, j, l] = (c_j T_i)_l
        G = np.stack([(W * e[:, :, col].T) @ Z for col in range(k)], axis=2)
        wt = W @ T
        G -= Z[blk][:, :, None] * np.einsum("jlm,jm->jl", slopes, wt)[:, None, :]
        G -= full.s1[:, :, None] * np.einsum("jlm,jm->jl", slopes, intercept)[:, None, :]
        rhs += np.einsum("j,jal->al", omega, G)
    size = k * p
    lhs = lhs.reshape(size, size)
    lhs += 1e-10 * np.trace(lhs) / size * np.eye(size)
    beta = np.linalg.solve(lhs, rhs.T.reshape(size))
    return beta.reshape(k, p).T


def gradient_outer(
    Z: np.ndarray, T: np.ndarray, basis: np.ndarray, h: float, obs_weights: np.ndarray | None
) -> np.ndarray:
    """``(1/n) Σ_j ω_j Σ_k c_jk c_jkᵀ`` of local-linear gradients on ``Z B`` (k × k)."""
    V = Z @ basis
    n, k = V.shape
    out = np.zeros((k, k))
    features = moment_features(V, T)
    for blk in blocks(n, features.shape[1]):
        W = kernel_block(V, blk, h, obs_weights)
        _, slopes = solve_local(local_moments(W, V, T, blk, features))
        omega = np.ones(W.shape[0]) if obs_weights is None else obs_weights[blk]
        out += np.einsum("j,jam,jbm->ab", omega, slopes, slopes)
    return out / (n if obs_weights is None else float(obs_weights.sum()))


def refined_mave(
    Z: np.ndarray,
    T: np.ndarray,
    k: int,
    start: np.ndarray,
    *,
    bandwidth: float | None,
    max_iter: int,
    tol: float,
    obs_weights: np.ndarray | None,
) -> Solution:
    """Refined MAVE (Xia et al. 2002 rMAVE; Xia 2007 csMAVE/dMAVE) for dimension ``k``.

    Alternates the local-linear fits ``(a_jk, c_jk)`` on ``Bᵀ(Z_i − Z_j)`` and the weighted
    least-squares update of ``B``, whose columns are then orthonormalised and ordered by the
    eigen-decomposition of the average outer product of the fitted gradients.
    """
    n, p = Z.shape
    h, h_floor, rate = _bandwidths(n, p, k, bandwidth)
    basis = start[:, :k]
    changes: list[float] = []
    converged = False
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is reported
        h = max(h * rate, h_floor)
        raw = _mave_step(Z, T, basis, h, obs_weights)
        new, _ = np.linalg.qr(raw)
        changes.append(subspace_change(basis, new))
        basis = new
        if changes[-1] < tol and h <= h_floor:
            converged = True
            break
    # order the columns by the gradient variance they carry (rotation within the span)
    values, rotation = top_eigenvectors(gradient_outer(Z, T, basis, h, obs_weights), k)
    return Solution(basis @ rotation, values, it, converged, h, changes)


def kernel_sir(
    Z: np.ndarray,
    T: np.ndarray,
    y_kernel: np.ndarray | None,
    b: float | None,
    obs_weights: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Kernel SIR (Zhu & Fang 1996; Xia et al. 2002): eigen-decomposition of ``E[m m^T]``.

    ``m(y_i) = Σ_j K_b(y_j − y_i) Z_j / Σ_j K_b(y_j − y_i)`` (Nadaraya–Watson estimate of the
    inverse regression curve); for a categorical response the class means. Returns all ``p``
    eigenvalues and eigenvectors.
    """
    n, p = Z.shape
    w = np.ones(n) if obs_weights is None else obs_weights
    if y_kernel is None:  # class indicators: the curve is the class mean
        counts = T.T @ w
        means = (T * w[:, None]).T @ Z / counts[:, None]
        curve = T @ means
    else:
        curve = np.empty_like(Z)
        for blk in blocks(n, 1):
            K = kernel_block(y_kernel, blk, b, w)
            curve[blk] = (K @ Z) / K.sum(axis=1)[:, None]
    M = (curve * w[:, None]).T @ curve / w.sum()
    return top_eigenvectors(M, p)


def initial_opg(
    Z: np.ndarray, T: np.ndarray, bandwidth: float | None, obs_weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, float]:
    """First OPG step with a ``p``-dimensional kernel; all eigenpairs and the bandwidth."""
    n, p = Z.shape
    h = bandwidth if bandwidth is not None else rule_of_thumb(n, max(p, 3))
    M = outer_product_of_gradients(Z, T, Z, h, obs_weights)
    values, vectors = top_eigenvectors(M, p)
    return values, vectors, h


__all__ = [
    "Solution",
    "refined_opg",
    "refined_mave",
    "kernel_sir",
    "initial_opg",
    "top_eigenvectors",
    "subspace_change",
]
