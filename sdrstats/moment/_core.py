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

from ..base.persistence import register
from ..base.warnings import CollinearityWarning
from ..stats.grouped import (
    BLOCK_ROWS,
    RAW_SUM_RATIO,
    SliceStats,
    centred_crossprod,
    group_order,
    mean_and_covariance,
)
from ..stats.linalg import COLLINEAR_RCOND, WARN_RCOND, canonical_basis, sym_eigh_desc
from ..stats.linalg import collinear_columns as _collinear_columns
from ..stats.slicing import Slices


@register  # a chunked fit keeps its standardisation: saved with it
class Standardized:
    """Whitened predictors and what is needed to map back to the original scale.

    ``n`` is the sum of weights, ``mean`` and ``scale`` the (weighted) column means and standard
    deviations, ``chol`` the lower Cholesky factor of the correlation matrix. The scaled rows
    ``Xs`` and whitened rows ``Z`` are computed from ``source`` (the predictor matrix) on first
    use, so kernels that need only slice statistics never form an n x p temporary; a
    ``Standardized`` built from accumulated moments (chunked data) has no rows at all.
    """

    def __init__(
        self,
        n: float,
        mean: np.ndarray,
        scale: np.ndarray,
        chol: np.ndarray,
        Xs: np.ndarray | None = None,
        weights: np.ndarray | None = None,
        source: np.ndarray | None = None,
    ) -> None:
        self.n = n
        self.mean = mean
        self.scale = scale
        self.chol = chol
        self._Xs = Xs
        self.weights = weights
        self.source = source
        #: True when ``chol`` came from the QR of the rows (nearly collinear predictors):
        #: second moments are then whitened row by row, not through the cross-product.
        self.ill_conditioned = False

    @property
    def has_rows(self) -> bool:
        """Whether the rows are available (False for fits from accumulated statistics)."""
        return self._Xs is not None or self.source is not None

    @property
    def Xs(self) -> np.ndarray:
        """Centred and scaled predictors of the fitted rows (computed on first use)."""
        if self._Xs is None:
            if self.source is None:
                raise ValueError(
                    "This fit was computed from accumulated statistics (chunked or Dask data), "
                    "so its rows are not available; load the data in memory for this step."
                )
            self._Xs = (self.source - self.mean) / self.scale
        return self._Xs

    def whiten(self, X: np.ndarray) -> np.ndarray:
        """``z`` of rows in the original scale."""
        Xs = (X - self.mean) / self.scale
        return scipy.linalg.solve_triangular(self.chol, Xs.T, lower=True).T

    @property
    def Z(self) -> np.ndarray:
        """Whitened predictors of the fitted rows (computed on first use)."""
        if not hasattr(self, "_Z"):
            if self.ill_conditioned or np.linalg.cond(self.chol) > 1e4:
                self._Z = scipy.linalg.solve_triangular(self.chol, self.Xs.T, lower=True).T
            else:
                # a well-conditioned factor (cond <= 1e4): one product with its p x p inverse
                # equals the triangular solve to rounding (~1e-15 here) and is one BLAS call,
                # twice as fast as scipy's n-column solve on the benchmark machine
                self._Z = self.Xs @ np.linalg.inv(self.chol).T
        return self._Z

    def whiten_moments(self, centred_second: np.ndarray) -> np.ndarray:
        """``E[z zᵀ]`` from ``E[(x − x̄)(x − x̄)ᵀ]`` (stacked ``(..., p, p)`` allowed)."""
        inv_scale = 1.0 / self.scale
        scaled = centred_second * inv_scale[:, None] * inv_scale[None, :]
        if scaled.ndim == 2:
            half = np.linalg.solve(self.chol, scaled)
            return np.linalg.solve(self.chol, half.T)
        if np.linalg.cond(self.chol) <= 1e4:
            # a well-conditioned factor: stacked products with its p x p inverse equal the
            # solves to rounding (~1e-16 relative) and take a quarter of the time at 53 slices
            inverse = np.linalg.inv(self.chol)
            return inverse @ np.swapaxes(scaled, -1, -2) @ inverse.T  # U⁻¹ Sᵀ U⁻ᵀ, as below
        # a stack: every matrix side by side as the right-hand sides of one solve (one
        # factorisation of the p x p factor instead of one per matrix)
        p = scaled.shape[-1]
        stack = scaled.reshape(-1, p, p)
        k = stack.shape[0]
        half = np.linalg.solve(self.chol, stack.transpose(1, 0, 2).reshape(p, k * p))
        half_t = half.reshape(p, k, p).transpose(2, 1, 0).reshape(p, k * p)  # (U⁻¹S_s)ᵀ
        out = np.linalg.solve(self.chol, half_t).reshape(p, k, p).transpose(1, 0, 2)
        return out.reshape(scaled.shape)

    def back_transform(self, vectors: np.ndarray) -> np.ndarray:
        """Directions in the original scale, ``U^{-1} V``, before normalisation."""
        # np.linalg.solve, not scipy's triangular solver: for a p x p system the result is the
        # same to rounding, and scipy's threaded LAPACK can take milliseconds to wake up
        raw = np.linalg.solve(self.chol.T, vectors)
        return raw / self.scale[:, None]

    def whiten_direction(self, basis: np.ndarray) -> np.ndarray:
        """Map original-scale directions to the z scale, ``U B`` (used by predictor tests)."""
        return self.chol.T @ (basis * self.scale[:, None])


def default_names(p: int) -> list[str]:
    """``x1..xp``: the predictors' names in errors when the caller gave none (arrays)."""
    return [f"x{j + 1}" for j in range(p)]


def constant_column_error(X: np.ndarray, names: list[str] | None = None) -> ValueError | None:
    """The error naming the first constant column of ``X``, or None if no column is constant."""
    constant = np.flatnonzero(np.all(X == X[:1], axis=0))
    if not constant.size:
        return None
    names = names or default_names(X.shape[1])
    return ValueError(f"Predictor {names[constant[0]]!r} is constant; remove it from the formula.")


def standardize(
    X: np.ndarray, weights: np.ndarray | None = None, names: list[str] | None = None
) -> Standardized:
    """Centre, scale and whiten ``X`` (weights are frequency weights)."""
    names = names or default_names(X.shape[1])
    total, mean, cov = mean_and_covariance(X, weights)
    if np.any(np.diag(cov) <= 0):
        error = constant_column_error(X, names)
        if error is not None:
            raise error
    return standardize_moments(total, mean, cov, names, weights=weights, source=X)


def standardize_moments(
    total: float,
    mean: np.ndarray,
    cov: np.ndarray,
    names: list[str] | None = None,
    *,
    weights: np.ndarray | None = None,
    source: np.ndarray | None = None,
) -> Standardized:
    """Scale and whitening factor from the mean and covariance (divisor ``total``).

    Shared by :func:`standardize` and fits from accumulated statistics; raises the same errors
    for constant and collinear predictors.
    """
    p = mean.shape[0]
    names = names or default_names(p)
    var = np.diag(cov).copy()
    if np.any(var <= 0):
        j = int(np.flatnonzero(var <= 0)[0])
        if weights is None:
            raise ValueError(f"Predictor {names[j]!r} is constant; remove it from the formula.")
        raise ValueError(f"Predictor {names[j]!r} has no variation among the weighted rows.")
    scale = np.sqrt(var)
    corr = cov / scale[:, None] / scale[None, :]
    corr = (corr + corr.T) / 2
    evals = np.linalg.eigvalsh(corr)
    rcond = evals[0] / evals[-1] if evals[-1] > 0 else 0.0
    chol = None
    if rcond < COLLINEAR_RCOND and source is not None:
        # The cross-product squares the condition number; the QR factor of the scaled rows
        # does not, so predictors with cond(X) up to ~1e12 remain usable (with a warning).
        chol, x_rcond = _qr_factor(source, mean, scale, weights, total)
        rcond = x_rcond**2
    if rcond < COLLINEAR_RCOND and (chol is None or rcond < QR_RCOND**2):
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
            stacklevel=5,
        )
    std = Standardized(
        total,
        mean,
        scale,
        np.linalg.cholesky(corr) if chol is None else chol,
        None,
        weights,
        source,
    )
    std.ill_conditioned = chol is not None
    return std


#: Reciprocal condition number of the scaled predictor matrix below which even the QR route
#: stops: directions would carry fewer than ~4 correct digits.
QR_RCOND = 1e-12


def _qr_factor(
    source: np.ndarray,
    mean: np.ndarray,
    scale: np.ndarray,
    weights: np.ndarray | None,
    total: float,
) -> tuple[np.ndarray, float]:
    """Lower factor ``L`` with ``L Lᵀ`` the correlation matrix, from the QR of the rows."""
    Xs = (source - mean) / scale
    if weights is not None:
        Xs = Xs * np.sqrt(weights)[:, None]
    r = scipy.linalg.qr(Xs, mode="r")[0][: Xs.shape[1]]
    signs = np.sign(np.diag(r))
    signs[signs == 0] = 1.0
    lower = (r * signs[:, None]).T / np.sqrt(total)
    singular = np.linalg.svd(r, compute_uv=False)
    x_rcond = float(singular[-1] / singular[0]) if singular[0] > 0 else 0.0
    return lower, x_rcond


@register
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


def slice_moments_from_sums(
    std: Standardized,
    counts: np.ndarray,
    sums: np.ndarray,
    centred_second: np.ndarray | None,
    slices: Slices,
) -> SliceMoments:
    """Slice moments of ``z`` from per-slice weights, sums of ``x − x̄`` and (optionally)
    per-slice ``Σ w (x − x̄)(x − x̄)ᵀ``; the one place the whitening is applied to them."""
    if np.any(counts <= 0):
        raise ValueError("A slice has no weight; use fewer slices.")
    scaled_means = sums / counts[:, None] / std.scale
    means = np.linalg.solve(std.chol, scaled_means.T).T  # p x p: see back_transform
    second = None
    if centred_second is not None:
        second = std.whiten_moments(centred_second / counts[:, None, None])
        second = (second + np.swapaxes(second, 1, 2)) / 2
    return SliceMoments(counts / std.n, means, second, slices)


def slice_moments(std: Standardized, slices: Slices, second: bool = False) -> SliceMoments:
    """Slice fractions, means and (optionally) second moments of ``z``, in one pass over the
    rows (the moment accumulator's sums, :class:`sdrstats.stats.grouped.SliceStats`)."""
    X = std.source if std.source is not None else std.Xs * std.scale + std.mean
    h = slices.nslices
    stats = SliceStats(X.shape[1], second=second)
    stats.update_coded(X, slices.labels, list(range(h)), None, std.weights)
    if np.any(stats.counts <= 0):
        raise ValueError("A slice has no weight; use fewer slices.")
    if second and std.ill_conditioned:
        order, bounds = group_order(slices.labels, h)
        return _slice_moments_from_rows(std, slices, stats.counts, order, bounds)
    # the sums are about the rows' own mean, which is std.mean: no shift to apply
    return slice_moments_from_sums(std, stats.counts, stats.sums, stats.cross, slices)


def _slice_moments_from_rows(
    std: Standardized, slices: Slices, counts: np.ndarray, order: np.ndarray, bounds: np.ndarray
) -> SliceMoments:
    """Slice moments from the whitened rows (accurate when the predictors are ill-conditioned:
    whitening a cross-product would square their condition number)."""
    Z, w = std.Z, std.weights
    h, p = slices.nslices, Z.shape[1]
    means, second = np.zeros((h, p)), np.zeros((h, p, p))
    for s in range(h):
        block = Z[order[bounds[s] : bounds[s + 1]]]
        weighted = block if w is None else block * w[order[bounds[s] : bounds[s + 1]], None]
        means[s] = weighted.sum(axis=0) / counts[s]
        second[s] = block.T @ weighted / counts[s]
    return SliceMoments(counts / std.n, means, second, slices)


def eigen_directions(
    std: Standardized, M: np.ndarray, by_abs: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eigenvalues, raw (z-scale) eigenvectors and original-scale unit directions of ``M``."""
    values, vectors = sym_eigh_desc(M, by_abs=by_abs)
    basis = canonical_basis(std.back_transform(vectors))
    return values, vectors, basis


__all__ = [
    "Standardized",
    "standardize",
    "standardize_moments",
    "centred_crossprod",
    "constant_column_error",
    "BLOCK_ROWS",
    "RAW_SUM_RATIO",
    "SliceMoments",
    "slice_moments",
    "slice_moments_from_sums",
    "eigen_directions",
]
