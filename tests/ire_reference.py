"""IRE's ``Γ_ζ`` computed row by row, as R ``dr``'s ``Gzcomp.ire`` writes it: the reference the
package's accumulated sums are checked against (the package itself never forms the rows)."""

import numpy as np
import scipy.linalg


def gamma_factor(
    Z: np.ndarray,
    labels: np.ndarray,
    fractions: np.ndarray,
    means: np.ndarray,
    contrasts: np.ndarray,
) -> np.ndarray:
    """Upper Cholesky factor ``G`` of ``Γ_ζ = Gᵀ G`` from the rows: the covariance (divisor n)
    of ``vec(z_i ε_iᵀ A)`` with ``ε_i = e_{s(i)} − f − (z_iᵀ ξ̃) diag(f)`` (``means`` is ξ̃)."""
    n, p = Z.shape
    resid = -fractions[None, :] - (Z @ means) * fractions[None, :]
    resid[np.arange(n), labels] += 1.0
    projected = resid @ contrasts  # n × (h−1)
    h1 = projected.shape[1]
    # row i is vec(z_i (Aᵀε_i)ᵀ) in column-major order: entry s*p + j is z_ij * (Aᵀε_i)_s
    g = np.einsum("ij,is->isj", Z, projected).reshape(n, h1 * p)
    centred = g - g.mean(axis=0)
    cov = centred.T @ centred / n
    return scipy.linalg.cholesky((cov + cov.T) / 2, lower=False)
