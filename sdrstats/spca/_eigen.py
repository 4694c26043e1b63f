"""The eigenproblem of ``Ψ Ψᵀ`` shared by the SPCA fits (rows or accumulated statistics)."""

from __future__ import annotations

import numpy as np
import scipy.linalg

#: Eigenvalues below this fraction of the largest count as zero when finding the rank.
RANK_TOL = 1e-10


def top_eigen(psi: np.ndarray, solver: str) -> tuple[np.ndarray, np.ndarray, str]:
    """Non-zero eigenpairs of ``Ψ Ψᵀ`` in decreasing order, by the primal or dual route.

    Returns eigenvalues, orthonormal eigenvectors (p×K, K = numerical rank) and the route
    used. ``solver="auto"`` takes the dual when ``Ψ`` has fewer columns than rows.
    """
    p, r = psi.shape
    if solver == "auto":
        solver = "dual" if r < p else "primal"
    if solver == "primal":
        values, vectors = scipy.linalg.eigh(psi @ psi.T)
        values, vectors = values[::-1], vectors[:, ::-1]
        keep = values > max(values[0], 0.0) * RANK_TOL
        return values[keep], vectors[:, keep], solver
    # dual: Ψ = Û Σ V̂ᵀ, ΨᵀΨ = V̂ Σ² V̂ᵀ, Û = Ψ V̂ Σ⁻¹
    values, vectors = scipy.linalg.eigh(psi.T @ psi)
    values, vectors = values[::-1], vectors[:, ::-1]
    keep = values > max(values[0], 0.0) * RANK_TOL
    values, vectors = values[keep], vectors[:, keep]
    directions = psi @ vectors / np.sqrt(values)
    return values, directions, solver


def check_rank(d: int | None, rank: int, method: str, why: str) -> int:
    """Default ``d = min(2, rank)``; an explicit ``d`` above the rank is an error."""
    if rank == 0:
        raise ValueError(
            f"{method} found no direction with positive HSIC: the predictors "
            "do not vary along the response kernel. Check the data."
        )
    if d is None:
        return min(2, rank)
    if d > rank:
        raise ValueError(
            f"The 'd' option of {method} must be at most the rank of the HSIC matrix, "
            f"{rank} here ({why}); got d = {d}. Use a smaller d{_remedy(method)}."
        )
    return d


def _remedy(method: str) -> str:
    return ", kernel_y='rbf', or add_identity > 0" if method in ("spca", "kspca") else ""


__all__ = ["RANK_TOL", "check_rank", "top_eigen"]
