"""Natural-gradient descent on the Grassmann manifold with geodesic steps.

The point is a ``d x p`` matrix ``W`` with orthonormal rows; only its row space matters.
The caller supplies ``fun(W) -> (value, euclidean_gradient)``; the optimiser projects the
gradient onto the tangent space, moves along the geodesic in the descent direction, and chooses
the step by a backtracking/expanding line search (Armijo). This is the optimiser of LSCE/LSMI
(Tangkaratt et al. 2015, after Edelman et al. 1998) and is reused by KDR.

API
---
``grassmann_minimize(fun, W0, max_iter=100, tol=1e-6, callback=None)`` returns a
:class:`GrassmannResult` with ``W`` (orthonormal rows), ``value``, ``trace`` (objective after
each iteration), ``converged`` and ``n_iter``. ``callback(iteration, W)`` runs after every
accepted step; if it returns ``True`` the objective has changed (say its hyperparameters were
re-selected by cross-validation) and the value and gradient are recomputed at ``W``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

Objective = Callable[[np.ndarray], tuple[float, np.ndarray]]


@dataclass
class GrassmannResult:
    """Outcome of :func:`grassmann_minimize`.

    Attributes
    ----------
    W : ndarray of shape (d, p)
        Final point, orthonormal rows.
    value : float
        Objective at ``W`` (for the objective in force at the end).
    trace : list of float
        Objective value after each iteration (the first entry is the start).
    gradient_norms : list of float
        Frobenius norm of the natural gradient at each iterate.
    converged : bool
        ``False`` when ``max_iter`` iterations ran without meeting the tolerance.
    n_iter : int
        Iterations performed.
    n_evaluations : int
        Calls of the objective.
    """

    W: np.ndarray
    value: float
    trace: list[float] = field(default_factory=list)
    gradient_norms: list[float] = field(default_factory=list)
    converged: bool = False
    n_iter: int = 0
    n_evaluations: int = 0


def random_orthonormal_rows(d: int, p: int, rng: np.random.Generator) -> np.ndarray:
    """A ``d x p`` matrix with orthonormal rows, uniform on the Grassmann manifold."""
    q, r = np.linalg.qr(rng.standard_normal((p, d)))
    return (q * np.sign(np.diag(r))).T


def orthogonal_complement(W: np.ndarray) -> np.ndarray:
    """``(p - d) x p`` matrix ``W_perp`` such that ``[W; W_perp]`` is orthogonal."""
    return scipy.linalg.null_space(W).T


def geodesic(W: np.ndarray, W_perp: np.ndarray, B: np.ndarray, t: float) -> np.ndarray:
    """Point ``W_t`` of the geodesic through ``W`` in the direction ``-B W_perp``.

    ``W_t = [I 0] expm(-t [[0, B], [-B^T, 0]]) [W; W_perp]`` with ``B = G W_perp^T`` for a
    Euclidean gradient ``G``. Computed exactly from the thin SVD ``B = U S V^T``:
    ``W_t = (I + U (cos tS - I) U^T) W - U sin(tS) V^T W_perp``.
    """
    U, s, Vt = np.linalg.svd(B, full_matrices=False)
    cos_part = U @ ((np.cos(t * s) - 1.0)[:, None] * (U.T @ W))
    sin_part = U @ (np.sin(t * s)[:, None] * (Vt @ W_perp))
    return W + cos_part - sin_part


def _reorthonormalise(W: np.ndarray) -> np.ndarray:
    # Rounding drifts the rows away from orthonormality over many steps; the polar factor is
    # the closest matrix with orthonormal rows and has the same row space.
    U, _, Vt = np.linalg.svd(W, full_matrices=False)
    return U @ Vt


def grassmann_minimize(
    fun: Objective,
    W0: np.ndarray,
    *,
    max_iter: int = 100,
    tol: float = 1e-6,
    gtol: float = 1e-8,
    initial_angle: float = 0.1,
    callback: Callable[[int, np.ndarray], bool] | None = None,
    max_line_search: int = 30,
) -> GrassmannResult:
    """Minimise ``fun`` over the Grassmann manifold by natural-gradient geodesic descent.

    Parameters
    ----------
    fun : callable
        ``fun(W) -> (value, gradient)`` with ``gradient`` the Euclidean gradient ``d x p``.
    W0 : ndarray of shape (d, p)
        Start; its rows are orthonormalised.
    max_iter : int, default 100
        Maximum number of gradient steps.
    tol : float, default 1e-6
        Stop when an accepted step lowers the objective by less than
        ``tol * (|value| + tol)``.
    gtol : float, default 1e-8
        Stop when the natural gradient's Frobenius norm falls below ``gtol``.
    initial_angle : float, default 0.1
        Rotation angle (radians, largest principal angle) of the first trial step; later
        iterations start from the last accepted angle, doubled.
    callback : callable, optional
        ``callback(iteration, W) -> bool`` after each accepted step; ``True`` means the
        objective changed and must be re-evaluated.
    max_line_search : int, default 30
        Maximum halvings/doublings of the step in one line search.

    Returns
    -------
    GrassmannResult

    Notes
    -----
    The natural gradient under the canonical metric is ``G - G W^T W = G W_perp^T W_perp``.
    Along the geodesic the objective's slope at ``t = 0`` is ``-||B||_F^2`` with
    ``B = G W_perp^T``; a step is accepted when it achieves at least ``1e-4`` of the decrease
    this slope predicts (Armijo), and the step is doubled while the objective keeps falling.

    Examples
    --------
    The leading eigenvector of a symmetric matrix minimises ``-w A w^T``:

    >>> import numpy as np
    >>> A = np.diag([3.0, 2.0, 1.0])
    >>> res = grassmann_minimize(lambda W: (-np.trace(W @ A @ W.T), -2 * W @ A),
    ...                          np.array([[0.6, 0.8, 0.0]]))
    >>> bool(res.converged), round(float(abs(res.W[0, 0])), 3)
    (True, 1.0)
    """
    W = _reorthonormalise(np.asarray(W0, dtype=float))
    n_eval = 1
    value, grad = fun(W)
    result = GrassmannResult(W=W, value=float(value), trace=[float(value)])
    angle = initial_angle
    for it in range(1, max_iter + 1):
        W_perp = orthogonal_complement(W)
        B = grad @ W_perp.T
        gnorm = float(np.linalg.norm(B))
        result.gradient_norms.append(gnorm)
        if gnorm < gtol:
            result.converged = True
            break
        slope = -(gnorm**2)
        t = angle / gnorm
        accepted = None
        for _ in range(max_line_search):
            W_t = geodesic(W, W_perp, B, t)
            v_t, g_t = fun(W_t)
            n_eval += 1
            if np.isfinite(v_t) and v_t <= value + 1e-4 * t * slope:
                accepted = (t, W_t, v_t, g_t)
                break
            t /= 2.0
        if accepted is None:
            # No descent is possible at machine precision: a stationary point.
            result.converged = True
            result.n_iter = it
            break
        if accepted[0] == angle / gnorm:
            # The first trial worked: expand while the objective keeps falling.
            for _ in range(max_line_search):
                t2 = accepted[0] * 2.0
                if t2 * gnorm > np.pi / 2:
                    break
                W2 = geodesic(W, W_perp, B, t2)
                v2, g2 = fun(W2)
                n_eval += 1
                if not (np.isfinite(v2) and v2 < accepted[2]):
                    break
                accepted = (t2, W2, v2, g2)
        t, W_new, v_new, grad = accepted
        W = _reorthonormalise(W_new)
        decrease = value - v_new
        value = float(v_new)
        angle = min(2.0 * t * gnorm, np.pi / 2)
        result.trace.append(value)
        result.n_iter = it
        changed = bool(callback(it, W)) if callback is not None else False
        if changed:
            value, grad = fun(W)
            n_eval += 1
            value = float(value)
            continue
        if decrease <= tol * (abs(value) + tol):
            result.converged = True
            break
    result.W = W
    result.value = float(value)
    result.n_evaluations = n_eval
    return result


@dataclass
class ChartResult:
    """Outcome of :func:`minimize_on_charts`.

    Attributes
    ----------
    basis : ndarray of shape (p, k)
        Orthonormal basis of the span found.
    value : float
        The criterion there.
    converged : bool
        Whether the last BFGS run met its gradient tolerance (or stopped with a gradient at
        rounding level).
    """

    basis: np.ndarray
    value: float
    converged: bool


def _on_chart(
    criterion: Callable[[np.ndarray], tuple[float, np.ndarray]], base: np.ndarray, perp: np.ndarray
) -> Callable[[np.ndarray], tuple[float, np.ndarray]]:
    """The criterion on the chart ``B = base + perp C`` as a function of the flattened ``C``."""
    shape = (perp.shape[1], base.shape[1])

    def on_chart(c: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = criterion(base + perp @ c.reshape(shape))
        if not np.isfinite(value):
            return np.inf, np.zeros_like(c)
        return float(value), (perp.T @ grad).ravel()

    return on_chart


def minimize_on_charts(
    criterion: Callable[[np.ndarray], tuple[float, np.ndarray]],
    start: np.ndarray,
    *,
    gtol: float,
    max_iter: int,
    max_charts: int = 10,
) -> ChartResult:
    """Minimise a criterion of a span by BFGS on charts of the Grassmann manifold.

    ``criterion(B)`` is a function of the span of its argument only (any basis ``B``,
    ``p x k``) and returns its value and Euclidean gradient in ``B``. Around an orthonormal
    ``A₀`` the chart ``B = A₀ + A₀⊥ C`` (``A₀⊥`` an orthonormal basis of the complement)
    is unconstrained in ``C`` (``(p − k) x k``), and the gradient in ``C`` is ``A₀⊥ᵀ`` times
    the gradient in ``B``; BFGS (Nocedal & Wright 2006) runs on it from ``C = 0``. While a
    step leaves the chart far (a coordinate of ``C`` above 1), the chart is re-centred on
    the result, at most ``max_charts`` times.

    Parameters
    ----------
    criterion : callable
        ``criterion(B) -> (value, gradient)``.
    start : ndarray of shape (p, k)
        A basis of the starting span (orthonormalised here).
    gtol : float
        BFGS's gradient tolerance (the largest coordinate of the gradient in ``C``).
    max_iter : int
        BFGS iterations per chart.
    max_charts : int, default 10
        Charts at most.

    Returns
    -------
    ChartResult

    Examples
    --------
    >>> S = np.diag([5.0, 3.0, 1.0])  # the span maximising tr(Bᵀ S B) for B orthonormal
    >>> def criterion(B):
    ...     Q, R = np.linalg.qr(B)
    ...     G = np.linalg.inv(B.T @ B)
    ...     value = -np.trace(G @ B.T @ S @ B)
    ...     grad = -2 * (S @ B @ G - B @ G @ (B.T @ S @ B) @ G)
    ...     return value, grad
    >>> found = minimize_on_charts(criterion, np.ones((3, 1)), gtol=1e-10, max_iter=200)
    >>> np.abs(found.basis.ravel()).round(6).tolist(), round(found.value, 6)
    ([1.0, 0.0, 0.0], -5.0)
    """
    import scipy.optimize

    A = np.linalg.qr(np.asarray(start, dtype=float))[0]
    p, k = A.shape
    found = None
    for _ in range(max_charts):
        perp = scipy.linalg.null_space(A.T)
        found = scipy.optimize.minimize(
            _on_chart(criterion, A, perp),
            np.zeros((p - k) * k),
            jac=True,
            method="BFGS",
            options={"gtol": gtol, "maxiter": max_iter},
        )
        step = found.x.reshape(p - k, k)
        A = np.linalg.qr(A + perp @ step)[0]
        if np.abs(step).max() <= 1.0:
            break
    assert found is not None
    # BFGS reports a loss of precision when the gradient is at rounding level
    converged = bool(found.success or np.abs(found.jac).max() <= 1e3 * gtol)
    return ChartResult(A, float(found.fun), converged)


__all__ = [
    "ChartResult",
    "GrassmannResult",
    "geodesic",
    "grassmann_minimize",
    "minimize_on_charts",
    "orthogonal_complement",
    "random_orthonormal_rows",
]
