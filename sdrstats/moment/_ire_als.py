"""IRE's numerical core: the discrepancy, its alternating least squares and ``Γ_ζ``.

Everything here works in the whitened ``z`` scale on arrays; :mod:`sdrstats.moment.ire` builds
the estimator, its tests and results on top.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.linalg
import scipy.stats

from ..base.warnings import ConvergenceWarning
from ..stats.chi2 import chi2_sf


def chi2_upper(stat: float, df: float) -> float:
    """``P(χ²(df) > stat)`` with R's ``pchisq(stat, df, lower.tail=FALSE)`` at ``df <= 0``.

    IRE's "dD vs > dD" has ``df = (p − d)(h − 1 − d)``, zero or negative once ``d >= h − 1``
    (an exact fit). R reports 0 for ``df = 0`` and a positive statistic and NaN for negative
    ``df``; so does this, for parity. Such rows carry no information.
    """
    if df > 0:
        return chi2_sf(stat, df)
    if df == 0:
        return 0.0 if stat > 0 else 1.0
    return float("nan")


#: The small-sample versions of IRE's test statistic (``correction=`` of its test).
CORRECTIONS = (None, "F", "yuan_bentler")


def corrected_upper(stat: float, df: float, n: int, correction: str | None) -> float:
    """Upper tail of an IRE discrepancy ``stat`` on ``df`` degrees of freedom from ``n`` rows.

    IRE's statistic is a minimum discrepancy in the metric of a covariance estimated from the
    same rows, like Browne's (1984) asymptotically distribution-free statistic of covariance
    structures, and its χ² reference rejects too often when ``n`` is not large against the
    number of moments. Two corrections from that literature:

    * ``None`` — R ``dr``'s reference, ``χ²(df)`` (:func:`chi2_upper`);
    * ``"F"`` — Yuan & Bentler's (1999) F statistic ``T (n − df) / ((n − 1) df)`` against
      ``F(df, n − df)``; for "0D vs > 0D" it is the exact Hotelling-``T²`` scaling of a mean
      vector tested in the metric of its estimated covariance;
    * ``"yuan_bentler"`` — Yuan & Bentler's (1997) ``T / (1 + T/n)`` against ``χ²(df)``.

    Rows with ``df <= 0`` (exact fits) and ``df >= n`` keep R's value.

    Examples
    --------
    >>> [round(corrected_upper(60.0, 48, 500, c), 4) for c in CORRECTIONS]
    [0.1146, 0.2594, 0.2691]
    """
    if correction is None or df <= 0 or df >= n:
        return chi2_upper(stat, df)
    if correction == "F":
        return float(scipy.stats.f.sf(stat * (n - df) / ((n - 1) * df), df, n - df))
    if correction == "yuan_bentler":
        return chi2_sf(stat / (1.0 + stat / n), df)
    raise ValueError(f"correction must be one of {CORRECTIONS}; got {correction!r}.")


def helmert_basis(h: int) -> np.ndarray:
    """Orthonormal ``h × (h−1)`` basis of the contrasts (R's ``qr.Q(qr(contr.helmert(h)))``).

    Helmert columns are already orthogonal, so normalising them gives the Q factor up to the
    signs of its columns; IRE's fits and tests do not depend on those signs.
    """
    basis = np.zeros((h, h - 1))
    for j in range(h - 1):
        basis[: j + 1, j] = -1.0
        basis[j + 1, j] = j + 1.0
    return basis / np.linalg.norm(basis, axis=0)


def gamma_factor(
    Z: np.ndarray,
    labels: np.ndarray,
    fractions: np.ndarray,
    means: np.ndarray,
    contrasts: np.ndarray,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Upper Cholesky factor ``G`` of ``Γ_ζ = Gᵀ G`` (Cook & Ni 2005, p. 411 and 414).

    ``means`` (p × h) are the slice means used in the residuals ``ε_i = e_{s(i)} − f −
    (z_iᵀ ξ̃) diag(f)``: the raw slice means, their projection on a fitted span, or zero for
    the independence test. ``Γ_ζ`` is the covariance (divisor n) of ``vec(z_i ε_iᵀ A)``,
    which equals ``(Aᵀ ⊗ I) cov(vec(z_i ε_iᵀ)) (A ⊗ I)``.
    """
    n, p = Z.shape
    resid = -fractions[None, :] - (Z @ means) * fractions[None, :]
    resid[np.arange(n), labels] += 1.0
    projected = resid @ contrasts  # n × (h−1)
    h1 = projected.shape[1]
    # row i is vec(z_i (Aᵀε_i)ᵀ) in column-major order: entry s*p + j is z_ij * (Aᵀε_i)_s
    g = np.einsum("ij,is->isj", Z, projected).reshape(n, h1 * p)
    if weights is None:
        centred = g - g.mean(axis=0)
        cov = centred.T @ centred / n
    else:
        w = weights / weights.sum()
        centred = g - w @ g
        cov = centred.T @ (centred * w[:, None])
    return covariance_factor(cov, n, p)


def covariance_factor(cov: np.ndarray, n: float, p: int) -> np.ndarray:
    """Upper Cholesky factor of ``Γ_ζ`` (p(h−1) square, from ``n`` rows), or an error saying
    to use fewer slices when it is singular."""
    h1 = cov.shape[0] // p
    try:
        return scipy.linalg.cholesky((cov + cov.T) / 2, lower=False)
    except np.linalg.LinAlgError:
        # Γ_ζ has p(h−1) rows; n rows cannot estimate it when h approaches n/p.
        raise ValueError(
            f"ire cannot estimate the covariance of its p(h - 1) = {h1 * p} inverse-regression "
            f"moments from n = {int(n)} rows with h = {h1 + 1} slices (it is singular); lower the "
            f"'nslices' option of ire (n/p = {int(n) // p} or fewer slices keep it estimable)."
        ) from None


class Discrepancy:
    """``F(B, C) = n‖G^{-T}(vec ζ − vec(T B C))‖²`` and its alternating least squares.

    ``T`` (p × m) restricts the span to ``span(T)`` (the identity when unrestricted); ``B`` is
    m × d in ``T``'s coordinates.
    """

    def __init__(self, zeta: np.ndarray, factor: np.ndarray, n: float) -> None:
        self.zeta, self.factor, self.n = zeta, factor, n
        # G^{-T} once: the iterations apply it hundreds of times to small blocks
        self.inverse_t = scipy.linalg.solve_triangular(
            factor, np.eye(factor.shape[0]), trans="T", lower=False
        )
        self.target = self.whiten(zeta.reshape(-1, order="F"))

    def whiten(self, values: np.ndarray) -> np.ndarray:
        return self.inverse_t @ values

    def independence(self) -> float:
        """``n vec(ζ)ᵀ Γ_ζ^{-1} vec(ζ)``: the discrepancy at ``B = 0`` ("0D vs > 0D")."""
        return float(np.sum(self.n * self.target**2))

    def value(self, TB: np.ndarray, C: np.ndarray) -> float:
        fitted = (TB @ C).reshape(-1, order="F")
        return float(self.n * np.sum((self.target - self.whiten(fitted)) ** 2))

    def update_c(self, TB: np.ndarray) -> np.ndarray:
        d, h1 = TB.shape[1], self.zeta.shape[1]
        design = self.whiten(np.kron(np.eye(h1), TB))
        coef = np.linalg.lstsq(design, self.target, rcond=None)[0]
        return coef.reshape(d, h1, order="F")

    def update_b(self, T: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
        B = B.copy()
        m, d = B.shape
        for k in range(d):
            others = np.delete(B, k, axis=1)
            residual = self.zeta - T @ others @ np.delete(C, k, axis=0)
            if d > 1:
                q, _ = np.linalg.qr(others)
                complement = np.eye(m) - q @ q.T
            else:
                complement = np.eye(m)
            design = self.whiten(np.kron(C[k][:, None], T) @ complement)
            bk = np.linalg.lstsq(design, self.whiten(residual.reshape(-1, order="F")), rcond=None)[
                0
            ]
            bk = complement @ bk
            norm = np.linalg.norm(bk)
            B[:, k] = bk / norm if norm > 0 else B[:, k]
        return B

    def minimise(
        self,
        d: int,
        start: np.ndarray | None = None,
        T: np.ndarray | None = None,
        tol: float = 1e-6,
        max_iter: int = 200,
    ) -> tuple[np.ndarray, float, int]:
        """ALS from ``start`` (default: the first ``d`` columns of the identity in ``T``'s
        coordinates). Returns ``T B`` (p × d), the minimum and the number of sweeps.

        As R ``dr``: stop when the relative decrease is below ``tol`` or after
        ``max_iter + 1`` sweeps (R tests ``iter > itmax``).
        """
        p = self.zeta.shape[0]
        T = np.eye(p) if T is None else T
        B = np.eye(T.shape[1])[:, :d] if start is None else np.array(start, dtype=float)
        C = self.update_c(T @ B)
        err = self.value(T @ B, C)
        iterations = 0
        while True:
            iterations += 1
            B = self.update_b(T, B, C)
            C = self.update_c(T @ B)
            old, err = err, self.value(T @ B, C)
            if old == 0 or abs(err - old) / old < tol:
                break
            if iterations > max_iter:
                # an exact fit (d >= h - 1): F is rounding noise next to F at B = 0
                if err <= 1e-12 * self.n * float(self.target @ self.target):
                    break
                warnings.warn(
                    f"IRE's alternating least squares for d = {d} stopped after {iterations} "
                    f"sweeps with relative change {abs(err - old) / old:.1e} > tol = {tol:g}; "
                    "raise max_iter or tol.",
                    ConvergenceWarning,
                    stacklevel=4,
                )
                break
        return T @ B, err, iterations


def importance_order(disc: Discrepancy, B: np.ndarray, tol: float, max_iter: int) -> np.ndarray:
    """Reorder a fitted basis by a sequence of d = 1 fits inside it (Cook & Ni, p. 414)."""
    first, _, _ = disc.minimise(1, T=B, tol=tol, max_iter=max_iter)
    columns = [first[:, 0] / np.linalg.norm(first)]
    rest = B.copy()
    for _ in range(1, B.shape[1]):
        last = columns[-1]
        rest = rest - np.outer(last, last @ rest)
        q, _ = np.linalg.qr(rest)
        rest = q[:, :-1]
        best, _, _ = disc.minimise(1, T=rest, tol=tol, max_iter=max_iter)
        columns.append(best[:, 0] / np.linalg.norm(best))
    return np.column_stack(columns)


def projected_means(xi: np.ndarray, request: Any) -> np.ndarray:
    """The slice means ``ξ̃`` (p × h) of a ``Γ_ζ`` request: zero for ``"zero"``, ``ξ`` for
    ``None``, else ``ξ`` projected on the span of the basis ``request``."""
    if isinstance(request, str):
        return np.zeros_like(xi)
    if request is None:
        return xi
    q, _ = np.linalg.qr(request)
    return q @ (q.T @ xi)


def solve_rounds(
    make_disc: Callable[[Any], Any],
    gammas: Callable[[list[Any]], list[Any]],
    start: np.ndarray,
    top: int,
    steps: int,
    tol: float,
    max_iter: int,
    reorder: Callable[[Any, np.ndarray, float, int], np.ndarray],
    finish: Callable[[np.ndarray], np.ndarray] = lambda B: B,
) -> tuple[dict[int, np.ndarray], dict[int, float], dict[int, int]]:
    """IRE's fits of ``d = 1..top``, one round of ``Γ_ζ`` estimates at a time.

    ``gammas(requests)`` returns the ``Γ_ζ`` factor(s) of each request: ``"zero"`` (slice means
    set to zero: the independence test), ``None`` (the slice means themselves) or a p × d basis
    (the slice means projected on its span). Each ``d`` is fitted with the first ``Γ_ζ``,
    then ``steps`` times re-estimated at its fitted span and refitted (Cook & Ni 2005); the
    fits of different ``d`` are independent, so every round asks ``gammas`` for all of them at
    once (one pass over chunked data). ``make_disc`` turns factor(s) into a discrepancy,
    ``reorder`` puts a fitted basis in importance order and ``finish`` post-processes it.
    Returns the solutions, the minimised criteria (with the independence value at 0) and the
    sweeps used.
    """
    zero, first = gammas(["zero", None])
    criteria, iterations = {0: make_disc(zero).independence()}, {0: 0}
    first_disc = make_disc(first)
    fits = {}
    for d in range(1, top + 1):
        fits[d] = (
            first_disc,
            *first_disc.minimise(d, start=start[:, :d], tol=tol, max_iter=max_iter),
        )
    for _ in range(steps):
        factors = gammas([fits[d][1] for d in range(1, top + 1)])
        for d, factor in zip(range(1, top + 1), factors):
            disc = make_disc(factor)
            fits[d] = (disc, *disc.minimise(d, start=fits[d][1], tol=tol, max_iter=max_iter))
    solutions = {}
    for d, (disc, B, F, it) in fits.items():
        if d > 1:
            B = reorder(disc, B, tol, max_iter)
        solutions[d], criteria[d], iterations[d] = finish(B), F, it
    return solutions, criteria, iterations


__all__ = [
    "Discrepancy",
    "chi2_upper",
    "covariance_factor",
    "gamma_factor",
    "helmert_basis",
    "importance_order",
    "projected_means",
    "solve_rounds",
]
