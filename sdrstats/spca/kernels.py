"""Kernels of the supervised-PCA family: predictor kernels and low-rank response factors.

Every response kernel ``L`` is used through a factor ``Δ`` (``L = Δ Δᵀ``, ``Δ`` is n×r), so
``Xᵀ H L H X = (Xᵀ H Δ)(Xᵀ H Δ)ᵀ`` never forms the n×n matrix when ``r`` is small
(linear kernel: ``r = q``; delta kernel: ``r`` = number of classes).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse
from scipy.spatial.distance import cdist

RESPONSE_KERNELS = ("linear", "delta", "rbf", "identity")
PREDICTOR_KERNELS = ("rbf", "poly", "linear")

#: Pairwise distances for the median heuristic come from at most this many rows.
_MEDIAN_ROWS = 1000


def median_gamma(X: np.ndarray, rng: np.random.Generator | None = None) -> float:
    """``1 / median(‖x_i − x_j‖²)`` over distinct pairs (at most 1000 rows, drawn by ``rng``).

    Examples
    --------
    >>> median_gamma(np.array([[0.0], [1.0], [3.0]]))
    0.25
    """
    X = np.asarray(X, dtype=float).reshape(len(X), -1)
    if len(X) > _MEDIAN_ROWS:
        rng = rng if rng is not None else np.random.default_rng(0)
        X = X[rng.choice(len(X), _MEDIAN_ROWS, replace=False)]
    sq = cdist(X, X, "sqeuclidean")[np.triu_indices(len(X), k=1)]
    sq = sq[sq > 0]
    if sq.size == 0:
        return 1.0
    return float(1.0 / np.median(sq))


def predictor_kernel(
    A: np.ndarray, B: np.ndarray, kernel: str, gamma: float, degree: int, coef0: float
) -> np.ndarray:
    """Gram matrix ``k(a_i, b_j)`` of the rbf, poly or linear kernel."""
    if kernel == "rbf":
        return np.exp(-gamma * cdist(A, B, "sqeuclidean"))
    if kernel == "poly":
        return (gamma * (A @ B.T) + coef0) ** degree
    return A @ B.T


def one_hot(codes: np.ndarray) -> np.ndarray:
    """n×c indicator matrix of integer class codes (empty classes dropped)."""
    codes = np.asarray(codes)
    if codes.dtype.kind not in "iu" or codes.min() < 0:
        codes = np.unique(codes, return_inverse=True)[1].reshape(-1)
    out = np.zeros((len(codes), int(codes.max()) + 1))
    out[np.arange(len(codes)), codes] = 1.0
    present = out.any(axis=0) if out.shape[1] > 1 else np.ones(1, dtype=bool)
    return out if present.all() else out[:, present]


def sparse_one_hot(codes: np.ndarray) -> scipy.sparse.csr_array:
    """n×c sparse indicator matrix of non-negative integer class codes (empty classes dropped)."""
    codes = np.asarray(codes)
    counts = np.bincount(codes)
    present = np.flatnonzero(counts)
    relabel = np.full(len(counts), -1)
    relabel[present] = np.arange(len(present))
    n = len(codes)
    return scipy.sparse.csr_array(
        (np.ones(n), relabel[codes], np.arange(n + 1)), shape=(n, len(present))
    )


def response_factor(
    Y: np.ndarray,
    kernel: str,
    method: str,
    *,
    gamma: float | None = None,
    rng: np.random.Generator | None = None,
    sparse: bool = False,
) -> np.ndarray | scipy.sparse.csr_array | None:
    """Factor ``Δ`` (n×r) with ``L = Δ Δᵀ``; ``None`` stands for ``L = I`` (ordinary PCA).

    ``linear``: ``Δ = Y`` (numeric columns; a categorical response is one-hot coded);
    ``delta``: ``Δ`` = class indicators (``L_ij = 1{y_i = y_j}``); ``rbf``: Gaussian kernel on
    ``y`` with the median-heuristic width (median over at most 1000 rows drawn by ``rng``),
    factored by pivoted incomplete Cholesky to 1e-9 per diagonal entry. With ``sparse=True``
    the class indicators of a categorical response come as a scipy sparse array.
    """
    categorical = Y.ndim == 1 and Y.dtype.kind in "iu"
    if kernel == "identity":
        return None
    if categorical:
        if Y.min() == Y.max():
            raise ValueError(
                f"The response has a single class; {method} needs a response that varies."
            )
        if sparse and kernel in ("linear", "delta"):
            return sparse_one_hot(Y)
        Yn = one_hot(Y)
    else:
        Yn = np.asarray(Y, dtype=float).reshape(len(Y), -1)
        if np.all(np.ptp(Yn, axis=0) == 0):
            raise ValueError(f"The response is constant; {method} needs a response that varies.")
    if kernel == "linear":
        return Yn
    if kernel == "delta":
        if not categorical:
            levels, codes = np.unique(Yn, axis=0, return_inverse=True)
            if len(levels) > max(50, len(Yn) // 2):
                raise ValueError(
                    f"The 'kernel_y' option of {method} is 'delta' but the response has "
                    f"{len(levels)} distinct values; use kernel_y='rbf' or 'linear' for a "
                    "continuous response, or a categorical response (C(y)) for classes."
                )
            return one_hot(codes.reshape(-1))
        return Yn
    # rbf on the response: pivoted incomplete Cholesky, exact to ``_ICHOL_TOL`` per diagonal
    g = median_gamma(Yn, rng) if gamma is None else gamma
    return incomplete_cholesky(Yn, g)


def incomplete_cholesky(
    Y: np.ndarray, gamma: float, tol: float = 1e-9, max_rank: int = 1000
) -> np.ndarray:
    """Pivoted incomplete Cholesky factor ``R`` (n×r) of the Gaussian Gram matrix of ``Y``.

    ``K ≈ R Rᵀ`` with every diagonal residual ``K_ii − (RRᵀ)_ii`` below ``tol`` (the kernel's
    diagonal is 1), stopping at ``max_rank`` columns. Cost ``O(n r (r + q))``; the n×n matrix
    is never formed (Fine & Scheinberg 2001; the factorisation KDR's authors use).

    Examples
    --------
    >>> Y = np.linspace(0, 1, 50)[:, None]
    >>> R = incomplete_cholesky(Y, 1.0)
    >>> K = np.exp(-cdist(Y, Y, "sqeuclidean"))
    >>> R.shape[1] < 15, bool(np.abs(K - R @ R.T).max() < 1e-8)
    (True, True)
    """
    n = len(Y)
    residual = np.ones(n)
    columns = []
    R = np.zeros((n, min(max_rank, n)))
    for k in range(R.shape[1]):
        pivot = int(np.argmax(residual))
        if residual[pivot] <= tol:
            break
        column = np.exp(-gamma * cdist(Y, Y[pivot : pivot + 1], "sqeuclidean")[:, 0])
        column -= R[:, :k] @ R[pivot, :k]
        column /= np.sqrt(residual[pivot])
        R[:, k] = column
        residual -= column**2
        residual[pivot] = 0.0
        columns.append(pivot)
    return R[:, : len(columns)]


__all__ = [
    "RESPONSE_KERNELS",
    "PREDICTOR_KERNELS",
    "median_gamma",
    "predictor_kernel",
    "one_hot",
    "response_factor",
    "incomplete_cholesky",
    "sparse_one_hot",
]
