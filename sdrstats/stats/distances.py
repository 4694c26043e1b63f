"""Distances between subspaces given by basis matrices (columns span the subspace).

Every bootstrap, benchmark and simulation of the package measures estimates with these.
Bases need not be orthonormal; they are orthonormalised here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg


def orthonormal_basis(basis: Any) -> np.ndarray:
    """Orthonormal basis (p x d) of the column span of ``basis``.

    Parameters
    ----------
    basis : array-like of shape (p, d) or (p,)
        Columns spanning the subspace (a 1-D array is one direction).

    Returns
    -------
    ndarray of shape (p, d)

    Examples
    --------
    >>> import numpy as np
    >>> q = orthonormal_basis([[1.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
    >>> bool(np.allclose(q.T @ q, np.eye(2)))
    True
    """
    a = np.asarray(basis, dtype=float)
    if a.ndim == 1:
        a = a.reshape(-1, 1)
    q, _ = np.linalg.qr(a)
    return q


def _checked_basis(basis: Any, name: str) -> np.ndarray:
    """An orthonormal basis of ``basis``, refusing what spans no subspace of its column count."""
    a = np.asarray(basis, dtype=float)
    if a.ndim == 1:
        a = a.reshape(-1, 1)
    if a.ndim != 2 or a.size == 0:
        raise ValueError(f"Basis {name} must be a non-empty p x d matrix; got shape {a.shape}.")
    if not np.isfinite(a).all():
        raise ValueError(
            f"Basis {name} has NaN or infinite entries; a subspace distance needs a finite basis "
            "(a failed fit gives NaN directions: check the fit first)."
        )
    q, r = np.linalg.qr(a)
    diag = np.abs(np.diag(r))
    # rank by the QR's diagonal, relative to the basis's own scale (as numpy's matrix_rank)
    rank = int(np.sum(diag > max(a.shape) * np.finfo(float).eps * max(diag.max(), 0.0)))
    if diag.max() == 0.0 or rank < a.shape[1]:
        raise ValueError(
            f"Basis {name} has rank {rank if diag.max() > 0 else 0} but {a.shape[1]} column(s): "
            "its columns span no subspace of that dimension (a zero or repeated direction); "
            "pass linearly independent columns."
        )
    return q


def _pair(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    qa, qb = _checked_basis(a, "a"), _checked_basis(b, "b")
    if qa.shape[0] != qb.shape[0]:
        raise ValueError(f"Bases live in different spaces: {qa.shape[0]} and {qb.shape[0]} rows.")
    return qa, qb


def projection_distance(a: Any, b: Any) -> float:
    """Frobenius norm of the difference of the orthogonal projections, ``||P_A - P_B||_F``.

    Zero for equal subspaces; ``sqrt(d_a + d_b)`` for orthogonal ones. Tangkaratt et al.'s (2015) Error_DR.

    Parameters
    ----------
    a, b : array-like of shape (p, d_a) and (p, d_b)
        Bases whose columns span the two subspaces (need not be orthonormal; a 1-D array is
        one direction).

    Returns
    -------
    float

    Examples
    --------
    >>> projection_distance(np.eye(3)[:, :1], np.eye(3)[:, 1:2])
    1.4142...
    """
    qa, qb = _pair(a, b)
    return float(np.linalg.norm(qa @ qa.T - qb @ qb.T))


def det_distance(a: Any, b: Any) -> float:
    """``1 - |det(Q_A' Q_B)|`` for subspaces of equal dimension (the measure of Cheng & Cui's online sparse SIR).

    Parameters
    ----------
    a, b : array-like of shape (p, d)
        Bases of two subspaces of the same dimension ``d`` (orthonormalised here).

    Returns
    -------
    float
        0 for equal subspaces, 1 when some direction of one is orthogonal to the other.

    Examples
    --------
    >>> det_distance(np.eye(3)[:, :2], np.eye(3)[:, :2])
    0.0
    """
    qa, qb = _pair(a, b)
    if qa.shape[1] != qb.shape[1]:
        raise ValueError(
            f"det_distance needs subspaces of equal dimension; got {qa.shape[1]} and {qb.shape[1]}."
        )
    return float(max(0.0, 1.0 - abs(np.linalg.det(qa.T @ qb))))


def trace_correlation(a: Any, b: Any) -> float:
    """``tr(P_A P_B) / d`` with ``d`` the larger dimension: 1 for equal subspaces, 0 for orthogonal.

    Parameters
    ----------
    a, b : array-like of shape (p, d_a) and (p, d_b)
        Bases of the two subspaces (orthonormalised here).

    Returns
    -------
    float
        The trace correlation ``r`` in [0, 1].

    Examples
    --------
    >>> trace_correlation(np.eye(3)[:, :2], np.eye(3)[:, :2])
    1.0
    """
    qa, qb = _pair(a, b)
    d = max(qa.shape[1], qb.shape[1])
    return float(np.linalg.norm(qa.T @ qb) ** 2 / d)


def principal_angles(a: Any, b: Any) -> np.ndarray:
    """Principal angles (radians, decreasing) between the two subspaces.

    Parameters
    ----------
    a, b : array-like of shape (p, d_a) and (p, d_b)
        Bases of the two subspaces.

    Returns
    -------
    ndarray of shape (min(d_a, d_b),)

    Examples
    --------
    >>> import numpy as np
    >>> b = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    >>> np.degrees(principal_angles(np.eye(3)[:, :2], b)).round(1)
    array([45.,  0.])
    """
    qa, qb = _pair(a, b)
    return scipy.linalg.subspace_angles(qa, qb)


DISTANCES = {
    "projection": projection_distance,
    "det": det_distance,
    "trace_correlation": lambda a, b: 1.0 - trace_correlation(a, b),
}
"""Distance functions by name; ``trace_correlation`` enters as the distance ``1 - r``."""


def subspace_distance(a: Any, b: Any, distance: str = "projection") -> float:
    """Distance by name: ``"projection"``, ``"det"`` or ``"trace_correlation"`` (as ``1 - r``).

    Parameters
    ----------
    a, b : array-like of shape (p, d_a) and (p, d_b)
        Bases of the two subspaces.
    distance : {"projection", "det", "trace_correlation"}, default "projection"
        Which measure; see :func:`projection_distance`, :func:`det_distance` and
        :func:`trace_correlation`.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> a = np.eye(3)[:, :2]
    >>> b = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    >>> round(subspace_distance(a, b), 4)
    1.0
    >>> round(subspace_distance(a, b, "trace_correlation"), 4)
    0.25
    """
    try:
        fn = DISTANCES[distance]
    except KeyError:
        raise ValueError(
            f"distance must be one of {sorted(DISTANCES)}; got {distance!r}."
        ) from None
    return fn(a, b)


__all__ = [
    "orthonormal_basis",
    "projection_distance",
    "det_distance",
    "trace_correlation",
    "principal_angles",
    "subspace_distance",
    "DISTANCES",
]
