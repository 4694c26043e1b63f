"""IRE's numerical core: the discrepancy and its alternating least squares.

Everything here works in the whitened ``z`` scale on p × p and p(h−1) × p(h−1) arrays (never on
rows); :mod:`sdrstats.moment.ire_passes` accumulates the ``Γ_ζ`` this module is given, and
:mod:`sdrstats.moment.ire` builds the estimator, its tests and results on top.

The discrepancy of one group (IRE) or of several (partial IRE) is

.. math:: F(B, \\{C_g\\}) = n \\sum_g \\mathrm{vec}(ζ_g − TBC_g)ᵀ\\, Γ_g^{-1}\\, \\mathrm{vec}(ζ_g − TBC_g)

with ``Γ_g = G_gᵀ G_g`` (upper Cholesky factor ``G_g``). Its alternating least squares never
forms a design: ``vec(TBC) = (I ⊗ TB) vec C = (C ⊗ T) vec B`` have Kronecker structure, so the
normal equations of each step are ``Γ^{-1}`` contracted with ``TB`` (or with the rows of ``C``
and ``T``) block by block: ``O(N² d)`` per step for ``N = p(h−1)``, one read of ``Γ^{-1}`` for
the C step and one for all the columns of the B step, where a dense whitened design cost
``O(N² h d)``. ``Γ^{-1}`` comes once per ``Γ`` from its Cholesky factor (LAPACK ``potri``;
triangular solves in every step would cost ``O(N² h d)`` again); the criterion itself is a
triangular solve with the factor. The independence statistic needs no ``Γ`` factor:
:func:`independence_form` solves it slice by slice.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.linalg
import scipy.linalg.lapack
import scipy.special
from threadpoolctl import threadpool_limits

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
        return float(scipy.special.fdtrc(df, n - df, stat * (n - df) / ((n - 1) * df)))
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


def covariance_factor(cov: np.ndarray, n: float, p: int, symmetric: bool = False) -> np.ndarray:
    """Upper Cholesky factor of ``Γ_ζ`` (p(h−1) square, from ``n`` rows), or an error saying
    to use fewer slices when it is singular.

    ``symmetric=True``: ``cov`` is exactly symmetric and the caller's to overwrite (the
    factorisation then works in place, without the averaging with its transpose).
    """
    h1 = cov.shape[0] // p
    try:
        if symmetric:
            return scipy.linalg.cholesky(cov, lower=False, overwrite_a=True, check_finite=False)
        return scipy.linalg.cholesky((cov + cov.T) / 2, lower=False, check_finite=False)
    except np.linalg.LinAlgError:
        # Γ_ζ has p(h−1) rows; n rows cannot estimate it when h approaches n/p.
        fitting = max(int(n / 2 // p) + 1, 2)
        raise ValueError(
            f"ire cannot estimate the covariance of its p(h - 1) = {h1 * p} inverse-regression "
            f"moments from n = {int(n)} rows with h = {h1 + 1} slices (it is singular: the "
            "rows, or a bootstrap resample's distinct rows, are too few for that many "
            f"moments). Set the 'nslices' option of ire to at most {fitting}, which keeps "
            "p(h - 1) <= n/2, or use fewer predictors."
        ) from None


#: Largest condition number of a slice's second moments with which :func:`independence_form`
#: works slice by slice (its error grows with it); past it, the dense ``Γ_ζ`` is factored.
SLICE_CONDITION = 1e6


class IndependenceNorm:
    """``Σ_g ‖G_g^{-T} vec ζ_g‖²`` for the ``Γ_ζ`` under independence, computed without its
    factor: what a ``gammas`` source of :func:`solve_rounds` may return for ``"zero"``."""

    def __init__(self, value: float) -> None:
        self.value = value


def independence_form(
    zeta: np.ndarray,
    contrasts: np.ndarray,
    f: np.ndarray,
    second: np.ndarray,
    mean: np.ndarray,
) -> float | None:
    """``vec(ζ)ᵀ Γ₀^{-1} vec(ζ)`` for ``Γ₀ = Σ_s c_s c_sᵀ ⊗ S_s − vec(M) vec(M)ᵀ`` without
    forming the p(h−1)-square ``Γ₀``: O(h p³) instead of O(p³ h³).

    With ``c_s = Aᵀ(e_s − f)`` (``A`` the orthonormal contrasts, ``contrasts``) the quadratic
    form of ``K = Σ_s c_s c_sᵀ ⊗ S_s`` at ``vec X`` is ``Σ_s u_sᵀ S_s u_s`` with ``u_s = X
    c_s``, and the ``u_s`` range over the vectors with ``Σ_s f_s u_s = 0``. So ``vec(R)ᵀ
    K^{-1} vec(R)`` is the maximum of ``Σ_s (2 u_sᵀ r̃_s − u_sᵀ S_s u_s)`` (``r̃_s`` the
    columns of ``R Aᵀ``) under that constraint, which is ``Σ_s u_sᵀ r̃_s`` at the maximiser.
    The constraint gives the ``u_t`` of one slice ``t`` (the worst-conditioned: R ``dr``'s
    last slice often has fewer rows than predictors) from the others, ``u_t = −w`` with ``w =
    Σ_{s≠t} g_s u_s``, ``g_s = f_s / f_t``; the maximiser is ``u_s = S_s^{-1}(b_s − g_s S_t
    w)`` with ``b_s = r̃_s − g_s r̃_t`` and ``(I + P S_t) w = Σ_{s≠t} g_s S_s^{-1} b_s``, ``P =
    Σ_{s≠t} g_s² S_s^{-1}``: p × p solves only. The mean's rank-one term follows by Sherman
    and Morrison.

    Parameters
    ----------
    zeta : ndarray of shape (p, h1)
    contrasts : ndarray of shape (h, h1)
        ``A``.
    f : ndarray of shape (h,)
        The slice fractions of ``c_s``.
    second : ndarray of shape (h, p, p)
        ``S_s`` (each slice's second moments, over the divisor of ``Γ₀``).
    mean : ndarray of shape (p, h1)
        ``M``, the mean of the rows' ``z aᵀ``.

    Returns
    -------
    float or None
        None when a slice's ``S_s`` but the worst-conditioned one is singular or too
        ill-conditioned (:data:`SLICE_CONDITION`), or ``Γ₀`` is not positive definite:
        factor ``Γ₀`` then.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p, h = 2, 3
    >>> A, f = helmert_basis(h), np.full(h, 1 / 3)
    >>> S = np.array([np.eye(p) + 0.1 * k for k in range(h)]) / h
    >>> zeta, M = rng.standard_normal((p, h - 1)), 0.1 * rng.standard_normal((p, h - 1))
    >>> C = A - f @ A
    >>> gamma = sum(np.kron(np.outer(c, c), s) for c, s in zip(C, S))
    >>> gamma -= np.outer(M.reshape(-1, order="F"), M.reshape(-1, order="F"))
    >>> v = zeta.reshape(-1, order="F")
    >>> bool(np.isclose(independence_form(zeta, A, f, S, M), v @ np.linalg.solve(gamma, v)))
    True
    """
    values, vectors = np.linalg.eigh(second)
    t = int(np.argmin(values[:, 0] / np.maximum(values[:, -1], np.finfo(float).tiny)))
    rest = np.arange(len(f)) != t
    values, vectors = values[rest], vectors[rest]
    if not np.all(values[:, 0] > values[:, -1] / SLICE_CONDITION) or not f[t] > 0:
        return None
    inverse = (vectors / values[:, None, :]) @ vectors.transpose(0, 2, 1)  # S_s^{-1}, s ≠ t
    g = f[rest] / f[t]
    S_t = second[t]
    system = np.eye(len(S_t)) + np.einsum("s,sjl->jl", g**2, inverse) @ S_t

    def solve(R: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The maximiser's ``u_s`` (s ≠ t) and ``w`` for ``R``, and ``r̃`` (h × p)."""
        tilde = (R @ contrasts.T).T  # r̃_s
        b = tilde[rest] - g[:, None] * tilde[t]
        inv_b = np.einsum("sjl,sl->sj", inverse, b)
        w = np.linalg.solve(system, g @ inv_b)
        return inv_b - g[:, None] * (inverse @ (S_t @ w)), w, tilde

    def form(first: tuple, tilde: np.ndarray) -> float:
        u, w, _ = first
        return float(np.sum(u * tilde[rest]) - w @ tilde[t])

    try:
        of_zeta, of_mean = solve(zeta), solve(mean)
    except np.linalg.LinAlgError:
        return None
    vv, vm = form(of_zeta, of_zeta[2]), form(of_zeta, of_mean[2])
    mm = form(of_mean, of_mean[2])
    if not 1.0 - mm > 0 or not vv > 0:
        return None
    return float(vv + vm**2 / (1.0 - mm))


def _gsolve(a1: np.ndarray, a2: np.ndarray) -> np.ndarray:
    """Pseudo-inverse solve with R ``dr``'s (MASS ``ginv``) threshold ``√eps · s_1``."""
    u, s, vt = np.linalg.svd(a1)
    if s.size == 0 or s[0] == 0:
        return np.zeros(a1.shape[1])
    keep = s > np.sqrt(np.finfo(float).eps) * s[0]
    return vt[keep].T @ ((u[:, keep].T @ a2) / s[keep])


#: Rows of the blocks in which :func:`_symmetric_from_upper` mirrors a triangle.
MIRROR_BLOCK = 128


def _symmetric_from_upper(upper: np.ndarray) -> np.ndarray:
    """The symmetric matrix whose upper triangle is ``upper``'s, in C order, in place.

    LAPACK's ``potri`` leaves the inverse in the upper triangle of a Fortran-ordered array,
    which is the lower triangle of its C-ordered transpose; that triangle is mirrored block by
    block (copies only, no arithmetic), so the ALS's contractions reshape the result without
    copying its N² floats again. ``numpy.triu`` took 0.25 s at N = 2,650 for what this copies
    in a few milliseconds.

    Examples
    --------
    >>> a = np.asfortranarray(np.triu(np.arange(9.0).reshape(3, 3)) + np.tril(np.ones((3, 3)), -1))
    >>> _symmetric_from_upper(a)
    array([[0., 1., 2.],
           [1., 4., 5.],
           [2., 5., 8.]])
    """
    out = np.asfortranarray(upper).T  # C order; its lower triangle holds the values
    n = out.shape[0]
    for lo in range(0, n, MIRROR_BLOCK):
        hi = min(lo + MIRROR_BLOCK, n)
        out[lo:hi, hi:] = out[hi:, lo:hi].T
        block = out[lo:hi, lo:hi]
        rows, cols = np.triu_indices(hi - lo, 1)
        block[rows, cols] = block[cols, rows]
    return out


class _Group:
    """One group's ``ζ`` (p × h1) and ``Γ`` through its factor: targets and metric.

    ``Γ^{-1}`` is held as an ``N × N`` array (``N = h1 p``, index ``s p + j`` for column
    ``s``, row ``j`` of ζ) and contracted with ``TB`` or a row of ``C`` by plain matrix
    products of reshaped views, never copied into another layout.
    """

    def __init__(self, zeta: np.ndarray, factor: np.ndarray) -> None:
        self.zeta, self.factor = zeta, factor
        self.p, self.h1 = zeta.shape
        self.target = self.whiten(zeta.reshape(-1, order="F"))  # G^{-T} vec ζ
        self._inverse: np.ndarray | None = None
        self._weighted_zeta: np.ndarray | None = None

    def whiten(self, values: np.ndarray) -> np.ndarray:
        """``G^{-T} v`` by a triangular solve."""
        return scipy.linalg.solve_triangular(
            self.factor, values, trans="T", lower=False, check_finite=False
        )

    @property
    def inverse(self) -> np.ndarray:
        """``Γ^{-1}`` (N × N), from the factor (LAPACK ``potri``) on first use."""
        if self._inverse is None:
            inv, info = scipy.linalg.lapack.dpotri(self.factor, lower=0)
            if info != 0:
                raise np.linalg.LinAlgError("Γ_ζ is singular.")
            self._inverse = _symmetric_from_upper(inv)
        return self._inverse

    @property
    def weighted_zeta(self) -> np.ndarray:
        """``Γ^{-1} vec ζ`` as an h1 × p array."""
        if self._weighted_zeta is None:
            self._weighted_zeta = (self.inverse @ self.zeta.reshape(-1, order="F")).reshape(
                self.h1, self.p
            )
        return self._weighted_zeta

    def value(self, fitted: np.ndarray) -> float:
        """``‖G^{-T} vec(ζ − fitted)‖²``."""
        return float(np.sum((self.target - self.whiten(fitted.reshape(-1, order="F"))) ** 2))

    def update_c(self, D: np.ndarray) -> np.ndarray:
        """``C`` (d × h1) minimising the group's discrepancy given ``TB = D`` (p × d):
        normal equations ``(I ⊗ D)ᵀ Γ^{-1} (I ⊗ D) vec C = (I ⊗ D)ᵀ Γ^{-1} vec ζ``."""
        h1, p, d = self.h1, self.p, D.shape[1]
        N = h1 * p
        # (I ⊗ D)ᵀ Γ^{-1}: Dᵀ times every p-block of rows (one pass over Γ^{-1} in its
        # order; the skinny product Γ^{-1}(I ⊗ D) read it 1.7 times slower), then · (I ⊗ D)
        left = np.matmul(D.T, self.inverse.reshape(h1, p, N))  # (s, a, (t, l))
        normal = (left.reshape(h1 * d * h1, p) @ D).reshape(h1 * d, h1 * d)
        rhs = (self.weighted_zeta @ D).reshape(-1)  # entry (s, a): (Dᵀ Γ^{-1}ζ)_{a s}
        try:
            coef = scipy.linalg.solve(normal, rhs, assume_a="pos", check_finite=False)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgWarning):
            coef = np.linalg.lstsq(normal, rhs, rcond=None)[0]
        return coef.reshape(h1, d).T

    def column_sides(self, C: np.ndarray) -> np.ndarray:
        """``(c_k ⊗ I)ᵀ Γ^{-1}`` for every row ``c_k`` of ``C`` (d × h1), as a (d, p, h1, p)
        array: one pass over ``Γ^{-1}`` for all the columns of ``B`` a sweep updates."""
        h1, p = self.h1, self.p
        return (C @ self.inverse.reshape(h1, p * h1 * p)).reshape(-1, p, h1, p)

    @staticmethod
    def column_terms(
        side: np.ndarray, c: np.ndarray, residual: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(c ⊗ I)ᵀ Γ^{-1} (c ⊗ I)`` (p × p) and ``(c ⊗ I)ᵀ Γ^{-1} vec(residual)`` (p): the
        normal equations of one column ``b`` of ``B`` with its row ``c`` of ``C``, before
        ``T``, from ``side = (c ⊗ I)ᵀ Γ^{-1}`` (p × h1 × p, :meth:`column_sides`)."""
        p, h1 = side.shape[0], side.shape[1]
        matrix = np.einsum("jtl,t->jl", side, c)
        rhs = side.reshape(p, h1 * p) @ residual.reshape(-1, order="F")
        return matrix, rhs


class Discrepancy:
    """``F(B, {C_g}) = n Σ_g ‖G_g^{-T}(vec ζ_g − vec(T B C_g))‖²`` and its ALS.

    ``T`` (p × m) restricts the span to ``span(T)`` (the identity when unrestricted); ``B`` is
    m × d in ``T``'s coordinates. One group is IRE; several, partial IRE (one ``B`` shared by
    the groups, a ``C_g`` each). With one group, ``update_c`` returns that group's ``C``.

    Parameters
    ----------
    zeta : ndarray of shape (p, h1), or list of them
        ``ζ`` of each group.
    factor : ndarray, or list of them
        The upper Cholesky factor of each group's ``Γ_ζ``.
    n : float
        The number of cases.
    label : str, default "IRE"
        Names the method in a convergence warning.
    """

    def __init__(self, zeta: Any, factor: Any, n: float, label: str = "IRE") -> None:
        self.pooled = isinstance(zeta, list)
        zetas = zeta if self.pooled else [zeta]
        factors = factor if self.pooled else [factor]
        self.groups = [_Group(z, G) for z, G in zip(zetas, factors)]
        self.zeta = zetas[0]
        self.n, self.label = n, label
        self.target = np.concatenate([g.target for g in self.groups])

    def independence(self) -> float:
        """``n Σ_g vec(ζ_g)ᵀ Γ_g^{-1} vec(ζ_g)``: the discrepancy at ``B = 0`` ("0D vs > 0D")."""
        return float(self.n * np.sum(self.target**2))

    def _cs(self, C: Any) -> list[np.ndarray]:
        return C if self.pooled else [C]

    def value(self, TB: np.ndarray, C: Any) -> float:
        return float(self.n * sum(g.value(TB @ c) for g, c in zip(self.groups, self._cs(C))))

    def update_c(self, TB: np.ndarray) -> Any:
        out = [g.update_c(TB) for g in self.groups]
        return out if self.pooled else out[0]

    def update_b(self, T: np.ndarray, B: np.ndarray, C: Any) -> np.ndarray:
        """Each column ``b_k`` given the others (projected off them, unit length), as R."""
        B = B.copy()
        Cs = self._cs(C)
        m, d = B.shape
        sides = [g.column_sides(Cg) for g, Cg in zip(self.groups, Cs)]  # C is fixed here
        for k in range(d):
            others = np.delete(B, k, axis=1)
            if d > 1:
                q, _ = np.linalg.qr(others)
                complement = np.eye(m) - q @ q.T
            else:
                complement = np.eye(m)
            matrix, rhs = np.zeros((m, m)), np.zeros(m)
            for g, Cg, side_g in zip(self.groups, Cs, sides):
                residual = g.zeta - T @ others @ np.delete(Cg, k, axis=0)
                inner, side = g.column_terms(side_g[k], Cg[k], residual)
                matrix += T.T @ inner @ T
                rhs += T.T @ side
            # the least-squares solution of smallest norm in the complement of the others
            a1 = complement @ matrix @ complement
            bk = complement @ (complement @ _gsolve(a1, complement @ rhs))
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
        for group in self.groups:
            group.inverse  # noqa: B018 -- Γ^{-1} once, with the caller's BLAS threads
        # the sweeps are many small dense problems: one BLAS thread is faster than two, and
        # much faster when other jobs share the cores
        with threadpool_limits(1, user_api="blas"):
            return self._sweeps(d, T, B, tol, max_iter)

    def _sweeps(
        self, d: int, T: np.ndarray, B: np.ndarray, tol: float, max_iter: int
    ) -> tuple[np.ndarray, float, int]:
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
                    f"{self.label}'s alternating least squares for d = {d} stopped after "
                    f"{iterations} sweeps with relative change {abs(err - old) / old:.1e} > "
                    f"tol = {tol:g}; raise max_iter or tol.",
                    ConvergenceWarning,
                    stacklevel=5,
                )
                break
        return T @ B, err, iterations


#: Each fit's discrepancy at its final ``Γ_ζ``, while the fit lives (see
#: :func:`shared_discrepancy`).
_SHARED: weakref.WeakKeyDictionary[Any, Discrepancy] = weakref.WeakKeyDictionary()


def shared_discrepancy(
    results: Any, zeta: Any, factor: Any, n: float, label: str = "IRE"
) -> Discrepancy:
    """The :class:`Discrepancy` of a fit's final ``Γ_ζ`` factor(s), shared by its coordinate
    tests: ``Γ^{-1}`` (a LAPACK ``potri``, 0.25 s at p(h − 1) = 2,650) once per fit, not once
    per test (``drop1`` tests every predictor). Kept beside ``results`` while it lives, not
    in it (it is not saved with the fit)."""
    factors = factor if isinstance(factor, list) else [factor]
    held = _SHARED.get(results)
    if (
        held is not None
        and held.n == n
        and len(held.groups) == len(factors)
        and all(g.factor is G for g, G in zip(held.groups, factors))
    ):
        return held
    disc = Discrepancy(zeta, factor, n, label)
    _SHARED[results] = disc
    return disc


def factor_blocks(factor: np.ndarray, H: np.ndarray) -> np.ndarray:
    """``G (I ⊗ H)`` for a factor ``G`` (N × N, ``N = h1 p``) and ``H`` (p × r), block by
    block (N² r products; the dense ``I ⊗ H`` took h1 times more).

    Examples
    --------
    >>> G, H = np.arange(36.0).reshape(6, 6), np.array([[1.0], [2.0]])
    >>> bool(np.allclose(factor_blocks(G, H), G @ np.kron(np.eye(3), H)))
    True
    """
    N = factor.shape[0]
    p, r = H.shape
    return (factor.reshape(N, N // p, p) @ H).reshape(N, (N // p) * r)


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
    set to zero: the independence test; or an :class:`IndependenceNorm`), ``None`` (the slice means themselves) or a p × d basis
    (the slice means projected on its span). Each ``d`` is fitted with the first ``Γ_ζ``,
    then ``steps`` times re-estimated at its fitted span and refitted (Cook & Ni 2005); the
    fits of different ``d`` are independent, so every round asks ``gammas`` for all of them at
    once (one pass over the rows). ``make_disc`` turns factor(s) into a discrepancy,
    ``reorder`` puts a fitted basis in importance order and ``finish`` post-processes it.
    Returns the solutions, the minimised criteria (with the independence value at 0) and the
    sweeps used.
    """
    zero, first = gammas(["zero", None])
    first_disc = make_disc(first)
    if isinstance(zero, IndependenceNorm):  # the source solved Γ_ζ under independence itself
        criteria = {0: float(first_disc.n * zero.value)}
    else:
        criteria = {0: make_disc(zero).independence()}
    iterations = {0: 0}
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
        solutions[d], criteria[d] = finish(B), F
        iterations[d] = it
    return solutions, criteria, iterations


__all__ = [
    "Discrepancy",
    "IndependenceNorm",
    "chi2_upper",
    "covariance_factor",
    "factor_blocks",
    "helmert_basis",
    "importance_order",
    "independence_form",
    "projected_means",
    "shared_discrepancy",
    "solve_rounds",
]
