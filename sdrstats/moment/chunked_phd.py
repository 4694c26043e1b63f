"""pHd on chunks and Dask partitions, with R ``dr``'s three tests (and R's case weights).

Passes over the rows (Li 1992; Cook 1998):

1. the moments of the predictors and the response (with case weights, R's weighted sums of
   :class:`~sdrstats.moment.chunked_weights.CaseWeightedStatistics`), which give the whitening
   and the OLS fit of the residuals (``phdres``);
2. ``Σ r ω z zᵀ`` (``ω`` R's case weight, or 1), ``Σ r``, ``Σ r²`` and ``Σ √ω r``: the kernel
   ``M`` and the residuals' mean and variance, so the normal-theory test needs nothing more;
3. for ``phdres`` only, once the directions are known: the weighted mean and covariance of the
   per-row products ``q = (r̃ v_i v_j)_{i<=j}`` with ``r̃`` itself, and of ``(v_i v_j)_{i<=j}``
   (``v`` the whitened predictors on the eigenvectors, ``r̃`` the centred residual). Cook's
   general test uses the covariance of ``e_ij = r̃ (v_j² − 1)``, ``r̃ √2 v_i v_j``, and the
   independence test that of the same products with ``r̃ = 1``; both are linear maps of these
   covariances (with case weights, R rescales ``v`` to length ``√n``, also a linear map, by the
   column norms accumulated in the same pass). The covariances have ``(p(p+1)/2)²`` entries,
   so the pass is made for ``p <= MAX_PAIR_P`` only (above it, only the normal-theory test).

R's ``phdq`` (the quadratic fit) needs the rows and is refused on chunks.

References
----------
Li, K.-C. (1992). On principal Hessian directions for data visualization and dimension
reduction: another application of Stein's lemma. JASA 87, 1025-1039.

Cook, R. D. (1998). Principal Hessian directions revisited. JASA 93, 84-94.

Weisberg, S. (2002). Dimension reduction regression in R. Journal of Statistical Software
7(1).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.linalg

from ..base.warnings import SDRWarning
from ..design.weights import ZERO_WEIGHT
from ..fitting.estimator import EstimatorOutput
from ..stats.grouped import BLOCK_ROWS
from ._core import Standardized
from .chunked import MAX_PAIR_P, _info, _single_pass, check_rows
from .chunked_weights import CaseWeightedStatistics, weighted_info
from .statistics import SliceRule, output_from_kernel


class PhdRows:
    """Per-row whitened predictors ``z`` and residuals ``r`` of a pHd fit, from the first
    pass's moments (picklable, so Dask workers compute them alike).

    Unweighted: ``z`` whitens ``x``, ``r = y − ȳ`` less ``z·b`` (``phdres``). With R's case
    weights ``w = c w⁰``: ``z`` whitens ``√w x``, ``r = y − ȳ`` (``phdy``) or
    ``√w (y − ȳ) − z·b`` (``phdres``), as :meth:`sdrstats.PHD._residual`.
    """

    def __init__(
        self,
        std: Standardized,
        y_mean: float,
        coef: np.ndarray | None,
        rescale: float | None = None,
    ) -> None:
        self.mean = std.mean
        self.whitening = (
            scipy.linalg.solve_triangular(std.chol, np.eye(std.mean.size), lower=True).T
            / std.scale[:, None]
        )
        self.y_mean, self.coef, self.rescale = y_mean, coef, rescale

    def __call__(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> tuple:
        """Rows kept, ``z``, ``r``, ``√ω`` and ``ω`` (the last two None without weights)."""
        y = np.asarray(y, dtype=float).reshape(-1)
        sw = omega = None
        if self.rescale is not None:
            keep = w > ZERO_WEIGHT
            X, y = X[keep], y[keep]
            omega = self.rescale * w[keep]
            sw = np.sqrt(omega)
            z = (X * sw[:, None] - self.mean) @ self.whitening
        else:
            z = (X - self.mean) @ self.whitening
        r = y - self.y_mean
        if self.coef is not None:
            r = (r if sw is None else sw * r) - z @ self.coef
        return X, z, r, sw, omega


class PhdResiduals:
    """The second pass: ``Σ r ω z zᵀ``, ``Σ r``, ``Σ r²``, ``Σ √ω r`` and the rows."""

    def __init__(self, rows: PhdRows) -> None:
        self.rows = rows
        p = rows.mean.size
        self.cross = np.zeros((p, p))
        self.n, self.sum, self.squares, self.root_sum = 0, 0.0, 0.0, 0.0

    def update(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> PhdResiduals:
        _, z, r, sw, omega = self.rows(X, y, w)
        rw = r if omega is None else r * omega
        self.cross += z.T @ (z * rw[:, None])
        self.n += r.size
        self.sum += float(r.sum())
        self.squares += float(r @ r)
        self.root_sum += float(r.sum() if sw is None else sw @ r)
        return self

    def merge(self, other: PhdResiduals) -> PhdResiduals:
        self.cross += other.cross
        self.n += other.n
        self.sum += other.sum
        self.squares += other.squares
        self.root_sum += other.root_sum
        return self

    def variance(self) -> float:
        """``var(r)`` with divisor ``n − 1`` (R's ``var``)."""
        mean = self.sum / self.n
        return (self.squares - self.n * mean * mean) / (self.n - 1)


class WeightedMoments:
    """Weighted mean and centred cross-product of rows, by blocks, merged pairwise (Chan,
    Golub & LeVeque 1979)."""

    def __init__(self, k: int) -> None:
        self.total = 0.0
        self.mean = np.zeros(k)
        self.cross = np.zeros((k, k))

    def update(self, Q: np.ndarray, omega: np.ndarray | None) -> None:
        for start in range(0, Q.shape[0], BLOCK_ROWS):
            block = Q[start : start + BLOCK_ROWS]
            w = None if omega is None else omega[start : start + BLOCK_ROWS]
            part = WeightedMoments(Q.shape[1])
            part.total = float(block.shape[0] if w is None else w.sum())
            part.mean = (block.sum(axis=0) if w is None else w @ block) / part.total
            u = block - part.mean
            part.cross = u.T @ (u if w is None else u * w[:, None])
            self.merge(part)

    def merge(self, other: WeightedMoments) -> WeightedMoments:
        if other.total == 0:
            return self
        total = self.total + other.total
        delta = other.mean - self.mean
        self.cross += other.cross + np.outer(delta, delta) * (self.total * other.total / total)
        self.mean = self.mean + delta * (other.total / total)
        self.total = total
        return self

    def covariance(self) -> np.ndarray:
        """Divisor the total weight (R's ``cov.ew.matrix``)."""
        return self.cross / self.total


class PhdFeatures:
    """The third pass: moments of the products behind Cook's general and independence tests.

    ``v`` is ``z`` on the eigenvectors (unweighted), or ``√w (x − x̄)`` on the unit directions
    (case weights: R's ``cov.ew.matrix``, rescaled at the end by the column norms).
    """

    def __init__(
        self,
        rows: PhdRows,
        shift: float,
        vectors: np.ndarray,
        center: np.ndarray | None = None,
    ) -> None:
        self.rows, self.shift, self.vectors, self.center = rows, shift, vectors, center
        p = vectors.shape[1]
        self.first, self.second = np.triu_indices(p)
        k = self.first.size
        self.general = WeightedMoments(k + 1)  # (r̃ v_i v_j, r̃)
        self.indep = WeightedMoments(k)  # (v_i v_j)
        self.norms = np.zeros(p)

    def update(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> PhdFeatures:
        X, z, r, sw, omega = self.rows(X, y, w)
        if self.center is None:
            v = z @ self.vectors
        else:
            v = ((X - self.center) @ self.vectors) * sw[:, None]
        for start in range(0, v.shape[0], BLOCK_ROWS):
            vb = v[start : start + BLOCK_ROWS]
            rb = r[start : start + BLOCK_ROWS] - self.shift
            ob = None if omega is None else omega[start : start + BLOCK_ROWS]
            products = vb[:, self.first] * vb[:, self.second]
            self.general.update(np.column_stack([products * rb[:, None], rb]), ob)
            self.indep.update(products, ob)
            self.norms += np.sum(vb * vb, axis=0)
        return self

    def merge(self, other: PhdFeatures) -> PhdFeatures:
        self.general.merge(other.general)
        self.indep.merge(other.indep)
        self.norms += other.norms
        return self

    def covariances(self, n: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Covariances of Cook's general and independence products (``n``: rescale ``v`` to
        length ``√n``, as R does under case weights)."""
        p = self.vectors.shape[1]
        d = np.ones(p) if n is None else np.sqrt(n / self.norms)
        diagonal = self.first == self.second
        scale = np.where(diagonal, 1.0, np.sqrt(2.0)) * d[self.first] * d[self.second]
        shift = -diagonal.astype(float)  # e_jj = r̃ (v_j² − 1): minus r̃
        C = self.general.covariance()
        pairs, cross, resid = C[:-1, :-1], C[:-1, -1], C[-1, -1]
        gamma = np.outer(scale, scale) * pairs
        side = np.outer(scale * cross, shift)
        gamma += side + side.T + resid * np.outer(shift, shift)
        indep = np.outer(scale, scale) * self.indep.covariance()
        return (gamma + gamma.T) / 2, (indep + indep.T) / 2


def fit_phd(estimator: Any, source: Any) -> tuple[EstimatorOutput, dict[str, Any]]:
    """pHd from chunks: the moments, the kernel and residual sums, and (``phdres``, ``p <=
    MAX_PAIR_P``) the products of Cook's tests: two passes, or three for all three tests."""
    weighted = getattr(source, "weights", None) is not None
    residuals = bool(estimator.options["residuals"])
    if weighted:
        acc = source.reduce(
            CaseWeightedStatistics(
                source.p, SliceRule(single=True), response=True, column=source.weights
            )
        )
        c = acc.rescale
        check_rows(estimator, acc.n, source.p, acc, source)
        std = acc.standardized(source.x_names)
        ols = acc.ols_parts()
        coef = np.linalg.solve(std.chol, c * ols["g0"] / std.scale) if residuals else None
        rows = PhdRows(std, ols["y_mean"], coef, rescale=c)
        total = c * acc.w_sum  # R divides by the sum of the rescaled weights
    else:
        acc, std = _single_pass(estimator, source)
        y_mean, _, cov_xy = acc.stats.response_moments()
        coef = np.linalg.solve(std.chol, cov_xy / std.scale) if residuals else None
        rows = PhdRows(std, y_mean, coef)
        total = std.n
    resid = source.reduce(PhdResiduals(rows))
    M = resid.cross / total
    output = output_from_kernel(estimator, std, None, (M + M.T) / 2, {"n_chunks": source.n_chunks})
    tests: dict[str, Any] = {"var_r": resid.variance()}
    if residuals and source.p <= MAX_PAIR_P:
        if weighted:
            features = PhdFeatures(rows, resid.root_sum / resid.n, output.basis, acc.center())
        else:
            features = PhdFeatures(rows, resid.sum / resid.n, output.extras["raw_vectors"])
        found = source.reduce(features)
        tests["gamma"], tests["indep_gamma"] = found.covariances(resid.n if weighted else None)
    elif residuals:
        warnings.warn(
            f"pHd's general and independence tests on chunked or Dask data accumulate the "
            f"covariance of p(p+1)/2 residual products, done for p <= {MAX_PAIR_P}; with "
            f"p = {source.p} the test tables show the normal-theory test only. Fit in memory "
            "for the other two.",
            SDRWarning,
            stacklevel=6,
        )
    output.extras["phd_moments"] = tests
    if weighted:
        return output, weighted_info(acc, source, (std, None), output)
    return output, _info(acc, source, (std, None))


__all__ = ["PhdFeatures", "PhdResiduals", "PhdRows", "WeightedMoments", "fit_phd"]
