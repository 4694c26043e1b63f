"""Small linear-algebra helpers shared by the estimators."""

from __future__ import annotations

import numpy as np
import scipy.linalg

#: Reciprocal condition number of the predictor correlation matrix below which a fit stops
#: (the moment methods, and the initial batch of a stream).
COLLINEAR_RCOND = 1e-13
#: ... and below which it warns that directions may be poorly determined.
WARN_RCOND = 1e-9


def collinear_columns(corr: np.ndarray) -> list[int]:
    """Columns that are (nearly) linear combinations of earlier ones, by pivoted QR."""
    _, r, piv = scipy.linalg.qr(corr, pivoting=True)
    diag = np.abs(np.diag(r))
    tol = diag[0] * max(corr.shape) * 1e-10
    return sorted(int(piv[k]) for k in np.flatnonzero(diag <= tol))


def unit_columns(basis: np.ndarray) -> np.ndarray:
    """Scale each column to unit Euclidean length (zero columns stay zero)."""
    norms = np.linalg.norm(basis, axis=0)
    norms[norms == 0] = 1.0
    return basis / norms


def canonical_sign(basis: np.ndarray) -> np.ndarray:
    """Flip columns so that each column's largest-magnitude entry is positive.

    Ties in magnitude go to the first such entry, so the sign is deterministic.
    """
    basis = np.array(basis, dtype=float, copy=True)
    if basis.size == 0:
        return basis
    rows = np.argmax(np.abs(basis), axis=0)
    signs = np.sign(basis[rows, np.arange(basis.shape[1])])
    signs[signs == 0] = 1.0
    return basis * signs


def canonical_basis(basis: np.ndarray) -> np.ndarray:
    """Unit-length columns with the canonical sign."""
    return canonical_sign(unit_columns(np.asarray(basis, dtype=float)))


def sym_eigh_desc(matrix: np.ndarray, by_abs: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Eigen-decomposition of a symmetric matrix, ordered by decreasing value (or |value|)."""
    sym = (matrix + matrix.T) / 2.0
    values, vectors = np.linalg.eigh(sym)
    order = np.argsort(-np.abs(values) if by_abs else -values, kind="stable")
    return values[order], vectors[:, order]


def whiten(
    X: np.ndarray,
    method: str,
    weights: np.ndarray | None = None,
    names: list[str] | None = None,
    ddof: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Whitened predictors ``Z = (X − x̄) W`` with ``Wᵀ Σ W = I``: ``(Z, x̄, W)``.

    ``W = Σ^{-1/2}`` (symmetric) when ``Σ`` is well conditioned. Collinearity is judged on
    the correlation matrix, so independent predictors on very different scales (1e12 and
    1e-12) are not called collinear; for them ``W = D^{-1} R^{-1/2}`` (``D`` the standard
    deviations, ``R`` the correlation matrix), which whitens without forming a covariance
    whose eigenvalues span more than double precision. A constant predictor and collinear
    predictors are errors that name the columns.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Predictors.
    method : str
        The method's name, for the messages.
    weights : ndarray of shape (n,), optional
        Row weights of the mean and covariance (default equal).
    names : list of str, optional
        Predictor names for the messages (default ``x1..xp``).
    ddof : int, default 0
        The covariance's divisor is ``Σw − ddof``.

    Returns
    -------
    tuple of ndarray
        ``Z`` (n × p), the mean (p,) and ``W`` (p × p).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 2)) * [1e12, 1e-12]
    >>> Z, mean, W = whiten(X, "demo")
    >>> bool(np.allclose(np.cov(Z, rowvar=False, bias=True), np.eye(2), atol=1e-8))
    True
    """
    n, p = X.shape
    names = names if names is not None and len(names) == p else [f"x{j + 1}" for j in range(p)]
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    mean = w @ X / w.sum()
    Xc = X - mean
    divisor = w.sum() - ddof
    sd = np.sqrt((w @ (Xc * Xc)) / divisor)
    # numerically constant: no variation beyond the rounding of the column's own mean
    constant = [names[j] for j in np.flatnonzero(sd <= 1e-300 + 1e-13 * np.abs(mean))]
    if constant:
        raise ValueError(
            f"Predictor(s) {constant} of {method} are constant, so the predictors cannot be "
            "whitened; drop them from the formula."
        )
    scaled = Xc / sd
    corr = np.atleast_2d((scaled * w[:, None]).T @ scaled / divisor)
    r_values, r_vectors = np.linalg.eigh(corr)
    if r_values[0] <= 1e-10 * max(r_values[-1], 1e-300):
        involved = [names[j] for j in np.flatnonzero(np.abs(r_vectors[:, 0]) > 0.1)]
        raise ValueError(
            f"The predictors are collinear: {involved} are (nearly) a linear combination of "
            f"each other (their correlation matrix is singular), so {method} cannot whiten them; "
            "drop redundant predictors or combine them."
        )
    cov = np.atleast_2d((Xc * w[:, None]).T @ Xc / divisor)
    values, vectors = np.linalg.eigh(cov)
    if values[0] > 1e-10 * values[-1]:
        root = (vectors / np.sqrt(values)) @ vectors.T  # the symmetric Σ^{-1/2}
    else:  # a well-conditioned correlation on scales a covariance cannot resolve
        root = (r_vectors / np.sqrt(r_values)) @ r_vectors.T / sd[:, None]
    return Xc @ root, mean, root


__all__ = [
    "unit_columns",
    "canonical_sign",
    "canonical_basis",
    "sym_eigh_desc",
    "whiten",
    "collinear_columns",
    "COLLINEAR_RCOND",
    "WARN_RCOND",
]
