"""KDR objectives: ``f(W) = Tr[G̃_Y (G̃_S + nεI)^{-1}]`` and its gradient in ``W``.

:class:`KDRObjective` forms the n×n Gram matrix of the projections ``s = W z`` (exact,
``O(n³)`` per evaluation). :class:`FourierKDRObjective` replaces it by random Fourier features,
``G_S ≈ F Fᵀ`` with ``F`` n×m (Rahimi & Recht 2007), and inverts through the Woodbury identity:
``O(n m²)`` per evaluation, for n in the thousands and beyond. Both take ``G̃_Y = R̃ R̃ᵀ``
through a factor ``R``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.spatial.distance import cdist


class KDRObjective:
    """``f(W) = Tr[R̃ᵀ (G̃_S + nεI)^{-1} R̃]`` and its gradient, ``R̃ R̃ᵀ = G̃_Y``.

    Parameters
    ----------
    Z : ndarray (n, p)
        Whitened predictors.
    response_factor : ndarray (n, r)
        Factor ``R`` of the response Gram matrix (centred here).
    sigma : float
        Width of the Gaussian kernel ``exp(−‖s − s'‖² / (2σ²))`` on the projections.
    eps : float
        Regularisation ``ε``.
    """

    def __init__(self, Z: np.ndarray, response_factor: np.ndarray, sigma: float, eps: float):
        self.Z = Z
        self.R = response_factor - response_factor.mean(axis=0)
        self.sigma = sigma
        self.eps = eps

    def __call__(self, W: np.ndarray) -> tuple[float, np.ndarray]:
        n = len(self.Z)
        S = self.Z @ W.T
        G = np.exp(-cdist(S, S, "sqeuclidean") / (2 * self.sigma**2))
        Gc = G - G.mean(axis=0)[None, :]
        Gc = Gc - Gc.mean(axis=1)[:, None]
        A = Gc + n * self.eps * np.eye(n)
        factor = scipy.linalg.cho_factor(A, lower=True)
        Q = scipy.linalg.cho_solve(factor, self.R)
        value = float(np.sum(self.R * Q))
        # ∂f/∂G_ij = −(QQᵀ)_ij (Q is centred, so H QQᵀ H = QQᵀ); chain through s_i = W z_i.
        P = (Q @ Q.T) * G
        laplacian = np.diag(P.sum(axis=1)) - P
        grad = (2.0 / self.sigma**2) * (S.T @ laplacian @ self.Z)
        return value, grad


class FourierKDRObjective:
    """KDR objective with random Fourier features for the projection kernel.

    ``G_S ≈ F Fᵀ``, ``F_ik = sqrt(2/m) cos(ω_kᵀ s_i + b_k)``, ``ω_k = ω⁰_k / σ`` with fixed
    standard-normal ``ω⁰`` (m×d) and phases ``b`` uniform on [0, 2π), so annealing ``σ`` rescales
    one draw. With ``F̃ = HF`` and ``c = nε``:
    ``(F̃F̃ᵀ + cI)^{-1} R̃ = (R̃ − F̃ (cI + F̃ᵀF̃)^{-1} F̃ᵀR̃) / c``.

    Parameters
    ----------
    Z, response_factor, sigma, eps : as :class:`KDRObjective`
    omega : ndarray (m, d)
        Standard-normal frequencies.
    phase : ndarray (m,)
        Phases in [0, 2π).
    """

    def __init__(
        self,
        Z: np.ndarray,
        response_factor: np.ndarray,
        sigma: float,
        eps: float,
        omega: np.ndarray,
        phase: np.ndarray,
    ):
        self.Z = Z
        self.R = response_factor - response_factor.mean(axis=0)
        self.sigma = sigma
        self.eps = eps
        self.omega = omega / sigma
        self.phase = phase

    def __call__(self, W: np.ndarray) -> tuple[float, np.ndarray]:
        n, m = len(self.Z), len(self.phase)
        scale = np.sqrt(2.0 / m)
        theta = self.Z @ (W.T @ self.omega.T) + self.phase
        F = scale * np.cos(theta)
        Fc = F - F.mean(axis=0)
        c = n * self.eps
        inner = c * np.eye(m) + Fc.T @ Fc
        Q = (self.R - Fc @ scipy.linalg.solve(inner, Fc.T @ self.R, assume_a="pos")) / c
        value = float(np.sum(self.R * Q))
        # ∂f/∂F = −2 H QQᵀ H F = −2 Q (Qᵀ F) (Q is centred); chain through θ = Z Wᵀ Ωᵀ + b.
        dF = -2.0 * Q @ (Q.T @ F)
        dtheta = dF * (-scale * np.sin(theta))
        grad = self.omega.T @ (dtheta.T @ self.Z)
        return value, grad


__all__ = ["KDRObjective", "FourierKDRObjective"]
