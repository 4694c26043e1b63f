"""Shared path of the moment methods: standardise, slice statistics, kernel, eigen, back-transform.

Every kernel ``M`` is a function of the slice fractions, the slice means of the whitened
predictors ``z`` and (for SAVE and DR) their slice second moments; pHd uses the weighted
cross-product of ``z`` with a residual. These come from one pass over the rows, so case weights
(the bootstrap's multinomial counts) and chunked data enter through the same statistics.

Whitening follows R ``dr``: ``z = (x - x̄) U^{-1}`` with ``UᵀU = Σ̂`` (divisor ``n``), so
``Zᵀ Z = n I``. ``U`` comes from the Cholesky factor of the correlation matrix, which equals
R's QR factor up to the signs of its rows; eigenvalues and directions do not depend on them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse

from .._linalg import canonical_basis, sym_eigh_desc
from .._warnings import CollinearityWarning
from ..slicing import Slices

#: Reciprocal condition number of the predictor correlation matrix below which the fit stops.
COLLINEAR_RCOND = 1e-13
#: ... and below which it warns that directions may be poorly determined.
WARN_RCOND = 1e-9


@dataclass
class Standardized:
    """Whitened predictors and what is needed to map back to the original scale."""

    n: float  # sum of weights
    mean: np.ndarray  # (p,)
    scale: np.ndarray  # (p,) column standard deviations
    chol: np.ndarray  # (p, p) lower Cholesky factor of the correlation matrix
    Xs: np.ndarray  # (n, p) centred and scaled predictors
    weights: np.ndarray | None

    def whiten(self, X: np.ndarray) -> np.ndarray:
        """``z`` of rows in the original scale."""
        Xs = (X - self.mean) / self.scale
        return scipy.linalg.solve_triangular(self.chol, Xs.T, lower=True).T

    @property
    def Z(self) -> np.ndarray:
        """Whitened predictors of the fitted rows (computed on first use)."""
        if not hasattr(self, "_Z"):
            self._Z = scipy.linalg.solve_triangular(self.chol, self.Xs.T, lower=True).T
        return self._Z

    def back_transform(self, vectors: np.ndarray) -> np.ndarray:
        """Directions in the original scale, ``U^{-1} V``, before normalisation."""
        raw = scipy.linalg.solve_triangular(self.chol.T, vectors, lower=False)
        return raw / self.scale[:, None]

    def whiten_direction(self, basis: np.ndarray) -> np.ndarray:
        """Map original-scale directions to the z scale, ``U B`` (used by predictor tests)."""
        return self.chol.T @ (basis * self.scale[:, None])


def _collinear_columns(corr: np.ndarray) -> list[int]:
    """Columns that are (nearly) linear combinations of earlier ones, by pivoted QR."""
    _, r, piv = scipy.linalg.qr(corr, pivoting=True)
    diag = np.abs(np.diag(r))
    tol = diag[0] * max(corr.shape) * 1e-10
    return sorted(int(piv[k]) for k in np.flatnonzero(diag <= tol))


def standardize(X: np.ndarray, weights: np.ndarray | None = None,
                names: list[str] | None = None) -> Standardized:
    """Centre, scale and whiten ``X`` (weights are frequency weights)."""
    n_rows, p = X.shape
    names = names or [f"x{j + 1}" for j in range(p)]
    if weights is None:
        total = float(n_rows)
        mean = X.mean(axis=0)
    else:
        total = float(weights.sum())
        mean = weights @ X / total
    Xc = X - mean
    peak = np.max(np.abs(Xc), axis=0)
    constant = np.flatnonzero(peak == 0)
    if constant.size:
        raise ValueError(
            f"Predictor {names[constant[0]]!r} is constant; remove it from the formula."
        )
    Xp = Xc / peak
    sq = Xp * Xp if weights is None else Xp * Xp * weights[:, None]
    scale = peak * np.sqrt(sq.sum(axis=0) / total)
    if np.any(scale == 0):
        j = int(np.flatnonzero(scale == 0)[0])
        raise ValueError(f"Predictor {names[j]!r} has no variation among the weighted rows.")
    Xs = Xc / scale
    corr = (Xs.T @ Xs if weights is None else Xs.T @ (Xs * weights[:, None])) / total
    corr = (corr + corr.T) / 2
    evals = np.linalg.eigvalsh(corr)
    rcond = evals[0] / evals[-1] if evals[-1] > 0 else 0.0
    if rcond < COLLINEAR_RCOND:
        bad = _collinear_columns(corr)
        listed = [names[j] for j in bad] or names[-1:]
        raise ValueError(
            f"The predictors are (nearly) collinear: {listed} are linear combinations of the "
            f"others (reciprocal condition number {rcond:.1e}); drop or combine them."
        )
    if rcond < WARN_RCOND:
        warnings.warn(
            f"The predictors are nearly collinear (condition number {1 / rcond:.1e} of their "
            "correlation matrix); directions along the collinear combination are poorly "
            "determined.",
            CollinearityWarning,
            stacklevel=4,
        )
    chol = np.linalg.cholesky(corr)
    return Standardized(total, mean, scale, chol, Xs, weights)


@dataclass
class SliceMoments:
    """Per-slice statistics of the whitened predictors.

    ``fractions`` (h,), ``means`` (h, p) and, when requested, ``second`` (h, p, p) with
    ``second[s] = E_s[z zᵀ]``.
    """

    fractions: np.ndarray
    means: np.ndarray
    second: np.ndarray | None
    slices: Slices


def slice_moments(std: Standardized, slices: Slices, second: bool = False) -> SliceMoments:
    """Slice fractions, means and (optionally) second moments of ``z``, in one pass."""
    h = slices.nslices
    w = std.weights if std.weights is not None else np.ones(std.Xs.shape[0])
    counts = np.bincount(slices.labels, weights=w, minlength=h)
    if np.any(counts <= 0):
        raise ValueError("A slice has no weight; use fewer slices.")
    indicator = scipy.sparse.csr_matrix(
        (w, (slices.labels, np.arange(slices.labels.size))), shape=(h, slices.labels.size)
    )
    sums_s = np.asarray(indicator @ std.Xs)  # weighted slice sums of the scaled predictors
    means = scipy.linalg.solve_triangular(std.chol, (sums_s / counts[:, None]).T, lower=True).T
    moments = None
    if second:
        Z = std.Z
        moments = np.empty((h, Z.shape[1], Z.shape[1]))
        order = np.argsort(slices.labels, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(slices.labels, minlength=h))])
        Zo, wo = Z[order], w[order]
        for s in range(h):
            block = Zo[bounds[s]:bounds[s + 1]]
            moments[s] = block.T @ (block * wo[bounds[s]:bounds[s + 1], None]) / counts[s]
    return SliceMoments(counts / std.n, means, moments, slices)


def eigen_directions(std: Standardized, M: np.ndarray, by_abs: bool = False
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eigenvalues, raw (z-scale) eigenvectors and original-scale unit directions of ``M``."""
    values, vectors = sym_eigh_desc(M, by_abs=by_abs)
    basis = canonical_basis(std.back_transform(vectors))
    return values, vectors, basis


__all__ = ["Standardized", "standardize", "SliceMoments", "slice_moments", "eigen_directions"]
