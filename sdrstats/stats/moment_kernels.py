"""The kernels ``M`` of SIR, SAVE and pHd as functions of whitened statistics.

They live below the method families so that more than one family can use them: the moment
family builds its fits on them (after R ``dr``'s standardisation, slicing and weighting), and
LSCE/LSMI use :func:`starting_directions` for deterministic warm starts
without importing the moment family. Everything here works on whitened predictors ``z``
(mean 0, identity covariance), so the leading eigenvectors of ``M`` are directions in the
``z`` scale. :func:`whiten_slice_sums` gets the whitened slice means from weighted slice sums
(a bootstrap replicate's, a stream's), without the rows.
"""

from __future__ import annotations

from typing import NamedTuple

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


class WhitenedSlices(NamedTuple):
    """Moments of :func:`whiten_slice_sums`, stacked over the leading axes ``...`` of its input.

    Parameters
    ----------
    total : ndarray of shape (...)
        ``n = Σ_h n_h``.
    mean : ndarray of shape (..., p)
        ``x̄ − c``.
    cov : ndarray of shape (..., p, p)
        ``Σ̂`` (divisor ``n``).
    scale : ndarray of shape (..., p)
        ``diag(Σ̂)^{1/2}``.
    chol : ndarray of shape (..., p, p)
        Lower Cholesky factor ``L`` of the correlation matrix.
    fractions : ndarray of shape (..., H)
        Slice fractions ``n_h / n``.
    slice_means : ndarray of shape (..., H, p)
        Slice means ``x̄_h − c`` (``x̄ − c`` for an empty slice).
    means : ndarray of shape (..., H, p)
        Whitened slice means ``z̄_h`` (zero for an empty slice).
    """

    total: np.ndarray
    mean: np.ndarray
    cov: np.ndarray
    scale: np.ndarray
    chol: np.ndarray
    fractions: np.ndarray
    slice_means: np.ndarray
    means: np.ndarray


def whiten_slice_sums(counts: np.ndarray, sums: np.ndarray, cross: np.ndarray) -> WhitenedSlices:
    """Whitened slice means ``z̄_h`` from weighted slice counts, slice sums and cross-products.

    The standardisation of R ``dr`` (divisor-``n`` covariance, scaled to a correlation matrix
    and whitened by its Cholesky factor) done on sums instead of rows, for any number of
    stacked sets of sums at once (bootstrap replicates): the SIR kernel is then
    ``sir_kernel(w.fractions, w.means)``.

    Parameters
    ----------
    counts : ndarray of shape (..., H)
        Weighted slice counts ``n_h = Σ_{i∈h} w_i``.
    sums : ndarray of shape (..., H, p)
        Weighted slice sums ``S_h = Σ_{i∈h} w_i (x_i − c)`` about any fixed shift ``c``.
    cross : ndarray of shape (..., p, p)
        Weighted cross-product ``C = Σ_i w_i (x_i − c)(x_i − c)ᵀ`` about the same ``c``.

    Returns
    -------
    WhitenedSlices
        ``total``, ``mean``, ``cov``, ``scale``, ``chol``, ``fractions``, ``slice_means`` and
        ``means``, each stacked over the leading axes of the input.

    Raises
    ------
    ValueError
        When a set of sums carries no weight, or a predictor is constant among its weighted
        rows (for any of the stacked sets).
    numpy.linalg.LinAlgError
        When a correlation matrix is not positive definite (collinear predictors).

    Notes
    -----
    With ``n = Σ_h n_h``, ``x̄ − c = Σ_h S_h / n``, ``Σ̂ = C/n − (x̄ − c)(x̄ − c)ᵀ``,
    ``D = diag(Σ̂)^{1/2}`` and ``L Lᵀ = D⁻¹ Σ̂ D⁻¹``, the whitened slice means are
    ``z̄_h = L⁻¹ D⁻¹ (S_h/n_h − (x̄ − c))``: the slice means of ``z = L⁻¹ D⁻¹ (x − x̄)``,
    whose weighted mean is 0 and covariance the identity (Li 1991). An empty slice gets
    ``z̄_h = 0`` and weight 0, so it adds nothing to a kernel. A direction ``v`` in the ``z``
    scale is ``D⁻¹ L⁻ᵀ v`` in the scale of ``x``.

    References
    ----------
    Li, K.-C. (1991). Sliced inverse regression for dimension reduction. *Journal of the
    American Statistical Association* 86, 316–327.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 2))
    >>> labels = (X[:, 0] > 0).astype(int)
    >>> counts = np.bincount(labels).astype(float)
    >>> sums = np.stack([X[labels == h].sum(axis=0) for h in range(2)])
    >>> w = whiten_slice_sums(counts, sums, X.T @ X)
    >>> bool(np.allclose(w.fractions @ w.means, 0.0))
    True
    >>> M = sir_kernel(w.fractions, w.means)
    >>> int(np.argmax(np.diag(M)))
    0
    """
    counts = np.asarray(counts, dtype=float)
    total = counts.sum(axis=-1)
    if np.any(total <= 0):
        raise ValueError("No rows carry weight in this resample.")
    mean = sums.sum(axis=-2) / total[..., None]
    cov = cross / total[..., None, None] - mean[..., :, None] * mean[..., None, :]
    scale = np.sqrt(np.clip(np.diagonal(cov, axis1=-2, axis2=-1), 0.0, None))
    if np.any(scale <= 1e-12 * np.maximum(scale.max(axis=-1, keepdims=True), 1e-300)):
        raise ValueError("A predictor is constant among the weighted rows.")
    corr = cov / (scale[..., :, None] * scale[..., None, :])
    chol = np.linalg.cholesky((corr + np.swapaxes(corr, -1, -2)) / 2)
    filled = counts > 0
    safe = np.where(filled, counts, 1.0)
    slice_means = np.where(filled[..., None], sums / safe[..., None], mean[..., None, :])
    centred = (slice_means - mean[..., None, :]) / scale[..., None, :]
    means = np.swapaxes(np.linalg.solve(chol, np.swapaxes(centred, -1, -2)), -1, -2)
    fractions = counts / total[..., None]
    return WhitenedSlices(total, mean, cov, scale, chol, fractions, slice_means, means)


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


__all__ = [
    "WhitenedSlices",
    "phd_kernel",
    "save_kernel",
    "sir_kernel",
    "starting_directions",
    "whiten_slice_sums",
]
