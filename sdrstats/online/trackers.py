"""Eigen-trackers for online SIR: the top ``d`` eigenpairs of a slowly changing kernel.

The sparse online SIR (Cheng & Cui 2020, §2.1) tracks the eigenpairs of
``D̂_t = (1/H) d̂_t d̂_tᵀ`` where ``d̂_t`` (p x H) holds the centred slice sums divided by
``t``. ``D̂_t`` itself (p x p) is only formed by the perturbation tracker. Each tracker
updates ``(λ, η)`` after a block of ``m`` new observations (``m = 1`` is Cheng & Cui's
recursion; see :class:`~sdrstats.online.OnlineSIR` for blocks):

* ``perturbation`` (2.7)-(2.8): first-order perturbation of the eigenpairs of the running
  average ``D̄_t`` of the ``D̂``'s; one ``O(p³)`` symmetric eigen-decomposition a step gives
  the pseudo-inverses ``(λ_j I − D̄_t)^+``.
* ``sgd`` (2.9)-(2.10): Sanger's generalised Hebbian step with ``φ_j = d̂ᵀη_j``, followed by
  Gram–Schmidt (QR).
* ``ccipca`` (2.11): candid covariance-free incremental PCA with deflation over ``j``;
  ``λ_j = ‖v_j‖``, ``η_j = v_j/‖v_j‖``.
* ``ipca`` (2.12): Rayleigh–Ritz on ``[η, residual]``, the residual of the slice column(s)
  the block touched.

The O-SIR baselines (Cai, Li & Zhu 2020) track the generalised problem ``D̂β = λΣ̂β``, i.e.
the kernel ``A = Σ̂^{-1}D̂`` that is self-adjoint in the ``Σ̂`` inner product; their
``perturbation`` and ``sgd`` updates are the two functions prefixed ``osir_``.

All functions are pure: arrays in, new arrays out. Step weights are ``w = m/(t+m)``.
"""

from __future__ import annotations

import numpy as np

TRACKERS = ("ccipca", "ipca", "sgd", "perturbation")
#: Pseudo-inverse cut-off of the perturbation trackers, relative to ``λ_j``: the eigen-gap
#: of ``λ_j I − D̄`` along ``η_j`` itself is only the tracking error, not a real gap.
PINV_RELATIVE_CUTOFF = 0.05


def batch_eigen(dhat: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Top ``d`` eigenpairs of ``(1/H) d̂ d̂ᵀ`` through the ``H x H`` Gram matrix."""
    H = dhat.shape[1]
    gram = dhat.T @ dhat / H
    values, vectors = np.linalg.eigh((gram + gram.T) / 2)
    order = np.argsort(-values)[:d]
    values = np.clip(values[order], 0.0, None)
    eta = dhat @ vectors[:, order] / np.sqrt(H)
    norms = np.linalg.norm(eta, axis=0)
    norms[norms == 0] = 1.0
    return values, eta / norms


def _orthonormalize(eta: np.ndarray) -> np.ndarray:
    q, r = np.linalg.qr(eta)
    signs = np.sign(np.diag(r))
    signs[signs == 0] = 1.0
    return q * signs


def ccipca_step(
    eta: np.ndarray, lam: np.ndarray, dhat: np.ndarray, weight: float
) -> tuple[np.ndarray, np.ndarray]:
    """CCIPCA (2.11): ``v_j ← (1−w) v_j + w D̂_(j) v_j/‖v_j‖`` with deflated ``D̂_(j)``.

    ``v_j = λ_j η_j``. The deflated slice matrix is ``d(j) = d(j−1) − u_{j−1}u_{j−1}ᵀd(j−1)``
    with ``u`` the already-updated unit vectors, ``d(1) = d̂``.
    """
    H = dhat.shape[1]
    residual = dhat.copy()
    new_eta, new_lam = np.empty_like(eta), np.empty_like(lam)
    for j in range(eta.shape[1]):
        v = lam[j] * eta[:, j]
        pulled = residual @ (residual.T @ eta[:, j]) / H  # D̂_(j) v_j / ‖v_j‖
        v = (1.0 - weight) * v + weight * pulled
        norm = np.linalg.norm(v)
        u = v / norm if norm > 0 else eta[:, j]
        new_eta[:, j], new_lam[j] = u, norm
        residual -= np.outer(u, u @ residual)
    return new_eta, new_lam


def sgd_step(
    eta: np.ndarray, lam: np.ndarray, dhat: np.ndarray, weight: float
) -> tuple[np.ndarray, np.ndarray]:
    """Stochastic gradient (2.9)-(2.10), Sanger's rule, then Gram–Schmidt.

    ``λ_j ← λ_j + w(φ_jᵀφ_j/H − λ_j)`` and
    ``η_j ← η_j + (w/λ̂_1)(d̂φ_j − Σ_{i≤j} η_i φ_iᵀφ_j)/H``. The step of ``η`` is divided by
    the leading eigenvalue so that it does not depend on the scale of ``D̂`` (Cheng & Cui's
    ``γ_n`` is left unspecified).
    """
    H = dhat.shape[1]
    phi = dhat.T @ eta  # H x d
    cross = phi.T @ phi / H  # d x d, φ_iᵀφ_j / H
    scale = weight / max(float(lam[0]), np.finfo(float).tiny)
    hebbian = dhat @ phi / H - eta @ np.triu(cross)
    new_eta = _orthonormalize(eta + scale * hebbian)
    new_lam = lam + weight * (np.diag(cross) - lam)
    return new_eta, new_lam


def ipca_step(
    eta: np.ndarray, dhat: np.ndarray, touched: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Reduced-rank incremental PCA (2.12): Rayleigh–Ritz of ``D̂`` on ``[η, residual]``.

    ``touched`` lists the slice columns the new observation(s) fell in; their residuals
    ``(I − ηηᵀ) d̂_k`` extend the basis (one column for a single observation, as Cheng & Cui).
    """
    H, d = dhat.shape[1], eta.shape[1]
    cols = dhat[:, touched]
    residual = cols - eta @ (eta.T @ cols)
    q, r = np.linalg.qr(np.column_stack([eta, residual]))
    keep = np.abs(np.diag(r)) > 1e-12 * max(1.0, float(np.abs(r).max()))
    keep[:d] = True
    basis = q[:, keep]
    small = basis.T @ dhat
    values, vectors = np.linalg.eigh(small @ small.T / H)
    order = np.argsort(-values)[:d]
    return basis @ vectors[:, order], np.clip(values[order], 0.0, None)


def _spectral_pinv_apply(
    values: np.ndarray, vectors: np.ndarray, shift: float, rhs: np.ndarray
) -> np.ndarray:
    """``(shift·I − V diag(values) Vᵀ)^+ rhs`` with the relative cut-off."""
    gaps = shift - values
    inv = np.where(
        np.abs(gaps) > PINV_RELATIVE_CUTOFF * abs(shift), 1.0 / np.where(gaps == 0, 1.0, gaps), 0.0
    )
    return vectors @ (inv * (vectors.T @ rhs))


def perturbation_step(
    eta: np.ndarray, lam: np.ndarray, dbar: np.ndarray, dnew: np.ndarray, weight: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Perturbation update (2.7)-(2.8) of the eigenpairs of the running average ``D̄``.

    With ``G = D̄_t − D̂_{t+1}``: ``λ_j ← λ_j − w η_jᵀGη_j``,
    ``η_j ← η_j − w (λ_j I − D̄_t)^+ G η_j``; ``D̄ ← D̄ − wG``. The eigenvectors are
    re-orthonormalised (the first-order update does not keep unit length). Cost ``O(p³)``.
    """
    G = dbar - dnew
    values, vectors = np.linalg.eigh((dbar + dbar.T) / 2)
    Geta = G @ eta
    new_eta = eta.copy()
    for j in range(eta.shape[1]):
        new_eta[:, j] -= weight * _spectral_pinv_apply(values, vectors, lam[j], Geta[:, j])
    new_lam = lam - weight * np.einsum("ij,ij->j", eta, Geta)
    return _orthonormalize(new_eta), new_lam, dbar - weight * G


# -- O-SIR (Cai, Li & Zhu 2020): the generalised problem D̂β = λΣ̂β ---------------------------


def sigma_orthonormalize(beta: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Columns with ``βᵀΣβ = I`` (Gram–Schmidt in the Σ inner product, by Cholesky)."""
    gram = beta.T @ sigma @ beta
    chol = np.linalg.cholesky((gram + gram.T) / 2 + 1e-300 * np.eye(len(gram)))
    return np.linalg.solve(chol, beta.T).T


def woodbury_update(sigma_inv: np.ndarray, scale: float, U: np.ndarray) -> np.ndarray:
    """``(scale·Σ + U Uᵀ)^{-1}`` from ``Σ^{-1}`` (Sherman–Morrison when ``U`` has one column)."""
    base = sigma_inv / scale
    BU = base @ U
    core = np.eye(U.shape[1]) + U.T @ BU
    return base - BU @ np.linalg.solve(core, BU.T)


def osir_batch(dhat: np.ndarray, sigma: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Top ``d`` generalised eigenpairs of ``(D̂, Σ̂)``, ``βᵀΣ̂β = I``."""
    import scipy.linalg

    H = dhat.shape[1]
    D = dhat @ dhat.T / H
    values, vectors = scipy.linalg.eigh((D + D.T) / 2, (sigma + sigma.T) / 2)
    order = np.argsort(-values)[:d]
    return np.clip(values[order], 0.0, None), vectors[:, order]


def osir_sgd_step(
    beta: np.ndarray,
    lam: np.ndarray,
    dhat: np.ndarray,
    sigma: np.ndarray,
    sigma_inv: np.ndarray,
    weight: float,
) -> tuple[np.ndarray, np.ndarray]:
    """O-SIR gradient update: Sanger's rule for ``A = Σ^{-1}D̂`` in the Σ inner product.

    ``β_j ← β_j + (w/λ̂_1)(Aβ_j − Σ_{i≤j} β_i ⟨β_i, Aβ_j⟩_Σ)``, then Σ-orthonormalised;
    ``λ_j ← λ_j + w(⟨β_j, Aβ_j⟩_Σ − λ_j)``. ``Σ^{-1}`` comes from Sherman–Morrison updates.
    """
    H = dhat.shape[1]
    phi = dhat.T @ beta
    cross = phi.T @ phi / H  # ⟨β_i, Aβ_j⟩_Σ = β_iᵀ D̂ β_j
    A_beta = sigma_inv @ (dhat @ phi) / H
    scale = weight / max(float(lam[0]), np.finfo(float).tiny)
    new_beta = sigma_orthonormalize(beta + scale * (A_beta - beta @ np.triu(cross)), sigma)
    return new_beta, lam + weight * (np.diag(cross) - lam)


def osir_perturbation_step(
    beta: np.ndarray,
    lam: np.ndarray,
    abar: np.ndarray,
    anew: np.ndarray,
    sigma: np.ndarray,
    weight: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """O-SIR perturbation update: Lemma 1 for ``Ā`` (running mean of ``Σ̂_t^{-1}D̂_t``).

    ``G = Ā − A_new``; ``λ_j ← λ_j − w⟨β_j, Gβ_j⟩_Σ``;
    ``β_j ← β_j − w(λ_j I − Ā)^+ Gβ_j`` (pseudo-inverse by SVD, ``O(p³)`` per direction).
    """
    G = abar - anew
    Gbeta = G @ beta
    new_beta = beta.copy()
    for j in range(beta.shape[1]):
        u, s, vt = np.linalg.svd(lam[j] * np.eye(len(abar)) - abar)
        inv = np.where(s > PINV_RELATIVE_CUTOFF * abs(lam[j]), 1.0 / np.maximum(s, 1e-300), 0.0)
        new_beta[:, j] -= weight * (vt.T @ (inv * (u.T @ Gbeta[:, j])))
    new_lam = lam - weight * np.einsum("ij,ij->j", beta, sigma @ Gbeta)
    return sigma_orthonormalize(new_beta, sigma), new_lam, abar - weight * G


__all__ = [
    "TRACKERS",
    "batch_eigen",
    "ccipca_step",
    "sgd_step",
    "ipca_step",
    "perturbation_step",
    "osir_batch",
    "osir_sgd_step",
    "osir_perturbation_step",
    "sigma_orthonormalize",
    "woodbury_update",
]
