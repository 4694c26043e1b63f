"""The kernels ``M`` of SIR, SAVE and pHd as functions of whitened statistics.

They live below the method families so that more than one family can use them: the moment
family builds its fits on them (after R ``dr``'s standardisation, slicing and weighting), and
LSCE/LSMI use :func:`starting_directions` for deterministic warm starts
without importing the moment family. Everything here works on whitened predictors ``z``
(mean 0, identity covariance), so the leading eigenvectors of ``M`` are directions in the
``z`` scale.
"""

from __future__ import annotations

import numpy as np

from .linalg import sym_eigh_desc
from .slicing import default_nslices, make_slices


def sir_kernel(fractions: np.ndarray, means: np.ndarray) -> np.ndarray:
    """SIR (Li 1991): ``M = Σ_s f_s z̄_s z̄_sᵀ`` from slice fractions and slice means of ``z``.

    Examples
    --------
    >>> sir_kernel(np.array([0.5, 0.5]), np.array([[1.0, 0.0], [-1.0, 0.0]]))
    array([[1., 0.],
           [0., 0.]])
    """
    return means.T @ (means * fractions[:, None])


def save_kernel(fractions: np.ndarray, within: np.ndarray) -> np.ndarray:
    """SAVE (Cook & Weisberg 1991): ``M = Σ_s f_s (I − V_s)²``, ``V_s`` the within-slice
    covariances of ``z`` (stacked ``(h, p, p)``, divisor ``n_s``).

    Examples
    --------
    >>> save_kernel(np.array([1.0]), np.eye(2)[None] * 0.5)
    array([[0.25, 0.  ],
           [0.  , 0.25]])
    """
    A = np.eye(within.shape[1])[None] - within
    # one stacked product and a sum over slices: einsum's three-operand loop is ~15 times slower
    return ((A * fractions[:, None, None]) @ A).sum(axis=0)


def phd_kernel(Z: np.ndarray, weighted_residual: np.ndarray, total: float) -> np.ndarray:
    """pHd (Li 1992): ``M = (1/n) Σ_i r_i z_i z_iᵀ`` for residuals ``r`` (times case weights).

    Examples
    --------
    >>> phd_kernel(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([2.0, -2.0]), 2.0)
    array([[ 1.,  0.],
           [ 0., -1.]])
    """
    # Σ r_i z_i z_iᵀ as the difference of two Gram matrices, of the rows with r > 0 and with
    # r < 0 each scaled by sqrt|r|: two symmetric rank-k updates (BLAS syrk) do half the
    # work of the general product Zᵀ(Z r) and round alike
    r = np.asarray(weighted_residual, dtype=float)
    positive = r > 0
    negative = r < 0
    up = Z[positive] * np.sqrt(r[positive])[:, None]
    down = Z[negative] * np.sqrt(-r[negative])[:, None]
    M = up.T @ up
    M -= down.T @ down
    return M / total


def starting_directions(
    Z: np.ndarray, Y: np.ndarray, d: int, nslices: int | None = None
) -> dict[str, np.ndarray]:
    """Leading ``d`` eigenvectors of the SIR, SAVE and pHd kernels of whitened ``Z``.

    ``Y`` is ``(n,)``/``(n, q)`` continuous (nested slicing for ``q > 1``) or integer class
    codes (one slice per class; pHd, which needs a numeric response, is then left out, as it is
    for ``q > 1``). Returns ``{"sir": W, "save": W, "phd": W}``, each ``d x p`` with orthonormal
    rows; a kernel that is zero or not finite is left out.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> Z = rng.standard_normal((200, 3))
    >>> starts = starting_directions(Z, Z[:, 1] + 0.1 * rng.standard_normal(200), 1)
    >>> int(np.abs(starts["sir"]).argmax())
    1
    """
    n, p = Z.shape
    categorical = Y.ndim == 1 and Y.dtype.kind in "iu"
    slices = make_slices(Y, nslices or default_nslices(p), categorical=categorical)
    counts = np.bincount(slices.labels, minlength=slices.nslices).astype(float)
    fractions = counts / n
    means = np.zeros((slices.nslices, p))
    within = np.zeros((slices.nslices, p, p))
    for s in range(slices.nslices):
        block = Z[slices.labels == s]
        means[s] = block.mean(axis=0)
        centred = block - means[s]
        within[s] = centred.T @ centred / counts[s]
    kernels = {"sir": sir_kernel(fractions, means), "save": save_kernel(fractions, within)}
    if not categorical and (Y.ndim == 1 or Y.shape[1] == 1):
        y = Y.reshape(-1).astype(float)
        r = y - y.mean()
        r = r - Z @ (Z.T @ r) / n  # OLS residuals (R's phdres): ZᵀZ ≈ n I after whitening
        kernels["phd"] = phd_kernel(Z, r, n)
    out = {}
    for name, M in kernels.items():
        if not np.all(np.isfinite(M)) or not np.any(M):
            continue
        _, vectors = sym_eigh_desc((M + M.T) / 2, by_abs=name == "phd")
        out[name] = np.ascontiguousarray(vectors[:, :d].T)
    return out


__all__ = ["phd_kernel", "save_kernel", "sir_kernel", "starting_directions"]
